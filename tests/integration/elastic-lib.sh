# elastic-lib.sh - what the elastic-*.test files share (sourced after
# lib.sh): a one-node, 4-GPU cluster whose planner profile makes 4 GPUs pay,
# a synthetic CIFAR set, and a batch script running real omru-train on CPU,
# one process per GPU of the allocation.  Each file starts its own cluster
# (own port base), so they run side by side.
#
# A blocker job holds the other 3 GPUs until the elastic job has trained
# two epochs (release_blocker_after): the resize then comes at the same
# point of training on a fast machine and on a busy one, and 38 epochs
# remain after it, so the set is small (6,144 images).

[ "$(id -u)" = 0 ] || bail "integration tests start Slurm daemons and need root"
TRAIN=$OMRU_BUILDDIR/trainer/omru-train
[ -x "$TRAIN" ] || bail "no omru-train (built without libtorch?)"

# elastic_cluster_up PORT_OFFSET: starts the cluster at OMRU_TEST_PORT_BASE
# + PORT_OFFSET; sets WORK (its $WORK/train.sh is the batch script), OUT and
# elastic_opts.
elastic_cluster_up() {
  WORK=$(mktemp -d /tmp/omru-elastic.XXXXXX)
  chmod 755 "$WORK"
  cat >"$WORK/profiles.csv" <<'CSV'
model,gpus,epoch_s,nodes
etiny,1,2.0,
etiny,2,1.05,
etiny,3,0.72,
etiny,4,0.55,
CSV
  cat >"$WORK/omru.conf" <<CONF
ProfileFile=$WORK/profiles.csv
PlanIntervalMin=0.5
PlanIntervalMax=5
CpusPerGpu=1
LogPlans=yes
RestartOverhead=5
ElasticGrace=20
# The CPU runs are faster than the profile says; the profile is the plan's
# view here, so its curve is not corrected from them.
CorrectionMargin=10
CONF
  "$OMRU_BUILDDIR/trainer/omru-cifar-synth" --out "$WORK/data" --train 6144 --test 256 \
    --seed 3 >/dev/null || bail "omru-cifar-synth failed"

  OMRU_TEST_PORT_BASE=$(( ${OMRU_TEST_PORT_BASE:-17100} + $1 ))
  cluster_up --omru-conf "$WORK/omru.conf" --nodes 1 --gpus-per-node 4
  trap 'cluster_down; rm -rf "$WORK"' EXIT
  OUT=$CLUSTER_DIR/out
  mkdir -p "$OUT"
  chmod 755 "$OUT"

  # One process per GPU of the allocation; `exec` hands the tasks' exit
  # status (85 after a stop request) back to Slurm.
  cat >"$WORK/train.sh" <<SH
#!/usr/bin/env bash
exec srun -n "\$OMRU_GPUS" --cpus-per-task=1 "$TRAIN" --data "$WORK/data" --model tiny \
  --threads 1 --loader-workers 1 --batch-size 16 --lr 0.05 --reference-batch 16 \
  --warmup-epochs 0 --checkpoint "$OUT/\$SLURM_JOB_ID.ckpt" --metrics "$OUT/\$SLURM_JOB_ID.m"
SH
  chmod 755 "$WORK/train.sh"
  # --open-mode=append: a requeued job's output would otherwise start over.
  elastic_opts=(--gpus=1 -n1 -t 10 --omru-model=etiny --omru-epochs=40 --omru-gpus=1-4
                --omru-profile=off --open-mode=append)
}

# start_blocker: a job on the 3 GPUs an elastic job may grow into, running
# when this returns, until release_blocker_after (at most 5 minutes); sets
# BLOCKER.
start_blocker() {
  BLOCKER=$(submit --gpus=3 -t 5 -o /dev/null \
    --wrap "while [ ! -e '$WORK/release' ]; do sleep 0.2; done")
  wait_state "$BLOCKER" RUNNING 30 >/dev/null
}

# release_blocker_after JOBID EPOCHS: ends the blocker once the job's
# trainer has reported EPOCHS epochs (exit 1, and the blocker ended anyway,
# when it did not within 4 minutes).
release_blocker_after() {
  local rc=0
  eventually 240 grep -q "\"epoch\": $2," "$OUT/$1.m" >/dev/null || rc=1
  touch "$WORK/release"
  wait_done "$BLOCKER" 30 >/dev/null
  return $rc
}

# elastic_done: the last check of every file, then the TAP plan.
elastic_done() {
  check "no select/omru errors" bash -c "! grep -q 'error: select/omru_cons_tres' '$CTLD_LOG'"
  echo "1..$TAP_N"
  exit $((TAP_FAILED > 0))
}

# metric FILE EPOCH KEY: a value of that epoch's metrics line.
metric() { grep "\"epoch\": $2," "$1" | sed -E "s/.*\"$3\": ([^,}]*).*/\\1/" | tail -n1; }
