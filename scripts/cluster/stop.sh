#!/usr/bin/env bash
# Stops the local test cluster that start.sh started in --state DIR: exactly
# the daemons it recorded (by PID and start time, never by name), the
# slurmstepds and job processes those daemons left behind, and the namespaces
# and links it recorded.  Logs stay in DIR/log.  Stopping twice is fine.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/layout.sh
. "$HERE/lib/layout.sh"
# shellcheck source=lib/daemons.sh
. "$HERE/lib/daemons.sh"
# shellcheck source=lib/network.sh
. "$HERE/lib/network.sh"

GRACE_S=10

usage() { echo "usage: $0 --state DIR"; }

die() {
  echo "stop.sh: $*" >&2
  exit 1
}

parse_args() {
  STATE_ARG=""
  while [ $# -gt 0 ]; do
    case $1 in
      -h | --help) usage; exit 0 ;;
      --state) [ $# -ge 2 ] || die "--state needs a value"; STATE_ARG=$2; shift 2 ;;
      *) usage >&2; die "unknown argument '$1'" ;;
    esac
  done
  [ -n "$STATE_ARG" ] || { usage >&2; die "--state DIR is required"; }
}

# names_matching GLOB: recorded daemon names matching GLOB (e.g. 'slurmd-*').
names_matching() {
  local f
  for f in "$PIDS_DIR"/$1.pid; do
    [ -e "$f" ] && basename "$f" .pid
  done
  return 0
}

# cancel_jobs: while slurmctld still runs, cancel every job and give the
# slurmstepds a few seconds to end their tasks cleanly.  Whatever is left is
# found and ended by helper_procs below.
cancel_jobs() {
  daemon_alive slurmctld || return 0
  export SLURM_CONF=$SLURM_CONF_FILE
  local jobs
  jobs=$(squeue -h -o %i 2>/dev/null) || return 0
  [ -n "$jobs" ] || return 0
  # shellcheck disable=SC2086 # one argument per job id
  scancel $jobs 2>/dev/null || true
  local deadline=$((SECONDS + 5))
  while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do
    sleep 0.2
  done
}

main() {
  parse_args "$@"
  if [ ! -d "$STATE_ARG" ]; then
    echo "stop.sh: $STATE_ARG does not exist; nothing to stop"
    return 0
  fi
  layout_init "$(cd "$STATE_ARG" && pwd)"
  if [ ! -e "$MARKER" ]; then
    # Never started here (or start.sh refused the directory): nothing of ours.
    echo "stop.sh: no cluster was started in $STATE; nothing to stop"
    return 0
  fi

  cancel_jobs
  local -a slurm_daemons leftovers
  mapfile -t slurm_daemons < <(names_matching 'slurmd-*'; names_matching slurmctld)
  # Collected while the daemons run: once they are gone, their children are
  # orphans that nothing ties to this cluster any more.
  mapfile -t leftovers < <(helper_procs "$LOG_DIR/slurmd-*.log" \
    "${slurm_daemons[@]}" slurmdbd mariadbd munged)

  # Dependents first: slurmd/slurmctld need slurmdbd, which needs MariaDB;
  # munged goes last because everyone authenticates through it.  Anything
  # recorded under another name (none today) goes at the end.
  local rc=0
  stop_daemons "$GRACE_S" "${slurm_daemons[@]}" || rc=1
  stop_daemons "$GRACE_S" slurmdbd || rc=1
  stop_daemons "$GRACE_S" mariadbd || rc=1
  stop_daemons "$GRACE_S" munged || rc=1
  local -a others
  mapfile -t others < <(names_matching '*')
  stop_daemons "$GRACE_S" "${others[@]}" || rc=1

  # Most helpers (slurmscriptd, steps of cancelled jobs) end with their daemon.
  mapfile -t leftovers < <(alive_procs "${leftovers[@]}")
  if [ ${#leftovers[@]} -gt 0 ]; then
    echo "stop.sh: ending ${#leftovers[@]} processes the daemons left behind:" \
      "${leftovers[*]%%:*}" >&2
    terminate_procs 3 "${leftovers[@]}" || rc=1
  fi

  net_remove_recorded
  if [ $rc -ne 0 ]; then
    die "some processes of the cluster in $STATE would not stop (see above)"
  fi
  echo "stop.sh: cluster in $STATE stopped; logs in $LOG_DIR"
}

main "$@"
