#!/usr/bin/env bash
# Runs every published nccl-tests table in validate/nccl/ through `plansim collective --compare` and prints
# predicted vs published busbw per size, the error, and the mean |error| at >= 1 MiB and < 1 MiB (in-sample:
# each system's profile was fitted on its tables); then refits every system's profile
# (scripts/fit_nccl_profiles.sh) and prints, per table, the mean |error| in-sample and with that table
# left out of the fit (systems with one table: in-sample only, said so).
# Usage: scripts/validate_nccl.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
for f in "$here"/validate/nccl/*.yaml; do
  "$build/plansim" collective --compare "$f"
  echo
done
echo "== leave-one-out by table (scripts/fit_nccl_profiles.sh): mean |busbw error| in-sample / table left out"
"$here/scripts/fit_nccl_profiles.sh" "$build" 2>&1 |
  grep -E '^== |NCCL model fit|torch loop overhead|leave-one-out by table|^# +rows|^  +[0-9]+ +([0-9.]+ /|-)|one table' || true
