#!/usr/bin/env bash
# Fits one NCCL calibration profile per system with `plansim calibrate --topology` on that system's
# nccl-tests tables (validate/nccl/bench/<table>.json, made from validate/nccl/*.yaml by
# scripts/nccl_tables_to_bench.py), from a start profile of literature constants
# (validate/calibration/start/), and prints each fit's residuals and, for a system with several tables,
# the leave-one-out error by table (the table predicted by a fit made without it).
# The RTX 4090 k8s 2-GPU table is not fitted on: its GPUs sit behind different PCIe switches
# (topologies/pcie-8gpu-1-per-switch.yaml), so it checks that placement out of sample.
# Usage: scripts/fit_nccl_profiles.sh [BUILD_DIR] [--write]   (--write: rewrite validate/calibration/<system>.yaml)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build
write=0
for a in "$@"; do
  if [[ $a == --write ]]; then write=1; else build=$a; fi
done
b=validate/nccl/bench
# system | topology | nodes | start | applies-to (GPU model prefixes, space-separated) | tables
# hgx-h200 applies to H100 too: HGX/DGX H100 and HGX H200 share the NVSwitch baseboard (four third-generation
# NVSwitch chips, 18 NVLink 4 links per GPU), which is what these per-system constants describe. Its tables are
# of two loops (a torch.distributed sweep and nccl-tests' Azure ND H100 v5 / H200 v5 sweeps), which tells the
# torch loop's per-call host cost (torch_loop_overhead) apart from the device latency that training pays.
systems=(
  "dgx-a100|topologies/dgx-a100.yaml|1|ampere|A100-SXM|$b/a100_8gpu_allreduce_32K_16G.json $b/azure_nd_a100_v4_allreduce.json"
  "hgx-h200|topologies/hgx-h200.yaml|1|hopper|H200-SXM H100-SXM|$b/h200_allreduce_8GiB_by_gpu_count_nccl_default.json $b/h200_allreduce_8GiB_by_gpu_count_nvls_off.json $b/h200_8gpu_16GiB_all_reduce_nccl_default.json $b/h200_8gpu_16GiB_all_reduce_ring.json $b/h200_8gpu_16GiB_all_gather_ring.json $b/h200_8gpu_16GiB_reduce_scatter_ring.json $b/h200_8gpu_allreduce_payload_sweep.json $b/azure_nd_h100_v5_allreduce_nvls.json $b/azure_nd_h200_v5_allreduce_nvls.json"
  "datacrunch-h200-2node|topologies/hgx-h200.yaml|2|hopper|H200-SXM|$b/datacrunch_2node_16xh200_allreduce.json"
  "aws-p6-b200|topologies/aws-p6-b200.yaml|4|blackwell-efa|B200|$b/b200_p6_allreduce_8GiB_by_gpu_count_nccl_default.json $b/b200_p6_allreduce_8GiB_by_gpu_count_nvls_off.json $b/b200_p6_1node_allreduce_bench.json $b/b200_p6_4node_allreduce_bench.json"
  "rtx4090-pcie|topologies/pcie-8gpu.yaml|1|ampere|RTX-4090|$b/rtx4090_docker_2gpu.json $b/rtx4090_docker_4gpu.json $b/rtx4090_k8s_4gpu.json"
)
cd "$here"
for s in "${systems[@]}"; do
  IFS='|' read -r name topo nodes start gpu tables <<<"$s"
  out=$(mktemp)
  applies=()
  for g in $gpu; do applies+=(--applies-to "$g"); done
  # shellcheck disable=SC2086
  cmd="plansim calibrate $tables --topology $topo --nodes $nodes --calibration validate/calibration/start/$start.yaml ${applies[*]}"
  echo "== $name: $cmd"
  # shellcheck disable=SC2086
  "$build/plansim" calibrate $tables --topology "$topo" --nodes "$nodes" \
    --calibration "validate/calibration/start/$start.yaml" "${applies[@]}" -o "$out"
  [[ $(wc -w <<<"$tables") -gt 1 ]] || echo "(one table: in-sample only; the loo column is leave-one-out by row)"
  if [[ $write == 1 ]]; then
    { echo "# NCCL calibration profile of the $name system, written by scripts/fit_nccl_profiles.sh --write:"
      echo "#   $cmd -o validate/calibration/$name.yaml"
      sed "s/^name: .*/name: $name/" "$out"; } >"validate/calibration/$name.yaml"
  fi
  rm -f "$out"
  echo
done
