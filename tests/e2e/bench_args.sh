#!/usr/bin/env bash
# The benchmark programs' arguments: a value that is not a decimal
# integer in range is refused with one line naming it, exit 2, before any
# work (strtoull alone took "-5" as 2^64 - 5 and "x" as 0); so are the
# engine scripts' NETLOOM and N.
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
# Out of range: strtoull's ERANGE read as 2^64 - 1 (ran until killed),
# and OPS x 8 ranks past 64 bits.
for v in 99999999999999999999999 18446744073709551616 18446744073709551615 10000000000001; do
	refused "write OPS '$v': expected a positive integer up to 10000000000000" timeout 10 "$trace" write "$v"
done
refused "RANKS '-2': expected a decimal integer" "$rate" -2
# Above the replay's 2^24 - 1 ranks (app_new refused it: exit 1).
refused "RANKS '33554432': expected a decimal integer up to 16777215" timeout 10 "$rate" 33554432
refused "RANKS '16777216': expected a decimal integer up to 16777215" timeout 10 "$rate" 16777216
# The messages RANKS/2 x ITERS x (WINDOW + 1) past 64 bits.
refused "ITERS '18446744073709551615': expected a decimal integer up to 542551296285575047" \
	timeout 10 "$rate" 4 18446744073709551615 16
refused "RANKS 'x': expected a decimal integer" "$rate" x
refused "ITERS ' 5': expected a decimal integer" "$rate" 4 " 5"
refused "WINDOW '70000': expected a decimal integer up to 65536" "$rate" 4 10 70000
refused "BYTES '-1': expected a decimal integer" "$rate" 4 10 2 -1
# The engine scripts docs/scaling.md runs check NETLOOM and N before any
# run (mpi.sh N = 0 ended in a ZeroDivisionError after both runs, N = abc
# in mpirun's refusal after the first; mpi_memory.sh likewise). Refused
# before NETLOOM runs, so any executable stands for it.
engine=$(dirname "$0")/../../benchmarks/engine
for s in threads.sh mpi.sh mpi_memory.sh; do
	for v in 0 abc -1 02; do
		refused "$s: N '$v': expected a positive integer" "$engine/$s" "$trace" "$v"
	done
	refused "$s: NETLOOM '$dir/no-netloom': not an executable" "$engine/$s" "$dir/no-netloom" 2
done
# bench_replay_ranks_memory.sh: NETLOOM, TRACE and COPIES before the
# first tiling (minutes at 16,384 ranks); any file stands for TRACE.
replay=$(dirname "$0")/../../benchmarks/replay
refused "bench_replay_ranks_memory.sh: NETLOOM '$dir/no-netloom': not an executable" \
	"$replay/bench_replay_ranks_memory.sh" "$dir/no-netloom" "$trace"
refused "bench_replay_ranks_memory.sh: TRACE '$dir/no.nlt': not a file" \
	"$replay/bench_replay_ranks_memory.sh" "$trace" "$dir/no.nlt"
for v in 0 abc -1 02; do
	refused "bench_replay_ranks_memory.sh: COPIES '$v': expected a positive integer" \
		"$replay/bench_replay_ranks_memory.sh" "$trace" "$trace" 1 "$v"
done
refused "bench_replay_ranks_memory.sh: COPIES '64': expected at least two sizes" \
	"$replay/bench_replay_ranks_memory.sh" "$trace" "$trace" 64
refused "bench_replay_ranks_memory.sh: COPIES '4': expected the last size larger than the first (64)" \
	"$replay/bench_replay_ranks_memory.sh" "$trace" "$trace" 64 4
# booksim_topos.sh: a NETLOOM that is not an executable ended in bash's
# "No such file or directory", exit 127; a wrong mode was refused only
# after the conversion. Both before anything runs.
refused "booksim_topos.sh: NETLOOM '$dir/no-netloom': not an executable" \
	"$engine/booksim_topos.sh" "$dir/no-netloom" speed ff_ranmin 0.3
refused "booksim_topos.sh: mode 'bogus': expected speed, memory or vs" \
	"$engine/booksim_topos.sh" "$dir/no-netloom" bogus ff_ranmin 0.3
# BookSim2's memory mode (a binary named booksim): NETLOOM converts.
mkdir -p "$dir/bs" && ln -sf "$(realpath "$trace")" "$dir/bs/booksim"
refused "booksim_topos.sh: NETLOOM '$dir/no-netloom': not an executable" \
	env NETLOOM="$dir/no-netloom" "$engine/booksim_topos.sh" "$dir/bs/booksim" memory ff_ranmin 0.3
# bench_replay_mpi.sh (docs/scaling.md, "Trace replay over ranks"): RANKS
# 0 ended in a ZeroDivisionError after a minute of replays.
for v in 0 abc -1; do
	refused "bench_replay_mpi.sh: RANKS '$v': expected a positive integer" \
		"$engine/../replay/bench_replay_mpi.sh" "$trace" "$trace" "$v"
done
refused "bench_replay_mpi.sh: REPLAY_MKTRACE '$dir/no-mktrace': not an executable" \
	"$engine/../replay/bench_replay_mpi.sh" "$trace" "$dir/no-mktrace" 2
# A small run still runs and prints its figure last.
last=$("$rate" 4 100 2 8 | tail -n 1)
[[ $last == "replay rate: "*" MPI messages/s" ]] || fail "a small run: last line '$last'"
[ "$fails" -eq 0 ]
