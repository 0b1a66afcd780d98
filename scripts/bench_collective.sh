#!/usr/bin/env bash
# Collective benchmarks (README "## Benchmarks"): wall time and peak RSS, median of N runs.
#   1 GiB ring all-reduce over 4,096 GPUs: one flat ring, 50 GB/s links, 500 ns (topologies/bench/flat-4096.yaml)
#   1 GiB hierarchical all-reduce over 16,384 GPUs on a fat-tree (hgx-h200 with 2,048 servers), and `auto` on it
#   1 GiB `auto` all-reduce over 16,384 GPUs on a SHARP fabric (dgx-h100-sharp: collnet_direct, nvls_collnet priced)
# Usage: scripts/bench_collective.sh [BUILD_DIR] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
runs=${2:-5}
plansim=$build/plansim
# bench LABEL TARGET_SECONDS ARGS...: prints the medians and wall / target (<= 1 meets it).
bench() {
  local label=$1 target=$2; shift 2
  local walls=() rss=()
  for _ in $(seq "$runs"); do
    out=$( { /usr/bin/time -v "$plansim" "$@" >/dev/null; } 2>&1 )
    w=$(grep 'Elapsed (wall clock)' <<<"$out" | awk '{print $NF}' | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
    r=$(grep 'Maximum resident set size' <<<"$out" | awk '{print $NF}')
    walls+=("$w"); rss+=("$r")
  done
  mw=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  mr=$(printf '%s\n' "${rss[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%-52s median wall %6.2f s (target <= %s s, ratio %.2f)   median max RSS %6.1f MB   (%d runs)\n' \
    "$label" "$mw" "$target" "$(echo "$mw / $target" | bc -l)" "$(echo "$mr / 1024" | bc -l)" "$runs"
}
bench "ring all-reduce 1 GiB, 4,096 GPUs (flat ring, 50 GB/s)" 0.5 \
  collective --topology "$here/topologies/bench/flat-4096.yaml" --gpus 4096 --algo ring -b 1G -e 1G
bench "hierarchical all-reduce 1 GiB, 16,384 GPUs (fat-tree)" 2 \
  collective --topology "$here/topologies/hgx-h200.yaml" --nodes 2048 --algo hierarchical -b 1G -e 1G
bench "auto all-reduce 1 GiB, 16,384 GPUs (fat-tree)" 2 \
  collective --topology "$here/topologies/hgx-h200.yaml" --nodes 2048 -b 1G -e 1G
bench "auto all-reduce 1 GiB, 16,384 GPUs (SHARP fabric)" 2 \
  collective --topology "$here/topologies/dgx-h100-sharp.yaml" --nodes 2048 -b 1G -e 1G
