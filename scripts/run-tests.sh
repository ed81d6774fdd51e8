#!/usr/bin/env bash
# The test command (README): builds everything from a fresh clone and runs
#  1. `make check` in build/: Check unit tests, the tools' tests and the
#     integration tests against real local Slurm clusters (needs root),
#     several test files at once (each integration test has its own cluster);
#  2. the unit and tool tests again, built with ASan/UBSan (build-san/).
# Prints a line per build stage and per test file as it finishes, then a
# table of where the time went (slowest first), and ends with one
# "N passed, N failed" line over both runs.
#
# OMRU_TEST_JOBS  test files run at once (default: see test_jobs below)
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
status=0
pass=0 fail=0
t_start=$EPOCHREALTIME
times=$(mktemp /tmp/omru-test-times.XXXXXX)
trap 'rm -f "$times"' EXIT
export OMRU_TEST_TIMES=$times

# Integration tests mostly wait on Slurm daemons, so more of them run at
# once than there are cores; measured on the 2-core CI machine (issue 25's
# note): beyond this the CPU-bound trainer tests slow each other down more
# than the waits gain.
test_jobs=${OMRU_TEST_JOBS:-$(($(nproc) * 2))}

now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
# record SECONDS NAME RESULT: a row of the final table.
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$times"; }

run_suite() { # run_suite NAME BUILD_DIR [CONFIGURE_ARGS...]
  local name=$1 dir=$2; shift 2
  local t
  echo "=== $name ==="
  t=$(now)
  if ! "$top/scripts/build.sh" --tests "$dir" ${1:+-- "$@"} >/dev/null; then
    record "$(since "$t")" "build ($(basename "$dir"))" FAIL
    echo "$name: build failed"; status=1; fail=$((fail + 1)); return
  fi
  echo "--- $name: running the tests, $test_jobs files at once"
  t=$(now)
  (cd "$dir" && make -j"$test_jobs" check) || status=1
  local took
  took=$(since "$t")
  record "$took" "$(basename "$dir"): make check, all test files" -
  echo "--- $name: tests took $took s"
  # Print every failing test's log so CI output explains itself.
  if [ -f "$dir/test-suite.log" ]; then
    grep -hE '^(FAIL|ERROR):' "$dir/test-suite.log" && sed -n '/^FAIL\|^ERROR\|^not ok\|^#/p' "$dir"/tests/*/*.log | head -200
  fi
  local p f e
  p=$(find "$dir/tests" -name '*.trs' -exec grep -h '^:test-result: PASS' {} + | wc -l)
  f=$(find "$dir/tests" -name '*.trs' -exec grep -hE '^:test-result: (FAIL|ERROR|XPASS)' {} + | wc -l)
  e=$(find "$dir/tests" -name '*.trs' -exec grep -h '^:test-result: SKIP' {} + | wc -l)
  echo "$name: $p passed, $f failed, $e skipped"
  pass=$((pass + p)); fail=$((fail + f))
  [ "$e" = 0 ] || { echo "$name: skipped tests are not allowed here"; status=1; }
}

# time_table: every build and test file, slowest first, with its share of
# the whole run (test files overlap, so shares add up to more than 100%).
time_table() {
  local total
  total=$(since "$t_start")
  echo "=== where the time went (wall seconds; test files run $test_jobs at once) ==="
  sort -t$'\t' -k1,1 -rn "$times" | awk -F'\t' -v total="$total" '
    { printf "%8.1f s %5.1f%%  %-5s %s\n", $1, 100 * $1 / total, $3, $2 }
    END { printf "%8.1f s 100.0%%        whole run\n", total }'
}

run_suite "build + unit + integration" "$top/build"
# The trainer is left out here: libtorch is not instrumented, and its
# tests already ran above.
run_suite "unit and tool tests under ASan/UBSan" "$top/build-san" --enable-sanitizers --without-libtorch

time_table
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] || status=1
exit $status
