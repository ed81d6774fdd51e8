#!/usr/bin/env bash
# fairness-bench.sh - issue 43's bench: nobody worse off than under Slurm's
# own policy.  For every shared workload and the two-user streams, omru-sim
# runs backfill (Slurm's policy at each job's asked --gpus, the reference
# select/omru bounds its plans by) and omru with the settings a site gets
# by default, and, for what the bound costs, omru without it (--no-bound)
# and under each objective.  Per job JCT_omru / JCT_backfill: the share of
# jobs more than 5% later (Shockwave's unfair fraction), p99 and worst, and
# per account the share of GPU-seconds; the gain kept: geomean makespan and
# mean JCT against backfill.  Every number from this one run.  Reports,
# never asserts.
#
# Besides the shared workloads: the job mix of the real limits bench
# (tests/bench/slurm-limits.sh, seeds 1-4: 24 jobs, one every 2 s, on 4x4
# with its site limits -- node lists, CPUs and memory, nobody's GPU cap, a
# license -- its time-scaled profiles, resizing off as there), so the
# sim shows what the real bench measures, in seconds instead of minutes.
#
# Goals (issue 43): later>5% <= 5% of each workload, p99 <= 1.10, worst
# <= 1.5; geomean makespan <= 0.70 x and mean JCT <= 0.60 x backfill's.
#
# usage: tests/bench/fairness-bench.sh [BUILD_DIR] [-- OMRU_SIM_ARGS...]
#   OMRU_SIM_ARGS go to every omru run (e.g. --objective jct).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$top/build
if [ $# -gt 0 ] && [ "$1" != -- ]; then build=$1; shift; fi
[ "${1:-}" = -- ] && shift
extra=("$@")
sim=$build/sim/omru-sim
[ -x "$sim" ] || { echo "fairness-bench: $sim not built" >&2; exit 2; }
data=$top/data
common=(--profiles "$data/profiles-t4.csv" --restart-overhead 30)

rows=$(mktemp)
limits=$(mktemp -d)
trap 'rm -rf "$rows" "$limits"' EXIT

cluster_of() { case $(basename "$1") in philly-*) echo 16x4 ;; *) echo 4x4 ;; esac; }

# row NAME WORKLOAD OMRU_ARGS...: one line of the table for omru run with
# OMRU_ARGS, against backfill in the same compare.
row() {
  local name=$1 w=$2; shift 2
  local -a site=("${common[@]}")
  [[ $w != "$limits"/* ]] || site=("${limits_common[@]}")
  "$sim" compare --cluster "$(cluster_of "$w")" --workload "$w" "${site[@]}" \
    --policies backfill,omru --baseline backfill --json "$@" |
    python3 -c '
import json, sys
name, label = sys.argv[1], sys.argv[2]
runs = {}
for line in sys.stdin:
    line = line.strip()
    if line:
        o = json.loads(line)
        runs[o["policy"]] = o
b, o = runs["backfill"], runs["omru"]
v = o["vs_baseline"]
print("%-22s %-10s %8.3f %8.3f %8.1f%% %8.3f %8.3f  %s" % (
    label, name, o["makespan_s"] / b["makespan_s"], o["avg_jct_s"] / b["avg_jct_s"],
    100 * v["later_5pct"], v["p99_ratio"], v["worst_ratio"],
    " ".join("%s:%.0f%%/%.0f%%" % (a["account"], 100 * a["gpu_s_share"], 100 * a["jobs"] / o["jobs"])
             for a in o.get("accounts", []))))
with open(sys.argv[3], "a") as f:
    f.write("%s %s %.6f %.6f %.6f %.6f %.6f\n" % (name, label.split()[0], o["makespan_s"] / b["makespan_s"],
            o["avg_jct_s"] / b["avg_jct_s"], v["later_5pct"], v["p99_ratio"], v["worst_ratio"]))
' "$name" "$(basename "$w" .csv) $(cluster_of "$w")" "$rows"
}

printf '%-22s %-10s %8s %8s %9s %8s %8s  %s\n' workload omru makespan mean_jct 'later>5%' p99 worst \
  'account:gpu_s/jobs share'
# The limits bench's mixes, as slurm-limits.sh makes them (its profiles
# time-scaled by 0.01 with every span priced, slurm-bench-lib.sh).
# shellcheck source=tests/bench/slurm-bench-lib.sh
. "$top/tests/bench/slurm-bench-lib.sh"
helper=$top/tests/bench/limits_idle.py
awk -F, 'BEGIN { OFS = "," } NR == 1 || /^#/ { print; next }
  { $3 = sprintf("%.6f", $3 * 0.01); print }' "$data/profiles-t4.csv" >"$limits/t4.csv"
profiles_with_spreads "$limits/t4.csv" "$limits/profiles.csv" 1.3
# shellcheck disable=SC2207 # the site's options, one word each
limits_common=(--profiles "$limits/profiles.csv" --no-resize $(python3 "$helper" sim-args))
for seed in 1 2 3 4; do
  python3 "$helper" mix --seed "$seed" --jobs 24 --scale 0.01 \
    --profiles "$limits/profiles.csv" >"$limits/mix-$seed.csv"
  python3 "$helper" workload --mix "$limits/mix-$seed.csv" --gap 2 --sched omru \
    >"$limits/limits-stream-$seed.csv"
done

for w in "$data"/workloads/*.csv "$limits"/limits-stream-*.csv; do
  row default "$w" "${extra[@]}"
  row no-bound "$w" --no-bound "${extra[@]}"
done
echo "(makespan, mean_jct: omru / backfill; later>5%, p99, worst: per job JCT_omru / JCT_backfill)"
echo
echo "# over the workloads, per setting: geomean makespan and mean JCT against backfill,"
echo "# and the goals met (later>5% <= 5%, p99 <= 1.10, worst <= 1.5 on each workload;"
echo "# geomean makespan <= 0.70, mean JCT <= 0.60)"
awk '{ n[$1]++; m[$1] += log($3); j[$1] += log($4)
       if ($5 > 0.05) l[$1]++; if ($6 > 1.10) p[$1]++; if ($7 > 1.5) w[$1]++ }
  END { for (k in n) {
    gm = exp(m[k] / n[k]); gj = exp(j[k] / n[k])
    printf "%-10s geomean makespan %.3f%s, mean JCT %.3f%s; workloads over: later>5%% %d, p99 %d, worst %d (of %d)\n",
      k, gm, gm <= 0.70 ? " (met)" : " (NOT met)", gj, gj <= 0.60 ? " (met)" : " (NOT met)",
      l[k] + 0, p[k] + 0, w[k] + 0, n[k] } }' "$rows" | sort
