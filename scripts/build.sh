#!/usr/bin/env bash
# Configure (once) and build netloom into build/ (optimised) or, with
# --asan, into build-asan/ (address + undefined-behaviour sanitizers).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=build
opts=(-Dbuildtype=debugoptimized)
if [ "${1:-}" = "--asan" ]; then
  dir=build-asan
  opts=(-Dbuildtype=debug -Db_sanitize=address,undefined -Dc_args=-fno-sanitize-recover=all)
fi
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "${opts[@]}" >/dev/null
fi
meson compile -C "$dir" >/dev/null
