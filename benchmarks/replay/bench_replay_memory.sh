#!/usr/bin/env bash
# Replay memory vs trace length: peak resident memory of `netloom replay`
# on a trace and on the same trace 10x longer (message-rate and stencil
# patterns from replay_mktrace). Replay streams each rank's operations, so
# the two peaks must be about equal. The last line is the ratio.
# usage: bench_replay_memory.sh NETLOOM REPLAY_MKTRACE [ITERS]
# ITERS (default 10000, at least 10): the base trace's message-rate
# iterations; its stencil has ITERS / 10.
set -euo pipefail
case ${1:-} in -h | --help) echo "usage: bench_replay_memory.sh NETLOOM REPLAY_MKTRACE [ITERS]"; exit 0 ;; esac
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: bench_replay_memory.sh NETLOOM REPLAY_MKTRACE [ITERS]" >&2; exit 2; }
netloom=$1
mk=$2
iters=${3:-10000}
# Checked before the traces are made: ITERS 'abc' once ended the script
# in "unbound variable", 0 in a figure of nothing, below 10 in an empty
# base stencil.
# shellcheck source=benchmarks/engine/bench_lib.sh
. "$(dirname "$0")/../engine/bench_lib.sh"
bench_exe bench_replay_memory.sh NETLOOM "$netloom"
bench_exe bench_replay_memory.sh REPLAY_MKTRACE "$mk"
bench_count bench_replay_memory.sh ITERS "$iters" 10
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NETLOOM_PROGRESS=0

ops() { # the trace's operations replayed, summed over its ranks
  # (a command substitution does not inherit set -e: hence the exit)
  rm -f "$dir/ops.json"
  "$netloom" replay "$1" --json "$dir/ops.json" >/dev/null || exit
  python3 - "$dir/ops.json" "$netloom" <<'PY'
import json, sys
try:
    print(sum(r["ops"] for r in json.load(open(sys.argv[1]))["results"]["ranks"]))
except OSError as e:
    sys.exit(f"bench_replay_memory.sh: NETLOOM '{sys.argv[2]}': its replay wrote no JSON ({e.strerror})")
except (ValueError, KeyError, TypeError) as e:
    sys.exit(f"bench_replay_memory.sh: NETLOOM '{sys.argv[2]}': its replay JSON has no results.ranks[].ops ({type(e).__name__})")
PY
}

worst=0
for pattern in msgrate stencil; do
  for scale in 1 10; do
    n=$((iters * scale))
    if [ $pattern = msgrate ]; then
      "$mk" "$dir/t$scale.nlt" msgrate 16 "$n" 16 8
    else
      "$mk" "$dir/t$scale.nlt" stencil 16 $((n / 10)) 4096 10000
    fi
  done
  ops1=$(ops "$dir/t1.nlt")
  ops10=$(ops "$dir/t10.nlt")
  m1=$(bench_peak_kib bench_replay_memory.sh 2 "$netloom" replay "$dir/t1.nlt")
  m10=$(bench_peak_kib bench_replay_memory.sh 2 "$netloom" replay "$dir/t10.nlt")
  ratio=$(python3 -c "print(f'{$m10 / $m1:.3f}')")
  echo "$pattern: $ops1 ops -> peak RSS $m1 KiB; $ops10 ops ($(du -k "$dir/t10.nlt" | cut -f1) KiB archive) -> peak RSS $m10 KiB; ratio $ratio"
  worst=$(python3 -c "print(max($worst, $ratio))")
done
echo "replay peak memory, 10x longer trace / base (worst pattern): $worst"
