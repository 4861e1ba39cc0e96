#!/usr/bin/env bash
# Open-ended fuzzing campaign (tests/fuzz/README.md): build every fuzz
# target with clang's libFuzzer + ASan/UBSan (tests/fuzz/build-libfuzzer.sh),
# run each for MINUTES (default 10), one target after another as a single
# low-priority fuzzing process, then print executions, crashes, timeouts and
# out-of-memory inputs per target. Exits 1 if any target found one; the
# inputs are kept in build-fuzz/runs/<time>/<target>/ for replay with
# `build-fuzz/fuzz_<target> FILE`.
#
#   scripts/fuzz.sh [MINUTES [TARGET...]]      e.g. scripts/fuzz.sh 10 import_dumpi
#
# Each target's corpus grows in build-fuzz/corpus/<target>/ (a later run
# starts from it) and is seeded from tests/fuzz/corpus/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=${1:-10}
case "$minutes" in
  '' | *[!0-9]*) echo "scripts/fuzz.sh: MINUTES: '$minutes' is not a whole number of minutes" >&2; exit 2 ;;
esac
[ "$minutes" -gt 0 ] || { echo "scripts/fuzz.sh: MINUTES: must be at least 1" >&2; exit 2; }
shift || true

# The targets are what build-libfuzzer.sh builds (it prints their paths).
built=()
while read -r path; do
  built+=("${path#build-fuzz/fuzz_}")
done < <(tests/fuzz/build-libfuzzer.sh)
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
  echo "fuzz: $t for $minutes min (log $dir/log.txt)" >&2
  # -fork=1: one fuzzing child at a time, restarted after a crash, timeout
  # or OOM, so a run counts them all instead of stopping at the first.
  # -timeout: one input taking 10 s is a hang on untrusted input.
  rc=0
  nice -n 10 "build-fuzz/fuzz_$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -timeout=10 -rss_limit_mb=2048 -max_total_time=$((minutes * 60)) -print_final_stats=1 \
    -artifact_prefix="$dir/" "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"$dir/log.txt" 2>&1 || rc=$?
  # The parent's last status line: "#EXECS: cov: ... oom/timeout/crash: O/T/C time: ..."
  last=$(grep -E '^#[0-9]+: .*oom/timeout/crash: [0-9]+/[0-9]+/[0-9]+' "$dir/log.txt" | tail -n 1 || true)
  execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
  read -r ooms timeouts crashes < <(sed -E 's#.*oom/timeout/crash: ([0-9]+)/([0-9]+)/([0-9]+).*#\1 \2 \3#' <<<"$last")
  inputs=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  if [ -z "$last" ] || [ "$rc" -ne 0 ] || [ "${crashes:-0}" -ne 0 ] || [ "${timeouts:-0}" -ne 0 ] ||
     [ "${ooms:-0}" -ne 0 ] || [ "$inputs" -ne 0 ]; then
    failed=1
  fi
  [ -n "$last" ] || { execs='?'; ooms='?'; timeouts='?'; crashes='?'; }
  rows+=("$(printf '%-16s %14s %8s %9s %5s %7s' "$t" "$execs" "$crashes" "$timeouts" "$ooms" "$inputs")")
done

printf '%-16s %14s %8s %9s %5s %7s\n' target executions crashes timeouts ooms inputs
printf '%s\n' "${rows[@]}"
echo "($minutes min per target; logs and failing inputs in $run/)"
exit $failed
