#!/usr/bin/env bash
# Runs every published nccl-tests table in validate/nccl/ through `plansim collective --compare` and prints
# predicted vs published busbw per size, the error, and the mean |error| at >= 1 MiB and < 1 MiB.
# Usage: scripts/validate_nccl.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
for f in "$here"/validate/nccl/*.yaml; do
  "$build/plansim" collective --compare "$f"
  echo
done
