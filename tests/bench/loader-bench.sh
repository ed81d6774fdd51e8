#!/usr/bin/env bash
# loader-bench.sh - data-loader CPU shares (A-Dloader) against an even split
# of the same CPUs (issue 12's benchmark), from real measurements.
#
#  1. Measures job kinds with the real omru-train on this machine (one
#     process, one compute thread, one loader worker, OMRU_LOADER_REPORT):
#       decode   tiny CNN on 500x375 JPEGs (ImageNet's typical size)
#                cropped to 32 px: light model, heavy decode
#       compute  resnet18 on CIFAR records: heavy model, light decode
#       mixed    tiny CNN on the same JPEGs cropped to 96 px
#     Each report gives the kind's model: seconds of compute per sample c
#     and samples per worker-second r (trainer/loader_share.hpp).
#  2. The model's prediction error: the decode kind's model, fitted at one
#     worker, predicts samples/s at 1..MAXW workers; each is then measured.
#     This machine's cores bound MAXW, and where workers and the step
#     outnumber the cores, the prediction is also capped by the cores (the
#     allocator never hands out more workers than the node has CPUs; this
#     machine cannot give each thread one).
#  3. tests/bench/loader-bench (the allocator and the even split, on a node
#     of OMRU_BENCH_CPUS CPUs hosting those kinds: two co-located, then a
#     sequence arriving and leaving) prints the node's normalised throughput
#     and makespan per policy, and ends with
#       loader shares vs even split: throughput x R, makespan x M
#     A 2-core machine cannot host co-located jobs that compete for loader
#     CPUs, so this step is a simulation of the node with the measured
#     models; the shares in a real cluster are tests/integration/loader.test.
# Reports, never asserts.
#
# usage: tests/bench/loader-bench.sh [BUILD_DIR]
# env:   OMRU_BENCH_CPUS (a number, or "contended", the default: one CPU
#        fewer than the kinds need together at full speed; a table of other
#        sizes follows either way), OMRU_BENCH_SECONDS (12, per measurement)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/build}
train=$build/trainer/omru-train
cpus=${OMRU_BENCH_CPUS:-contended}
secs=${OMRU_BENCH_SECONDS:-12}
[ -x "$train" ] || { echo "loader-bench: no $train (configure found no libtorch?)" >&2; exit 2; }
make -C "$build" -s tests/bench/loader-bench >/dev/null

work=$(mktemp -d /tmp/omru-lbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$build/trainer/omru-cifar-synth" --out "$work/cifar" --train 8192 --test 100 >/dev/null
"$build/trainer/omru-jpeg-synth" --out "$work/jpeg" --images 2048 --classes 10 --size 500x375 >/dev/null

# measure NAME WORKERS ARGS...: runs omru-train ~secs seconds with that many
# loader workers; prints its last report ("workers=W samples_s=X wait=F rate=R").
measure() {
  local name=$1 w=$2; shift 2
  local report=$work/report.$name.$w
  rm -f "$report"
  OMRU_LOADER_REPORT=$report timeout -s INT "$secs" "$train" --threads 1 \
    --loader-workers "$w" --batch-size 32 --epochs 1000 --warmup-epochs 0 "$@" \
    >/dev/null 2>&1 || true
  [ -s "$report" ] || { echo "loader-bench: $name: omru-train wrote no report" >&2; exit 1; }
  cat "$report"
}
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
# model REPORT: "C:R" of the kind (c = (1 - wait) / samples_s).
model() {
  awk -v x="$(field "$1" samples_s)" -v f="$(field "$1" wait)" -v r="$(field "$1" rate)" \
    'BEGIN { printf "%.9g:%.9g", (1 - f) / x, r }'
}

echo "# loader-bench: $(nproc) cores here, batch 32, 1 compute thread, ${secs} s per measurement"
decode=$(measure decode 1 --model tiny --data "$work/jpeg" --image-size 32)
compute=$(measure compute 1 --model resnet18 --data "$work/cifar")
mixed=$(measure mixed 1 --model tiny --data "$work/jpeg" --image-size 96)
for k in decode compute mixed; do printf '%-8s 1 worker: %s\n' "$k" "${!k}"; done

echo "# the decode kind's model, fitted at 1 worker, vs measured (goal: within 10%)"
echo "# 'model' assumes a CPU per worker and one for the step, as the node's shares"
echo "# give; 'on $(nproc) cores' also caps it by this machine's cores, which more"
echo "# threads than cores share: samples/s <= cores / (1/r + c)"
printf '%8s %12s %14s %12s %8s\n' workers model "on $(nproc) cores" measured error%
c=$(model "$decode"); r=${c#*:}; c=${c%%:*}
maxw=$(( $(nproc) > 1 ? $(nproc) - 1 : 1 ))
[ "$maxw" -ge 2 ] || maxw=2
for w in $(seq 1 "$maxw"); do
  got=$([ "$w" = 1 ] && echo "$decode" || measure decode "$w" --model tiny --data "$work/jpeg" --image-size 32)
  awk -v w="$w" -v c="$c" -v r="$r" -v n="$(nproc)" -v x="$(field "$got" samples_s)" 'BEGIN {
    p = w * r; if (p > 1 / c) p = 1 / c
    q = n / (1 / r + c); if (q > p) q = p
    printf "%8d %12.1f %14.1f %12.1f %+8.1f\n", w, p, q, x, 100 * (q - x) / x }'
done

echo "# a node with these kinds (simulated with the measured models)"
"$build/tests/bench/loader-bench" "$cpus" "decode:$(model "$decode")" \
  "compute:$(model "$compute")" "mixed:$(model "$mixed")"
