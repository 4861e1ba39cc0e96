#!/usr/bin/env bash
# A trace replay on the flit model in one process and spread over MPI
# ranks (issue 16 part 2): a 4,096-rank halo exchange (replay_mktrace
# stencil: ring neighbours, 64 KiB messages, 20 us of compute per
# iteration, 3 iterations, an allreduce each) on a 64x64 torus, one rank
# per endpoint. Prints both wall times, checks that the two JSON documents
# agree but for wall-clock fields, and ends with the speed-up (one process
# over N ranks) and the parallel efficiency (speed-up / N).
#
#   bench_replay_mpi.sh NETLOOM REPLAY_MKTRACE [RANKS]   (default 2)
#
# Needs mpirun (exit 77 without); runs as root and with more ranks than
# cores (the figure is then meaningless), as the engine's mpi.sh does.
set -euo pipefail
case ${1:-} in -h | --help) echo "usage: bench_replay_mpi.sh NETLOOM REPLAY_MKTRACE [RANKS]"; exit 0 ;; esac
[ $# -ge 2 ] || { echo "usage: bench_replay_mpi.sh NETLOOM REPLAY_MKTRACE [RANKS]" >&2; exit 2; }
netloom=$1
mk=$2
ranks=${3:-2}
# Checked before the runs (a minute each): RANKS = 0 ended in a
# ZeroDivisionError after both ('mpirun -np 0' takes every slot), RANKS =
# abc in mpirun's own refusal after the one-process replay.
# shellcheck source=benchmarks/engine/bench_lib.sh
. "$(dirname "$0")/../engine/bench_lib.sh"
bench_exe bench_replay_mpi.sh NETLOOM "$netloom"
bench_exe bench_replay_mpi.sh REPLAY_MKTRACE "$mk"
bench_count bench_replay_mpi.sh RANKS "$ranks"
command -v mpirun >/dev/null || { echo "bench_replay_mpi.sh: mpirun not found" >&2; exit 77; }
# Root, more ranks than cores, ranks that yield while they wait: the
# tests' Open MPI environment.
. "$(dirname "$0")/../../tests/mpi_env.sh"
# A netloom built without MPI refuses several ranks: skipped (77) before
# the one-process run, not failed after it. In a subshell without
# pipefail: mpi_require's check is a pipeline of the refused mpirun into
# grep, whose status pipefail would take from mpirun (never a skip).
(set +o pipefail; mpi_require "$netloom") || exit
dir=$(mktemp -d)
trap 'rm -rf "$dir" "$nl_ompi_tmp"' EXIT
export NETLOOM_PROGRESS=0
"$mk" "$dir/t.nlt" stencil 4096 3 65536 20000
net=(-s backend=flit -s topology=torus:k=64x64 -s num_vcs=2)
now() { date +%s.%N; }
t0=$(now)
"$netloom" replay "$dir/t.nlt" "${net[@]}" --json "$dir/seq.json" >/dev/null
t1=$(now)
NETLOOM_MPI_STATS=1 mpirun -np "$ranks" "$netloom" replay "$dir/t.nlt" "${net[@]}" --json "$dir/mpi.json" >/dev/null
t2=$(now)
[ "$(nowall "$dir/seq.json")" = "$(nowall "$dir/mpi.json")" ] ||
  { echo "bench_replay_mpi.sh: the replay over ranks differs from the one-process replay" >&2; exit 1; }
python3 - "$dir/seq.json" "$t0" "$t1" "$t2" "$ranks" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
t0, t1, t2 = (float(x) for x in sys.argv[2:5])
ranks = int(sys.argv[5])
net = a["results"]["network"]
seq, par = t1 - t0, t2 - t1
print(f"{net['cycles']} cycles, {net['flit_hops']} flit-hops; one process {seq:.1f} s, "
      f"{ranks} MPI ranks {par:.1f} s (mpirun start-up included)")
print(f"replay over {ranks} MPI ranks: speed-up {seq / par:.2f}, efficiency {seq / par / ranks:.2f}")
PY
