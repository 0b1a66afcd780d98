#!/usr/bin/env bash
# `plansim-hw run --dry-run` of every shipped scenario and of hw/README.md's examples: each loads, compiles and
# plans its launches (exit 0, one row per rank), no device needed. Catches a plan the hardware cannot run
# (e.g. a p2p order NCCL cannot match) and README examples that do not load.
set -u
hw=${1:?path to plansim-hw}
src=${2:?source directory}
fails=0
check() {
  local out rc
  out=$("$hw" run "$@" --dry-run 2>&1); rc=$?
  if [ $rc -ne 0 ] || ! grep -q "ncclCommSplit rounds" <<<"$out"; then
    echo "FAIL: plansim-hw run $* --dry-run: exit $rc: $(tail -2 <<<"$out")"; fails=$((fails + 1))
  fi
}
for f in "$src"/scenarios/*.yaml "$src"/scenarios/antipatterns/*.yaml; do
  [ -e "$f" ] || continue
  check "$f"
done
# hw/README.md's examples (the multi-node ones as one process would plan them).
check "$src/scenarios/seed-pipeline-4x16.yaml" --scale-layers 8
check "$src/hw/tests/data/tiny-pp2.yaml" --set nodes=2 --set parallel.pp=2 --scale-batch 8
check "$src/scenarios/llama3-70b-64-h100.yaml" --set nodes=2 --set parallel.dp=1 --scale-batch 16
[ $fails -eq 0 ] && echo "dry runs: ok"
[ $fails -eq 0 ]
