# phase-lib.sh - what phase.test and phase-quiet.test share (sourced after
# lib.sh): a one-node, 4-GPU cluster whose planner profile says 2 GPUs are
# nearly as fast as 4 (as 4 processes on a 2-core machine are), so sharing
# the node ends a pair of jobs sooner.  Each file starts its own cluster.
#
# The profile's times are about the CPU runs' (2 s per epoch on 4 GPUs;
# measured here beside a compile: 1.7-2.2 s; CI's loaded run: 3.3 s): the
# plan prices a running job by its profile, and one that ran past its
# predicted end is one the plan expects to end any moment, which no shrink
# shortens.  At half these times (before 2026-12-02) a newcomer submitted
# on a loaded machine came after that point, and the late job ran to its
# end on 4 GPUs (CI).
#
# ReferenceSlackSeconds=20: a shrink delays the shrunk job by its restart
# (RestartOverhead=5 s, then what the real ones cost) and its slower
# epochs; the bound (ReferenceBound, on by default) lets a job end that
# much past its reference.  On jobs of hours the default 5% covers a
# restart; on these jobs of two minutes it is 6 s, and the shrink was made
# only once the newcomer itself was late, by chance of timing.

[ "$(id -u)" = 0 ] || bail "integration tests start Slurm daemons and need root"

# phase_cluster_up PORT_OFFSET: starts the cluster at OMRU_TEST_PORT_BASE +
# PORT_OFFSET; sets WORK, OUT and opts (elastic ptiny jobs, 1-4 GPUs).
phase_cluster_up() {
  resize_cluster_up "$1" 30 ptiny 4.0 2.2 2.1 2.0 ReferenceSlackSeconds=20
  opts=(--gpus=1 -n1 -t 10 --omru-model=ptiny --omru-gpus=1-4 --omru-profile=off
        --omru-elastic --open-mode=append)
}
