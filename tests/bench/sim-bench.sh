#!/usr/bin/env bash
# sim-bench.sh - every omru-sim policy on the shared workloads:
#   philly-8h-{1,2,3} (online, 160 jobs) on 16x4,
#   batch-32-{1,2}   (offline, 32 jobs)  on 4x4 and 8x4,
# all with a 30 s restart overhead.  Prints one comparison table per case
# (makespan, ratio to the lower bound, JCT, utilization, time in the policy,
# wall time of the simulation) and then the speed targets of issue 3:
# every non-GA policy under 2 s per 160-job window, omru-ga with 1,000
# iterations on a 32-job batch under 30 s.  Timings are reported, never
# asserted: this is a benchmark, not a test.
#
# usage: tests/bench/sim-bench.sh [BUILD_DIR]   (default: build/, `make bench`)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
sim=$build/sim/omru-sim
[ -x "$sim" ] || { echo "sim-bench: $sim not built (run scripts/build.sh)" >&2; exit 2; }
data=$top/data
overhead=30
iterations=${OMRU_BENCH_GA_ITERATIONS:-1000}

echo "# omru-sim $("$sim" --version | awk '{print $2}') on $(nproc) cores, $(date -u +%Y-%m-%d)"
echo "# restart overhead ${overhead} s, omru-ga ${iterations} iterations, population 50, seed 1"
worst_online=0 worst_ga=0
run_case() { # CLUSTER WORKLOAD
  local out
  echo
  out=$("$sim" compare --cluster "$1" --profiles "$data/profiles-t4.csv" \
        --workload "$2" --restart-overhead "$overhead" --iterations "$iterations")
  echo "$out" | sed "s|$top/||"
  # wall_s is the last column of each policy row.
  while read -r policy wall; do
    if [ "$policy" = omru-ga ]; then
      worst_ga=$(awk -v a="$worst_ga" -v b="$wall" 'BEGIN{print (b>a)?b:a}')
    else
      worst_online=$(awk -v a="$worst_online" -v b="$wall" 'BEGIN{print (b>a)?b:a}')
    fi
  done < <(echo "$out" | awk 'NR > 2 && $2 ~ /^[0-9.]+$/ {print $1, $NF}')
}

for w in "$data"/workloads/philly-8h-*.csv; do run_case 16x4 "$w"; done
for w in "$data"/workloads/batch-32-*.csv; do
  for c in 4x4 8x4; do run_case "$c" "$w"; done
done
echo
echo "slowest non-GA policy run: ${worst_online} s (target < 2 s per 160-job window)"
echo "slowest omru-ga run:       ${worst_ga} s (target < 30 s for 1,000 iterations on 32 jobs)"
