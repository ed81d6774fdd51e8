#!/usr/bin/env bash
# Builds and installs a Slurm release other than the distribution's own into
# a prefix of its own, from the upstream tarball Debian ships for it, so
# slurm-omru can be built and tested against it beside Debian bookworm's
# 22.05.  The configured source tree (internal headers, config.h) stays next
# to the prefix for select/omru's build.  Cached: later runs only print.
#
# usage: scripts/slurm-release.sh [--cache DIR] [--print] RELEASE
#   RELEASE      24.11 (Slurm 24.11.5, Debian trixie's)
#   --cache DIR  where releases are kept (default: $OMRU_SLURM_CACHE or
#                /var/cache/slurm-omru)
#   --print      only print the paths (exit 1 if not built yet)
# Prints two lines on stdout when done:
#   prefix=DIR   the installed release (bin/, sbin/, lib/slurm/, include/)
#   src=DIR      its configured source tree
# Progress and Slurm's build output summary go to stderr.  The build takes
# about 6 minutes on 2 cores (configure 20 s, make 300 s, install 20 s).
set -euo pipefail

cache=${OMRU_SLURM_CACHE:-/var/cache/slurm-omru}
print_only=0 release=""
while [ $# -gt 0 ]; do
  case $1 in
    --cache) cache=$2; shift 2 ;;
    --print) print_only=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "slurm-release.sh: unknown option '$1'" >&2; exit 2 ;;
    *) release=$1; shift ;;
  esac
done

die() { echo "slurm-release.sh: $*" >&2; exit 1; }

# Releases this script knows: the exact upstream version and the SHA256 of
# the tarball Debian's archive holds for it (from trixie's Sources index), so
# what is built is what Debian's own packages are built from.
case $release in
  24.11|24.11.5)
    upstream=24.11.5
    tarball=slurm-wlm_24.11.5.orig.tar.gz
    sha256=e1a5547edd212c38b5e3230a284133f777b32746551f094aaa81cc4af375e332 ;;
  "") die "which release? (supported: 24.11)" ;;
  *) die "unknown release '$release' (supported: 24.11; 22.05 is Debian" \
       "bookworm's own Slurm, used from /usr)" ;;
esac
url=http://deb.debian.org/debian/pool/main/s/slurm-wlm/$tarball

home=$cache/slurm-$upstream
prefix=$home/prefix
src=$home/src
stamp=$home/.omru-installed

if [ -f "$stamp" ]; then
  echo "prefix=$prefix"
  echo "src=$src"
  exit 0
fi
[ "$print_only" = 1 ] && exit 1
[ "$(id -u)" -eq 0 ] || die "must run as root the first time (it installs into $cache)"
# accounting_storage/mysql (slurmdbd) is built only where mysql_config is;
# munge and hwloc are what the local cluster uses.
command -v mariadb_config >/dev/null || command -v mysql_config >/dev/null ||
  die "mariadb_config is missing (libmariadb-dev: run scripts/install-deps.sh)"
for f in /usr/include/munge.h /usr/include/hwloc.h; do
  [ -e "$f" ] || die "$f is missing (run scripts/install-deps.sh)"
done

t0=$EPOCHREALTIME
say() {
  awk -v a="$t0" -v b="$EPOCHREALTIME" -v m="$*" \
    'BEGIN { printf "slurm-release.sh: [%3.0f s] %s\n", b - a, m }' >&2
}

mkdir -p "$cache"
work=$(mktemp -d "$cache/.slurm-$upstream.XXXXXX")
trap 'rm -rf "$work"' EXIT

say "fetching $url"
# apt's own downloader: no other tool needed, and it checks the hash.
/usr/lib/apt/apt-helper download-file "$url" "$work/$tarball" "SHA256:$sha256" >&2 ||
  die "could not fetch $url (or its SHA256 is not $sha256)"
tar -xzf "$work/$tarball" -C "$work"
tree=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'slurm*' | head -n1)
[ -n "$tree" ] && [ -f "$tree/configure" ] || die "no Slurm tree in $tarball"
[ "$(awk '$1 == "Version:" {print $2}' "$tree/META")" = "$upstream" ] ||
  die "$tarball is not Slurm $upstream (see its META)"

# The tree is built where it will stay: config.h records no path, but
# Slurm's libtool objects do, and select/omru includes from the tree.
rm -rf "$home"
mkdir -p "$home"
mv "$tree" "$src"

say "configuring Slurm $upstream into $prefix"
# --enable-multiple-slurmd: the local cluster runs one slurmd per node on one
# host, as Debian's build allows.
(cd "$src" && ./configure --prefix="$prefix" --sysconfdir="$prefix/etc" \
    --enable-multiple-slurmd --with-munge --with-hwloc \
    >"$home/configure.log" 2>&1) ||
  { tail -n 30 "$home/configure.log" >&2; die "Slurm's configure failed (log: $home/configure.log)"; }
say "make -j$(nproc) (about 5 minutes on 2 cores; log: $home/make.log)"
(cd "$src" && make -j"$(nproc)" >"$home/make.log" 2>&1) ||
  { tail -n 40 "$home/make.log" >&2; die "Slurm's make failed (log: $home/make.log)"; }
say "make install"
(cd "$src" && make install >"$home/install.log" 2>&1) ||
  { tail -n 40 "$home/install.log" >&2; die "Slurm's make install failed (log: $home/install.log)"; }
for f in sbin/slurmctld sbin/slurmd sbin/slurmdbd sbin/slurmstepd bin/sbatch \
         lib/slurm/select_cons_tres.so lib/slurm/accounting_storage_mysql.so \
         include/slurm/slurm_version.h; do
  [ -e "$prefix/$f" ] || die "the install has no $f"
done
touch "$stamp"
say "Slurm $upstream installed in $prefix"
echo "prefix=$prefix"
echo "src=$src"
