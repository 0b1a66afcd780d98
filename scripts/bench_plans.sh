#!/usr/bin/env bash
# Plan benchmarks (README "## Benchmarks"): `plansim run` of the shipped large scenarios, median of N runs
# of wall time, CPU time (user + sys: what a loaded machine inflates least) and peak RSS; the 405B row
# also prints the ratio to issue #4's targets (<= 2 s on one core, <= 1 GiB).
# Usage: scripts/bench_plans.sh [BUILD_DIR] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
runs=${2:-5}
plansim=$build/plansim
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
bench() {
  local label=$1 target=$2; shift 2
  local walls=() cpus=() rss=()
  for _ in $(seq "$runs"); do
    out=$( { /usr/bin/time -f '%e %U %S %M' "$plansim" run "$@" --allow-oom >/dev/null; } 2>&1 | tail -1 )
    read -r w u s r <<<"$out"
    walls+=("$w"); cpus+=("$(echo "$u + $s" | bc -l)"); rss+=("$r")
  done
  mw=$(printf '%s\n' "${walls[@]}" | median)
  mc=$(printf '%s\n' "${cpus[@]}" | median)
  mr=$(printf '%s\n' "${rss[@]}" | median)
  printf '%-34s median wall %6.2f s  CPU %6.2f s  peak RSS %6.2f GiB  (%d runs)' "$label" "$mw" "$mc" \
    "$(echo "$mr / 1048576" | bc -l)" "$runs"
  if [ "$target" = yes ]; then
    printf '  CPU/2 s = %.2f, RSS/1 GiB = %.2f' "$(echo "$mc / 2" | bc -l)" "$(echo "$mr / 1048576" | bc -l)"
  fi
  printf '\n'
}
bench "Llama 3 70B, 64 H100" no "$here/scenarios/llama3-70b-64-h100.yaml"
bench "GPT-3 175B, 1,024 A100" no "$here/scenarios/gpt3-175b-1024-a100.yaml"
bench "Llama 3 405B, 16,384 H100" yes "$here/scenarios/llama3-405b-16k-h100.yaml"
