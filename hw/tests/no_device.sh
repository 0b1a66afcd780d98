#!/usr/bin/env bash
# Without a CUDA device every GPU command fails cleanly: one line naming cudaGetDeviceCount, exit 4
# (selftest: 77). With a device this test has nothing to check and exits 77 (CTest: skipped).
set -u
hw=${1:?path to plansim-hw}
src=${2:?source directory}
seed=$src/scenarios/seed-pipeline-4x16.yaml
"$hw" selftest >/dev/null 2>&1
[ $? -eq 77 ] || { echo "a CUDA device is present: nothing to check"; exit 77; }
fails=0
for cmd in "bench nccl" "bench nccl --op all_to_all -b 1K -e 1M" "bench gemm" "bench hbm" "bench p2p" \
           "run $seed" "run $src/hw/tests/data/tiny-pp2.yaml --set nodes=1 --set parallel.pp=1 --scale-layers 2 --json /dev/null"; do
  # shellcheck disable=SC2086
  err=$("$hw" $cmd 2>&1 >/dev/null); rc=$?
  if [ $rc -ne 4 ] || ! grep -Eq '^plansim-hw: no CUDA device found \(cudaGetDeviceCount: .+\)$' <<<"$err"; then
    echo "FAIL: plansim-hw $cmd: exit $rc, stderr: $err"; fails=$((fails + 1))
  fi
done
# Bad arguments are reported before the device is touched: exit 2.
# `run`: the scenario is loaded and compiled first; its errors are file:line:col (exit 2).
for cmd in "bench nccl --op nope" "bench nccl -b 1X" "bench gemm --shapes 1x2" "bench gemm --dtype int4" "bench nccl -b 1M -e 1K" \
           "run" "run $src/scenarios/no-such.yaml" "run $seed --set model.layerz=4" "run $seed --scale-layers 0" \
           "run $seed --scale-batch -1" "run $seed --iters 0" "run $seed --bogus" \
           "bench gemm -n 0" "bench hbm -n 0" "bench p2p -n 0" "bench nccl -n 0" "bench nccl -w -1" \
           "bench nccl -e 2000G" "bench hbm -e 99999999999999999999" "bench gemm --dtype fp64" \
           "run $seed --timeout -1" "run $seed --devices x"; do
  # shellcheck disable=SC2086
  "$hw" $cmd >/dev/null 2>&1; rc=$?
  [ $rc -eq 2 ] || { echo "FAIL: plansim-hw $cmd: exit $rc (wanted 2)"; fails=$((fails + 1)); }
done
# --dry-run needs no device: it prints what each rank would launch (one row per rank) and exits 0.
out=$("$hw" run "$seed" --dry-run 2>/dev/null); rc=$?
if [ $rc -ne 0 ] || ! grep -q "ncclCommSplit rounds" <<<"$out" || [ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+' <<<"$out")" -ne 8 ]; then
  echo "FAIL: run --dry-run: exit $rc, stdout: $out"; fails=$((fails + 1))
fi
# A launcher's several tasks are one job or refused (exit 2), never independent runs on the same GPUs;
# gemm/hbm/p2p leave it to task 0.
for launcher in SLURM_NTASKS; do  # (PMI_SIZE and OMPI_* would steer Open MPI's own start-up; unit-tested)
  env "$launcher=4" "$hw" run "$seed" >/dev/null 2>&1; rc=$?
  [ $rc -eq 2 ] || { echo "FAIL: $launcher=4 plansim-hw run: exit $rc (wanted 2)"; fails=$((fails + 1)); }
done
out=$(env SLURM_NTASKS=4 SLURM_PROCID=1 "$hw" bench gemm 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q "task 0" <<<"$out" || { echo "FAIL: bench gemm on task 1: exit $rc: $out"; fails=$((fails + 1)); }
err=$("$hw" run "$seed" --set model.layerz=4 2>&1 >/dev/null)
grep -q "layerz" <<<"$err" || { echo "FAIL: a bad --set is not named: $err"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "no-device behaviour: ok"
[ $fails -eq 0 ]
