#!/usr/bin/env bash
# Build the optimised release (LTO, clang) into build-rel/ and run benchmarks.
#   scripts/bench.sh               every benchmark
#   scripts/bench.sh engine        one suite (engine, analysis, replay, recorder, ...)
# Each benchmark prints its figure as its last line; see benchmarks/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if [ ! -f build-rel/build.ninja ]; then
  # clang: its code for the flit engine runs 2-8% faster than gcc 12's,
  # same results (benchmarks/README.md, 2026-12-01; scripts/deps.sh
  # installs it). A build-rel/ configured before keeps its compiler.
  CC=${CC:-clang} meson setup build-rel -Dbuildtype=release -Db_lto=true >/dev/null
fi
meson compile -C build-rel >/dev/null
export NETLOOM_PROGRESS=0
if [ $# -gt 0 ]; then
  exec meson test -C build-rel --benchmark --suite "$1" --verbose --num-processes 1 --timeout-multiplier 4
fi
exec meson test -C build-rel --benchmark --verbose --num-processes 1 --timeout-multiplier 4
