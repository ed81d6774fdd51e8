#!/usr/bin/env bash
# slurm-burst.sh - what planning costs slurmctld's own loops under a
# submission burst: OMRU_BURST_JOBS GPU jobs (2,000 by default; 20,000 is
# the large case) submitted at once (4 sbatch in parallel) to the local 4x4
# cluster, the same sbatch lines under each select type in this one
# invocation:
#   omru      select/omru_cons_tres
#   baseline  select/cons_tres + sched/backfill (the --omru-* options are
#             accepted by spank_omru and ignored: the users' own --gpus)
# The jobs, a fixed sequence: two users (root and nobody, 1 in 4),
# two partitions (gpu: n1-n4, half: n3-n4, 1 in 3), --gpus 1, 2, 4 or 8;
# 3 in 4 OMRU jobs (--omru-gpus=1-G, a T4 model, 1-3 epochs on time-scaled
# T4 profiles: demo/omru-job-emulator), 1 in 4 plain (sleep).
# Reports, for each run, sdiag's main and backfill cycle means and maxima
# over the burst and the window after it, cycles, jobs started per minute,
# jobs lost (submitted but unknown to sacct) or started twice, and for omru
# the planner's and the snapshot's cost; then the ratios omru / baseline
# (goals: main mean <= 1.2, backfill mean <= 1.0).  Reports, never asserts.
# Needs root and a user nobody.
#
# usage: tests/bench/slurm-burst.sh [BUILD_DIR]
# env:   OMRU_BURST_JOBS (2000), OMRU_BURST_WINDOW_S (60: after the burst),
#        OMRU_BURST_RUNS ("omru baseline": which runs, in order),
#        OMRU_BURST_SCHED_PARAMS (SchedulerParameters items for the omru
#        run, e.g. bf_min_prio_reserve=4294967295 to measure a build from
#        before the plan ordered the queue), OMRU_BENCH_SCALE (0.001 wall s
#        per profiled s), OMRU_BENCH_PORT_BASE (17600)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
jobs=${OMRU_BURST_JOBS:-2000}
window=${OMRU_BURST_WINDOW_S:-60}
runs=${OMRU_BURST_RUNS:-omru baseline}
scale=${OMRU_BENCH_SCALE:-0.001}
port=${OMRU_BENCH_PORT_BASE:-17600}
id nobody >/dev/null 2>&1 || { echo "slurm-burst.sh: no user nobody to submit as" >&2; exit 2; }
# shellcheck source=tests/bench/slurm-bench-lib.sh
. "$top/tests/bench/slurm-bench-lib.sh"
bench_setup slurm-burst "$build" "$scale" LogPlans=yes
models=($(awk -F, 'NR > 1 && !/^#/ { print $1 }' "$top/data/profiles-t4.csv" | sort -u))
# The plain jobs: a sleep.
printf '#!/bin/sh\nsleep "$1"\n' >"$work/plain.sh"
chmod 755 "$work/plain.sh"
# Room for the burst: Slurm keeps 10,000 jobs by default.
echo "MaxJobCount=$((jobs * 2 + 1000))" >"$work/extra.conf"

# job_line I: the sbatch options of job I (the same in every run).
job_line() {
  local i=$1 g part user
  g=$((1 << (i % 4)))
  part=gpu
  [ $((i % 3)) = 2 ] && part=half
  user=root
  [ $((i % 4)) = 3 ] && user=nobody
  if [ $((i % 4)) = 1 ]; then
    echo "$user -p $part --gpus=$g $work/plain.sh $((1 + i % 5))"
  else
    echo "$user -p $part --gpus=$g --omru-model=${models[$((i % ${#models[@]}))]} --omru-epochs=$((1 + i % 3)) --omru-gpus=1-$g $top/demo/omru-job-emulator"
  fi
}

# submit_all: the burst, 4 sbatch at once (a busy slurmctld may ask a
# client to retry: sbatch does, up to its own limit).
submit_all() {
  local i
  for ((i = 0; i < jobs; i++)); do job_line "$i"; done |
    xargs -P 4 -L 1 sh -c 'sbatch --parsable --uid="$0" --chdir=/tmp -o /dev/null \
      -J burst -t 60 "$@" >/dev/null || echo "sbatch failed: $0 $*"' 2>&1 |
    sort | uniq -c | head -n 5 >&2 || true
}

# burst NAME SELECT_TYPE: start a cluster, submit the burst, wait the
# window; sets R_* for the run.
burst() {
  local name=$1 select=$2 sched=()
  [ "$name" = omru ] && [ -n "${OMRU_BURST_SCHED_PARAMS:-}" ] &&
    sched=(--sched-params "$OMRU_BURST_SCHED_PARAMS")
  bench_cluster_up "$select" --partitions 'gpu:n[1-4];half:n[3-4]' --users nobody \
    --extra-conf "$work/extra.conf" "${sched[@]}"
  sdiag -r >/dev/null
  local t0 t1; t0=$(date +%s.%N)
  submit_all
  t1=$(date +%s.%N)
  R_SUBMIT=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
  sleep "$window"
  local sd; sd=$(sdiag)
  R_MAIN=$(sdiag_field "Main schedule statistics" "Mean cycle" "$sd")
  R_MAIN_MAX=$(sdiag_field "Main schedule statistics" "Max cycle" "$sd")
  R_MAIN_N=$(sdiag_field "Main schedule statistics" "Total cycles" "$sd")
  R_BF=$(sdiag_field "Backfilling stats" "Mean cycle" "$sd")
  R_BF_MAX=$(sdiag_field "Backfilling stats" "Max cycle" "$sd")
  R_BF_N=$(sdiag_field "Backfilling stats" "Total cycles" "$sd")
  local rows; rows=$(sacct -n -X -D -P -a -S now-3hours -o JobID,State,Start)
  R_KNOWN=$(cut -d'|' -f1 <<<"$rows" | sort -u | grep -c . || true)
  R_STARTED=$(awk -F'|' '$3 != "Unknown" && $3 != "None" { print $1 }' <<<"$rows" | sort -u | grep -c . || true)
  R_TWICE=$(awk -F'|' '$3 != "Unknown" && $3 != "None" { print $1 }' <<<"$rows" | sort | uniq -d | grep -c . || true)
  R_LOST=$((jobs - R_KNOWN))
  R_PER_MIN=$(awk -v n="$R_STARTED" -v s="$R_SUBMIT" -v w="$window" 'BEGIN { printf "%.0f", 60 * n / (s + w) }')
  # Every re-plan's line: the planner's own time (last_ms), with the
  # snapshot of jobs and nodes (replan_ms), and how it searched.
  R_PLAN=$(grep -o 'plan: plans=.*' "$OMRU_CLUSTER_CTLD_LOG" | awk '
    { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      n++; p += v["last_ms"]; r += v["replan_ms"]; s += v["snapshot_ms"]
      if (v["replan_ms"] > m) m = v["replan_ms"]; if (v["jobs"] > j) j = v["jobs"]; inc = v["incremental"] }
    END { if (n) printf "%d re-plans (%d incremental), up to %d jobs: planner %.2f ms, " \
      "with the snapshot %.2f ms (snapshot %.2f ms) on average, worst %.2f ms", \
      n, inc, j, p / n, r / n, s / n, m }' || true)
  scancel -u root 2>/dev/null || true
  scancel -u nobody 2>/dev/null || true
  "$top/scripts/cluster/stop.sh" --state "$state" >/dev/null
  rm -rf "$state"
}

echo "# $jobs jobs submitted at once to 4x4 (2 partitions, 2 users, --gpus 1-8, 3/4 OMRU), then $window s; time scale $scale"
printf '%-9s %9s %10s %10s %7s %9s %9s %7s %8s %8s %5s %6s\n' run submit_s main_us main_max main_n bf_us bf_max bf_n started per_min lost twice
declare -A MAIN BF
for run in $runs; do
  case $run in
    omru) burst omru select/omru_cons_tres ;;
    baseline) burst baseline select/cons_tres ;;
    *) echo "slurm-burst.sh: unknown run '$run'" >&2; exit 2 ;;
  esac
  MAIN[$run]=${R_MAIN:-0} BF[$run]=${R_BF:-0}
  printf '%-9s %9s %10s %10s %7s %9s %9s %7s %8s %8s %5s %6s\n' "$run" "$R_SUBMIT" \
    "${R_MAIN:-?}" "${R_MAIN_MAX:-?}" "${R_MAIN_N:-?}" "${R_BF:-?}" "${R_BF_MAX:-?}" \
    "${R_BF_N:-?}" "$R_STARTED" "$R_PER_MIN" "$R_LOST" "$R_TWICE"
  [ "$run" = omru ] && echo "planner in slurmctld: ${R_PLAN:-?}"
done
if [ -n "${MAIN[omru]:-}" ] && [ -n "${MAIN[baseline]:-}" ]; then
  awk -v om="${MAIN[omru]}" -v bm="${MAIN[baseline]}" -v ob="${BF[omru]}" -v bb="${BF[baseline]}" 'BEGIN {
    if (bm > 0) printf "main cycle omru / baseline:     %.2f (goal <= 1.2)\n", om / bm
    if (bb > 0) printf "backfill cycle omru / baseline: %.2f (goal <= 1.0)\n", ob / bb
  }'
fi
