#!/usr/bin/env bash
# OTF2 export memory vs trace size: peak resident memory of `netloom trace
# export --otf2` on a trace and on one with 10x the ranks, each as long
# (replay_mktrace's message-rate pattern). OTF2 keeps a location's events
# in memory until its writer closes; the export closes each rank's writer
# once the rank is written, so it holds one rank's events, not the
# trace's, and the two peaks must be about equal. The last line is the
# ratio.
# usage: bench_export_memory.sh NETLOOM REPLAY_MKTRACE [ITERS]
# ITERS (default 2000, at least 1): each rank's message-rate iterations.
set -euo pipefail
usage="usage: bench_export_memory.sh NETLOOM REPLAY_MKTRACE [ITERS]"
case ${1:-} in -h | --help) echo "$usage"; exit 0 ;; esac
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "$usage" >&2; exit 2; }
netloom=$1
mk=$2
iters=${3:-2000}
# shellcheck source=benchmarks/engine/bench_lib.sh
. "$(dirname "$0")/../engine/bench_lib.sh"
bench_exe bench_export_memory.sh NETLOOM "$netloom"
bench_exe bench_export_memory.sh REPLAY_MKTRACE "$mk"
bench_count bench_export_memory.sh ITERS "$iters"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NETLOOM_PROGRESS=0

declare -A m
for ranks in 16 160; do
  "$mk" "$dir/t$ranks.nlt" msgrate "$ranks" "$iters" 16 8
  m[$ranks]=$(bench_peak_kib bench_export_memory.sh 3 "$netloom" trace export "$dir/t$ranks.nlt" --otf2 "$dir/o$ranks")
  echo "$ranks ranks: $(du -k "$dir/t$ranks.nlt" | cut -f1) KiB archive, $(du -sk "$dir/o$ranks" | cut -f1) KiB OTF2 -> peak RSS ${m[$ranks]} KiB"
  rm -rf "$dir/o$ranks"
done
echo "trace export --otf2 peak memory, 10x the ranks / base: $(python3 -c "print(f'{${m[160]} / ${m[16]}:.3f}')")"
