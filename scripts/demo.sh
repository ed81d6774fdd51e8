#!/usr/bin/env bash
# The main job: builds slurm-omru, then shows what it gains over the Slurm a
# site already runs, on local Slurm clusters (4 nodes x 4 GPUs each, one
# machine under all of them):
#
#  1. Side by side: the same workload (demo/workload.txt) submitted one job
#     after another, as users submit, to two clusters at once:
#       cons_tres+backfill  select/cons_tres + sched/backfill, no slurm-omru
#                           plugin; every job asks the GPUs its user chose
#                           (its --gpus);
#       select/omru         select/omru_cons_tres + spank_omru; the plan
#                           picks each job's GPU count in its --omru-gpus
#                           range, its start and its nodes.
#     The jobs run the JOB EMULATOR (demo/omru-job-emulator: it sleeps each
#     epoch for the time measured on NVIDIA T4s for that model and the GPU
#     and node count Slurm really gave it, and slows down by the measured
#     pair table for the models beside it; it does not train): the "GPUs"
#     here are device files, and a comparison of GPU schedules needs GPU
#     time.  Both clusters' planners know those profiles, so predictions
#     are meaningful from the first job.  Then `omru-report --baseline`
#     prints makespan, mean JCT and GPU utilization of both and the ratio,
#     and draws both Gantt charts in one SVG.
#  2. Real training (when omru-train was built, unless --emulate):
#     omru-train jobs (tiny CNN, data-parallel under srun, on the CPUs) on
#     the select/omru cluster, one after another as one researcher runs
#     them.  The first job profiles the model on 1, 2 and 4 GPUs
#     (spank_omru's automatic profiling); the jobs after it are planned
#     from what it measured, and the report shows their predicted against
#     real runtimes.
#
# Then the clusters are stopped (--keep leaves them up).
#
# usage: scripts/demo.sh [--keep] [--emulate]
# env:   OMRU_DEMO_DIR (default /tmp/omru-demo; the baseline cluster in
#        DIR-baseline), OMRU_DEMO_PORT_BASE (17200; the baseline +50),
#        OMRU_EMU_TIME_SCALE (0.02 wall s per profiled s),
#        OMRU_DEMO_GAP (1 s between submissions in 1),
#        OMRU_SLURM_PREFIX: run on the Slurm installed there instead of
#        Debian's (e.g. scripts/slurm-release.sh 24.11's prefix); the build
#        goes to build-MAJOR.MINOR/
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
state=${OMRU_DEMO_DIR:-/tmp/omru-demo}
base_state=$state-baseline
port=${OMRU_DEMO_PORT_BASE:-17200}
gap=${OMRU_DEMO_GAP:-1}
keep=0 emulate=0
for arg in "$@"; do
  case $arg in
    --keep) keep=1 ;;
    --emulate) emulate=1 ;;
    *) echo "usage: scripts/demo.sh [--keep] [--emulate]" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "demo.sh: run as root (it starts Slurm daemons)" >&2; exit 1; }
t_begin=$(date +%s)

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
t_built=$(date +%s)
train=1
[ $emulate = 1 ] || [ ! -x "$build/trainer/omru-train" ] && train=0

# ---- configuration shared by both clusters ---------------------------------
# The T4 profiles, time-scaled like the emulator's sleeps, so the plan's
# predictions are in the demo's seconds; every pair of their models as
# select/omru prices it from Lucid's measured pairs and solo signals
# (data/colocation/), for the plan (ColocationFile=) and for the emulator
# on both clusters (the same truth for both schedulers).
scale=${OMRU_EMU_TIME_SCALE:-0.02}
awk -F, -v s="$scale" 'BEGIN { OFS = "," } NR == 1 || /^#/ { print; next }
  { $3 = sprintf("%.4f", $3 * s); print }' "$top/data/profiles-t4.csv" > "$state.profiles.csv"
models=$(awk -F, 'NR > 1 && !/^#/ { print $1 }' "$state.profiles.csv" | sort -u | paste -sd,)
"$build/profiler/omru-profile" interference --models "$models" \
  --pairs "$top/data/colocation/t4-pairs.csv" \
  --signals "$top/data/colocation/t4-signals.csv" >"$state.pairs.csv" 2>/dev/null
cat > "$state.omru.conf" <<CONF
# demo: the settings a site gets (Objective=jct, ReferenceBound=yes: no job
# later than under backfill beyond the slack); one CPU per planned GPU.
ProfileFile=$state.profiles.csv
ColocationFile=$state.pairs.csv
CpusPerGpu=1
LogPlans=yes
CONF
# Its own run_dir, so the demo and a test cluster never share job directories.
echo "required $build/spank/.libs/spank_omru.so run_dir=$state.run" > "$state.plugstack.conf"

stop_clusters() {
  "$top/scripts/cluster/stop.sh" --state "$state" >/dev/null 2>&1 || true
  "$top/scripts/cluster/stop.sh" --state "$base_state" >/dev/null 2>&1 || true
}
echo "== starting two local clusters: select/omru in $state, cons_tres+backfill in $base_state"
stop_clusters
mkdir -p "$state" "$base_state" # start.sh wipes a cluster it made there earlier
"$top/scripts/cluster/start.sh" --state "$state" \
  --select-type select/omru_cons_tres --plugin-dir "$build/select_plugin/.libs" \
  --plugstack "$state.plugstack.conf" --omru-conf "$state.omru.conf" \
  --port-base "$port" | grep -E 'ready in|start.sh: ' | tail -n1 | sed 's/^/  select\/omru: /'
# The Slurm a site runs today: no slurm-omru plugin at all.  Its job ids
# start at 1001 (two clusters on one host must not share job ids).
"$top/scripts/cluster/start.sh" --state "$base_state" --select-type select/cons_tres \
  --job-submit none --first-job-id 1001 --port-base $((port + 50)) |
  grep -E 'ready in|start.sh: ' | tail -n1 | sed 's/^/  cons_tres+backfill: /'
[ $keep = 1 ] || trap stop_clusters EXIT
# shellcheck disable=SC1091
. "$state/env.sh" # the Slurm commands in PATH; SLURM_CONF picks the cluster
omru_conf=$SLURM_CONF base_conf=$base_state/slurm.conf
on_omru() { SLURM_CONF=$omru_conf "$@"; }
on_base() { SLURM_CONF=$base_conf "$@"; }

# ---- 1. side by side -------------------------------------------------------
rm -rf "$state/out" "$base_state/out" # an earlier run's checkpoints would be resumed
mkdir -p "$state/out" "$base_state/out"
# sbatch copies the job script into its spool: the environment tells the
# copy where everything is.  Each cluster has its own emulator registry
# (OMRU_EMU_STATE_DIR): its jobs meet only their own cluster's jobs.
export OMRU_EMU_PROFILES=$state.profiles.csv OMRU_EMU_TIME_SCALE=1 \
  OMRU_EMU_COLOCATION=$state.pairs.csv
workload=$top/demo/workload.txt emulator=$top/demo/omru-job-emulator
echo "== 1. side by side: $(grep -cv '^#' "$workload") jobs of $workload, one every $gap s, to both clusters"
echo "   (job emulator: T4 epoch times x $scale; cons_tres+backfill gets each job's --gpus,"
echo "    select/omru the same line with its --omru-* options)"
omru_ids=() base_ids=()
t_submit=$(date +%s)
while read -r line; do
  case $line in ''|'#'*) continue ;; esac
  name=$(sed -nE 's/.*--omru-model=([^ ]+).*/\1/p' <<<"$line")
  epochs=$(sed -nE 's/.*--omru-epochs=([^ ]+).*/\1/p' <<<"$line")
  # The baseline's job: the user's own options only; the emulator reads
  # its model and epochs from the environment spank_omru would set.
  plain=$(tr ' ' '\n' <<<"$line" | grep -v '^--omru-' | paste -sd' ')
  # shellcheck disable=SC2086  # one line = several sbatch options
  id=$(OMRU_EMU_STATE_DIR=$base_state/out OMRU_MODEL=$name OMRU_EPOCHS=$epochs \
    on_base sbatch --parsable -o "$base_state/out/%j.out" -J "$name" $plain "$emulator" | cut -d';' -f1)
  base_ids+=("$id")
  # shellcheck disable=SC2086
  id=$(OMRU_EMU_STATE_DIR=$state/out on_omru sbatch --parsable -o "$state/out/%j.out" \
    -J "$name" $line "$emulator" | cut -d';' -f1)
  omru_ids+=("$id")
  printf '  %-16s cons_tres+backfill job %s: --gpus=%s | select/omru job %s: %s\n' "$name" \
    "${base_ids[-1]}" "$(sed -nE 's/.*--gpus=([0-9]+).*/\1/p' <<<"$line")" "$id" \
    "$(grep -oE -- '--omru-(gpus|elastic)[^ ]*' <<<"$line" | paste -sd' ')"
  sleep "$gap"
done < "$workload"
omru_list=$(IFS=,; echo "${omru_ids[*]}") base_list=$(IFS=,; echo "${base_ids[*]}")

# running_line CONF LIST: "R running on G GPUs, P pending".
running_line() {
  SLURM_CONF=$1 squeue -h -j "$2" -O 'State:10,tres-per-job:20' 2>/dev/null | awk '
    $1 == "RUNNING" { r++; n = $2; sub(/.*:/, "", n); g += n }
    $1 == "PENDING" { p++ }
    END { printf "%d running on %d GPUs, %d pending", r, g, p }'
}
echo "== while they run (squeue on each cluster)"
t0=$(date +%s)
while on_omru squeue -h -j "$omru_list" 2>/dev/null | grep -q . ||
      on_base squeue -h -j "$base_list" 2>/dev/null | grep -q .; do
  printf '  t=%3d s  cons_tres+backfill: %-34s select/omru: %s\n' "$(( $(date +%s) - t_submit ))" \
    "$(running_line "$base_conf" "$base_list")" "$(running_line "$omru_conf" "$omru_list")"
  sleep 5
  [ $(( $(date +%s) - t0 )) -lt 600 ] || { echo "demo.sh: the workload did not finish in 600 s" >&2; exit 1; }
done

# sacct may need a moment to receive the last completion records.
settled() {
  for _ in $(seq 20); do
    [ "$("$@" | grep -cE 'PENDING|RUNNING|COMPLETING|REQUEUED')" = 0 ] && return 0
    sleep 0.5
  done
}
settled on_omru sacct -n -X -j "$omru_list" -o State
settled on_base sacct -n -X -j "$base_list" -o State
echo "== what the select/omru plan did (sacct -o JobID,JobName,AllocTRES,AdminComment)"
on_omru sacct -n -X -P -j "$omru_list" -o JobID,JobName,AllocTRES,AdminComment |
  sed -E 's/billing=[^,]*,//; s/,mem=[^,|]*//; s/\|/  /g; s/^/  /'
resizes=$(grep -h 'resized by the plan\|resumed after a resize\|did not stop within' "$OMRU_CLUSTER_CTLD_LOG" |
  sed 's/^\[[^]]*\] //' || true)
if [ -n "$resizes" ]; then
  echo "== elastic jobs (--omru-elastic) the plan resized (slurmctld log)"
  sed 's/^/  /' <<<"$resizes"
fi
echo "== cons_tres+backfill (omru-report)"
on_base "$build/report/omru-report" -j "$base_list" --sacct-out "$state.baseline.sacct" |
  sed -n '/^jobs:/,$p' | sed 's/^/  /'
echo "== select/omru (omru-report --baseline: the two side by side)"
on_omru "$build/report/omru-report" -j "$omru_list" --baseline "$state.baseline.sacct" \
  --names cons_tres+backfill,select/omru --svg "$state/side-by-side.svg" | sed 's/^/  /'
echo "  (both Gantt charts on one time scale, and select/omru's predicted vs real: $state/side-by-side.svg)"
failed=$(on_omru sacct -n -X -j "$omru_list" -o State | grep -vc COMPLETED || true)
failed=$((failed + $(on_base sacct -n -X -j "$base_list" -o State | grep -vc COMPLETED || true)))

# ---- 2. real training ------------------------------------------------------
if [ $train = 1 ]; then
  echo "== 2. real training on the select/omru cluster: omru-train, tiny CNN, synthetic CIFAR-10"
  export OMRU_TRAIN=$build/trainer/omru-train OMRU_DEMO_DATA=$state/cifar OMRU_DEMO_OUT=$state/out
  "$build/trainer/omru-cifar-synth" --out "$OMRU_DEMO_DATA" --train 4096 --test 512 | sed 's/^/  /'
  workload=$top/demo/train-workload.txt job=$top/demo/omru-train-job
  train_ids=()
  submit_train() { # the options of a workload line
    # shellcheck disable=SC2086
    id=$(on_omru sbatch --parsable -o "$state/out/%j.out" -J "$(sed -nE 's/.*--omru-model=([^ ]+).*/\1/p' <<<"$*")" "$@" "$job" | cut -d';' -f1)
    train_ids+=("$id")
    echo "  job $id: sbatch $*"
  }
  wait_ended() { # JOBLIST
    local t=0
    while on_omru squeue -h -j "$1" 2>/dev/null | grep -q .; do
      sleep 1; t=$((t + 1))
      [ $t -lt 300 ] || { echo "demo.sh: jobs $1 did not finish in 300 s" >&2; exit 1; }
    done
  }
  # One researcher's runs, each submitted when the one before ended: the
  # first profiles the model (nobody measured it on this machine), the
  # others are planned from what it measured.  One at a time, because the
  # "GPUs" of jobs running at once share this machine's two CPU cores (a
  # coupling a GPU cluster does not have), which the profile, measured
  # alone, does not know.
  n=0
  while read -r line; do
    # shellcheck disable=SC2086
    submit_train $line
    wait_ended "${train_ids[-1]}"
    if [ $n = 0 ]; then
      settled on_omru sacct -n -X -j "${train_ids[0]}" -o State
      echo "  job ${train_ids[0]} measured: $(on_omru sacct -n -X -P -j "${train_ids[0]}" -o AdminComment |
        grep -oE 'rows=[^ ]*') (GPUs@nodes:epoch_s)"
    fi
    n=$((n + 1))
  done < <(grep -v '^#' "$workload")
  train_list=$(IFS=,; echo "${train_ids[*]}")
  wait_ended "$train_list"
  settled on_omru sacct -n -X -j "$train_list" -o State
  echo "== what the plan did (sacct -o JobID,AdminComment)"
  on_omru sacct -n -X -P -j "$train_list" -o JobID,AdminComment | sed 's/^/  /; s/|/  /'
  echo "== omru-report: the jobs planned from the first one's measurements"
  on_omru "$build/report/omru-report" -j "$train_list" --svg "$state/training.svg" |
    sed 's/^/  /'
  echo "  (chart: $state/training.svg)"
  echo "== training metrics of job ${train_ids[-1]} (one line per epoch)"
  cat "$state/out/${train_ids[-1]}.metrics.json" 2>/dev/null | sed 's/^/  /' || true
  failed=$((failed + $(on_omru sacct -n -X -j "$train_list" -o State | grep -vc COMPLETED || true)))
fi

echo "== demo done: $(( $(date +%s) - t_built )) s after the build"
[ $keep = 1 ] && echo "== clusters left running: . $state/env.sh (or SLURM_CONF=$base_conf); scripts/cluster/stop.sh --state DIR"
[ "$failed" = 0 ] || { echo "demo.sh: $failed job(s) did not complete" >&2; exit 1; }
