#!/usr/bin/env bash
# Flit-engine speed and memory on BookSim2's own topologies (issue 11):
# the dragonfly (FleX settings, min and UGAL), the flattened butterfly
# (ran_min and UGAL) and the 4-ary 5-tree (NCA), from BookSim's own
# key=value files in benchmarks/validation/booksim/, converted with
# `netloom config --from-booksim` and run with `netloom run`.
#
#   booksim_topos.sh NETLOOM speed  CASE LOAD   last line: flit-hops per second
#   booksim_topos.sh NETLOOM memory CASE LOAD   last line: bytes per endpoint
#                                               (medians of MEMORY_RUNS runs, default 5)
#
# CASE is a file name without .cfg (df_flex_min, df_flex_ugal, ff_ranmin,
# ff_ugal, ft_nca, ...). Memory per endpoint is the peak resident memory
# at LOAD minus the same binary's peak on the idle network of that size
# (injection_rate = 0), over the endpoints: the definition BookSim2's
# figures use (benchmarks/README.md). `hold_switch_for_packet = 1` (the
# fat tree files) is dropped before converting, as when these figures were
# first taken (1-flit packets: it never takes effect); measure BookSim with
# the same line removed.
set -euo pipefail
. "$(dirname "$0")/bench_lib.sh"
netloom=$1
mode=$2
case=$3
load=$4
here=$(cd "$(dirname "$0")" && pwd)
cfg=$here/../validation/booksim/$case.cfg
[ -f "$cfg" ] || { echo "booksim_topos.sh: $cfg: no such BookSim configuration" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NETLOOM_PROGRESS=0

grep -v '^ *hold_switch_for_packet *= *1' "$cfg" >"$dir/$case.cfg"
"$netloom" config --from-booksim "$dir/$case.cfg" >"$dir/$case.ini"

peak_kib() { # peak RSS (KiB) of one command: GNU time, as BookSim's figures
  /usr/bin/time -f %M -o "$dir/rss" "$@" >/dev/null
  cat "$dir/rss"
}

case $mode in
speed)
  out=$("$netloom" run -c "$dir/$case.ini" -s injection_rate="$load")
  echo "$out"
  # "N cycles, F flit-hops in S s (R M flit-hops/s)": recompute F / S in full.
  echo "$out" | flit_hops_rate booksim_topos.sh
  ;;
memory)
  # Median of MEMORY_RUNS runs each (default 5): the idle peak alone moves
  # by a few hundred KiB from run to run, which on a 256-endpoint network
  # is more than the traffic adds.
  runs=${MEMORY_RUNS:-5}
  median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
  idle=$(for _ in $(seq "$runs"); do peak_kib "$netloom" run -c "$dir/$case.ini" -s injection_rate=0; done | median)
  busy=$(for _ in $(seq "$runs"); do peak_kib "$netloom" run -c "$dir/$case.ini" -s injection_rate="$load"; done | median)
  eps=$("$netloom" run -c "$dir/$case.ini" -s injection_rate=0 -s sample_period=10 -s warmup_periods=0 -s max_samples=1 |
    sed -n 's/.* \([0-9][0-9]*\) endpoints.*/\1/p')
  echo "$case at $load: peak RSS $busy KiB, idle $idle KiB (medians of $runs runs), $eps endpoints"
  python3 -c "print(round(($busy - $idle) * 1024 / $eps))"
  ;;
*)
  echo "booksim_topos.sh: mode '$mode': expected speed or memory" >&2
  exit 2
  ;;
esac
