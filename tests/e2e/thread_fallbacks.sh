#!/usr/bin/env bash
# A thread that cannot start (ulimit -u, a cgroup's pids.max, a
# container's limit), in each of the five places that start threads
# (docs/scaling.md, "When a thread cannot start"), made to happen with the
# test hook NETLOOM_TEST_FAIL_THREAD (emu/core/thread.h): the job runs on
# the threads that did start, or on the calling thread alone, and prints
# and writes what it does with every thread, byte for byte: the flit
# model's partitions (run -s threads), the cabinet floor annealing's
# trials (cost and layout --threads), compare -j, sweep --spread points
# on threads, replay -j. The annealing's out-of-memory paths
# (NETLOOM_TEST_FAIL_ALLOC=N: its Nth allocation and every later one
# fail): before the first trial's arrays, one line naming what, exit 1
# and nothing written; past them, fewer threads and the same bytes.
# Fewer threads than asked add one warning to stderr, once per command,
# with the counts and the error (and nothing when every thread started).
# Where strace runs, the threads started are counted, so that a hook that
# failed nothing would not pass.
# usage: thread_fallbacks.sh NETLOOM SOURCE_ROOT
set -uo pipefail
netloom=$(realpath "$1")
root=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
s=$root/traces/samples

same() { # what REF GOT
  cmp -s "$2" "$3" || fail "$1: differs: $(diff "$2" "$3" | head -4)"
}
nowall() { sed '/"wall_seconds": /d' "$1"; }

# The warning of a place that ran on fewer threads (cli_say_threads_short):
# warning CMD RUNNING ASKED WORK [CALL: ERROR], the error by default the
# hook's EAGAIN.
warning() {
  echo "netloom $1: warning: $2 of $3 threads started for $4 (${5:-pthread_create: Resource temporarily unavailable});" \
    "running on $2"
}
# stderr_is WHAT FILE REF-FILE [LINE]: FILE holds REF-FILE's lines, then
# LINE when given and not empty, and nothing else.
stderr_is() {
  expect_eq "$1: stderr" "$(cat "$2")" "$(cat "$3"; [ -n "${4:-}" ] && echo "$4")"
}

# Threads started by a command (successful clones of a thread), or
# nothing when strace cannot run here (not installed, ptrace refused).
# ThreadSanitizer's runtime starts threads of its own: not counted there.
has_strace=0
strace -f -qq -e trace=clone,clone3 -o "$dir/st" true 2>/dev/null && has_strace=1
ldd "$netloom" 2>/dev/null | grep -q libtsan && has_strace=0
started() { # ENV-ASSIGNMENT COMMAND...
  [ "$has_strace" = 1 ] || return 0
  env "$1" strace -f -qq -e trace=clone,clone3 -o "$dir/st" "${@:2}" >/dev/null 2>&1
  grep 'CLONE_THREAD' "$dir/st" | grep -vc '= -1'
}
# expect_started WHAT WANT ENV-ASSIGNMENT COMMAND...
expect_started() {
  [ "$has_strace" = 1 ] || return 0
  expect_eq "$1: threads started" "$(started "${@:3}")" "$2"
}
[ "$has_strace" = 1 ] || echo "note: strace does not run here (or a ThreadSanitizer build); threads started not counted" >&2

# 1. The flit model's workers: threads = 3 on 4 partitions. A worker that
#    cannot start leaves its partitions to the others (1: none started,
#    the calling thread runs all; 2: one of two; all); the JSON and the
#    table are those of threads = 3 with both workers.
short=(-s sample_period=200 -s warmup_periods=2 -s max_samples=6)
run=(run -s topology=torus:k=4x4 -s num_vcs=2 -s injection_rate=0.3 -s partitions=4 "${short[@]}" -s threads=3
     --reproducible)
"$netloom" "${run[@]}" --json "$dir/w.json" >"$dir/w.out" 2>"$dir/w.err" || fail "workers: reference run failed"
expect_eq "workers: accepted" "$(json "$dir/w.json" 'd["results"]["throughput"]["accepted"] > 0.29')" True
expect_eq "workers: stderr" "$(cat "$dir/w.err")" ""
# FAIL_THREAD=N|N+|all, then the threads running (of 3).
for c in 1:1 2:2 2+:2 all:1; do
  f=${c%%:*} k=${c#*:}
  NETLOOM_TEST_FAIL_THREAD=$f "$netloom" "${run[@]}" --json "$dir/w$f.json" >"$dir/w$f.out" 2>"$dir/w$f.err"
  expect_eq "workers, FAIL_THREAD=$f: exit" "$?" 0
  same "workers, FAIL_THREAD=$f: JSON" "$dir/w.json" "$dir/w$f.json"
  same "workers, FAIL_THREAD=$f: stdout" "$dir/w.out" "$dir/w$f.out"
  stderr_is "workers, FAIL_THREAD=$f" "$dir/w$f.err" /dev/null "$(warning run "$k" 3 "a network's partitions")"
done
expect_started "workers" 2 NETLOOM_TEST_FAIL_THREAD= "$netloom" "${run[@]}"
expect_started "workers, FAIL_THREAD=2" 1 NETLOOM_TEST_FAIL_THREAD=2 "$netloom" "${run[@]}"
expect_started "workers, FAIL_THREAD=all" 0 NETLOOM_TEST_FAIL_THREAD=all "$netloom" "${run[@]}"

# 2. The annealing's trials, 4 on --threads 3 against --threads 1.
an=(torus:k=8x8x4 --layout anneal --iterations 20000 --trials 4)
"$netloom" cost "${an[@]}" --threads 1 --json "$dir/c.json" >"$dir/c.out" 2>"$dir/c.err" || fail "cost: reference failed"
"$netloom" layout "${an[@]}" --threads 1 --svg "$dir/l.svg" --lengths "$dir/l.len" >/dev/null 2>&1 ||
  fail "layout: reference failed"
grep -q 'annealed (20000 moves x 4 trials, seed 1, best trial ' "$dir/c.out" || fail "cost: not annealed: $(head -3 "$dir/c.out")"
# anneal_same WHAT ENV-ASSIGNMENT [RUNNING [CALL: ERROR]]: the threads
# running of 3 and what failed, when fewer ran.
anneal_same() {
  local cw="" lw=""
  [ -n "${3:-}" ] && cw=$(warning cost "$3" 3 "the annealing's trials" "${4:-}") &&
    lw=$(warning layout "$3" 3 "the annealing's trials" "${4:-}")
  rm -f "$dir/cf.json" "$dir/lf.svg" "$dir/lf.len"
  env "$2" "$netloom" cost "${an[@]}" --threads 3 --json "$dir/cf.json" >"$dir/cf.out" 2>"$dir/cf.err"
  expect_eq "$1: cost exit" "$?" 0
  same "$1: cost JSON" "$dir/c.json" "$dir/cf.json"
  same "$1: cost stdout" "$dir/c.out" "$dir/cf.out"
  stderr_is "$1: cost" "$dir/cf.err" /dev/null "$cw"
  env "$2" "$netloom" layout "${an[@]}" --threads 3 --svg "$dir/lf.svg" --lengths "$dir/lf.len" >/dev/null 2>"$dir/lf.err"
  expect_eq "$1: layout exit" "$?" 0
  same "$1: layout --svg" "$dir/l.svg" "$dir/lf.svg"
  same "$1: layout --lengths" "$dir/l.len" "$dir/lf.len"
  stderr_is "$1: layout" "$dir/lf.err" /dev/null "$lw"
}
anneal_same "annealing, no failure" NETLOOM_TEST_FAIL_THREAD=
for c in 1:1 2:2 1+:1 all:1; do
  anneal_same "annealing, FAIL_THREAD=${c%%:*}" NETLOOM_TEST_FAIL_THREAD=${c%%:*} "${c#*:}"
done
expect_started "annealing" 2 NETLOOM_TEST_FAIL_THREAD= "$netloom" cost "${an[@]}" --threads 3
expect_started "annealing, FAIL_THREAD=2" 1 NETLOOM_TEST_FAIL_THREAD=2 "$netloom" cost "${an[@]}" --threads 3
expect_started "annealing, FAIL_THREAD=all" 0 NETLOOM_TEST_FAIL_THREAD=all "$netloom" cost "${an[@]}" --threads 3
# Its allocations, in order (floor.c): 1-4 the cabinet graph, 5 the
# threads' array, 6-10 the first trial's arrays (this thread's): the run
# fails; 11-15 the second thread's, 16-20 the third's: fewer threads.
graph="layout: out of memory for the annealing's cabinet graph (16 cabinets, 768 cable ends)"
trial="layout: out of memory for an annealing trial (16 cabinets on 16 cells)"
for c in "1|$graph" "4|$graph" "5|$trial" "6|$trial" "10|$trial"; do
  n=${c%%|*} want=${c#*|}
  rm -f "$dir/cf.json" "$dir/lf.svg" "$dir/lf.len"
  NETLOOM_TEST_FAIL_ALLOC=$n "$netloom" cost "${an[@]}" --threads 3 --json "$dir/cf.json" >"$dir/cf.out" 2>"$dir/cf.err"
  expect_eq "annealing, FAIL_ALLOC=$n: cost exit" "$?" 1
  expect_eq "annealing, FAIL_ALLOC=$n: cost stderr" "$(cat "$dir/cf.err")" "netloom cost: $want"
  expect_eq "annealing, FAIL_ALLOC=$n: cost stdout" "$(wc -c <"$dir/cf.out")" 0
  [ -e "$dir/cf.json" ] && fail "annealing, FAIL_ALLOC=$n: cost --json written"
  NETLOOM_TEST_FAIL_ALLOC=$n "$netloom" layout "${an[@]}" --threads 3 --svg "$dir/lf.svg" --lengths "$dir/lf.len" \
    >/dev/null 2>"$dir/lf.err"
  expect_eq "annealing, FAIL_ALLOC=$n: layout exit" "$?" 1
  expect_eq "annealing, FAIL_ALLOC=$n: layout stderr" "$(cat "$dir/lf.err")" "netloom layout: ${want#layout: }"
  [ -e "$dir/lf.svg" ] && fail "annealing, FAIL_ALLOC=$n: layout --svg written"
  [ -e "$dir/lf.len" ] && fail "annealing, FAIL_ALLOC=$n: layout --lengths written"
done
# The second thread's arrays missing, 1 of 3 threads; the third's, 2;
# none missing (21), no warning.
nomem="a thread's arrays: Cannot allocate memory"
for c in 11:1 13:1 16:2 20:2 21:; do
  n=${c%%:*}
  anneal_same "annealing, FAIL_ALLOC=$n" NETLOOM_TEST_FAIL_ALLOC=$n "${c#*:}" "$nomem"
done
expect_started "annealing, FAIL_ALLOC=16" 1 NETLOOM_TEST_FAIL_ALLOC=16 "$netloom" cost "${an[@]}" --threads 3
# Through a replay's cable_latency: the annealing fails before any
# replay, one line, nothing written.
rm -f "$dir/cr.json"
NETLOOM_TEST_FAIL_ALLOC=1 "$netloom" replay "$s/lammps-lj-8.nlt" -s topology=torus:k=8x8x4 -s cable_latency=1 \
  -s layout_iterations=2000 --json "$dir/cr.json" >"$dir/cr.out" 2>"$dir/cr.err"
expect_eq "cable_latency, FAIL_ALLOC=1: exit" "$?" 1
expect_eq "cable_latency, FAIL_ALLOC=1: stderr" "$(cat "$dir/cr.err")" "netloom replay: $graph"
[ -e "$dir/cr.json" ] && fail "cable_latency, FAIL_ALLOC=1: --json written"

# 3. compare -j 3: the runs of a thread that did not start go to the
#    threads that did (core/pool.c), this one included.
cat >"$dir/study.ini" <<EOS
[study]
backend = analytic
seeds = 2
reference = torus
[system torus]
topology = torus:k=4x4
routing_function = dor
link_model = links
[system mesh]
topology = mesh:k=4x4
link_model = links
[workload lammps]
trace = $s/lammps-lj-8.nlt
ranks = 8
[workload hpcc]
trace = $s/hpcc-8.nlt
placement = random-node
EOS
strip() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("execution"); print(json.dumps(d, indent=1))' "$1"; }
"$netloom" compare "$dir/study.ini" -o "$dir/cmp" -j 1 >"$dir/cmp.out" 2>"$dir/cmp.err" || fail "compare: -j 1 failed"
expect_eq "compare: cells" "$(json "$dir/cmp/report.json" 'len(d["cells"])')" 4
# FAIL_THREAD '' (nothing fails), N|all, then the threads running (of 3).
for c in '':3 1:1 2:2 all:1; do
  f=${c%%:*} k=${c#*:} w= o=cmp${c%%:*}-
  [ "$k" = 3 ] || w=$(warning compare "$k" 3 "the study's replays")
  NETLOOM_TEST_FAIL_THREAD=$f "$netloom" compare "$dir/study.ini" -o "$dir/$o" -j 3 >"$dir/$o.out" 2>"$dir/$o.err"
  expect_eq "compare, FAIL_THREAD=$f: exit" "$?" 0
  same "compare, FAIL_THREAD=$f: report.json" <(strip "$dir/cmp/report.json") <(strip "$dir/$o/report.json")
  same "compare, FAIL_THREAD=$f: report.md" "$dir/cmp/report.md" "$dir/$o/report.md"
  stderr_is "compare, FAIL_THREAD=$f" "$dir/$o.err" "$dir/cmp.err" "$w"
  expect_eq "compare, FAIL_THREAD=$f: runs" \
    "$(json "$dir/$o/report.json" '[d["execution"][k] for k in ("executed_runs", "failed_runs", "jobs")]')" "[6, 0, 3]"
done
rm -rf "$dir/cmpst"
expect_started "compare" 2 NETLOOM_TEST_FAIL_THREAD= "$netloom" compare "$dir/study.ini" -o "$dir/cmpst" -j 3
rm -rf "$dir/cmpst"
expect_started "compare, FAIL_THREAD=all" 0 NETLOOM_TEST_FAIL_THREAD=all "$netloom" compare "$dir/study.ini" \
  -o "$dir/cmpst" -j 3

# 4. sweep --spread points on 3 threads: a point whose thread did not
#    start goes to a thread of the round that did (core/pool.c), this one
#    included, and every start of a round is tried (FAIL_THREAD=1: the
#    second start still runs); the sweep stops at 0.6 as the sequential
#    one does.
sw=(sweep -s topology=torus:k=4x4 -s num_vcs=2 -s latency_thres=100 "${short[@]}" --rates 0.1:0.7:0.1 -s threads=3
    --reproducible)
"$netloom" "${sw[@]}" --json "$dir/s.json" >"$dir/s.out" 2>"$dir/s.err"
s_rc=$?
expect_eq "sweep: offered rates" \
  "$(json "$dir/s.json" '" ".join("%g" % p["throughput"]["offered"] for p in d["results"]["points"])')" \
  "0.1 0.2 0.3 0.4 0.5 0.6"
# FAIL_THREAD '' (nothing fails), N|N+|all, then the threads running (of 3) in
# the round that ran on fewest: one line for the sweep (3+: both starts
# of the second round fail, and of the third).
for c in '':3 1:2 2:2 3+:1 all:1; do
  f=${c%%:*} k=${c#*:} w= o=s${c%%:*}-
  [ "$k" = 3 ] || w=$(warning sweep "$k" 3 "the sweep's points")
  NETLOOM_TEST_FAIL_THREAD=$f "$netloom" "${sw[@]}" --spread points --json "$dir/$o.json" >"$dir/$o.out" 2>"$dir/$o.err"
  expect_eq "sweep, FAIL_THREAD=$f: exit" "$?" "$s_rc"
  same "sweep, FAIL_THREAD=$f: JSON" "$dir/s.json" "$dir/$o.json"
  same "sweep, FAIL_THREAD=$f: stdout" "$dir/s.out" "$dir/$o.out"
  stderr_is "sweep, FAIL_THREAD=$f" "$dir/$o.err" "$dir/s.err" "$w"
done
expect_started "sweep --spread points" 4 NETLOOM_TEST_FAIL_THREAD= "$netloom" "${sw[@]}" --spread points
expect_started "sweep --spread points, FAIL_THREAD=3+" 2 NETLOOM_TEST_FAIL_THREAD=3+ "$netloom" "${sw[@]}" --spread points
expect_started "sweep --spread points, FAIL_THREAD=all" 0 NETLOOM_TEST_FAIL_THREAD=all "$netloom" "${sw[@]}" \
  --spread points

# 5. replay -j 3 over three networks: a thread that could not start
#    leaves its networks to the others.
rp=(replay "$s/lammps-lj-8.nlt" -s link_model=links -t mesh:k=8 -t torus:k=8 -t fattree:k=2,n=3)
"$netloom" "${rp[@]}" -j 1 --json "$dir/r.json" >"$dir/r.out" 2>"$dir/r.err" || fail "replay: -j 1 failed"
expect_eq "replay: statuses" "$(json "$dir/r.json" '[r["status"] for r in d["runs"]]')" "['ok', 'ok', 'ok']"
# FAIL_THREAD '' (nothing fails), N|all, then the threads running (of 3).
for c in '':3 1:1 2:2 all:1; do
  f=${c%%:*} k=${c#*:} w= o=r${c%%:*}-
  [ "$k" = 3 ] || w=$(warning replay "$k" 3 "the networks")
  NETLOOM_TEST_FAIL_THREAD=$f "$netloom" "${rp[@]}" -j 3 --json "$dir/$o.json" >"$dir/$o.out" 2>"$dir/$o.err"
  expect_eq "replay -j 3, FAIL_THREAD=$f: exit" "$?" 0
  same "replay -j 3, FAIL_THREAD=$f: JSON" <(nowall "$dir/r.json") <(nowall "$dir/$o.json")
  same "replay -j 3, FAIL_THREAD=$f: stdout" "$dir/r.out" "$dir/$o.out"
  stderr_is "replay -j 3, FAIL_THREAD=$f" "$dir/$o.err" "$dir/r.err" "$w"
done
expect_started "replay -j 3" 2 NETLOOM_TEST_FAIL_THREAD= "$netloom" "${rp[@]}" -j 3
expect_started "replay -j 3, FAIL_THREAD=2" 1 NETLOOM_TEST_FAIL_THREAD=2 "$netloom" "${rp[@]}" -j 3
expect_started "replay -j 3, FAIL_THREAD=all" 0 NETLOOM_TEST_FAIL_THREAD=all "$netloom" "${rp[@]}" -j 3

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "ok"
