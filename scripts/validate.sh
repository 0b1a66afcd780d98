#!/usr/bin/env bash
# The validation suite: every published end-to-end run in validate/<gpu>/runs.yaml simulated with the
# profile plansim ships for its GPU (predicted vs published per run; MAPE, max and bias per data set and
# GPU type), checked against the recorded MAPE in validate/expected_mape.yaml (exit 1 when a data set
# rises more than 1 point), then the nccl-tests tables (scripts/validate_nccl.sh).
# Usage: scripts/validate.sh [BUILD_DIR]      (build first: scripts/setup.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
"$build/plansim" validate --runs "$here"/validate/*/runs.yaml --expect "$here/validate/expected_mape.yaml"
echo
"$here/scripts/validate_nccl.sh" "$build"
