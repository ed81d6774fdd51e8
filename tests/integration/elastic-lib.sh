# elastic-lib.sh - what the elastic*.test files share (sourced after
# lib.sh; phase.test takes its trainer_setup): a one-node, 4-GPU cluster
# whose planner profile makes 4 GPUs pay, a synthetic CIFAR set, and a
# batch script running real omru-train on CPU, one process per GPU of the
# allocation.  Each file starts its own cluster (own port base), so they
# run side by side.
#
# A blocker job holds the other 3 GPUs until the elastic job has trained
# two epochs (release_blocker_after): the resize then comes at the same
# point of training on a fast machine and on a busy one, and 38 epochs
# remain after it, so the set is small (6,144 images).

[ "$(id -u)" = 0 ] || bail "integration tests start Slurm daemons and need root"
TRAIN=$OMRU_BUILDDIR/trainer/omru-train
[ -x "$TRAIN" ] || bail "no omru-train (built without libtorch?)"

# trainer_setup SEED: a synthetic CIFAR set in $WORK/data and the batch
# script $WORK/train.sh: real omru-train, one process per GPU of the
# allocation, checkpoint and metrics under $OUT; `exec` hands the tasks'
# exit status (85 after a stop request) back to Slurm.
trainer_setup() {
  "$OMRU_BUILDDIR/trainer/omru-cifar-synth" --out "$WORK/data" --train 6144 --test 256 \
    --seed "$1" >/dev/null || bail "omru-cifar-synth failed"
  cat >"$WORK/train.sh" <<SH
#!/usr/bin/env bash
exec srun -n "\$OMRU_GPUS" --cpus-per-task=1 "$TRAIN" --data "$WORK/data" --model tiny \
  --threads 1 --loader-workers 1 --batch-size 16 --lr 0.05 --reference-batch 16 \
  --warmup-epochs 0 --checkpoint "$OUT/\$SLURM_JOB_ID.ckpt" --metrics "$OUT/\$SLURM_JOB_ID.m"
SH
  chmod 755 "$WORK/train.sh"
}

# elastic_cluster_up PORT_OFFSET: starts the cluster at OMRU_TEST_PORT_BASE
# + PORT_OFFSET (a profile that makes 4 GPUs pay); sets WORK (its
# $WORK/train.sh is the batch script), OUT and elastic_opts.
elastic_cluster_up() {
  resize_cluster_up "$1" 20 etiny 2.0 1.05 0.72 0.55
  trainer_setup 3
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
