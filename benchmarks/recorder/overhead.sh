#!/usr/bin/env bash
# Recorder overhead on a real application: LAMMPS in.lj (32000 atoms, 100
# steps) at 8 ranks, run REPS times without and REPS times with
# libnetloom-record.so, interleaved so that load changes hit both alike.
# The figure is the median wall time of the whole mpirun (MPI_Init to exit,
# archive assembly included) with the recorder over the median without it,
# minus one, in percent: the last line, "recorder overhead: X.X%".
# The medians of LAMMPS's own "Loop time" (the timestep loop only) and the
# cost of one recorded call (callcost.c: MPI_Iprobe on MPI_PROC_NULL, one
# rank, with and without the recorder) are printed above it. Target: below 5%.
# usage: benchmarks/recorder/overhead.sh LIB CALLCOST [REPS] [NP]   (defaults 7, 8)
# LIB is libnetloom-record.so and CALLCOST callcost.c's program, both of
# the build being measured: meson passes its own (benchmarks/recorder/
# meson.build), so `scripts/bench.sh recorder` measures build-rel's; by
# hand, e.g. build-rel/traces/record/libnetloom-record.so
# build-rel/benchmarks/recorder/callcost.
# Exit status 77 (skipped) when mpirun or lmp is not installed.
set -euo pipefail
shopt -s inherit_errexit # a failed mpirun inside one()'s $(...) ends the script too
usage="usage: overhead.sh LIB CALLCOST [REPS] [NP]"
case ${1:-} in -h | --help) echo "$usage"; exit 0 ;; esac
[ $# -ge 2 ] && [ $# -le 4 ] || { echo "$usage" >&2; exit 2; }
# Made absolute before the cd below (a relative path is the caller's).
[ -f "$1" ] || { echo "overhead.sh: LIB '$1': no such file (expected libnetloom-record.so of a build)" >&2; exit 2; }
[ -f "$2" ] && [ -x "$2" ] || { echo "overhead.sh: CALLCOST '$2': not an executable (expected a build's benchmarks/recorder/callcost)" >&2; exit 2; }
lib=$(realpath -- "$1")
callcost=$(realpath -- "$2")
reps=${3:-7}
np=${4:-8}
case $reps in '' | *[!0-9]* | 0*) echo "overhead.sh: REPS '$reps': expected a positive integer" >&2; exit 2 ;; esac
case $np in '' | *[!0-9]* | 0*) echo "overhead.sh: NP '$np': expected a positive integer" >&2; exit 2 ;; esac
cd "$(dirname "$0")/../.."
root=$(pwd)
deck=$root/traces/samples/inputs/in.lj

# Missing programs are a skip (77, meson's "skipped"), not a failure: a
# plain scripts/bench.sh runs on machines without LAMMPS.
command -v mpirun >/dev/null || { echo "overhead.sh: mpirun not found (apt-get install openmpi-bin); skipped" >&2; exit 77; }
command -v lmp >/dev/null || { echo "overhead.sh: lmp not found (apt-get install lammps); skipped" >&2; exit 77; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export NETLOOM_TRACE_QUIET=1
unset NETLOOM_TRACE_POLLS NETLOOM_TRACE_START_BARRIER

work=$(mktemp -d "${TMPDIR:-/tmp}/nl-overhead.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$deck" "$work/in.lj"
cd "$work"

# one MODE: prints "wall_s loop_s"
one() {
  local t0 t1 out
  t0=$(date +%s.%N)
  if [ "$1" = with ]; then
    out=$(NETLOOM_TRACE="$work/t.nlt" mpirun -np "$np" env LD_PRELOAD="$lib" lmp -in in.lj -log none)
    [ -s "$work/t.nlt" ] || { echo "overhead.sh: no trace written" >&2; exit 1; }
    rm -f "$work/t.nlt"
  else
    out=$(mpirun -np "$np" lmp -in in.lj -log none)
  fi
  t1=$(date +%s.%N)
  echo "$(awk "BEGIN {print $t1 - $t0}") $(echo "$out" | awk '/^Loop time/ {print $4}')"
}

one without >/dev/null # warm the page cache
for i in $(seq 1 "$reps"); do
  # Assigned first: a failed run then ends the script (set -e), which an
  # argument of echo would not.
  r=$(one without)
  echo "without $r" >>"$work/times"
  r=$(one with)
  echo "with $r" >>"$work/times"
done

# Per-call cost: the best of 3 runs each way (a single process, little noise).
for i in 1 2 3; do
  mpirun -np 1 "$callcost" | awk '/ns per/ {print "without", $1}' >>"$work/calls"
  NETLOOM_TRACE="$work/c.nlt" mpirun -np 1 env LD_PRELOAD="$lib" "$callcost" |
    awk '/ns per/ {print "with", $1}' >>"$work/calls"
  rm -f "$work/c.nlt"
done

python3 - "$work/times" "$np" "$reps" "$work/calls" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
np_, reps = sys.argv[2], sys.argv[3]
calls = [l.split() for l in open(sys.argv[4])]
c0 = min(float(v) for m, v in calls if m == "without")
c1 = min(float(v) for m, v in calls if m == "with")
print(f"one recorded call (MPI_Iprobe, 1 rank, best of 3): {c1:.0f} ns with the recorder, "
      f"{c0:.0f} ns without: {c1 - c0:.0f} ns per call (2 ops: compute + iprobe)")
def med(mode, col):
    return statistics.median(float(r[col]) for r in rows if r[0] == mode)
w0, w1 = med("without", 1), med("with", 1)
l0, l1 = med("without", 2), med("with", 2)
print(f"LAMMPS in.lj, {np_} ranks, {reps} runs each (median):")
print(f"  wall time: without {w0:.3f} s, with recorder {w1:.3f} s")
print(f"  loop time: without {l0:.3f} s, with recorder {l1:.3f} s ({(l1 / l0 - 1) * 100:+.1f}%)")
print(f"recorder overhead: {(w1 / w0 - 1) * 100:.1f}%")
PY
