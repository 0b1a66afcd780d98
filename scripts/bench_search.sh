#!/usr/bin/env bash
# Lower-bound and search benchmarks (README "## Benchmarks", issue 15): the `bound` and `search` rows
# of scripts/bench_plans.sh (medians of RUNS runs of wall time, CPU time and peak RSS, with the ratio
# to each target: `plansim run --bound` on the 9,216-GPU MoE scenario <= 0.1 s CPU; the realistic
# search, an 18.4B model on 256 A100, exact top 10, <= 60 s wall on 2 pinned cores).
# Usage: scripts/bench_search.sh [BUILD_DIR] [RUNS]   (RUNS default 3; the search runs once per RUN)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
exec "$here/scripts/bench_plans.sh" "${1:-$here/build}" "${2:-3}" bound,search
