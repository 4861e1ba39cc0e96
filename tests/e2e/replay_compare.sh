#!/usr/bin/env bash
# End-to-end tests of what the quick start shows (issue 9 §3):
#   1. a recorded runtime measured with ranks sharing cores is called not
#      comparable (text, JSON, CSV) and gets no ratio; one measured at one
#      rank per core gets its ratio; an archive that does not say gets
#      "unknown";
#   2. compute_time = auto|wall|cpu replays the recorded wall-clock gaps or
#      thread CPU time, and the report says which;
#   3. a version-1 archive still reads, verifies, dumps and encodes to its
#      own bytes, and replays with "comparability unknown";
#   4. `netloom replay --topology A --topology B ...` prints one comparison
#      table whose rows equal single-network replays.
# usage: replay_compare.sh NETLOOM SOURCE_ROOT
# Every check compares values (exact times from hand-built traces, exact
# messages, exit codes).
set -uo pipefail
netloom=$1
root=$2
. "$(dirname "$0")/lib.sh"

# A 2-rank trace: rank 0 computes 10 us of wall clock of which 4 us on
# the CPU, then sends 8 bytes; rank 1 computes 2 us (1 us CPU) and
# receives. On the ideal network the runtime is rank 0's compute: 10 us
# with wall-clock compute, 4 us with CPU time. CORES is the recording
# host's core count, CPU whether compute ops carry CPU time.
mktrace() { # OUT CORES CPU
  local cpu0="" cpu1=""
  [ "$3" = 1 ] && { cpu0=" cpu=4000000"; cpu1=" cpu=1000000"; }
  cat > "$dir/t.txt" <<EOF
netloom-trace 2
ranks 2
application "synthetic"
recorded_runtime_s 2e-05
hosts 1
ranks_per_host 2
cores_per_host $2
compute_cpu_time $3
rank 0
init t=0 dur=0
compute t=0 dur=10000000$cpu0
send t=10000000 dur=1000 peer=1 bytes=8
finalize t=10001000 dur=0
rank 1
init t=0 dur=0
compute t=0 dur=2000000$cpu1
recv t=2000000 dur=9000000 peer=0 bytes=8
finalize t=11000000 dur=0
EOF
  "$netloom" trace encode "$dir/t.txt" "$1" || fail "encode $1"
}
mktrace "$dir/shared.nlt" 1 1   # 2 ranks on 1 core, CPU time recorded
mktrace "$dir/own.nlt" 2 1      # 1 rank per core
mktrace "$dir/nocpu.nlt" 1 0    # 2 ranks on 1 core, no CPU time

# 1. Comparability.
"$netloom" replay "$dir/shared.nlt" -s ideal=yes --json "$dir/s.json" > "$dir/s.txt" || fail "replay shared exit $?"
grep -q "^  recorded runtime   0.000020000 s: NOT COMPARABLE with a prediction, no ratio given$" "$dir/s.txt" ||
  fail "shared: text lacks the not-comparable line"
grep -q "(recorded with 2 ranks on 1 host of 1 core (2 per core), so it includes CPU time-sharing, which replay does not model)" "$dir/s.txt" ||
  fail "shared: text lacks the reason"
grep -q "^  ratio " "$dir/s.txt" && fail "shared: text prints a ratio"
expect_eq "shared JSON comparable/ratio" "$(json "$dir/s.json" '(d["results"]["runtime"]["recorded_comparable"], d["results"]["runtime"]["ratio"])')" "(False, None)"
"$netloom" replay "$dir/shared.nlt" -s ideal=yes --csv > "$dir/s.csv" 2> "$dir/s.err" || fail "csv exit $?"
expect_eq "shared CSV note" "$(cat "$dir/s.err")" "netloom replay: the recorded runtime is not comparable with a prediction (recorded with 2 ranks on 1 host of 1 core (2 per core), so it includes CPU time-sharing, which replay does not model)"
expect_eq "shared CSV rows" "$(wc -l < "$dir/s.csv")" 3

"$netloom" replay "$dir/own.nlt" -s ideal=yes --json "$dir/o.json" > "$dir/o.txt" || fail "replay own exit $?"
grep -q "^  recorded runtime   0.000020000 s (comparable: recorded with 2 ranks on 1 host of 2 cores (1 per core))$" "$dir/o.txt" ||
  fail "own: text lacks the comparable line"
grep -q "^  ratio              0.5000 (predicted / recorded)$" "$dir/o.txt" || fail "own: text lacks the ratio"
expect_eq "own JSON comparable/ratio" "$(json "$dir/o.json" '(d["results"]["runtime"]["recorded_comparable"], round(d["results"]["runtime"]["ratio"], 9))')" "(True, 0.5)"
# One rank recorded alone: "1 rank on 1 host" (it said "1 ranks").
cat > "$dir/one.txt" <<EOF
netloom-trace 2
ranks 1
application "synthetic"
recorded_runtime_s 1e-05
hosts 1
ranks_per_host 1
cores_per_host 2
compute_cpu_time 0
rank 0
init t=0 dur=0
compute t=0 dur=10000000
finalize t=10000000 dur=0
EOF
"$netloom" trace encode "$dir/one.txt" "$dir/one.nlt" || fail "encode one.nlt"
"$netloom" replay "$dir/one.nlt" -s ideal=yes > "$dir/one.out" || fail "replay one exit $?"
grep -q "^  recorded runtime   0.000010000 s (comparable: recorded with 1 rank on 1 host of 2 cores (0.5 per core))$" "$dir/one.out" ||
  fail "one rank: $(grep 'recorded runtime' "$dir/one.out")"

# 2. compute_time: auto picks cpu only when ranks shared cores and CPU
#    time is there; wall and cpu force it; cpu without CPU time fails.
check_ct() { # what trace setting want_choice want_predicted_ps
  local args=(-s ideal=yes)
  [ -n "$3" ] && args+=(-s "compute_time=$3")
  "$netloom" replay "$2" "${args[@]}" --json "$dir/c.json" > "$dir/c.txt" || { fail "$1: exit $?"; return; }
  expect_eq "$1" "$(json "$dir/c.json" '(d["results"]["compute_time"], round(d["results"]["runtime"]["predicted_s"]*1e12))')" "('$4', $5)"
  grep -q "^  compute time       $4: " "$dir/c.txt" || fail "$1: text does not say compute time $4"
}
check_ct "auto, shared cores" "$dir/shared.nlt" "" cpu 4000000
check_ct "auto, own cores" "$dir/own.nlt" "" wall 10000000
check_ct "auto, no CPU time" "$dir/nocpu.nlt" "" wall 10000000
check_ct "wall forced" "$dir/shared.nlt" wall wall 10000000
check_ct "cpu forced" "$dir/own.nlt" cpu cpu 4000000
grep -q "(auto: the trace has no CPU time; ranks shared cores when recorded, so compute includes time-sharing)" <(
  "$netloom" replay "$dir/nocpu.nlt" -s ideal=yes) || fail "auto without CPU time: reason"
"$netloom" replay "$dir/nocpu.nlt" -s compute_time=cpu > "$dir/x.txt" 2> "$dir/x.err"
expect_eq "cpu without CPU time: exit" "$?" 2
expect_eq "cpu without CPU time: message" "$(cat "$dir/x.err")" "netloom replay: -s: key 'compute_time': value 'cpu': the trace has no CPU time (format 2, recorder ''); expected wall or auto"
[ -s "$dir/x.txt" ] && fail "cpu without CPU time: wrote a report"

# 3. A version-1 archive (lammps-lj-2 as recorded before format 2).
v1=$root/tests/data/traces/nlt/lammps-lj-2-v1.nlt
"$netloom" trace verify "$v1" > /dev/null || fail "v1 verify"
expect_eq "v1 info" "$("$netloom" trace info --json "$v1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["format_version"], d["ranks"], d["ops"])')" "1 2 5570"
"$netloom" trace dump "$v1" > "$dir/v1.txt" || fail "v1 dump"
expect_eq "v1 dump header" "$(grep -v '^#' "$dir/v1.txt" | head -1)" "netloom-trace 1"
grep -q "cpu=\|^hosts " "$dir/v1.txt" && fail "v1 dump shows version-2 fields"
"$netloom" trace encode "$dir/v1.txt" "$dir/v1.nlt" || fail "v1 encode"
cmp -s "$v1" "$dir/v1.nlt" || fail "v1 dump -> encode is not byte-identical"
"$netloom" replay "$v1" --json "$dir/v1.json" > "$dir/v1r.txt" || fail "v1 replay exit $?"
grep -q "^  recorded runtime   0.750132068 s (comparability unknown: the archive (format 1, recorder 'netloom-record 0.1.0') does not say how many ranks shared a core)$" "$dir/v1r.txt" ||
  fail "v1: text lacks 'comparability unknown'"
grep -q "^  ratio              [0-9.]* (predicted / recorded; comparability unknown)$" "$dir/v1r.txt" || fail "v1: ratio not marked unknown"
expect_eq "v1 JSON" "$(json "$dir/v1.json" '(d["results"]["runtime"]["recorded_comparable"], d["results"]["compute_time"])')" "(None, 'wall')"
# A version-2 field in a version-1 text is refused, naming the line.
sed 's/^recorded_runtime_s .*/&\nhosts 1/' "$dir/v1.txt" > "$dir/v1bad.txt"
"$netloom" trace encode "$dir/v1bad.txt" "$dir/v1bad.nlt" 2> "$dir/v1bad.err"
expect_eq "v1 + hosts: exit" "$?" 2
grep -q "v1bad.txt:[0-9]*: hosts: not in format version 1 (it needs 'netloom-trace 2')" "$dir/v1bad.err" || fail "v1 + hosts: message: $(cat "$dir/v1bad.err")"
[ -e "$dir/v1bad.nlt" ] && fail "v1 + hosts: wrote an archive"

# A version-2 archive without the optional host fields (importers, or a
# writer that does not know where the ranks ran) is "unknown" too, and
# its dump has no host lines, so it encodes back to the same bytes.
grep -v '^hosts \|^ranks_per_host \|^cores_per_host \|^compute_cpu_time ' "$dir/t.txt" | sed 's/ cpu=[0-9]*//' > "$dir/nohost.txt"
"$netloom" trace encode "$dir/nohost.txt" "$dir/nohost.nlt" || fail "encode v2 without host fields"
"$netloom" trace dump "$dir/nohost.nlt" > "$dir/nohost2.txt" || fail "dump v2 without host fields"
grep -q '^hosts ' "$dir/nohost2.txt" && fail "v2 without host fields: dump prints host lines"
"$netloom" trace encode "$dir/nohost2.txt" "$dir/nohost2.nlt" && cmp -s "$dir/nohost.nlt" "$dir/nohost2.nlt" || fail "v2 without host fields: dump -> encode not identical"
"$netloom" replay "$dir/nohost.nlt" --json "$dir/nh.json" > /dev/null || fail "v2 without host fields: replay"
expect_eq "v2 without host fields: JSON" "$(json "$dir/nh.json" '(d["trace"]["format_version"], d["results"]["runtime"]["recorded_comparable"], d["results"]["compute_time"])')" "(2, None, 'wall')"

# 4. Comparison of networks, on the flit model.
topos=(--topology torus:k=2 --topology dragonfly:a=2,p=1,h=1,g=2 --topology fattree:k=2,n=1)
"$netloom" replay "$dir/own.nlt" -s backend=flit "${topos[@]}" --json "$dir/m.json" > "$dir/m.txt" || fail "compare exit $?"
grep -q "^netloom replay: $dir/own.nlt (synthetic, 2 ranks) on 3 networks, backend flit$" "$dir/m.txt" || fail "compare: title"
grep -q "^  placement          rank r on endpoint r (linear) on every network$" "$dir/m.txt" || fail "compare: placement"
expect_eq "compare: table rows" "$(grep -cE '^  (torus|dragonfly|fattree):' "$dir/m.txt")" 3
expect_eq "compare: routing per network" "$(grep -E '^  (torus|dragonfly|fattree):' "$dir/m.txt" | awk '{print $2}' | tr '\n' ' ')" "dor min min "
grep -q "^detail for the first network:$" "$dir/m.txt" || fail "compare: no detail section"
expect_eq "compare: JSON runs" "$(json "$dir/m.json" '[r["topology"].split(":")[0] for r in d["runs"]]')" "['torus', 'dragonfly', 'fattree']"
expect_eq "compare: JSON config leaves the network to each run" "$(json "$dir/m.json" '("topology" in d["config"], "routing_function" in d["config"], [r["routing"] for r in d["runs"]])')" "(False, False, ['dor:dateline=1', 'min:select=auto,classes=auto,table=auto', 'min:select=auto,classes=auto,table=auto'])"
"$netloom" replay "$dir/own.nlt" -s backend=flit "${topos[@]}" --json "$dir/m2.json" > /dev/null || fail "compare second run"
python3 - "$dir/m.json" "$dir/m2.json" <<'PY' || fail "compare: two runs differ beyond wall_seconds"
import re, sys
a, b = (re.sub(r'"wall_seconds": [^\n]*', '', open(p).read()) for p in sys.argv[1:])
sys.exit(a != b)
PY
# A network that cannot run is refused before the first network replays
# (exit 2, "checked first"): its routing, or too few endpoints. It was
# refused only after the networks before it had replayed, and the first
# network's --otf2 archive was left behind by a command that failed. A
# placement policy's refusal names the network it does not fit.
lj8="$root/traces/samples/lammps-lj-8.nlt"
for bad in "-s routing_function=dor -t torus:k=4x4 -t fattree:k=4,n=2|netloom replay: -s: routing function 'dor' does not run on topology 'fattree' (it supports: torus, mesh, cmesh); set routing_function to one that does: min, nca, anca, lbr, updown, updown_adaptive" \
           "-t torus:k=4x4 -t torus:k=2|netloom replay: --topology: 'torus:k=2' has 2 endpoints, the trace needs 8 (one per rank); expected a topology of 8 endpoints or more, or ranks sharing endpoints: placement = contiguous, ranks_per_node = 4 (docs/placement.md)" \
           "-s placement=contiguous -t torus:k=4x4 -t torus:k=2|netloom replay: -s: key 'placement': value 'contiguous': on --topology 'torus:k=2': the job needs 8 endpoints (8 ranks, 1 per node), only 2 of 2 free"; do
  rm -rf "$dir/late.otf2" "$dir/late.json"
  # shellcheck disable=SC2086 # the options are words
  "$netloom" replay "$lj8" -s backend=flit ${bad%%|*} --otf2 "$dir/late.otf2" --json "$dir/late.json" 2> "$dir/late.err"
  rc=$?
  expect_eq "late bad network ${bad%%|*}: exit and message" "$rc $(cat "$dir/late.err")" "2 ${bad#*|}"
  [ -e "$dir/late.otf2" ] && fail "late bad network ${bad%%|*}: the first network's --otf2 was written"
  [ -e "$dir/late.json" ] && fail "late bad network ${bad%%|*}: --json was written"
done

# Each row is the replay on that network alone (same routing).
for t in "torus:k=2 dor" "dragonfly:a=2,p=1,h=1,g=2 min" "fattree:k=2,n=1 min"; do
  set -- $t
  "$netloom" replay "$dir/own.nlt" -s backend=flit --topology "$1" -s routing_function="$2" --json "$dir/one.json" > /dev/null ||
    fail "single $1"
  want=$(json "$dir/one.json" 'd["results"]["runtime"]["predicted_s"]')
  got=$(json "$dir/m.json" "[r['runtime']['predicted_s'] for r in d['runs'] if r['topology'].startswith('${1%%:*}')][0]")
  expect_eq "compare row $1 = single replay" "$got" "$want"
done
"$netloom" replay "$dir/own.nlt" -s backend=flit "${topos[@]}" --csv > "$dir/m.csv" || fail "compare csv exit $?"
# predicted_s and recorded_s with the per-rank CSV's 12 decimals (they
# were %.12g: as many as the value happened to need); shares with 6.
expect_eq "compare: CSV number forms" "$(python3 -c 'import csv,re,sys; print(sorted({(bool(re.fullmatch(r"\d+\.\d{12}", r["predicted_s"])), bool(re.fullmatch(r"\d+\.\d{12}", r["recorded_s"])), bool(re.fullmatch(r"\d\.\d{6}", r["comm_share"]))) for r in csv.DictReader(open(sys.argv[1]))}))' "$dir/m.csv")" "[(True, True, True)]"
expect_eq "compare: CSV header" "$(head -1 "$dir/m.csv")" "network,routing,routers,endpoints,placement,predicted_s,comm_share,busiest_link,busiest_load,compute_time,recorded_s,recorded_comparable"
expect_eq "compare: CSV rows" "$(python3 -c 'import csv,sys; print(" ".join(",".join((r["routing"], r["placement"], r["compute_time"], r["recorded_comparable"])) for r in csv.DictReader(open(sys.argv[1]))))' "$dir/m.csv")" "dor:dateline=1,linear,wall,yes min:select=auto,classes=auto,table=auto,linear,wall,yes min:select=auto,classes=auto,table=auto,linear,wall,yes"
# One --topology: the same routing choice, named in the report and the config.
"$netloom" replay "$dir/own.nlt" -s backend=flit --topology fattree:k=2,n=1 --json "$dir/f.json" > "$dir/f.txt" || fail "single --topology exit $?"
grep -q "^netloom replay: $dir/own.nlt (synthetic, 2 ranks) on backend flit, topology fattree:k=2,n=1, routing min:select=auto,classes=auto,table=auto$" "$dir/f.txt" || fail "single --topology: title"
expect_eq "single --topology: config" "$(json "$dir/f.json" '(d["config"]["topology"], d["config"]["routing_function"])')" "('fattree:k=2,n=1', 'min')"
# A configured routing is named too, with every parameter (as run/sweep
# record it); the config keeps it as typed.
"$netloom" replay "$dir/own.nlt" -s backend=flit --topology torus:k=2 -s routing_function=valiant --json "$dir/v.json" > "$dir/v.txt" ||
  fail "configured routing exit $?"
grep -q "^netloom replay: $dir/own.nlt (synthetic, 2 ranks) on backend flit, topology torus:k=2,p=1, routing valiant:shortcut=0$" "$dir/v.txt" ||
  fail "configured routing: title"
# routing_function unset with the key topology (not --topology): the
# family's default too (it failed: 'dor' does not run on a dragonfly).
"$netloom" replay "$dir/own.nlt" -s backend=flit -s topology=dragonfly:a=2,p=1,h=1,g=2 > "$dir/dk.txt" ||
  fail "key topology, unset routing exit $?"
grep -q "^netloom replay: $dir/own.nlt (synthetic, 2 ranks) on backend flit, topology dragonfly:a=2,p=1,h=1,g=2, routing min:select=auto,classes=auto,table=auto$" "$dir/dk.txt" ||
  fail "key topology, unset routing: title $(head -1 "$dir/dk.txt")"
expect_eq "configured routing: JSON" "$(json "$dir/v.json" '(d["results"]["network"]["routing"], d["config"]["routing_function"])')" "('valiant:shortcut=0', 'valiant')"
# HyperX and the flattened butterfly: their default is min, not valiant
# (the first function registered for them, non-minimal).
for spec in hyperx:s=2x2 flatfly:m=2,n=2; do
  "$netloom" replay "$dir/own.nlt" -s backend=flit --topology "$spec" --json "$dir/hx.json" > /dev/null ||
    fail "single --topology $spec exit $?"
  expect_eq "single --topology $spec: routing" "$(json "$dir/hx.json" 'd["config"]["routing_function"]')" "min"
done
# Bad input: a network too small, and two ways of naming the network.
# Columns line up as a terminal shows them: a graph file whose name is
# not ASCII ('réseau_ジョブ.txt') shifted every later column by the bytes
# its name has beyond its width.
"$netloom" topo export torus:k=2 --format edgelist -o "$dir/réseau_ジョブ.txt" || fail "export the graph"
"$netloom" replay "$dir/own.nlt" -s backend=flit --topology "graph:file=$dir/réseau_ジョブ.txt" --topology torus:k=2 > "$dir/u.txt" ||
  fail "compare with a non-ASCII file name exit $?"
python3 - "$dir/u.txt" <<'PY' || fail "compare: table columns do not line up with a non-ASCII network name"
import re, sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n")
         if l.startswith(("  network ", "  graph:", "  torus:"))]
# The display column where the third field (routers) ends, on each line.
cols = {width(l[:list(re.finditer(r"\S+", l))[2].end()]) for l in lines}
sys.exit(0 if len(lines) == 3 and len(cols) == 1 else 1)
PY
# A '"' in a network's spec is doubled in its quoted CSV field (RFC 4180):
# written as it was, it ended the field there and the row had 14 fields.
cp "$dir/réseau_ジョブ.txt" "$dir/q\"x.txt"
"$netloom" replay "$dir/own.nlt" --topology "graph:file=$dir/q\"x.txt" --topology torus:k=2 --csv > "$dir/q.csv" 2> /dev/null ||
  fail "CSV with a quote in a spec exit $?"
expect_eq "CSV: a quote in a spec" "$(python3 -c 'import csv,sys; print([(len(r), r[0].endswith("q\"x.txt,p=1,labels=0")) for r in csv.reader(open(sys.argv[1]))])' "$dir/q.csv")" "[(12, False), (12, True), (12, False)]"
"$netloom" replay "$dir/own.nlt" --topology torus:k=2 --topology mesh:k=1x1 2> "$dir/e.err" > "$dir/e.txt"
expect_eq "compare: bad topology exit" "$?" 2
[ -s "$dir/e.txt" ] && fail "compare: bad topology printed a table"
"$netloom" replay "$dir/own.nlt" --topology torus:k=2 -s topology=torus:k=4 2> "$dir/e.err"
expect_eq "compare: --topology with -s topology exit" "$?" 2
expect_eq "compare: --topology with -s topology message" "$(cat "$dir/e.err")" "netloom replay: --topology and the key 'topology' both name the network; give one of them"
# A 17th network: the option, the count given and the limit (the line
# said only "at most 16 networks per run").
topos=(); for i in $(seq 17); do topos+=(--topology torus:k=2); done
"$netloom" replay "$dir/own.nlt" "${topos[@]}" 2> "$dir/e.err" > "$dir/e.txt"
expect_eq "compare: 17 --topology exit" "$?" 2
expect_eq "compare: 17 --topology message" "$(cat "$dir/e.err")" "netloom replay: --topology given 17 times; expected at most 16 (networks in one run)"
[ -s "$dir/e.txt" ] && fail "compare: 17 --topology printed a table"

# The recorded sample the quick start replays says it plainly too.
"$netloom" replay "$root/traces/samples/lammps-lj-16.nlt" -s ideal=yes > "$dir/l.txt" || fail "lammps-lj-16 exit $?"
grep -q "NOT COMPARABLE" "$dir/l.txt" || fail "lammps-lj-16: not called not comparable"
grep -q "^  compute time       cpu: " "$dir/l.txt" || fail "lammps-lj-16: compute time is not cpu"

# 5. CPU-time compute against reality: LAMMPS at 2 ranks pinned to ONE core
#    (tests/data/traces/nlt/lammps-lj-2-one-core.nlt, recorded runtime 8.3 s
#    of time-sharing) predicts, with the calibrated analytical model and
#    compute_time auto (= cpu), the runtime the same program had at one
#    rank per core (traces/samples/lammps-lj-2.nlt's recorded runtime)
#    within 15%; with wall-clock compute it is off by more than 50%.
one=$root/tests/data/traces/nlt/lammps-lj-2-one-core.nlt
ref=$("$netloom" trace info --json "$root/traces/samples/lammps-lj-2.nlt" | python3 -c 'import json,sys; print(json.load(sys.stdin)["recorded_runtime_s"])')
cal=(-s calibration="$root/traces/samples/calibration-shm.json" -s calibration_ranks=2 -s link_model=endpoint)
for ct in auto wall; do
  "$netloom" replay "$one" "${cal[@]}" -s compute_time=$ct --json "$dir/one-$ct.json" > /dev/null || fail "one-core $ct exit $?"
done
python3 - "$dir/one-auto.json" "$dir/one-wall.json" "$ref" <<'PY' || fail "one-core: CPU-time compute does not recover the one-rank-per-core runtime"
import json, sys
a, w = (json.load(open(p))["results"] for p in sys.argv[1:3])
ref = float(sys.argv[3])
ea = a["runtime"]["predicted_s"] / ref - 1
ew = w["runtime"]["predicted_s"] / ref - 1
print(f"lammps-lj-2 on one core: cpu compute predicts {a['runtime']['predicted_s']:.4f} s ({ea:+.1%}), "
      f"wall compute {w['runtime']['predicted_s']:.4f} s ({ew:+.1%}), one rank per core recorded {ref:.4f} s; "
      f"time-shared recording {a['runtime']['recorded_s']:.4f} s")
ok = a["compute_time"] == "cpu" and abs(ea) <= 0.15 and ew > 0.5 and a["runtime"]["recorded_comparable"] is False
sys.exit(0 if ok else 1)
PY

[ $fails -eq 0 ] || { echo "$fails replay_compare checks failed" >&2; exit 1; }
echo "replay_compare: all checks passed"
