#!/usr/bin/env bash
# colocation-cpu.sh - measures what two omru-train runs on this machine's
# shared CPU cores cost each other (issue 30: the pairs measured here, on
# CPU): every model alone, then every pair of models at once, each run
# with --threads T (default: all cores, so a pair shares every core, as two
# jobs' trainers and loaders share a node's CPUs).  A run's speed is its
# samples/s over its second epoch (the first pays the warm-up); a pair's
# slowdown is alone / beside the other for each side, the other training
# all along.  Writes the pairs in the
# co-location format (doc/sim-formats.md) to OUT (default stdout) and the
# solo rates to standard error.  Real measurements, never asserted.
#
# usage: tests/bench/colocation-cpu.sh [BUILD_DIR] [OUT]
# env:   OMRU_COLOC_MODELS ("tiny resnet18"), OMRU_COLOC_STEPS (steps per
#        epoch; default 40 for tiny, 8 otherwise), OMRU_COLOC_THREADS (nproc)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
out=${2:-/dev/stdout}
train=$build/trainer/omru-train
[ -x "$train" ] || { echo "colocation-cpu: $train not built (libtorch missing?)" >&2; exit 2; }
models=${OMRU_COLOC_MODELS:-tiny resnet18}
threads=${OMRU_COLOC_THREADS:-$(nproc)}
work=$(mktemp -d /tmp/omru-coloc-cpu.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$build/trainer/omru-cifar-synth" --out "$work/data" --train 10000 --test 100 >/dev/null

batch_of() { [ "$1" = tiny ] && echo 128 || echo 32; }
steps_of() { echo "${OMRU_COLOC_STEPS:-$([ "$1" = tiny ] && echo 40 || echo 8)}"; }
# run MODEL TAG [STEPS]: one training run of two epochs, metrics to TAG.json.
run() {
  local m=$1 tag=$2 steps=${3:-$(steps_of "$1")}
  "$train" --data "$work/data" --model "$m" --batch-size "$(batch_of "$m")" \
    --threads "$threads" --loader-workers 1 --epochs 2 --warmup-epochs 0 \
    --max-steps-per-epoch "$steps" --metrics "$work/$tag.json" >/dev/null 2>"$work/$tag.err"
}
# beside MODEL OTHER TAG: MODEL's run while OTHER trains all along (started
# first, stopped after).
beside() {
  run "$2" "$3-other" 100000 &
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
