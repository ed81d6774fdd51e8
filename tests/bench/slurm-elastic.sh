#!/usr/bin/env bash
# slurm-elastic.sh - the real-Slurm benchmark of elastic jobs (GPU reuse):
# one batch whose plan has a tail of idle GPUs, run three times in this one
# invocation on the local 4x4 cluster:
#   reuse     select/omru_cons_tres, Elastic=yes, jobs --omru-elastic: the
#             plan grows running jobs into idle GPUs (stop, requeue, resume)
#   no-reuse  the same with Elastic=no: counts are chosen at start only
#   baseline  select/cons_tres + sched/backfill at the fixed --gpus=G of
#             1, 2 and 4 that omru-sim's backfill finds best for the batch
# The batch (default): 8 short single-GPU BERT jobs (0.3 epochs) and 4
# long ImageNet jobs (1 epoch, --omru-gpus=1-4 --omru-elastic), all at
# once on T4 profiles: the long jobs start narrow next to the short ones,
# and when those end their nodes have idle GPUs - the case GPU reuse is
# for.  Without reuse the plan can only choose at the start (narrow now,
# or wide after the short jobs).  select/omru grows jobs on one node only
# (omru-sim --grow-on-one-node), so the batch keeps the long jobs on one
# node each.
# Jobs run demo/omru-job-emulator as a step (srun), which checkpoints its
# progress and exits 85 on SIGUSR1 like omru-train.  Reports makespans and
# their ratios, every measured restart cost (stop request to start again)
# and omru-sim's prediction at the measured mean cost.  Reports, never
# asserts.  Needs root.
#
# usage: tests/bench/slurm-elastic.sh [BUILD_DIR] [WORKLOAD]
# env:   OMRU_BENCH_SCALE (0.05 wall s per profiled s), OMRU_BENCH_PORT_BASE (17700)
# A resize costs ~12 s here (mostly Slurm's requeue delay, cred_expire 10 s
# + 1 s): the scale keeps that a realistic fraction of a job.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
scale=${OMRU_BENCH_SCALE:-0.05}
port=${OMRU_BENCH_PORT_BASE:-17700}
# shellcheck source=tests/bench/slurm-bench-lib.sh
. "$top/tests/bench/slurm-bench-lib.sh"
# Until a resize is measured the plan prices one at 12 s (the test
# cluster's requeue delay is cred_expire 10 s + 1 s).
bench_setup slurm-elastic "$build" "$scale" RestartOverhead=12 LogPlans=yes
workload=${2:-$work/short-and-long.csv}
if [ -z "${2:-}" ]; then
  {
    echo "job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max"
    for i in $(seq 1 8); do printf 'short-%02d,0,t4-bert,0.3,1,1,1\n' "$i"; done
    for i in $(seq 1 4); do printf 'long-%d,0,t4-imagenet,1.0,1,1,4\n' "$i"; done
  } >"$workload"
fi
export OMRU_EMU_STATE_DIR=$work/emu
mkdir -p "$OMRU_EMU_STATE_DIR"
chmod 777 "$OMRU_EMU_STATE_DIR"
cat >"$work/job.sh" <<EOF
#!/usr/bin/env bash
exec srun -n1 "$top/demo/omru-job-emulator"
EOF
chmod 755 "$work/job.sh"

sim_makespan() { # PROFILES RESTART_S [ARGS...]
  local p=$1 r=$2; shift 2
  "$build/sim/omru-sim" --cluster 4x4 --profiles "$p" --workload "$workload" \
    --restart-overhead "$r" --json "$@" |
    python3 -c 'import json,sys; print(round(json.load(sys.stdin)["makespan_s"], 1))'
}

# The baseline's count for the moldable jobs: the best fixed --gpus for
# backfill in omru-sim (rigid jobs keep theirs).
fixed=1 best=
for g in 1 2 4; do
  awk -F, -v g="$g" 'BEGIN { OFS = "," } NR > 1 && $6 < $7 { $5 = $6 = $7 = g } { print }' \
    "$workload" >"$work/fixed-$g.csv"
  ms=$("$build/sim/omru-sim" --cluster 4x4 --profiles "$work/profiles.csv" \
    --workload "$work/fixed-$g.csv" --policy backfill --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_s"])')
  if [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN { exit !(a < b) }'; then
    best=$ms fixed=$g
  fi
done

# run_batch NAME SELECT_TYPE ELASTIC: start a cluster, submit the batch
# held, release it, wait; sets MAKESPAN, FAILED, RESIZES, COSTS.
run_batch() {
  local name=$1 select=$2 elastic=$3 ids=() id
  rm -rf "$state" "$OMRU_EMU_STATE_DIR"/*
  mkdir -p "$state"
  sed -i '/^Elastic=/d' "$work/omru.conf"
  echo "Elastic=$elastic" >>"$work/omru.conf"
  "$top/scripts/cluster/start.sh" --state "$state" --select-type "$select" \
    --plugin-dir "$work/plugins" --plugstack "$work/plugstack.conf" \
    --omru-conf "$work/omru.conf" --port-base "$port" >/dev/null
  # shellcheck disable=SC1091
  . "$state/env.sh"
  while IFS=, read -r job submit model epochs gpus gmin gmax _; do
    [ "$job" = job_id ] && continue
    if [ "$gmin" = "$gmax" ]; then
      opts=(--gpus="$gpus")
    elif [ "$name" = baseline ]; then
      opts=(--gpus="$fixed")
    else
      opts=(--gpus="$gmin" --omru-gpus="$gmin-$gmax" --omru-elastic)
    fi
    id=$(sbatch --parsable --hold -n1 -o /dev/null -J "$job" -t 600 \
      --omru-model="$model" --omru-epochs="$epochs" --omru-profile=off "${opts[@]}" \
      "$work/job.sh" | cut -d';' -f1)
    ids+=("$id")
  done <"$workload"
  local list; list=$(IFS=,; echo "${ids[*]}")
  release_and_wait "$list"
  RESIZES=$(grep -c 'resized by the plan' "$OMRU_CLUSTER_CTLD_LOG" || true)
  COSTS=$(sed -n 's/.*resumed after a resize \([0-9]*\) -> \([0-9]*\) GPUs: restart cost \([0-9]*\) s.*/\1>\2:\3/p' \
    "$OMRU_CLUSTER_CTLD_LOG" | tr '\n' ' ')
  sacct -X -D -j "$list" -o JobName%10,State%10,AllocTRES%40,Start,End >"$work/$name.sacct"
  "$top/scripts/cluster/stop.sh" --state "$state" >/dev/null
}

n=$(grep -vc '^job_id' "$workload")
echo "# $(basename "$workload"): $n jobs on 4x4, time scale $scale (wall s per profiled s)"
run_batch reuse select/omru_cons_tres yes
reuse_ms=$MAKESPAN reuse_failed=$FAILED reuse_n=$RESIZES reuse_costs=$COSTS
run_batch no-reuse select/omru_cons_tres no
off_ms=$MAKESPAN off_failed=$FAILED
run_batch baseline select/cons_tres no
base_ms=$MAKESPAN base_failed=$FAILED

mean_cost=$(awk '{ for (i = 1; i <= NF; i++) { split($i, a, ":"); s += a[2]; n++ } }
  END { printf "%.1f", n ? s / n : 0 }' <<<"$reuse_costs")
sim_on=$(sim_makespan "$work/profiles.csv" "$mean_cost" --policy omru --grow-on-one-node)
sim_off=$(sim_makespan "$work/profiles.csv" "$mean_cost" --policy omru --no-resize)
printf '%-10s %10s %8s %s\n' run makespan_s failed note
printf '%-10s %10s %8s %s\n' reuse "$reuse_ms" "$reuse_failed" "$reuse_n resizes; restart costs (from>to:s): ${reuse_costs:-none}"
printf '%-10s %10s %8s %s\n' no-reuse "$off_ms" "$off_failed" "Elastic=no"
printf '%-10s %10s %8s %s\n' baseline "$base_ms" "$base_failed" "select/cons_tres + backfill, moldable jobs at --gpus=$fixed"
awk -v r="$reuse_ms" -v o="$off_ms" -v b="$base_ms" -v so="$sim_on" -v sf="$sim_off" -v c="$mean_cost" 'BEGIN {
  printf "reuse / no-reuse: %.3f (goal <= 0.95); reuse / baseline: %.3f; no-reuse / baseline: %.3f\n", r / o, r / b, o / b
  printf "omru-sim at the measured mean restart cost %s s: reuse %.0f s, no-reuse %.0f s (%.3f); real / predicted: reuse %.3f, no-reuse %.3f\n",
    c, so, sf, so / sf, r / so, o / sf }'
