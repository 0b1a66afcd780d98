#!/usr/bin/env bash
# Sim vs measured for everything measured on the lent H200 (README.md): the GEMM/HBM calibration, plansim-hw
# run's two scenarios under three calibrations, and the PyTorch traces. No GPU needed.
# Usage: validate/measured/h200/compare.sh [BUILD_DIR]   (prints the tables README.md quotes)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plansim=$(cd "${1:-$here/../../../build}" && pwd)/plansim
cd "$here"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "== plansim calibrate data/gemm_bf16.json data/gemm_bf16_default.json data/gemm_fp8.json data/hbm.json -o bench-profile.yaml"
"$plansim" calibrate data/gemm_bf16.json data/gemm_bf16_default.json data/gemm_fp8.json data/hbm.json -o "$tmp/bench.yaml" 2>&1
diff -q "$tmp/bench.yaml" bench-profile.yaml >/dev/null || echo "note: the fit differs from the committed bench-profile.yaml"
# The replay comparison runs the bench profile on the built-in model (base: none): plansim-hw runs kernels
# back to back, without the training-stack overheads the shipped profile's factors describe.
sed 's/^source:/base: none\nsource:/' bench-profile.yaml > "$tmp/bench-base-none.yaml"
for s in llama3-8b-4l qwen3-30b-a3b-4l; do
  for cal in shipped defaults bench; do
    case $cal in
      shipped) args=() ;;
      defaults) args=(--calibration defaults) ;;
      bench) args=(--calibration "$tmp/bench-base-none.yaml") ;;
    esac
    "$plansim" run "$s-1gpu.yaml" "${args[@]}" --json "$tmp/sim.json" >/dev/null
    echo; echo "== plansim-hw run $s-1gpu.yaml vs plansim run ($cal)"
    "$plansim" validate --sim "$tmp/sim.json" --measured "data/run_$s.json" --tolerance 0.10
  done
done
for t in default flash2; do
  att=flash; [ "$t" = flash2 ] && att=flash2
  for cal in shipped defaults; do
    args=(); [ "$cal" = defaults ] && args=(--calibration defaults)
    "$plansim" run llama3-8b-4l-1gpu.yaml --set training.attention=$att "${args[@]}" --json "$tmp/sim.json" >/dev/null
    echo; echo "== PyTorch eager step (attention $t) vs plansim run ($cal, training.attention: $att)"
    "$plansim" validate --sim "$tmp/sim.json" --measured "data/torch_trace_$t.json" --tolerance 0.10
  done
done
exit 0
