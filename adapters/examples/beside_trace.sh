#!/bin/sh
# A live ring beside a replayed trace (docs/live.md "Beside a replayed trace").
#   adapters/examples/beside_trace.sh [BUILD_DIR [TRACE.nlt]]
# Runs a ring of 6 live ranks (build/adapters/live_ring) on the flit model
# of torus:k=8, first alone, then beside TRACE (default: a 2-rank bulk
# stream, encoded here from its text form, that shares router 6's +x
# channel with the ring's 5 -> 0 messages), and prints the ring's message
# latency (arrival - send, from --messages) in both runs and the report's
# per-side lines. Its files go to a directory under $TMPDIR (default /tmp),
# removed on exit or interruption. Exit 0, or 1 with one line when
# BUILD_DIR has no netloom or live_ring, or when the server or a rank
# fails (the server's or rank's own message above it).
set -eu
build=${1:-build}
# Said first, in one line: a wrong BUILD_DIR gave the shell's "not found"
# and then "netloom trace encode failed".
for exe in netloom adapters/live_ring; do
	[ -x "$build/$exe" ] || {
		echo "beside_trace.sh: build directory '$build' has no $exe; expected BUILD_DIR where ninja built netloom" >&2
		exit 1
	}
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/nl-beside.XXXXXX")
srv=
ranks=
# The server stops on SIGTERM the way it ends a run, writing its
# --messages file into $dir: it is waited for before $dir goes, or rm -rf
# races it ("Directory not empty") and the folder stays.
cleanup() {
	for p in $srv $ranks; do kill "$p" 2>/dev/null || true; done
	for p in $srv $ranks; do wait "$p" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
die() { echo "beside_trace.sh: $*" >&2; exit 1; }
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
	"$build/netloom" trace encode "$dir/bulk.txt" "$trace" || die "netloom trace encode failed"
fi
run() { # NAME [serve options...]
	name=$1; shift
	"$build/netloom" serve --ranks 6 --listen "ipc://$dir/$name.sock" -q \
		--messages "$dir/$name.msgs" -s backend=flit -s topology=torus:k=8 "$@" > "$dir/$name.out" &
	srv=$!
	# The socket appears once the server listens; a server that exits
	# first (a bad trace, say) has said why on stderr.
	n=0
	while [ ! -S "$dir/$name.sock" ]; do
		if ! kill -0 "$srv" 2>/dev/null; then
			rc=0; wait "$srv" || rc=$?; srv=
			die "$name: netloom serve exited with status $rc before listening"
		fi
		n=$((n + 1))
		[ $n -le 600 ] || die "$name: netloom serve not listening after 30 s"
		sleep 0.05
	done
	ranks=
	for r in 0 1 2 3 4 5; do
		"$build/adapters/live_ring" "ipc://$dir/$name.sock" $r 30 16384 > /dev/null &
		ranks="$ranks $!"
	done
	r=0; bad=
	for p in $ranks; do
		rc=0; wait "$p" || rc=$?
		[ $rc -eq 0 ] || bad="${bad:-rank $r exited with status $rc}"
		r=$((r + 1))
	done
	ranks=
	if [ -n "$bad" ]; then
		kill "$srv" 2>/dev/null || true
		wait "$srv" 2>/dev/null || true; srv=
		die "$name: $bad"
	fi
	rc=0; wait "$srv" || rc=$?; srv=
	[ $rc -eq 0 ] || die "$name: netloom serve exited with status $rc"
}
run alone
run beside --trace "$trace"
lat() { awk '{ s += $8 - $7; if ($1 == 5) { f += $8 - $7; n5++ } } END {
	printf "%d ring messages, mean latency %.3f us (5 -> 0: %.3f us)\n", NR, s / NR * 1e-6, f / n5 * 1e-6 }' "$1"; }
echo "ring alone:         $(lat "$dir/alone.msgs")"
echo "ring beside trace:  $(lat "$dir/beside.msgs")"
sed -n '/beside trace/,/trace ranks/p' "$dir/beside.out"
