#!/usr/bin/env bash
# slurm-limits.sh - the real-Slurm benchmark of select/omru under the limits
# real sites set: one mixed batch of GPU training jobs on the local 4x4
# cluster (16 CPUs and 16,000 MB per node), submitted one after another as
# users do (OMRU_BENCH_GAP seconds apart, no hold; slurm-makespan.sh's
# "stream"), run in this one invocation under
#   backfill  select/cons_tres + sched/backfill, each job at the --gpus its
#             user picked
#   omru      select/omru_cons_tres with the settings a site gets
#             (Objective=jct, ReferenceBound=yes; OMRU_BENCH_OBJECTIVE=
#             makespan for the OMRU paper's), the same sbatch lines,
#             moldable jobs adding --omru-gpus=1-4
# The batch (tests/bench/limits_idle.py mix) is drawn from OMRU_BENCH_SEED:
# N jobs (24: shares scale with N) of the T4 models, each's work on one GPU
# log-uniform in 4,500..18,000 profiled s, its user's --gpus 1, 2 or 4, its
# time limit 2.5 x its runtime at that count + 30 s (whole minutes):
#   res   5  root, --reservation=rn: a reservation on n4 for root alone
#   qos   5  nobody (sbatch --uid), --qos=capped: MaxTRESPerUser=gres/gpu=4
#   mem   3  --mem=9000 (two cannot share a 16,000 MB node)
#   cpu   3  --cpus-per-gpu=8 (16-CPU nodes), --gpus 1 or 2
#   cons  2  --constraint='fa|fb' (n1 has fa, n2 fb; n3, n4 neither)
#   lic   2  -L lic:1 (Licenses=lic:1: one runs at a time)
#   excl  1  --exclusive, --gpus 2 or 4
#   plain    the rest, moldable (--omru-gpus=1-4 under select/omru)
# A quarter of the mem, cpu, cons, lic and plain jobs are nobody's too (all
# of nobody's jobs run under QOS capped); half of the res, qos, mem, cpu,
# cons and lic jobs are moldable; excl is rigid.  Non-reservation jobs
# cannot use n4 (Slurm keeps reserved nodes for the reservation's jobs).
# AccountingStorageEnforce=limits.  Jobs run demo/omru-job-emulator (sleeps
# epochs x epoch_s of the time-scaled profile row for the GPUs and nodes
# Slurm allocated; slurm-bench-lib.sh).
#
# Reported per scheduler: makespan (first submission to the last end), mean
# JCT (end - submit), GPU utilisation (allocated GPU-s / 16 / makespan),
# idle GPU-seconds while a pending job could have started (below), jobs
# killed at their time limit and jobs not COMPLETED (both must be 0), for
# select/omru the "planned start ... refused by cons_tres" lines in
# slurmctld.log, how many (job, nodes) were refused twice, and the plugin's
# error lines; omru-sim's prediction of each run (the same jobs, counts,
# real submission times and limits: node lists, CPUs, memory, --exclusive,
# nobody's GPU limit and the license, as omru-sim's site limits) and
# real / predicted;
# and omru / backfill for makespan (goal <= 0.85) and idle GPU-seconds
# (goal <= 1); per job (paired by name), JCT under select/omru / JCT under
# backfill: the share of jobs more than 5% later, p99 and the worst, for
# all jobs and per user (issue 43's goals: <= 5%, <= 1.10, <= 1.5).
# Reports, never asserts.  Needs root and a build.
#
# Idle GPU-seconds while a pending job could have started (idle_wait_gpu_s;
# tests/bench/limits_idle.py replay): from sacct (submit, start, end, GPUs)
# and each job's per-node GPUs, CPUs and memory (`scontrol -d show job`,
# polled each second while it runs; sacct's AllocTRES split evenly over its
# nodes where the poll missed it).  Between two consecutive events (a
# submission, start or end; 1 s resolution) from the first submission to
# the last end the cluster is in one state: running jobs hold what they
# held; pending jobs are those submitted and not yet started.  The pending
# jobs are started on paper, in submission order, each at the largest GPU
# count it may have that the resources still free can take -- backfill:
# its --gpus; select/omru: its --gpus, or for a moldable job any count of
# 1-4 whose packed runtime x 1.25 (CorrectionMargin) fits its time limit,
# as the plan allows -- honouring the nodes it may use (reservation jobs n4
# only, others n1-n3, 'fa|fb' n1-n2), each node's free GPUs, CPUs
# (--cpus-per-gpu, else 1 per GPU under select/omru's CpusPerGpu=1, 1 per
# node under cons_tres) and memory (--mem per node, else 1,000 MB per CPU),
# --exclusive (only a node running nothing), nobody's QOS cap of 4 GPUs
# (nobody's running jobs and those already started on paper) and the one
# license (held by a running job or one started on paper).  The GPUs so
# started are free GPUs a waiting job could have used: their number x the
# interval's length, summed over intervals, is idle_wait_gpu_s.  It
# includes each scheduler's reaction time (a job submitted onto free GPUs
# counts until it starts).  idle_any_gpu_s is a looser bound: every free
# GPU of a node on which at least one pending job could have started on its
# own, x the interval.  idle_gain_gpu_s is idle_wait_gpu_s with only the
# starts the job would have gained by: a count whose packed runtime from
# the interval's start ends the job before it really ended (a moldable job
# the plan kept waiting for more GPUs, and that ended sooner for it, is not
# counted; a rigid job that waited always is).
#
# Results (the table, then '#' lines: the jobs that waited longest while they
# could have started, refusals, jobs a deadline cancelled) go to stdout and
# OUT/summary.txt, one row per scheduler to OUT/results.tsv; OUT also keeps
# the mix, each run's sacct, polled allocations, pending reasons, replay,
# omru-sim workloads and slurmctld.log (gzip).
#
# usage: tests/bench/slurm-limits.sh [--help] [BUILD_DIR]
# env:   OMRU_BENCH_SEED (1), OMRU_BENCH_JOBS (24, at least 15),
#        OMRU_BENCH_SCALE (0.01 wall s per profiled s), OMRU_BENCH_GAP (2 s),
#        OMRU_BENCH_PORT_BASE (18000: the tests' offsets 0-750 and 800 from
#        17100 stay free), OMRU_BENCH_TIMEOUT (600 s per run from the first
#        submission; jobs still queued then are cancelled and listed),
#        OMRU_BENCH_OUT (/tmp/omru-slurm-limits.DATE), OMRU_BENCH_SPREAD_COST
#        (1.3), OMRU_BENCH_CTLD_DEBUG (debug: SlurmctldDebug; debug3 logs
#        each pending job's reason every scheduling pass)
# One run takes ~10 minutes (two clusters, ~4-5 minutes of jobs each; 571 s
# on a 2-core machine).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
case ${1:-} in
  -h | --help) sed -n '2,/^set -euo/{/^set -euo/d; s/^# \{0,1\}//; p}' "$0"; exit 0 ;;
  -*) echo "slurm-limits.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac
build=${1:-$top/build}
seed=${OMRU_BENCH_SEED:-1}
njobs=${OMRU_BENCH_JOBS:-24}
scale=${OMRU_BENCH_SCALE:-0.01}
gap=${OMRU_BENCH_GAP:-2}
port=${OMRU_BENCH_PORT_BASE:-18000}
timeout=${OMRU_BENCH_TIMEOUT:-600}
ctld_debug=${OMRU_BENCH_CTLD_DEBUG:-debug}
out=${OMRU_BENCH_OUT:-/tmp/omru-slurm-limits.$(date +%Y%m%d-%H%M%S)}
helper=$top/tests/bench/limits_idle.py
id nobody >/dev/null 2>&1 || { echo "slurm-limits.sh: no user nobody to submit as" >&2; exit 2; }
bench_start=$(date +%s)
# shellcheck source=tests/bench/slurm-bench-lib.sh
. "$top/tests/bench/slurm-bench-lib.sh"
export OMRU_BENCH_OBJECTIVE=${OMRU_BENCH_OBJECTIVE:-jct}
bench_setup slurm-limits "$build" "$scale" LogPlans=yes
mkdir -p "$out"
python3 "$helper" mix --seed "$seed" --jobs "$njobs" --scale "$scale" \
  --profiles "$work/profiles.csv" >"$out/mix.csv"
# DebugFlags=Backfill: sched/backfill's reservations in slurmctld.log, so
# that a job's wait under backfill can be read against the reference's
# (seed 2's worst job, 2026-12-02, had to be inferred without them).
printf '%s\n' AccountingStorageEnforce=limits Licenses=lic:1 DebugFlags=Backfill >"$work/extra.conf"

# site_limits: what the site set up besides slurm.conf: QOS capped for
# nobody, node features, the reservation; waits until slurmctld knows the
# QOS (slurmdbd tells it a moment later).
site_limits() {
  sacctmgr -i add qos capped MaxTRESPerUser=gres/gpu=4 >/dev/null
  sacctmgr -i modify user nobody set qos+=capped >/dev/null
  scontrol update NodeName=n1 AvailableFeatures=fa ActiveFeatures=fa
  scontrol update NodeName=n2 AvailableFeatures=fb ActiveFeatures=fb
  scontrol create reservation ReservationName=rn Users=root Nodes=n4 \
    StartTime=now Duration=120 >/dev/null
  local _
  for _ in $(seq 60); do
    sbatch --test-only --uid=nobody --qos=capped -o /dev/null --chdir=/tmp \
      --gpus=1 --wrap true >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "slurm-limits.sh: slurmctld does not know QOS capped" >&2
  return 1
}

# poll FILE_ALLOC FILE_PENDING: while $work/polling exists, each second
# appends the `scontrol -d -o show job` line of every job seen running for
# the first time (its per-node CPUs, memory, GPUs) and squeue's pending jobs
# with their reasons (time-stamped).
poll() {
  local -A seen=()
  local line id
  while [ -e "$work/polling" ]; do
    while IFS= read -r line; do
      id=${line%% *}
      [ -z "${seen[$id]:-}" ] || continue
      seen[$id]=1
      printf '%s\n' "$line" >>"$1"
    done < <(scontrol -d -o show job 2>/dev/null | grep 'JobState=RUNNING' || true)
    squeue -h -t PD -o "$(date +%s) %i %j %r" >>"$2" 2>/dev/null || true
    sleep 1
  done
}

# run_sched NAME SELECT_TYPE: start a cluster, set up the limits, submit
# the mix one job every $gap s (NAME omru: moldable jobs add --omru-gpus),
# wait (at most $timeout s from the first submission); sets MAKESPAN,
# FAILED, STUCK, REFUSED, REFUSED_TWICE, PLUGIN_ERRORS and writes OUT/NAME.*.
run_sched() {
  local name=$1 select=$2 ids=() id t0 args poller
  bench_cluster_up "$select" --extra-conf "$work/extra.conf" --users nobody \
    --ctld-debug "$ctld_debug"
  site_limits
  sdiag -r >/dev/null
  : >"$out/$name.alloc"
  : >"$out/$name.pending"
  touch "$work/polling"
  poll "$out/$name.alloc" "$out/$name.pending" &
  poller=$!
  t0=$(date +%s.%N)
  local jname user model epochs gpus gmin gmax moldable limit mem cpg excl lic \
    constraint reservation qos _
  # mix.csv: name,user,cls,model,epochs,gpus,gmin,gmax,moldable,cmin_ok,
  # limit_min,mem,cpg,excl,lic,constraint,reservation,qos,runtime_s
  while IFS=, read -r jname user _ model epochs gpus gmin gmax moldable _ limit \
    mem cpg excl lic constraint reservation qos _; do
    [ "$jname" = name ] && continue
    args=(--parsable -o /dev/null --chdir=/tmp -J "$jname" -t "$limit"
      --omru-model="$model" --omru-epochs="$epochs" --gpus="$gpus")
    [ "$user" = root ] || args+=(--uid="$user")
    [ -z "$qos" ] || args+=(--qos="$qos")
    [ "$mem" = 0 ] || args+=(--mem="$mem")
    [ "$cpg" = 0 ] || args+=(--cpus-per-gpu="$cpg")
    [ "$excl" = 0 ] || args+=(--exclusive)
    [ "$lic" = 0 ] || args+=(-L lic:1)
    [ -z "$constraint" ] || args+=(--constraint="$constraint")
    [ -z "$reservation" ] || args+=(--reservation="$reservation")
    if [ "$name" = omru ] && [ "$moldable" = 1 ]; then
      args+=(--omru-gpus="$gmin-$gmax")
    fi
    id=$(sbatch "${args[@]}" "$top/demo/omru-job-emulator" | cut -d';' -f1)
    ids+=("$id")
    sleep "$gap"
  done <"$out/mix.csv"
  local list; list=$(IFS=,; echo "${ids[*]}")
  wait_ended "$list" "$t0" "$(awk -v t="$t0" -v d="$timeout" 'BEGIN { printf "%d", t + d }')"
  rm -f "$work/polling"
  wait "$poller" || true
  SLURM_TIME_FORMAT=%s sacct -X -P -n -j "$list" \
    -o JobID,JobName,Submit,Start,End,State,AllocTRES,NodeList >"$out/$name.sacct"
  local log=$OMRU_CLUSTER_CTLD_LOG
  REFUSED=$(grep -c 'refused by cons_tres' "$log" || true)
  REFUSED_TWICE=$({ grep -o 'JobId=[0-9]*: planned start on [^ ]* refused' "$log" || true; } |
    sort | uniq -d | wc -l)
  PLUGIN_ERRORS=$(grep -c 'error: select/omru' "$log" || true)
  grep -E 'refused by cons_tres|error: select/omru' "$log" | head -n 40 >"$out/$name.refusals" || true
  gzip -c "$log" >"$out/$name-slurmctld.log.gz"
  "$top/scripts/cluster/stop.sh" --state "$state" >/dev/null
}

# replay NAME KIND: limits_idle.py's replay of run NAME into OUT/NAME.replay.
replay() {
  python3 "$helper" replay --mix "$out/mix.csv" --sacct "$out/$1.sacct" \
    --alloc "$out/$1.alloc" --sched "$2" --profiles "$work/profiles.csv" >"$out/$1.replay"
}
# val NAME KEY: a value of OUT/NAME.replay.
val() { sed -n "s/^$2=//p" "$out/$1.replay"; }

# predict NAME POLICY [ARGS]: omru-sim's makespan of run NAME's jobs,
# submission times and the site's limits (limits_idle.py workload).
predict() {
  local name=$1 policy=$2 kind=omru
  shift 2
  [ "$policy" = omru ] || kind=backfill
  python3 "$helper" workload --mix "$out/mix.csv" --sacct "$out/$name.sacct" \
    --sched "$kind" >"$out/$name.sim.csv"
  # shellcheck disable=SC2046 # the site's options, one word each
  bench_sim 4x4 "$policy" "$out/$name.sim.csv" $(python3 "$helper" sim-args) "$@" |
    python3 -c 'import json, sys; print("%.0f" % json.load(sys.stdin)["makespan_s"])'
}

echo "# slurm-limits: $njobs jobs (seed $seed) on 4x4, select/omru vs cons_tres+backfill" \
  "at the users' --gpus, one job every $gap s, time scale $scale; results in $out"
awk -F, 'NR > 1 { n[$3]++; if ($2 == "nobody") u++; if ($9 == 1) m++ }
  END { printf "# mix:"; for (c in n) printf " %s=%d", c, n[c]
        printf "; jobs of nobody %d, moldable %d\n", u, m }' "$out/mix.csv"
declare -A MS SIM FAIL STK REF REF2 PERR
for run in omru backfill; do
  if [ "$run" = omru ]; then select=select/omru_cons_tres; else select=select/cons_tres; fi
  run_sched "$run" "$select"
  MS[$run]=$MAKESPAN FAIL[$run]=$FAILED STK[$run]=$STUCK
  REF[$run]=$REFUSED REF2[$run]=$REFUSED_TWICE PERR[$run]=$PLUGIN_ERRORS
  replay "$run" "$run"
  if [ "$run" = omru ]; then
    SIM[$run]=$(predict omru omru --no-resize)
  else
    SIM[$run]=$(predict backfill backfill)
    REF[$run]=- REF2[$run]=- PERR[$run]=-
  fi
done

{
  fmt='%-9s %10s %6s %8s %10s %6s %15s %15s %14s %8s %8s %8s %8s %8s\n'
  # shellcheck disable=SC2059
  printf "$fmt" sched makespan_s sim_s real/sim jct_mean_s util idle_wait_gpu_s \
    idle_gain_gpu_s idle_any_gpu_s timeout failed refused ref_twice errors
  for run in backfill omru; do
    # shellcheck disable=SC2059
    printf "$fmt" "$run" "${MS[$run]}${STK[$run]:+*}" "${SIM[$run]}" \
      "$(awk -v a="${MS[$run]}" -v b="${SIM[$run]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
      "$(val "$run" jct_mean_s)" "$(val "$run" util)" "$(val "$run" idle_wait_gpu_s)" \
      "$(val "$run" idle_gain_gpu_s)" "$(val "$run" idle_any_gpu_s)" "$(val "$run" timeout)" "${FAIL[$run]}" \
      "${REF[$run]}" "${REF2[$run]}" "${PERR[$run]}"
  done
  awk -v mo="${MS[omru]}" -v mb="${MS[backfill]}" -v io="$(val omru idle_wait_gpu_s)" \
      -v ib="$(val backfill idle_wait_gpu_s)" -v jo="$(val omru jct_mean_s)" \
      -v jb="$(val backfill jct_mean_s)" -v go="$(val omru idle_gain_gpu_s)" \
      -v gb="$(val backfill idle_gain_gpu_s)" '
    function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : (a > 0 ? "inf" : "-") }
    BEGIN {
    printf "omru / backfill: makespan %.3f (goal <= 0.85), idle_wait_gpu_s %s (goal <= 1), idle_gain_gpu_s %s, mean JCT %.3f\n",
      mo / mb, ratio(io, ib), ratio(go, gb), jo / jb }'
  # Per job: JCT (end - submit) under select/omru / under backfill.
  python3 - "$out/mix.csv" "$out/backfill.sacct" "$out/omru.sacct" <<'PY'
import csv, sys
users = {r["name"]: r["user"] for r in csv.DictReader(open(sys.argv[1]))}
def jct(path):
    out = {}
    for line in open(path):
        f = line.rstrip("\n").split("|")
        try:
            out[f[1]] = float(f[4]) - float(f[2])
        except (ValueError, IndexError):
            pass
    return out
b, o = jct(sys.argv[2]), jct(sys.argv[3])
pairs = sorted((o[n] / b[n], n) for n in b if n in o and b[n] > 0)
def line(label, rs):
    if not rs:
        return
    r = sorted(x for x, _ in rs)
    p99 = r[min(len(r) - 1, int(0.99 * len(r)))]
    worst = max(rs)
    print("per job, %s: %d of %d later by > 5%% (%.1f%%), p99 %.3f, worst %.3f (%s)" % (
        label, sum(x > 1.05 for x in r), len(r), 100.0 * sum(x > 1.05 for x in r) / len(r),
        p99, worst[0], worst[1]))
line("all", pairs)
for u in sorted(set(users.values())):
    line("user " + u, [p for p in pairs if users.get(p[1]) == u])
PY
  for run in backfill omru; do
    echo "# $run: jobs that waited longest while they could have started:"
    grep '^#' "$out/$run.replay" | sed 's/^#/#  /' || true
    if [ -n "${STK[$run]}" ]; then
      echo "# $run (*): still queued at the deadline, cancelled (id name state reason):"
      while IFS= read -r line; do echo "#   $line"; done <<<"${STK[$run]}"
    fi
  done
  if [ "${REF[omru]}" != 0 ]; then
    echo "# omru: first refusals / plugin errors in slurmctld.log:"
    cut -c1-220 "$out/omru.refusals" | head -n 8 | sed 's/^/#   /'
  fi
  echo "# bench wall time $(($(date +%s) - bench_start)) s"
} | tee "$out/summary.txt"

{
  printf 'sched\tseed\tjobs\tmakespan_s\tsim_s\tjct_mean_s\tutil\tidle_wait_gpu_s\tidle_gain_gpu_s\tidle_any_gpu_s\ttimeout\tnot_completed\trefused\trefused_twice\tplugin_errors\tstuck\n'
  for run in backfill omru; do
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$seed" "$njobs" \
      "${MS[$run]}" "${SIM[$run]}" "$(val "$run" jct_mean_s)" "$(val "$run" util)" \
      "$(val "$run" idle_wait_gpu_s)" "$(val "$run" idle_gain_gpu_s)" "$(val "$run" idle_any_gpu_s)" "$(val "$run" timeout)" \
      "${FAIL[$run]}" "${REF[$run]}" "${REF2[$run]}" "${PERR[$run]}" \
      "$(grep -c . <<<"${STK[$run]}" || true)"
  done
} >"$out/results.tsv"
