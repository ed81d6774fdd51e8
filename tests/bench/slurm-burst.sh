#!/usr/bin/env bash
# slurm-burst.sh - what planning costs slurmctld under a submission burst:
# 2,000 GPU training jobs submitted at once (4 sbatch in parallel) to the
# local 4x4 cluster, run twice in this one invocation:
#   omru      select/omru_cons_tres, each job --omru-gpus=1-4 (moldable)
#   baseline  select/cons_tres + sched/backfill, each job --gpus=2
# Jobs run demo/omru-job-emulator on time-scaled T4 profiles (seconds per
# epoch), so jobs start and end during the window.  Reports, for each run,
# sdiag's main and backfill cycle times over the burst and the window
# after it, the submission time, and for omru the controller's own plan
# cost line (plans, mean/max ms, incremental re-plans); then the ratios
# omru / baseline (goal <= 1.2).  Reports, never asserts.  Needs root.
#
# usage: tests/bench/slurm-burst.sh [BUILD_DIR]
# env:   OMRU_BURST_JOBS (2000), OMRU_BURST_WINDOW_S (60: after the burst),
#        OMRU_BENCH_SCALE (0.001 wall s per profiled s),
#        OMRU_BENCH_PORT_BASE (17600)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
jobs=${OMRU_BURST_JOBS:-2000}
window=${OMRU_BURST_WINDOW_S:-60}
scale=${OMRU_BENCH_SCALE:-0.001}
port=${OMRU_BENCH_PORT_BASE:-17600}
# shellcheck source=tests/bench/slurm-bench-lib.sh
. "$top/tests/bench/slurm-bench-lib.sh"
bench_setup slurm-burst "$build" "$scale" LogPlans=yes
models=($(awk -F, 'NR > 1 && !/^#/ { print $1 }' "$top/data/profiles-t4.csv" | sort -u))

# One job's sbatch line, the same sequence in both runs.
job_args() { # job_args I -> model and epochs of job I
  local i=$1
  echo "${models[$((i % ${#models[@]}))]} $((1 + i % 3))"
}

# burst NAME SELECT_TYPE: start a cluster, submit the burst, wait the
# window; sets SUBMIT_S, MAIN_MEAN, MAIN_MAX, MAIN_CYCLES, BF_MEAN, PLAN.
burst() {
  local name=$1 select=$2
  mkdir -p "$state"
  "$top/scripts/cluster/start.sh" --state "$state" --select-type "$select" \
    --plugin-dir "$build/select_plugin/.libs" --plugstack "$work/plugstack.conf" \
    --omru-conf "$work/omru.conf" --port-base "$port" >/dev/null
  # shellcheck disable=SC1091
  . "$state/env.sh"
  local opts
  if [ "$name" = omru ]; then opts=--omru-gpus=1-4; else opts=--gpus=2; fi
  sdiag -r >/dev/null
  local t0; t0=$(date +%s.%N)
  seq 0 $((jobs - 1)) | while read -r i; do echo "$i $(job_args "$i")"; done |
    xargs -P 4 -n 3 sh -c 'sbatch --parsable -o /dev/null -J "b$0" -t 60 \
      --omru-model="$1" --omru-epochs="$2" '"$opts"' "'"$top"'/demo/omru-job-emulator" >/dev/null'
  SUBMIT_S=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  sleep "$window"
  local sd; sd=$(sdiag)
  MAIN_MEAN=$(sdiag_field "Main schedule statistics" "Mean cycle" "$sd")
  MAIN_MAX=$(sdiag_field "Main schedule statistics" "Max cycle" "$sd")
  MAIN_CYCLES=$(sdiag_field "Main schedule statistics" "Total cycles" "$sd")
  BF_MEAN=$(sdiag_field "Backfilling stats" "Mean cycle" "$sd")
  STARTED=$(sacct -n -X -S now-1hours -o State | grep -cE 'RUNNING|COMPLETED' || true)
  # Every re-plan's line: the planner's own time (last_ms), with the
  # snapshot of jobs and nodes (replan_ms), and how it searched.
  PLAN=$(grep -o 'plan: plans=.*' "$OMRU_CLUSTER_CTLD_LOG" | awk '
    { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      n++; p += v["last_ms"]; r += v["replan_ms"]; s += v["snapshot_ms"]
      if (v["replan_ms"] > m) m = v["replan_ms"]; jobs = v["jobs"]; inc = v["incremental"] }
    END { if (n) printf "%d re-plans (%d incremental), up to %d jobs: planner %.2f ms, " \
      "with the snapshot %.2f ms (snapshot %.2f ms) on average, worst %.2f ms", \
      n, inc, jobs, p / n, r / n, s / n, m }' || true)
  scancel -u "$(id -un)" 2>/dev/null || true
  "$top/scripts/cluster/stop.sh" --state "$state" >/dev/null
}

echo "# $jobs jobs submitted at once to 4x4, then $window s; time scale $scale"
burst omru select/omru_cons_tres
o_sub=$SUBMIT_S o_main=$MAIN_MEAN o_max=$MAIN_MAX o_cyc=$MAIN_CYCLES o_bf=$BF_MEAN o_started=$STARTED o_plan=$PLAN
burst baseline select/cons_tres
b_sub=$SUBMIT_S b_main=$MAIN_MEAN b_max=$MAIN_MAX b_cyc=$MAIN_CYCLES b_bf=$BF_MEAN b_started=$STARTED

printf '%-9s %9s %13s %12s %11s %11s %8s\n' run submit_s main_mean_us main_max_us main_cycles bf_mean_us started
printf '%-9s %9s %13s %12s %11s %11s %8s\n' omru "$o_sub" "${o_main:-?}" "${o_max:-?}" "${o_cyc:-?}" "${o_bf:-?}" "$o_started"
printf '%-9s %9s %13s %12s %11s %11s %8s\n' baseline "$b_sub" "${b_main:-?}" "${b_max:-?}" "${b_cyc:-?}" "${b_bf:-?}" "$b_started"
awk -v om="${o_main:-0}" -v bm="${b_main:-0}" -v ob="${o_bf:-0}" -v bb="${b_bf:-0}" \
    -v os="$o_sub" -v bs="$b_sub" 'BEGIN {
  if (bm > 0) printf "main cycle omru / baseline:     %.2f (goal <= 1.2)\n", om / bm
  if (bb > 0) printf "backfill cycle omru / baseline: %.2f (goal <= 1.2)\n", ob / bb
  printf "submission omru / baseline:     %.2f\n", os / bs
}'
echo "planner in slurmctld: ${o_plan:-?}"
