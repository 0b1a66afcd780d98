#!/usr/bin/env python3
"""Converts every table of validate/nccl/*.yaml into one plansim-hw bench nccl JSON file
(validate/nccl/bench/<table>.json), so that `plansim calibrate --topology` can fit a system's profile on
its tables and report the leave-one-out error by table (one file per table). Rows without a time get
t = size * busbw_factor / busbw (nccl-tests' definition, doc/PERFORMANCE.md); nothing is fitted here.
Usage: scripts/nccl_tables_to_bench.py   (rewrites the files; deterministic)"""
import json
import pathlib

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
          "reduce_scatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
          "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0}


def convert(path, table):
    cols = table["columns"]
    op = table["op"]
    rows = []
    for r in table["rows"]:
        row = dict(zip(cols, r))
        n = int(row.get("gpus", table.get("gpus", 0)))
        size = int(row["size_B"])
        f = FACTOR[op](n)
        busbw = float(row["busbw_GBps"]) * 1e9
        t = row.get("oop_time_us", row.get("time_us"))
        time_s = float(t) * 1e-6 if t is not None else size * f / busbw
        rows.append({"op": op, "size_bytes": size, "nranks": n, "placement": "out_of_place", "time_s": time_s,
                     "busbw_Bps": busbw, "busbw_factor": f, "wrong": 0})
    config = {"op": op, "algorithm": table.get("algo", "auto")}
    if table.get("harness", "nccl-tests") != "nccl-tests":  # the loop that timed it (a torch.distributed loop)
        config["harness"] = table["harness"]
    return {"bench": "nccl", "schema_version": 1,
            "tool": f"converted by scripts/nccl_tables_to_bench.py from {path.relative_to(ROOT)} table {table['name']}",
            "config": config, "rows": rows}


def main():
    out = ROOT / "validate/nccl/bench"
    for path in sorted((ROOT / "validate/nccl").glob("*.yaml")):
        for table in yaml.safe_load(path.read_text())["tables"]:
            (out / f"{table['name']}.json").write_text(json.dumps(convert(path, table), indent=1) + "\n")


if __name__ == "__main__":
    main()
