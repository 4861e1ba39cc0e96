#!/bin/sh
# A live ring beside a replayed trace (docs/live.md "Beside a replayed trace").
#   adapters/examples/beside_trace.sh [BUILD_DIR [TRACE.nlt]]
# Runs a ring of 6 live ranks (build/adapters/live_ring) on the flit model
# of torus:k=8, first alone, then beside TRACE (default: a 2-rank bulk
# stream, encoded here from its text form, that shares router 6's +x
# channel with the ring's 5 -> 0 messages), and prints the ring's message
# latency (arrival - send, from --messages) in both runs and the report's
# per-side lines.
set -eu
build=${1:-build}
dir=$(mktemp -d /tmp/nl-beside.XXXXXX)
trap 'rm -rf "$dir"' EXIT
trace=${2:-}
if [ -z "$trace" ]; then
	trace=$dir/bulk.nlt
	{
		printf 'netloom-trace 1\nranks 2\napplication "bulk"\nrank 0\ninit t=0 dur=0\n'
		i=0; while [ $i -lt 200 ]; do echo 'send t=0 dur=0 peer=1 tag=1 bytes=65536'; i=$((i + 1)); done
		printf 'finalize t=0 dur=0\nrank 1\ninit t=0 dur=0\n'
		i=0; while [ $i -lt 200 ]; do echo 'recv t=0 dur=0 peer=0 tag=1 bytes=65536'; i=$((i + 1)); done
		echo 'finalize t=0 dur=0'
	} > "$dir/bulk.txt"
	"$build/netloom" trace encode "$dir/bulk.txt" "$trace"
fi
run() { # NAME [serve options...]
	name=$1; shift
	"$build/netloom" serve --ranks 6 --listen "ipc://$dir/$name.sock" -q \
		--messages "$dir/$name.msgs" -s backend=flit -s topology=torus:k=8 "$@" > "$dir/$name.out" &
	srv=$!
	while [ ! -e "$dir/$name.sock" ]; do sleep 0.05; done
	for r in 0 1 2 3 4 5; do "$build/adapters/live_ring" "ipc://$dir/$name.sock" $r 30 16384 > /dev/null & done
	wait
}
run alone
run beside --trace "$trace"
lat() { awk '{ s += $8 - $7; if ($1 == 5) { f += $8 - $7; n5++ } } END {
	printf "%d ring messages, mean latency %.3f us (5 -> 0: %.3f us)\n", NR, s / NR * 1e-6, f / n5 * 1e-6 }' "$1"; }
echo "ring alone:         $(lat "$dir/alone.msgs")"
echo "ring beside trace:  $(lat "$dir/beside.msgs")"
sed -n '/beside trace/,/trace ranks/p' "$dir/beside.out"
