#!/usr/bin/env bash
# Build the optimised release (LTO) into build-rel/ and run benchmarks.
#   scripts/bench.sh               every benchmark
#   scripts/bench.sh engine        one suite (engine, analysis, replay, recorder, ...)
# Each benchmark prints its figure as its last line; see benchmarks/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if [ ! -f build-rel/build.ninja ]; then
  meson setup build-rel -Dbuildtype=release -Db_lto=true >/dev/null
fi
meson compile -C build-rel >/dev/null
export NETLOOM_PROGRESS=0
if [ $# -gt 0 ]; then
  exec meson test -C build-rel --benchmark --suite "$1" --verbose --num-processes 1 --timeout-multiplier 4
fi
exec meson test -C build-rel --benchmark --verbose --num-processes 1 --timeout-multiplier 4
