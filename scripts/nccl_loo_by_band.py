#!/usr/bin/env python3
"""Leave-one-out by size band for a system with one nccl-tests table (validate/nccl/README.md).

Splits the table's bench JSON (validate/nccl/bench/<table>.json) into one file per size band
(1-4 MiB, 8-64 MiB, >= 128 MiB by default) and runs `plansim calibrate` on the files, whose
leave-one-out is then by file: each band is predicted by a fit made on the other bands only.
Usage: scripts/nccl_loo_by_band.py BUILD_DIR BENCH_JSON -- CALIBRATE_ARGS...
"""
import json
import os
import subprocess
import sys
import tempfile

MiB = 1 << 20
BANDS = [("1-4MiB", 0, 8 * MiB), ("8-64MiB", 8 * MiB, 128 * MiB), ("ge128MiB", 128 * MiB, float("inf"))]


def main():
    if len(sys.argv) < 4 or "--" not in sys.argv:
        sys.exit(__doc__)
    cut = sys.argv.index("--")
    build, bench = sys.argv[1], sys.argv[2]
    args = sys.argv[cut + 1:]
    doc = json.load(open(bench))
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, lo, hi in BANDS:
            rows = [r for r in doc["rows"] if lo <= r["size_bytes"] < hi]
            if not rows:
                continue
            path = os.path.join(tmp, f"{name}.json")
            json.dump(dict(doc, rows=rows), open(path, "w"))
            files.append(path)
        out = subprocess.run([os.path.join(build, "plansim"), "calibrate", *files, *args, "-o", os.path.join(tmp, "p.yaml")],
                             check=True, capture_output=True, text=True).stdout
        print(out.replace(tmp + "/", ""), end="")


if __name__ == "__main__":
    main()
