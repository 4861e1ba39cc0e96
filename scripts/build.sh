#!/usr/bin/env bash
# Configure (once) and build netloom into build/ (optimised) or, with
# --asan, into build-asan/ (address + undefined-behaviour sanitizers), with
# --release into build-release/ (meson's release buildtype: what a plain
# setup gives users), with --clang into build-clang/ (release, clang: a
# second compiler's warnings and results), or
# with --tsan into build-tsan/ (thread sanitizer; only the targets named
# after it, e.g. `scripts/build.sh --tsan test_part`). --setup only
# configures the directory (meson setup, once) and builds nothing: CI
# (scripts/test.sh) configures the other four while build/ compiles.
# Quiet on success; on failure the compiler's messages are printed.
#
#   scripts/build.sh [--asan | --release | --clang | --tsan] [--setup | TARGET...]
#
# TARGETs are meson targets (default: all); a bare name several targets
# share means the executable of that name (`netloom`, not libnetloom's
# static or shared library; `netloom:static_library` names one). An
# unknown option or a second build kind is a usage error (exit 2), an
# unknown or still ambiguous target a build error (exit 1, one line).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/build.sh [--asan | --release | --clang | --tsan] [--setup | TARGET...]"; }

# Warnings are errors in our own builds and CI, never a default for users
# (a plain `meson setup --buildtype=release` must build with any gcc).
dir=build
opts=(-Dbuildtype=debugoptimized -Dwerror=true)
case "${1:-}" in
  --asan)
    # -O1, as the AddressSanitizer documentation advises: at -O0 the unit
    # suite took 5 min 50 s of .ci/run (the 1.5x-saturation watchdog
    # alone 304 s), at -O1 2 min 9 s, for 38 s more build time; frame
    # pointers kept for whole stack traces.
    dir=build-asan
    opts=(-Ddebug=true -Doptimization=1 -Dwerror=true -Db_sanitize=address,undefined
          "-Dc_args=-fno-sanitize-recover=all -fno-omit-frame-pointer") ;;
  --release)
    dir=build-release
    opts=(-Dbuildtype=release -Dwerror=true) ;;
  --clang)
    # A second compiler, for what it checks, not for speed (clang 14's
    # code for the flit engine runs 1-9% slower than gcc 12's): its
    # warnings, errors here too, differ from gcc's (the first clang build
    # found an unspecified evaluation order in a test; its test run, an
    # out-of-bounds read in a recorder test), and test 'compilers_agree'
    # checks its netloom gives gcc's results to the byte.
    dir=build-clang
    export CC=clang
    opts=(-Dbuildtype=release -Dwerror=true) ;;
  --tsan)
    # The flit model's threads (emu/net/workers.c): every data race is an
    # error. No LTO: the sanitizer's instrumentation is per object.
    dir=build-tsan
    opts=(-Dbuildtype=debugoptimized -Dwerror=true -Db_sanitize=thread -Db_lto=false) ;;
  -h | --help)
    usage; exit 0 ;;
  --setup) ;; # build/, configured only (below)
  -*)
    echo "scripts/build.sh: unknown option '$1' (expected --asan, --release, --clang, --tsan or --setup)" >&2
    usage >&2; exit 2 ;;
esac
kind=
case "${1:-}" in --asan | --release | --clang | --tsan) kind=$1; shift ;; esac
setup_only=
if [ "${1:-}" = --setup ]; then
  setup_only=1
  shift
  case "${1:-}" in
  '') ;;
  -*) echo "scripts/build.sh: '$1' after '--setup': the build kind comes first" >&2; usage >&2; exit 2 ;;
  *) echo "scripts/build.sh: --setup builds nothing: no targets after it (got '$1')" >&2; usage >&2; exit 2 ;;
  esac
fi
for t in "$@"; do
  case "$t" in
  --asan | --release | --clang | --tsan)
    [ -n "$kind" ] || { echo "scripts/build.sh: '$t': options come first, then targets" >&2; usage >&2; exit 2; }
    # A second build kind, not a misplaced option: each kind is its own
    # build directory, and one call builds one.
    echo "scripts/build.sh: '$t' after '$kind': one build kind per call (--asan, --release, --clang or --tsan; run it twice for two)" >&2
    exit 2 ;;
  -*) echo "scripts/build.sh: '$t': options come first, then targets" >&2; usage >&2; exit 2 ;;
  esac
done
targets=("$@")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "${opts[@]}" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
fi
[ -z "$setup_only" ] || exit 0
# meson refuses a name several targets share ("ambiguous name"); with an
# executable among them, the executable is what a user means.
if [ ${#targets[@]} -gt 0 ]; then
  resolved=$(python3 - "$dir/meson-info/intro-targets.json" "${targets[@]}" <<'EOF'
import json, sys
kinds = {}
for t in json.load(open(sys.argv[1])):
    kinds.setdefault(t["name"], []).append(t["type"].replace(" ", "_"))
for a in sys.argv[2:]:
    k = kinds.get(a, [])
    if len(k) > 1 and k.count("executable") == 1:
        a += ":executable"
    elif len(k) > 1:
        sys.exit("scripts/build.sh: target '%s' is ambiguous: name one of %s"
                 % (a, ", ".join(a + ":" + x for x in k)))
    print(a)
EOF
  ) || exit 1
  mapfile -t targets <<<"$resolved"
fi
if ! meson compile -C "$dir" "${targets[@]}" >"$log" 2>&1; then
  # meson's own refusal (an unknown target) is one ERROR line among INFO
  # lines, before ninja runs: that line alone. A compiler's messages are
  # shown whole.
  if grep -q '^ERROR: ' "$log" && ! grep -q '^\[' "$log"; then
    echo "scripts/build.sh: $(sed -n 's/^ERROR: //p' "$log" | head -n 1) (in $dir/)" >&2
  else
    grep -v '^\[' "$log" >&2
  fi
  exit 1
fi
