#!/usr/bin/env bash
# The main job: builds slurm-omru, starts a local Slurm cluster (4 nodes x 4
# GPUs, slurmdbd, select/omru_cons_tres and spank_omru from the build),
# submits the demo workload (demo/workload.txt) running the profile-driven
# JOB EMULATOR (demo/omru-job-emulator; it sleeps, it does not train),
# prints squeue while it runs and the sacct table at the end, then stops the
# cluster.
#
# usage: scripts/demo.sh [--keep]   (--keep leaves the cluster running)
# env:   OMRU_DEMO_DIR (default /tmp/omru-demo), OMRU_DEMO_PORT_BASE (17200),
#        OMRU_EMU_TIME_SCALE (0.02)
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
state=${OMRU_DEMO_DIR:-/tmp/omru-demo}
keep=0
[ "${1:-}" = "--keep" ] && keep=1
[ "$(id -u)" = 0 ] || { echo "demo.sh: run as root (it starts Slurm daemons)" >&2; exit 1; }

echo "== building slurm-omru"
build=$("$top/scripts/build.sh" | tail -n1)

echo "== starting the local cluster in $state"
"$top/scripts/cluster/stop.sh" --state "$state" >/dev/null 2>&1 || true
mkdir -p "$state"  # start.sh stops and wipes a cluster it made here earlier
echo "required $build/spank/.libs/spank_omru.so" > "$state.plugstack.conf"
"$top/scripts/cluster/start.sh" --state "$state" \
  --select-type select/omru_cons_tres --plugin-dir "$build/select_plugin/.libs" \
  --plugstack "$state.plugstack.conf" --port-base "${OMRU_DEMO_PORT_BASE:-17200}" |
  grep -E 'ready in|start.sh: ' | tail -n1
[ $keep = 1 ] || trap '"$top/scripts/cluster/stop.sh" --state "$state" >/dev/null 2>&1 || true' EXIT
# shellcheck disable=SC1091
. "$state/env.sh"

echo "== submitting $(grep -cv '^#' "$top/demo/workload.txt") jobs (job emulator, time scale ${OMRU_EMU_TIME_SCALE:-0.02})"
mkdir -p "$state/out"
# sbatch copies the script into the spool: tell it where the profiles are.
export OMRU_EMU_PROFILES=$top/data/profiles-t4.csv
ids=()
while read -r line; do
  case $line in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086  # one line = several sbatch options
  name=$(sed -E 's/.*--omru-model=([^ ]+).*/\1/' <<<"$line")
  id=$(sbatch --parsable -o "$state/out/%j.out" -J "$name" \
        $line "$top/demo/omru-job-emulator" | cut -d';' -f1)
  ids+=("$id")
  echo "  job $id: sbatch $line"
done < "$top/demo/workload.txt"
joblist=$(IFS=,; echo "${ids[*]}")

echo "== squeue while the workload runs"
start=$(date +%s)
while squeue -h -j "$joblist" 2>/dev/null | grep -q .; do
  echo "--- t=$(( $(date +%s) - start )) s"
  squeue -j "$joblist" -o '%.6i %.16j %.9T %.10M %.6D %.12b %R'
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
echo "== emulator output of job ${ids[0]}"
sed -n "1p;\$p" "$state/out/${ids[0]}.out"
failed=$(sacct -n -X -j "$joblist" -o State | grep -vc COMPLETED || true)
[ $keep = 1 ] && echo "== cluster left running: . $state/env.sh; scripts/cluster/stop.sh --state $state"
[ "$failed" = 0 ] || { echo "demo.sh: $failed job(s) did not complete" >&2; exit 1; }
