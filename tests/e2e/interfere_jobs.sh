#!/usr/bin/env bash
# `netloom interfere -j N`: the jobs alone and the shared run side by side
# on threads (docs/placement.md, "Runs side by side"). What it prints and
# writes is the sequential command's, byte for byte, for N = 1..3 and more
# threads than runs: the table, the whole --json (the document has no
# wall-clock field), the --plot SVG, stderr and the exit status. Three jobs
# on a flit 4x4 torus: the bundled 2-rank LAMMPS trace (also as OTF2,
# converted into a temporary archive removed once open, which the shared
# run reads through a second handle) and two synthetic ones. Failures (the
# flit model's allocation failing, NETLOOM_TEST_FAIL_ALLOC) give the first
# failing run's line in the sequential order (each job alone in file
# order, then all together), whichever thread failed first; nothing is
# written. Bad -j values are refused in one line, before anything runs.
# usage: interfere_jobs.sh NETLOOM
set -uo pipefail
netloom=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
lj2=$root/traces/samples/lammps-lj-2.nlt

same() { # what FILE-of-j=1 FILE-of-j=N
  cmp -s "$2" "$3" || fail "$1: differs from -j 1: $(diff "$2" "$3" | head -4)"
}

cat >"$dir/sys.ini" <<'EOF'
[network]
topology = torus:k=4x4
routing_function = dor
[replay]
backend = flit
EOF
# workload FILE TRACE JOB...: the jobs (lj, ring, a2a) in the order given.
workload() {
  local f=$1 tr=$2
  shift 2
  for j in "$@"; do
    case $j in
    lj) printf '[job lj]\ntrace = %s\nplacement = random-node\n' "$tr" ;;
    ring) printf '[job ring]\nsynthetic = ring\nranks = 4\nbytes = 16384\ninterval_s = 0.00001\nsteps = 200\nplacement = random-node\n' ;;
    # placement_inner is not read with one rank per node: a warning, so
    # that stderr holds something to compare.
    a2a) printf '[job a2a]\nsynthetic = alltoall\nranks = 6\nbytes = 4096\ninterval_s = 0.00002\nsteps = 100\nplacement = random-node\nplacement_inner = round_robin\n' ;;
    esac
  done >"$dir/$f"
}
workload w.ini "$lj2" lj ring a2a
workload r.ini "$lj2" ring a2a lj

# 1. The same bytes for any N. -j 1 is the sequential command (the code it
#    always ran); 4 and 64 are more threads than the 4 runs.
for j in 1 2 3 64; do
  "$netloom" interfere "$dir/w.ini" -c "$dir/sys.ini" -j "$j" --json "$dir/j$j.json" --plot "$dir/j$j.svg" \
    >"$dir/j$j.out" 2>"$dir/j$j.err"
  echo $? >"$dir/j$j.rc"
done
expect_eq "exit" "$(cat "$dir/j1.rc")" 0
# Values of the runs, so that a run's results put in another's place show.
expect_eq "runtimes alone, shared" \
  "$(json "$dir/j1.json" '[(j["name"], round(j["alone"]["runtime_s"] * 1e12), round(j["shared"]["runtime_s"] * 1e12)) for j in d["results"]["jobs"]]')" \
  "[('lj', 537742165000, 537742165000), ('ring', 2218400000, 2317695000), ('a2a', 2261238000, 2262316000)]"
expect_eq "links" "$(json "$dir/j1.json" '[d["results"]["links"][k] for k in ("total", "links_used", "links_shared")]')" \
  "[8461457, 51, 9]"
expect_eq "stderr" "$(cat "$dir/j1.err")" \
  "netloom interfere: warning: $dir/w.ini:18: [job a2a] key 'placement_inner': value 'round_robin' is not read by interfere (ranks_per_node = 1 (unset): one rank per node, in either order); it has no effect"
grep -q '</svg>' "$dir/j1.svg" || fail "--plot: no SVG"
for j in 2 3 64; do
  expect_eq "-j $j: exit" "$(cat "$dir/j$j.rc")" 0
  same "-j $j: table" "$dir/j1.out" "$dir/j$j.out"
  same "-j $j: JSON" "$dir/j1.json" "$dir/j$j.json"
  same "-j $j: --plot" "$dir/j1.svg" "$dir/j$j.svg"
  same "-j $j: stderr" "$dir/j1.err" "$dir/j$j.err"
done
# --json - (the document on stdout) and --jobs.
"$netloom" interfere "$dir/w.ini" -c "$dir/sys.ini" --jobs 2 --json - >"$dir/s2.json" 2>/dev/null || fail "--json -: exit $?"
same "--jobs 2 --json -" "$dir/j1.json" "$dir/s2.json"

# 2. A trace converted from OTF2: its temporary archive is gone once open,
#    and the shared run reads it through a second handle.
"$netloom" trace export "$lj2" --otf2 "$dir/lj2.otf2" >/dev/null || fail "trace export: exit $?"
workload o.ini lj2.otf2/traces.otf2 lj ring a2a
for j in 1 3; do
  "$netloom" interfere "$dir/o.ini" -c "$dir/sys.ini" -j "$j" --json "$dir/o$j.json" >"$dir/o$j.out" 2>"$dir/o$j.err" ||
    fail "OTF2 -j $j: exit $?: $(head -2 "$dir/o$j.err")"
done
same "OTF2 -j 3: JSON" "$dir/o1.json" "$dir/o3.json"
expect_eq "OTF2: the same results as the archive's" \
  "$(json "$dir/o1.json" '[j["shared"] for j in d["results"]["jobs"]]')" \
  "$(json "$dir/j1.json" '[j["shared"] for j in d["results"]["jobs"]]')"

# 3. Failures: each run's network runs out of memory at its own
#    allocation. The line is the first failing run's in the sequential
#    order, exit 1, nothing on stdout, no JSON, no chart. Under -j the
#    shared run starts first and fails too (at 12 and 5 below: its own
#    line would say 'all jobs together'), and the runs after a failed one
#    may be dropped unrun.
for c in "w.ini 11 job 'lj' alone: out of memory at cycle 1081056: 5 events in flight" \
  "r.ini 5 job 'ring' alone: out of memory at cycle 10002: 0 events in flight" \
  "r.ini 12 job 'lj' alone: message 1: out of memory for its packets" \
  "r.ini 14 all jobs together: message 12: out of memory for its packets"; do
  read -r wl n line <<<"$c"
  for j in 1 2 3; do
    rm -f "$dir/x.json" "$dir/x.svg"
    NETLOOM_TEST_FAIL_ALLOC=$n "$netloom" interfere "$dir/$wl" -c "$dir/sys.ini" -j "$j" --json "$dir/x.json" \
      --plot "$dir/x.svg" >"$dir/x.out" 2>"$dir/x.err"
    expect_eq "fails ($wl, $n) -j $j: exit, line" "$? $(grep -v warning "$dir/x.err")" "1 netloom interfere: $line"
    [ -s "$dir/x.out" ] && fail "fails ($wl, $n) -j $j: a table on stdout"
    [ -e "$dir/x.json" ] || [ -e "$dir/x.svg" ] && fail "fails ($wl, $n) -j $j: --json or --plot written"
  done
done

# 4. Bad values: compare's and replay's words, one line, exit 2, nothing
#    run or written.
for v in 0 65 abc -1 +2 " 2" "2 " ""; do
  "$netloom" interfere "$dir/w.ini" -c "$dir/sys.ini" -j "$v" --json "$dir/b.json" >"$dir/b.out" 2>"$dir/b.err"
  expect_eq "-j '$v': exit, line" "$? $(cat "$dir/b.err")" \
    "2 netloom interfere: --jobs: expected an integer in 1..64, got '$v'"
  [ -s "$dir/b.out" ] || [ -e "$dir/b.json" ] && fail "-j '$v': something written"
done
"$netloom" interfere "$dir/w.ini" -c "$dir/sys.ini" -j 2 --jobs 3 >"$dir/b.out" 2>"$dir/b.err"
expect_eq "-j twice: exit, line" "$? $(cat "$dir/b.err")" "2 netloom interfere: option '--jobs' given twice"
"$netloom" interfere "$dir/w.ini" -c "$dir/sys.ini" -j >"$dir/b.out" 2>"$dir/b.err"
expect_eq "-j without N: exit" "$?" 2

[ "$fails" -eq 0 ] || exit 1
echo ok
