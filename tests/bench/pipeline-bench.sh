#!/usr/bin/env bash
# pipeline-bench.sh - how well the pipeline partitioner predicts omru-train's
# pipeline mode on CPU processes, and what recomputation saves and costs
# (issue 15's benchmark).  In this one run, on the local cluster (two
# slurmd nodes, one process on each, Gloo over loopback):
#   1. omru-train --profile-layers: MODEL's blocks alone, one thread, at the
#      micro-batch size and 4x it;
#   2. for each split in SPLITS (omru-train --pipeline's form; "B:2" is data
#      parallelism on both processes): omru-partition --evaluate predicts the
#      time per iteration (GPipe schedule, the link speeds below), and
#      srun -N2 -n2 omru-train --parallel pipeline measures it (median epoch
#      time of the epochs after the first / steps); goal: within 15%;
#   3. the first split again recomputing RECOMPUTE: each stage's measured
#      peak tensor memory and the time per iteration, against the same split
#      without, and the time the profile predicts it adds.
# Link speeds are assumptions for loopback (OMRU_BENCH_GBPS, OMRU_BENCH_
# LATENCY_US); at these activation sizes they move predictions by < 1%.
# glibc keeps freed memory (MALLOC_* below) in every run and in the
# profile: on this sandbox, returning large blocks to the system and
# faulting them in again made a resnet18 step 1.7x slower than its blocks
# timed alone (1.2 s against 0.71 s; 0.71 s with the settings).
# Reports, never asserts.  Needs root and omru-train (libtorch).
#
# usage: tests/bench/pipeline-bench.sh [BUILD_DIR]
# env:   OMRU_BENCH_MODEL (resnet18), OMRU_BENCH_SPLITS ("5:1,10:1 3:1,10:1 10:2"),
#        OMRU_BENCH_RECOMPUTE (layer1.0,layer1.1,layer2.0), OMRU_BENCH_BATCH (32 per
#        process), OMRU_BENCH_MICRO (8), OMRU_BENCH_STEPS (8), OMRU_BENCH_EPOCHS (3),
#        OMRU_BENCH_GBPS (2), OMRU_BENCH_LATENCY_US (50), OMRU_BENCH_PORT_BASE (17800)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
train=$build/trainer/omru-train synth=$build/trainer/omru-cifar-synth
part=$build/partition/omru-partition
model=${OMRU_BENCH_MODEL:-resnet18}
splits=${OMRU_BENCH_SPLITS:-5:1,10:1 3:1,10:1 10:2}
recompute=${OMRU_BENCH_RECOMPUTE:-layer1.0,layer1.1,layer2.0}
batch=${OMRU_BENCH_BATCH:-32} micro=${OMRU_BENCH_MICRO:-8}
steps=${OMRU_BENCH_STEPS:-8} epochs=${OMRU_BENCH_EPOCHS:-3}
gbps=${OMRU_BENCH_GBPS:-2} lat=${OMRU_BENCH_LATENCY_US:-50}
global=$((2 * batch)) m=$((2 * batch / micro))
[ "$(id -u)" = 0 ] || { echo "pipeline-bench: needs root (starts Slurm daemons)" >&2; exit 2; }
[ -x "$train" ] || { echo "pipeline-bench: no $train (configure found no libtorch?)" >&2; exit 2; }

work=$(mktemp -d /tmp/omru-pipebench.XXXXXX)
chmod 755 "$work"
state=$work/c
trap '"$top/scripts/cluster/stop.sh" --state "$state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
mkdir -p "$state"
export MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=17179869184 MALLOC_TOP_PAD_=536870912
"$top/scripts/cluster/start.sh" --state "$state" --nodes 2 --select-type select/cons_tres \
  --port-base "${OMRU_BENCH_PORT_BASE:-17800}" >/dev/null
# shellcheck disable=SC1091
. "$state/env.sh"
"$synth" --out "$work/data" --train $((global * steps)) --test 64 --seed 3 >/dev/null
"$train" --profile-layers "$work/layers.csv" --model "$model" --batch-size $((4 * m)) \
  --threads 1 >/dev/null

# per_iter FILE: the median epoch_s over epochs 2.. divided by the steps.
per_iter() {
  grep -v '"epoch": 1,' "$1" | sed -E 's/.*"epoch_s": ([0-9.e+-]+).*/\1/' | sort -g |
    awk -v s="$steps" '{ v[NR] = $1 } END { x = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", 1000 * x / s }'
}
predict() { # SPLIT MICRO
  "$part" --layers "$work/layers.csv" --batch "$global" --nodes 2 --schedule gpipe \
    --network-gbps "$gbps" --pcie-gbps "$gbps" --latency-us "$lat" \
    --evaluate "$1" --micro-batches "$2" | sed -nE 's/^iteration: ([0-9.]+) ms predicted.*/\1/p'
}
common=(--data "$work/data" --model "$model" --threads 1 --loader-workers 1 --batch-size "$batch"
        --epochs "$epochs" --warmup-epochs 0 --no-augment)
run() { # NAME SPLIT [ARGS...]: trains; its metrics in NAME.json, stderr in NAME.err
  local name=$1 split=$2; shift 2
  if [[ $split == *,* ]]; then
    srun -N2 -n2 "$train" "${common[@]}" --parallel pipeline --pipeline "$split" \
      --micro-batches "$micro" "$@" --metrics "$work/$name.json" 2>"$work/$name.err" >/dev/null
  else # one stage: plain data parallelism, one micro-batch per process
    srun -N2 -n2 "$train" "${common[@]}" "$@" --metrics "$work/$name.json" \
      2>"$work/$name.err" >/dev/null
  fi
}

echo "# pipeline-bench: $model, $(nproc) cores, global batch $global, $micro micro-batches of $m" \
     "(data parallel: 1 per process), $steps steps x $epochs epochs; links $gbps GB/s, $lat us"
printf '%-22s %13s %12s %8s\n' split predicted_ms measured_ms error%
i=0
for split in $splits; do
  i=$((i + 1))
  mb=$micro; [[ $split == *,* ]] || mb=2
  pred=$(predict "$split" "$mb")
  run "s$i" "$split"
  meas=$(per_iter "$work/s$i.json")
  err=$(awk -v p="$pred" -v m="$meas" 'BEGIN { printf "%+.1f", 100 * (p - m) / m }')
  label=$split; [[ $split == *,* ]] || label="$split (data parallel)"
  printf '%-22s %13s %12s %8s\n' "$label" "$pred" "$meas" "$err"
done

first=${splits%% *}
run rec "$first" --recompute "$recompute"
keep_t=$(per_iter "$work/s1.json") rec_t=$(per_iter "$work/rec.json")
# Predicted extra: the recomputed blocks' forward at m samples, for each of
# the micro-batches (the profile's two batch sizes give the line).
extra=$(awk -F, -v list=",$recompute," -v m="$m" -v M="$micro" '
  !/^#/ && NR > 1 && index(list, "," $1 ",") { n[$1]++; b[$1, n[$1]] = $2; f[$1, n[$1]] = $3 }
  END { for (l in n) { b1 = b[l, 1]; b2 = b[l, 2]; f1 = f[l, 1]; f2 = f[l, 2]
          s = (f1 - f2) / (b1 - b2); a = f1 - s * b1; if (a < 0) { a = 0; s = (f1 + f2) / (b1 + b2) }
          t += a + s * m }
        printf "%.1f", t * M }' "$work/layers.csv")
echo "# recomputing $recompute in split $first:"
for s in 0 1; do
  k=$(sed -nE "s/.*stage $s, .*peak tensor memory ([0-9.]+) MiB.*/\\1/p" "$work/s1.err")
  r=$(sed -nE "s/.*stage $s, .*peak tensor memory ([0-9.]+) MiB.*/\\1/p" "$work/rec.err")
  echo "#   stage $s peak tensor memory: $k MiB -> $r MiB"
done
echo "#   time per iteration: $keep_t ms -> $rec_t ms (+$(awk -v a="$keep_t" -v b="$rec_t" \
  'BEGIN { printf "%.1f", b - a }') ms measured, +$extra ms of recomputed forward predicted)"
