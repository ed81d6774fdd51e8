#!/usr/bin/env bash
# omru-targets.sh - the OMRU planner against the targets of its issue, every
# number from this one run (ratios against baselines measured here):
#  - offline batches (shared batch-32-*, OMRU-style omru-batch-*; 4x4, 8x4):
#    omru makespan <= omru-ga's on every case, geomean makespan / lower
#    bound <= 1.05, utilization >= 98%;
#  - online Philly windows on 16x4: omru makespan <= the best baseline's,
#    and with --objective jct (the mode recommended online) mean JCT <= 0.8
#    x the better of backfill and tiresias (and its makespan too).
# Restart overhead 30 s throughout.  Reports, never asserts.
#
# usage: tests/bench/omru-targets.sh [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
sim=$build/sim/omru-sim
[ -x "$sim" ] || { echo "omru-targets: $sim not built" >&2; exit 2; }
data=$top/data
iterations=${OMRU_BENCH_GA_ITERATIONS:-1000}
common=(--profiles "$data/profiles-t4.csv" --restart-overhead 30)

field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())[sys.argv[1]])' "$1"; }
run() { # CLUSTER WORKLOAD POLICY [ARGS...] -> summary JSON
  local c=$1 w=$2 p=$3; shift 3
  "$sim" --cluster "$c" --workload "$w" --policy "$p" "${common[@]}" --json "$@"
}

echo "# offline batches: omru vs omru-ga ($iterations iterations)"
printf '%-18s %-5s %12s %12s %8s %8s %7s %s\n' workload cluster omru omru-ga ratio vs_LB util '<=ga'
logsum=0 cases=0 all_met=yes
for w in "$data"/workloads/batch-32-*.csv "$data"/workloads/omru-batch-*.csv; do
  for c in 4x4 8x4; do
    o=$(run "$c" "$w" omru); g=$(run "$c" "$w" omru-ga --iterations "$iterations")
    om=$(echo "$o" | field makespan_s); gm=$(echo "$g" | field makespan_s)
    lb=$(echo "$o" | field lower_bound_s); ut=$(echo "$o" | field gpu_utilization)
    line=$(awk -v o="$om" -v g="$gm" -v lb="$lb" -v u="$ut" 'BEGIN{
      met = (o <= g * (1 + 1e-9)) ? "yes" : "NO";
      printf "%12.1f %12.1f %8.4f %8.4f %6.1f%% %s", o, g, o / g, o / lb, 100 * u, met }')
    printf '%-18s %-5s %s\n' "$(basename "$w" .csv)" "$c" "$line"
    case $line in *NO) all_met=no ;; esac
    logsum=$(awk -v s="$logsum" -v o="$om" -v lb="$lb" 'BEGIN{print s + log(o / lb)}')
    cases=$((cases + 1))
  done
done
awk -v s="$logsum" -v n="$cases" -v m="$all_met" 'BEGIN{
  printf "geomean makespan / lower bound: %.4f (target <= 1.05); <= omru-ga on every case: %s\n", exp(s / n), m }'
echo "(utilization target >= 98%: where one job's fastest run sets the makespan (vs_LB 1.0000),"
echo " the other GPUs have nothing left to do and no schedule can reach it)"

echo
echo "# online Philly windows on 16x4"
printf '%-12s %12s %12s %10s %10s %10s %s\n' workload best_base omru omru-jct jct_jct 0.8xbase met
for w in "$data"/workloads/philly-8h-*.csv; do
  best=inf base_jct=inf
  for p in fifo backfill sjf tiresias optimus seq; do
    s=$(run 16x4 "$w" "$p")
    best=$(awk -v a="$best" -v b="$(echo "$s" | field makespan_s)" 'BEGIN{print (a == "inf" || b < a) ? b : a}')
    if [ "$p" = backfill ] || [ "$p" = tiresias ]; then
      base_jct=$(awk -v a="$base_jct" -v b="$(echo "$s" | field avg_jct_s)" 'BEGIN{print (a == "inf" || b < a) ? b : a}')
    fi
  done
  m=$(run 16x4 "$w" omru | field makespan_s)
  j=$(run 16x4 "$w" omru --objective jct)
  jm=$(echo "$j" | field makespan_s); jj=$(echo "$j" | field avg_jct_s)
  awk -v n="$(basename "$w" .csv)" -v b="$best" -v m="$m" -v jm="$jm" -v jj="$jj" -v bj="$base_jct" 'BEGIN{
    met = (m <= b * (1 + 1e-9) && jm <= b * (1 + 1e-9) && jj <= 0.8 * bj) ? "yes" : "NO";
    printf "%-12s %12.1f %12.1f %10.1f %10.1f %10.1f %s\n", n, b, m, jm, jj, 0.8 * bj, met }'
done
echo "(best_base: least makespan of fifo/backfill/sjf/tiresias/optimus/seq; omru, omru-jct: makespans"
echo " in each mode; jct_jct: mean JCT with --objective jct; 0.8xbase: 0.8 x the better of backfill/tiresias)"
