# phase-lib.sh - what phase.test and phase-quiet.test share (sourced after
# lib.sh): a one-node, 4-GPU cluster whose planner profile says 2 GPUs are
# nearly as fast as 4 (as 4 processes on a 2-core machine are), so sharing
# the node ends a pair of jobs sooner.  Each file starts its own cluster.

[ "$(id -u)" = 0 ] || bail "integration tests start Slurm daemons and need root"

# phase_cluster_up PORT_OFFSET: starts the cluster at OMRU_TEST_PORT_BASE +
# PORT_OFFSET; sets WORK, OUT and opts (elastic ptiny jobs, 1-4 GPUs).
phase_cluster_up() {
  WORK=$(mktemp -d /tmp/omru-phase.XXXXXX)
  chmod 755 "$WORK"
  cat >"$WORK/profiles.csv" <<'CSV'
model,gpus,epoch_s,nodes
ptiny,1,2.0,
ptiny,2,1.1,
ptiny,3,1.05,
ptiny,4,1.0,
CSV
  cat >"$WORK/omru.conf" <<CONF
ProfileFile=$WORK/profiles.csv
PlanIntervalMin=0.5
PlanIntervalMax=5
CpusPerGpu=1
LogPlans=yes
RestartOverhead=5
ElasticGrace=30
CorrectionMargin=10
CONF
  OMRU_TEST_PORT_BASE=$(( ${OMRU_TEST_PORT_BASE:-17100} + $1 ))
  cluster_up --omru-conf "$WORK/omru.conf" --nodes 1 --gpus-per-node 4
  trap 'cluster_down; rm -rf "$WORK"' EXIT
  OUT=$CLUSTER_DIR/out
  mkdir -p "$OUT"
  chmod 755 "$OUT"
  opts=(--gpus=1 -n1 -t 10 --omru-model=ptiny --omru-gpus=1-4 --omru-profile=off
        --omru-elastic --open-mode=append)
}
