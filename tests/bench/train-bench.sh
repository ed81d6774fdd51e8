#!/usr/bin/env bash
# train-bench.sh - omru-train against a PyTorch Python script doing the same
# training (tests/bench/train_bench.py: same model, data, batch, augmentation,
# torch threads), in one run on this machine; prints samples/s of both and
# their ratio, and the data loader's images/s per worker.  Timings are
# reported, never asserted.
#
# usage: tests/bench/train-bench.sh [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
train=$build/trainer/omru-train
[ -x "$train" ] || { echo "train-bench: $train not built (libtorch missing?)" >&2; exit 2; }
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "train-bench: /usr/bin/python3 lacks torch (apt-get install python3-torch)" >&2; exit 2; }
threads=${OMRU_BENCH_THREADS:-1}
work=$(mktemp -d /tmp/omru-train-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$build/trainer/omru-cifar-synth" --out "$work/data" --train 10000 --test 100 >/dev/null

echo "# omru-train $("$train" --version | cut -d' ' -f2-) vs PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)'), $(nproc) cores, torch threads $threads"
printf '%-9s %6s %7s %14s %14s %7s\n' model batch steps omru_train_s/s pytorch_s/s ratio
bench() { # MODEL BATCH STEPS
  local m=$1 b=$2 s=$3 ours theirs
  # Epoch 2's rate: epoch 1 pays the warm-up (allocation, first batches).
  "$train" --data "$work/data" --model "$m" --batch-size "$b" --threads "$threads" \
    --loader-workers 1 --epochs 2 --max-steps-per-epoch "$s" --warmup-epochs 0 \
    --metrics "$work/$m.json" 2>/dev/null
  ours=$(grep '"epoch": 2,' "$work/$m.json" | sed -E 's/.*"samples_per_s": ([^,]*).*/\1/')
  theirs=$(/usr/bin/python3 "$top/tests/bench/train_bench.py" --data "$work/data" --model "$m" \
    --batch-size "$b" --threads "$threads" --steps "$s" --warmup 3)
  printf '%-9s %6s %7s %14.1f %14.1f %7.3f\n' "$m" "$b" "$s" "$ours" "$theirs" \
    "$(awk -v a="$ours" -v b="$theirs" 'BEGIN{print a/b}')"
}
bench tiny 128 60
bench resnet18 32 12
echo
for w in 1 2; do
  "$train" --data "$work/data" --batch-size 128 --loader-workers "$w" --loader-benchmark 60
done
echo
# Profile mode: the extrapolated epoch time against the full epoch measured
# right after it (goal: within 5 %), and the share of the job the profiling
# took (one-epoch jobs, so the share is an upper bound): tiny on the 10,000
# images, resnet18 on 1,024 (an epoch of 32 steps).
"$build/trainer/omru-cifar-synth" --out "$work/small" --train 1024 --test 100 >/dev/null
for m in tiny resnet18; do
  b=128 set=data; [ "$m" = resnet18 ] && b=32 set=small
  share=$("$train" --data "$work/$set" --model "$m" --batch-size "$b" --threads "$threads" \
    --loader-workers 1 --epochs 1 --profile-gpus 1 --profile-steps 8 --profile-warmup 2 \
    --profile-out "$work/prof-$m.csv" --metrics "$work/prof-$m.json" 2>&1 |
    sed -n -E 's/.*profiling took [0-9.]+ s, ([0-9.]+)% .*/\1/p')
  awk -v m="$m" -v share="$share" '
    { match($0, /"epoch_s": [0-9.e+-]+/); e = substr($0, RSTART + 11, RLENGTH - 11)
      match($0, /"profiled_epoch_s": [0-9.e+-]+/); p = substr($0, RSTART + 20, RLENGTH - 20) }
    END { printf "profile %-9s extrapolated %.2f s, measured %.2f s: error %+.1f%%, profiling %s%% of the job\n",
                 m, p, e, 100 * (p - e) / e, share }' "$work/prof-$m.json"
done
