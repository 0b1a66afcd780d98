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

expect_exit 0 "$plansim" --help
expect_exit 2 "$plansim" --no-such-flag
for f in "$src"/tests/cli/cases/*.sh; do
  [ -e "$f" ] || continue
  # shellcheck source=/dev/null
  source "$f"
done
echo "cli: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
