#!/usr/bin/env bash
# profile-bench.sh - how right and how cheap in-job profiling is, on CPU
# (issue 11's benchmark).  For each model, on the local cluster (two slurmd
# nodes, Gloo over loopback), in this one run:
#   profiled  srun -N2 -n2 omru-train --profile-gpus 1,2: times
#             --profile-steps after a warm-up on 1 and on 2 processes,
#             extrapolates the epoch time, then trains EPOCHS epochs on 2
#   plain1    srun -N1 -n1 omru-train, EPOCHS1 epochs, no profiling
# and reports, per process count, the extrapolated epoch time against the
# real one (the median epoch_s of the run at that count; error goal <= 5%),
# and the profiling's share of a 20-epoch job, profile_s / (profile_s +
# 20 x real epoch time at 2) (goal <= 3%), next to the share the profiled
# run itself printed for its EPOCHS epochs.  Reports, never asserts.
# Needs root (starts Slurm daemons) and omru-train (libtorch).
#
# usage: tests/bench/profile-bench.sh [BUILD_DIR]
# env:   OMRU_BENCH_MODELS ("tiny resnet18"), OMRU_BENCH_IMAGES_tiny (50000, CIFAR-10's size),
#        OMRU_BENCH_IMAGES_resnet18 (2048), OMRU_BENCH_EPOCHS (3),
#        OMRU_BENCH_BATCH (32), OMRU_BENCH_PORT_BASE (17600)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
train=$build/trainer/omru-train synth=$build/trainer/omru-cifar-synth
models=${OMRU_BENCH_MODELS:-tiny resnet18}
epochs=${OMRU_BENCH_EPOCHS:-3}
batch=${OMRU_BENCH_BATCH:-32}
[ "$(id -u)" = 0 ] || { echo "profile-bench: needs root (starts Slurm daemons)" >&2; exit 2; }
[ -x "$train" ] || { echo "profile-bench: no $train (configure found no libtorch?)" >&2; exit 2; }

work=$(mktemp -d /tmp/omru-pbench.XXXXXX)
chmod 755 "$work" # munged and the job's user need a searchable path
state=$work/c
trap '"$top/scripts/cluster/stop.sh" --state "$state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
mkdir -p "$state"
"$top/scripts/cluster/start.sh" --state "$state" --nodes 2 --select-type select/cons_tres \
  --port-base "${OMRU_BENCH_PORT_BASE:-17600}" >/dev/null
# shellcheck disable=SC1091
. "$state/env.sh"

# median FILE: the median epoch_s of a metrics file.
median() {
  sed -E 's/.*"epoch_s": ([0-9.e+-]+).*/\1/' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
row() { awk -F, -v g="$2" '$2 == g { print $3 }' "$1" | tail -n1; }

echo "# profile-bench: $(nproc) cores, batch $batch per process, --profile-steps 20 after 5, $epochs epochs per run"
printf '%-9s %6s %5s %12s %10s %7s\n' model images procs profiled_s real_s error%
for m in $models; do
  var=OMRU_BENCH_IMAGES_$m
  default=2048; [ "$m" = tiny ] && default=50000
  images=${!var:-$default}
  "$synth" --out "$work/data-$m" --train "$images" --test 256 --seed 3 >/dev/null
  common=(--data "$work/data-$m" --model "$m" --threads 1 --loader-workers 1
          --batch-size "$batch" --epochs "$epochs" --warmup-epochs 0)
  srun -N2 -n2 "$train" "${common[@]}" --profile-gpus 1,2 --profile-out "$work/$m.rows" \
    --metrics "$work/$m.m2" 2>"$work/$m.err2" >/dev/null
  srun -N1 -n1 "$train" "${common[@]}" --metrics "$work/$m.m1" 2>"$work/$m.err1" >/dev/null
  real1=$(median "$work/$m.m1") real2=$(median "$work/$m.m2")
  for g in 1 2; do
    p=$(row "$work/$m.rows" "$g"); r=$real1; [ "$g" = 2 ] && r=$real2
    awk -v m="$m" -v n="$images" -v g="$g" -v p="$p" -v r="$r" 'BEGIN {
      printf "%-9s %6d %5d %12.3f %10.3f %+7.1f\n", m, n, g, p, r, (p - r) / r * 100 }'
  done
  profile_s=$(grep -o '"profile_s": [0-9.e+-]*' "$work/$m.m2" | cut -d' ' -f2)
  own=$(sed -n 's/.*profiling took .*, \([0-9.]*\)% of the job.*/\1/p' "$work/$m.err2")
  # Profiling costs a fixed number of steps, so its share depends on the
  # epoch: a cut-down set (resnet18's 2048 images, to keep the bench short)
  # overstates it.  Also given for CIFAR-10's 50,000 images, the epoch time
  # scaled by the images (it is linear in them: same steps, more of them).
  awk -v m="$m" -v p="$profile_s" -v r="$real2" -v own="$own" -v e="$epochs" -v n="$images" 'BEGIN {
    full = r * 50000 / n
    printf "%-9s profiling %.2f s: %.2f%% of a 20-epoch job on 2 processes at %d images, %.2f%% at 50000 (%s%% of this %d-epoch run)\n",
      m, p, 100 * p / (p + 20 * r), n, 100 * p / (p + 20 * full), own, e }'
done
