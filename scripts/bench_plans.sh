#!/usr/bin/env bash
# Plan benchmarks (README "## Benchmarks" / "Performance"): `plansim run` of the large scenarios, median
# of N runs of wall time, CPU time (user + sys: what a loaded machine inflates least) and peak RSS, and
# the ratio of the medians to each row's target (issue #15): a ratio <= 1 meets it.
#   MoE 9,216 (scenarios/bench/simai-moe-9216-h100.yaml): <= 5 s CPU and <= 1 GiB
#   Llama 3 405B on 16,384 H100: <= 0.5 s CPU
#   GPT-3 175B on 1,024 A100: no target (its figure is tracked)
# Usage: scripts/bench_plans.sh [BUILD_DIR] [RUNS] [ROWS]
#   ROWS: a comma list of row keys (default: all): moe, llama405b, gpt3, llama70b; and, where the build
#   has them, bound (`plansim run --bound` on the MoE scenario, <= 0.1 s) and search (the realistic
#   search, <= 60 s wall): rows other work adds through the `extra_rows` hook below.
# Extra arguments for every `plansim run` go in PLANSIM_BENCH_ARGS (e.g. --no-symmetry).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
runs=${2:-5}
rows=${3:-moe,llama405b,gpt3,llama70b,bound,search}
plansim=$build/plansim
read -r -a extra <<<"${PLANSIM_BENCH_ARGS:-}"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
want() { [[ ",$rows," == *",$1,"* ]]; }
# bench LABEL CPU_TARGET_S RSS_TARGET_GIB WALL_TARGET_S -- COMMAND...  (a target "-" is none)
bench() {
  local label=$1 cpu_t=$2 rss_t=$3 wall_t=$4; shift 5
  local walls=() cpus=() rss=()
  for _ in $(seq "$runs"); do
    out=$( { /usr/bin/time -f '%e %U %S %M' "$@" >/dev/null; } 2>&1 | tail -1 )
    read -r w u s r <<<"$out"
    walls+=("$w"); cpus+=("$(echo "$u + $s" | bc -l)"); rss+=("$r")
  done
  mw=$(printf '%s\n' "${walls[@]}" | median)
  mc=$(printf '%s\n' "${cpus[@]}" | median)
  mr=$(printf '%s\n' "${rss[@]}" | median)
  local gib; gib=$(echo "$mr / 1048576" | bc -l)
  printf '%-34s median wall %7.2f s  CPU %7.2f s  peak RSS %5.2f GiB  (%d runs)' "$label" "$mw" "$mc" "$gib" "$runs"
  [ "$cpu_t" != - ] && printf '  CPU/%s s = %.2f' "$cpu_t" "$(echo "$mc / $cpu_t" | bc -l)"
  [ "$rss_t" != - ] && printf '  RSS/%s GiB = %.2f' "$rss_t" "$(echo "$gib / $rss_t" | bc -l)"
  [ "$wall_t" != - ] && printf '  wall/%s s = %.2f' "$wall_t" "$(echo "$mw / $wall_t" | bc -l)"
  printf '\n'
}
run() { bench "$@"; }
scen=$here/scenarios
want moe && run "MoE 9,216 H100 (TP2 EP16 PP12 DP384)" 5 1 - -- \
  "$plansim" run "$scen/bench/simai-moe-9216-h100.yaml" --allow-oom "${extra[@]}"
want llama405b && run "Llama 3 405B, 16,384 H100" 0.5 - - -- \
  "$plansim" run "$scen/llama3-405b-16k-h100.yaml" --allow-oom "${extra[@]}"
want gpt3 && run "GPT-3 175B, 1,024 A100" - - - -- \
  "$plansim" run "$scen/gpt3-175b-1024-a100.yaml" --allow-oom "${extra[@]}"
want llama70b && run "Llama 3 70B, 64 H100" - - - -- \
  "$plansim" run "$scen/llama3-70b-64-h100.yaml" --allow-oom "${extra[@]}"
# Rows for `--bound` and the realistic search: defined by scripts/bench_rows.sh where present
# (`extra_rows` calls `run LABEL CPU RSS WALL -- COMMAND...` for rows `bound` and `search`).
if [ -f "$here/scripts/bench_rows.sh" ]; then
  # shellcheck source=/dev/null
  . "$here/scripts/bench_rows.sh"
  extra_rows
fi
