#!/usr/bin/env bash
# Parallel efficiency of the MPI engine (issue 16 part 2): the same
# `netloom run` in one process and under `mpirun -np N`, timed by the
# JSON's results' wall_seconds (rank 0's simulation, not the set-up), the
# two results checked equal byte for byte (wall clock aside), and the
# exchange's traffic as the engine counts it (NETLOOM_MPI_STATS=1: the
# lookahead, the windows and their mean length, payload bytes and
# messages per window, all ranks).
# Last line: "parallel efficiency at N ranks: E (speedup S), B bytes
# exchanged per window of C cycles".
#   benchmarks/engine/mpi.sh NETLOOM [N] [CASE] [-s key=value ...]
# CASE: torus16 (16x16 torus, dor, 2 VCs, uniform 0.1; the default),
# torus64 (64x64, the same; channel_latency 1: windows of 2 cycles),
# dragonfly (a=16,p=8,h=8: 2,064 routers, 16,512 endpoints, min, 3 VCs,
# uniform 0.3), dragonfly_small (a=8,p=4,h=4: 264 routers, 1,056
# endpoints, the same settings), dragonfly_long (dragonfly with 100-cycle
# global links and METIS's partitions, which cut whole groups: windows of
# 101 cycles). Further -s settings are added to both runs (e.g. a netloom
# from before windows has no NETLOOM_MPI_WINDOW; NETLOOM_MPI_WINDOW=1 in
# the environment makes this one exchange every cycle).
set -euo pipefail
usage="usage: mpi.sh NETLOOM [N] [CASE] [-s key=value ...]"
case ${1:-} in -h | --help) echo "$usage"; exit 0 ;; esac
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
netloom=$1
ranks=${2:-2}
case=${3:-torus16}
extra=("${@:4}")
# Checked before any run: N = 0 ended in a ZeroDivisionError after both
# runs (mpirun -np 0 takes every slot), N = abc in mpirun's own refusal
# after the one-process run, as threads.sh's N once did.
. "$(dirname "$0")/bench_lib.sh"
bench_exe mpi.sh NETLOOM "$netloom"
bench_count mpi.sh N "$ranks"
common=(-s sample_period=300 -s max_samples=2 -s warmup_periods=1 -s seed=1)
case "$case" in
  torus16) args=(-s topology=torus:k=16x16 -s num_vcs=2 -s injection_rate=0.1) ;;
  torus64) args=(-s topology=torus:k=64x64 -s num_vcs=2 -s injection_rate=0.1) ;;
  dragonfly) args=(-s topology=dragonfly:a=16,p=8,h=8 -s routing_function=min -s num_vcs=3 -s injection_rate=0.3) ;;
  dragonfly_small) args=(-s topology=dragonfly:a=8,p=4,h=4 -s routing_function=min -s num_vcs=3 -s injection_rate=0.3) ;;
  dragonfly_long) args=(-s topology=dragonfly:a=16,p=8,h=8 -s routing_function=min -s num_vcs=3 -s injection_rate=0.3
                        -s global_latency=100 -s partitioner=metis) ;;
  *) echo "mpi.sh: unknown case '$case' (torus16, torus64, dragonfly, dragonfly_small, dragonfly_long)" >&2; exit 2 ;;
esac
command -v mpirun >/dev/null 2>&1 || { echo "mpi.sh: mpirun not found" >&2; exit 77; }
# Root, more ranks than cores, ranks that yield while they wait: the
# tests' Open MPI environment.
. "$(dirname "$0")/../../tests/mpi_env.sh"
# A netloom built without MPI refuses several ranks: skipped (77) before
# the one-process run, not failed after it. In a subshell without
# pipefail: mpi_require's check is a pipeline of the refused mpirun into
# grep, whose status pipefail would take from mpirun (never a skip).
(set +o pipefail; mpi_require "$netloom") || exit
export NETLOOM_PROGRESS=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$nl_ompi_tmp"' EXIT
rate() { # json: flit-hops per wall second of the simulation
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(round(r["flit_hops"] / r["wall_seconds"]))' "$1"
}
strip() { sed -i -E 's/"wall_seconds": [0-9.e+-]+/"wall_seconds": 0/g' "$1"; }
args+=("${extra[@]}")
"$netloom" run "${args[@]}" "${common[@]}" --json "$tmp/1.json" >/dev/null
rate "$tmp/1.json" >"$tmp/1.rate"
strip "$tmp/1.json"
NETLOOM_MPI_STATS=1 mpirun -np "$ranks" "$netloom" run "${args[@]}" "${common[@]}" --json "$tmp/n.json" \
  >/dev/null 2>"$tmp/n.err" </dev/null || { cat "$tmp/n.err" >&2; exit 1; }
rate "$tmp/n.json" >"$tmp/n.rate"
strip "$tmp/n.json"
if ! cmp -s "$tmp/1.json" "$tmp/n.json"; then
  echo "mpi.sh: $ranks ranks gave other results than one process" >&2
  exit 1
fi
stats=$(grep '^netloom mpi:' "$tmp/n.err")
echo "$stats"
bytes=$(sed -E 's/.*all ranks: ([0-9.]+) payload bytes.*/\1/' <<<"$stats")
# Cycles per window (1 for a netloom from before windows, which printed
# "per exchange (one cycle)").
wlen=$(sed -nE 's/.* windows of ([0-9.]+) cycles on average.*/\1/p' <<<"$stats")
one=$(cat "$tmp/1.rate")
many=$(cat "$tmp/n.rate")
echo "case $case: 1 process $one flit-hops/s, $ranks ranks $many flit-hops/s (same results)"
python3 -c 'import sys; s = int(sys.argv[2]) / int(sys.argv[1]); print(f"parallel efficiency at {sys.argv[3]} ranks: {s / int(sys.argv[3]):.2f} (speedup {s:.2f}), {float(sys.argv[4]):.0f} bytes exchanged per window of {float(sys.argv[5]):.2f} cycles")' \
  "$one" "$many" "$ranks" "$bytes" "${wlen:-1}"
