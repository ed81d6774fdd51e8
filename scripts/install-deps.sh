#!/usr/bin/env bash
# Installs every Debian package that slurm-omru's build, tests and demo need.
# Idempotent: packages already present are skipped, and `apt-get update` runs
# at most once per invocation (only when something is missing).
#
# Never installs slurm-wlm-emulator: its front ends cannot run against Debian's
# libslurmfull and it silently switches the slurmctld/slurmd alternatives.
set -euo pipefail

PACKAGES=(
  # build; ccache: the objects that do not depend on the Slurm release are
  # compiled once for every build of a test run (scripts/ccache-env.sh)
  build-essential autoconf automake libtool pkg-config dpkg-dev ccache
  # make deb, and lintian on what it builds
  debhelper lintian
  # Slurm: daemons, clients, public headers, accounting, auth
  slurmctld slurmd slurmdbd slurm-client slurm-wlm-basic-plugins
  slurm-wlm-mysql-plugin libslurm-dev munge libmunge-dev
  # accounting database for sacct
  mariadb-server mariadb-client
  # topology and unit tests; clang and its libFuzzer runtime for `make fuzz`
  libhwloc-dev hwloc check clang
  # Slurm 24.11 built from source (scripts/slurm-release.sh): slurmdbd's
  # accounting_storage/mysql needs the MariaDB client library
  libmariadb-dev
  # local test cluster; expect for Slurm's own testsuite/expect
  # (scripts/slurm-testsuite.sh)
  iproute2 procps psmisc python3 expect
  # omru-train: libtorch (CPU) with c10d, Gloo headers; PyTorch for the bench;
  # libjpeg-turbo for image folders
  libtorch-dev libgloo-dev python3-torch libjpeg62-turbo-dev
)

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: must run as root (it calls apt-get install)" >&2
  exit 1
fi

# libFuzzer ships in the compiler-rt of clang's own version (bookworm:
# libclang-rt-14-dev), which clang only recommends: named from the clang
# installed (before or after this script installs it).
fuzzer_rt() {
  local major
  major=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n1)
  [ -n "$major" ] && echo "libclang-rt-$major-dev"
}
rt=$(fuzzer_rt || true)
[ -z "$rt" ] || PACKAGES+=("$rt")

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if dpkg-query -W -f='${Status}' slurm-wlm-emulator 2>/dev/null | grep -q 'install ok installed'; then
  echo "install-deps.sh: slurm-wlm-emulator is installed; it replaces the real" \
       "slurmctld/slurmd. Remove it: apt-get purge slurm-wlm-emulator" >&2
  exit 1
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps.sh: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Daemons must not be started by the package scripts: the test cluster runs its
# own instances with private state.  policy-rc.d 101 = "action forbidden".
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod +x "$policy"; made_policy=1
fi
trap '[ "$made_policy" = 1 ] && rm -f "$policy"' EXIT
apt-get install -y -qq --no-install-recommends "${missing[@]}"
if [ -z "$rt" ] && rt=$(fuzzer_rt); then
  apt-get install -y -qq --no-install-recommends "$rt"
fi
echo "install-deps.sh: done"
