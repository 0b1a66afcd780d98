#!/usr/bin/env bash
# Plan benchmarks (README "## Benchmarks" / "Performance"): `plansim run` of the large scenarios, median
# of N runs of wall time, CPU time (user + sys: what a loaded machine inflates least) and peak RSS, and
# the ratio of the medians to each row's target (issue #15): a ratio <= 1 meets it.
#   MoE 9,216 (scenarios/bench/simai-moe-9216-h100.yaml): <= 5 s CPU and <= 1 GiB
#   Llama 3 405B on 16,384 H100: <= 0.5 s CPU
#   GPT-3 175B on 1,024 A100: no target (its figure is tracked)
#   the MoE 9,216 with MoE parallel folding (expert_tp 1: EP 16 over TP x DP): no target (tracked)
#   `plansim run --bound` on the MoE scenario: <= 0.1 s CPU
#   the realistic search (an 18.4B model on 256 A100, validate/megatron/template.yaml, TP/PP/DP/micro-batch/
#   recompute/ZeRO free, exact top 10 by pruning with the bound, -j 2 pinned to two cores where taskset
#   exists): <= 60 s wall on 2 cores
# Usage: scripts/bench_plans.sh [BUILD_DIR] [RUNS] [ROWS]
#   ROWS: a comma list of row keys (default: all): moe, moefold, llama405b, gpt3, llama70b, bound, search.
# Extra arguments for every `plansim run` go in PLANSIM_BENCH_ARGS (e.g. --no-symmetry).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
runs=${2:-5}
rows=${3:-moe,moefold,llama405b,gpt3,llama70b,bound,search}
plansim=$build/plansim
read -r -a extra <<<"${PLANSIM_BENCH_ARGS:-}"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0,1)
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
want() { [[ ",$rows," == *",$1,"* ]]; }
# The binary and its heap (README "Build options", PLANSIM_MIMALLOC): part of what the figures measure.
echo "# $("$plansim" --version)"
# bench LABEL CPU_TARGET_S RSS_TARGET_GIB WALL_TARGET_S -- COMMAND...  (a target "-" is none)
bench() {
  local label=$1 cpu_t=$2 rss_t=$3 wall_t=$4; shift 5
  local walls=() cpus=() rss=()
  for _ in $(seq "$runs"); do
    if ! /usr/bin/time -o "$tmp" -f '%e %U %S %M' "$@" >/dev/null 2>/dev/null; then
      echo "bench_plans.sh: $label: the command failed: $*" >&2
      exit 1
    fi
    out=$(tail -1 "$tmp")
    read -r w u s r <<<"$out"
    walls+=("$w"); cpus+=("$(echo "$u + $s" | bc -l)"); rss+=("$r")
  done
  mw=$(printf '%s\n' "${walls[@]}" | median)
  mc=$(printf '%s\n' "${cpus[@]}" | median)
  mr=$(printf '%s\n' "${rss[@]}" | median)
  local gib; gib=$(echo "$mr / 1048576" | bc -l)
  printf '%-40s median wall %7.2f s  CPU %7.2f s  peak RSS %5.2f GiB  (%d runs)' "$label" "$mw" "$mc" "$gib" "$runs"
  [ "$cpu_t" != - ] && printf '  CPU/%s s = %.2f' "$cpu_t" "$(echo "$mc / $cpu_t" | bc -l)"
  [ "$rss_t" != - ] && printf '  RSS/%s GiB = %.2f' "$rss_t" "$(echo "$gib / $rss_t" | bc -l)"
  [ "$wall_t" != - ] && printf '  wall/%s s = %.2f' "$wall_t" "$(echo "$mw / $wall_t" | bc -l)"
  printf '\n'
}
run() { bench "$@"; }
scen=$here/scenarios
want moe && run "MoE 9,216 H100 (TP2 EP16 PP12 DP384)" 5 1 - -- \
  "$plansim" run "$scen/bench/simai-moe-9216-h100.yaml" --allow-oom "${extra[@]}"
want moefold && run "MoE 9,216 H100, expert_tp 1 (EP over TP x DP)" - - - -- \
  "$plansim" run "$scen/bench/simai-moe-9216-h100.yaml" --set parallel.expert_tp=1 --allow-oom "${extra[@]}"
want llama405b && run "Llama 3 405B, 16,384 H100" 0.5 - - -- \
  "$plansim" run "$scen/llama3-405b-16k-h100.yaml" --allow-oom "${extra[@]}"
want gpt3 && run "GPT-3 175B, 1,024 A100" - - - -- \
  "$plansim" run "$scen/gpt3-175b-1024-a100.yaml" --allow-oom "${extra[@]}"
want llama70b && run "Llama 3 70B, 64 H100" - - - -- \
  "$plansim" run "$scen/llama3-70b-64-h100.yaml" --allow-oom "${extra[@]}"
want bound && run "run --bound, MoE 9,216 H100" 0.1 - - -- \
  "$plansim" run "$scen/bench/simai-moe-9216-h100.yaml" --bound
search_row=(--set model.layers=40 --set model.hidden=6144 --set model.heads=48 --set training.global_batch=1024)
want search && run "search 18.4B on 256 A100 (exact top 10)" - - 60 -- \
  "${pin[@]}" "$plansim" search "$here/validate/megatron/template.yaml" --gpus 256 "${search_row[@]}" -j 2 --top 10
true  # a last row not asked for is no failure
