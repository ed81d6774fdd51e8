# lib.sh - helpers for integration tests against the local Slurm cluster.
# Sourced by *.test scripts; they print TAP (one "ok"/"not ok" per check).

: "${OMRU_SRCDIR:?run through make check (OMRU_SRCDIR unset)}"
: "${OMRU_BUILDDIR:?run through make check (OMRU_BUILDDIR unset)}"
# The Slurm the build was configured for (configure --with-slurm): its
# commands, and the cluster runs its daemons (start.sh reads the variable).
if [ -n "${OMRU_SLURM_PREFIX:-}" ] && [ "$OMRU_SLURM_PREFIX" != /usr ]; then
  export OMRU_SLURM_PREFIX
  PATH=$OMRU_SLURM_PREFIX/sbin:$OMRU_SLURM_PREFIX/bin:$PATH
else
  unset OMRU_SLURM_PREFIX
fi

TAP_N=0
TAP_FAILED=0

ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $*"; }
not_ok() {
  TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1))
  echo "not ok $TAP_N - $1"
  shift
  # Diagnostics: TAP comment lines, so a failure explains itself in the log.
  [ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /'
  return 0
}
# check NAME CMD...: one TAP line from a command's exit status.
check() {
  local name=$1; shift
  local out
  if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
# bail MSG: ends the test file; its cluster's state is kept for post-mortem.
bail() { echo "Bail out! $*"; TAP_FAILED=$((TAP_FAILED + 1)); exit 1; }
# eventually TIMEOUT_S CMD...: runs CMD every 0.25 s until it succeeds
# (for what daemons do after the state a test waited for: a slurmstepd's
# cleanup, a background thread's next pass); exit 1 with CMD's last output.
eventually() {
  local limit=$1 t=0 out; shift
  while :; do
    out=$("$@" 2>&1) && return 0
    [ $t -ge $((limit * 4)) ] && { printf '%s\n' "$out"; return 1; }
    sleep 0.25; t=$((t + 1))
  done
}

# Starts a cluster with both plugins from the build tree under a fresh
# directory (short path: unix socket paths are limited to 108 bytes).
# Test files run side by side (make -jN check), each on its own cluster:
# own state directory, run_dir, port base (OMRU_TEST_PORT_BASE, an offset
# per file) and job ids (FirstJobId from the port base), since a job's id
# picks host-wide names such as omru-train's rendezvous port.
#
# The plugins run from a copy in PLUGIN_DIR (beside the cluster's state, mode
# 0755), not from the build tree, because:
#  - other users' commands (profile.test's second user, plan.test's nobody)
#    read PluginDir and plugstack.conf's spank_omru.so: sbatch stops with
#    "PluginDir: ...: Permission denied" when the build tree sits in a
#    private (0700) directory, such as a clone in a home directory;
#  - a `make` during the run relinks the .so files under running daemons.
cluster_up() {
  CLUSTER_DIR=$(mktemp -d /tmp/omru-it.XXXXXX)
  trap cluster_down EXIT
  PLUGIN_DIR=$CLUSTER_DIR.plugins
  mkdir -p "$PLUGIN_DIR"
  cp "$OMRU_BUILDDIR"/select_plugin/.libs/*.so "$OMRU_BUILDDIR/spank/.libs/spank_omru.so" \
    "$PLUGIN_DIR/" || bail "no plugins to copy from $OMRU_BUILDDIR (build it first)"
  chmod 755 "$PLUGIN_DIR"
  chmod 644 "$PLUGIN_DIR"/*.so
  PLUGSTACK_FILE=$CLUSTER_DIR.plugstack.conf
  echo "required $PLUGIN_DIR/spank_omru.so run_dir=$CLUSTER_DIR.run report_interval=${OMRU_TEST_REPORT_INTERVAL:-2} ${OMRU_TEST_PLUGSTACK_ARGS:-}" > "$PLUGSTACK_FILE"
  # A start that fails (seen: MariaDB crashing while five clusters started
  # at once) is tried once more, its log kept in the test's log.
  local try
  for try in 1 2; do
    "$OMRU_SRCDIR/scripts/cluster/start.sh" --state "$CLUSTER_DIR" \
      --select-type select/omru_cons_tres \
      --plugin-dir "$PLUGIN_DIR" \
      --plugstack "$PLUGSTACK_FILE" --port-base "${OMRU_TEST_PORT_BASE:-17100}" \
      --first-job-id $(( ${OMRU_TEST_PORT_BASE:-17100} % 10000 * 10 + 1 )) \
      "$@" > "$CLUSTER_DIR.start.log" 2>&1 && break
    sed 's/^/# /' "$CLUSTER_DIR.start.log"
    [ "$try" = 2 ] && bail "the local Slurm cluster did not come up (see above)"
    echo "# the cluster did not come up; starting it again"
  done
  grep -E 'ready in|failed \(try' "$CLUSTER_DIR.start.log" | sed 's/^/# /'
  # shellcheck disable=SC1091
  . "$CLUSTER_DIR/env.sh"
  CTLD_LOG=$(ls "$CLUSTER_DIR"/log/slurmctld*.log 2>/dev/null | head -n1)
  [ -n "$CTLD_LOG" ] || bail "no slurmctld log under $CLUSTER_DIR/log"
}

# resize_cluster_up PORT_OFFSET ELASTIC_GRACE MODEL T1 T2 T3 T4: the cluster
# of the resize tests (elastic*.test, phase*.test): one node with 4 GPUs at
# OMRU_TEST_PORT_BASE + PORT_OFFSET, a planner profile of MODEL with epoch
# times T1..T4 s on 1..4 GPUs, the given ElasticGrace and, when given,
# EXTRA_CONF (more omru.conf lines); sets WORK (removed at exit) and OUT.
resize_cluster_up() {
  WORK=$(mktemp -d /tmp/omru-resize.XXXXXX)
  chmod 755 "$WORK"
  printf 'model,gpus,epoch_s,nodes\n%s,1,%s,\n%s,2,%s,\n%s,3,%s,\n%s,4,%s,\n' \
    "$3" "$4" "$3" "$5" "$3" "$6" "$3" "$7" >"$WORK/profiles.csv"
  cat >"$WORK/omru.conf" <<CONF
ProfileFile=$WORK/profiles.csv
PlanIntervalMin=0.5
PlanIntervalMax=5
CpusPerGpu=1
LogPlans=yes
RestartOverhead=5
ElasticGrace=$2
# The CPU runs are faster than the profile says; the profile is the plan's
# view here, so its curve is not corrected from them.
CorrectionMargin=10
${8:-}
CONF
  OMRU_TEST_PORT_BASE=$(( ${OMRU_TEST_PORT_BASE:-17100} + $1 ))
  cluster_up --omru-conf "$WORK/omru.conf" --nodes 1 --gpus-per-node 4
  trap 'cluster_down; rm -rf "$WORK"' EXIT
  OUT=$CLUSTER_DIR/out
  mkdir -p "$OUT"
  chmod 755 "$OUT"
}

cluster_down() {
  [ -n "${CLUSTER_DIR:-}" ] || return 0
  "$OMRU_SRCDIR/scripts/cluster/stop.sh" --state "$CLUSTER_DIR" >/dev/null 2>&1 || true
  if [ "$TAP_FAILED" = 0 ] && [ -z "${OMRU_KEEP_CLUSTER:-}" ]; then
    rm -rf "$CLUSTER_DIR" "$CLUSTER_DIR".*
  else
    # CI keeps only the output: the daemons' complaints go there.
    echo "# cluster state kept in $CLUSTER_DIR; the daemons' last errors:"
    grep -h ' error: ' "$CLUSTER_DIR"/log/slurm*.log 2>/dev/null |
      grep -v -i -e 'pmix' -e 'innodb' | tail -n 30 |
      cut -c1-300 | sed 's/^/#   /'
  fi
}

# cluster_daemons: start.sh's daemon helpers (daemon_pid, start_daemon,
# ...) over this cluster's layout; call it in a subshell.
cluster_daemons() {
  # shellcheck disable=SC1091
  . "$OMRU_SRCDIR/scripts/cluster/lib/layout.sh"
  # shellcheck disable=SC1091
  . "$OMRU_SRCDIR/scripts/cluster/lib/daemons.sh"
  layout_init "$CLUSTER_DIR"
}

# ctld_restart [--no-wait]: stop slurmctld (SIGTERM: it saves its state)
# and start it again the way start.sh did, recorded so stop.sh still finds
# it; waits until it answers and its nodes have registered (for a few
# seconds they are UNKNOWN, and nothing starts on them: a job submitted
# then waits for the registration, under cons_tres as under select/omru,
# and a bench would time that wait).  --no-wait: only until it answers.
ctld_restart() {
  local wait_nodes=1
  [ "${1:-}" != --no-wait ] || wait_nodes=0
  (
    cluster_daemons
    local pid t=0
    if pid=$(daemon_pid slurmctld); then
      kill -TERM "$pid"
      while daemon_alive slurmctld && [ $t -lt 300 ]; do sleep 0.1; t=$((t + 1)); done
    fi
    start_daemon slurmctld "$LOG_DIR/slurmctld.out" slurmctld -D -f "$SLURM_CONF_FILE"
    t=0
    until scontrol ping 2>/dev/null | grep -q UP || [ $t -ge 300 ]; do sleep 0.1; t=$((t + 1)); done
    [ "$wait_nodes" = 1 ] || exit 0
    t=0
    while sinfo -h -o %T 2>/dev/null | grep -q '^unknown' && [ $t -lt 300 ]; do
      sleep 0.1; t=$((t + 1))
    done
  )
}

# ctld_pause SECONDS: slurmctld stopped (SIGSTOP) that long: RPCs sent
# meanwhile are all answered together when it goes on.
ctld_pause() {
  (
    cluster_daemons
    local pid
    pid=$(daemon_pid slurmctld) || exit 1
    kill -STOP "$pid"
    sleep "$1"
    kill -CONT "$pid"
  )
}

# submit ARGS...: sbatch --parsable; prints the job id (exit 1 if refused).
submit() { sbatch --parsable "$@" | cut -d';' -f1; }

# wait_state JOBID STATE [TIMEOUT_S]: waits until squeue shows the job in
# STATE (e.g. RUNNING); prints the last state seen, exit 1 on timeout.
wait_state() {
  local id=$1 want=$2 limit=${3:-60} t=0 state=""
  while [ "$t" -lt $((limit * 4)) ]; do
    state=$(squeue -h -j "$id" -o '%T' 2>/dev/null)
    if [ "$state" = "$want" ]; then echo "$state"; return 0; fi
    sleep 0.25; t=$((t + 1))
  done
  echo "${state:-GONE}"
  return 1
}

# wait_done JOBID [TIMEOUT_S]: waits until the job has ended; prints its
# State as sacct reports it (COMPLETED, FAILED, ...).
wait_done() {
  local id=$1 limit=${2:-60} t=0 state=""
  while [ "$t" -lt $((limit * 2)) ]; do
    if ! squeue -h -j "$id" 2>/dev/null | grep -q .; then
      state=$(sacct -n -X -P -j "$id" -o State 2>/dev/null | head -n1)
      case $state in
        ""|PENDING|RUNNING|COMPLETING) ;;
        *) echo "$state"; return 0 ;;
      esac
    fi
    sleep 0.5; t=$((t + 1))
  done
  echo "TIMEOUT"
  return 1
}
