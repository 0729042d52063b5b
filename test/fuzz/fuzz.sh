#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses (test/fuzz/fuzz_<name>.cpp), one per reader of outside text:
#   shape_table model_table suite expr case_name results check_bundle system_yaml computations aggregate_cli resume
#   results_db (built only where SQLite and xxHash are found, as the main build's db command)
#
#   test/fuzz/fuzz.sh [--build=DIR] build                     # clang++ -fsanitize=fuzzer,address,undefined
#   test/fuzz/fuzz.sh [--build=DIR] [--quiet] run NAME [SECONDS] [LIBFUZZER_ARG...]
#   test/fuzz/fuzz.sh [--build=DIR] replay [NAME...]          # each committed finding once
#
# DIR defaults to build/fuzz. `run` fuzzes for SECONDS (default 20) from the committed seeds
# (test/fuzz/corpus/NAME, never written to) and the inputs earlier runs found (DIR/corpus/NAME, kept), with the
# reader's dictionary (test/fuzz/NAME.dict), inputs up to 4096 bytes (a -max_len=N after SECONDS allows more; replay
# takes files of any size). An input that crashes, hangs (over 5 s), leaks, allocates 2 GB at once or has 2 GB
# resident (8 GB in runs over 5 minutes), or trips a sanitizer is written to DIR/findings/NAME/ (crash-*, timeout-*,
# leak-*, oom-*) and the run fails; keep one by copying it into test/fuzz/findings/NAME/ under a name that says what
# it is, where `replay` runs it.
# Where clang++ cannot build a libFuzzer binary (CXX_FUZZ names another compiler), every command says why and
# exits 77, which CTest counts as skipped.
set -euo pipefail
src="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$src/../.." && pwd)"
build="$root/build/fuzz"
names=(shape_table model_table suite expr case_name results check_bundle system_yaml computations aggregate_cli resume
       results_db)
quiet=0
while [[ $# -gt 0 && $1 == --* ]]; do
  case "$1" in
    --build=*) build="${1#--build=}" ;;
    --quiet) quiet=1 ;;  # run: leave out libFuzzer's line per new input (CTest keeps the output)
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
cmd="${1:-}"
[ $# -gt 0 ] && shift
cxx="${CXX_FUZZ:-clang++}"
# UBSan's reports with their stacks; libFuzzer sets the rest (leak checks, aborting on errors).
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

skip_if_unbuilt() {  # exits 77 with the reason where the build was skipped, 1 where it was not run
  if [ -f "$build/skipped" ]; then
    echo "skipped: $(cat "$build/skipped")"
    exit 77
  fi
  [ -x "$build/fuzz_$1" ] && return 0
  if [ "$1" = results_db ] && [ -d "$build/cmake" ]; then
    echo "skipped: fuzz_results_db is built only where SQLite and xxHash are found (libsqlite3-dev libxxhash-dev)"
    exit 77
  fi
  echo "$build/fuzz_$1 is not built: run $0 --build=$build build" >&2
  exit 1
}

summarize() {  # what a libFuzzer log reports, and the first frame in opmark's own code
  grep -m1 -E 'runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|terminate called|opmark fuzz finding' "$1" |
    sed 's/^/         /'
  grep -m1 -E '#[0-9]+ .* in .*/(core|aggregate|test/fuzz)/[a-z_]+\.(cpp|h):' "$1" |
    sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ in /         at /; s/\(std::__cxx11::basic_string[^)]*\)/(...)/g'
}

case "$cmd" in
  build)
    mkdir -p "$build"
    rm -f "$build/skipped"
    probe="$build/probe"
    mkdir -p "$probe"
    printf '#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }\n' \
      >"$probe/probe.cpp"
    if ! command -v "$cxx" >/dev/null; then
      echo "no $cxx (install clang: .ci/install-deps does where it can)" | tee "$build/skipped" | sed 's/^/skipped: /'
      exit 77
    fi
    if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" >"$probe/log" 2>&1; then
      echo "$cxx cannot build a libFuzzer binary ($(head -c 300 "$probe/log" | tr '\n' ' '))" | tee "$build/skipped" |
        sed 's/^/skipped: /'
      exit 77
    fi
    "${CMAKE:-cmake}" -S "$src" -B "$build/cmake" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE= >/dev/null
    "${CMAKE:-cmake}" --build "$build/cmake" -j "$(nproc 2>/dev/null || echo 2)"
    built=()
    for n in "${names[@]}"; do
      [ -e "$build/cmake/fuzz_$n" ] && ln -sf "cmake/fuzz_$n" "$build/fuzz_$n" && built+=("$build/fuzz_$n")
    done
    echo "built: ${built[*]}"
    ;;
  run)
    name="${1:?usage: $0 run NAME [SECONDS] [LIBFUZZER_ARG...]}"
    shift
    seconds=20
    if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
      seconds="$1"
      shift
    fi
    [ -d "$src/corpus/$name" ] || { echo "no harness '$name' (harnesses: ${names[*]})" >&2; exit 1; }
    skip_if_unbuilt "$name"
    mkdir -p "$build/corpus/$name" "$build/findings/$name" "$build/tmp"
    export TMPDIR="$build/tmp"  # fuzz_results' scratch file, left there when a finding stops it
    dict=()
    [ -f "$src/$name.dict" ] && dict=("-dict=$src/$name.dict")
    # Memory: at most 2 GB resident, and no single allocation of 2 GB. Under AddressSanitizer the resident memory of
    # a long run creeps up by about 1 KB a run (its quarantine of freed memory; flat with quarantine_size_mb=0, so no
    # leak) and would pass 2 GB after about a million runs: a run of more than 5 minutes allows 8 GB resident.
    memory=(-rss_limit_mb=2048 -malloc_limit_mb=2048)
    [ "$seconds" -gt 300 ] && memory=(-rss_limit_mb=8192 -malloc_limit_mb=2048)
    cd "$build"  # -jobs=N writes its fuzz-N.log here
    set +e
    "./fuzz_$name" -max_len=4096 -timeout=5 "${memory[@]}" -max_total_time="$seconds" -print_final_stats=1 \
      "${dict[@]}" -artifact_prefix="$build/findings/$name/" "$@" "$build/corpus/$name" "$src/corpus/$name" 2>&1 |
      if [ "$quiet" = 1 ]; then grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|RELOAD)|^[[:space:]]+NEW_FUNC'; else cat; fi
    rc=${PIPESTATUS[0]}
    set -e
    [ "$rc" -eq 0 ] && exit 0
    # libFuzzer exits 77 on a finding by default, which CTest would count as a skip.
    echo "fuzz_$name: a finding (libFuzzer exit status $rc), written to $build/findings/$name/" >&2
    exit 1
    ;;
  replay)
    [ $# -gt 0 ] || set -- "${names[@]}"
    failed=0
    mkdir -p "$build/tmp"
    export TMPDIR="$build/tmp"
    for name in "$@"; do
      [ -d "$src/findings/$name" ] || continue  # no finding kept: nothing to replay (nor to build)
      skip_if_unbuilt "$name"
      for f in "$src/findings/$name"/*; do
        [ -f "$f" ] || continue
        if "$build/fuzz_$name" -timeout=5 -rss_limit_mb=2048 "$f" >"$build/replay.log" 2>&1; then
          echo "ok     $name: ${f#"$root"/}"
        else
          echo "FAILS  $name: ${f#"$root"/}"
          summarize "$build/replay.log"
          failed=1
        fi
      done
    done
    exit "$failed"
    ;;
  *)
    sed -n '2,/^set /p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
