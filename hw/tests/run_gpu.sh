#!/usr/bin/env bash
# GPU test of `plansim-hw run`: the tiny scenario hw/tests/data/tiny-pp2.yaml (4 layers, 4 sequences,
# PP over 2 GPUs when there are two, else one GPU) runs end to end; its report has an `ops` entry per program op of every rank,
# and `plansim validate` reads it against `plansim run`'s report of the same scenario (exit 0 or 1, not 2).
# Without a device: exit 77 (CTest: skipped).
set -u
hw=${1:?path to plansim-hw}
plansim=${2:?path to plansim}
src=${3:?source directory}
"$hw" selftest >/dev/null 2>&1
[ $? -ne 77 ] || { echo "no CUDA device: skipped"; exit 77; }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
n=1; [ "$gpus" -ge 2 ] && n=2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args=("$src/hw/tests/data/tiny-pp2.yaml" --set nodes=$n --set parallel.pp=$n --scale-layers 2 --scale-batch 4)
"$hw" run "${args[@]}" --json "$tmp/hw.json" --trace "$tmp/hw.trace.json" -n 2 --timeout 600 || { echo "FAIL: plansim-hw run"; exit 1; }
"$plansim" run "${args[@]}" --json "$tmp/sim.json" >/dev/null || { echo "FAIL: plansim run"; exit 1; }
"$plansim" validate --sim "$tmp/sim.json" --measured "$tmp/hw.json" --tolerance 0.5; rc=$?  # 50 %: uncalibrated
[ $rc -le 1 ] || { echo "FAIL: plansim validate exit $rc"; exit 1; }
python3 - "$tmp/hw.json" "$tmp/sim.json" <<'PY' || exit 1
import json, sys
hw, sim = (json.load(open(p)) for p in sys.argv[1:3])
assert hw["iteration_time_s"] > 0, "no iteration time"
assert len(hw["ops"]) == len(sim["ops"]), (len(hw["ops"]), len(sim["ops"]))
assert all(o["duration_s"] >= 0 for o in hw["ops"])
assert hw["measurement"]["timed_iterations"] == 2 and len(hw["measurement"]["iterations_s"]) == 2
env = hw["environment"]
assert env["versions"]["nccl"] > 0 and env["processes"][0]["host"], env
assert env["variables"].get("CUDA_DEVICE_MAX_CONNECTIONS"), env["variables"]
assert [(o["name"], o["rank"]) for o in hw["ops"]] == [(o["name"], o["rank"]) for o in sim["ops"]]
print("hw run: %d ops, iteration %.3f ms measured, %.3f ms simulated" %
      (len(hw["ops"]), 1e3 * hw["iteration_time_s"], 1e3 * sim["iteration_time_s"]))
PY
