#!/usr/bin/env bash
# The benchmark programs' arguments: a value that is not a decimal
# integer in range is refused with one line naming it, exit 2, before any
# work (strtoull alone took "-5" as 2^64 - 5 and "x" as 0).
# usage: bench_args.sh BENCH_TRACE BENCH_REPLAY_RATE
set -uo pipefail
trace=$1
rate=$2
. "$(dirname "$0")/lib.sh"
refused() { # NEEDLE COMMAND...
	local needle=$1 out rc
	shift
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [[ $out == *"$needle"* ]]; then
		echo "ok - $*"
	else
		fail "$*: exit $rc, said '$out' (expected 2 and '$needle')"
	fi
}
for v in -5 x 0 12x ""; do
	refused "write OPS '$v': expected a positive integer" "$trace" write "$v"
done
refused "RANKS '-2': expected a decimal integer" "$rate" -2
refused "RANKS 'x': expected a decimal integer" "$rate" x
refused "ITERS ' 5': expected a decimal integer" "$rate" 4 " 5"
refused "WINDOW '70000': expected a decimal integer up to 65536" "$rate" 4 10 70000
refused "BYTES '-1': expected a decimal integer" "$rate" 4 10 2 -1
# A small run still runs and prints its figure last.
last=$("$rate" 4 100 2 8 | tail -n 1)
[[ $last == "replay rate: "*" MPI messages/s" ]] || fail "a small run: last line '$last'"
[ "$fails" -eq 0 ]
