# shellcheck shell=bash
# Starting, recognising and stopping the test cluster's daemons by recorded PID.
#
# Every daemon is started in the foreground of its own session (setsid) and its
# PID is written to $PIDS_DIR/NAME.pid together with its start time
# ($PIDS_DIR/NAME.start, field 22 of /proc/PID/stat).  A PID file alone could
# name an unrelated process once the PID is reused; PID + start time cannot.
# The processes they spawn (slurmstepd, job tasks) are found from these
# records too (helper_procs), never by name alone.
#
# The caller sets PIDS_DIR before using these functions.

# Refuse to let bash put background jobs in their own process groups: setsid
# must find a non-leader so that it execs in place and $! is the daemon's PID.
set +m

# proc_field PID N: field N (1-based, as in proc(5)) of /proc/PID/stat.
# The comm field (2) may hold spaces and parentheses, so split after the last ')'.
proc_field() {
  local stat
  # read, not $(cat): stop.sh calls this for every process on the machine.
  read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
  local rest=${stat##*) }
  local -a fields
  read -r -a fields <<<"$rest"
  echo "${fields[$(($2 - 3))]}"
}

# start_daemon NAME LOG CMD...: run CMD as a session leader, output to LOG,
# and record its PID and start time under NAME.
start_daemon() {
  local name=$1 log=$2
  shift 2
  setsid "$@" </dev/null >>"$log" 2>&1 &
  local pid=$!
  echo "$pid" >"$PIDS_DIR/$name.pid"
  proc_field "$pid" 22 >"$PIDS_DIR/$name.start" || true
}

# proc_alive PID START: succeed if process PID with start time START still
# runs.  A zombie is dead (its parent, often init, reaps it in its own time)
# unless other threads of it still run: a leader that exited before its
# threads shows as Z too.
proc_alive() {
  [ "$(proc_field "$1" 22 2>/dev/null)" = "$2" ] || return 1
  [ "$(proc_field "$1" 3 2>/dev/null)" = Z ] || return 0
  local -a tasks=("/proc/$1/task/"*)
  [ ${#tasks[@]} -gt 1 ]
}

# daemon_pid NAME: the recorded PID of NAME if that very process still runs;
# fails otherwise.
daemon_pid() {
  local name=$1 pid start
  pid=$(cat "$PIDS_DIR/$name.pid" 2>/dev/null) || return 1
  start=$(cat "$PIDS_DIR/$name.start" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  proc_alive "$pid" "$start" || return 1
  echo "$pid"
}

daemon_alive() { daemon_pid "$1" >/dev/null; }

# helper_procs SLURMD_LOG_GLOB NAME...: PID:START of the processes that the
# named daemons spawned and that could outlive them: every slurmstepd holding
# open a file matching SLURMD_LOG_GLOB, and all descendants of the daemons and
# of those slurmstepds (slurmscriptd, job tasks).  slurmstepd is double-forked
# into a session of its own, so neither its parent nor its session leads back
# to our slurmd; the slurmd log file it inherits does.  Only processes started
# no earlier than the oldest daemon count, which rules out strangers whose
# parent PID merely equals a reused PID.  Dead daemons' orphans are found too.
helper_procs() {
  local log_glob=$1
  shift
  local -A daemon=()
  local name pid start oldest=""
  for name in "$@"; do
    # A daemon that died still dates its orphans.
    start=$(cat "$PIDS_DIR/$name.start" 2>/dev/null) || continue
    if [ -z "$oldest" ] || [ "$start" -lt "$oldest" ]; then oldest=$start; fi
    if pid=$(daemon_pid "$name"); then daemon[$pid]=1; fi
  done
  [ -n "$oldest" ] || return 0

  # One pass over /proc: parent and start time of every candidate, and the
  # slurmstepds of this cluster as the first found processes.
  local -A ppid_of=() start_of=() found=()
  local p stat comm fd
  local -a f
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    read -r stat 2>/dev/null <"/proc/$p/stat" || continue
    read -r -a f <<<"${stat##*) }"
    # f[0] is the state (field 3), f[1] the parent (4), f[19] the start (22).
    if [ "${f[0]}" = Z ] || [ "${f[19]}" -lt "$oldest" ] || [ -n "${daemon[$p]:-}" ]; then
      continue
    fi
    ppid_of[$p]=${f[1]}
    start_of[$p]=${f[19]}
    comm=${stat#*(}
    comm=${comm%)*}
    [ "$comm" = slurmstepd ] || continue
    for fd in "/proc/$p/fd/"*; do
      # shellcheck disable=SC2053 # unquoted: the glob is the pattern
      if [[ $(readlink "$fd" 2>/dev/null) == $log_glob ]]; then
        found[$p]=1
        break
      fi
    done
  done

  # Add children of daemons and of found processes until nothing changes
  # (process trees are shallow, so this loops a handful of times).
  local grew=1 parent
  while [ $grew = 1 ]; do
    grew=0
    for p in "${!ppid_of[@]}"; do
      [ -z "${found[$p]:-}" ] || continue
      parent=${ppid_of[$p]}
      if [ -n "${daemon[$parent]:-}" ] || [ -n "${found[$parent]:-}" ]; then
        found[$p]=1
        grew=1
      fi
    done
  done
  for p in "${!found[@]}"; do echo "$p:${start_of[$p]}"; done
}

# still_running PID:START...: succeed if any of the given processes is alive.
still_running() {
  local ps
  for ps in "$@"; do
    if proc_alive "${ps%%:*}" "${ps##*:}"; then return 0; fi
  done
  return 1
}

# alive_procs PID:START...: those of the given processes still running.
alive_procs() {
  local ps
  for ps in "$@"; do
    if still_running "$ps"; then echo "$ps"; fi
  done
}

# terminate_procs GRACE_S PID:START...: SIGTERM the processes, give them
# GRACE_S seconds to exit, then SIGKILL whatever is left.  Fails if any
# survives even SIGKILL (e.g. stuck in the kernel).
terminate_procs() {
  local grace=$1
  shift
  local -a procs pids=()
  mapfile -t procs < <(alive_procs "$@")
  [ ${#procs[@]} -gt 0 ] || return 0
  local ps
  for ps in "${procs[@]}"; do pids+=("${ps%%:*}"); done
  kill -TERM "${pids[@]}" 2>/dev/null || true
  local deadline=$((SECONDS + grace))
  while still_running "${procs[@]}" && [ $SECONDS -lt $deadline ]; do
    sleep 0.1
  done
  if still_running "${procs[@]}"; then
    echo "cluster: processes ${pids[*]} ignored SIGTERM for ${grace}s; sending SIGKILL" >&2
    kill -KILL "${pids[@]}" 2>/dev/null || true
    deadline=$((SECONDS + 5))
    while still_running "${procs[@]}" && [ $SECONDS -lt $deadline ]; do
      sleep 0.1
    done
    ! still_running "${procs[@]}"
  fi
}

# stop_daemons GRACE_S NAME...: stop the named daemons together and forget
# their PID files.  Names not running any more are only forgotten; one that
# survives keeps its PID file (so a later stop.sh tries again) and fails.
stop_daemons() {
  local grace=$1
  shift
  local -a procs=()
  local name pid
  for name in "$@"; do
    if pid=$(daemon_pid "$name"); then
      procs+=("$pid:$(<"$PIDS_DIR/$name.start")")
    fi
  done
  terminate_procs "$grace" "${procs[@]}" || true
  local rc=0
  for name in "$@"; do
    if daemon_alive "$name"; then
      echo "cluster: $name (PID $(cat "$PIDS_DIR/$name.pid")) would not stop" >&2
      rc=1
    else
      rm -f "$PIDS_DIR/$name.pid" "$PIDS_DIR/$name.start"
    fi
  done
  return $rc
}
