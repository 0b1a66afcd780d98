#!/usr/bin/env bash
# Lower-bound and search benchmarks (README "## Benchmarks", issue 15), kept apart from
# scripts/bench_plans.sh: medians of RUNS runs of wall time, CPU time (user + sys) and peak RSS, with
# the ratio to each target.
#   * `plansim run --bound` on the 9,216-GPU MoE scenario (target <= 0.1 s);
#   * the realistic search: an 18.4B model on 256 A100 (validate/megatron/template.yaml, TP/PP/DP/
#     micro-batch/recompute/ZeRO free), exact top 10 by pruning with the lower bound, -j 2 pinned to two
#     cores where taskset exists (target <= 60 s wall on 2 cores).
# Usage: scripts/bench_search.sh [BUILD_DIR] [RUNS]   (RUNS default 3; the search runs once per RUN)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
runs=${2:-3}
plansim=$build/plansim
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0,1)
bench() {
  local label=$1 target_s=$2 measure=$3; shift 3
  local walls=() cpus=() rss=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$tmp" -f '%e %U %S %M' "${pin[@]}" "$plansim" "$@" >/dev/null 2>/dev/null
    out=$(tail -1 "$tmp")
    read -r w u s r <<<"$out"
    walls+=("$w"); cpus+=("$(echo "$u + $s" | bc -l)"); rss+=("$r")
  done
  mw=$(printf '%s\n' "${walls[@]}" | median)
  mc=$(printf '%s\n' "${cpus[@]}" | median)
  mr=$(printf '%s\n' "${rss[@]}" | median)
  local m=$mc
  [ "$measure" = wall ] && m=$mw
  printf '%-44s median wall %7.2f s  CPU %7.2f s  peak RSS %5.2f GiB  (%d runs)  %s/%s s = %.2f\n' "$label" "$mw" \
    "$mc" "$(echo "$mr / 1048576" | bc -l)" "$runs" "$measure" "$target_s" "$(echo "$m / $target_s" | bc -l)"
}
moe=$here/scenarios/bench/simai-moe-9216-h100.yaml
bench "run --bound, MoE 9,216 H100" 0.1 CPU run "$moe" --bound
row=(--set model.layers=40 --set model.hidden=6144 --set model.heads=48 --set training.global_batch=1024)
bench "search 18.4B on 256 A100 (exact top 10)" 60 wall search "$here/validate/megatron/template.yaml" --gpus 256 \
  "${row[@]}" -j 2 --top 10
