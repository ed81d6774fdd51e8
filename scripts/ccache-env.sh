# shellcheck shell=bash
# scripts/ccache-env.sh - sourced (scripts/build.sh, scripts/run-tests.sh):
# puts ccache's compiler links first in PATH when ccache is installed
# (scripts/install-deps.sh installs it), so every gcc, g++ and clang that
# configure and make run goes through the cache.  OMRU_CCACHE=0 turns it
# off.
#
# Why: CI compiles the same sources with the same flags three times.  Only
# the plugins' glue (select_plugin/, spank/) includes Slurm's headers;
# libomru, the tools, the trainer and the unit tests are the same objects
# in build/ (Slurm 22.05), build-24.11/ and the Debian packages (debian/rules
# builds out of tree in build/ with the same flags), so the second and third
# builds compile only the glue.
#
# The settings that make those builds share objects:
#  - CCACHE_NOHASHDIR: the build directory is left out of the hash, so an
#    object compiled in build/ serves build-24.11/ (the one cost: its debug
#    information names build/ as the compile directory);
#  - CCACHE_BASEDIR: absolute paths under the source tree are hashed
#    relative to the build directory (the packages' copy of the tree is
#    under build/deb/src);
#  - CCACHE_SLOPPINESS pch_defines,time_macros: what ccache needs before it
#    caches a file compiled with a precompiled header (the trainer's
#    <torch/torch.h>, Makefile.am);
#  - CCACHE_DIR: the same cache for root's builds and the packages' build
#    (debhelper gives dpkg-buildpackage's steps a HOME of their own):
#    /var/cache/slurm-omru/ccache beside the Slurm trees as root, ccache's
#    own default otherwise.
if [ "${OMRU_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1 &&
    [ -x /usr/lib/ccache/gcc ]; then
  case ":$PATH:" in
    *:/usr/lib/ccache:*) ;;
    *) export PATH=/usr/lib/ccache:$PATH ;;
  esac
  export CCACHE_NOHASHDIR=1
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros}
  if [ -z "${CCACHE_DIR:-}" ] && [ "$(id -u)" = 0 ]; then
    export CCACHE_DIR=/var/cache/slurm-omru/ccache
  fi
fi

# ccache_summary STATSLOG: ", ccache: H of N compiler calls served from the
# cache" for the calls logged in STATSLOG (CCACHE_STATSLOG of one build);
# nothing without a log.  ccache's "Cacheable calls: C / N" counts every
# call (links and configure's tests too, which it does not cache), "Hits:
# H / C" those it found.
ccache_summary() {
  [ -f "$1" ] || return 0
  CCACHE_STATSLOG=$1 ccache --show-log-stats 2>/dev/null | awk '
    $1 == "Cacheable" { n = $5 } $1 == "Hits:" { h = $2 }
    END { if (n > 0) printf ", ccache: %d of %d compiler calls served from the cache", h, n }'
}
