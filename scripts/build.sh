#!/usr/bin/env bash
# Builds slurm-omru from a fresh clone: installs the Debian packages, fetches
# and configures the matching Slurm source tree (cached), and builds in
# BUILD_DIR (default ./build) out of tree.
#
# usage: scripts/build.sh [--tests] [BUILD_DIR] [-- CONFIGURE_ARGS...]
#   --tests   also build what `make check` runs (unit test programs), in the
#             same parallel make, without running any test
#
# OMRU_MAKE_NICE=N: make runs at nice N (configure before it at the
# caller's priority; scripts/run-tests.sh builds beside its tests so).
#
# Progress goes to stderr, one line per stage with the seconds since the
# start, and a line per file compiled or linked ("[ 12/143] CXX ...");
# compiler warnings and errors pass through.  stdout gets only BUILD_DIR,
# on the last line (scripts/demo.sh reads it).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=all
if [ "${1:-}" = --tests ]; then target=check-build; shift; fi
build=${1:-$top/build}
shift || true
[ "${1:-}" = "--" ] && shift

t0=$EPOCHREALTIME
stage_name="" stage_t=$t0
# stage MSG: a progress line with the seconds since build.sh started.  With
# OMRU_TEST_TIMES set (scripts/run-tests.sh), the stage that just ended is
# also recorded there: "SECONDS<TAB>DIR: STAGE<TAB>PASS".
stage() {
  local t=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t" -v m="$*" \
    'BEGIN { printf "build.sh: [%4.0f s] %s\n", b - a, m }' >&2
  if [ -n "${OMRU_TEST_TIMES:-}" ] && [ -n "$stage_name" ]; then
    awk -v a="$stage_t" -v b="$t" -v m="$(basename "$build"): $stage_name" \
      'BEGIN { printf "%.1f\t%s\tPASS\n", b - a, m }' >>"$OMRU_TEST_TIMES"
  fi
  stage_name=${*%%:*} stage_t=$t
}

if [ "$(id -u)" = 0 ]; then
  stage "Debian packages (scripts/install-deps.sh)"
  "$top/scripts/install-deps.sh" >&2
  stage "Slurm source tree (scripts/slurm-src.sh)"
  "$top/scripts/slurm-src.sh" >&2
fi
# The compiler cache (once install-deps.sh has installed ccache), its
# counts for this build in BUILD_DIR/ccache-stats.log (read at the end).
# shellcheck source=scripts/ccache-env.sh
. "$top/scripts/ccache-env.sh"
# (Absolute: configure and make run inside BUILD_DIR.)
mkdir -p "$build"
stats_log=$(cd "$build" && pwd)/ccache-stats.log
rm -f "$stats_log"
[[ :$PATH: != *:/usr/lib/ccache:* ]] || export CCACHE_STATSLOG=$stats_log
if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ] ||
   [ "$top/Makefile.am" -nt "$top/Makefile.in" ]; then
  stage "autoreconf"
  (cd "$top" && autoreconf -fi >/dev/null 2>&1) || { (cd "$top" && autoreconf -fi); exit 1; }
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] || [ $# -gt 0 ]; then
  stage "configure${*:+ $*}"
  "$top/configure" -q "$@" >&2
fi

# What make will run: automake's silent rules echo "  CXX      file" per
# step, and `make -n` shows those echo commands without running them.
steps=$(make -n "$target" 2>/dev/null |
  grep -cE 'echo "  (CC|CXX|CCLD|CXXLD|GEN|AR) ' || true)
jobs=$(nproc)
stage "make -j$jobs $target: $steps files to compile or link"
set +e
[ -z "${OMRU_MAKE_NICE:-}" ] || renice -n "$OMRU_MAKE_NICE" -p $$ >/dev/null
make -j"$jobs" "$target" 2>&1 | awk -v total="$steps" '
  /^  (CC|CXX|CCLD|CXXLD|GEN|AR) / {
    n++; if (n > total) total = n
    sub(/^ +/, ""); printf "[%*d/%d] %s\n", length(total), n, total, $0
    fflush(); next
  }
  /^make(\[[0-9]+\])?: (Entering|Leaving) directory/ { next }
  /^make(\[[0-9]+\])?: (Nothing to be done|.* is up to date)/ { next }
  { print; fflush() }' >&2
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || { stage "make failed (exit $rc)"; exit "$rc"; }
stage_name+=$(ccache_summary "$stats_log")   # on the make stage's row of the time table
stage "built in $build"
echo "$build"
