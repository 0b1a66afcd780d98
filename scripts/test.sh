#!/usr/bin/env bash
# Installs, builds and runs the whole test suite through CTest (the README's test command).
# Usage: scripts/test.sh [--sanitize]   --sanitize: a separate ASan+UBSan build in build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--sanitize" ]; then
  scripts/setup.sh build-asan -DPLANSIM_SANITIZE=ON -DPLANSIM_WERROR=ON -DPLANSIM_HW=OFF -DCMAKE_BUILD_TYPE=Debug
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -LE 'gpu|bench|validate'
else
  scripts/setup.sh build -DPLANSIM_WERROR=ON
  ctest --test-dir build --output-on-failure -j "$(nproc)" -LE bench
fi
