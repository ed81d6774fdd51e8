#!/usr/bin/env bash
# Starts a local Slurm test cluster (Debian's 22.05, or the release in
# --slurm-prefix) on this one machine, with every file (configs, logs,
# spool, munge key and socket, MariaDB data, PID records)
# under the --state directory.  See README.md next to this script.
#
# Order: munged -> MariaDB -> slurmdbd -> accounts -> [namespaces] ->
# slurmctld -> slurmd per node -> wait until every node is idle.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/layout.sh
. "$HERE/lib/layout.sh"
# shellcheck source=lib/daemons.sh
. "$HERE/lib/daemons.sh"
# shellcheck source=lib/network.sh
. "$HERE/lib/network.sh"
# shellcheck source=lib/configs.sh
. "$HERE/lib/configs.sh"

READY_TIMEOUT_S=60
STEP_TIMEOUT_S=30
DEBUG_LEVELS="quiet fatal error info verbose debug debug2 debug3 debug4 debug5"

usage() {
  cat <<USAGE
usage: $0 --state DIR [--select-type TYPE] [--plugin-dir DIR]
          [--plugstack FILE] [--omru-conf FILE] [--nodes N] [--netns K]
          [--gpus-per-node G|G1,G2,...] [--gpu-types SPEC]
          [--partitions SPEC] [--sched-params LIST] [--port-base P] [--ctld-debug LEVEL]
          [--first-job-id N] [--extra-conf FILE] [--users LIST]
          [--job-submit LIST|none] [--slurmstepd PATH] [--slurm-prefix DIR]
          [--priority basic|multifactor|fairshare]

  --state DIR          all state, configs and logs go here (created if missing)
  --select-type TYPE   SelectType (default select/omru_cons_tres)
  --plugin-dir DIR     appended to Slurm's PluginDir (where select_omru_cons_tres.so is)
  --plugstack FILE     copied to DIR/plugstack.conf (default: empty plugstack)
  --omru-conf FILE     copied to DIR/omru.conf, next to slurm.conf, where
                       select/omru_cons_tres reads it (default: none, defaults)
  --nodes N            slurmd on loopback, nodes n1..nN (default 4)
  --gpus-per-node G    GPUs of every loopback node, or one count per node
                       (e.g. 4,4,8,2 with --nodes 4); 0..16 each (default 4)
  --gpu-types SPEC     GPU types per node: NODE=TYPE:COUNT[,TYPE:COUNT...]
                       [;NODE=...], types in GPU index order, counts adding
                       up to the node's GPUs, e.g. 'n1=a100:2,t4:2;n2=t4:4'
                       (n1's GPUs 0-1 a100, 2-3 t4); TYPE [A-Za-z][A-Za-z0-9_]*,
                       once per node (Slurm numbers a node's GPUs type by
                       type); nodes not named keep Type=tesla (default: none)
  --partitions SPEC    NAME:NODES[;NAME:NODES...], NODES a Slurm hostlist,
                       e.g. 'gpu:n[1-4];small:n1,n2'; the first is the default
                       (default: one partition gpu with every node)
  --sched-params LIST  appended to SchedulerParameters (comma-separated)
  --netns K            slurmd in network namespaces, nodes ns1..nsK (default 0)
  --port-base P        ports P..P+10+N+K and P+1000..P+1049 (MpiParams);
                       namespace subnet 10.200.(P%256).0/24
                       (default 17000)
  --ctld-debug LEVEL   SlurmctldDebug (default debug)
  --first-job-id N     FirstJobId, 1..60000000 (default 1); clusters run side
                       by side on one host need different job ids: a job's
                       id picks ports and names on the host (omru-train's
                       rendezvous port), and their job 1 would collide
  --extra-conf FILE    lines appended to slurm.conf (site limits to test:
                       AccountingStorageEnforce=, Licenses=, ...)
  --users LIST         more existing Unix users (comma-separated) given
                       associations in account omru besides root, so jobs
                       can be submitted as them (sbatch --uid=USER as root)
  --job-submit LIST    JobSubmitPlugins, or none (default: omru under
                       select/omru*, where job_submit_omru.so merges the
                       nodes' AdminComment fields; none under other types)
  --slurmstepd PATH    the slurmstepd every slurmd runs (slurmd -d), e.g. a
                       wrapper that sets its environment: slurmd runs the
                       SPANK job prolog/epilog with a fixed environment
  --slurm-prefix DIR   the Slurm whose daemons and commands the cluster runs:
                       an installation prefix (bin/, sbin/, lib/slurm/), e.g.
                       scripts/slurm-release.sh 24.11's; env.sh puts its
                       commands first in PATH (default: \$OMRU_SLURM_PREFIX,
                       else Debian's Slurm in /usr)
  --priority TYPE      PriorityType: basic (default; submit order),
                       multifactor (an age factor; what sprio reads) or
                       fairshare (multifactor whose fair-share factor
                       dominates, usage billed in GPU-seconds: partitions'
                       TRESBillingWeights=CPU=0,GRES/gpu=1, charged as each
                       job ends: AccountingStorageEnforce=associations,
                       limits; shares are the associations', set with
                       sacctmgr)
USAGE
}

die() {
  echo "start.sh: $*" >&2
  exit 1
}

# elapsed_s: seconds since main() began, one decimal.
elapsed_s() {
  awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

# progress MSG: a timestamped line, so a slow step shows in CI logs.
progress() { echo "start.sh: [$(elapsed_s) s] $*"; }

parse_args() {
  STATE_ARG="" SELECT_TYPE=select/omru_cons_tres EXTRA_PLUGIN_DIR=""
  PLUGSTACK_SRC="" NODES=4 NETNS=0 PORT_BASE=17000 CTLD_DEBUG=debug
  OMRU_CONF_SRC="" GPUS_ARG=4 GPU_TYPES_ARG="" PARTITIONS="" SCHED_EXTRA="" FIRST_JOB_ID=1
  EXTRA_CONF_SRC="" EXTRA_USERS="" JOB_SUBMIT=default STEPD="" PRIORITY=basic
  SLURM_PREFIX=${OMRU_SLURM_PREFIX:-/usr}
  while [ $# -gt 0 ]; do
    case $1 in
      -h | --help) usage; exit 0 ;;
      --state | --select-type | --plugin-dir | --plugstack | --nodes | --netns | \
        --port-base | --ctld-debug | --omru-conf | --gpus-per-node | \
        --gpu-types | --partitions | --sched-params | --first-job-id | --extra-conf | --users | --job-submit | --slurmstepd | \
        --slurm-prefix | --priority)
        [ $# -ge 2 ] || die "$1 needs a value"
        case $1 in
          --state) STATE_ARG=$2 ;;
          --select-type) SELECT_TYPE=$2 ;;
          --plugin-dir) EXTRA_PLUGIN_DIR=$2 ;;
          --plugstack) PLUGSTACK_SRC=$2 ;;
          --nodes) NODES=$2 ;;
          --netns) NETNS=$2 ;;
          --port-base) PORT_BASE=$2 ;;
          --ctld-debug) CTLD_DEBUG=$2 ;;
          --omru-conf) OMRU_CONF_SRC=$2 ;;
          --gpus-per-node) GPUS_ARG=$2 ;;
          --gpu-types) GPU_TYPES_ARG=$2 ;;
          --partitions) PARTITIONS=$2 ;;
          --sched-params) SCHED_EXTRA=$2 ;;
          --first-job-id) FIRST_JOB_ID=$2 ;;
          --extra-conf) EXTRA_CONF_SRC=$2 ;;
          --users) EXTRA_USERS=$2 ;;
          --job-submit) JOB_SUBMIT=$2 ;;
          --slurmstepd) STEPD=$2 ;;
          --slurm-prefix) SLURM_PREFIX=$2 ;;
          --priority) PRIORITY=$2 ;;
        esac
        # An empty value would silently mean "the default" for these.
        case $1 in
          --omru-conf | --gpus-per-node | --gpu-types | --partitions)
            [ -n "$2" ] || die "$1 needs a non-empty value" ;;
        esac
        shift 2 ;;
      *) usage >&2; die "unknown argument '$1'" ;;
    esac
  done
}

# validate_args: every bad value is refused here with what is allowed, before
# anything is started.
validate_args() {
  [ -n "$STATE_ARG" ] || { usage >&2; die "--state DIR is required"; }
  [ "$(id -u)" -eq 0 ] ||
    die "must run as root (daemons run as SlurmUser=root; mknod, namespaces)"
  if ! [[ $NODES =~ ^[0-9]+$ ]] || [ "$NODES" -gt 200 ]; then
    die "--nodes=$NODES: must be an integer 0..200"
  fi
  if ! [[ $NETNS =~ ^[0-9]+$ ]] || [ "$NETNS" -gt 200 ]; then
    die "--netns=$NETNS: must be an integer 0..200"
  fi
  [ $((NODES + NETNS)) -ge 1 ] || die "--nodes + --netns must be at least 1"
  if ! [[ $PORT_BASE =~ ^[0-9]+$ ]] || [ "$PORT_BASE" -lt 1024 ] ||
    [ $((PORT_BASE + 1049)) -gt 65535 ]; then
    die "--port-base=$PORT_BASE: need 1024 <= P and P+1049 <= 65535 (MpiParams ports)"
  fi
  if ! [[ $FIRST_JOB_ID =~ ^[1-9][0-9]{0,7}$ ]] || [ "$FIRST_JOB_ID" -gt 60000000 ]; then
    die "--first-job-id=$FIRST_JOB_ID: must be an integer 1..60000000"
  fi
  [[ " $DEBUG_LEVELS " == *" $CTLD_DEBUG "* ]] ||
    die "--ctld-debug=$CTLD_DEBUG: must be one of: $DEBUG_LEVELS"
  [[ $SELECT_TYPE =~ ^select/[A-Za-z0-9_]+$ ]] ||
    die "--select-type=$SELECT_TYPE: must look like select/NAME"
  if [ -n "$PLUGSTACK_SRC" ]; then
    [ -f "$PLUGSTACK_SRC" ] || die "--plugstack=$PLUGSTACK_SRC: no such file"
  fi
  case $PRIORITY in
    basic | multifactor | fairshare) ;;
    *) die "--priority=$PRIORITY: must be basic, multifactor or fairshare" ;;
  esac
  if [ -n "$OMRU_CONF_SRC" ]; then
    [ -f "$OMRU_CONF_SRC" ] || die "--omru-conf=$OMRU_CONF_SRC: no such file"
  fi
  if [ -n "$EXTRA_CONF_SRC" ]; then
    [ -f "$EXTRA_CONF_SRC" ] || die "--extra-conf=$EXTRA_CONF_SRC: no such file"
  fi
  if [ -n "$EXTRA_USERS" ]; then
    [[ $EXTRA_USERS =~ ^[a-z_][a-z0-9_-]*(,[a-z_][a-z0-9_-]*)*$ ]] ||
      die "--users=$EXTRA_USERS: must be user names separated by commas"
    local u
    for u in ${EXTRA_USERS//,/ }; do
      id -u "$u" >/dev/null 2>&1 || die "--users: no Unix user '$u'"
    done
  fi
  validate_gpus_per_node
  validate_gpu_types
  validate_partitions
  if [ -n "$SCHED_EXTRA" ] &&
    ! [[ $SCHED_EXTRA =~ ^[A-Za-z0-9_=.:-]+(,[A-Za-z0-9_=.:-]+)*$ ]]; then
    die "--sched-params=$SCHED_EXTRA: must be SchedulerParameters items" \
      "(key or key=value of [A-Za-z0-9_=.:-]) separated by single commas"
  fi
  if [ "$JOB_SUBMIT" != default ] && [ "$JOB_SUBMIT" != none ] &&
    ! [[ $JOB_SUBMIT =~ ^[a-z0-9_/]+(,[a-z0-9_/]+)*$ ]]; then
    die "--job-submit=$JOB_SUBMIT: must be none or plugin names ([a-z0-9_/])" \
      "separated by single commas, e.g. omru or lua,omru"
  fi
  if [ -n "$STEPD" ] && { [[ $STEPD != /* ]] || [ ! -x "$STEPD" ]; }; then
    die "--slurmstepd=$STEPD: must be an absolute path to an executable"
  fi
  if [ -n "$EXTRA_PLUGIN_DIR" ]; then
    [ -d "$EXTRA_PLUGIN_DIR" ] || die "--plugin-dir=$EXTRA_PLUGIN_DIR: no such directory"
    EXTRA_PLUGIN_DIR=$(cd "$EXTRA_PLUGIN_DIR" && pwd)
  fi
  if [ "$NETNS" -gt 0 ]; then
    if ! command -v ip >/dev/null || ! command -v nsenter >/dev/null; then
      die "--netns needs ip (iproute2) and nsenter (util-linux)"
    fi
  fi
  if [ "$SLURM_PREFIX" != /usr ]; then
    [ -x "$SLURM_PREFIX/sbin/slurmctld" ] && [ -d "$SLURM_PREFIX/lib/slurm" ] ||
      die "--slurm-prefix=$SLURM_PREFIX: no Slurm installation there (sbin/slurmctld, lib/slurm/)"
    SLURM_PREFIX=$(cd "$SLURM_PREFIX" && pwd)
    # The daemons started below and every command this script runs.
    export PATH=$SLURM_PREFIX/sbin:$SLURM_PREFIX/bin:$PATH
  fi
  local cmd
  for cmd in munged mariadb-install-db mariadbd mariadb slurmdbd slurmctld \
    slurmd sacctmgr sinfo scontrol; do
    command -v "$cmd" >/dev/null || die "$cmd not found; run scripts/install-deps.sh"
  done
  check_partition_nodes
}

# validate_gpus_per_node: one count for all loopback nodes or one per node;
# sets NODE_GPUS (array, index 1..NODES) and MAX_GPUS (device files needed:
# the largest loopback node, and GPUS_PER_NODE when there are namespace nodes).
validate_gpus_per_node() {
  [[ $GPUS_ARG =~ ^[0-9]{1,3}(,[0-9]{1,3})*$ ]] ||
    die "--gpus-per-node=$GPUS_ARG: must be one count G or a comma list" \
      "G1,G2,... with one count per --nodes node, each an integer 0..16"
  local -a list
  IFS=, read -r -a list <<<"$GPUS_ARG"
  local g i
  for g in "${list[@]}"; do
    [ $((10#$g)) -le 16 ] ||
      die "--gpus-per-node=$GPUS_ARG: each count must be an integer 0..16"
  done
  if [ ${#list[@]} -ne 1 ] && [ ${#list[@]} -ne "$NODES" ]; then
    die "--gpus-per-node=$GPUS_ARG: ${#list[@]} counts; give one count for" \
      "every node, or exactly one per node (--nodes $NODES)"
  fi
  NODE_GPUS=() MAX_GPUS=0
  [ "$NETNS" -eq 0 ] || MAX_GPUS=$GPUS_PER_NODE
  for ((i = 1; i <= NODES; i++)); do
    if [ ${#list[@]} -eq 1 ]; then g=${list[0]}; else g=${list[$((i - 1))]}; fi
    g=$((10#$g)) # "08" is 8, not an octal error later
    NODE_GPUS[i]=$g
    [ "$g" -le "$MAX_GPUS" ] || MAX_GPUS=$g
  done
}

# validate_gpu_types: --gpu-types entries NODE=TYPE:COUNT[,TYPE:COUNT...]
# separated by ';', each node of this cluster named once, its counts adding
# up to its GPUs (--gpus-per-node; namespace nodes have GPUS_PER_NODE),
# each type once per node: slurmd numbers a node's GPUs type by type in the
# order of its Gres= (gres.c _merge_config), so a type given twice would
# make Slurm's GPU indices differ from the device files and Links=.
# Sets NODE_GPU_TYPES (associative: node name -> one type per GPU index,
# separated by spaces); nodes not named are not in it (Type=tesla).
validate_gpu_types() {
  declare -gA NODE_GPU_TYPES=()
  [ -n "$GPU_TYPES_ARG" ] || return 0
  local -a entries pairs
  IFS=';' read -r -a entries <<<"$GPU_TYPES_ARG"
  [[ $GPU_TYPES_ARG != *';' ]] || entries+=("")
  local e node list pair type cnt total have i types
  for e in "${entries[@]}"; do
    [ -n "$e" ] || die "--gpu-types=$GPU_TYPES_ARG: empty entry" \
      "(entries are NODE=TYPE:COUNT[,TYPE:COUNT...] separated by single ';')"
    [[ $e =~ ^(ns?[0-9]+)=([A-Za-z][A-Za-z0-9_]*:[0-9]{1,2}(,[A-Za-z][A-Za-z0-9_]*:[0-9]{1,2})*)$ ]] ||
      die "--gpu-types: '$e' must be NODE=TYPE:COUNT[,TYPE:COUNT...] (TYPE of" \
        "[A-Za-z][A-Za-z0-9_]*, COUNT 1..16), entries separated by single ';'," \
        "e.g. 'n1=a100:2,t4:2;n2=t4:4'"
    node=${BASH_REMATCH[1]} list=${BASH_REMATCH[2]}
    # Names as the nodes are called: n1..nN, ns1..nsK (no leading zeros).
    have=""
    for ((i = 1; i <= NODES; i++)); do
      [ "$node" != "n$i" ] || have=${NODE_GPUS[i]}
    done
    for ((i = 1; i <= NETNS; i++)); do
      [ "$node" != "ns$i" ] || have=$GPUS_PER_NODE
    done
    [ -n "$have" ] || die "--gpu-types: '$node' is not a node of this cluster" \
      "(nodes: n1..n$NODES$([ "$NETNS" -eq 0 ] || echo ", ns1..ns$NETNS"))"
    [ -z "${NODE_GPU_TYPES[$node]:-}" ] || die "--gpu-types: node '$node' given twice"
    IFS=, read -r -a pairs <<<"$list"
    total=0 types=""
    local -A seen_type=()
    for pair in "${pairs[@]}"; do
      type=${pair%:*} cnt=$((10#${pair##*:}))
      [ -z "${seen_type[$type]:-}" ] ||
        die "--gpu-types: '$node=$list' names type $type twice; give each" \
          "type's GPUs in one TYPE:COUNT (Slurm numbers a node's GPUs type by type)"
      seen_type[$type]=1
      if [ "$cnt" -lt 1 ] || [ "$cnt" -gt 16 ]; then
        die "--gpu-types: '$node=$list': count of $type must be 1..16"
      fi
      total=$((total + cnt))
      for ((i = 0; i < cnt; i++)); do types+=" $type"; done
    done
    [ "$total" -eq "$have" ] ||
      die "--gpu-types: '$node=$list' gives $total GPUs, $node has $have" \
        "(--gpus-per-node); the counts must add up to the node's GPUs"
    NODE_GPU_TYPES[$node]=${types# }
  done
}

# validate_partitions: NAME:HOSTLIST entries separated by ';', names unique
# (slurmctld checks the node names themselves: a wrong one makes it exit,
# and start.sh then shows its log).  Sets DEFAULT_PARTITION.
validate_partitions() {
  DEFAULT_PARTITION=gpu
  [ -n "$PARTITIONS" ] || return 0
  local -a parts
  IFS=';' read -r -a parts <<<"$PARTITIONS"
  [[ $PARTITIONS != *';' ]] || parts+=("")
  local p name
  local -A seen=()
  for p in "${parts[@]}"; do
    [ -n "$p" ] || die "--partitions=$PARTITIONS: empty entry" \
      "(entries are NAME:NODES separated by single ';')"
    [[ $p =~ ^[A-Za-z0-9_]+:[][A-Za-z0-9_,-]+$ ]] ||
      die "--partitions: '$p' must be NAME:NODES (NAME of [A-Za-z0-9_]," \
        "NODES a non-empty hostlist like n[1-2],n4 or ALL), entries separated by ';'"
    name=${p%%:*}
    [ -z "${seen[$name]:-}" ] || die "--partitions: partition '$name' given twice"
    seen[$name]=1
  done
  DEFAULT_PARTITION=${parts[0]%%:*}
}

# check_partition_nodes: with --partitions, every name must be a node of this
# cluster and every node must be in some partition (sinfo, and so the wait
# for idle nodes, never shows a node outside all partitions).  scontrol
# expands the hostlists offline; it only needs some slurm.conf to read.
check_partition_nodes() {
  [ -n "$PARTITIONS" ] || return 0
  local -a parts all=() hosts
  local -A known=() covered=() expanded=()
  local i n p bad missing="" conf
  for ((i = 1; i <= NODES; i++)); do all+=("n$i"); done
  for ((i = 1; i <= NETNS; i++)); do all+=("ns$i"); done
  for n in "${all[@]}"; do known[$n]=1; done
  IFS=';' read -r -a parts <<<"$PARTITIONS"
  conf=$(mktemp) || die "mktemp failed"
  printf 'ClusterName=x\nSlurmctldHost=localhost\n' >"$conf"
  for p in "${parts[@]}"; do
    if [ "${p#*:}" = ALL ]; then
      expanded[$p]="${all[*]}"
    else
      expanded[$p]=$(SLURM_CONF=$conf scontrol show hostnames "${p#*:}" 2>/dev/null |
        tr '\n' ' ') || true
    fi
  done
  rm -f "$conf"
  for p in "${parts[@]}"; do
    read -r -a hosts <<<"${expanded[$p]}"
    [ ${#hosts[@]} -gt 0 ] ||
      die "--partitions: '$p': '${p#*:}' is not a valid hostlist"
    bad=""
    for n in "${hosts[@]}"; do
      if [ -n "${known[$n]:-}" ]; then covered[$n]=1; else bad+=" $n"; fi
    done
    [ -z "$bad" ] || die "--partitions: '$p' names${bad}, not a node of this" \
      "cluster (nodes: $(IFS=,; echo "${all[*]}"))"
  done
  for n in "${all[@]}"; do [ -n "${covered[$n]:-}" ] || missing+=",$n"; done
  [ -z "$missing" ] || die "--partitions: node(s) ${missing#,} in no partition;" \
    "every node must be in at least one (Slurm would not list them in sinfo)"
}

# find_plugin_dirs: the system's Slurm plugin directory plus --plugin-dir, and
# a clear refusal when the chosen select plugin is in neither.
find_plugin_dirs() {
  local sys="" d dirs=(/usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib/*/slurm-wlm /usr/lib64/slurm /usr/lib/slurm)
  [ "$SLURM_PREFIX" = /usr ] || dirs=("$SLURM_PREFIX/lib/slurm")
  for d in "${dirs[@]}"; do
    if [ -f "$d/select_cons_tres.so" ]; then sys=$d; break; fi
  done
  [ -n "$sys" ] || die "Slurm's plugin directory (with select_cons_tres.so) not found"
  PLUGIN_DIRS=$sys${EXTRA_PLUGIN_DIR:+:$EXTRA_PLUGIN_DIR}
  local so="select_${SELECT_TYPE#select/}.so"
  if [ ! -f "$sys/$so" ] && { [ -z "$EXTRA_PLUGIN_DIR" ] || [ ! -f "$EXTRA_PLUGIN_DIR/$so" ]; }; then
    die "--select-type=$SELECT_TYPE: $so is not in $PLUGIN_DIRS" \
      "(build it and pass --plugin-dir, or use --select-type select/cons_tres)"
  fi
  if [ "$JOB_SUBMIT" = default ]; then
    JOB_SUBMIT=none
    if [[ $SELECT_TYPE == select/omru* ]] && [ -n "$EXTRA_PLUGIN_DIR" ] &&
      [ -f "$EXTRA_PLUGIN_DIR/job_submit_omru.so" ]; then
      JOB_SUBMIT=omru
    fi
  fi
}

# prepare_state_dir: make STATE ours and empty of an earlier run's state.
# A non-empty directory without our marker is refused, so a typo in --state
# can never wipe someone's files.
prepare_state_dir() {
  mkdir -p "$STATE_ARG"
  layout_init "$(cd "$STATE_ARG" && pwd)"
  [[ $STATE != *[[:space:]]* ]] || die "--state=$STATE: path must not contain whitespace"
  # Unix socket paths (munge, MariaDB, slurmstepd's under spool) max 107 bytes.
  [ ${#STATE} -le 60 ] || die "--state=$STATE: path longer than 60 characters" \
    "(socket paths under it would exceed the 107-byte limit)"
  # As root, a directory another user owns (or can write) could hold
  # their env.sh and configs, which root would then source and run.
  if [ "$(id -u)" = 0 ]; then
    [ "$(stat -c %u "$STATE")" = 0 ] ||
      die "--state=$STATE is owned by uid $(stat -c %u "$STATE"), not root; refusing to use it as root"
    [ "$(( 0$(stat -c %a "$STATE") & 022 ))" = 0 ] || [ ! -e "$MARKER" ] ||
      die "--state=$STATE is writable by others (mode $(stat -c %a "$STATE")); refusing to use it as root"
  fi
  if [ ! -e "$MARKER" ] && [ -n "$(ls -A "$STATE")" ]; then
    die "--state=$STATE is not empty and was not made by this script; refusing to use it"
  fi
  : >"$MARKER"
  # munged refuses a socket whose path is not searchable by all (mktemp -d
  # makes 0700 directories).
  chmod 755 "$STATE"
  if [ -n "$(ls -A "$STATE/pids" 2>/dev/null)" ] || [ -s "$NET_RECORD" ]; then
    echo "start.sh: a cluster from an earlier run may be up in $STATE; stopping it"
    "$HERE/stop.sh" --state "$STATE" || die "could not stop the earlier cluster"
  fi
  # Keep the previous run's logs for post-mortem, one generation.
  if [ -d "$LOG_DIR" ]; then
    rm -rf "$LOG_DIR.prev"
    mv "$LOG_DIR" "$LOG_DIR.prev"
  fi
  rm -rf "${GENERATED[@]}"
  mkdir -p "$LOG_DIR" "$PIDS_DIR" "$RUN_DIR" "$CTLD_STATE_DIR" "$NET_DIR"
  local i
  for ((i = 1; i <= NODES; i++)); do mkdir -p "$SPOOL_DIR/n$i"; done
  for ((i = 1; i <= NETNS; i++)); do mkdir -p "$SPOOL_DIR/ns$i"; done
}

# dump_logs FILE...: the tail of each log, for a failed start.
dump_logs() {
  local f
  for f in "$@"; do
    [ -s "$f" ] || continue
    echo "----- tail of $f -----" >&2
    tail -n 25 "$f" >&2
  done
}

# dump_daemon_logs NAME...: the tail of each daemon's log.  Slurm daemons
# started with -D repeat their log on stderr (NAME.out); from there only the
# lines that are not log lines are shown (crashes, sanitizer reports).
dump_daemon_logs() {
  local name out
  for name in "$@"; do
    dump_logs "$LOG_DIR/$name.log"
    out=$LOG_DIR/$name.out
    [ -s "$out" ] || continue
    if grep -qvE '^slurm[a-z]*: ' "$out"; then
      echo "----- other output of $name ($out) -----" >&2
      grep -vE '^slurm[a-z]*: ' "$out" | tail -n 25 >&2
    fi
  done
}

# wait_until TIMEOUT_S WHAT DAEMON CMD...: poll CMD until it succeeds; fail
# after TIMEOUT_S, or at once when DAEMON (whose log is printed) has died.
wait_until() {
  local timeout=$1 what=$2 daemon=$3
  shift 3
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ! daemon_alive "$daemon"; then
      dump_daemon_logs "$daemon"
      die "$daemon exited while waiting for $what"
    fi
    if [ $SECONDS -ge $deadline ]; then
      dump_daemon_logs "$daemon"
      die "timed out after ${timeout}s waiting for $what"
    fi
    sleep 0.1
  done
}

# start_munge: a private key and socket, so the cluster never depends on (or
# disturbs) the host's munged.  The socket's directory must be world-searchable.
start_munge() {
  mkdir -p "$MUNGE_DIR"
  chmod 755 "$MUNGE_DIR"
  (umask 077 && head -c 1024 /dev/urandom >"$MUNGE_DIR/munge.key")
  chmod 400 "$MUNGE_DIR/munge.key"
  start_daemon munged "$LOG_DIR/munged.log" munged --foreground \
    --key-file="$MUNGE_DIR/munge.key" --socket="$MUNGE_SOCKET" \
    --pid-file="$RUN_DIR/munged.pid" --seed-file="$MUNGE_DIR/munged.seed"
  wait_until "$STEP_TIMEOUT_S" "munged's socket" munged \
    sh -c "munge -S '$MUNGE_SOCKET' -n | unmunge -S '$MUNGE_SOCKET'"
}

# db_args: options shared by mariadb-install-db and mariadbd.  Small InnoDB
# files keep a fresh data directory at ~25 MB and its creation under a second.
# Its own tmpdir: MariaDB's temporary tables go there, not to the /tmp that
# every cluster on the machine shares (five mariadbd started at once, one
# crashed creating a temporary table in /tmp).
db_args() {
  echo --no-defaults --datadir="$DB_DIR/data" --tmpdir="$DB_DIR/tmp" --user=root --skip-name-resolve \
    --innodb-log-file-size=8M --innodb-data-file-path=ibdata1:12M:autoextend \
    --innodb-buffer-pool-size=64M
}

# start_mariadb: a fresh database per start (job ids restart at 1 with the
# fresh controller state, so stale accounting records must not exist).
start_mariadb() {
  local -a args
  read -r -a args <<<"$(db_args)"
  mkdir -p "$DB_DIR/tmp"
  # Seen once in 30 starts with five clusters starting at the same moment
  # (make -j5 check): mariadb-install-db failed.  Its errors are logged and
  # it is tried again on an empty data directory, up to 3 times.
  local try log=$LOG_DIR/mariadb-install.log
  for try in 1 2 3; do
    mariadb-install-db "${args[@]}" --skip-test-db \
      --auth-root-authentication-method=socket >"$log" 2>&1 && break
    echo "start.sh: mariadb-install-db failed (try $try of 3):" \
      "$(grep -iE 'error|fail|abort' "$log" | head -n 5)" >&2
    if [ "$try" = 3 ]; then
      dump_logs "$log"
      die "mariadb-install-db failed"
    fi
    cp "$log" "$log.$try"
    rm -rf "$DB_DIR/data"
    sleep 1
  done
  start_daemon mariadbd "$LOG_DIR/mariadbd.log" mariadbd "${args[@]}" \
    --socket="$DB_SOCKET" --port="$(db_port "$PORT_BASE")" \
    --bind-address=127.0.0.1 --pid-file="$RUN_DIR/mariadbd.pid" \
    --skip-log-bin --innodb-flush-log-at-trx-commit=0
  wait_until "$STEP_TIMEOUT_S" "MariaDB" mariadbd \
    mariadb-admin --no-defaults -S "$DB_SOCKET" -u root ping
  DB_PASS=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
  mariadb --no-defaults -S "$DB_SOCKET" -u root -e "
    CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
}

start_slurmdbd() {
  write_dbd_conf
  # slurmdbd finds slurmdbd.conf next to $SLURM_CONF.
  start_daemon slurmdbd "$LOG_DIR/slurmdbd.out" slurmdbd -D
  wait_until "$STEP_TIMEOUT_S" "slurmdbd" slurmdbd sacctmgr -n -P list cluster
}

# register_cluster: must exist before slurmctld registers with slurmdbd.
register_cluster() {
  sacctmgr -i add cluster "$CLUSTER_NAME" >>"$LOG_DIR/sacctmgr.log" 2>&1 ||
    { dump_logs "$LOG_DIR/sacctmgr.log" "$LOG_DIR/slurmdbd.log"; die "sacctmgr add cluster failed"; }
}

# register_accounts: account omru; root and the sudo caller as its users, with
# omru as their default account.  It must be done before slurmctld starts:
# slurmctld loads the associations at start and registers with slurmdbd
# only after reading slurm.conf, and slurmdbd pushes later changes only to
# a registered slurmctld, so a user added in between is never known to it
# (doc/slurm-facts.md section 13; CI saw "Invalid account" for such a user).
register_accounts() {
  local users=root
  if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    users+=",$SUDO_USER"
  fi
  [ -z "$EXTRA_USERS" ] || users+=",$EXTRA_USERS"
  {
    sacctmgr -i add account "$ACCOUNT" Cluster="$CLUSTER_NAME" \
      Description="slurm-omru tests" Organization=omru &&
      sacctmgr -i add user "$users" Account="$ACCOUNT" DefaultAccount="$ACCOUNT" &&
      # root exists already (account root); "add user" leaves its default.
      sacctmgr -i modify user where name="$users" set DefaultAccount="$ACCOUNT"
  } >>"$LOG_DIR/sacctmgr.log" 2>&1
}

start_slurmctld() {
  start_daemon slurmctld "$LOG_DIR/slurmctld.out" slurmctld -D -f "$SLURM_CONF_FILE"
}

# start_slurmds: one slurmd per node.  Namespace nodes are entered with
# nsenter --net, which (unlike `ip netns exec`) leaves /sys alone.
start_slurmds() {
  SLURMD_NAMES=()
  local i
  for ((i = 1; i <= NODES; i++)); do
    SLURMD_NAMES+=("slurmd-n$i")
    start_daemon "slurmd-n$i" "$LOG_DIR/slurmd-n$i.out" \
      slurmd -D -N "n$i" -f "$SLURM_CONF_FILE" ${STEPD:+-d "$STEPD"}
  done
  for ((i = 1; i <= NETNS; i++)); do
    SLURMD_NAMES+=("slurmd-ns$i")
    start_daemon "slurmd-ns$i" "$LOG_DIR/slurmd-ns$i.out" \
      nsenter --net="/run/netns/$(net_ns "$PORT_BASE" "$i")" \
      slurmd -D -N "ns$i" -f "$SLURM_CONF_FILE" ${STEPD:+-d "$STEPD"}
  done
}

# all_nodes_idle: every node reports exactly "idle".  A node that can never
# get there (invalid config, drained) ends the wait at once.
all_nodes_idle() {
  local states
  # A node in several partitions is listed once per partition.
  states=$(sinfo -h -N -o '%N %T' 2>/dev/null | sort -u) || return 1
  if grep -qE ' (inval|drain|drained|draining|fail)' <<<"$states"; then
    NODE_PROBLEM=$states
    return 0
  fi
  [ "$(grep -c ' idle$' <<<"$states")" -eq $((NODES + NETNS)) ]
}

wait_nodes_idle() {
  NODE_PROBLEM=""
  local deadline=$((SECONDS + READY_TIMEOUT_S))
  until all_nodes_idle; do
    local d
    for d in slurmctld "${SLURMD_NAMES[@]}"; do
      daemon_alive "$d" || { dump_daemon_logs "$d"; die "$d exited"; }
    done
    if [ $SECONDS -ge $deadline ]; then
      sinfo -N >&2 || true
      dump_daemon_logs slurmctld "${SLURMD_NAMES[@]}"
      die "nodes not idle after ${READY_TIMEOUT_S}s"
    fi
    sleep 0.1
  done
  if [ -n "$NODE_PROBLEM" ]; then
    echo "$NODE_PROBLEM" >&2
    sinfo -R >&2 || true
    dump_daemon_logs slurmctld "${SLURMD_NAMES[@]}"
    die "a node failed to register"
  fi
}

# on_exit: a start that did not reach "ready" stops whatever it started, so
# no half cluster is left running; the logs stay for post-mortem.
on_exit() {
  local rc=$?
  [ "${READY:-0}" = 1 ] && return 0
  [ -n "${STATE:-}" ] && [ -d "${PIDS_DIR:-/nonexistent}" ] || return 0
  echo "start.sh: start failed (rc=$rc); stopping what was started; logs in $LOG_DIR" >&2
  "$HERE/stop.sh" --state "$STATE" >&2 || true
}

# check_ports_free: another cluster on the same port base (two test files
# given one offset, or a second start.sh) makes slurmctld or slurmdbd fail to
# bind, which shows only as a start that times out.  Say it plainly instead.
check_ports_free() {
  command -v ss >/dev/null || return 0
  local port
  for port in "$(ctld_port "$PORT_BASE")" "$(dbd_port "$PORT_BASE")"; do
    [ -z "$(ss -Htln "sport = :$port" 2>/dev/null)" ] ||
      die "port $port (--port-base=$PORT_BASE) is in use: another cluster on this port base? Each cluster needs its own --port-base"
  done
}

main() {
  T0=$EPOCHREALTIME
  parse_args "$@"
  validate_args
  find_plugin_dirs
  trap on_exit EXIT
  # A CI timeout's signal must also run on_exit, which bash only does on exit.
  trap 'exit 130' INT TERM HUP
  prepare_state_dir
  check_ports_free

  CTLD_ADDR=127.0.0.1
  if [ "$NETNS" -gt 0 ]; then
    net_create "$PORT_BASE" "$NETNS" || die "creating network namespaces failed"
    CTLD_ADDR=$(net_bridge_addr "$PORT_BASE")
  fi
  make_gpu_devices
  write_plugstack "$PLUGSTACK_SRC"
  write_omru_conf "$OMRU_CONF_SRC"
  write_gres_conf
  write_slurm_conf
  write_env_sh
  export SLURM_CONF=$SLURM_CONF_FILE

  progress "configs written in $STATE"

  start_munge
  progress "munged up"
  start_mariadb
  progress "MariaDB up"
  start_slurmdbd
  progress "slurmdbd up"
  register_cluster
  progress "cluster registered"
  register_accounts ||
    { dump_logs "$LOG_DIR/sacctmgr.log" "$LOG_DIR/slurmdbd.log"; die "sacctmgr (accounts, users) failed"; }
  progress "accounts registered"
  start_slurmctld
  start_slurmds
  wait_nodes_idle
  progress "all nodes idle"
  READY=1

  echo "cluster ready in $(elapsed_s) s: $((NODES + NETNS)) nodes idle," \
    "SelectType=$SELECT_TYPE, state in $STATE"
  echo "use it with: source $ENV_FILE"
}

main "$@"
