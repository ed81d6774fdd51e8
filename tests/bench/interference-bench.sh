#!/usr/bin/env bash
# interference-bench.sh - interference-aware placement in omru-sim (issue
# 30): on the shared workloads with the T4 profiles and a co-location
# table, the makespan and mean JCT of omru (the plan prices what co-located
# jobs cost each other) against omru-oblivious (the same planner blind to
# it) and backfill, all three in one run on the same truth (the simulator
# slows co-located jobs by the same table).  Then the control: without a
# table omru and omru-oblivious must give the same schedule.
#
# The table (default data/colocation/t4-{pairs,signals}.csv): Lucid's
# measured pairs (two jobs on one GPU: the strongly interfering case) with
# the T4 models' unmeasured pairs predicted from their solo signals.
#
# usage: tests/bench/interference-bench.sh [BUILD_DIR]   (default: build/)
#   OMRU_COLOC_PAIRS, OMRU_COLOC_SIGNALS   another table
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
sim=$build/sim/omru-sim
[ -x "$sim" ] || { echo "interference-bench: $sim not built (run scripts/build.sh)" >&2; exit 2; }
data=$top/data
pairs=${OMRU_COLOC_PAIRS:-$data/colocation/t4-pairs.csv}
signals=${OMRU_COLOC_SIGNALS:-$data/colocation/t4-signals.csv}
overhead=30

echo "# omru-sim $("$sim" --version | awk '{print $2}'), $(date -u +%Y-%m-%d); restart overhead ${overhead} s"
echo "# table: ${pairs#"$top/"} + ${signals#"$top/"}"
echo
printf '| workload | cluster | objective | omru makespan | oblivious | backfill | omru / oblivious | omru / backfill | mean JCT omru / oblivious | omru / backfill |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
same=0 cases=0
# Offline batches plan the makespan; the online Philly windows mean JCT
# (--objective jct, as an online site configures select/omru).
for c in omru-batch-16-1:4x4:makespan omru-batch-24-1:4x4:makespan \
         omru-batch-48-1:8x4:makespan omru-batch-64-1:8x4:makespan \
         batch-32-1:4x4:makespan batch-32-2:8x4:makespan \
         philly-8h-1:16x4:jct philly-8h-2:16x4:jct philly-8h-3:16x4:jct; do
  IFS=: read -r w cl obj <<<"$c"
  args=(--cluster "$cl" --profiles "$data/profiles-t4.csv" --objective "$obj"
        --workload "$data/workloads/$w.csv" --restart-overhead "$overhead")
  out=$("$sim" compare "${args[@]}" --policies omru,omru-oblivious,backfill \
        --colocation "$pairs" --colocation-signals "$signals")
  # makespan is column 2, avg JCT column 4 of each policy's row.
  read -r m_o j_o < <(awk '$1 == "omru" {print $2, $4}' <<<"$out")
  read -r m_b j_b < <(awk '$1 == "omru-oblivious" {print $2, $4}' <<<"$out")
  read -r m_f j_f < <(awk '$1 == "backfill" {print $2, $4}' <<<"$out")
  awk -v w="$w" -v c="$cl" -v o="$obj" -v mo="$m_o" -v mb="$m_b" -v mf="$m_f" \
      -v jo="$j_o" -v jb="$j_b" -v jf="$j_f" \
    'BEGIN { printf "| %s | %s | %s | %.0f | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f |\n",
             w, c, o, mo, mb, mf, mo / mb, mo / mf, jo / jb, jo / jf }'
  # Control: no table, the two must agree exactly.
  a=$("$sim" "${args[@]}" --policy omru --schedule-out - | md5sum)
  b=$("$sim" "${args[@]}" --policy omru-oblivious --schedule-out - | md5sum)
  cases=$((cases + 1))
  [ "$a" = "$b" ] && same=$((same + 1))
done
echo
echo "without a table omru and omru-oblivious gave the same schedule in $same of $cases cases"
[ "$same" = "$cases" ]
