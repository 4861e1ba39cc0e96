#!/usr/bin/env bash
# Memory per MPI rank (issue 16 part 2): the peak resident set of each
# rank of `mpirun -np N netloom run` against that of the same run in one
# process (no mpirun), the results checked equal byte for byte (wall
# clock aside). Peaks are the kernel's ru_maxrss of each process, as GNU
# time reports it (docs/scaling.md, "Memory per rank"; a wrapper in
# python would add its own resident set, which a child inherits until it
# execs).
# A process's base (binary, libraries, and under mpirun the MPI library
# and its shared-memory transport, which grows with the ranks) is
# measured the same way on a 4x4 torus, and the network's state is the
# ranks' mean peak less that base's mean.
# Last line: "per-rank peak at N ranks: X% of one process (A MB vs B MB);
# network state Y% (a MB vs b MB above the base)".
#   benchmarks/engine/mpi_memory.sh NETLOOM [N] [CASE] [-s key=value ...]
# CASE: equality (the 128,000-endpoint Equality network of
# docs/scaling.md, 8,000 routers of radix 64 + 16 endpoints, amin, 3 VCs,
# 64-flit buffers, bitcomp, idle: injection_rate 1e-6; the default),
# equality_load (the same at injection_rate 0.3), torus64 (64x64 torus,
# dor, 2 VCs, idle), torus64_load (the same at 0.3). Further -s settings
# are added to both runs (e.g. -s partitioner=metis).
set -euo pipefail
usage="usage: mpi_memory.sh NETLOOM [N] [CASE] [-s key=value ...]"
case ${1:-} in -h | --help) echo "$usage"; exit 0 ;; esac
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
netloom=$1
ranks=${2:-2}
case=${3:-equality}
extra=("${@:4}")
# Checked before any run: N = 0 ended in a ZeroDivisionError after both
# runs (mpirun -np 0 takes every slot), N = abc in mpirun's own refusal
# after the one-process run, as threads.sh's N once did.
. "$(dirname "$0")/bench_lib.sh"
bench_exe mpi_memory.sh NETLOOM "$netloom"
bench_count mpi_memory.sh N "$ranks"
common=(-s sample_period=40 -s max_samples=2 -s warmup_periods=1 -s seed=1 -s sim_type=throughput)
command -v mpirun >/dev/null 2>&1 || { echo "mpi_memory.sh: mpirun not found" >&2; exit 77; }
[ -x /usr/bin/time ] || { echo "mpi_memory.sh: /usr/bin/time (GNU time) not found" >&2; exit 77; }
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
equality() {
  "$netloom" design equality --routers 8000 --radix 64 --endpoints 16 --seed 1 --json -o "$tmp/eq.json" >/dev/null
  spec=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["spec"])' "$tmp/eq.json")
  args=(-s "topology=$spec" -s routing_function=amin -s num_vcs=3 -s vc_buf_size=64 -s packet_size=1
        -s traffic=bitcomp -s "injection_rate=$1")
}
case "$case" in
  equality) equality 0.000001 ;;
  equality_load) equality 0.3 ;;
  torus64) args=(-s topology=torus:k=64x64 -s routing_function=dor -s num_vcs=2 -s injection_rate=0.000001) ;;
  torus64_load) args=(-s topology=torus:k=64x64 -s routing_function=dor -s num_vcs=2 -s injection_rate=0.3) ;;
  *) echo "mpi_memory.sh: unknown case '$case' (equality, equality_load, torus64, torus64_load)" >&2; exit 2 ;;
esac
args+=("${extra[@]}")
# Runs its command and appends its peak RSS (KB) to a file.
peak() {
  local rss=$1
  shift
  /usr/bin/time -a -o "$rss" -f %M "$@"
}
strip() { sed -i -E 's/"wall_seconds": [0-9.e+-]+/"wall_seconds": 0/g' "$1"; }
ranks_run() { # RSS_FILE ARGS...: netloom run over the ranks
  local rss=$1
  shift
  mpirun -np "$ranks" /usr/bin/time -a -o "$rss" -f %M "$netloom" run "$@" >/dev/null 2>"$tmp/n.err" </dev/null ||
    { cat "$tmp/n.err" >&2; exit 1; }
}
base=(-s topology=torus:k=4x4 -s routing_function=dor -s num_vcs=2 -s injection_rate=0.000001)
peak "$tmp/1.base" "$netloom" run "${base[@]}" "${common[@]}" >/dev/null
ranks_run "$tmp/n.base" "${base[@]}" "${common[@]}"
peak "$tmp/1.rss" "$netloom" run "${args[@]}" "${common[@]}" --json "$tmp/1.json" >/dev/null
strip "$tmp/1.json"
ranks_run "$tmp/n.rss" "${args[@]}" "${common[@]}" --json "$tmp/n.json"
strip "$tmp/n.json"
if ! cmp -s "$tmp/1.json" "$tmp/n.json"; then
  echo "mpi_memory.sh: $ranks ranks gave other results than one process" >&2
  exit 1
fi
one=$(cat "$tmp/1.rss")
echo "case $case: one process $one KB; each of $ranks ranks: $(sort -n "$tmp/n.rss" | tr '\n' ' ')KB (same results)"
echo "base (4x4 torus): one process $(cat "$tmp/1.base") KB; each of $ranks ranks: $(sort -n "$tmp/n.base" | tr '\n' ' ')KB"
python3 -c '
import sys
kb = [[int(x) for x in open(f).read().split()] for f in sys.argv[1:5]]
one, many = kb[0][0], max(kb[1])
# The state above the base: mean over the ranks less the base runs mean
# (a base peak varies by a few hundred KB from run to run).
mean = lambda v: sum(v) / len(v)
state1, staten = one - kb[2][0], mean(kb[1]) - mean(kb[3])
print(f"per-rank peak at {sys.argv[5]} ranks: {100 * many / one:.0f}% of one process ({many / 1024:.1f} MB vs {one / 1024:.1f} MB); "
      f"network state {100 * staten / state1:.0f}% ({staten / 1024:.1f} MB vs {state1 / 1024:.1f} MB above the base)")' \
  "$tmp/1.rss" "$tmp/n.rss" "$tmp/1.base" "$tmp/n.base" "$ranks"
