#!/usr/bin/env bash
# slurm-makespan.sh - the real-Slurm benchmark of select/omru: one batch of
# training jobs (default data/workloads/omru-batch-16-1.csv, T4 profiles,
# time-scaled so a run takes minutes) on the local 4x4 cluster, run under
#   omru      select/omru_cons_tres, each job --omru-gpus=MIN-MAX (the plan
#             picks the count), Objective=makespan
#   baseline  select/cons_tres + sched/backfill, each job a fixed --gpus=G
#             a user would pick (G=4, one whole node: of 1, 2 and 4 GPUs it
#             is the best for backfill in omru-sim on this batch)
# and submitted two ways, each in this one invocation:
#   held      every job submitted held, then all released at once
#   stream    one job after another, OMRU_BENCH_GAP seconds apart, no hold,
#             as users submit (the plan sees the queue grow)
# Jobs run demo/omru-job-emulator (sleeps epochs x epoch_s of the profile
# row for the GPUs and nodes Slurm really allocated; every span has a row,
# multi-node spans priced OMRU_BENCH_SPREAD_COST per extra node where the
# T4 data has none: slurm-bench-lib.sh profiles_with_spreads).  Reports
# per mode the makespan ratio omru/baseline, the real makespans against
# omru-sim's predictions for the same submissions (policy omru --no-resize,
# the controller's mode; backfill at the fixed count) and both schedulers'
# cycle times from sdiag.  Reports, never asserts.  Needs root.
#
# usage: tests/bench/slurm-makespan.sh [BUILD_DIR] [WORKLOAD]
# env:   OMRU_BENCH_SCALE (0.01 wall s per profiled s), OMRU_BENCH_GPUS (4),
#        OMRU_BENCH_PORT_BASE (17500), OMRU_BENCH_MODES ("held stream"),
#        OMRU_BENCH_GAP (2 s), OMRU_BENCH_SPREAD_COST (1.3)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
workload=${2:-$top/data/workloads/omru-batch-16-1.csv}
scale=${OMRU_BENCH_SCALE:-0.01}
fixed=${OMRU_BENCH_GPUS:-4}
port=${OMRU_BENCH_PORT_BASE:-17500}
modes=${OMRU_BENCH_MODES:-held stream}
gap=${OMRU_BENCH_GAP:-2}
# shellcheck source=tests/bench/slurm-bench-lib.sh
. "$top/tests/bench/slurm-bench-lib.sh"
bench_setup slurm-makespan "$build" "$scale"

# run_batch NAME SELECT_TYPE MODE: start a cluster, submit the batch
# (MODE held: held, then released at once; stream: one job every $gap s),
# wait; sets MAKESPAN (first submission or release to the last end),
# FAILED, SDIAG_MAIN_US, SDIAG_BF_US, PLAN_COST.
run_batch() {
  local name=$1 select=$2 mode=$3 ids=() id t0 hold=()
  mkdir -p "$state"
  "$top/scripts/cluster/start.sh" --state "$state" --select-type "$select" \
    --plugin-dir "$work/plugins" --plugstack "$work/plugstack.conf" \
    --omru-conf "$work/omru.conf" --port-base "$port" >/dev/null
  # shellcheck disable=SC1091
  . "$state/env.sh"
  [ "$mode" = held ] && hold=(--hold)
  sdiag -r >/dev/null
  t0=$(date +%s.%N)
  while IFS=, read -r job submit model epochs gpus gmin gmax; do
    [ "$job" = job_id ] && continue
    if [ "$name" = omru ]; then
      opts=(--omru-gpus="$gmin-$gmax")
    else
      opts=(--gpus="$fixed")
    fi
    id=$(sbatch --parsable "${hold[@]}" -o /dev/null -J "$job" -t 600 \
      --omru-model="$model" --omru-epochs="$epochs" "${opts[@]}" \
      "$top/demo/omru-job-emulator" | cut -d';' -f1)
    ids+=("$id")
    [ "$mode" = stream ] && sleep "$gap"
  done <"$workload"
  local list; list=$(IFS=,; echo "${ids[*]}")
  if [ "$mode" = held ]; then
    release_and_wait "$list"
  else
    wait_ended "$list" "$t0"
  fi
  SDIAG_MAIN_US=$(sdiag_field "Main schedule statistics" "Mean cycle")
  SDIAG_BF_US=$(sdiag_field "Backfilling stats" "Mean cycle")
  PLAN_COST=$(grep -o 'planner cost so far: .*\|plan: plans=.*' "$OMRU_CLUSTER_CTLD_LOG" | tail -n1 || true)
  REFUSED=$(grep -c 'refused by cons_tres' "$OMRU_CLUSTER_CTLD_LOG" || true)
  sacct -X -j "$list" -o JobName%16,AllocTRES%40,NNodes,Start,End >"$work/$name-$mode.sacct"
  "$top/scripts/cluster/stop.sh" --state "$state" >/dev/null
}

# predict POLICY WORKLOAD [ARGS]: omru-sim's makespan, seconds.
predict() {
  "$build/sim/omru-sim" --cluster 4x4 --profiles "$work/profiles.csv" \
    --workload "$2" --policy "$1" "${@:3}" --json |
    python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["makespan_s"])'
}

n=$(grep -vc '^job_id' "$workload")
echo "# $(basename "$workload"): $n jobs on 4x4 (select/omru vs cons_tres+backfill at --gpus=$fixed), time scale $scale, modes: $modes"
awk -F, -v g="$fixed" 'BEGIN { OFS = "," } NR == 1 { print; next } { $5 = g; print }' \
  "$workload" >"$work/fixed.csv"
cp "$workload" "$work/asked.csv"
# The stream as omru-sim sees it: job i submitted at i x gap.
for w in asked fixed; do
  awk -F, -v d="$gap" 'BEGIN { OFS = "," } NR == 1 { print; next } { $2 = (NR - 2) * d; print }' \
    "$work/$w.csv" >"$work/$w.csv.stream"
done
printf '%-16s %10s %10s %8s %8s %14s %14s\n' run makespan_s sim_s failed refused main_cycle_us bf_cycle_us
for mode in $modes; do
  suffix=""; [ "$mode" = stream ] && suffix=.stream
  run_batch omru select/omru_cons_tres "$mode"
  omru_ms=$MAKESPAN; omru_main=$SDIAG_MAIN_US; omru_bf=$SDIAG_BF_US
  p_omru=$(predict omru "$work/asked.csv$suffix" --no-resize)
  printf '%-16s %10s %10s %8s %8s %14s %14s\n' "omru-$mode" "$omru_ms" "$p_omru" "$FAILED" \
    "$REFUSED" "${omru_main:-?}" "${omru_bf:-?}"
  echo "# planner in slurmctld: ${PLAN_COST:-?}"
  run_batch baseline select/cons_tres "$mode"
  base_ms=$MAKESPAN
  p_base=$(predict backfill "$work/fixed.csv$suffix")
  printf '%-16s %10s %10s %8s %8s %14s %14s\n' "baseline-$mode" "$base_ms" "$p_base" "$FAILED" \
    - "${SDIAG_MAIN_US:-?}" "${SDIAG_BF_US:-?}"
  awk -v m="$mode" -v o="$omru_ms" -v b="$base_ms" -v p="$p_omru" -v q="$p_base" \
      -v om="${omru_main:-0}" -v bm="${SDIAG_MAIN_US:-0}" 'BEGIN {
    printf "%s: makespan omru / baseline %.3f (goal <= 0.8); omru real / predicted %.3f, baseline %.3f (goal within 10%%)", m, o / b, o / p, b / q
    if (bm > 0) printf "; main cycle omru / baseline %.2f", om / bm
    printf "\n" }'
done
echo "# omru jobs (sacct):"; for mode in $modes; do sed "s/^/#   $mode /" "$work/omru-$mode.sacct"; done
