#!/usr/bin/env bash
# slurm-makespan.sh - the real-Slurm benchmark of select/omru: one batch of
# training jobs (default data/workloads/omru-batch-16-1.csv, T4 profiles,
# time-scaled so a run takes minutes) on the local 4x4 cluster, run twice
# in this one invocation:
#   omru      select/omru_cons_tres, each job --omru-gpus=MIN-MAX (the plan
#             picks the count), Objective=makespan
#   baseline  select/cons_tres + sched/backfill, each job a fixed --gpus=G
#             a user would pick (G=4, one whole node: of 1, 2 and 4 GPUs it
#             is the best for backfill in omru-sim on this batch)
# Jobs run demo/omru-job-emulator (sleeps epochs x epoch_s of the profile
# row for the GPUs and nodes Slurm really allocated).  Reports the makespan
# ratio omru/baseline, the real omru makespan against omru-sim's prediction
# (policy omru --no-resize, the controller's mode) and both schedulers'
# cycle times from sdiag.  Reports, never asserts.  Needs root.
#
# usage: tests/bench/slurm-makespan.sh [BUILD_DIR] [WORKLOAD]
# env:   OMRU_BENCH_SCALE (0.01 wall s per profiled s), OMRU_BENCH_GPUS (4),
#        OMRU_BENCH_PORT_BASE (17500)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
workload=${2:-$top/data/workloads/omru-batch-16-1.csv}
scale=${OMRU_BENCH_SCALE:-0.01}
fixed=${OMRU_BENCH_GPUS:-4}
port=${OMRU_BENCH_PORT_BASE:-17500}
# shellcheck source=tests/bench/slurm-bench-lib.sh
. "$top/tests/bench/slurm-bench-lib.sh"
bench_setup slurm-makespan "$build" "$scale"

# run_batch NAME SELECT_TYPE: start a cluster, submit the batch held,
# release it, wait; sets MAKESPAN, SDIAG_MAIN_US, SDIAG_BF_US.
run_batch() {
  local name=$1 select=$2 ids=() line id
  mkdir -p "$state"
  "$top/scripts/cluster/start.sh" --state "$state" --select-type "$select" \
    --plugin-dir "$build/select_plugin/.libs" --plugstack "$work/plugstack.conf" \
    --omru-conf "$work/omru.conf" --port-base "$port" >/dev/null
  # shellcheck disable=SC1091
  . "$state/env.sh"
  while IFS=, read -r job submit model epochs gpus gmin gmax; do
    [ "$job" = job_id ] && continue
    if [ "$name" = omru ]; then
      opts=(--omru-gpus="$gmin-$gmax")
    else
      opts=(--gpus="$fixed")
    fi
    id=$(sbatch --parsable --hold -o /dev/null -J "$job" -t 600 \
      --omru-model="$model" --omru-epochs="$epochs" "${opts[@]}" \
      "$top/demo/omru-job-emulator" | cut -d';' -f1)
    ids+=("$id")
  done <"$workload"
  local list; list=$(IFS=,; echo "${ids[*]}")
  sdiag -r >/dev/null
  release_and_wait "$list"
  SDIAG_MAIN_US=$(sdiag_field "Main schedule statistics" "Mean cycle")
  SDIAG_BF_US=$(sdiag_field "Backfilling stats" "Mean cycle")
  PLAN_COST=$(grep -o 'planner cost so far: .*\|plan: plans=.*' "$OMRU_CLUSTER_CTLD_LOG" | tail -n1 || true)
  sacct -X -j "$list" -o JobName%16,AllocTRES%40,NNodes,Start,End >"$work/$name.sacct"
  "$top/scripts/cluster/stop.sh" --state "$state" >/dev/null
}

n=$(grep -vc '^job_id' "$workload")
echo "# $(basename "$workload"): $n jobs on 4x4 (select/omru vs cons_tres+backfill at --gpus=$fixed), time scale $scale"
run_batch omru select/omru_cons_tres
omru_ms=$MAKESPAN omru_failed=$FAILED omru_main=$SDIAG_MAIN_US omru_bf=$SDIAG_BF_US omru_plan=$PLAN_COST
run_batch baseline select/cons_tres
base_ms=$MAKESPAN base_failed=$FAILED base_main=$SDIAG_MAIN_US base_bf=$SDIAG_BF_US

predict=$("$build/sim/omru-sim" --cluster 4x4 --profiles "$work/profiles.csv" \
  --workload "$workload" --policy omru --no-resize --json |
  python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["makespan_s"])')
awk -F, -v g="$fixed" 'BEGIN { OFS = "," } NR == 1 { print; next } { $5 = g; print }' \
  "$workload" >"$work/fixed.csv"
predict_base=$("$build/sim/omru-sim" --cluster 4x4 --profiles "$work/profiles.csv" \
  --workload "$work/fixed.csv" --policy backfill --json |
  python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["makespan_s"])')

printf '%-10s %10s %10s %8s %14s %14s\n' run makespan_s sim_s failed main_cycle_us bf_cycle_us
printf '%-10s %10s %10s %8s %14s %14s\n' omru "$omru_ms" "$predict" "$omru_failed" "${omru_main:-?}" "${omru_bf:-?}"
printf '%-10s %10s %10s %8s %14s %14s\n' baseline "$base_ms" "$predict_base" "$base_failed" "${base_main:-?}" "${base_bf:-?}"
awk -v o="$omru_ms" -v b="$base_ms" -v p="$predict" -v om="${omru_main:-0}" -v bm="${base_main:-0}" \
    -v ob="${omru_bf:-0}" -v bb="${base_bf:-0}" 'BEGIN {
  printf "makespan omru / baseline:     %.3f (goal <= 0.8)\n", o / b
  printf "omru real / omru-sim predict: %.3f (goal within 10%%)\n", o / p
  if (bm > 0) printf "main cycle omru / baseline:   %.2f\n", om / bm
  if (bb > 0) printf "backfill cycle omru / base:   %.2f\n", ob / bb
}'
echo "planner in slurmctld: ${omru_plan:-?}"
echo "# omru jobs (sacct):"; sed 's/^/#   /' "$work/omru.sacct"
