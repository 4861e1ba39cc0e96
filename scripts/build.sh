#!/usr/bin/env bash
# Configure (once) and build netloom into build/ (optimised) or, with
# --asan, into build-asan/ (address + undefined-behaviour sanitizers).
# Quiet on success; on failure the compiler's messages are printed.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=build
opts=(-Dbuildtype=debugoptimized)
if [ "${1:-}" = "--asan" ]; then
  dir=build-asan
  opts=(-Dbuildtype=debug -Db_sanitize=address,undefined -Dc_args=-fno-sanitize-recover=all)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "${opts[@]}" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
fi
meson compile -C "$dir" >"$log" 2>&1 || { grep -v '^\[' "$log" >&2; exit 1; }
