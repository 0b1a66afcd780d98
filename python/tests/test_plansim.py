"""`import plansim` against the CLI it mirrors (run by CTest: label `python`)."""
import json
import os
import subprocess
import threading
import time

import pytest

import plansim

SRC = os.environ.get("PLANSIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SEED = os.path.join(SRC, "scenarios", "seed-pipeline-4x16.yaml")
GOOD = os.path.join(SRC, "scenarios", "antipatterns", "good.yaml")
DGX = os.path.join(SRC, "topologies", "dgx-h100.yaml")
CLI = os.environ.get("PLANSIM_CLI")


def seed_dict():
    """The seed scenario as a dict, with its topology path made absolute."""
    return {
        "name": "seed as a dict",
        "topology": DGX,
        "nodes": 1,
        "model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 32, "ffn_hidden": 16384, "vocab": 32000,
                  "seq_len": 2048, "dtype": "bf16"},
        "parallel": {"tp": 1, "pp": 4, "dp": 2},
        "schedule": {"kind": "1f1b"},
        "training": {"global_batch": 32, "micro_batch": 1, "recompute": "none"},
    }


def test_run_returns_the_json_report():
    r = plansim.run(SEED)
    assert r["gpus"] == 8
    assert 0 < r["iteration_time_s"] < 10
    assert len(r["stages"]) == 4
    assert "ops" not in r
    # The pipeline bubble of 4 stages x 16 micro-batches is at least (p-1)/m of the busy time.
    assert r["bubble_overhead"] >= 3 / 16


def test_run_equals_the_cli_json(tmp_path):
    if not CLI:
        pytest.skip("PLANSIM_CLI not set")
    out = tmp_path / "r.json"
    subprocess.run([CLI, "run", SEED, "--set", "training.micro_batch=2", "--json", str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    cli = json.loads(out.read_text())
    cli.pop("ops")
    assert plansim.run(SEED, set={"training.micro_batch": 2}) == cli


@pytest.mark.parametrize("scenario", ["dualpipe-moe-64-h100.yaml", "llama3-405b-16k-h100.yaml"])
def test_the_allocator_changes_no_figure(tmp_path, scenario):
    """The CLI runs on mimalloc's 2 MiB pages where it was built with it (`plansim --version` says), this module
    on the system malloc: both reports are equal, float for float (nothing in a plan orders by address)."""
    if not CLI:
        pytest.skip("PLANSIM_CLI not set")
    path = os.path.join(SRC, "scenarios", scenario)
    out = tmp_path / "r.json"
    subprocess.run([CLI, "run", path, "--allow-oom", "--json", str(out)], check=True, stdout=subprocess.DEVNULL)
    cli = json.loads(out.read_text())
    cli.pop("ops")
    assert plansim.run(path) == cli


def test_a_dict_scenario_and_set_forms_agree():
    by_path = plansim.run(SEED, set=["schedule.kind=gpipe"])
    by_dict = plansim.run(seed_dict(), set={"schedule.kind": "gpipe"})
    assert by_dict["name"] == "seed as a dict"
    assert by_dict["iteration_time_s"] == pytest.approx(by_path["iteration_time_s"], rel=1e-12)


def test_a_subset_of_the_server_and_which_gpus_ran():
    r = plansim.run(SEED, set={"parallel.dp": 1, "gpus": [4, 5, 6, 7]})
    assert r["gpus"] == 4 and r["topology_gpus"] == 8
    assert r["gpu_ids"] == [4, 5, 6, 7]


def test_ops_are_numpy_columns_and_a_dataframe():
    np = pytest.importorskip("numpy")
    r = plansim.run(SEED, ops=True)
    ops = r["ops"]
    n = len(ops["rank"])
    assert n > 0 and all(len(ops[k]) == n for k in ("label", "start_s", "duration_s"))
    assert ops["start_s"].dtype == np.float64 and ops["rank"].dtype == np.uint32
    # Views over the simulator's records, not copies.
    assert not ops["start_s"].flags["OWNDATA"]
    assert int(ops["label"].max()) < len(r["op_labels"])
    assert (ops["duration_s"] >= 0).all()
    pd = pytest.importorskip("pandas")
    df = plansim.ops_frame(r)
    assert isinstance(df, pd.DataFrame) and len(df) == n
    assert set(df["class"].cat.categories) <= {"gemm", "attention", "elementwise", "collective", "p2p"}
    # Every op ends inside the iteration.
    assert (df["start_s"] + df["duration_s"]).max() <= r["iteration_time_s"] * (1 + 1e-9)


def test_config_error_carries_file_line_column(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(open(SEED).read().replace("micro_batch: 1", "micro_batch: 0"))
    with pytest.raises(plansim.ConfigError) as e:
        plansim.run(str(bad))
    assert e.value.file == str(bad)
    assert e.value.line == 9 and e.value.column > 0
    assert "micro_batch" in e.value.message
    assert str(e.value).startswith(f"{bad}:9:")
    assert isinstance(e.value, ValueError)


def test_config_error_from_set_and_from_a_dict():
    with pytest.raises(plansim.ConfigError) as e:
        plansim.run(SEED, set={"training.micro_bach": 2})
    assert "did you mean 'training.micro_batch'" in e.value.message
    d = seed_dict()
    d["parallel"]["tp"] = 3
    with pytest.raises(plansim.ConfigError) as e:
        plansim.run(d)
    assert e.value.file == "<dict>" and e.value.line > 0
    assert str(e.value).startswith("<dict>:")


def test_the_gil_is_released_while_simulating():
    # A Python thread keeps running while run() simulates on another.
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    start = time.perf_counter()
    plansim.run(SEED, set={"parallel.dp": 1, "parallel.pp": 8, "training.global_batch": 256})
    end = time.perf_counter()
    done.set()
    t.join()
    inside = [x for x in ticks if start < x < end]
    assert end - start < 0.05 or len(inside) >= 3


def test_sweep_rows_per_point():
    rows = plansim.sweep(GOOD, vary={"training.micro_batch": [4, 8], "parallel.dp": [8, 16]}, jobs=2)
    assert [r["point"] for r in rows] == [
        {"training.micro_batch": "4", "parallel.dp": "8"}, {"training.micro_batch": "4", "parallel.dp": "16"},
        {"training.micro_batch": "8", "parallel.dp": "8"}, {"training.micro_batch": "8", "parallel.dp": "16"}]
    assert [r["valid"] for r in rows] == [True, False, True, False]
    assert "16 GPUs, but the topology has 8 GPUs" in rows[1]["error"]
    assert rows[0]["metrics"]["iteration_s"] > 0


def test_search_and_lint():
    s = plansim.search(GOOD, set={"parallel.dp": 4}, top=3, jobs=2, only={"parallel.zero": [0, 1]})
    assert s["gpus"] == 4
    assert 1 <= len(s["plans"]) <= 3
    lint = plansim.lint(os.path.join(SRC, "scenarios", "antipatterns", "pipeline-bubble.yaml"), jobs=2)
    assert "pipeline-bubble" in {rule for f in lint["findings"] for rule in f["rules"]}
    with pytest.raises(plansim.ConfigError, match="unknown threshold"):
        plansim.lint(GOOD, thresholds={"nope": 1})


def test_topo_and_collective():
    t = plansim.topo(DGX, nodes=2)
    assert t["gpus"] == 16 and t["servers"] == 2
    assert plansim.topo(DGX, nodes=1, dot=True).startswith("digraph")
    c = plansim.collective(DGX, op="all_reduce", gpus=8, nodes=1, min_bytes="1M", max_bytes="16M", factor=4)
    assert c["gpus"] == 8 and [row["bytes"] for row in c["rows"]] == [1048576, 4194304, 16777216]
    assert all(row["busbw_GBps"] > 0 for row in c["rows"])
    with pytest.raises(plansim.ConfigError) as e:
        plansim.collective(DGX, gpus=9, nodes=1)
    assert e.value.file == "--gpus"


def test_validate_a_report_against_itself(tmp_path):
    if not CLI:
        pytest.skip("PLANSIM_CLI not set")
    sim = tmp_path / "sim.json"
    subprocess.run([CLI, "run", SEED, "--json", str(sim)], check=True, stdout=subprocess.DEVNULL)
    v = plansim.validate(sim=sim, measured=sim)
    assert v["within_tolerance"] and v["end_to_end_rel"] == 0
    assert v["classes"]["gemm"]["median_abs_rel"] == 0


def test_validate_and_calibrate_published_runs(tmp_path):
    runs = tmp_path / "runs.yaml"
    runs.write_text(f"""plansim_runs: 1
gpu: H100
runs:
  - name: seed
    dataset: test
    scenario: {SEED}
    measured: {{iteration_time_s: 1.0}}
    source: "made up for the test"
  - name: seed-mb2
    dataset: test
    scenario: {SEED}
    set: {{training.micro_batch: 2}}
    measured: {{iteration_time_s: 1.0}}
    source: "made up for the test"
""")
    v = plansim.validate(runs=str(runs), jobs=2)
    assert [r["name"] for r in v["files"][0]["runs"]] == ["seed", "seed-mb2"]
    assert v["files"][0]["datasets"]["test"]["runs"] == 2
    fit = plansim.calibrate(runs=str(runs), fit=["sustained_factor"], loo=False, jobs=2)
    assert 0.2 <= fit["fitted"]["sustained_factor"]["value"] <= 1.0
    assert "sustained_factor" in fit["profile"]
    assert fit["runs_files"] == [str(runs)]
    assert len(plansim.calibrate(runs=[str(runs)], fit=["sustained_factor"], loo=False, jobs=2)["runs"]) == 2
    with pytest.raises(plansim.ConfigError):
        plansim.calibrate(runs=str(runs), fit=["no_such_key=1:2"])


def test_the_sweep_example_runs(tmp_path):
    import sys
    out = subprocess.run([sys.executable, os.path.join(SRC, "docs", "examples", "sweep_microbatch.py"),
                          "--out", str(tmp_path / "sweep.png")], cwd=SRC, check=True, capture_output=True, text=True,
                         env=dict(os.environ))
    lines = [l for l in out.stdout.splitlines() if l.strip()[:1].isdigit()]
    assert len(lines) == 5  # micro_batch 1, 2, 4, 8, 16
    try:
        import matplotlib  # noqa: F401
        assert (tmp_path / "sweep.png").stat().st_size > 0
    except ImportError:
        assert "no plot" in out.stderr


def test_report_pages_from_dicts_and_files(tmp_path):
    r = plansim.run(os.path.join(SRC, "scenarios/seed-pipeline-4x16.yaml"), ops=True)
    page = plansim.report(r, title="notebook <page>")
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>notebook &lt;page&gt;</title>" in page
    assert f'<span class="iteration-time">{r["iteration_time_s"]:.4f}</span>' in page
    assert page.count("<svg") >= 3  # the ops columns went back as per-op records: the timeline is drawn
    assert "&lt;dict 1&gt;" in page and "document-1.json" not in page
    path = tmp_path / "r.json"
    subprocess.run([os.environ.get("PLANSIM_CLI", "plansim"), "run", os.path.join(SRC, "scenarios/seed-pipeline-4x16.yaml"),
                    "--json", str(path)], check=True, capture_output=True)
    assert plansim.report(path).count('<section id="s') == 1
    with pytest.raises(plansim.ConfigError) as e:
        plansim.report({"points": []})
    assert e.value.file == "<dict 1>" and e.value.line == 1 and "not a document plansim report knows" in e.value.message
