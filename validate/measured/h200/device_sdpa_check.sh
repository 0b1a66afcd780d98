#!/usr/bin/env bash
# The third call on the lent H200 (README.md here): why `plansim-hw run`'s cuDNN attention hit an illegal
# address once its graphs built, and the runs with the first spelling of the graph that runs clean.
# It ran plansim-hw as of 35dd27e..4d54bd8, whose PLANSIM_HW_CUDNN_LOWERING=i started at the i-th spelling of
# the graph (a debugging knob, removed since: the spellings are tried in order and the one used is printed).
# Usage, from the repository root on the GPU machine: validate/measured/h200/device_sdpa_check.sh BIN_DIR OUT_DIR
set -u
bin=${1:?BIN_DIR}
out=${2:?OUT_DIR}
here=validate/measured/h200
validate/measured/h200/device_run.sh "$bin" "$out" true >/dev/null 2>&1  # writes $out/hw.sh
hw="$out/hw.sh"
tiny=(hw/tests/data/tiny-pp2.yaml --set nodes=1 --set parallel.pp=1 --scale-layers 2 --scale-batch 4)
# Eager, with cuDNN's warnings and errors logged and the dynamic loader naming every library it opens.
CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG="$out/cudnn_eager.log" LD_DEBUG=libs timeout 60 "$hw" run "${tiny[@]}" --eager \
  -n 1 -w 0 > "$out/tiny_eager.txt" 2> "$out/tiny_eager_ld.txt"
echo "tiny eager (lowering 0): rc=$?"; grep -v "^ *[0-9]*:" "$out/tiny_eager_ld.txt" | tail -n 3
grep -E "calling init: .*(nvrtc|cudnn|cublas)" "$out/tiny_eager_ld.txt" | sed 's/^ *[0-9]*: *//' | sort -u | head
good=""
for i in 0 1 2 3; do
  PLANSIM_HW_CUDNN_LOWERING=$i timeout 60 "$hw" run "${tiny[@]}" -n 2 -w 1 --json "$out/run_tiny_l$i.json" \
    > "$out/tiny_l$i.txt" 2>&1
  rc=$?; echo "tiny lowering $i: rc=$rc"; grep -m 2 "cuDNN fused" "$out/tiny_l$i.txt"
  if [ $rc -eq 0 ]; then good=$i; break; fi
done
[ -n "$good" ] || exit 0
for s in llama3-8b-4l-1gpu qwen3-30b-a3b-4l-1gpu; do
  PLANSIM_HW_CUDNN_LOWERING=$good timeout 120 "$hw" run $here/$s.yaml -n 3 -w 1 --timeout 110 \
    --json "$out/run_$s.json" > "$out/run_$s.txt" 2>&1
  echo "$s (lowering $good): rc=$?"; grep -m 1 "iteration time" "$out/run_$s.txt"
done
