#!/usr/bin/env bash
# slurm-phase.sh - the seed's experiment for phase-aware reallocation on the
# real local cluster: two elastic training jobs (real omru-train on CPU,
# one process per GPU) on one node of 4 GPUs, the second submitted DELAY
# seconds after the first started (the seed's 200 s, time-scaled), run
# twice in this one invocation:
#   phase-aware  PhaseAware=yes: once the older job's loss falls at less
#                than PhaseThreshold (0.5) of its first rate, the plan may
#                shrink it so the newcomer starts beside it
#   off          PhaseAware=no: the newcomer waits for the GPUs
# Reports the total time (first start to last end), the older job's time
# (start to end) and the newcomer's (submit to end), the resizes and their
# measured costs (stop request to training again: to the start + resume).  The plan's profile (2 GPUs nearly as fast as 4) is what
# 4 CPU processes on this 2-core machine do; on a larger machine edit it.
# Reports, never asserts.  Needs root and a build with libtorch.
#
# usage: tests/bench/slurm-phase.sh [BUILD_DIR]
# env:   OMRU_BENCH_DELAY (20 s), OMRU_BENCH_EPOCHS ("60 30": older, newer),
#        OMRU_BENCH_PORT_BASE (17760)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
delay=${OMRU_BENCH_DELAY:-20}
read -r e_old e_new <<<"${OMRU_BENCH_EPOCHS:-60 30}"
port=${OMRU_BENCH_PORT_BASE:-17760}
[ "$(id -u)" = 0 ] || { echo "slurm-phase: needs root (starts Slurm daemons)" >&2; exit 2; }
train=$build/trainer/omru-train
[ -x "$train" ] || { echo "slurm-phase: no $train (build with libtorch first)" >&2; exit 2; }
work=$(mktemp -d /tmp/omru-slurm-phase.XXXXXX)
chmod 755 "$work"
state=$work/c
trap '"$top/scripts/cluster/stop.sh" --state "$state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
printf 'model,gpus,epoch_s,nodes\nptiny,1,2.0,\nptiny,2,1.1,\nptiny,3,1.05,\nptiny,4,1.0,\n' \
  >"$work/profiles.csv"
echo "required $build/spank/.libs/spank_omru.so run_dir=$work/run report_interval=2" >"$work/plugstack.conf"
"$build/trainer/omru-cifar-synth" --out "$work/data" --train 12288 --test 256 --seed 5 >/dev/null
mkdir -p "$work/out"
chmod 777 "$work/out"
cat >"$work/train.sh" <<EOF
#!/usr/bin/env bash
exec srun -n "\$OMRU_GPUS" --cpus-per-task=1 "$train" --data "$work/data" --model tiny \
  --threads 1 --loader-workers 1 --batch-size 16 --lr 0.05 --reference-batch 16 \
  --warmup-epochs 0 --checkpoint "$work/out/\$SLURM_JOB_ID.ckpt"
EOF
chmod 755 "$work/train.sh"

secs() { date -d "$1" +%s; }

# run NAME PHASE_AWARE: sets TOTAL, OLD_S, NEW_S, RESIZES, COSTS, FAILED.
run() {
  local name=$1 aware=$2 old new
  rm -rf "$state" "$work"/out/*   # job ids start at 1 again: no old checkpoint
  mkdir -p "$state"
  printf '%s\n' Objective=makespan "ProfileFile=$work/profiles.csv" CpusPerGpu=1 \
    RestartOverhead=12 CorrectionMargin=10 LogPlans=yes "PhaseAware=$aware" >"$work/omru.conf"
  "$top/scripts/cluster/start.sh" --state "$state" --select-type select/omru_cons_tres \
    --plugin-dir "$build/select_plugin/.libs" --plugstack "$work/plugstack.conf" \
    --omru-conf "$work/omru.conf" --nodes 1 --gpus-per-node 4 --port-base "$port" >/dev/null
  # shellcheck disable=SC1091
  . "$state/env.sh"
  local opts=(--parsable --gpus=1 -n1 -t 30 --omru-model=ptiny --omru-gpus=1-4
              --omru-profile=off --omru-elastic --open-mode=append -o "$work/out/%j.out")
  old=$(sbatch "${opts[@]}" -J older --omru-epochs="$e_old" "$work/train.sh" | cut -d';' -f1)
  while [ "$(squeue -h -j "$old" -o %T)" != RUNNING ]; do sleep 0.2; done
  sleep "$delay"
  new=$(sbatch "${opts[@]}" -J newer --omru-epochs="$e_new" "$work/train.sh" | cut -d';' -f1)
  while squeue -h -j "$old,$new" 2>/dev/null | grep -q .; do sleep 1; done
  for _ in $(seq 20); do
    [ "$(sacct -n -X -j "$old,$new" -o State | grep -cE 'PENDING|RUNNING|COMPLETING')" = 0 ] && break
    sleep 0.5
  done
  local o_start o_end n_submit n_end
  o_start=$(secs "$(sacct -n -X -D -P -j "$old" -o Start | head -n1)")
  o_end=$(secs "$(sacct -n -X -P -j "$old" -o End)")
  n_submit=$(secs "$(sacct -n -X -P -j "$new" -o Submit)")
  n_end=$(secs "$(sacct -n -X -P -j "$new" -o End)")
  TOTAL=$(( (o_end > n_end ? o_end : n_end) - o_start ))
  OLD_S=$((o_end - o_start)) NEW_S=$((n_end - n_submit))
  FAILED=$(sacct -n -X -P -j "$old,$new" -o State | grep -vc COMPLETED || true)
  RESIZES=$(sed -n 's/.*JobId=\([0-9]*\) resized by the plan from \([0-9]*\) to \([0-9]*\) GPUs.*/\1:\2>\3/p' \
    "$OMRU_CLUSTER_CTLD_LOG" | tr '\n' ' ')
  # Stop request to training again (to the start, to the resume).
  COSTS=$(sed -n 's/.*trains again after its resize \([0-9]*\) -> \([0-9]*\) GPUs: restart cost \([0-9]*\) s (\([0-9]*\) s to its start, \([0-9]*\) s to resume).*/\1>\2:\3s(\4+\5)/p' \
    "$OMRU_CLUSTER_CTLD_LOG" | tr '\n' ' ')
  sacct -X -D -j "$old,$new" -o JobName%8,State%10,AllocTRES%36,Start,End >"$work/$name.sacct"
  sed 's/^/#   /' "$work/$name.sacct"
  "$top/scripts/cluster/stop.sh" --state "$state" >/dev/null
}

echo "# two elastic jobs ($e_old and $e_new epochs, real omru-train), 1 node x 4 GPUs, second $delay s after the first started"
run phase-aware yes
a_total=$TOTAL a_old=$OLD_S a_new=$NEW_S a_res=$RESIZES a_cost=$COSTS a_failed=$FAILED
echo "phase-aware: total ${a_total} s, older ${a_old} s, newer ${a_new} s; resizes: ${a_res:-none}; costs: ${a_cost:-none}; not completed: $a_failed"
run off no
echo "off:         total ${TOTAL} s, older ${OLD_S} s, newer ${NEW_S} s; resizes: ${RESIZES:-none}; not completed: $FAILED"
awk -v a="$a_total" -v b="$TOTAL" -v c="$a_old" -v d="$OLD_S" -v e="$a_new" -v f="$NEW_S" 'BEGIN {
  printf "phase-aware / off: total %.3f, older job %.3f, newer job %.3f\n", a / b, c / d, e / f }'
