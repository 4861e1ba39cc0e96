#!/usr/bin/env bash
# Open-ended fuzzing campaign (tests/fuzz/README.md): build every fuzz
# target with clang's libFuzzer + ASan/UBSan (tests/fuzz/build-libfuzzer.sh),
# run each for MINUTES (default 10), one target after another as a single
# low-priority fuzzing process, then print executions, crashes, timeouts and
# out-of-memory inputs per target. Exits 1 if any target found one; the
# inputs are kept in build-fuzz/runs/<time>/<target>/ for replay with
# `build-fuzz/fuzz_<target> FILE`.
#
#   scripts/fuzz.sh [--execs N] [MINUTES [TARGET...]]
#
# --execs N: run each target in rounds of MINUTES until it has passed N
# executions in all (or found a failure), e.g. `scripts/fuzz.sh --execs
# 10000000 5`. Each target's corpus grows in build-fuzz/corpus/<target>/
# (a later round or run starts from it), seeded from tests/fuzz/corpus/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/fuzz.sh [--execs N] [MINUTES [TARGET...]] (each target MINUTES, default 10; tests/fuzz/README.md)"
case "${1:-}" in
  -h | --help) echo "$usage"; exit 0 ;;
  --execs) ;;
  -*) echo "scripts/fuzz.sh: unknown option '$1' (expected --execs N or -h)" >&2; echo "$usage" >&2; exit 2 ;;
esac
want_execs=0
if [ "${1:-}" = --execs ]; then
  want_execs=${2:-}
  case "$want_execs" in
    '' | *[!0-9]*) echo "scripts/fuzz.sh: --execs: '$want_execs' is not a whole number of executions" >&2; exit 2 ;;
  esac
  shift 2
fi
minutes=${1:-10}
case "$minutes" in
  '' | *[!0-9]*) echo "scripts/fuzz.sh: MINUTES: '$minutes' is not a whole number of minutes" >&2; exit 2 ;;
esac
minutes=$((10#$minutes)) # base 10: '08' is 8 minutes, not a bad octal number
[ "$minutes" -gt 0 ] || { echo "scripts/fuzz.sh: MINUTES: must be at least 1" >&2; exit 2; }
shift || true

# The targets are what build-libfuzzer.sh builds (it prints their paths;
# its compiler errors go to stderr). A failed build stops here: nothing to fuzz.
rc=0
paths=$(tests/fuzz/build-libfuzzer.sh) || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "scripts/fuzz.sh: building the fuzz targets failed (tests/fuzz/build-libfuzzer.sh exited with status $rc; its errors are above)" >&2
  exit 1
fi
built=()
while read -r path; do
  [ -n "$path" ] && built+=("${path#build-fuzz/fuzz_}")
done <<<"$paths"
[ ${#built[@]} -gt 0 ] || { echo "scripts/fuzz.sh: tests/fuzz/build-libfuzzer.sh built no fuzz target" >&2; exit 1; }
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${built[@]}")
for t in "${targets[@]}"; do
  [[ " ${built[*]} " == *" $t "* ]] ||
    { echo "scripts/fuzz.sh: TARGET: no fuzz target '$t' (built: ${built[*]})" >&2; exit 2; }
done

run=build-fuzz/runs/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run"
failed=0
rows=()
for t in "${targets[@]}"; do
  dir="$run/$t"
  mkdir -p "$dir" "build-fuzz/corpus/$t"
  execs=0 crashes=0 timeouts=0 ooms=0 rounds=0 bad=0
  while :; do
    rounds=$((rounds + 1))
    log="$dir/log-$rounds.txt"
    echo "fuzz: $t, round $rounds, $minutes min ($execs executions so far; log $log)" >&2
    # -fork=1: one fuzzing child at a time, restarted after a crash,
    # timeout or OOM, so a round counts them all instead of stopping at the
    # first. -timeout: one input taking 10 s is a hang on untrusted input.
    # import_otf2 runs under the OTF2 library: its leaks on a corrupt
    # anchor are suppressed as in the test suite (tests/fuzz/otf2-lsan.supp),
    # and its event reader mallocs what a corrupt record's array length
    # says (16 GiB seen) before finding the record short. Unsanitized that
    # touches no memory (`netloom trace import` on those inputs fails
    # cleanly at a 9 MB peak), but ASan writes the allocation's shadow (2 GiB
    # for 16 GiB) and the RSS limit calls it an out-of-memory input. For
    # this target an allocation above 1 GiB fails instead, as on a machine
    # without that memory, and the library's error path is what is fuzzed.
    asan=${ASAN_OPTIONS:-}
    if [ "$t" = import_otf2 ]; then
      asan=${asan:+$asan:}allocator_may_return_null=1:max_allocation_size_mb=1024
    fi
    rc=0
    ASAN_OPTIONS=$asan LSAN_OPTIONS=print_suppressions=0:suppressions=tests/fuzz/otf2-lsan.supp \
    nice -n 10 "build-fuzz/fuzz_$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -timeout=10 -rss_limit_mb=2048 -max_total_time=$((minutes * 60)) -print_final_stats=1 \
      -artifact_prefix="$dir/" "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
    # The parent's last status line: "#EXECS: cov: ... oom/timeout/crash: O/T/C time: ..."
    last=$(grep -E '^#[0-9]+: .*oom/timeout/crash: [0-9]+/[0-9]+/[0-9]+' "$log" | tail -n 1 || true)
    if [ -z "$last" ] || [ "$rc" -ne 0 ]; then
      echo "fuzz: $t: libFuzzer exited with status $rc without a final status line; see $log" >&2
      bad=1
    fi
    if [ -n "$last" ]; then
      read -r e o tm c < <(sed -E 's#^\#([0-9]+):.*oom/timeout/crash: ([0-9]+)/([0-9]+)/([0-9]+).*#\1 \2 \3 \4#' <<<"$last")
      execs=$((execs + e)) ooms=$((ooms + o)) timeouts=$((timeouts + tm)) crashes=$((crashes + c))
    fi
    inputs=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    [ "$crashes" -eq 0 ] && [ "$timeouts" -eq 0 ] && [ "$ooms" -eq 0 ] && [ "$inputs" -eq 0 ] || bad=1
    [ "$bad" -eq 0 ] && [ "$execs" -lt "$want_execs" ] || break
  done
  [ "$bad" -eq 0 ] || failed=1
  rows+=("$(printf '%-16s %14s %8s %9s %5s %7s %7s' "$t" "$execs" "$crashes" "$timeouts" "$ooms" "$inputs" "$((rounds * minutes))")")
done

printf '%-16s %14s %8s %9s %5s %7s %7s\n' target executions crashes timeouts ooms inputs minutes
printf '%s\n' "${rows[@]}"
echo "(crashes/timeouts/ooms: fuzzing jobs that ended so; inputs: the inputs kept in $run/<target>/)"
exit $failed
