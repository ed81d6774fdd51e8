# slurm-bench-lib.sh - what the real-Slurm benches (slurm-makespan.sh,
# slurm-burst.sh, slurm-elastic.sh) share: sourced, never run.
#
# profiles_with_spreads IN OUT COST: IN with a row for every span of every
# count on the 4x4 cluster that IN lacks: the nearest narrower span's time
# (the packed one at least) x COST per extra node.  The planner, omru-sim
# and the job emulator then all price a spread the same, measured way (a
# cluster's multi-node runs are slower than packed ones: ~1.3 x seen).
profiles_with_spreads() {
  python3 - "$1" "$2" "$3" <<'PY'
import csv, math, sys
src, dst, cost = sys.argv[1], sys.argv[2], float(sys.argv[3])
gpn, nodes = 4, 4
have = {}
with open(src) as f:
    lines = [l for l in f if not l.startswith('#')]
for r in csv.DictReader(lines):
    g = int(r['gpus'])
    k = int(r['nodes']) if r.get('nodes') else math.ceil(g / gpn)
    have[(r['model'], g, k)] = float(r['epoch_s'])
rows = [(m, g, e, k) for (m, g, k), e in have.items()]
for m in sorted({m for m, _, _ in have}):
    for g in sorted({g for mm, g, _ in have if mm == m}):
        kmin = math.ceil(g / gpn)
        known = [j for j in range(kmin, min(g, nodes) + 1) if (m, g, j) in have]
        if not known:
            continue
        for k in range(kmin + 1, min(g, nodes) + 1):
            if (m, g, k) in have:
                continue
            below = [j for j in known if j < k]
            base = max(below) if below else min(known)
            rows.append((m, g, have[(m, g, base)] * cost ** max(0, k - base), k))
with open(dst, 'w') as f:
    f.write('model,gpus,epoch_s,nodes\n')
    for m, g, e, k in sorted(rows):
        f.write('%s,%d,%.6f,%d\n' % (m, g, e, k))
PY
}

# bench_setup NAME BUILD SCALE [OMRU_CONF_LINE...]: checks for root and a
# built plugin, makes $work (removed at exit, with the cluster in $state
# stopped), writes $work/profiles.csv (the T4 profiles time-scaled by
# SCALE wall seconds per profiled second, every span priced:
# profiles_with_spreads, OMRU_BENCH_SPREAD_COST), $work/plugstack.conf and
# $work/omru.conf (Objective=$OMRU_BENCH_OBJECTIVE, makespan unless set,
# those profiles, CpusPerGpu=1, then the extra lines), and points the job
# emulator at the profiles.
bench_setup() {
  local name=$1 build=$2 scale=$3
  shift 3
  [ "$(id -u)" = 0 ] || { echo "$name: needs root (starts Slurm daemons)" >&2; exit 2; }
  [ -f "$build/select_plugin/.libs/select_omru_cons_tres.so" ] ||
    { echo "$name: build $build first" >&2; exit 2; }
  work=$(mktemp -d "/tmp/omru-$name.XXXXXX")
  chmod 755 "$work" # munged needs a world-searchable socket path
  state=$work/c
  trap '"$top/scripts/cluster/stop.sh" --state "$state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  awk -F, -v s="$scale" 'BEGIN { OFS = "," } NR == 1 || /^#/ { print; next }
    { $3 = sprintf("%.6f", $3 * s); print }' "$top/data/profiles-t4.csv" >"$work/profiles.t4.csv"
  profiles_with_spreads "$work/profiles.t4.csv" "$work/profiles.csv" \
    "${OMRU_BENCH_SPREAD_COST:-1.3}"
  # The plugins from a copy, as tests/integration/lib.sh takes them: a
  # `make` while a bench runs relinks the build tree's .so files under its
  # daemons (a limits bench died so, sacct left with End=Unknown).
  mkdir -p "$work/plugins"
  cp "$build"/select_plugin/.libs/*.so "$build/spank/.libs/spank_omru.so" "$work/plugins/"
  chmod 755 "$work/plugins"
  chmod 644 "$work/plugins"/*.so
  echo "required $work/plugins/spank_omru.so run_dir=$work/run" >"$work/plugstack.conf"
  printf '%s\n' "Objective=${OMRU_BENCH_OBJECTIVE:-makespan}" "ProfileFile=$work/profiles.csv" \
    CpusPerGpu=1 "$@" \
    >"$work/omru.conf"
  export OMRU_EMU_PROFILES=$work/profiles.csv OMRU_EMU_TIME_SCALE=1 \
    OMRU_EMU_SPREAD_COST=${OMRU_BENCH_SPREAD_COST:-1.3}
}

# release_and_wait LIST: makes the held jobs of LIST (comma-separated ids)
# free to start at one moment, waits until they ended and sacct has them
# all; sets MAKESPAN (that moment to the last End, seconds) and FAILED
# (jobs not COMPLETED).  `scontrol release` alone sends one request per
# job, and a plan that falls between two of them sees a stream, not a
# batch (ArrivalGuard; limits.test, 2026-12-02): each job gets one begin
# time a few seconds ahead while still held, and a job waiting for its
# begin time is outside the plan until it comes.
release_and_wait() {
  local at start id
  at=$(( $(date +%s) + 3 + $(tr -cd , <<<"$1" | wc -c) / 10 ))
  start=$(date -d "@$at" +%Y-%m-%dT%H:%M:%S)
  for id in ${1//,/ }; do
    scontrol update JobId="$id" StartTime="$start"
  done
  scontrol release "$1"
  [ "$(date +%s)" -lt "$at" ] ||
    echo "release_and_wait: released after their begin time: maybe not one batch" >&2
  wait_ended "$1" "$at"
}

# wait_ended LIST T0 [DEADLINE]: waits until the jobs of LIST ended and
# sacct has them all; sets MAKESPAN (T0, seconds since the epoch, to the
# last End) and FAILED (jobs not COMPLETED).  With DEADLINE (seconds since
# the epoch) the jobs still queued then are cancelled and listed in STUCK
# (squeue's id, name, state, reason per line; empty when none was).
wait_ended() {
  local list=$1 t0=$2 deadline=${3:-} last
  STUCK=""
  while squeue -h -j "$list" 2>/dev/null | grep -q .; do
    if [ -n "$deadline" ] && [ -z "$STUCK" ] && [ "$(date +%s)" -ge "$deadline" ]; then
      STUCK=$(squeue -h -j "$list" -o '%i %j %T %r')
      # shellcheck disable=SC2086 # one argument per job id
      scancel ${list//,/ } || true
    fi
    sleep 1
  done
  for _ in $(seq 20); do
    [ "$(sacct -n -X -j "$list" -o State | grep -cE 'PENDING|RUNNING|COMPLETING')" = 0 ] && break
    sleep 0.5
  done
  last=$(sacct -n -X -P -j "$list" -o End | xargs -I{} date -d {} +%s | sort -n | tail -n1)
  MAKESPAN=$(awk -v a="$t0" -v b="$last" 'BEGIN { printf "%.0f", b - a }')
  FAILED=$(sacct -n -X -P -j "$list" -o State | grep -vc COMPLETED || true)
}

# sdiag_field SECTION FIELD [SDIAG_OUTPUT]: FIELD ("Mean cycle", "Max cycle",
# "Total cycles") of sdiag's SECTION ("Main schedule statistics",
# "Backfilling stats"), from the output given or a fresh sdiag.
sdiag_field() {
  local out=${3-$(sdiag)}
  awk -v s="^$1" -v f="$2:" '$0 ~ s { in_s = 1 }
    in_s && index($0, f) { print $NF; exit }' <<<"$out"
}

# bench_cluster_up SELECT_TYPE [START_ARGS...]: starts the bench's cluster
# in $state (port base $port, job ids from it as lib.sh's cluster_up picks
# them, the plugins copied from $build, $work's plugstack.conf and omru.conf, then
# START_ARGS for start.sh) and sources its env.sh.
bench_cluster_up() {
  local select=$1
  shift
  mkdir -p "$state"
  "$top/scripts/cluster/start.sh" --state "$state" --select-type "$select" \
    --plugin-dir "$work/plugins" --plugstack "$work/plugstack.conf" \
    --omru-conf "$work/omru.conf" --port-base "$port" \
    --first-job-id $((port % 10000 * 10 + 1)) "$@" >/dev/null
  # shellcheck disable=SC1091
  . "$state/env.sh"
}

# bench_sim CLUSTER POLICY WORKLOAD [ARGS...]: omru-sim's summary (one JSON
# object) of WORKLOAD on CLUSTER (NxG) with $work/profiles.csv.
bench_sim() {
  "$build/sim/omru-sim" --cluster "$1" --profiles "$work/profiles.csv" \
    --workload "$3" --policy "$2" "${@:4}" --json
}
