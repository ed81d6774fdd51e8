#!/usr/bin/env bash
# The test command (README): builds everything from a fresh clone and runs
#  1. `make check` in build/: Check unit tests and the integration tests
#     against a real local Slurm cluster (needs root);
#  2. the unit tests again, built with ASan/UBSan (build-san/).
# Ends with one "N passed, N failed" line over both runs.
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
status=0
pass=0 fail=0

run_suite() { # run_suite NAME BUILD_DIR [CONFIGURE_ARGS...]
  local name=$1 dir=$2; shift 2
  echo "=== $name ==="
  if ! "$top/scripts/build.sh" "$dir" ${1:+-- "$@"} >/dev/null; then
    echo "$name: build failed"; status=1; fail=$((fail + 1)); return
  fi
  (cd "$dir" && make check) || status=1
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

run_suite "build + unit + integration" "$top/build"
# The trainer is left out here: libtorch is not instrumented, and its
# tests already ran above.
run_suite "unit tests under ASan/UBSan" "$top/build-san" --enable-sanitizers --without-libtorch

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] || status=1
exit $status
