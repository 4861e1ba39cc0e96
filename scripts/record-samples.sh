#!/usr/bin/env bash
# Re-record traces/samples/ with the recorder (docs/recorder.md): LAMMPS
# in.lj at 2, 8 and 16 ranks, HPCC (full runs at 8 and 16 ranks, a window
# at 2), a recorded
# ping-pong, and the shared-memory calibration (calibration-shm.json). The
# 2-rank recordings run one rank per core of the 2-core machine kind and are
# the ones whose recorded runtime replay can be checked against; run this
# script on an otherwise idle machine. It
# installs the Debian packages it needs (lammps, hpcc) when missing, builds
# netloom, records into a temporary directory, then replaces the samples
# and regenerates traces/samples/README.md with exactly what was run.
# Traces hold measured times, so a new recording differs in its bytes.
# usage: scripts/record-samples.sh [--check-only | --help]
#   (none):       record, then replace the samples and the README
#   --check-only: record into a temporary directory and report sizes, but
#                 leave traces/samples/ untouched.
#   --help:       print this usage. Any other argument is a usage error (exit 2).
# The new samples and README are written to a staging directory first and
# moved over the old ones only at the end, once everything was recorded and
# written: a failure or an interrupt before that leaves traces/samples/ as it was.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
samples=$root/traces/samples
inputs=$samples/inputs
max_total=$((5 * 1024 * 1024)) # the samples' budget, bytes

usage() { echo "usage: scripts/record-samples.sh [--check-only | --help]"; }
check_only=0
case "$#:${1:-}" in
  0:) ;;
  1:--check-only) check_only=1 ;;
  1:-h | 1:--help) usage; exit 0 ;;
  1:*) echo "scripts/record-samples.sh: unknown argument '$1' (expected --check-only or --help)" >&2; usage >&2; exit 2 ;;
  *) echo "scripts/record-samples.sh: $# arguments; expected at most one" >&2; usage >&2; exit 2 ;;
esac

scripts/deps.sh
missing=()
for p in lammps hpcc; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "record-samples: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
scripts/build.sh
lib=$root/build/traces/record/libnetloom-record.so
pingpong=$root/build/traces/record/netloom-pingpong
[ -f "$lib" ] || { echo "record-samples: $lib was not built (is libopenmpi-dev installed?)" >&2; exit 1; }

# Root (containers, CI) and more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
unset NETLOOM_TRACE NETLOOM_TRACE_POLLS NETLOOM_TRACE_START_BARRIER NETLOOM_TRACE_TMPDIR

# Name the code before anything is replaced (the new samples make the tree dirty).
rev=$(git describe --always --dirty 2>/dev/null || echo unknown)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
work=$(mktemp -d "${TMPDIR:-/tmp}/nl-samples.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/out
mkdir -p "$out"
log=$work/commands.txt
: >"$log"

# run NAME DIR ENV... -- MPIRUN-ARGS...: one recorded run, command logged.
run() {
  local name=$1 dir=$2
  shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  echo "record-samples: $name" >&2
  (cd "$dir" && env NETLOOM_TRACE="$out/$name.nlt" "${envs[@]}" nice mpirun "$@" \
     >"$work/$name.stdout" 2>"$work/$name.stderr") || {
    echo "record-samples: $name failed:" >&2; cat "$work/$name.stderr" >&2; exit 1; }
  grep '^netloom-record' "$work/$name.stderr" >&2 || true
  if grep -q 'no trace written\|recording stopped' "$work/$name.stderr"; then
    echo "record-samples: $name: the recorder failed" >&2; exit 1
  fi
  printf '%s\t%s\t%s\n' "$name" "${envs[*]:-}" "mpirun $*" >>"$log"
}

# run_median K NAME DIR ENV... -- MPIRUN-ARGS...: K recorded runs, keeping
# the one whose recorded runtime is the median. A 2-rank sample's runtime is
# what replay is judged against, and on a shared machine one run can be
# 20% off another; the median run is the typical one.
run_median() {
  local k=$1 name=$2
  shift 2
  local i
  : >"$work/$name.runtimes"
  for i in $(seq 1 "$k"); do
    run "$name" "$@"
    mv "$out/$name.nlt" "$work/$name.try$i.nlt"
    printf '%s %s\n' "$("$root/build/netloom" trace info --json "$work/$name.try$i.nlt" |
      python3 -c 'import json, sys; print("%.6f" % json.load(sys.stdin)["recorded_runtime_s"])')" "$i" \
      >>"$work/$name.runtimes"
  done
  i=$(sort -g "$work/$name.runtimes" | sed -n "$(( (k + 1) / 2 ))p" | cut -d' ' -f2)
  echo "record-samples: $name: recorded runtimes $(sort -g "$work/$name.runtimes" | cut -d' ' -f1 | tr '\n' ' '); keeping the median (run $i)" >&2
  cp "$work/$name.try$i.nlt" "$out/$name.nlt"
  # One command line in the log.
  awk -F'\t' -v n="$name" '$1 != n || !seen++' "$log" >"$log.tmp" && mv "$log.tmp" "$log"
  printf '%s\t%s\n' "$name" "$(sort -g "$work/$name.runtimes" | cut -d' ' -f1 | tr '\n' ' ')" >>"$work/medians.txt"
}

# --- calibration: the recorded ping-pong --------------------------------------
# The transport is measured the way the samples see it: netloom-pingpong runs
# under the recorder, so its one-way times include the recorder's per-call
# cost. The 2-rank run is kept as the pingpong-2 sample; its own measurement
# (stdout) is the calibration the 2-rank samples are judged with. The 8- and
# 16-rank runs only contribute their measurements.
for np in 2 8 16; do
  mkdir -p "$work/pp$np"
  run "pingpong-$np" "$work/pp$np" -- -np "$np" env LD_PRELOAD="$lib" "$pingpong" --iters 200 --reps 7
  cp "$work/pingpong-$np.stdout" "$work/pingpong-$np.json"
done
rm -f "$out/pingpong-8.nlt" "$out/pingpong-16.nlt"
sed -i '/^pingpong-8\t\|^pingpong-16\t/d' "$log"

# --- LAMMPS in.lj (100 steps, 32000 atoms) -------------------------------------
for np in 2 8 16; do
  mkdir -p "$work/lj$np"
  cp "$inputs/in.lj" "$work/lj$np/"
  if [ "$np" = 2 ]; then
    run_median 3 "lammps-lj-$np" "$work/lj$np" -- -np "$np" env LD_PRELOAD="$lib" lmp -in in.lj -log none
  else
    run "lammps-lj-$np" "$work/lj$np" -- -np "$np" env LD_PRELOAD="$lib" lmp -in in.lj -log none
  fi
done

# --- HPCC ------------------------------------------------------------------------
# At 8 and 16 ranks, the full run: every section, the MPI RandomAccess ones
# included, whose wildcard receives end with MPI_Cancel (recorded as cancel
# ops with their outcome; docs/recorder.md). At 2 ranks, whose recorded
# runtime the accuracy check judges, a window as before: Debian's hpcc
# 1.5.0 runs every test and has no switch to pick some, so the window opens
# when the MPI_Barrier on MPI_COMM_WORLD starting the PTRANS section
# returns (the 152nd such barrier at 2 ranks, counted from a full
# recording). Polling loops are folded.
hpcc_check() { # NP: the recording holds what it should
  local np=$1 n
  n=$("$root/build/netloom" trace info --json "$out/hpcc-$np.nlt" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["calls"].get("cancel", 0))')
  if [ "$np" = 2 ]; then
    grep -q 'Begin of PTRANS section' "$work/hpcc$np/hpccoutf.txt"
    [ "$n" = 0 ] || { echo "record-samples: hpcc-$np: the window includes MPI_Cancel; the barrier count is stale" >&2; exit 1; }
  else
    grep -q 'Begin of MPIRandomAccess section' "$work/hpcc$np/hpccoutf.txt"
    [ "$n" -gt 0 ] || { echo "record-samples: hpcc-$np: no cancel op in a full run" >&2; exit 1; }
  fi
}
for np in 2 8 16; do
  mkdir -p "$work/hpcc$np"
  cp "$inputs/hpccinf-${np}ranks.txt" "$work/hpcc$np/hpccinf.txt"
  chmod u+w "$work/hpcc$np/hpccinf.txt"
  if [ "$np" = 2 ]; then
    run_median 3 "hpcc-$np" "$work/hpcc$np" NETLOOM_TRACE_POLLS=fold \
      NETLOOM_TRACE_START_BARRIER=152 -- -np "$np" env LD_PRELOAD="$lib" hpcc
  else
    run "hpcc-$np" "$work/hpcc$np" NETLOOM_TRACE_POLLS=fold -- -np "$np" env LD_PRELOAD="$lib" hpcc
  fi
  hpcc_check "$np"
done

python3 - "$work" "$out/calibration-shm.json" <<'PY'
import json, sys
work, dest = sys.argv[1], sys.argv[2]
runs = [json.load(open(f"{work}/pingpong-{np}.json")) for np in (2, 8, 16)]
doc = {
    "what": "one-way time of MPI_Send/MPI_Recv ping-pongs between ranks of one machine "
            "(Open MPI shared memory, vader), measured by netloom-pingpong running under "
            "the recorder (the 2-rank run is pingpong-2.nlt); docs/replay.md",
    "model": "one_way(bytes) = latency_s + bytes / bandwidth_Bps",
    "runs": runs,
}
with open(dest, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
PY

load_end=$(cut -d' ' -f1-3 /proc/loadavg)
total=0
for f in "$out"/*; do total=$((total + $(stat -c %s "$f"))); done
ls -l "$out" >&2
echo "record-samples: total $total bytes (budget $max_total)" >&2
if [ "$total" -gt "$max_total" ]; then
  echo "record-samples: the samples exceed the budget; not replacing them" >&2
  exit 1
fi
[ "$check_only" = 1 ] && exit 0

# --- stage the new samples and their README, then move them into place --------
# The staging directory is inside traces/samples/ (one file system), so each
# file's move at the end is a rename.
stage=$(mktemp -d "$samples/.record-samples.XXXXXX")
trap 'rm -rf "$work" "$stage"' EXIT
cp "$out"/* "$stage/"

host_desc="$(uname -s) $(uname -r) $(uname -m), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.0f GiB RAM", $2/1048576}' /proc/meminfo)"
ver() { dpkg-query -W -f='${Version}' "$1"; }
{
  cat <<EOF
# Recorded sample traces

Recorded with \`scripts/record-samples.sh\` (which writes this file) using
netloom-record $rev and Open MPI $(ver openmpi-bin),
on $(date -u +%Y-%m-%d): $host_desc.
All ranks ran on this one machine, as root (load average $load_start when
the recording started, $load_end when it ended). The 2-rank recordings run
one rank per core: their recorded runtimes are what replay on the
calibrated analytical model is checked against (tests/e2e/replay_samples.sh
accuracy). The 8- and 16-rank recordings run 4 and 8 ranks per core
(\`--oversubscribe\`): they are real communication patterns for network
studies, but their recorded times are dominated by the operating system
sharing the cores (a rank waits in MPI for a peer that is not scheduled),
which no network model reproduces, so their runtimes are not judged.
Each manifest says how many ranks shared a core (format 2), so replay calls
those runtimes not comparable, and the compute intervals of the
oversubscribed recordings carry the ranks' thread CPU time, which replay
uses for them (docs/replay.md, "Recorded runtime").
Re-recording gives different bytes (the traces hold measured times) but the
same structure.

| file | program (Debian package) | input | ranks | recorder settings |
|---|---|---|---|---|
| lammps-lj-2.nlt | \`lmp\` (lammps $(ver lammps)) | \`inputs/in.lj\`: 3-d Lennard-Jones melt, 32000 atoms, 100 steps | 2 | defaults |
| lammps-lj-8.nlt | \`lmp\` (lammps $(ver lammps)) | same | 8 | defaults |
| lammps-lj-16.nlt | \`lmp\` (lammps $(ver lammps)) | same | 16 | defaults |
| hpcc-2.nlt | \`hpcc\` (hpcc $(ver hpcc)) | \`inputs/hpccinf-2ranks.txt\` as \`hpccinf.txt\` (HPL N=320, NB=40, 1x2 grid) | 2 | PTRANS section onwards (\`NETLOOM_TRACE_START_BARRIER=152\`), \`NETLOOM_TRACE_POLLS=fold\` |
| hpcc-8.nlt | \`hpcc\` (hpcc $(ver hpcc)) | \`inputs/hpccinf-8ranks.txt\` as \`hpccinf.txt\` (HPL N=320, NB=40, 2x4 grid) | 8 | the full run, \`NETLOOM_TRACE_POLLS=fold\` |
| hpcc-16.nlt | \`hpcc\` (hpcc $(ver hpcc)) | \`inputs/hpccinf-16ranks.txt\` as \`hpccinf.txt\` | 16 | the full run, \`NETLOOM_TRACE_POLLS=fold\` |
| pingpong-2.nlt | \`netloom-pingpong\` (this repository, traces/record/pingpong.c) | \`--iters 200 --reps 7\` | 2 | defaults |

lammps-lj-2 and hpcc-2 were each recorded three times and the run with the
median recorded runtime kept (recorded runtimes of the three runs, in s:
$(awk -F'\t' '{printf "%s%s: %s", (NR > 1 ? "; " : ""), $1, $2}' "$work/medians.txt" | sed 's/ *$//; s/ ;/;/g')).

hpcc-8 and hpcc-16 are HPCC's full runs: MPI RandomAccess (whose wildcard
receives end with MPI_Cancel, recorded as cancel ops with the outcome
MPI_Test_cancelled gave; docs/recorder.md), PTRANS, DGEMM, STREAM, FFT,
the latency/bandwidth tests and HPL. hpcc-2 is a window: Debian's hpcc
runs all of its tests and has no option to select some, so its trace opens
when the MPI_Barrier on MPI_COMM_WORLD starting the PTRANS section
returns, and leaves out the RandomAccess sections; its time zero and
\`recorded_runtime_s\` are measured from the window's start.

Command lines, run in a scratch directory holding the input (the
environment of each run also had \`NETLOOM_TRACE=<file>\`,
\`OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1\` and
\`OMPI_MCA_rmaps_base_oversubscribe=1\`; \`\$LIB\` is
\`build/traces/record/libnetloom-record.so\`):

\`\`\`
EOF
  sed "s|$lib|\$LIB|g; s|$pingpong|build/traces/record/netloom-pingpong|g" "$log" |
    awk -F'\t' '{ printf "%-16s %s%s%s\n", $1 ":", $2, ($2 == "" ? "" : " "), $3 }'
  cat <<EOF
\`\`\`

## calibration-shm.json

The recording machine's shared-memory transport as the recorded programs
see it: \`netloom-pingpong\` running under the recorder (the commands
above: the 2-rank run is pingpong-2.nlt; the 8- and 16-rank runs were
recorded the same way and only their measurements kept), so the one-way
times include the recorder's cost per MPI call. Ranks pair up (r, r + N/2)
and all pairs ping-pong at once, so the 8- and 16-rank runs measure the
transport under the same oversubscription as the samples. Per size (0 B,
then 1 B to 4 MiB by powers of two), 7 batches of 200 round trips per pair
(fewer above 64 KiB) after a warm-up batch; a batch's one-way time is its
mean round trip / 2 (\`one_way\`). Then the same sizes are exchanged, both
ranks of a pair calling MPI_Sendrecv at once (\`exchange\`: the time per
exchange, the one-way time of a message meeting one going the other way;
the analytical backend uses it for such messages). \`seconds\` is the
fastest batch over all pairs,
\`median_seconds\` the median batch, which the analytical backend's
\`calibration\` key reads (docs/replay.md). \`latency_s\` is the fastest
0-byte one-way time, \`bandwidth_Bps\` the inverse least-squares slope of
the fastest one-way times over sizes >= 64 KiB, for the two-parameter model
\`one_way(bytes) = latency_s + bytes / bandwidth_Bps\`.

| ranks | latency | bandwidth | median 0 B | median 1 MiB | median 2 MiB | 2 MiB exchange |
|---|---|---|---|---|---|---|
EOF
  python3 - "$stage/calibration-shm.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    at = lambda t, b: next(x for x in r[t] if x["bytes"] == b)["median_seconds"] * 1e6
    print(f"| {r['ranks']} | {r['latency_s'] * 1e6:.3f} us | {r['bandwidth_Bps'] / 1e9:.2f} GB/s "
          f"| {at('one_way', 0):.3f} us | {at('one_way', 1 << 20):.1f} us "
          f"| {at('one_way', 2 << 20):.1f} us | {at('exchange', 2 << 20):.1f} us |")
PY
  cat <<EOF

## inputs/

\`in.lj\` is LAMMPS's Lennard-Jones benchmark deck (LAMMPS \`bench/in.lj\`);
\`hpccinf-8ranks.txt\` and \`hpccinf-16ranks.txt\` are HPCC input files
sized for 8 and 16 ranks. They are copies of the project's MPI input decks
(shared data, \`mpi-inputs/\`), kept here so the recording is reproducible;
\`hpccinf-2ranks.txt\` is the 8-rank file with a 1x2 process grid.

## Sizes

\`\`\`
EOF
  (cd "$stage" && ls -l ./*.nlt calibration-shm.json | awk '{printf "%10d  %s\n", $5, $9}' | sed 's|\./||')
  echo "total: $total bytes (budget: $max_total)"
  echo '```'
} >"$stage/README.md"

# Into place: the old recordings the new set has no file for go, then each
# new file is renamed over its old one, the README last.
for f in "$samples"/*.nlt; do
  [ ! -e "$f" ] || [ -e "$stage/${f##*/}" ] || rm -f "$f"
done
for f in "$stage"/*; do
  [ "${f##*/}" = README.md ] || mv -f "$f" "$samples/"
done
mv -f "$stage/README.md" "$samples/README.md"
echo "record-samples: wrote $samples" >&2
