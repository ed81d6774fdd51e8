# phase-lib.sh - what phase.test and phase-quiet.test share (sourced after
# lib.sh): a one-node, 4-GPU cluster whose planner profile says 2 GPUs are
# nearly as fast as 4 (as 4 processes on a 2-core machine are), so sharing
# the node ends a pair of jobs sooner.  Each file starts its own cluster.

[ "$(id -u)" = 0 ] || bail "integration tests start Slurm daemons and need root"

# phase_cluster_up PORT_OFFSET: starts the cluster at OMRU_TEST_PORT_BASE +
# PORT_OFFSET; sets WORK, OUT and opts (elastic ptiny jobs, 1-4 GPUs).
phase_cluster_up() {
  resize_cluster_up "$1" 30 ptiny 2.0 1.1 1.05 1.0
  opts=(--gpus=1 -n1 -t 10 --omru-model=ptiny --omru-gpus=1-4 --omru-profile=off
        --omru-elastic --open-mode=append)
}
