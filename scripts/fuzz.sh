#!/usr/bin/env bash
# Fuzzes plansim's input readers with libFuzzer, each harness for N minutes (README "Reliability").
# Usage: scripts/fuzz.sh [MINUTES] [HARNESS...]      MINUTES default 10; HARNESS default all nine:
#        topology scenario units calibration bench nccl_compare report_timings nccl_tests report
# Needs clang and libFuzzer, only for this (the normal build and scripts/setup.sh do not):
#        apt-get install -y clang-14 libclang-rt-14-dev
# Builds build-fuzz/ (clang, -DPLANSIM_FUZZ=ON: coverage + ASan + UBSan), then runs fuzz_<HARNESS> over the
# seeds fuzz/corpus/<HARNESS> and tests/data/bad/<HARNESS> with fuzz/dict/<HARNESS>.dict. New inputs go to
# build-fuzz/corpus/<HARNESS>; a finding (crash, sanitizer report, an exception other than ConfigError,
# an input slower than FUZZ_TIMEOUT s or above 2 GB) to build-fuzz/crashes/<HARNESS>/, and the script exits 1.
# FUZZ_JOBS=N runs N harnesses at a time (default 1). The last line per harness is libFuzzer's count of
# executions (stat::number_of_executed_units); the summary at the end lists them.
set -uo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(topology scenario units calibration bench nccl_compare report_timings nccl_tests report)
cxx=${CXX:-clang++-14}
timeout_s=${FUZZ_TIMEOUT:-5}
jobs=${FUZZ_JOBS:-1}

cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLANSIM_FUZZ=ON \
  -DPLANSIM_HW=OFF -DPLANSIM_TESTS=OFF >/dev/null || exit 2
cmake --build build-fuzz --target $(printf 'fuzz_%s ' "${harnesses[@]}") || exit 2

run_one() {
  local h=$1
  mkdir -p "build-fuzz/corpus/$h" "build-fuzz/crashes/$h"
  build-fuzz/fuzz/fuzz_"$h" "build-fuzz/corpus/$h" "fuzz/corpus/$h" "tests/data/bad/$h" -dict="fuzz/dict/$h.dict" \
    -max_total_time=$((minutes * 60)) -timeout="$timeout_s" -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="build-fuzz/crashes/$h/" -print_final_stats=1 >"build-fuzz/fuzz_$h.log" 2>&1
  echo "$h: exit $?, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "build-fuzz/fuzz_$h.log" | grep -o '[0-9]*$') executions, $(find "build-fuzz/crashes/$h" -type f | wc -l) findings (log build-fuzz/fuzz_$h.log)"
}

running=0
for h in "${harnesses[@]}"; do
  run_one "$h" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
found=$(find build-fuzz/crashes -type f | wc -l)
echo "findings: $found (build-fuzz/crashes/)"
[ "$found" -eq 0 ]
