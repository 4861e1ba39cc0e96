#!/usr/bin/env bash
# Replay memory vs number of ranks: peak resident memory of `netloom
# replay` on a recorded trace tiled to more and more ranks
# (docs/examples/tile-trace.py: COPIES independent copies side by side).
# Replay keeps every rank's trace reader open, so what a reader keeps of
# its stream is paid once per rank. Each line gives a size's peak; the
# last line is the growth per rank from the smallest size to the largest.
# usage: bench_replay_ranks_memory.sh NETLOOM TRACE [COPIES...]
# TRACE: a .nlt archive (traces/samples/lammps-lj-16.nlt, as in
# benchmarks/README.md); COPIES (default 64 256, at least two sizes): how
# many copies of it each tiled trace holds. 16,384 ranks of lammps-lj-16
# (1024 copies) take about 4 CPU minutes to tile and 650 MB of disk.
set -euo pipefail
usage="usage: bench_replay_ranks_memory.sh NETLOOM TRACE [COPIES...]"
case ${1:-} in -h | --help) echo "$usage"; exit 0 ;; esac
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
netloom=$1
trace=$2
shift 2
[ $# -gt 0 ] || set -- 64 256
[ $# -ge 2 ] || { echo "bench_replay_ranks_memory.sh: COPIES '$1': expected at least two sizes" >&2; exit 2; }
# shellcheck source=benchmarks/engine/bench_lib.sh
. "$(dirname "$0")/../engine/bench_lib.sh"
bench_exe bench_replay_ranks_memory.sh NETLOOM "$netloom"
[ -f "$trace" ] || { echo "bench_replay_ranks_memory.sh: TRACE '$trace': not a file" >&2; exit 2; }
for c in "$@"; do bench_count bench_replay_ranks_memory.sh COPIES "$c"; done
last=${*: -1}
[ "$last" -gt "$1" ] || { echo "bench_replay_ranks_memory.sh: COPIES '$last': expected the last size larger than the first ($1)" >&2; exit 2; }
tile=$(dirname "$0")/../../docs/examples/tile-trace.py
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NETLOOM_PROGRESS=0

first_ranks='' first_kib='' ranks='' kib=''
for c in "$@"; do
  python3 "$tile" "$netloom" "$trace" "$c" "$dir/t.nlt" >/dev/null
  ranks=$("$netloom" trace info "$dir/t.nlt" | awk '$1 == "ranks" { print $2 }')
  kib=$(bench_peak_kib bench_replay_ranks_memory.sh 2 "$netloom" replay "$dir/t.nlt")
  echo "$ranks ranks ($(du -k "$dir/t.nlt" | cut -f1) KiB archive) -> peak RSS $kib KiB"
  rm -f "$dir/t.nlt"
  if [ -z "$first_ranks" ]; then first_ranks=$ranks first_kib=$kib; fi
done
echo "replay peak memory per rank, $first_ranks to $ranks ranks: $(python3 -c "print(f'{($kib - $first_kib) / ($ranks - $first_ranks):.2f}')") KiB"
