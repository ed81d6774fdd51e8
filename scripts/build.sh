#!/usr/bin/env bash
# Builds slurm-omru from a fresh clone: installs the Debian packages, fetches
# and configures the matching Slurm source tree (cached), and builds in
# BUILD_DIR (default ./build) out of tree.
#
# usage: scripts/build.sh [BUILD_DIR] [-- CONFIGURE_ARGS...]
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$top/build}
shift || true
[ "${1:-}" = "--" ] && shift

if [ "$(id -u)" = 0 ]; then
  "$top/scripts/install-deps.sh"
  "$top/scripts/slurm-src.sh" >/dev/null
fi
if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ] ||
   [ "$top/Makefile.am" -nt "$top/Makefile.in" ]; then
  (cd "$top" && autoreconf -fi >/dev/null 2>&1) || { (cd "$top" && autoreconf -fi); exit 1; }
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] || [ $# -gt 0 ]; then
  "$top/configure" -q "$@"
fi
make -j"$(nproc)" >/dev/null
echo "$build"
