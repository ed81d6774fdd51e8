#!/usr/bin/env bash
# Fetches the Slurm source tree of *exactly* the installed Slurm version and
# runs Slurm's own configure in it once, so select/omru can be compiled against
# Slurm's internal headers and config.h (libslurm-dev ships only the public
# headers).  The tree is cached outside git; later runs print its path at once.
#
# usage: scripts/slurm-src.sh [--cache DIR] [--print]
#   --cache DIR  where trees are kept (default: $OMRU_SLURM_CACHE or
#                /var/cache/slurm-omru)
#   --print      only print the path of the configured tree (exit 1 if absent)
# Prints the configured tree's path on the last line of stdout.
set -euo pipefail

cache=${OMRU_SLURM_CACHE:-/var/cache/slurm-omru}
print_only=0
while [ $# -gt 0 ]; do
  case $1 in
    --cache) cache=$2; shift 2 ;;
    --print) print_only=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "slurm-src.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

die() { echo "slurm-src.sh: $*" >&2; exit 1; }

# The Debian package version (e.g. 22.05.8-4+deb12u3) selects the source
# package; the upstream part (22.05.8) must match what the daemons run.
deb_version=$(dpkg-query -W -f='${Version}' libslurm-dev 2>/dev/null) ||
  die "libslurm-dev is not installed (run scripts/install-deps.sh)"
upstream=${deb_version%%-*}
tree="$cache/slurm-$deb_version"
stamp="$tree/.omru-configured"

if [ -f "$stamp" ]; then echo "$tree"; exit 0; fi
[ "$print_only" = 1 ] && exit 1

[ "$(id -u)" -eq 0 ] || die "must run as root the first time (apt-get source, deb-src entry)"
command -v dpkg-source >/dev/null || die "dpkg-dev is missing (run scripts/install-deps.sh)"

# apt-get source needs a deb-src entry; Debian images often ship only 'deb'.
ensure_deb_src() {
  if grep -rqsE '^(deb-src |Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    return 1
  fi
  local out=/etc/apt/sources.list.d/slurm-omru-deb-src
  local f deb822=()
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && [ "$f" != "$out.sources" ] && deb822+=("$f")
  done
  if [ ${#deb822[@]} -gt 0 ]; then
    for f in "${deb822[@]}"; do
      sed -E 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb-src/' "$f"
      echo
    done > "$out.sources"
  fi
  if [ -f /etc/apt/sources.list ] && grep -qE '^deb ' /etc/apt/sources.list; then
    sed -nE 's/^deb (.*)/deb-src \1/p' /etc/apt/sources.list > "$out.list"
  fi
  echo "slurm-src.sh: added deb-src entries ($out.*)" >&2
  return 0
}

work=$(mktemp -d "$cache.tmp.XXXXXX" 2>/dev/null || { mkdir -p "$cache"; mktemp -d "$cache/.tmp.XXXXXX"; })
trap 'rm -rf "$work"' EXIT

if ensure_deb_src || ! apt-cache showsrc "slurm-wlm=$deb_version" >/dev/null 2>&1; then
  apt-get update -qq
fi
(cd "$work" && apt-get source -qq "slurm-wlm=$deb_version" >/dev/null) ||
  die "apt-get source slurm-wlm=$deb_version failed"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'slurm*' | head -n1)
[ -n "$src" ] && [ -f "$src/configure" ] || die "no Slurm tree in the fetched source"
meta_version=$(awk '$1 == "Version:" {print $2}' "$src/META")
[ "$meta_version" = "$upstream" ] ||
  die "fetched source is not Slurm $upstream (see $src/META)"

# The same configure options Debian builds with where they matter for the ABI
# seen by plugins: paths, multiple-slurmd, no debug.
echo "slurm-src.sh: configuring Slurm $upstream (about 30 s)" >&2
(cd "$src" && ./configure --prefix=/usr --libdir=/usr/lib/x86_64-linux-gnu \
    --sysconfdir=/etc/slurm --enable-multiple-slurmd --disable-debug \
    --with-munge >"$work/configure.log" 2>&1) ||
  { tail -n 30 "$work/configure.log" >&2; die "Slurm's configure failed"; }
[ -f "$src/config.h" ] || die "Slurm's configure produced no config.h"

mkdir -p "$cache"
rm -rf "$tree"
mv "$src" "$tree"
touch "$stamp"
echo "$tree"
