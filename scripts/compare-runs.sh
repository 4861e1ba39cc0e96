#!/usr/bin/env bash
# Byte-identity check for flit-model refactors (issue 10 part 2): run the
# same configurations with an old and a new netloom binary and compare the
# JSON byte for byte. Covers seeds, allocators, speedups, wormhole/VCT,
# multi-cycle stages, wait_for_tail_credit, dragonfly/HyperX/torus/fat tree
# and two flit-backend replays.
#   scripts/compare-runs.sh OLD_NETLOOM NEW_NETLOOM
#   scripts/compare-runs.sh --partitions NETLOOM
# The second form runs every configuration with partitions = 1 against
# partitions = 2, 3 and 4, threads = 2 and 4 METIS partitions of the same binary (the split
# and threaded flit model must not change a bit). The configuration
# echo's "partitions", "partitioner" and "threads" lines are dropped before comparing
# (an old binary has no such keys; their default, 1, is the old model). Prints one line per comparison and "N identical,
# N differ"; exits 1 when any differs or fails, 2 on bad usage (a missing
# argument, or a binary that is not an executable file). Relative binary
# paths are the caller's (the script then runs from the repository); a bare
# name is looked up in PATH.
set -uo pipefail
usage="usage: compare-runs.sh OLD_NETLOOM NEW_NETLOOM | --partitions NETLOOM"
# binary WHAT PATH: PATH's absolute path, or a one-line error and exit 2
binary() {
  local p=$2
  case $p in */*) ;; *) p=$(command -v -- "$p") || p=$2 ;; esac
  if [ -z "$p" ] || [ ! -f "$p" ] || [ ! -x "$p" ]; then
    echo "compare-runs.sh: $1: '$2' is not an executable file" >&2
    exit 2
  fi
  realpath -- "$p"
}
if [ "${1:-}" = "--partitions" ]; then
  [ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
  old=$(binary NETLOOM "$2") || exit 2
  new=$old
  parts=(2 3 4 t2 m4)
else
  [ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
  old=$(binary OLD_NETLOOM "$1") || exit 2
  new=$(binary NEW_NETLOOM "$2") || exit 2
  parts=("")
fi
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

short="-s sample_period=300 -s max_samples=6 -s warmup_periods=2"
runs=(
  "-s seed=0"
  "-s seed=7 -s injection_rate=0.3"
  "-s seed=3 -s packet_size=1..8 -s injection_rate=0.25"
  "-s vc_allocator=separable_input_first -s sw_allocator=separable_output_first -s injection_rate=0.3"
  # (no alloc_iters: the separable allocators do not iterate, and run
  # warns of it as a key not read)
  "-s vc_allocator=separable_output_first -s sw_allocator=separable_input_first"
  "-s alloc_iters=3 -s injection_rate=0.35"
  "-s internal_speedup=2 -s injection_rate=0.4"
  "-s input_speedup=2 -s output_speedup=2 -s injection_rate=0.4"
  "-s flow_control=vct -s packet_size=4 -s injection_rate=0.3"
  "-s wait_for_tail_credit=1 -s packet_size=4 -s injection_rate=0.2"
  "-s routing_delay=2 -s vc_alloc_delay=2 -s sw_alloc_delay=3 -s st_final_delay=2"
  "-s routing_delay=3 -s pipelined_stages=1 -s credit_delay=2 -s channel_latency=2"
  "-s visit_order=reverse -s injection_rate=0.3"
  "-s topology=torus:k=4x4x4 -s num_vcs=4 -s injection_rate=0.3"
  "-s topology=dragonfly:a=4,p=2,h=2 -s routing_function=min:select=adaptive -s num_vcs=4 -s injection_rate=0.3"
  "-s topology=dragonfly:a=4,p=2,h=2 -s routing_function=min -s num_vcs=3 -s packet_size=4 -s flow_control=vct"
  "-s topology=dragonfly:a=5,p=2,h=3,g=10 -s routing_function=group_min -s num_vcs=2 -s injection_rate=0.3"
  # BookSim's own g = a*h + 1 groups: mode=booksim refuses fewer (d9fcbe29)
  "-s topology=dragonfly:a=5,p=2,h=3 -s routing_function=ugal:mode=booksim -s num_vcs=3 -s injection_rate=0.4"
  "-s topology=hyperx:s=4x4,t=2 -s routing_function=min:select=adaptive -s num_vcs=4 -s injection_rate=0.4"
  "-s topology=fattree:k=4,n=3 -s routing_function=min -s num_vcs=2 -s traffic=bitcomp"
  "-s topology=torus:k=8x8 -s routing_function=valiant -s num_vcs=4 -s traffic=transpose"
)
same=0
diff=0
i=0
# drop wall-clock fields, the build identity (two binaries differ there by
# construction), and the keys the old binary lacks (partitions; the
# link-class latencies at their default 0) from the configuration echo
normalise() {
  [ -f "$1" ] && sed -i -E -e 's/"wall_seconds": [0-9.e+-]+/"wall_seconds": 0/g' -e '/^ *"(partitions|threads)": [0-9]+,?$/d' -e '/^ *"partitioner": "[a-z]+",?$/d' -e '/^ *"(terminal|local|global|noc)_latency": 0,?$/d' -e '/^ *"traffic_classes": 1,?$/d' -e '/^ *"traffic_class": "source",?$/d' -e '/^ *"(hold_switch_for_packet|voq|sequential_allocation)": false,?$/d' -e '/^ *"path_select": "spread",?$/d' -e '/^ *"lookahead_decide": "arrival",?$/d' -e '/^ *"(build|netloom_build)": "[^"]*",?$/d' "$1"
}
compare() { # kind args
  local kind=$1 args=$2 k extra ro rn
  for k in "${parts[@]}"; do
    # Threads on the replays' 8-router networks: a cycle is far shorter than
    # the two synchronisations around it (minutes per replay on a busy
    # machine); the threaded message path is test_part's backend case.
    [ "$kind" = replay ] && [ "${k#t}" != "$k" ] && continue
    i=$((i + 1))
    extra=""
    case "$k" in
      t*) extra="-s threads=${k#t}" ;;
      m*) extra="-s partitions=${k#m} -s partitioner=metis" ;;
      ?*) extra="-s partitions=$k" ;;
    esac
    if [ "$kind" = run ]; then
      # shellcheck disable=SC2086
      "$old" run $short $args --reproducible --json "$tmp/old$i.json" >/dev/null 2>"$tmp/old$i.err"
      ro=$?
      # shellcheck disable=SC2086
      "$new" run $short $args $extra --reproducible --json "$tmp/new$i.json" >/dev/null 2>"$tmp/new$i.err"
      rn=$?
    else
      # shellcheck disable=SC2086
      "$old" replay $args --json "$tmp/old$i.json" >/dev/null 2>"$tmp/old$i.err"
      ro=$?
      # shellcheck disable=SC2086
      "$new" replay $args $extra --json "$tmp/new$i.json" >/dev/null 2>"$tmp/new$i.err"
      rn=$?
      : >"$tmp/old$i.err"; : >"$tmp/new$i.err" # replay's stderr reports wall-clock time
    fi
    normalise "$tmp/old$i.json"
    normalise "$tmp/new$i.json"
    if [ $ro -eq $rn ] && cmp -s "$tmp/old$i.json" "$tmp/new$i.json" && cmp -s "$tmp/old$i.err" "$tmp/new$i.err"; then
      same=$((same + 1)); echo "identical  $kind $args $extra (exit $ro)"
    else
      diff=$((diff + 1)); echo "DIFFERENT  $kind $args $extra (exit $ro vs $rn)"
    fi
  done
}
for args in "${runs[@]}"; do
  compare run "$args"
done
replays=(
  "traces/samples/hpcc-8.nlt -s backend=flit -t torus:k=4x2"
  "traces/samples/lammps-lj-8.nlt -s backend=flit -t dragonfly:a=2,p=2,h=1"
)
for args in "${replays[@]}"; do
  compare replay "$args"
done
echo "$same identical, $diff differ"
[ "$diff" -eq 0 ]
