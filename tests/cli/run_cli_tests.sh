#!/usr/bin/env bash
# CLI tests: run the real `plansim` binary and check exit codes and messages.
# Usage: PLANSIM=path/to/plansim run_cli_tests.sh SOURCE_DIR. Each case file in tests/cli/cases/*.sh
# is sourced with helper functions `expect_exit CODE CMD...` and `expect_stderr REGEX CMD...`.
set -u
src=${1:?source dir}
plansim=${PLANSIM:?PLANSIM must name the binary}
fails=0
passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_exit() {
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: exit $got (wanted $want): $*"; sed 's/^/  stderr: /' "$tmp/err" | head -5; fails=$((fails + 1))
  else passes=$((passes + 1)); fi
}
expect_stderr() {
  local re=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  if ! grep -Eq -- "$re" "$tmp/err"; then
    echo "FAIL: stderr does not match /$re/: $*"; sed 's/^/  stderr: /' "$tmp/err" | head -5; fails=$((fails + 1))
  else passes=$((passes + 1)); fi
}
expect_stdout() {
  local re=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  if ! grep -Eq -- "$re" "$tmp/out"; then
    echo "FAIL: stdout does not match /$re/: $*"; head -5 "$tmp/out" | sed 's/^/  stdout: /'; fails=$((fails + 1))
  else passes=$((passes + 1)); fi
}

# Bad input (README "Reliability"): exit 2, exactly one line on stderr, nothing on stdout, within 2 s and
# 1 GiB of memory (PLANSIM_SLOW=1, sanitizer and Debug builds: 30 s, memory not checked).
slow=${PLANSIM_SLOW:-0}
limit_s=2
[ "$slow" = 1 ] && limit_s=30
have_time=0
[ -x /usr/bin/time ] && have_time=1
expect_bad() {
  local start end ms rss got lines
  start=$(date +%s%N)
  if [ "$have_time" = 1 ] && [ "$slow" != 1 ]; then
    /usr/bin/time -f '%M' -o "$tmp/rss" timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    rss=$(tail -1 "$tmp/rss" 2>/dev/null)
    case "$rss" in ''|*[!0-9]*) rss=0 ;; esac
  else
    timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    rss=0
  fi
  end=$(date +%s%N)
  ms=$(( (end - start) / 1000000 ))
  lines=$(wc -l <"$tmp/err")
  if [ "$got" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/out" ] || [ "$ms" -gt $((limit_s * 1000)) ] || [ "$rss" -gt 1048576 ]; then
    echo "FAIL: bad input: exit $got (wanted 2), $lines stderr lines (wanted 1), $(wc -c <"$tmp/out") stdout bytes (wanted 0), $ms ms, ${rss} KiB: $*"
    sed 's/^/  stderr: /' "$tmp/err" | head -3
    fails=$((fails + 1))
  else passes=$((passes + 1)); fi
}

expect_exit 0 "$plansim" --help
expect_exit 2 "$plansim" --no-such-flag
for f in "$src"/tests/cli/cases/*.sh; do
  [ -e "$f" ] || continue
  # shellcheck source=/dev/null
  source "$f"
done
echo "cli: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
