# slurm-bench-lib.sh - what the real-Slurm benches (slurm-makespan.sh,
# slurm-burst.sh, slurm-elastic.sh) share: sourced, never run.
#
# bench_setup NAME BUILD SCALE [OMRU_CONF_LINE...]: checks for root and a
# built plugin, makes $work (removed at exit, with the cluster in $state
# stopped), writes $work/profiles.csv (the T4 profiles time-scaled by
# SCALE wall seconds per profiled second), $work/plugstack.conf and
# $work/omru.conf (makespan objective, those profiles, CpusPerGpu=1, then
# the extra lines), and points the job emulator at the profiles.
bench_setup() {
  local name=$1 build=$2 scale=$3
  shift 3
  [ "$(id -u)" = 0 ] || { echo "$name: needs root (starts Slurm daemons)" >&2; exit 2; }
  [ -f "$build/select_plugin/.libs/select_omru_cons_tres.so" ] ||
    { echo "$name: build $build first" >&2; exit 2; }
  work=$(mktemp -d "/tmp/omru-$name.XXXXXX")
  chmod 755 "$work" # munged needs a world-searchable socket path
  state=$work/c
  trap '"$top/scripts/cluster/stop.sh" --state "$state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  awk -F, -v s="$scale" 'BEGIN { OFS = "," } NR == 1 || /^#/ { print; next }
    { $3 = sprintf("%.6f", $3 * s); print }' "$top/data/profiles-t4.csv" >"$work/profiles.csv"
  echo "required $build/spank/.libs/spank_omru.so run_dir=$work/run" >"$work/plugstack.conf"
  printf '%s\n' Objective=makespan "ProfileFile=$work/profiles.csv" CpusPerGpu=1 "$@" \
    >"$work/omru.conf"
  export OMRU_EMU_PROFILES=$work/profiles.csv OMRU_EMU_TIME_SCALE=1
}

# release_and_wait LIST: releases the held jobs of LIST (comma-separated
# ids), waits until they ended and sacct has them all; sets MAKESPAN
# (release to the last End, seconds) and FAILED (jobs not COMPLETED).
release_and_wait() {
  local list=$1 t0 last
  t0=$(date +%s.%N)
  scontrol release "$list"
  while squeue -h -j "$list" 2>/dev/null | grep -q .; do sleep 1; done
  for _ in $(seq 20); do
    [ "$(sacct -n -X -j "$list" -o State | grep -cE 'PENDING|RUNNING|COMPLETING')" = 0 ] && break
    sleep 0.5
  done
  last=$(sacct -n -X -P -j "$list" -o End | xargs -I{} date -d {} +%s | sort -n | tail -n1)
  MAKESPAN=$(awk -v a="$t0" -v b="$last" 'BEGIN { printf "%.0f", b - a }')
  FAILED=$(sacct -n -X -P -j "$list" -o State | grep -vc COMPLETED || true)
}

# sdiag_field SECTION FIELD [SDIAG_OUTPUT]: FIELD ("Mean cycle", "Max cycle",
# "Total cycles") of sdiag's SECTION ("Main schedule statistics",
# "Backfilling stats"), from the output given or a fresh sdiag.
sdiag_field() {
  local out=${3-$(sdiag)}
  awk -v s="^$1" -v f="$2:" '$0 ~ s { in_s = 1 }
    in_s && index($0, f) { print $NF; exit }' <<<"$out"
}
