#!/usr/bin/env bash
# timed-tap-driver.sh - automake's TAP driver for one test file, plus what a
# person running the suite wants to see: one line when the file finishes
# (its result, checks passed of total, wall time) instead of a line per
# passing check, and a row in OMRU_TEST_TIMES (seconds, file, result) from
# which scripts/run-tests.sh prints where the time went.
#
# usage (Makefile.am's LOG_DRIVER): timed-tap-driver.sh TAP_DRIVER ARGS...
# ARGS are automake's driver arguments (--test-name N --log-file L
# --trs-file T ... -- COMMAND), passed to TAP_DRIVER unchanged.  Failing,
# skipped and erroring checks are still printed as they happen; every line
# stays in the test's .log.
set -u

driver=$1
shift
name="" trs=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --test-name) name=${args[i + 1]:-} ;;
    --trs-file) trs=${args[i + 1]:-} ;;
    --) break ;;
  esac
done

start=$EPOCHREALTIME
# Only the driver's per-check PASS lines (coloured on a terminal) are
# dropped from the console.
bash "$driver" "$@" | grep -a --line-buffered -vE $'^(\e\\[[0-9;]*m)?PASS(\e\\[m)?: '
rc=${PIPESTATUS[0]}
secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

# The .trs file holds one :test-result: per check and the file's
# :global-test-result:.
pass=0 total=0 result=ERROR
if [ -n "$trs" ] && [ -f "$trs" ]; then
  pass=$(grep -c '^:test-result: PASS' "$trs")
  total=$(grep -c '^:test-result: ' "$trs")
  result=$(sed -n 's/^:global-test-result: //p' "$trs")
fi
# make runs tests in the build directory: its name tells the plain run
# (build/) from the sanitizer one (build-san/).
where=$(basename "$PWD")/$name
printf '%-5s %-50s %4d/%-4d %7s s\n' "${result:-ERROR}" "$where" "$pass" "$total" "$secs"
if [ -n "${OMRU_TEST_TIMES:-}" ]; then
  printf '%s\t%s\t%s\n' "$secs" "$where" "${result:-ERROR}" >>"$OMRU_TEST_TIMES"
fi
exit "$rc"
