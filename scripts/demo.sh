#!/usr/bin/env bash
# The main job: builds slurm-omru, starts a local Slurm cluster (4 nodes x 4
# GPUs, slurmdbd, select/omru_cons_tres and spank_omru from the build),
# submits a workload, prints squeue while it runs and the sacct table at the
# end, then stops the cluster.  The workload is real data-parallel training
# (demo/train-workload.txt: omru-train under srun, tiny CNN on a synthetic
# CIFAR-10 set) when omru-train was built (libtorch found); with --emulate,
# or without libtorch, it is demo/workload.txt run by the profile-driven JOB
# EMULATOR (demo/omru-job-emulator; it sleeps, it does not train).
#
# usage: scripts/demo.sh [--keep] [--emulate]   (--keep leaves the cluster running)
# env:   OMRU_DEMO_DIR (default /tmp/omru-demo), OMRU_DEMO_PORT_BASE (17200),
#        OMRU_EMU_TIME_SCALE (0.02),
#        OMRU_SLURM_PREFIX: run on the Slurm installed there instead of
#        Debian's (e.g. scripts/slurm-release.sh 24.11's prefix); the build
#        goes to build-MAJOR.MINOR/
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
state=${OMRU_DEMO_DIR:-/tmp/omru-demo}
keep=0 emulate=0
for arg in "$@"; do
  case $arg in
    --keep) keep=1 ;;
    --emulate) emulate=1 ;;
    *) echo "usage: scripts/demo.sh [--keep] [--emulate]" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "demo.sh: run as root (it starts Slurm daemons)" >&2; exit 1; }

if [ -n "${OMRU_SLURM_PREFIX:-}" ] && [ "$OMRU_SLURM_PREFIX" != /usr ]; then
  n=$(sed -n 's/^#define SLURM_VERSION_NUMBER \(0x[0-9a-fA-F]*\).*/\1/p' \
    "$OMRU_SLURM_PREFIX/include/slurm/slurm_version.h" 2>/dev/null) || true
  [ -n "$n" ] || { echo "demo.sh: OMRU_SLURM_PREFIX=$OMRU_SLURM_PREFIX holds no Slurm" >&2; exit 1; }
  v=$((n >> 16)).$(((n >> 8) & 255))
  echo "== building slurm-omru against Slurm $v in $OMRU_SLURM_PREFIX"
  dir=$top/build-$v
  if [ -f "$dir/Makefile" ]; then
    build=$("$top/scripts/build.sh" "$dir" | tail -n1)
  else
    build=$("$top/scripts/build.sh" "$dir" -- --with-slurm="$OMRU_SLURM_PREFIX" | tail -n1)
  fi
else
  echo "== building slurm-omru"
  build=$("$top/scripts/build.sh" | tail -n1)
fi

echo "== starting the local cluster in $state"
"$top/scripts/cluster/stop.sh" --state "$state" >/dev/null 2>&1 || true
mkdir -p "$state"  # start.sh stops and wipes a cluster it made here earlier
# Its own run_dir, so the demo and a test cluster never share job directories.
echo "required $build/spank/.libs/spank_omru.so run_dir=$state.run" > "$state.plugstack.conf"
# The planner's profiles: the T4 table, time-scaled like the emulator's
# sleeps, so the plan's predictions are in the demo's seconds.
scale=${OMRU_EMU_TIME_SCALE:-0.02}
awk -F, -v s="$scale" 'BEGIN { OFS = "," } NR == 1 || /^#/ { print; next }
  { $3 = sprintf("%.4f", $3 * s); print }' "$top/data/profiles-t4.csv" > "$state.profiles.csv"
cat > "$state.omru.conf" <<CONF
# demo: a batch, so the OMRU paper's objective; one CPU per planned GPU.
Objective=makespan
ProfileFile=$state.profiles.csv
CpusPerGpu=1
LogPlans=yes
CONF
emulated=0
[ $emulate = 1 ] || [ ! -x "$build/trainer/omru-train" ] && emulated=1
if [ $emulated = 1 ]; then
  # Co-located jobs slow each other down: every pair of the T4 models as
  # select/omru prices it from Lucid's measured pairs and solo signals
  # (data/colocation/), for the plan (ColocationFile=) and the emulator.
  models=$(awk -F, 'NR > 1 && !/^#/ { print $1 }' "$state.profiles.csv" | sort -u | paste -sd,)
  "$build/profiler/omru-profile" interference --models "$models" \
    --pairs "$top/data/colocation/t4-pairs.csv" \
    --signals "$top/data/colocation/t4-signals.csv" >"$state.pairs.csv" 2>/dev/null
  echo "ColocationFile=$state.pairs.csv" >>"$state.omru.conf"
fi
"$top/scripts/cluster/start.sh" --state "$state" \
  --select-type select/omru_cons_tres --plugin-dir "$build/select_plugin/.libs" \
  --plugstack "$state.plugstack.conf" --omru-conf "$state.omru.conf" \
  --port-base "${OMRU_DEMO_PORT_BASE:-17200}" |
  grep -E 'ready in|start.sh: ' | tail -n1
[ $keep = 1 ] || trap '"$top/scripts/cluster/stop.sh" --state "$state" >/dev/null 2>&1 || true' EXIT
# shellcheck disable=SC1091
. "$state/env.sh"

rm -rf "$state/out"  # checkpoints of an earlier run would be resumed
mkdir -p "$state/out"
# sbatch copies the job script into its spool: the environment tells the
# copy where everything is.
if [ $emulated = 0 ]; then
  workload=$top/demo/train-workload.txt job=$top/demo/omru-train-job
  export OMRU_TRAIN=$build/trainer/omru-train OMRU_DEMO_DATA=$state/cifar OMRU_DEMO_OUT=$state/out
  "$build/trainer/omru-cifar-synth" --out "$OMRU_DEMO_DATA" --train 4096 --test 512 | sed 's/^/  /'
  echo "== submitting $(grep -cv '^#' "$workload") training jobs (omru-train, tiny CNN)"
else
  workload=$top/demo/workload.txt job=$top/demo/omru-job-emulator
  export OMRU_EMU_PROFILES=$state.profiles.csv OMRU_EMU_TIME_SCALE=1
  # Elastic jobs' progress checkpoints (omru-job-emulator).
  export OMRU_EMU_STATE_DIR=$state/out OMRU_EMU_COLOCATION=$state.pairs.csv
  echo "== submitting $(grep -cv '^#' "$workload") jobs (job emulator, time scale $scale)"
fi
# Every job is submitted on hold and released at once, so the plan sees the
# whole batch (OMRU plans batches; online, each arrival is re-planned).
ids=()
while read -r line; do
  case $line in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086  # one line = several sbatch options
  name=$(sed -E 's/.*--omru-model=([^ ]+).*/\1/' <<<"$line")
  id=$(sbatch --parsable --hold -o "$state/out/%j.out" -J "$name" \
        $line "$job" | cut -d';' -f1)
  ids+=("$id")
  echo "  job $id: sbatch $line"
done < "$workload"
joblist=$(IFS=,; echo "${ids[*]}")
scontrol release "$joblist"
released=$(date +%s)
sleep 3
echo "== the plan: GPU counts and planned starts (squeue --start)"
squeue --start -j "$joblist" -O 'JobID:7,Name:16,State:9,tres-per-job:14,StartTime:21,ReasonList:40' 2>/dev/null | sed 's/^/  /'
squeue -j "$joblist" -t RUNNING -O 'JobID:7,Name:16,State:9,tres-per-job:14,NodeList:20' | sed 's/^/  /'
plan_line=$(grep 'select/omru_cons_tres: plan: ' "$OMRU_CLUSTER_CTLD_LOG" | tail -n1)
predicted_end=$(sed -n 's/.* ends_at=\([0-9]*\).*/\1/p' <<<"$plan_line")

echo "== squeue while the workload runs"
start=$(date +%s)
while squeue -h -j "$joblist" 2>/dev/null | grep -q .; do
  echo "--- t=$(( $(date +%s) - start )) s"
  squeue -j "$joblist" -O 'JobID:7,Name:16,State:9,TimeUsed:8,NumNodes:6,tres-per-job:14,ReasonList:40'
  sleep 5
  [ $(( $(date +%s) - start )) -lt 600 ] || { echo "demo.sh: workload did not finish in 600 s" >&2; exit 1; }
done
echo "== all jobs ended after $(( $(date +%s) - start )) s"

# sacct may need a moment to receive the last completion records.
for _ in $(seq 20); do
  [ "$(sacct -n -X -j "$joblist" -o State | grep -cE 'PENDING|RUNNING|COMPLETING')" = 0 ] && break
  sleep 0.5
done
echo "== sacct"
sacct -X -j "$joblist" -o JobID,JobName%16,AllocTRES%48,NNodes,Start,End,Elapsed,State
echo "== what the plan did (sacct -o JobID,AdminComment%200)"
sacct -n -X -P -j "$joblist" -o JobID,AdminComment | sed 's/^/  /; s/|/  /'
last_end=$(sacct -n -X -P -j "$joblist" -o End | xargs -I{} date -d {} +%s | sort -n | tail -n1)
# Jobs without a profile are priced at their time limit (profile=default):
# a prediction worth comparing needs profiles (the --emulate workload).
if [ -n "${predicted_end:-}" ] && [ -n "$last_end" ] &&
   ! sacct -n -X -P -j "$joblist" -o AdminComment | grep -q 'profile=default'; then
  awk -v r="$released" -v p="$predicted_end" -v e="$last_end" 'BEGIN {
    printf "== makespan %d s; the plan predicted %d s when the batch was released (real/predicted %.2f)\n",
      e - r, p - r, (p > r) ? (e - r) / (p - r) : 0 }'
fi
resizes=$(grep -h 'resized by the plan\|resumed after a resize\|did not stop within' "$OMRU_CLUSTER_CTLD_LOG" |
  sed 's/^\[[^]]*\] //' || true)
if [ -n "$resizes" ]; then
  echo "== elastic jobs (--omru-elastic) the plan resized (slurmctld log)"
  sed 's/^/  /' <<<"$resizes"
fi
if [ $emulated = 1 ]; then
  echo "== co-location: what each job's neighbours cost it (emulated by the pair table the plan priced)"
  for id in "${ids[@]}"; do
    f=$(grep -ho 'interference mean_factor=[0-9.]*' "$state/out/$id.out" | tail -n1 | cut -d= -f2)
    printf '  job %s %-16s mean slowdown %s\n' "$id" "$(sacct -n -X -j "$id" -o JobName%16 | xargs)" "${f:-?}"
  done
fi
echo "== omru-report: predicted vs real, throughput, the window's makespan and GPU use"
"$build/report/omru-report" -j "$joblist" --svg "$state/report.svg" | sed 's/^/  /'
echo "  (Gantt chart and predicted-vs-real plot: $state/report.svg)"
echo "== output of job ${ids[0]}"
sed -n "1p;\$p" "$state/out/${ids[0]}.out"
if [ -f "$state/out/${ids[0]}.metrics.json" ]; then
  echo "== training metrics of job ${ids[0]} (one line per epoch)"
  cat "$state/out/${ids[0]}.metrics.json"
fi
failed=$(sacct -n -X -j "$joblist" -o State | grep -vc COMPLETED || true)
[ $keep = 1 ] && echo "== cluster left running: . $state/env.sh; scripts/cluster/stop.sh --state $state"
[ "$failed" = 0 ] || { echo "demo.sh: $failed job(s) did not complete" >&2; exit 1; }
