#!/usr/bin/env bash
# Replay memory vs trace length: peak resident memory of `netloom replay`
# on a trace and on the same trace 10x longer (message-rate and stencil
# patterns from replay_mktrace). Replay streams each rank's operations, so
# the two peaks must be about equal. The last line is the ratio.
# usage: bench_replay_memory.sh NETLOOM REPLAY_MKTRACE [ITERS]
set -euo pipefail
case ${1:-} in -h | --help) echo "usage: bench_replay_memory.sh NETLOOM REPLAY_MKTRACE [ITERS]"; exit 0 ;; esac
[ $# -ge 2 ] || { echo "usage: bench_replay_memory.sh NETLOOM REPLAY_MKTRACE [ITERS]" >&2; exit 2; }
netloom=$1
mk=$2
iters=${3:-10000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NETLOOM_PROGRESS=0

peak_kib() { # peak RSS (KiB) of one command, via getrusage of the child
  python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
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
  ops1=$("$netloom" replay "$dir/t1.nlt" --json - | python3 -c 'import json,sys; print(sum(r["ops"] for r in json.load(sys.stdin)["results"]["ranks"]))')
  ops10=$("$netloom" replay "$dir/t10.nlt" --json - | python3 -c 'import json,sys; print(sum(r["ops"] for r in json.load(sys.stdin)["results"]["ranks"]))')
  m1=$(peak_kib "$netloom" replay "$dir/t1.nlt")
  m10=$(peak_kib "$netloom" replay "$dir/t10.nlt")
  ratio=$(python3 -c "print(f'{$m10 / $m1:.3f}')")
  echo "$pattern: $ops1 ops -> peak RSS $m1 KiB; $ops10 ops ($(du -k "$dir/t10.nlt" | cut -f1) KiB archive) -> peak RSS $m10 KiB; ratio $ratio"
  worst=$(python3 -c "print(max($worst, $ratio))")
done
echo "replay peak memory, 10x longer trace / base (worst pattern): $worst"
