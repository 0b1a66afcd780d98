#!/usr/bin/env bash
# What ran on the lent H200 (README.md here): plansim-hw's selftest and benches, `plansim-hw run` of the
# scenarios in this folder, and the PyTorch references. Usage, from the repository root on the GPU machine:
#   validate/measured/h200/device_run.sh BIN_DIR OUT_DIR [PART...]
# PARTs: benches, runs, torch (default: all three, in the order below); torch_more (2026-11-30: attention at
# 32K-64K tokens, and the per-call cost of a torch.distributed loop; PyTorch only, BIN_DIR may be absent);
# flex_alibi (FlexAttention with and without an ALiBi score modifier).
# BIN_DIR holds plansim-hw built elsewhere (and lib/ with the shared libraries it needs that the machine
# lacks); OUT_DIR receives every output. The library path is set for plansim-hw alone (hw.sh), so that
# PyTorch keeps its own libraries. Each step has its own time limit, so one that hangs
# costs its limit, not the rest.
set -u
bin=$(cd "${1:?BIN_DIR}" 2>/dev/null && pwd || echo "${1}")
out=${2:?OUT_DIR}
shift 2
parts=${*:-benches runs torch}
mkdir -p "$out"
here=validate/measured/h200
step() {  # step NAME LIMIT_S CMD...: runs CMD with a limit, its stdout+stderr to OUT/NAME.txt
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s%N)
  timeout -k 5 "$limit" "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  printf '%-28s rc=%-3s %6d ms\n' "$name" "$rc" "$(( ($(date +%s%N) - t0) / 1000000 ))" | tee -a "$out/steps.txt"
  tail -n 3 "$out/$name.txt"
}

# Libraries: the ones PyTorch's wheels carry first (cuDNN with the NVRTC it was built with: with CUDA 13.0's
# NVRTC ahead of them, cuDNN's runtime-compiled attention engines failed to compile or to launch, see
# README.md), then CUDA's own, then ours.
site=$(python3 -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null)
libdirs=$(find "$site/nvidia" /usr/local/cuda/lib64/ /usr/local/cuda/targets/x86_64-linux/lib/ \
  \( -name 'libcublasLt.so.13*' -o -name 'libnccl.so.2*' -o -name 'libcudnn.so.9*' -o -name 'libcudart.so.13*' \
     -o -name 'libnvrtc.so.13*' \) \
  2>/dev/null | xargs -r -n1 dirname | awk '!seen[$0]++' | paste -sd:)
hwlibs="$libdirs:$bin/lib"
printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' "$hwlibs" "$bin/plansim-hw" > "$out/hw.sh"
chmod +x "$out/hw.sh"
{ date -u; uname -a; nvidia-smi; python3 -c 'import torch; print("torch", torch.__version__)';
  echo "plansim-hw LD_LIBRARY_PATH=$hwlibs"; LD_LIBRARY_PATH="$hwlibs" ldd "$bin/plansim-hw"; } > "$out/machine.txt" 2>&1
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE,TEMPERATURE > "$out/nvidia-smi-q.txt" 2>&1
grep "not found" "$out/machine.txt"

hw="$out/hw.sh"
# Shapes: the two scenarios' GEMMs (Llama 3 8B dims at 8192 tokens: QKV, O, gate+up, down, LM head, and the
# backward's weight-gradient shapes with K = tokens), wave-quantisation probes (M 4096: 128 to 288 tiles of
# 128 x 256 over 132 SMs) and thin-K probes (K 256 .. 2048).
shapes=8192x6144x4096,8192x4096x4096,8192x28672x4096,8192x4096x14336,8192x128256x4096
shapes+=,4096x6144x8192,4096x4096x8192,4096x28672x8192,14336x4096x8192
shapes+=,4096x1024x4096,4096x1152x4096,4096x1280x4096,4096x2048x4096,4096x2304x4096,4096x4096x4096
shapes+=,8192x8192x256,8192x8192x512,8192x8192x1024,8192x8192x2048,8192x8192x8192

benches() {
  step selftest 120 $hw selftest
  step gemm_bf16 120 $hw bench gemm --dtype bf16 --shapes "$shapes" -n 20 -w 5 --json "$out/gemm_bf16.json"
  step gemm_bf16_default 90 $hw bench gemm --dtype bf16 -n 20 -w 5 --json "$out/gemm_bf16_default.json"
  step gemm_fp8 90 $hw bench gemm --dtype fp8 --shapes "$shapes" -n 20 -w 5 --json "$out/gemm_fp8.json"
  step hbm 60 $hw bench hbm -b 1M -e 4G -f 4 --json "$out/hbm.json"
  for op in all_reduce all_gather reduce_scatter broadcast reduce all_to_all send_recv; do
    step "nccl_$op" 40 $hw bench nccl --op $op -b 8 -e 64M -f 8 -n 5 -w 2 --timeout 35 --json "$out/nccl_$op.json"
  done
}
runs() {  # cuDNN logs its reasons when a graph finds no engine (CUDNN_LOGLEVEL_DBG=2: warnings and errors)
  CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG="$out/cudnn_tiny.log" step run_tiny 90 $hw run hw/tests/data/tiny-pp2.yaml \
    --set nodes=1 --set parallel.pp=1 --scale-layers 2 --scale-batch 4 -n 2 --timeout 80 --json "$out/run_tiny.json"
  step run_llama 150 $hw run $here/llama3-8b-4l-1gpu.yaml -n 3 -w 1 --timeout 140 --json "$out/run_llama.json" \
    --trace "$out/run_llama.trace.json"
  step run_qwen 150 $hw run $here/qwen3-30b-a3b-4l-1gpu.yaml -n 3 -w 1 --timeout 140 --json "$out/run_qwen.json"
}
torch() {
  step torch_attention 120 python3 $here/torch_attention.py --json "$out/torch_attention.json"
  step torch_step_default 120 python3 $here/torch_llama_step.py --attention default \
    --trace "$out/torch_trace_default.json" --json "$out/torch_step_default.json"
  step torch_step_flash2 120 python3 $here/torch_llama_step.py --attention flash2 \
    --trace "$out/torch_trace_flash2.json" --json "$out/torch_step_flash2.json"
}
torch_more() {
  step torch_attention_long 240 python3 $here/torch_attention.py --json "$out/torch_attention_long.json" \
    --seqs 8192,16384,32768,65536 --head-dims 128 --noncausal 16384,32768
  step torch_loop_overhead 120 python3 $here/torch_loop_overhead.py --json "$out/torch_loop_overhead.json"
}
flex_alibi() {  # 2026-11-30, third call: what ALiBi costs a Triton flash kernel (FlexAttention), beside FA2
  step flex_alibi 300 python3 $here/flex_alibi.py --json "$out/flex_alibi.json"
}
for part in $parts; do "$part"; done
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE,TEMPERATURE > "$out/nvidia-smi-q-after.txt" 2>&1
