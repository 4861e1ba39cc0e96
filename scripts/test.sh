#!/usr/bin/env bash
# Install what is missing, build (optimised and sanitizer builds) and run the
# whole test suite. The last line is "N passed, N failed".
#   scripts/test.sh         (no arguments: CI runs it so)
set -uo pipefail
usage="usage: scripts/test.sh (no arguments: builds build/, build-asan/, build-release/, build-clang/ and build-tsan/, then runs the tests)"
[ $# -eq 0 ] || case $1 in
  -h | --help) echo "$usage"; exit 0 ;;
  -*) echo "scripts/test.sh: unknown option '$1': expected no arguments (or -h, --help)" >&2; exit 2 ;;
  *) echo "scripts/test.sh: unexpected argument '$1': it takes none and runs the whole suite (one test: meson test -C build NAME)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
# Removed at the exit: the build directories' set-up logs, the python3
# link's directory and TSan's log (below); what runs in the background
# (below) is stopped if this script is.
pybin='' bg=()
logs=$(mktemp -d) || exit 1
cleanup() {
  [ ${#bg[@]} -eq 0 ] || kill "${bg[@]}" 2>/dev/null
  rm -rf ${pybin:+"$pybin"} "$logs"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
scripts/deps.sh || exit 1
# The other four build directories are configured (meson setup: about 9 s
# each, most of it waiting on one compiler check at a time) while build/
# compiles, instead of one after the other between the builds.
for kind in --asan --release --clang --tsan; do
  scripts/build.sh "$kind" --setup >"$logs/setup$kind" 2>&1 &
  bg+=($!)
done
scripts/build.sh || exit 1
for p in "${bg[@]}"; do
  wait "$p" || { cat "$logs"/setup-* >&2; exit 1; }
done
bg=()
# The sanitizer build runs the unit suite only (below): it builds those
# tests' executables and the library they link, not netloom, the
# recorder, the adapters, the e2e helpers and the benchmarks (80 of its
# 350 compilations), which the other builds compile.
unit=$(meson introspect build --targets --tests | python3 -c '
import json, os, sys
root = os.path.realpath(sys.argv[1])
d = json.load(sys.stdin)
target = {}
for t in d["targets"]:
    where = os.path.relpath(os.path.dirname(os.path.realpath(t["defined_in"])), root)
    for f in t["filename"]:
        target[os.path.realpath(f)] = ("" if where == "." else where + "/") + t["name"] + ":" + t["type"].replace(" ", "_")
for t in d["tests"]:
    if "netloom:unit" in t["suite"] and os.path.realpath(t["cmd"][0]) in target:
        print(target[os.path.realpath(t["cmd"][0])])
' "$PWD") && [ -n "$unit" ] || { echo "scripts/test.sh: cannot list the unit tests' targets (meson introspect build)" >&2; exit 1; }
# shellcheck disable=SC2086 # one target per word
scripts/build.sh --asan $unit || exit 1
# The build users run most (meson's release buildtype, -O3) must build
# warning-free too: gcc reports other warnings at -O3.
scripts/build.sh --release || exit 1
# A second compiler (clang, release) must build the product warning-free
# (netloom, its libraries, the recorder and the live adapters: the targets
# not defined under tests/ or benchmarks/, which gcc builds twice above)
# and give the tested build's results to the byte (test 'compilers_agree').
# The tests' and benchmarks' 183 build steps of 410 took 40% of its time.
product=$(meson introspect build --targets | python3 -c '
import json, os, sys
root = os.path.realpath(sys.argv[1])
for t in json.load(sys.stdin):
    where = os.path.relpath(os.path.dirname(os.path.realpath(t["defined_in"])), root)
    if where.split(os.sep)[0] in ("tests", "benchmarks") or t["type"] == "custom":
        continue
    print(("" if where == "." else where + "/") + t["name"] + ":" + t["type"].replace(" ", "_"))
' "$PWD") && [ -n "$product" ] || { echo "scripts/test.sh: cannot list the product's targets (meson introspect build)" >&2; exit 1; }
# shellcheck disable=SC2086 # one target per word
scripts/build.sh --clang $product || exit 1
export NETLOOM_OTHER_BUILD=$PWD/build-clang/netloom
# The threaded flit model's determinism test under ThreadSanitizer.
scripts/build.sh --tsan test_part || exit 1
# Where CI's time goes (the builds, then the tests), for whoever trims it.
echo "scripts/test.sh: set-up and the five builds took $SECONDS s"
built=$SECONDS

export NETLOOM_PROGRESS=0
# The tests start python3 thousands of times (JSON checks in the shell
# tests, the live clients). Debian's /usr/bin/python3 is the interpreter
# the project uses (python3-zmq imports there); a version manager's shim
# first on PATH (pyenv's: a shell and its own command at every start,
# 0.3 s against 0.03 s) doubled some tests' time (e2e/compare.sh 80 s
# against 30 s). A directory holding only a python3 link to it goes first
# on PATH for the tests; nothing else on PATH changes.
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
  pybin=$(mktemp -d) || exit 1
  ln -s /usr/bin/python3 "$pybin/python3" || exit 1
  echo "scripts/test.sh: the tests run /usr/bin/python3, not $(command -v python3) (first on PATH)"
  export PATH="$pybin:$PATH"
fi
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
jobs=$(nproc 2>/dev/null || echo 2)

# The live tests (suite 'live') mostly wait: on processors' worth of
# lanes they held one for 164 s and used 28 s of processor time. They run
# one at a time beside the main suite's lanes, their output printed after.
meson test -C build --suite live --num-processes 1 --print-errorlogs --no-rebuild --logbase live \
  >"$logs/live" 2>&1 &
bg+=($!)
meson test -C build --no-suite live --num-processes "$jobs" --print-errorlogs --no-rebuild
wait "${bg[@]}"
bg=()
cat "$logs/live"
echo "scripts/test.sh: the main suite took $((SECONDS - built)) s"
# The sanitizer builds' tests side by side: TSan's part, the longest, in
# the background, its output printed after the ASan unit suite's. One
# after the other, part ran alone on about one processor (113 s of the
# 696 s the tests took in a rehearsal). Not beside the main suite: its
# MPI ranks wait by yielding the processor, and a background process,
# even at nice 19, took it (mpi_replay 28 and 33 s alone, 48 and 40 s
# beside TSan's part at nice 19).
TSAN_OPTIONS=halt_on_error=1:exitcode=66 meson test -C build-tsan part --print-errorlogs --no-rebuild \
  >"$logs/tsan" 2>&1 &
bg+=($!)
meson test -C build-asan --suite unit --num-processes "$jobs" --print-errorlogs --no-rebuild
wait "${bg[@]}"
bg=()
cat "$logs/tsan"

echo "scripts/test.sh: the tests took $((SECONDS - built)) s"
python3 - build/meson-logs/testlog.json build/meson-logs/live.json build-asan/meson-logs/testlog.json build-tsan/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        failed += 1
        continue
    for line in lines:
        if not line.strip():
            continue
        r = json.loads(line)["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
# The last line is exactly "N passed, N failed" (what CI reads); skipped
# tests (a tool missing, e.g. Chromium for compare_html) are named above it.
if skipped:
    print(f"{skipped} skipped (see the logs above for why)")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
