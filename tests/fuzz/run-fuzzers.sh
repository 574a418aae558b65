#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-fuzzers.sh: builds the libFuzzer targets with clang (build-fuzz/,
# -Dfuzzing=true with asan+ubsan) and runs each for a bounded time on a
# scratch copy of its seed corpus with its dictionary. Fails on any crash,
# leak, timeout or out-of-memory; the input that did it is left in
# build-fuzz/fuzz-artifacts/. Called by `./quickstart test` (CI).
#
#   tests/fuzz/run-fuzzers.sh [TARGET...]      all targets when none given
#
#   FUZZ_SECONDS  time per target (default 30)
#   FUZZ_JOBS     targets run at once (default 1)
#   FUZZ_BUILD    the build directory (default build-fuzz)
#   CC            the clang to use (default clang)
set -eu

cd "$(dirname "$0")/../.."
src=$PWD
seconds=${FUZZ_SECONDS:-30}
jobs=${FUZZ_JOBS:-1}
build=${FUZZ_BUILD:-build-fuzz}

if [ ! -f "$build/build.ninja" ]; then
  CC=${CC:-clang} meson setup "$build" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false
fi

if [ $# -gt 0 ]; then
  targets="$*"
else
  # Every fuzz program this build has (a plugin left out has none).
  targets=$(ninja -C "$build" -t targets all | sed -n 's|^tests/fuzz/fuzz-\([a-z0-9-]*\): .*|\1|p' | sort -u)
fi
programs=""
for t in $targets; do programs="$programs tests/fuzz/fuzz-$t"; done
ninja -C "$build" $programs

work="$build/fuzz-work"
artifacts="$build/fuzz-artifacts"
rm -rf "$work"
mkdir -p "$work" "$artifacts"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export LSAN_OPTIONS=suppressions=$src/tests/tools/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LC_ALL=C.UTF-8
export GAMEGATE_GABP_SCHEMA_DIR=$src/data/gabp
export GAMEGATE_CONFIG=/dev/null
unset GAME_BRIDGE_CONFIG GAME_BRIDGE_PORT GAME_BRIDGE_HOME GAME_BRIDGE_INSTANCES GAME_BRIDGE_MANIFEST

# One target: prints "name: N execs, cov C, ft F, corpus K" or FAILED.
run_one() {
  t=$1
  mkdir -p "$work/$t"
  dict=""
  [ -f "tests/fuzz/dict/$t.dict" ] && dict="-dict=tests/fuzz/dict/$t.dict"
  if "$build/tests/fuzz/fuzz-$t" $dict \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
      -artifact_prefix="$artifacts/$t-" \
      "$work/$t" "tests/fuzz/corpus/$t" >"$work/$t.log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log")
    last=$(grep -E '^#[0-9]+' "$work/$t.log" | tail -n 1)
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
    echo "fuzz: $t: $execs execs, cov $cov, ft $ft, corpus $corp"
  else
    echo "fuzz: $t: FAILED (log: $work/$t.log)"
    grep -E 'ERROR|SUMMARY|Test unit written|runtime error|GLib' "$work/$t.log" | head -n 8
    return 1
  fi
}

status=0
running=0
pids=""
for t in $targets; do
  run_one "$t" >"$work/$t.result" &
  pids="$pids $!"
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    for p in $pids; do wait "$p" || status=1; done
    pids=""
    running=0
  fi
done
for p in $pids; do wait "$p" || status=1; done
for t in $targets; do cat "$work/$t.result"; done
if [ "$status" -ne 0 ]; then
  echo "fuzz: a target failed; reproduce with $build/tests/fuzz/fuzz-TARGET $artifacts/TARGET-crash-..."
fi
exit $status
