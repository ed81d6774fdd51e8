#!/usr/bin/env bash
# fuzz.sh - builds and runs the libFuzzer targets of fuzz/ (`make fuzz`):
# every parser of text from outside slurmctld (job options, omru.conf, the
# job record, profile rows and metrics, the profile store, loader state and
# reports, plan_state and resize_state, layer profiles, GPU links, the
# simulator's CSV formats), built with clang++ and ASan+UBSan (any report is
# fatal), each run on a copy of its corpus fuzz/corpus/NAME so the
# repository's corpus only changes when someone copies new inputs back.
#
# usage: scripts/fuzz.sh [--out DIR] [--seconds N | --runs N] [--build-only]
#                        [TARGET...]
#   --out DIR     build and working directory (default: fuzz-build/)
#   --seconds N   run each target N seconds (default 10)
#   --runs N      run each target on N inputs instead (e.g. 1000000)
#   --build-only  build, run nothing
#   TARGET        fuzz_NAME of fuzz/ (default: all)
# Exit status: 0 no target found a crash, leak or sanitizer report; 1 one
# did (its reproducer is in DIR/NAME.artifacts/); 2 bad usage or no clang.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$top/fuzz-build seconds=10 runs="" build_only=0 targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --runs) runs=$2; shift ;;
    --build-only) build_only=1 ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
cxx=${CXX_FUZZ:-clang++}
command -v "$cxx" >/dev/null || { echo "fuzz.sh: $cxx not found (scripts/install-deps.sh installs clang)" >&2; exit 2; }
if [ ${#targets[@]} = 0 ]; then
  for f in "$top"/fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi

flags=(-std=c++17 -g1 -O1 -fno-omit-frame-pointer
  -fsanitize=address,undefined -fno-sanitize-recover=all
  -I"$top/libomru/include" -I"$top/libomru" -I"$top" -DOMRU_VERSION='"fuzz"')
mkdir -p "$out/obj"

# The core sources the parsers need (what the targets link; a target that
# needs another file fails to link naming the symbol: add the file here).
core_files=(
  libomru/job_options.cpp libomru/spank_config.cpp libomru/c_api.cpp
  libomru/model/admin_comment.cpp libomru/model/decimal_text.cpp libomru/model/csv_table.cpp
  libomru/model/measured_rows.cpp libomru/model/workload.cpp
  libomru/model/node_need.cpp
  libomru/controller/omru_conf.cpp libomru/controller/plan_state.cpp
  libomru/controller/resize_state.cpp
  libomru/loader/loader_entry.cpp libomru/pipeline/layer_profile.cpp
  libomru/policy/gpu_links.cpp
  libomru/profile/loader_model.cpp libomru/profile/profile_store.cpp libomru/profile/profile_table.cpp
  libomru/profile/colocation_table.cpp libomru/profile/interference_model.cpp
)
core=$(printf "$top/%s\n" "${core_files[@]}")
objs=()
compile() { # SRC OBJ
  "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$1" -o "$2"
}
pids=() jobs=$(nproc)
while read -r src; do
  rel=${src#"$top"/}
  obj=$out/obj/${rel//\//_}.o
  objs+=("$obj")
  if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$top/libomru" "$top/profiler" -name '*.hpp' -newer "$obj" -print -quit)" ]; then
    compile "$src" "$obj" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done <<<"$core"
for p in "${pids[@]}"; do wait "$p"; done
for t in "${targets[@]}"; do
  [ -e "$top/fuzz/$t.cpp" ] || { echo "fuzz.sh: no target fuzz/$t.cpp" >&2; exit 2; }
  "$cxx" "${flags[@]}" -fsanitize=fuzzer "$top/fuzz/$t.cpp" "${objs[@]}" -o "$out/$t"
done
echo "fuzz.sh: built ${#targets[@]} target(s) in $out"
[ "$build_only" = 1 ] && exit 0

status=0
for t in "${targets[@]}"; do
  corpus=$out/$t.corpus art=$out/$t.artifacts
  mkdir -p "$corpus" "$art"
  [ -d "$top/fuzz/corpus/$t" ] && cp -n "$top/fuzz/corpus/$t"/* "$corpus"/ 2>/dev/null || true
  limit=(-max_total_time="$seconds")
  [ -n "$runs" ] && limit=(-runs="$runs")
  log=$out/$t.log
  if "$out/$t" "${limit[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$art/" "$corpus" >"$log" 2>&1; then
    echo "fuzz.sh: $t: $(grep -oE 'Done [0-9]+ runs in [0-9]+ second\(s\)' "$log" | tail -n1), no crash"
  else
    echo "fuzz.sh: $t FAILED (log $log, reproducer in $art/):"
    grep -E 'ERROR|fuzz property failed|runtime error|SUMMARY' "$log" | head -n 8
    status=1
  fi
done
exit $status
