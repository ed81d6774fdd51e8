#!/usr/bin/env bash
# slurm-interference.sh - interference-aware placement in the real local
# cluster (issue 30): one batch of training jobs (default
# data/workloads/omru-batch-16-1.csv, T4 profiles, time-scaled) on the 4x4
# cluster under select/omru twice, with the same truth both times -- the
# job emulator slows every job by the pair table for the jobs it shares
# nodes with (OMRU_EMU_COLOCATION) --
#   aware      omru.conf ColocationFile= the table
#   oblivious  no ColocationFile= (select/omru as before issue 30)
# submitted one after another, OMRU_BENCH_GAP s apart, as users submit
# (stream), and held then released at once (held): OMRU_BENCH_SUBMIT.
# The table: every pair of the T4 models priced as select/omru prices them
# from data/colocation/t4-{pairs,signals}.csv (omru-profile interference:
# Lucid's measured pairs, the rest predicted from solo signals), so the
# emulator and the planner use the same numbers.  Reports the makespans,
# aware / oblivious, and each run against omru-sim's prediction for the
# same submissions on the same truth (omru resp. omru-oblivious with
# --colocation, --no-resize: the controller's mode).  Reports, never
# asserts.  Needs root.
#
# usage: tests/bench/slurm-interference.sh [BUILD_DIR] [WORKLOAD]
# env:   OMRU_BENCH_SCALE (0.01 wall s per profiled s), OMRU_BENCH_GAP (2 s),
#        OMRU_BENCH_PORT_BASE (17600), OMRU_BENCH_SPREAD_COST (1.3),
#        OMRU_BENCH_MODES ("aware oblivious"), OMRU_BENCH_SUBMIT ("stream held")
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
workload=${2:-$top/data/workloads/omru-batch-16-1.csv}
scale=${OMRU_BENCH_SCALE:-0.01}
port=${OMRU_BENCH_PORT_BASE:-17600}
gap=${OMRU_BENCH_GAP:-2}
modes=${OMRU_BENCH_MODES:-aware oblivious}
submits=${OMRU_BENCH_SUBMIT:-stream held}
# shellcheck source=tests/bench/slurm-bench-lib.sh
. "$top/tests/bench/slurm-bench-lib.sh"
bench_setup slurm-interference "$build" "$scale"

models=$(awk -F, 'NR > 1 && !/^#/ { print $1 }' "$work/profiles.csv" | sort -u | paste -sd,)
"$build/profiler/omru-profile" interference --pairs "$top/data/colocation/t4-pairs.csv" \
  --signals "$top/data/colocation/t4-signals.csv" --models "$models" \
  >"$work/pairs.csv" 2>"$work/fit.txt"
export OMRU_EMU_COLOCATION=$work/pairs.csv OMRU_EMU_STATE_DIR=$work/emu
mkdir -p "$work/emu" && chmod 1777 "$work/emu"
cp "$work/omru.conf" "$work/omru.conf.oblivious"
printf 'ColocationFile=%s\n' "$work/pairs.csv" >>"$work/omru.conf"
cp "$work/omru.conf" "$work/omru.conf.aware"

# run MODE SUBMIT: the batch on a fresh cluster, one job every $gap s
# (stream) or held and released at once (held); sets MAKESPAN, FAILED,
# FACTOR (the jobs' mean slowdown as their emulators measured it).
run() {
  local mode=$1 submit=$2 ids=() id t0 list hold=()
  [ "$submit" = held ] && hold=(--hold)
  cp "$work/omru.conf.$mode" "$work/omru.conf"
  mkdir -p "$state" "$work/out-$mode"
  chmod 777 "$work/out-$mode"
  "$top/scripts/cluster/start.sh" --state "$state" --select-type select/omru_cons_tres \
    --plugin-dir "$work/plugins" --plugstack "$work/plugstack.conf" \
    --omru-conf "$work/omru.conf" --port-base "$port" >/dev/null
  # shellcheck disable=SC1091
  . "$state/env.sh"
  t0=$(date +%s.%N)
  while IFS=, read -r job _ model epochs _ gmin gmax _; do
    [ "$job" = job_id ] && continue
    id=$(sbatch --parsable "${hold[@]}" -o "$work/out-$mode/%j.out" -J "$job" -t 600 \
      --omru-model="$model" --omru-epochs="$epochs" --omru-gpus="$gmin-$gmax" \
      "$top/demo/omru-job-emulator" | cut -d';' -f1)
    ids+=("$id")
    [ "$submit" = stream ] && sleep "$gap"
  done <"$workload"
  list=$(IFS=,; echo "${ids[*]}")
  if [ "$submit" = held ]; then
    release_and_wait "$list"
  else
    wait_ended "$list" "$t0"
  fi
  FACTOR=$(cat "$work/out-$mode"/*.out 2>/dev/null |
    awk -F= '/interference mean_factor=/ { s += $NF; n++ } END { printf "%.3f", n ? s / n : 0 }')
  sacct -X -j "$list" -o JobName%16,AllocTRES%40,NodeList,Start,End >"$work/$mode-$submit.sacct"
  "$top/scripts/cluster/stop.sh" --state "$state" >/dev/null
  rm -rf "$state" "$work/out-$mode"
}

predict() { # POLICY WORKLOAD
  "$build/sim/omru-sim" --cluster 4x4 --profiles "$work/profiles.csv" \
    --workload "$2" --policy "$1" --no-resize \
    --colocation "$work/pairs.csv" --json |
    python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["makespan_s"])'
}

n=$(grep -vc '^job_id' "$workload")
echo "# $(basename "$workload"): $n jobs on 4x4 (stream: one every $gap s; held: released at once), time scale $scale"
sed 's/^omru-profile: /# /' "$work/fit.txt"
awk -F, -v d="$gap" 'BEGIN { OFS = "," } NR == 1 { print; next } { $2 = (NR - 2) * d; print }' \
  "$workload" >"$work/stream.csv"
printf '%-16s %10s %10s %10s %8s %12s\n' run makespan_s sim_s real/sim failed mean_factor
declare -A real
for submit in $submits; do
  w=$workload; [ "$submit" = stream ] && w=$work/stream.csv
  for mode in $modes; do
    run "$mode" "$submit"
    policy=omru; [ "$mode" = oblivious ] && policy=omru-oblivious
    p=$(predict "$policy" "$w")
    real[$mode]=$MAKESPAN
    printf '%-16s %10s %10s %10s %8s %12s\n' "$mode-$submit" "$MAKESPAN" "$p" \
      "$(awk -v a="$MAKESPAN" -v b="$p" 'BEGIN { printf "%.3f", a / b }')" "$FAILED" "$FACTOR"
  done
  if [ -n "${real[aware]:-}" ] && [ -n "${real[oblivious]:-}" ]; then
    awk -v s="$submit" -v a="${real[aware]}" -v b="${real[oblivious]}" \
      'BEGIN { printf "%s: makespan aware / oblivious %.3f\n", s, a / b }'
  fi
  unset real; declare -A real
done
for f in "$work"/*.sacct; do sed "s/^/#   $(basename "$f" .sacct) /" "$f"; done
