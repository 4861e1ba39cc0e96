#!/usr/bin/env bash
# Build the optimised release (LTO) into build-rel/ and run benchmarks.
#   scripts/bench.sh               every benchmark
#   scripts/bench.sh SUITE...      those suites (engine, analysis, replay, recorder, ...);
#                                  a name that is no suite of the build is a usage error (exit 2)
# Each benchmark prints its figure as its last line; see benchmarks/README.md.
# A benchmark whose programs are missing (recorder: lmp) is skipped, not failed.
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
  -h | --help) echo "usage: scripts/bench.sh [SUITE...]"; exit 0 ;;
  -*) echo "scripts/bench.sh: unknown option '$1'" >&2; echo "usage: scripts/bench.sh [SUITE...]" >&2; exit 2 ;;
esac
scripts/deps.sh
if [ ! -f build-rel/build.ninja ]; then
  meson setup build-rel -Dbuildtype=release -Db_lto=true >/dev/null
fi
# The suites this build has benchmarks in (meson names them project:suite),
# after regenerating the build files if a meson.build changed (not a build).
ninja -C build-rel build.ninja >/dev/null
suites=$(meson introspect build-rel --benchmarks |
  python3 -c 'import json, sys; print(" ".join(sorted({s.split(":", 1)[-1] for b in json.load(sys.stdin) for s in b["suite"] if ":" in s})))')
for s in "$@"; do
  [[ " $suites " == *" ${s#netloom:} "* ]] ||
    { echo "scripts/bench.sh: SUITE: no benchmark suite '$s' in this build (suites: $suites)" >&2; exit 2; }
done
meson compile -C build-rel >/dev/null
export NETLOOM_PROGRESS=0
sel=()
for s in "$@"; do sel+=(--suite "$s"); done
exec meson test -C build-rel --benchmark "${sel[@]}" --verbose --num-processes 1 --timeout-multiplier 4
