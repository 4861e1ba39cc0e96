#!/usr/bin/env bash
# The MPI engine (issue 16 part 2, emu/net/mpi.c): `mpirun -np K netloom
# run` for K = 1..4 gives the JSON of the sequential run byte for byte on a
# torus (dor), a dragonfly (UGAL-L, long global links) and an Equality
# network (amin), one saturated point (the deadlock checks' exact check
# over ranks), LBR's snapshots summed over ranks, METIS's partitions,
# threads inside ranks, and a sweep; windows of several cycles between
# exchanges (long links, METIS cutting whole dragonfly groups, snapshots
# and checks inside them, an idle run, a deadlock); refused settings give
# one line and a non-zero exit on every rank, without a hang.
# usage: mpi_engine.sh NETLOOM [ONE_CPU.so]   (exit 77: netloom built without MPI)
set -uo pipefail
netloom=$1
one_cpu=${2:-}
. "$(dirname "$0")/lib.sh"

command -v mpirun >/dev/null 2>&1 || { echo "mpirun not found: skipping" >&2; exit 77; }
. "$(dirname "$0")/../mpi_env.sh"

# Built without MPI, a launch of 2 ranks is refused with this line.
probe=$(mpi 2 "$netloom" run -s topology=torus:k=4x4 -s max_samples=1 -s sample_period=10 2>&1 >/dev/null)
if grep -q "built without MPI" <<<"$probe"; then
  # It must say so once and fail, not run two copies.
  expect_eq "without MPI: error lines" "$(grep -c '^netloom' <<<"$probe")" 1
  grep -q "^netloom run: started by an MPI launcher with 2 ranks, but this netloom was built without MPI" <<<"$probe" \
    || fail "without MPI: got '$probe'"
  mpi 2 "$netloom" run -s topology=torus:k=4x4 >/dev/null 2>&1 && fail "without MPI: exit 0 under 2 ranks"
  [ "$fails" -eq 0 ] || exit 1
  echo "netloom built without MPI: refusal checked, the rest skipped" >&2
  exit 77
fi

# Open MPI is opened when a launcher starts netloom with ranks (emu/net/
# mpi_port.h), not linked: the binary loads no libmpi, and a libmpi that
# cannot be opened is one line from rank 0 and a non-zero exit, no hang.
if mpirun --version 2>/dev/null | grep -q "Open MPI"; then
  ldd "$netloom" | grep -q libmpi && fail "netloom loads libmpi at start: $(ldd "$netloom" | grep libmpi)"
  said=$(NETLOOM_LIBMPI=$dir/nolibmpi.so mpi 2 -x NETLOOM_LIBMPI "$netloom" run -s topology=torus:k=4x4 \
    -s max_samples=1 -s sample_period=10 2>&1 >/dev/null)
  rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "libmpi missing: exit $rc"
  expect_eq "libmpi missing: error lines" "$(grep -c '^netloom' <<<"$said")" 1
  grep -q "^netloom run: MPI: cannot load libmpi ($dir/nolibmpi.so: .*NETLOOM_LIBMPI naming it\$" <<<"$said" ||
    fail "libmpi missing: got '$said'"
fi

short=(-s sample_period=200 -s warmup_periods=2 -s max_samples=6)
# name, then the run's keys
cases=(
  "torus|-s topology=torus:k=6x6 -s routing_function=dor -s num_vcs=2 -s injection_rate=0.3 -s check_interval=97"
  "dragonfly|-s topology=dragonfly:a=4,p=2,h=2 -s routing_function=ugal:mode=local -s num_vcs=6 -s injection_rate=0.25 -s global_latency=40"
  "equality|-s topology=equality:n=40,sa=-1/1/5/-11/17,sb=6/16/20,p=2 -s routing_function=amin -s num_vcs=4 -s packet_size=1 -s injection_rate=0.3"
  "metis|-s topology=dragonfly:a=4,p=2,h=2 -s routing_function=min:select=adaptive -s num_vcs=4 -s injection_rate=0.3 -s partitioner=metis"
  "lbr|-s topology=flex:nx=3,ny=3,nz=3,p=2 -s routing_function=lbr:t=20 -s num_vcs=4 -s injection_rate=0.3"
  "saturated|-s topology=dragonfly:a=4,p=2,h=2 -s routing_function=min -s num_vcs=3 -s injection_rate=0.8"
  # Windows longer than a cycle (mpi.c, docs/scaling.md "Windows"): METIS
  # cuts this dragonfly's 10 groups whole at 2 ranks (lookahead 41, checked
  # below); 3 and 4 ranks cut local links too.
  "w_dragonfly|-s topology=dragonfly:a=3,p=2,h=3 -s routing_function=ugal:mode=local -s num_vcs=6 -s injection_rate=0.25 -s global_latency=40 -s partitioner=metis"
  # 6-cycle windows cut by check_interval = 97 and by the sample ends.
  "w_torus|-s topology=torus:k=6x6 -s routing_function=dor -s num_vcs=2 -s injection_rate=0.3 -s channel_latency=5 -s check_interval=97"
  # LBR's snapshots every 13 cycles inside 8-cycle windows.
  "w_lbr|-s topology=flex:nx=3,ny=3,nz=3,p=2 -s routing_function=lbr:t=13 -s num_vcs=4 -s injection_rate=0.3 -s channel_latency=7"
  # Idle most of the time: idle jumps between windows, ranks skipping
  # their own idle cycles inside them.
  "w_idle|-s topology=dragonfly:a=3,p=2,h=3 -s routing_function=min -s num_vcs=3 -s injection_rate=0.0005 -s global_latency=40 -s partitioner=metis"
  # Saturated with long links: the deadlock scans' cycles inside windows.
  "w_saturated|-s topology=dragonfly:a=3,p=2,h=3 -s routing_function=min -s num_vcs=3 -s injection_rate=0.8 -s global_latency=40 -s partitioner=metis"
)
for c in "${cases[@]}"; do
  name=${c%%|*}
  read -r -a keys <<<"${c#*|}"
  mpi_same_as_seq "$name" "1 2 3 4" "${keys[@]}" "${short[@]}"
  # Rank 0 alone prints: one table.
  expect_eq "$name: table lines at 4 ranks" "$(grep -c '^netloom ' "$dir/$name-4.out")" 1
done

# The windows happen: NETLOOM_MPI_STATS=1 makes rank 0 print the
# lookahead, the longest window and the windows' mean length (throughput
# runs: a latency run's drain steps one cycle per call, one window each).
wstats() { # name ranks: the statistics line of a run of case name
  local c
  for c in "${cases[@]}"; do [ "${c%%|*}" = "$1" ] && break; done
  read -r -a keys <<<"${c#*|}"
  NETLOOM_MPI_STATS=1 mpi "$2" "$netloom" run "${keys[@]}" "${short[@]}" -s sim_type=throughput --reproducible 2>&1 \
    >/dev/null | grep '^netloom mpi:'
}
wmean() { sed -nE 's/.* windows of ([0-9.]+) cycles on average.*/\1/p' <<<"$1"; }
st=$(wstats w_dragonfly 2)
grep -q "lookahead 41 cycles, window up to 41 cycles" <<<"$st" || fail "w_dragonfly: 2 ranks: got '$st'"
# 1,200 cycles in windows of up to 41, cut at check_interval's multiples
# in debug builds.
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 20 else 1)" "$(wmean "$st")" || fail "w_dragonfly: mean window: '$st'"
st=$(wstats w_torus 2)
grep -q "lookahead 6 cycles, window up to 6 cycles" <<<"$st" || fail "w_torus: 2 ranks: got '$st'"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 4 else 1)" "$(wmean "$st")" || fail "w_torus: mean window: '$st'"
st=$(wstats w_lbr 3)
grep -q "lookahead 8 cycles, window up to 8 cycles" <<<"$st" || fail "w_lbr: 3 ranks: got '$st'"
st=$(wstats torus 2)
grep -q "lookahead 2 cycles, window up to 2 cycles" <<<"$st" || fail "torus: 2 ranks: got '$st'"
# docs/scaling.md gives the window head's size: it said 15 words (120
# bytes) after a 16th word (a replay's completed messages) was added.
head_b=$(sed -nE 's/.*bytes of window heads \(([0-9]+) per rank.*/\1/p' <<<"$st")
scaling=$(dirname "$0")/../../docs/scaling.md
if [ -f "$scaling" ]; then
  tr -s ' \n' '  ' <"$scaling" | grep -qF "allreduce of $((head_b / 8)) words ($head_b bytes," \
    || fail "docs/scaling.md: expected 'allreduce of $((head_b / 8)) words ($head_b bytes,' (NETLOOM_MPI_STATS: '$st')"
fi
# One rank: no link joins two ranks, and the line said "1 ranks,
# lookahead 18446744073709551615 cycles" (2^64 - 1).
st=$(wstats torus 1)
grep -q "^netloom mpi: 1 rank, lookahead none (no link between ranks), window up to 65536 cycles;" <<<"$st" ||
  fail "torus: 1 rank: got '$st'"

# Two threads in each of two ranks, and a sweep (a run per rate, the same
# collectives on every rank).
t=(-s topology=torus:k=8x8 -s num_vcs=2 -s injection_rate=0.3 "${short[@]}")
"$netloom" run "${t[@]}" --reproducible --json "$dir/thr-seq.json" >/dev/null || fail "threads: sequential"
mpi 2 "$netloom" run "${t[@]}" -s threads=2 --reproducible --json "$dir/thr-2.json" >/dev/null 2>"$dir/thr-2.err" \
  || fail "threads=2 under 2 ranks exit $?"
# The configuration echo says threads = 2: compare the results.
expect_eq "threads=2 under 2 ranks" "$(json "$dir/thr-2.json" 'd["results"]')" "$(json "$dir/thr-seq.json" 'd["results"]')"
# netloom's lines only: Open MPI may add its own.
expect_eq "threads=2 under 2 ranks: netloom's stderr" "$(grep '^netloom' "$dir/thr-2.err")" ""
# Rank 1's worker cannot start (NETLOOM_TEST_FAIL_THREAD, emu/core/
# thread.h): the same results, and rank 1 alone says so, once
# (docs/scaling.md, "When a thread cannot start").
timeout 120 mpirun --oversubscribe -np 1 "$netloom" run "${t[@]}" -s threads=2 --reproducible --json "$dir/thr-f.json" : \
  -np 1 env NETLOOM_TEST_FAIL_THREAD=all "$netloom" run "${t[@]}" -s threads=2 --reproducible --json "$dir/thr-f.json" \
  </dev/null >/dev/null 2>"$dir/thr-f.err" || fail "threads=2 under 2 ranks, rank 1's worker not started: exit $?"
expect_eq "threads=2 under 2 ranks, rank 1's worker not started" "$(json "$dir/thr-f.json" 'd["results"]')" \
  "$(json "$dir/thr-seq.json" 'd["results"]')"
expect_eq "threads=2 under 2 ranks, rank 1's worker not started: netloom's stderr" "$(grep '^netloom' "$dir/thr-f.err")" \
  "netloom run: warning: MPI rank 1 of 2: 1 of 2 threads started for a network's partitions (pthread_create: Resource temporarily unavailable); running on 1"
# Many partitions on each rank: a window's end packs only the outboxes
# that hold events and merges a rank's own ones (mx_boxes), in the order
# of a visit of every (source, target) pair; 13 partitions, so a rank's
# partitions send to partitions of their own rank and of one or two
# others, in windows of one cycle and of several (channel_latency = 5;
# METIS's partitions interleave the routers).
mpi_same_as_seq many_parts "2 3" -s topology=torus:k=8x8 -s num_vcs=2 -s injection_rate=0.3 -s partitions=13 \
  "${short[@]}"
mpi_same_as_seq many_parts_w "2 3" -s topology=torus:k=8x8 -s num_vcs=2 -s injection_rate=0.3 -s partitions=13 \
  -s channel_latency=5 "${short[@]}"
mpi_same_as_seq many_parts_metis "2 3" -s topology=dragonfly:a=3,p=2,h=3 -s routing_function=ugal:mode=local \
  -s num_vcs=6 -s injection_rate=0.25 -s global_latency=40 -s partitioner=metis -s partitions=13 "${short[@]}"
s=(-s topology=torus:k=4x4 -s num_vcs=2 "${short[@]}")
"$netloom" sweep "${s[@]}" --rates 0.1:0.3:0.1 --reproducible --json "$dir/sw-seq.json" >/dev/null || fail "sweep: sequential"
mpi 3 "$netloom" sweep "${s[@]}" --rates 0.1:0.3:0.1 --reproducible --json "$dir/sw-3.json" >/dev/null 2>&1 \
  || fail "sweep under 3 ranks exit $?"
cmp -s "$dir/sw-seq.json" "$dir/sw-3.json" || fail "sweep under 3 ranks: JSON differs"

# Refusals: one line naming the key and value, from rank 0 only, non-zero
# exit, no hang (timeout 120 above).
refused() { # what expected-regex mpirun-args...
  local what=$1 re=$2
  shift 2
  local out
  out=$(mpi "$@" 2>&1 >/dev/null)
  local rc=$?
  [ $rc -ne 0 ] || fail "$what: exit 0"
  [ $rc -ne 124 ] || fail "$what: hung"
  local lines
  lines=$(grep -c '^netloom' <<<"$out")
  expect_eq "$what: error lines" "$lines" 1
  grep -qE "$re" <<<"$out" || fail "$what: got '$out'"
}
refused "UGAL-G" "^netloom run: -s: routing_function 'ugal:mode=global.*' reads the live global congestion view, which 3 MPI ranks cannot give" \
  3 "$netloom" run -s topology=dragonfly:a=4,p=2,h=2 -s routing_function=ugal:mode=global -s num_vcs=6
# partitions above the routers: the key's value when the user gave it
# (as in one process), the ranks and threads when they raised it. Before,
# a given 40 was blamed on 'threads x ranks'.
refused "partitions=40 on 16 routers" "^netloom run: -s: key 'partitions': value '40': out of range: expected 0 \(automatic\) or 1\.\.16 " \
  2 "$netloom" run -s topology=torus:k=4x4 -s partitions=40
refused "3 ranks on 2 routers" "^netloom run: partitions 3 \(at least threads x ranks, with 3 MPI ranks\): the network has 2 routers" \
  3 "$netloom" run -s topology=torus:k=2
refused "serve" "^netloom serve: started by an MPI launcher with 2 ranks; only 'run', 'sweep', 'compare' and 'replay' spread their simulations" \
  2 "$netloom" serve
# A command that does not use the ranks is a usage error on every rank:
# status 2 (docs/results.md), as an unknown command's; it was 1.
# mpirun aborts the job when a rank exits non-zero, and could kill rank 1
# before its status was written (seen once on a loaded machine): told not
# to, it lets every rank end by itself, each status recorded.
EXITS=$dir/exits-topo
export EXITS
out=$(OMPI_MCA_orte_abort_on_non_zero_status=0 mpi 2 "${ranked[@]}" "$netloom" topo describe torus:k=4x4 2>&1 >/dev/null)
expect_eq "topo describe under 2 ranks: statuses" "$(sort "$EXITS" 2>/dev/null | awk '{print $2}' | tr '\n' ' ')" "2 2 "
expect_eq "topo describe under 2 ranks: error lines" "$(grep -c '^netloom' <<<"$out")" 1
grep -q "^netloom topo: started by an MPI launcher with 2 ranks; only 'run', 'sweep', 'compare' and 'replay' spread their simulations over MPI ranks: run 'topo' without mpirun\$" \
  <<<"$out" || fail "topo describe under 2 ranks: got '$(head -c 300 <<<"$out")'"
# threads = 0 resolves on each rank's node (one thread per 512 routers,
# at most one per processor), and nodes differ: one rank here sees one
# processor (ONE_CPU.so), the other this machine's. The partitions must be
# the same on every rank all the same; they were threads x ranks, so the
# ranks cut 2 and 4 partitions of the 1,024 routers and rank 1 crashed
# (SIGSEGV). (On a one-processor machine both ranks see one.)
if [ -n "$one_cpu" ]; then
  tz=(run -s topology=torus:k=32x32 -s sample_period=100 -s max_samples=2 -s warmup_periods=1 -s threads=0 --reproducible)
  "$netloom" "${tz[@]}" --json "$dir/tz-seq.json" >/dev/null || fail "threads=0: sequential run"
  out=$(timeout 120 mpirun --oversubscribe -np 1 "$netloom" "${tz[@]}" --json "$dir/tz-2.json" : \
        -np 1 env LD_PRELOAD="$one_cpu" "$netloom" "${tz[@]}" --json "$dir/tz-2.json" </dev/null 2>&1 >/dev/null)
  expect_eq "threads=0 on nodes of other processors: exit" "$?" 0
  cmp -s "$dir/tz-seq.json" "$dir/tz-2.json" || fail "threads=0 on nodes of other processors: JSON differs: $(head -c 300 <<<"$out")"
fi
# NETLOOM_MPI_WINDOW is each rank's own environment: given to one rank
# only (an MPMD launch, a launcher that does not pass it on), the ranks
# take the smallest cap and the results do not change. Before, the ranks
# ran windows of two lengths and died in MPI_ERR_TRUNCATE (exit 15); and
# NETLOOM_MPI_STATS on rank 0 alone left it waiting in the statistics'
# reduction at the end.
tw=(run -s topology=torus:k=16x16 -s sample_period=300 -s max_samples=2 -s warmup_periods=1 --reproducible)
"$netloom" "${tw[@]}" --json "$dir/win-seq.json" >/dev/null || fail "NETLOOM_MPI_WINDOW: sequential run"
for side in 0 1; do
  e0=(env NETLOOM_MPI_STATS=1) e1=(env)
  if [ $side = 0 ]; then e0+=(NETLOOM_MPI_WINDOW=1); else e1+=(NETLOOM_MPI_WINDOW=1); fi
  out=$(timeout 60 mpirun --oversubscribe -np 1 "${e0[@]}" "$netloom" "${tw[@]}" --json "$dir/win-$side.json" : \
        -np 1 "${e1[@]}" "$netloom" "${tw[@]}" --json "$dir/win-$side.json" </dev/null 2>&1 >/dev/null)
  expect_eq "NETLOOM_MPI_WINDOW=1 on rank $side only: exit" "$?" 0
  cmp -s "$dir/win-seq.json" "$dir/win-$side.json" || fail "NETLOOM_MPI_WINDOW=1 on rank $side only: JSON differs"
  grep -q "^netloom mpi: 2 ranks, lookahead 2 cycles, window up to 1 cycles;" <<<"$out" \
    || fail "NETLOOM_MPI_WINDOW=1 on rank $side only: got '$(head -c 300 <<<"$out")'"
done
# A value that is not a window is refused, not ignored; on one rank, with
# that rank's number.
for v in 0 -1 abc 4294967296; do
  refused "NETLOOM_MPI_WINDOW=$v" \
    "^netloom run: environment variable NETLOOM_MPI_WINDOW '$v': expected a whole number of cycles from 1 to 4294967295" \
    2 env NETLOOM_MPI_WINDOW=$v "$netloom" "${tw[@]}"
done
refused "NETLOOM_MPI_WINDOW=abc on rank 1" "^netloom run: MPI rank 1 of 2: environment variable NETLOOM_MPI_WINDOW 'abc':" \
  1 "$netloom" "${tw[@]}" : -np 1 env NETLOOM_MPI_WINDOW=abc "$netloom" "${tw[@]}"

# Out of memory on one rank (NETLOOM_TEST_FAIL_ALLOC=N: that rank's Nth
# run-time allocation and every later one fail): the rank runs no cycle
# its pools cannot take, and the window's exchange ends the run on every
# rank, exit 2, with that rank's line (docs/scaling.md, "Failures on one
# rank"). Before, the rank ran the cycle and died in fl_nic_generate
# (SIGSEGV, exit 139), or rank 0 printed a line of its own ('out of memory
# at cycle 51: 641 events in flight').
om=(run -s topology=torus:k=8x8 -s injection_rate=0.9 -s sample_period=200 -s warmup_periods=1 -s max_samples=3)
oom() { # what rank-failing N expected-regex
  local what=$1 r=$2 n=$3 re=$4 e0=(env) e1=(env) out EXITS
  EXITS=$(mktemp "$dir/exits-oom.XXXXXX") # unique, as mpi_points.sh's
  if [ "$r" = 0 ]; then e0+=(NETLOOM_TEST_FAIL_ALLOC=$n); else e1+=(NETLOOM_TEST_FAIL_ALLOC=$n); fi
  export EXITS
  out=$(OMPI_MCA_orte_abort_on_non_zero_status=0 timeout 120 mpirun --oversubscribe -np 1 "${ranked[@]}" "${e0[@]}" "$netloom" "${om[@]}" : \
        -np 1 "${ranked[@]}" "${e1[@]}" "$netloom" "${om[@]}" </dev/null 2>&1 >/dev/null)
  [ $? -ne 124 ] || fail "$what: hung"
  expect_eq "$what: statuses" "$(sort "$EXITS" 2>/dev/null | awk '{print $2}' | tr '\n' ' ')" "2 2 "
  expect_eq "$what: error lines" "$(grep -c '^netloom' <<<"$out")" 1
  grep -qE "$re" <<<"$out" || fail "$what: got '$(head -c 300 <<<"$out")'"
}
# N = 1 is the packet pool at cycle 0 (the crash); the others' numbers
# only pick a cycle past the first window, whichever allocation it is.
why='(packet pool of [0-9]+ entries|VC buffer pool of [0-9]+ runs|[0-9]+ events in flight)$'
oom "out of memory at cycle 0, rank 1" 1 1 '^netloom run: MPI rank 1 of 2: out of memory at cycle 0: packet pool of [0-9]+ entries$'
oom "out of memory in a window, rank 1" 1 26 "^netloom run: MPI rank 1 of 2: out of memory at cycle [1-9][0-9]*: $why"
oom "out of memory in a wheel slot, rank 1" 1 3 "^netloom run: MPI rank 1 of 2: out of memory at cycle [0-9]+: $why"
oom "out of memory, rank 0" 0 29 "^netloom run: out of memory at cycle [1-9][0-9]*: $why"

# A deadlock is the run's result as in one process (exit 1, the JSON's
# "stuck" object), without the list of waiting VCs.
dl=(-s topology=torus:k=8 -s routing_function=min:select=first,classes=none -s num_vcs=1 -s vc_buf_size=2
    -s packet_size=8 -s traffic=tornado -s injection_rate=0.9 -s sim_type=throughput)
refused "deadlock" '^netloom run: network deadlock at cycle 60: 32 flits stuck in 16 input VCs .*\(global check\); under MPI the list' \
  2 "$netloom" run "${dl[@]}" --reproducible --json "$dir/dl-2.json"
mpi 2 "$netloom" run "${dl[@]}" >/dev/null 2>&1
expect_eq "deadlock: exit" "$?" 1
"$netloom" run "${dl[@]}" --reproducible --json "$dir/dl-seq.json" >/dev/null 2>&1
strip_waits='d["results"]["stuck"].pop("waiting"); print(d["results"])'
expect_eq "deadlock: JSON but the waiting VCs" "$(python3 -c "import json; d=json.load(open('$dir/dl-2.json')); $strip_waits")" \
  "$(python3 -c "import json; d=json.load(open('$dir/dl-seq.json')); $strip_waits")"
# The same deadlock over 4-cycle channels: 5-cycle windows, found at the
# same cycle as in one process.
"$netloom" run "${dl[@]}" -s channel_latency=4 --reproducible --json "$dir/dlw-seq.json" >/dev/null 2>&1
for k in 2 3; do
  mpi "$k" "$netloom" run "${dl[@]}" -s channel_latency=4 --reproducible --json "$dir/dlw-$k.json" >/dev/null 2>&1
  expect_eq "deadlock, 4-cycle channels, $k ranks: exit" "$?" 1
  expect_eq "deadlock, 4-cycle channels, $k ranks: JSON but the waiting VCs" \
    "$(python3 -c "import json; d=json.load(open('$dir/dlw-$k.json')); $strip_waits")" \
    "$(python3 -c "import json; d=json.load(open('$dir/dlw-seq.json')); $strip_waits")"
done

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "ok: MPI runs equal the sequential ones"
