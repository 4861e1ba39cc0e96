#!/usr/bin/env bash
# Trace replay over MPI ranks (issue 16 part 2): `mpirun -np K netloom
# replay TRACE -s backend=flit ...` prints and writes what the sequential
# replay does, byte for byte but for wall-clock fields, for K = 1..3: every
# rank runs the application model, each runs its share of the network,
# deliveries reach every rank. Cases: a 16-rank halo exchange on a torus
# (messages crossing ranks every few cycles), threads inside ranks, METIS
# partitions, a fractional internal_speedup, a dragonfly with UGAL-L and 40-cycle global links, three
# networks in one replay, a network deadlock (the same cycle, flits and
# VCs, exit 1), the analytic backend refused in one line, and the
# collective calls per window. A failure on one rank alone (its trace
# missing or corrupt, its network's build out of memory) ends every rank
# with one line, without a hang.
# usage: mpi_replay.sh NETLOOM REPLAY_MKTRACE   (exit 77: no MPI)
set -uo pipefail
netloom=$(realpath "$1") # the one-rank failure runs in other directories
mk=$2
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/../mpi_env.sh"
mpi_require "$netloom"

"$mk" "$dir/st.nlt" stencil 16 5 4096 1000 || fail "mktrace stencil"
"$mk" "$dir/sh.nlt" shift 8 3 65536 || fail "mktrace shift"

firstdiff() { # the first path at which two JSON documents differ
  python3 - "$1" "$2" <<'PY'
import json, sys
def walk(a, b, path):
    if type(a) != type(b) or not isinstance(a, (dict, list)):
        return None if a == b else f"{path}: {str(a)[:60]} vs {str(b)[:60]}"
    keys = sorted(set(a) | set(b)) if isinstance(a, dict) else range(max(len(a), len(b)))
    for k in keys:
        if "wall" in str(k):
            continue
        try:
            r = walk(a[k], b[k], f"{path}/{k}")
        except (KeyError, IndexError):
            return f"{path}/{k}: missing on one side"
        if r:
            return r
    return None
print(walk(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), ""))
PY
}

same() { # name ranks replay-args...
  local name=$1 k=$2
  shift 2
  if [ ! -f "$dir/$name-seq.json" ]; then
    "$netloom" replay "$@" --json "$dir/$name-seq.json" >"$dir/$name-seq.out" 2>"$dir/$name-seq.err" \
      || fail "$name: sequential replay exit $?: $(head -2 "$dir/$name-seq.err")"
  fi
  mpi "$k" "$netloom" replay "$@" --json "$dir/$name-$k.json" >"$dir/$name-$k.out" 2>"$dir/$name-$k.err" \
    || fail "$name: mpirun -np $k exit $?: $(head -3 "$dir/$name-$k.err")"
  nowall "$dir/$name-$k.json" >"$dir/$name-$k.nw"
  nowall "$dir/$name-seq.json" >"$dir/$name-seq.nw"
  cmp -s "$dir/$name-seq.nw" "$dir/$name-$k.nw" \
    || fail "$name: -np $k JSON differs from the sequential replay: $(firstdiff "$dir/$name-seq.json" "$dir/$name-$k.json")"
  # The report, once (rank 0), as the sequential one.
  cmp -s <(grep -v 'wall' "$dir/$name-seq.out") <(grep -v 'wall' "$dir/$name-$k.out") \
    || fail "$name: -np $k report differs: $(diff "$dir/$name-seq.out" "$dir/$name-$k.out" | head -4)"
}

torus=("$dir/st.nlt" -s backend=flit -s topology=torus:k=4x4)
for k in 1 2 3; do
  same torus "$k" "${torus[@]}"
done
grep -q "predicted runtime" "$dir/torus-3.out" || fail "torus: no report under 3 ranks"
# The ranks' synchronisations (NETLOOM_MPI_STATS): on 3 ranks a one-cycle
# window costs the exchange's allreduce, plus a reduction at an advance's
# start and an all-gather in a window that completed messages: 1.31 calls
# per window here. It was 4.00 when each window also reduced the next
# cycle with work twice and all-gathered the completion counts. On 2
# ranks the window's head and the completed messages ride the one
# message each way: 0.11, the advances' reductions alone (0.31 with the
# gathers, 1.31 with the allreduce too).
for k in 2 3; do
  st=$(NETLOOM_MPI_STATS=1 mpi $k "$netloom" replay "${torus[@]}" 2>&1 >/dev/null | grep '^netloom mpi:')
  calls=$(sed -nE 's/.*; ([0-9.]+) collective calls per window per rank$/\1/p' <<<"$st")
  msgs=$(sed -nE 's/.* in ([0-9.]+) messages .*/\1/p' <<<"$st")
  if [ $k = 2 ]; then lo=0.05 hi=0.2; else lo=1 hi=1.5; fi
  python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) <= float(sys.argv[1]) < float(sys.argv[3]) else 1)" \
    "$calls" $lo $hi 2>/dev/null \
    || fail "torus: collective calls per window, $k ranks: expected $lo to $hi, got '$st'"
  [ $k = 3 ] || [ "$msgs" = 2.00 ] || fail "torus: messages per window, 2 ranks: expected 2.00 (one each way), got '$st'"
done
# Messages did cross ranks: the torus's links carried flits.
[ "$(json "$dir/torus-2.json" 'd["results"]["network"]["flit_hops"] > 0')" = True ] || fail "torus: no flit-hops"
same threads 2 "${torus[@]}" -s threads=2
same metis 2 "${torus[@]}" -s partitioner=metis
# A fractional internal_speedup: an advance that stops in an idle stretch
# jumps the speedup credit with the clock on every rank as in one process
# (moving the clock alone on one side changed the cycles, 10901 vs 10904).
same speedup 2 "${torus[@]}" -s internal_speedup=1.5
same dragonfly 3 "$dir/st.nlt" -s backend=flit -s topology=dragonfly:a=4,p=2,h=2 \
  -s routing_function=ugal:mode=local -s num_vcs=6 -s global_latency=40
# Whole groups per rank (METIS): only 40-cycle links join the ranks, which
# would allow 41-cycle windows, but the application answers deliveries
# cycle by cycle: one-cycle windows, and the sequential replay's results.
dfl=("$dir/st.nlt" -s backend=flit -s topology=dragonfly:a=3,p=2,h=3 -s routing_function=ugal:mode=local
     -s num_vcs=6 -s global_latency=40 -s partitioner=metis)
export NETLOOM_MPI_STATS=1
same dragonfly_metis 2 "${dfl[@]}"
unset NETLOOM_MPI_STATS
grep -q "lookahead 41 cycles, window up to 1 cycles" "$dir/dragonfly_metis-2.err" \
  || fail "dragonfly_metis: windows: $(grep 'netloom mpi' "$dir/dragonfly_metis-2.err")"
same three 2 "$dir/st.nlt" -s backend=flit --topology torus:k=4x4 --topology dragonfly:a=4,p=2,h=2,g=2 \
  --topology fattree:k=4,n=2
# -j under mpirun: not taken (each network is spread over the ranks, one
# after another), said by rank 0 in one line; the same report and JSON.
mpi 2 "$netloom" replay "$dir/st.nlt" -s backend=flit --topology torus:k=4x4 --topology dragonfly:a=4,p=2,h=2,g=2 \
  --topology fattree:k=4,n=2 -j 2 --json "$dir/three-j.json" >"$dir/three-j.out" 2>"$dir/three-j.err" \
  || fail "three -j 2: mpirun -np 2 exit $?: $(head -3 "$dir/three-j.err")"
cmp -s "$dir/three-seq.nw" <(nowall "$dir/three-j.json") || fail "three -j 2: JSON differs from the sequential replay"
cmp -s <(grep -v 'wall' "$dir/three-seq.out") <(grep -v 'wall' "$dir/three-j.out") || fail "three -j 2: report differs"
expect_eq "three -j 2: stderr" "$(cat "$dir/three-j.err")" "$(cat "$dir/three-seq.err")netloom replay: warning: -j 2 not \
taken under mpirun: each network is spread over the 2 MPI ranks, one network after another (docs/scaling.md)"

# A network deadlock: exit 1, the same one-line report but the list of
# waiting VCs (not made under MPI), the same JSON but that list.
ring=("$dir/sh.nlt" -s backend=flit -s topology=torus:k=8 -s num_vcs=1 -s vc_buf_size=2 -s packet_bytes=128
      -s flit_bytes=16 -s routing_function=dor:dateline=0)
"$netloom" replay "${ring[@]}" --json "$dir/dl-seq.json" >/dev/null 2>"$dir/dl-seq.err"
expect_eq "deadlock: sequential exit" "$?" 1
mpi 3 "$netloom" replay "${ring[@]}" --json "$dir/dl-3.json" >/dev/null 2>"$dir/dl-3.err"
expect_eq "deadlock: -np 3 exit" "$?" 1
expect_eq "deadlock: lines from netloom" "$(grep -c '^netloom' "$dir/dl-3.err")" 1
seqline=$(head -1 "$dir/dl-seq.err" | grep -oE '^netloom replay: network deadlock at cycle [0-9]+: [0-9]+ flits stuck in [0-9]+ input VCs')
[ -n "$seqline" ] || fail "deadlock: sequential line: $(head -1 "$dir/dl-seq.err")"
grep -qF "$seqline that wait on each other (global check); under MPI the list" "$dir/dl-3.err" \
  || fail "deadlock: -np 3 line: $(head -1 "$dir/dl-3.err"), expected the start '$seqline'"
nowaits='({k: v for k, v in d["results"]["network"]["deadlock"].items() if k != "waiting"}, d["results"]["status"])'
dlseq=$(json "$dir/dl-seq.json" "$nowaits") || fail "deadlock: sequential JSON has no results.network.deadlock"
case $dlseq in *"'deadlock')") ;; *) fail "deadlock: sequential JSON: $dlseq, expected status deadlock" ;; esac
expect_eq "deadlock: JSON but the waiting VCs" "$(json "$dir/dl-3.json" "$nowaits")" "$dlseq"

# The analytic backend has no network to spread: refused, one line.
out=$(mpi 2 "$netloom" replay "$dir/st.nlt" -s backend=analytic 2>&1 >/dev/null)
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "analytic under 2 ranks: exit $rc"
expect_eq "analytic: error lines" "$(grep -c '^netloom' <<<"$out")" 1
grep -q "^netloom replay: -s: key 'backend': value 'analytic' does not spread over MPI ranks; expected flit, or run without mpirun" \
  <<<"$out" || fail "analytic: got '$out'"
# Left unset, the user wrote no 'analytic': the line says it is the
# default, as set in a file it names the file and line.
out=$(mpi 2 "$netloom" replay "$dir/st.nlt" 2>&1 >/dev/null)
grep -qx "netloom replay: key 'backend': value 'analytic' (the default) does not spread over MPI ranks; expected flit, or run without mpirun" \
  <<<"$out" || fail "analytic by default: got '$out'"
printf '[replay]\nbackend = analytic\n' >"$dir/an.ini"
out=$(mpi 2 "$netloom" replay "$dir/st.nlt" -c "$dir/an.ini" 2>&1 >/dev/null)
grep -qx "netloom replay: $dir/an.ini:2: key 'backend': value 'analytic' does not spread over MPI ranks; expected flit, or run without mpirun" \
  <<<"$out" || fail "analytic in a file: got '$out'"

# The timeline files: written by rank 0 alone, as the sequential replay's.
"$netloom" replay "${torus[@]}" --svg "$dir/seq.svg" >/dev/null || fail "svg: sequential"
mpi 2 "$netloom" replay "${torus[@]}" --svg "$dir/mpi.svg" >/dev/null 2>&1 || fail "svg: -np 2 exit $?"
cmp -s "$dir/seq.svg" "$dir/mpi.svg" || fail "svg: -np 2 differs from the sequential replay's"

# A trace one rank cannot read (each rank in a directory of its own, an
# MPMD launch, mpirun told not to kill the others): every rank fails, at
# once, rank 0 says why in one line.
export OMPI_MCA_orte_abort_on_non_zero_status=0 EXITS=$dir/exits
mkdir -p "$dir/n0" "$dir/n1"
cp "$dir/st.nlt" "$dir/n0/st.nlt"
out=$(timeout 60 mpirun --oversubscribe -np 1 --wdir "$dir/n0" "${ranked[@]}" "$netloom" replay st.nlt -s backend=flit \
      -s topology=torus:k=4x4 : -np 1 --wdir "$dir/n1" "${ranked[@]}" "$netloom" replay st.nlt -s backend=flit \
      -s topology=torus:k=4x4 </dev/null 2>&1 >/dev/null)
[ $? -ne 124 ] || fail "trace missing on rank 1: hung"
expect_eq "trace missing on rank 1: ranks that failed" "$(awk '$2 != 0' "$EXITS" 2>/dev/null | wc -l)" 2
expect_eq "trace missing on rank 1: error lines" "$(grep -c '^netloom' <<<"$out")" 1
grep -q "^netloom replay: MPI rank 1 of 2: st.nlt" <<<"$out" || fail "trace missing on rank 1: got '$out'"
# Another trace, or another configuration, under the same names on rank
# 1's node: refused on every rank (a mix of the two ran, or a rank
# crashed, or MPI_ERR_TRUNCATE).
"$mk" "$dir/n1/st.nlt" stencil 16 5 4096 2000 || fail "mktrace another stencil"
printf '[network]\ntopology = torus:k=4x4\n' > "$dir/n0/s.ini"
printf '[network]\ntopology = torus:k=8x8\n' > "$dir/n1/s.ini"
cp "$dir/st.nlt" "$dir/n1/same.nlt"; cp "$dir/st.nlt" "$dir/n0/same.nlt"
for what in "st.nlt -s topology=torus:k=4x4" "same.nlt -c s.ini"; do
  : >"$EXITS"
  # shellcheck disable=SC2086 # $what: the trace and options, word by word
  out=$(timeout 60 mpirun --oversubscribe -np 1 --wdir "$dir/n0" "${ranked[@]}" "$netloom" replay $what -s backend=flit \
        : -np 1 --wdir "$dir/n1" "${ranked[@]}" "$netloom" replay $what -s backend=flit </dev/null 2>&1 >/dev/null)
  [ $? -ne 124 ] || fail "another $what on rank 1: hung"
  expect_eq "another $what on rank 1: ranks that failed" "$(awk '$2 != 0' "$EXITS" 2>/dev/null | wc -l)" 2
  grep -q "^netloom replay: MPI rank 1 of 2: its resolved configuration or trace differs from rank 0's" <<<"$out" ||
    fail "another $what on rank 1: got '$out'"
done

# A trace that fails to decode on one rank only (its copy corrupt in rank
# 15's second frame, on rank 1's node; the manifest agrees): that rank
# fails in the replay, op 29, while the others are in the network's next
# step, which tells them. Every rank exits non-zero, rank 0 prints the
# failing rank's line. Before, the launch died in MPI_Allreduce
# (MPI_ERR_TRUNCATE, exit 15) without a line from netloom. Corrupt on
# both ranks: the same line from rank 0 itself.
"$netloom" trace dump "$dir/st.nlt" | sed 's/^frame_target .*/frame_target 256/' >"$dir/st256.txt" &&
  "$netloom" trace encode "$dir/st256.txt" "$dir/n0/st256.nlt" || fail "st256.nlt: encode"
python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[-30] ^= 0xff; open(sys.argv[2], 'wb').write(b)" \
  "$dir/n0/st256.nlt" "$dir/n1/st256.nlt"
why='st256.nlt: rank 15, offset [0-9]+: frame does not decompress: '
"$netloom" replay "$dir/n0/st256.nlt" -s backend=flit -s topology=torus:k=4x4 >/dev/null ||
  fail "st256.nlt: sequential replay exit $?"
for bad in 1 0 both; do
  : >"$EXITS"
  w0=$dir/n0 w1=$dir/n0
  case $bad in 1) w1=$dir/n1 ;; 0) w0=$dir/n1 ;; both) w0=$dir/n1 w1=$dir/n1 ;; esac
  out=$(timeout 60 mpirun --oversubscribe -np 1 --wdir "$w0" "${ranked[@]}" "$netloom" replay st256.nlt -s backend=flit \
        -s topology=torus:k=4x4 : -np 1 --wdir "$w1" "${ranked[@]}" "$netloom" replay st256.nlt -s backend=flit \
        -s topology=torus:k=4x4 </dev/null 2>&1 >/dev/null)
  [ $? -ne 124 ] || fail "trace corrupt on rank $bad: hung"
  expect_eq "trace corrupt on rank $bad: statuses" "$(sort "$EXITS" 2>/dev/null | awk '{print $2}' | tr '\n' ' ')" "2 2 "
  expect_eq "trace corrupt on rank $bad: error lines" "$(grep -c '^netloom' <<<"$out")" 1
  pre=''
  [ "$bad" != 1 ] || pre='MPI rank 1 of 2: '
  grep -qE "^netloom replay: $pre$why" <<<"$out" || fail "trace corrupt on rank $bad: got '$(head -c 300 <<<"$out")'"
done

# The network's build out of memory on one rank (rank 1 under ulimit -v,
# too little for a 256x256 torus; rank 0 has enough): the build is agreed
# before the network's first collective (session_replay.c), so every rank
# exits 1, at once, rank 0 says rank 1's line; no --json, --svg or --csv
# (stdout) output, also when an earlier network of the replay (4x4) had
# run on every rank. Skipped where netloom cannot start under the limit
# (mpi_points.sh's rule).
if (ulimit -v 250000 && "$netloom" version) >/dev/null 2>&1; then
  for nets in "-t torus:k=256x256" "-t torus:k=4x4 -t torus:k=256x256"; do
    what="build out of memory on rank 1 ($nets)"
    : >"$EXITS"
    rm -f "$dir/oom.json" "$dir/oom.svg"
    # shellcheck disable=SC2086 # $nets: the -t options, word by word
    big=(replay "$dir/st.nlt" -s backend=flit $nets --json "$dir/oom.json" --svg "$dir/oom.svg" --csv)
    out=$(mpi_rank1_limited 250000 "$dir/oom.out" "${big[@]}")
    [ $? -ne 124 ] || fail "$what: hung"
    expect_eq "$what: statuses" "$(sort "$EXITS" 2>/dev/null | awk '{print $2}' | tr '\n' ' ')" "1 1 "
    expect_eq "$what: error lines" "$(grep -c '^netloom' <<<"$out")" 1
    # Which of the build's allocations fails first depends on the host's
    # libraries and address space: any of them is the same failure.
    grep -qE '^netloom replay: MPI rank 1 of 2: out of memory (building|for) ' \
      <<<"$out" || fail "$what: got '$(head -c 300 <<<"$out")'"
    [ ! -s "$dir/oom.out" ] || fail "$what: printed '$(head -c 300 "$dir/oom.out")'"
    [ ! -e "$dir/oom.json" ] || fail "$what: wrote the JSON"
    [ ! -e "$dir/oom.svg" ] || fail "$what: wrote the SVG"
  done
fi

# Outputs only rank 0 writes: their folder exists on rank 0's node only
# (n0/out). Before, rank 1 checked them too and failed every rank
# ('MPI rank 1 of 2: --json: out/x.json: out: no such directory'), where
# run and sweep check them on rank 0 alone.
mkdir -p "$dir/n0/out"
cp "$dir/st.nlt" "$dir/n1/st.nlt"
(cd "$dir/n0" && "$netloom" replay st.nlt -s backend=flit -t torus:k=4x4 --json "$dir/out-seq.json" >/dev/null 2>&1) ||
  fail "outputs on rank 0's node: sequential replay exit $?"
: >"$EXITS"
outs=(replay st.nlt -s backend=flit -t torus:k=4x4 --json out/x.json --svg out/x.svg --otf2 out/o)
out=$(timeout 60 mpirun --oversubscribe -np 1 --wdir "$dir/n0" "${ranked[@]}" "$netloom" "${outs[@]}" : \
      -np 1 --wdir "$dir/n1" "${ranked[@]}" "$netloom" "${outs[@]}" </dev/null 2>&1 >/dev/null)
expect_eq "outputs on rank 0's node: statuses" "$(sort "$EXITS" 2>/dev/null | awk '{print $2}' | tr '\n' ' ')" "0 0 "
[ -s "$dir/n0/out/x.svg" ] && [ -d "$dir/n0/out/o" ] || fail "outputs on rank 0's node: not written: $(head -c 300 <<<"$out")"
[ "$(nowall "$dir/out-seq.json")" = "$(nowall "$dir/n0/out/x.json" 2>/dev/null)" ] ||
  fail "outputs on rank 0's node: JSON differs from the sequential replay"

# Another command line on rank 1 (an MPMD launch): refused before any
# collective on every rank, exit 2, one line naming what differs, within
# seconds. Before, a second -t on rank 1 printed rank 0's report and then
# died in MPI_Allreduce (exit 15), and run against replay hung.
rp=(replay "$dir/st.nlt" -s backend=flit -t torus:k=4x4)
mpmd_fails "a second -t on rank 1" "'-t mesh:k=4x4' where rank 0 has nothing more" "${rp[@]}" -- "${rp[@]}" -t mesh:k=4x4
mpmd_fails "replay on rank 1, run on rank 0" "'replay' where rank 0 has 'run'" run -s topology=torus:k=4x4 -- "${rp[@]}"
mpmd_fails "run on rank 1, replay on rank 0" "'run' where rank 0 has 'replay'" "${rp[@]}" -- run -s topology=torus:k=4x4

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "ok: replays over MPI ranks equal the sequential ones"
