#!/usr/bin/env bash
# colocation-cpu.sh - measures what two omru-train runs on this machine's
# shared CPU cores cost each other (issue 30: the pairs measured here, on
# CPU): every model alone, then every pair of models at once, each run
# with --threads T: all cores (the default) and a pair shares every core,
# as two jobs' trainers and loaders share a node's CPUs without core
# binding; 1 and on a 2-core machine each has a core of its own and they
# share the caches and memory bandwidth only.  A run's speed is its
# samples/s over its second epoch (the first pays the warm-up); a pair's
# slowdown is alone / beside the other for each side, the other training
# all along.  Writes the pairs in the
# co-location format (doc/sim-formats.md) to OUT (default stdout) and the
# solo rates to standard error.  Real measurements, never asserted.
#
# usage: tests/bench/colocation-cpu.sh [BUILD_DIR] [OUT]
# env:   OMRU_COLOC_MODELS ("tiny resnet18"), OMRU_COLOC_STEPS (steps per
#        epoch; default 70 for tiny, 8 otherwise), OMRU_COLOC_THREADS (nproc)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
out=${2:-/dev/stdout}
train=$build/trainer/omru-train
[ -x "$train" ] || { echo "colocation-cpu: $train not built (libtorch missing?)" >&2; exit 2; }
models=${OMRU_COLOC_MODELS:-tiny resnet18}
threads=${OMRU_COLOC_THREADS:-$(nproc)}
work=$(mktemp -d /tmp/omru-coloc-cpu.XXXXXX)
trap 'jobs -p | xargs -r kill 2>/dev/null; rm -rf "$work"' EXIT
"$build/trainer/omru-cifar-synth" --out "$work/data" --train 10000 --test 100 >/dev/null

batch_of() { [ "$1" = tiny ] && echo 128 || echo 32; }
steps_of() { echo "${OMRU_COLOC_STEPS:-$([ "$1" = tiny ] && echo 70 || echo 8)}"; }
# cmd_of MODEL TAG EPOCHS: sets cmd, one training run (EPOCHS epochs of
# the model's steps), metrics to TAG.json.
cmd_of() {
  cmd=("$train" --data "$work/data" --model "$1" --batch-size "$(batch_of "$1")"
       --threads "$threads" --loader-workers 1 --epochs "$3" --warmup-epochs 0
       --max-steps-per-epoch "$(steps_of "$1")" --metrics "$work/$2.json")
}
run() { # MODEL TAG: two epochs, in the foreground
  cmd_of "$1" "$2" 2
  "${cmd[@]}" >/dev/null 2>"$work/$2.err"
}
# beside MODEL OTHER TAG: MODEL's run while OTHER trains all along (started
# first, killed after: the trainer itself, no shell between).
beside() {
  cmd_of "$2" "$3-other" 100000
  "${cmd[@]}" >/dev/null 2>&1 &
  local other=$!
  sleep 3
  run "$1" "$3"
  kill "$other" 2>/dev/null || true
  wait "$other" 2>/dev/null || true
}
rate() { grep '"epoch": 2,' "$work/$1.json" | sed -E 's/.*"samples_per_s": ([^,]*).*/\1/'; }

declare -A alone
for m in $models; do
  run "$m" "alone-$m"
  alone[$m]=$(rate "alone-$m")
  echo "colocation-cpu: $m alone: ${alone[$m]} samples/s ($threads threads, $(nproc) cores)" >&2
done
echo "model_a,model_b,slowdown_a,slowdown_b,samples" >"$out"
read -r -a list <<<"$models"
for ((i = 0; i < ${#list[@]}; i++)); do
  for ((j = i; j < ${#list[@]}; j++)); do
    a=${list[i]} b=${list[j]}
    beside "$a" "$b" "pair-$a-$b-a"
    ra=$(rate "pair-$a-$b-a") rb=$ra
    if [ "$a" != "$b" ]; then
      beside "$b" "$a" "pair-$a-$b-b"
      rb=$(rate "pair-$a-$b-b")
    fi
    awk -v a="$a" -v b="$b" -v sa="${alone[$a]}" -v sb="${alone[$b]}" -v ra="$ra" -v rb="$rb" \
      'BEGIN { printf "%s,%s,%.3f,%.3f,1\n", a, b, sa / ra, sb / rb }' >>"$out"
  done
done
