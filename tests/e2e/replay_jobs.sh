#!/usr/bin/env bash
# `netloom replay -j N`: the networks of one replay side by side on
# threads (docs/replay.md, "Comparing networks"). What it prints and
# writes is the sequential replay's, byte for byte, for N = 1..3 and more
# threads than networks: the report, the CSV table (the flit model's
# checked field by field against its run's JSON), the JSON but for its
# wall_seconds, the --svg timeline, the deadlock report on stderr and the
# exit status. A network that deadlocks (the LAMMPS sample on a ring
# without VC classes) is a result; failures (the flit model's allocation
# failing, NETLOOM_TEST_FAIL_ALLOC) give the first failing network's line
# in network order, whichever thread failed first, and nothing written.
# Bad -j values are refused in one line, before anything runs.
# usage: replay_jobs.sh NETLOOM
set -uo pipefail
netloom=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
lj8=$root/traces/samples/lammps-lj-8.nlt

nowall() { sed '/"wall_seconds": /d' "$1"; }
same() { # what FILE-of-j=1 FILE-of-j=N
  cmp -s "$2" "$3" || fail "$1: differs from -j 1: $(diff "$2" "$3" | head -4)"
}

# 1. The flit model, three networks, the second deadlocking (a ring of 8
#    routers with one VC and no classes: torus:k=8 deadlocks at cycle
#    7457314, the mesh and the fat tree finish). -j 1 is the sequential
#    replay (the code it always ran). -j 2 prints the CSV table instead of
#    the report (about 6 s of CPU a run: no run for the CSV alone); its
#    JSON, timeline, stderr and exit are checked as -j 3's, and the CSV
#    against them below. (The report and the CSV are written from the
#    same results once every network finished: the cheap analytic runs
#    in 3. compare both byte for byte at more and fewer threads than
#    networks.)
dl=(-s backend=flit -s num_vcs=1 -s vc_buf_size=2 -s routing_function=min:classes=none)
nets=(-t mesh:k=8 -t torus:k=8 -t fattree:k=2,n=3)
for j in 1 2 3; do
  csv=()
  [ "$j" -eq 2 ] && csv=(--csv)
  "$netloom" replay "$lj8" "${dl[@]}" "${nets[@]}" -j "$j" "${csv[@]}" --json "$dir/f$j.json" --svg "$dir/f$j.svg" \
    --otf2 "$dir/f$j.otf2" >"$dir/f$j.out" 2>"$dir/f$j.err"
  echo $? >"$dir/f$j.rc"
done
expect_eq "flit: exit" "$(cat "$dir/f1.rc")" 1
expect_eq "flit: statuses" "$(json "$dir/f1.json" '[r["status"] for r in d["runs"]]')" "['ok', 'deadlock', 'ok']"
expect_eq "flit: table rows" "$(grep -E '^  (mesh|torus|fattree):' "$dir/f1.out" | awk '{print $1, $5}' | tr '\n' ' ')" \
  "mesh:k=8,p=1 0.160375723 torus:k=8,p=1 deadlock fattree:k=2,n=3 0.159042234 "
head -1 "$dir/f1.err" | grep -q '^netloom replay: torus:k=8: network deadlock at cycle 7457314: ' ||
  fail "flit: deadlock line: $(head -c 200 "$dir/f1.err")"
expect_eq "flit: stderr lines" "$(wc -l <"$dir/f1.err")" 1
expect_eq "flit: CSV rows" \
  "$(python3 -c 'import csv,sys; print(" ".join(r["network"] + "=" + r["predicted_s"] for r in csv.DictReader(open(sys.argv[1]))))' "$dir/f2.out")" \
  "mesh:k=8,p=1=0.160375723000 torus:k=8,p=1=deadlock fattree:k=2,n=3=0.159042234000"
# Every field of the CSV is its run's JSON's (the sequential run's, but for
# wall_seconds: compared below), and routers and endpoints, which the JSON
# does not give, the sequential report's table.
expect_eq "flit -j 2: --csv against its JSON and the -j 1 report" "$(python3 - "$dir/f2.out" "$dir/f2.json" "$dir/f1.out" <<'EOP'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
runs = json.load(open(sys.argv[2]))["runs"]
table = {w[0]: w[2:4] for w in (l.split() for l in open(sys.argv[3]) if l.startswith("  ")) if w}
if len(rows) != len(runs):
    print("%d rows for %d networks" % (len(rows), len(runs)))
for row, r in zip(rows, runs):
    rt, b = r["runtime"], (r["network"]["busiest_links"] or [None])[0]
    want = [r["topology"], r["routing"] or ""] + table.get(r["topology"], ["?", "?"]) + [r["placement"],
            "deadlock" if r["status"] == "deadlock" else "%.12f" % rt["predicted_s"], "%.6f" % r["comm_share"],
            "%s -> %s" % (b["from"], b["to"]) if b else "", "%.6f" % b["utilisation"] if b else "",
            r["compute_time"], "%.12f" % rt["recorded_s"],
            {True: "yes", False: "no", None: "unknown"}[rt["recorded_comparable"]]]
    if len(row) != len(want):
        print("%s: %d fields, expected %d" % (r["topology"], len(row), len(want)))
    for (k, v), w in zip(row.items(), want):
        if v != w:
            print("%s %s: %s, expected %s" % (r["topology"], k, v, w))
EOP
)" ""
[ -s "$dir/f1.svg" ] || fail "flit: the first network's --svg not written"
for j in 2 3; do
  expect_eq "flit -j $j: exit" "$(cat "$dir/f$j.rc")" 1
  [ "$j" -eq 2 ] || same "flit -j $j: stdout" "$dir/f1.out" "$dir/f$j.out"
  same "flit -j $j: stderr" "$dir/f1.err" "$dir/f$j.err"
  same "flit -j $j: JSON" <(nowall "$dir/f1.json") <(nowall "$dir/f$j.json")
  same "flit -j $j: --svg" "$dir/f1.svg" "$dir/f$j.svg"
  [ -f "$dir/f$j.otf2/traces.otf2" ] || fail "flit -j $j: the first network's --otf2 archive not written"
done
# Only the archives: no staged DIR.tmp-* left behind by any run.
expect_eq "flit: --otf2 directories" "$(cd "$dir" && ls -d f*.otf2* | tr '\n' ' ')" "f1.otf2 f2.otf2 f3.otf2 "
# The first network deadlocking: its timeline is not drawn, said last.
for j in 1 2; do
  "$netloom" replay "$lj8" "${dl[@]}" -t torus:k=8 -t fattree:k=2,n=3 -j "$j" --svg "$dir/d$j.svg" \
    --json "$dir/d$j.json" >"$dir/d$j.out" 2>"$dir/d$j.err"
  echo $? >"$dir/d$j.rc"
done
expect_eq "first deadlocks: exit" "$(cat "$dir/d1.rc") $(cat "$dir/d2.rc")" "1 1"
expect_eq "first deadlocks: last line" "$(tail -1 "$dir/d2.err")" \
  "netloom replay: --svg $dir/d2.svg: not written: the first network's replay deadlocked (a timeline is of a run every rank finished)"
same "first deadlocks -j 2: stdout" "$dir/d1.out" "$dir/d2.out"
same "first deadlocks -j 2: stderr" <(sed "s|$dir/d1.svg|SVG|" "$dir/d1.err") <(sed "s|$dir/d2.svg|SVG|" "$dir/d2.err")
same "first deadlocks -j 2: JSON" <(nowall "$dir/d1.json") <(nowall "$dir/d2.json")
[ -e "$dir/d2.svg" ] && fail "first deadlocks -j 2: --svg written"

# 2. Failures: every network runs out of memory, each at its own cycle;
#    the line is the first network's (as the sequential replay, which
#    never reached the others), exit 1, no report, no JSON.
firsts=()
for order in "fattree:k=2,n=3 mesh:k=8 torus:k=8" "mesh:k=8 fattree:k=2,n=3 torus:k=8"; do
  read -r -a o <<<"$order"
  first=$(NETLOOM_TEST_FAIL_ALLOC=11 "$netloom" replay "$lj8" "${dl[@]}" -t "${o[0]}" 2>&1 >/dev/null)
  firsts+=("${first##*: out of memory }")
  for j in 1 2 3; do
    NETLOOM_TEST_FAIL_ALLOC=11 "$netloom" replay "$lj8" "${dl[@]}" -t "${o[0]}" -t "${o[1]}" -t "${o[2]}" -j "$j" \
      --json "$dir/x.json" >"$dir/x.out" 2>"$dir/x.err"
    expect_eq "fails ($order) -j $j: exit, line" "$? $(cat "$dir/x.err")" "1 $first"
    [ -s "$dir/x.out" ] && fail "fails ($order) -j $j: a report on stdout"
    [ -e "$dir/x.json" ] && fail "fails ($order) -j $j: --json written"
  done
done
# Lines that tell the networks apart, so a line taken from another
# network than the first would show.
expect_eq "fails: the first networks' lines" "${firsts[*]}" \
  "at cycle 843598: 8 events in flight at cycle 843082: 5 events in flight"

# 3. The analytic backend, six networks that share links differently
#    (link_model = links): more threads than networks, the JSON on stdout.
an=(-s link_model=links -t torus:k=4x2 -t mesh:k=8 -t fattree:k=2,n=3 -t hyperx:s=4x2 -t torus:k=8 -t torus:k=2x4)
"$netloom" replay "$lj8" "${an[@]}" --json - >"$dir/a1.json" 2>"$dir/a1.err" || fail "analytic: exit $?"
"$netloom" replay "$lj8" "${an[@]}" >"$dir/a1.out" 2>>"$dir/a1.err" || fail "analytic: exit $?"
# (the CSV table, the same code for any N, is compared below as the report)
"$netloom" replay "$lj8" "${an[@]}" --csv >"$dir/a1.csv" 2>>"$dir/a1.err" || fail "analytic --csv: exit $?"
expect_eq "analytic: networks" "$(json "$dir/a1.json" 'len(set(r["runtime"]["predicted_s"] for r in d["runs"]))')" 6
for j in 4 64; do
  "$netloom" replay "$lj8" "${an[@]}" -j "$j" --json - >"$dir/a$j.json" 2>"$dir/a$j.err" || fail "analytic -j $j: exit $?"
  "$netloom" replay "$lj8" "${an[@]}" -j "$j" >"$dir/a$j.out" 2>>"$dir/a$j.err" || fail "analytic -j $j: exit $?"
  same "analytic -j $j: JSON" <(nowall "$dir/a1.json") <(nowall "$dir/a$j.json")
  same "analytic -j $j: stdout" "$dir/a1.out" "$dir/a$j.out"
  "$netloom" replay "$lj8" "${an[@]}" -j "$j" --csv >"$dir/a$j.csv" 2>>"$dir/a$j.err" || fail "analytic -j $j --csv: exit $?"
  same "analytic -j $j: --csv" "$dir/a1.csv" "$dir/a$j.csv"
  same "analytic -j $j: stderr" "$dir/a1.err" "$dir/a$j.err"
done

# 4. Bad values: compare's words, one line, exit 2, nothing run or written.
for v in 0 65 abc -1 +2 " 2" "2 " ""; do
  "$netloom" replay "$lj8" -t torus:k=8 -t mesh:k=8 -j "$v" --json "$dir/b.json" >"$dir/b.out" 2>"$dir/b.err"
  expect_eq "-j '$v': exit, line" "$? $(cat "$dir/b.err")" "2 netloom replay: --jobs: expected an integer in 1..64, got '$v'"
  [ -s "$dir/b.out" ] || [ -e "$dir/b.json" ] && fail "-j '$v': something written"
done
"$netloom" replay "$lj8" -t torus:k=8 -j 2 --jobs 3 >"$dir/b.out" 2>"$dir/b.err"
expect_eq "-j twice: exit, line" "$? $(cat "$dir/b.err")" "2 netloom replay: option '--jobs' given twice"
"$netloom" replay "$lj8" -t torus:k=8 -j >"$dir/b.out" 2>"$dir/b.err"
expect_eq "-j without N: exit" "$?" 2
# One network: -j changes nothing.
"$netloom" replay "$lj8" -j 8 --json - 2>&1 | nowall /dev/stdin >"$dir/one8.json"
"$netloom" replay "$lj8" --json - 2>&1 | nowall /dev/stdin >"$dir/one1.json"
same "one network -j 8" "$dir/one1.json" "$dir/one8.json"

[ "$fails" -eq 0 ] || exit 1
echo ok
