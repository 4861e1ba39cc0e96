#!/usr/bin/env bash
# End-to-end tests of `netloom interfere` (issue 13): answers known in
# advance on a 4x4 torus with dimension-order routing, determinism, start
# times, repeat counts, the analytic backend, and bad workload files.
# usage: interfere.sh NETLOOM REPLAY_MKTRACE
set -uo pipefail
netloom=$1
mk=$2
. "$(dirname "$0")/lib.sh"

# Job A: a ring halo (32 KiB) with 5 us of compute per step, 10 steps.
# Job B, the other job, runs the same pattern 30 steps, longer than A, with
# 8 KiB (light) or 32 KiB (heavy) messages: four times the load.
"$mk" "$dir/a.nlt" stencil 8 10 32768 5000 > /dev/null || fail "mktrace a"
"$mk" "$dir/bl.nlt" stencil 8 30 8192 5000 > /dev/null || fail "mktrace bl"
"$mk" "$dir/bh.nlt" stencil 8 30 32768 5000 > /dev/null || fail "mktrace bh"
cat > "$dir/sys.ini" <<'EOF'
[network]
topology = torus:k=4x4
routing_function = dor
[replay]
backend = flit
EOF
for r in 0 1 2 3 4 5 6 7; do echo "$r $((2 * r))"; done > "$dir/even.map"
for r in 0 1 2 3 4 5 6 7; do echo "$r $((2 * r + 1))"; done > "$dir/odd.map"

# workload NAME B_TRACE PLACEMENT_A PLACEMENT_B [extra lines for job B]
workload() {
  {
    echo "[job A]"; echo "trace = a.nlt"; echo "$3"
    echo "[job B]"; echo "trace = $2"; echo "$4"
    [ $# -ge 5 ] && echo "$5"
  } > "$dir/$1.ini"
}
contig="placement = contiguous"
workload halves bh.nlt "$contig" "$contig"
workload light bl.nlt $'placement = map\nplacement_map = even.map' $'placement = map\nplacement_map = odd.map'
workload heavy bh.nlt $'placement = map\nplacement_map = even.map' $'placement = map\nplacement_map = odd.map'
workload late bh.nlt $'placement = map\nplacement_map = even.map' $'placement = map\nplacement_map = odd.map' "start_s = 0.01"

run() { # NAME [options]: the JSON in $dir/NAME.json, the table in $dir/NAME.txt
  local n=$1; shift
  "$netloom" interfere "$dir/$n.ini" -c "$dir/sys.ini" --json "$dir/$n.json" "$@" > "$dir/$n.txt" || fail "$n: exit $?"
}
ps() { echo "round($1 * 1e12)"; }

# 1. Contiguous halves (routers 0-7 and 8-15: rows 0-1 and 2-3, each
# row pair closed under DOR) share no link: zero slowdown, exactly.
run halves
expect_eq "halves endpoints" "$(json "$dir/halves.json" '[j["endpoints"] for j in d["results"]["jobs"]]')" \
  "[[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]]"
expect_eq "halves shared links" "$(json "$dir/halves.json" 'd["results"]["links"]["links_shared"]')" 0
expect_eq "halves slowdown" "$(json "$dir/halves.json" '[j["slowdown"] for j in d["results"]["jobs"]]')" "[0.0, 0.0]"
expect_eq "halves runtimes" "$(json "$dir/halves.json" '[j["alone"]["runtime_s"] == j["shared"]["runtime_s"] for j in d["results"]["jobs"]]')" \
  "[True, True]"
expect_eq "halves latency" "$(json "$dir/halves.json" '[j["alone"]["latency"] == j["shared"]["latency"] for j in d["results"]["jobs"]]')" \
  "[True, True]"
grep -q "links: 48 used, 0 by two jobs or more" "$dir/halves.txt" || fail "halves table lacks the link line"
expect_eq "halves header" "$(head -n 1 "$dir/halves.txt")" "netloom interfere: $dir/halves.ini, 2 jobs on torus:k=4x4,p=1 (backend flit)"
# A -s of a key no replay reads ran silently (the table unchanged):
# warned of as replay does, the table the same.
"$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" -s sample_period=3 -s latency_ns=5 > "$dir/hw.txt" 2> "$dir/hw.err" \
  || fail "halves with unread keys: exit $?"
expect_eq "unread keys warned" "$(cat "$dir/hw.err")" "netloom interfere: warning: -s sample_period=3: key 'sample_period' of [simulation] is not read by interfere (backend flit); it has no effect
netloom interfere: warning: -s latency_ns=5: key 'latency_ns' of [analytic] is not read by interfere (backend flit); it has no effect"
cmp -s "$dir/hw.txt" "$dir/halves.txt" || fail "unread keys changed the table"
# One job alone: "1 job", not "1 jobs".
printf '[job A]\ntrace = a.nlt\n' > "$dir/one.ini"
run one
expect_eq "one job header" "$(head -n 1 "$dir/one.txt")" "netloom interfere: $dir/one.ini, 1 job on torus:k=4x4,p=1 (backend flit)"

# 2. Interleaved router by router (A on even routers, B on odd ones): the
# jobs share links, A slows down, and more so beside the heavier B.
run light
run heavy
for n in light heavy; do
  expect_eq "$n shares links" "$(json "$dir/$n.json" 'd["results"]["links"]["links_shared"] > 0')" True
  expect_eq "$n A slows down" "$(json "$dir/$n.json" 'd["results"]["jobs"][0]["slowdown"] > 0')" True
done
sl=$(json "$dir/light.json" 'd["results"]["jobs"][0]["slowdown"]')
sh=$(json "$dir/heavy.json" 'd["results"]["jobs"][0]["slowdown"]')
expect_eq "slowdown grows with the other job's load ($sl < $sh)" "$(python3 -c "print($sl < $sh)")" True
expect_eq "heavy B moves more flits" "$(python3 -c "import json; l, h = (json.load(open('$dir/' + n + '.json'))['results']['jobs'][1]['link_use'] for n in ('light', 'heavy')); print(h > 3 * l)")" True

# 3. The per-link, per-job counts sum to the shared run's flit hops; the
# jobs' totals to the links' total; a listed link's shares to 1.
for n in halves light heavy; do
  expect_eq "$n counts = flit hops" "$(json "$dir/$n.json" 'd["results"]["links"]["total"] == d["results"]["network"]["flit_hops"]')" True
  expect_eq "$n job totals" "$(json "$dir/$n.json" 'sum(j["link_use"] for j in d["results"]["jobs"]) == d["results"]["links"]["total"]')" True
done
expect_eq "heavy top link" "$(json "$dir/heavy.json" '[(sum(l["per_job"]) == l["total"], round(sum(l["shares"]), 9)) for l in d["results"]["links"]["top_shared"][:1]]')" \
  "[(True, 1.0)]"
expect_eq "heavy top links listed" "$(json "$dir/heavy.json" 'len(d["results"]["links"]["top_shared"])')" 10

top=$("$netloom" interfere "$dir/heavy.ini" -c "$dir/sys.ini" --top 2 --json - | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["results"]["links"]["top_shared"]))')
expect_eq "--top 2 with the JSON alone on stdout" "$top" 2
out=$("$netloom" interfere "$dir/heavy.ini" -c "$dir/sys.ini" --top 0 2>&1 >/dev/null); rc=$?
expect_eq "--top 0" "$rc:$out" "2:netloom interfere: --top: expected an integer in 1..100000, got '0'"

# The table's columns after the job name start at the same terminal
# column on every row, whatever the name's bytes: it was padded by bytes
# (%-16s), so 'lammps_é' (9 bytes, 8 columns) and 'ジョブ' (9 bytes, 6
# columns) shifted them left; a name past 16 columns widens the column.
printf '%s\n' "[job lammps_é]" "trace = a.nlt" "$contig" "[job ジョブ_ジョブ_ジョブ]" "trace = bh.nlt" "$contig" > "$dir/names.ini"
run names
expect_eq "names: columns" "$(python3 - "$dir/names.txt" <<'EOP'
import re, sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
cols = set()
for name in ("job", "lammps_é", "ジョブ_ジョブ_ジョブ"):
    row = [l for l in lines if l.startswith("  " + name + " ")]
    if len(row) != 1:
        print("no row for", name); sys.exit()
    # Where the ranks column ends: after the name's padding and the number.
    cols.add(width("  " + name) + width(re.match(r"\s*\S+", row[0][2 + len(name):]).group(0)))
print(len(cols), sorted(cols))
EOP
)" "1 [29]"

# 4. Determinism: the same workload gives the same bytes.
"$netloom" interfere "$dir/heavy.ini" -c "$dir/sys.ini" --json "$dir/heavy2.json" > /dev/null || fail "heavy again"
cmp -s "$dir/heavy.json" "$dir/heavy2.json" || fail "two runs of the same workload differ"
# The flit model split into partitions counts every partition's links.
"$netloom" interfere "$dir/heavy.ini" -c "$dir/sys.ini" -s partitions=3 --json "$dir/heavy3.json" > /dev/null || fail "heavy partitions=3"
cmp -s <(grep -v '"partitions"' "$dir/heavy.json") <(grep -v '"partitions"' "$dir/heavy3.json") ||
  fail "partitions = 3 changes the interference report"

# Random placement: the same seed gives the same bytes, another seed other
# endpoints.
for seed in 3 3 4; do
  printf '%s\n' "[workload]" "seed = $seed" "[job A]" "trace = a.nlt" "placement = random-node" "[job B]" \
    "trace = bl.nlt" "placement = random-node" > "$dir/rnd.ini"
  k=$((${k:-0} + 1))
  "$netloom" interfere "$dir/rnd.ini" -c "$dir/sys.ini" -s backend=analytic -s link_model=links --json "$dir/rnd$k.json" > /dev/null ||
    fail "random $k"
done
cmp -s "$dir/rnd1.json" "$dir/rnd2.json" || fail "random placement: two runs with seed 3 differ"
expect_eq "random placement: seed 4 moves the jobs" \
  "$(python3 -c "import json; e = [[j['endpoints'] for j in json.load(open('$dir/rnd%d.json' % k))['results']['jobs']] for k in (1, 3)]; print(e[0] != e[1])")" True

# 5. Start times: B starting after A has ended leaves A alone (zero
# slowdown, exactly); B's own runtime counts from its start.
run late
expect_eq "late slowdowns" "$(json "$dir/late.json" '[j["slowdown"] for j in d["results"]["jobs"]]')" "[0.0, 0.0]"
expect_eq "late B runtime" "$(json "$dir/late.json" "$(ps 'd["results"]["jobs"][1]["alone"]["runtime_s"]')")" \
  "$(json "$dir/heavy.json" "$(ps 'd["results"]["jobs"][1]["alone"]["runtime_s"]')")"
expect_eq "late start" "$(json "$dir/late.json" 'd["results"]["jobs"][1]["start_s"]')" 0.01

# 6. Repeat: twice the trace sends twice the messages and takes longer.
workload twice bh.nlt "$contig" "$contig" "repeat = 2"
run twice
expect_eq "repeat messages" "$(json "$dir/twice.json" 'd["results"]["jobs"][1]["alone"]["latency"]["n"]')" \
  "$(json "$dir/halves.json" '2 * d["results"]["jobs"][1]["alone"]["latency"]["n"]')"
expect_eq "repeat longer" "$(python3 -c "import json; t, h = (json.load(open('$dir/' + n + '.json'))['results']['jobs'][1]['alone']['runtime_s'] for n in ('twice', 'halves')); print(1.9 * h < t <= 2.1 * h)")" True

# 7. The analytic backend counts bytes on the links of its minimal routes.
an=(-s backend=analytic -s link_model=links)
"$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/ah.json" > /dev/null || fail "analytic halves"
"$netloom" interfere "$dir/heavy.ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/ai.json" > /dev/null || fail "analytic heavy"
expect_eq "analytic halves" "$(json "$dir/ah.json" 'd["results"]["links"]["unit"], d["results"]["links"]["links_shared"], [j["slowdown"] for j in d["results"]["jobs"]]')" \
  "('bytes', 0, [0.0, 0.0])"
expect_eq "analytic interleaved" "$(json "$dir/ai.json" 'd["results"]["links"]["links_shared"] > 0, d["results"]["jobs"][0]["slowdown"] > 0')" \
  "(True, True)"
out=$("$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" -s backend=analytic 2>&1 >/dev/null); rc=$?
expect_eq "analytic without links" "$rc:$out" \
  "2:netloom interfere: analytic backend: per-job link use needs link_model = links, ideal = no and a topology (key 'link_model' is 'none')"
# A routing function the analytic backend does not run is still checked,
# as replay checks it: a typo ran the jobs silently.
out=$("$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" "${an[@]}" -s routing_function=dorr 2>&1 >/dev/null); rc=$?
expect_eq "analytic routing typo" "$rc:${out%%(*}" "2:netloom interfere: -s: key 'routing_function': unknown routing function 'dorr' "

# cable_latency: the shared run's network report says which layout timed
# the cables, as a replay's does (it had link_latency but no cables), the
# one `netloom cost` gives for the same keys, with its link latencies.
cab=(-s cable_latency=1 -s layout_placement=anneal -s layout_iterations=1000 -s layout_trials=2)
"$netloom" interfere "$dir/heavy.ini" -c "$dir/sys.ini" "${an[@]}" "${cab[@]}" --json "$dir/ac.json" > /dev/null || fail "analytic cables"
"$netloom" cost torus:k=4x4 --layout anneal --iterations 1000 --trials 2 --json "$dir/ac-cost.json" > /dev/null || fail "cost for cables"
expect_eq "cables: the layout in the report" \
  "$(json "$dir/ac.json" '[d["results"]["network"]["cables"][k] for k in ("preset", "rule", "placement", "cabinets", "links", "length_m")]')" \
  "$(json "$dir/ac-cost.json" '[d["preset"], d["rule"], d["placement"], d["cabinets"]["count"], d["links"], d["length_m"]]')"
expect_eq "cables: link latencies" "$(json "$dir/ac.json" 'd["results"]["network"]["link_latency"]["channels"]')" 64

# 8. A synthetic job: A beside a ring of 32 KiB exchanges on the odd
# routers, as steady as B (30 steps of 5 us compute then one exchange):
# zero slowdown on the other half of the machine, a slowdown interleaved;
# its messages are its 8 ranks x 30 steps.
syn() { # NAME PLACEMENT-OF-A PLACEMENT-OF-THE-RING
  printf '%s\n' "[job A]" "trace = a.nlt" "$2" "[job ring]" "synthetic = ring" "ranks = 8" "bytes = 32768" \
    "interval_s = 0.000005" "steps = 30" "$3" > "$dir/$1.ini"
}
syn synhalves "$contig" "$contig"
syn synring $'placement = map\nplacement_map = even.map' $'placement = map\nplacement_map = odd.map'
run synhalves
run synring
expect_eq "synthetic halves" "$(json "$dir/synhalves.json" '[j["slowdown"] for j in d["results"]["jobs"]], d["results"]["links"]["links_shared"]')" \
  "([0.0, 0.0], 0)"
expect_eq "synthetic slowdown" "$(json "$dir/synring.json" 'd["results"]["jobs"][0]["slowdown"] > 0, d["results"]["links"]["links_shared"] > 0')" "(True, True)"
expect_eq "synthetic job" "$(json "$dir/synring.json" 'd["results"]["jobs"][1]["synthetic"], d["results"]["jobs"][1]["alone"]["latency"]["n"]')" \
  "({'pattern': 'ring', 'bytes': 32768, 'interval_s': 5e-06, 'steps': 30}, 240)"
expect_eq "synthetic counts = flit hops" "$(json "$dir/synring.json" 'd["results"]["links"]["total"] == d["results"]["network"]["flit_hops"]')" True

# Names and paths are any bytes: a job name, a trace path and the
# workload's own path that are not UTF-8 are in the JSON with U+FFFD
# (docs/layout.md), where the keys went missing, the table printed
# "(null)" and --plot crashed (exit 139, a staged SVG left).
cp "$dir/a.nlt" "$dir/a"$'\xfe'".nlt"
printf '[job A\xff\xfe]\ntrace = a\xfe.nlt\n[job ring]\nsynthetic = ring\nranks = 2\nsteps = 2\n' > "$dir/nu"$'\xff'".ini"
"$netloom" interfere "$dir/nu"$'\xff'".ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/nu.json" --plot "$dir/nu.svg" > "$dir/nu.txt" ||
  fail "non-UTF-8 names: exit $?"
expect_eq "non-UTF-8 names in the JSON" \
  "$(json "$dir/nu.json" 'ascii(([j["name"] for j in d["results"]["jobs"]], d["results"]["jobs"][0]["trace"].endswith("a\ufffd.nlt"), d["workload"].endswith("nu\ufffd.ini")))')" \
  "(['A\ufffd\ufffd', 'ring'], True, True)"
! grep -q "(null)" "$dir/nu.txt" || fail "non-UTF-8 names: the table prints (null)"
[ -s "$dir/nu.svg" ] && ! compgen -G "$dir/nu.svg.tmp*" > /dev/null || fail "non-UTF-8 names: no chart, or a staged one left"

# The inner mappings docs/placement.md names are the ones key
# placement_inner takes (it said `round-robin`, refused).
inner=$(sed -n '/^2\. Ranks go onto the nodes/,/^$/p' "$(dirname "$0")/../../docs/placement.md" | grep -o '`[a-z_-]*`' |
  tr -d '`' | grep -v placement_inner)
expect_eq "inner mappings in docs/placement.md" "$(echo $inner)" "linear round_robin"
# Accepted is not enough: each must place the ranks as it says. 4 ranks, 2
# per node on routers 0 and 1 (neighbours): linear fills a node first,
# round_robin deals the ranks out. The ring's 2 steps of 64 KiB from r to
# r + 1 then cross the one link between them 2 times a step (1 -> 2,
# 3 -> 0) under linear, 4 times (every message) under round_robin.
declare -A inner_want=([linear]="([0, 0, 1, 1], 262144)" [round_robin]="([0, 1, 0, 1], 524288)")
for m in $inner; do
  printf '[job S]\nsynthetic = ring\nranks = 4\nsteps = 2\nranks_per_node = 2\nplacement_inner = %s\n' "$m" > "$dir/inner.ini"
  "$netloom" interfere "$dir/inner.ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/inner.json" > /dev/null 2>&1 ||
    { fail "placement_inner = $m (docs/placement.md) refused"; continue; }
  expect_eq "placement_inner = $m: endpoints, link_use" \
    "$(json "$dir/inner.json" '(lambda j: (j["endpoints"], j["link_use"]))(d["results"]["jobs"][0])')" "${inner_want[$m]}"
  # The job's entry says which (it listed placement_seed and
  # ranks_per_node alone: the two runs read alike but for the endpoints).
  expect_eq "placement_inner = $m: in the job's entry" \
    "$(json "$dir/inner.json" 'd["results"]["jobs"][0].get("placement_inner")')" "$m"
done

# A job's placement_seed under a policy that draws nothing, and its
# placement_inner with one rank per node, moved no rank, silently: each is
# warned of at its line, as replay's -s keys are (docs/placement.md); not
# under random-node, nor with 2 ranks per node; exit 0 and the endpoints
# those of the same jobs without the keys.
unread() { # NAME A'S-SEED B'S-INNER E'S-SEED E'S-INNER
  printf '%s\n' "[job A]" "trace = a.nlt" "$2" \
    "[job B]" "synthetic = ring" "ranks = 2" "steps = 2" "$3" \
    "[job C]" "synthetic = ring" "ranks = 2" "steps = 2" "placement = random-node" "placement_seed = 3" \
    "[job D]" "synthetic = ring" "ranks = 4" "steps = 2" "ranks_per_node = 2" "placement = contiguous" \
    "placement_inner = round_robin" \
    "[job E]" "synthetic = ring" "ranks = 2" "steps = 2" "placement = packed" "$4" "ranks_per_node = 1" "$5" \
    > "$dir/$1.ini"
}
unread unread "placement_seed = 7" "placement_inner = round_robin" "placement_seed = 5" "placement_inner = linear"
unread unread0 "" "" "" ""
"$netloom" interfere "$dir/unread0.ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/unread0.json" \
  > /dev/null 2> "$dir/unread0.err" || fail "unread0: exit $?"
"$netloom" interfere "$dir/unread.ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/unread.json" \
  > /dev/null 2> "$dir/unread.err" || fail "unread job keys: exit $?"
why_seed="draws nothing; random-node and random-router do); it has no effect"
why_inner="one rank per node, in either order); it has no effect"
expect_eq "unread job keys warned" "$(cat "$dir/unread.err")" \
  "netloom interfere: warning: $dir/unread.ini:3: [job A] key 'placement_seed': value '7' is not read by interfere (placement = contiguous (unset) $why_seed
netloom interfere: warning: $dir/unread.ini:8: [job B] key 'placement_inner': value 'round_robin' is not read by interfere (ranks_per_node = 1 (unset): $why_inner
netloom interfere: warning: $dir/unread.ini:27: [job E] key 'placement_seed': value '5' is not read by interfere (placement = packed $why_seed
netloom interfere: warning: $dir/unread.ini:29: [job E] key 'placement_inner': value 'linear' is not read by interfere (ranks_per_node = 1: $why_inner"
# Under placement = map the map file gives each rank its endpoint: its
# ranks_per_node and placement_inner are not read either ('ranks_per_node
# = 2' under map ran silently).
printf '%s\n' "[job M]" "synthetic = ring" "ranks = 2" "steps = 2" "placement = map" "placement_map = m.map" \
  "ranks_per_node = 2" "placement_inner = round_robin" > "$dir/unreadmap.ini"
printf '0 3\n1 2\n' > "$dir/m.map"
"$netloom" interfere "$dir/unreadmap.ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/unreadmap.json" > /dev/null \
  2> "$dir/unreadmap.err" || fail "unread placement_inner under map: exit $?"
expect_eq "unread ranks_per_node and placement_inner under map" "$(cat "$dir/unreadmap.err")" \
  "netloom interfere: warning: $dir/unreadmap.ini:7: [job M] key 'ranks_per_node': value '2' is not read by interfere (placement = map gives each rank its endpoint from the map file); it has no effect
netloom interfere: warning: $dir/unreadmap.ini:8: [job M] key 'placement_inner': value 'round_robin' is not read by interfere (placement = map gives each rank its endpoint from the map file); it has no effect"
expect_eq "unread ranks_per_node under map: the map's endpoints" \
  "$(json "$dir/unreadmap.json" 'd["results"]["jobs"][0]["endpoints"]')" "[3, 2]"
# A job placed by a map: its JSON names the file, not the seed and
# ranks_per_node it listed before (1 and 2 here, neither read).
expect_eq "map job: what placed it in the JSON" \
  "$(json "$dir/unreadmap.json" '(lambda j: (j["placement"], j.get("placement_map"), "placement_seed" in j, "ranks_per_node" in j or "placement_inner" in j))(d["results"]["jobs"][0])')" \
  "('map', '$dir/m.map', False, False)"
# [workload] seed is the placement_seed of each job that sets none: with
# no job placed by a policy that draws, or each such job setting its own,
# 'seed = 7' moved no rank, silently. Warned of at its line; not when a
# random-node job without a placement_seed reads it; the endpoints those
# of the same jobs without it.
wlseed() { # NAME [WORKLOAD] SEED-LINE, then each job's placement lines
  local name=$1 seed=$2 i=0
  shift 2
  { [ -n "$seed" ] && printf '%s\n' "[workload]" "$seed"
    for p in "$@"; do
      i=$((i + 1))
      printf '%s\n' "[job J$i]" "synthetic = ring" "ranks = 2" "steps = 2"
      [ -n "$p" ] && printf '%s\n' "$p"
    done; } > "$dir/$name.ini"
}
rn="placement = random-node"
wlseed seedcontig "seed = 7" "" "placement = packed"
wlseed seedcontig0 "" "" "placement = packed"
wlseed seedown "seed = 7" "" $'placement = random-node\nplacement_seed = 3'
wlseed seedown0 "" "" $'placement = random-node\nplacement_seed = 3'
wlseed seedread "seed = 7" "" "$rn"
for w in seedcontig seedcontig0 seedown seedown0 seedread; do
  "$netloom" interfere "$dir/$w.ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/$w.json" > /dev/null 2> "$dir/$w.err" ||
    fail "$w: exit $?"
done
expect_eq "[workload] seed, no job draws: warned" "$(cat "$dir/seedcontig.err")" \
  "netloom interfere: warning: $dir/seedcontig.ini:2: [workload] key 'seed': value '7' is not read by interfere (no job's placement draws from it; random-node and random-router do); it has no effect"
expect_eq "[workload] seed, each drawing job sets its own: warned" "$(cat "$dir/seedown.err")" \
  "netloom interfere: warning: $dir/seedown.ini:2: [workload] key 'seed': value '7' is not read by interfere (each job whose placement draws sets its own placement_seed); it has no effect"
expect_eq "[workload] seed read by a random-node job: not warned" "$(cat "$dir/seedread.err")" ""
for w in seedcontig seedown; do
  expect_eq "$w: the endpoints without the seed" "$(json "$dir/$w.json" '[j["endpoints"] for j in d["results"]["jobs"]]')" \
    "$(json "$dir/${w}0.json" '[j["endpoints"] for j in d["results"]["jobs"]]')"
done
expect_eq "[workload] seed read: the job's placement_seed" "$(json "$dir/seedread.json" 'd["results"]["jobs"][1]["placement_seed"]')" 7
expect_eq "unread job keys: nothing else on stderr without them" "$(cat "$dir/unread0.err")" ""
expect_eq "unread job keys: same endpoints and link use" \
  "$(json "$dir/unread.json" '[(j["endpoints"], j["link_use"]) for j in d["results"]["jobs"]]')" \
  "$(json "$dir/unread0.json" '[(j["endpoints"], j["link_use"]) for j in d["results"]["jobs"]]')"

# 9. Bad workloads: one line naming file, line, section, key, value and
# what was expected; exit 2 (bad input); no JSON written.
bad() { # NAME CONTENT EXPECTED-MESSAGE
  printf '%s\n' "$2" > "$dir/$1.ini"
  local out rc
  out=$("$netloom" interfere "$dir/$1.ini" -c "$dir/sys.ini" --json "$dir/$1.json" 2>&1 >/dev/null); rc=$?
  expect_eq "bad $1" "$rc:$out" "2:netloom interfere: $3"
  [ ! -e "$dir/$1.json" ] || fail "bad $1: JSON written"
}
bad rpn $'[job A]\ntrace = a.nlt\nranks_per_node = two' \
  "$dir/rpn.ini:3: [job A] key 'ranks_per_node': value 'two': expected an integer 1..1048576"
bad rpn_big $'[job A]\ntrace = a.nlt\nranks_per_node = 1048577' \
  "$dir/rpn_big.ini:3: [job A] key 'ranks_per_node': value '1048577': expected an integer 1..1048576"
# The range is replay's key's: a job's 65537 was refused (1..65536) where
# '-s ranks_per_node=65537' replayed.
printf '[job S]\nsynthetic = ring\nranks = 4\nsteps = 2\nplacement = contiguous\nranks_per_node = 65537\n' > "$dir/rpnwide.ini"
"$netloom" interfere "$dir/rpnwide.ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/rpnwide.json" > /dev/null 2> "$dir/rpnwide.err" ||
  fail "ranks_per_node = 65537 refused: $(cat "$dir/rpnwide.err")"
expect_eq "ranks_per_node = 65537: every rank on endpoint 0" \
  "$(json "$dir/rpnwide.json" 'd["results"]["jobs"][0]["endpoints"]')" "[0, 0, 0, 0]"
bad policy $'[job A]\ntrace = a.nlt\nplacement = nearest' \
  "$dir/policy.ini:3: [job A] key 'placement': value 'nearest': expected one of contiguous, random-node, random-router, round-robin, packed, spread, map"
bad key $'[job A]\ntrace = a.nlt\nstart = 1' \
  "$dir/key.ini:3: [job A] key 'start': value '1': expected a job key: trace, placement, placement_seed, ranks_per_node, placement_inner, placement_map, start_s, repeat; or for a synthetic job synthetic, ranks, bytes, interval_s, steps (did you mean 'start_s'?)"
bad start $'[job A]\ntrace = a.nlt\nstart_s = -1' \
  "$dir/start.ini:3: [job A] key 'start_s': value '-1': expected seconds, 0..1e6"
# Seconds are decimal, as a command's numbers are: strtod read C99's
# hexadecimal floats, so 0x1p-3 started the job at 0.125 s.
bad start_hex $'[job A]\ntrace = a.nlt\nstart_s = 0x1p-3' \
  "$dir/start_hex.ini:3: [job A] key 'start_s': value '0x1p-3': expected seconds, 0..1e6"
bad interval_hex $'[job A]\nsynthetic = ring\nranks = 4\ninterval_s = 0X1P-20' \
  "$dir/interval_hex.ini:4: [job A] key 'interval_s': value '0X1P-20': expected seconds, 0..1e3 (compute before each exchange)"
# Seeds as a replay's placement_seed, 0..2^53 (2^64 - 1 was written as -1).
bad seed $'[job A]\ntrace = a.nlt\nplacement_seed = 18446744073709551615' \
  "$dir/seed.ini:3: [job A] key 'placement_seed': value '18446744073709551615' out of range: expected a value in 0..9007199254740992"
# A typo of a section's kind names the header meant.
bad section $'[jobs A]\ntrace = a.nlt' "$dir/section.ini:1: section [jobs A]: expected [workload] or [job NAME] (did you mean [job A]?)"
bad sectiontypo $'[workload]\n[jb A]\ntrace = a.nlt' "$dir/sectiontypo.ini:2: section [jb A]: expected [workload] or [job NAME] (did you mean [job A]?)"
# A key before any header was dropped silently.
bad nosection $'trace = a.nlt\n[job A]\ntrace = a.nlt' \
  "$dir/nosection.ini:1: key 'trace' before any section; expected it under [workload] or [job NAME]"
# A name without the blanks around it: '[job  A ]' was a job ' A ' beside 'A'.
bad blanks $'[job  A ]\ntrace = a.nlt\n[job A]\ntrace = a.nlt' \
  "$dir/blanks.ini:3: section [job A]: job 'A' given twice; expected one section per job"
# A header without its ']' was "section []".
bad unclosed $'[job A\ntrace = a.nlt' "$dir/unclosed.ini:1: '[job A': expected ']' at the end of a section header"
bad emptyheader $'[]\ntrace = a.nlt\n[job A]\ntrace = a.nlt' "$dir/emptyheader.ini:1: section []: expected [workload] or [job NAME]"
# Sections without keys are sections (inih reports a section only with a
# key): an empty job is refused for its trace, not run as "1 jobs"; an
# empty job named twice, or an empty unknown section, as such.
bad emptyjob $'[job A]\ntrace = a.nlt\n[job B]' "$dir/emptyjob.ini:3: [job B] key 'trace': missing; expected a trace file (or key 'synthetic')"
bad emptydup $'[job A]\n[job A]\ntrace = a.nlt' "$dir/emptydup.ini:2: section [job A]: job 'A' given twice; expected one section per job"
bad emptysection $'[workload]\n[job A]\ntrace = a.nlt\n[bogus]' "$dir/emptysection.ini:4: section [bogus]: expected [workload] or [job NAME]"
bad notrace $'[job A]\nplacement = contiguous' "$dir/notrace.ini:2: [job A] key 'trace': missing; expected a trace file (or key 'synthetic')"
bad empty '# nothing' "$dir/empty.ini: no [job NAME] section; expected at least one job"
bad nomap $'[job A]\ntrace = a.nlt\nplacement = map' \
  "$dir/nomap.ini:2: [job A] key 'placement_map': missing; expected a map file for placement = map"
# A map under another policy was read and ignored (the job placed
# contiguous, exit 0, the map file never opened): refused at its line,
# in replay's words (cli_check_placement_map), its value quoted as the
# path it resolves to beside the workload file, as a map's own errors are.
bad mapnotmap $'[job A]\ntrace = a.nlt\nplacement_map = even.map' \
  "$dir/mapnotmap.ini:3: [job A] key 'placement_map': value '$dir/even.map': only placement = map reads it, and the placement in force is contiguous (unset); expected placement = map with it, or placement_map unset"
bad mapspread $'[job A]\ntrace = a.nlt\nplacement_map = even.map\nplacement = spread' \
  "$dir/mapspread.ini:3: [job A] key 'placement_map': value '$dir/even.map': only placement = map reads it, and the placement in force is spread; expected placement = map with it, or placement_map unset"
bad dup $'[job A]\ntrace = a.nlt\n[job B]\ntrace = a.nlt\n[job A]\nrepeat = 2' \
  "$dir/dup.ini:5: section [job A]: job 'A' given twice; expected one section per job"
# The same job's header twice in a row (inih passes keys, not headers).
bad dupnext $'[job A]\ntrace = a.nlt\n\n[job A]\nrepeat = 2' \
  "$dir/dupnext.ini:4: section [job A]: job 'A' given twice; expected one section per job"
# A key twice in one section: the last one won silently.
bad dupkey $'[job A]\ntrace = a.nlt\nplacement = contiguous\nplacement = spread' \
  "$dir/dupkey.ini:4: [job A] key 'placement' given twice (first at line 3); expected each key once"
# Indented lines continue a value (as in configuration files), not a key
# given twice; an indented 'name = value' is a mis-indented key.
bad cont $'[job A]\ntrace = a.nlt\nplacement = near\n  est' \
  "$dir/cont.ini:3: [job A] key 'placement': value 'nearest': expected one of contiguous, random-node, random-router, round-robin, packed, spread, map"
# ... and drop a ' ; comment' as a key's first line does (the value was
# 'nearest ; the policy').
bad contcomment $'[job A]\ntrace = a.nlt\nplacement = near\n  est ; the policy' \
  "$dir/contcomment.ini:3: [job A] key 'placement': value 'nearest': expected one of contiguous, random-node, random-router, round-robin, packed, spread, map"
bad misindent $'[job A]\ntrace = a.nlt\nplacement = spread\n  repeat = 2' \
  "$dir/misindent.ini:4: [job A] indented line 'repeat = 2' reads as 'name = value' after key 'placement'; expected keys unindented (an indented line continues the key before it)"
# A line past libinih's 198 characters (218 and a comment) is read whole,
# as in configuration files (its pieces were read as lines of their own:
# "longline.ini:3: expected 'key = value' ..."), and the lines after it
# keep their numbers.
long=$(printf './%.0s' $(seq 100))
bad longline "[job A]"$'\n'"trace = ${long}nosuch.nlt   ; a long line"$'\n[job B]\ntrace = a.nlt' \
  "$dir/longline.ini:2: [job A] key 'trace': $dir/${long}nosuch.nlt: cannot open: No such file or directory"
bad longnext "[job A]"$'\n'"trace = ${long}a.nlt"$'\n[job B]\ntrace = a.nlt\nplacement = nearest' \
  "$dir/longnext.ini:5: [job B] key 'placement': value 'nearest': expected one of contiguous, random-node, random-router, round-robin, packed, spread, map"
# One with blanks at every cut cannot be handed over in pieces: refused
# at its line with the reason configuration files give.
bad uncut "[job A]"$'\n'"trace = a.nlt$(printf '%300s' '')x" \
  "$dir/uncut.ini:2: line of 314 characters cannot be split into libinih's 198-character lines (a run of blanks or a comment character at every cut); shorten it, continue it on indented lines, or use 'topology = @file'"
# Problems found once the file is read name the key at fault at its line:
# a map file's are placement_map's (they were named 'placement', with no
# line), a policy's at its line with its value (as replay's, where it
# said no value) or, when unset, at the job's first key.
bad overlap $'[job A]\ntrace = a.nlt\n[job B]\ntrace = a.nlt\nplacement = map\nplacement_map = even.map' \
  "$dir/overlap.ini:6: [job B] key 'placement_map': $dir/even.map: rank 0: endpoint 0 is taken by another job"
printf '0 0\n1 1\n' > "$dir/short.map"
bad shortmap $'[job A]\nplacement_map = short.map\nplacement = map\ntrace = a.nlt' \
  "$dir/shortmap.ini:2: [job A] key 'placement_map': $dir/short.map: rank 2: not mapped (the file maps 2 of 8 ranks)"
# A NUL byte in a map line was reported as a line over 510 characters.
printf '0 0\n1 2\0 junk\n' > "$dir/nul.map"
bad nulmap $'[job A]\ntrace = a.nlt\nplacement = map\nplacement_map = nul.map' \
  "$dir/nulmap.ini:4: [job A] key 'placement_map': $dir/nul.map:2: unexpected NUL byte; expected a text file"
bad missing $'[job A]\nrepeat = 2\ntrace = nope.nlt' \
  "$dir/missing.ini:3: [job A] key 'trace': $dir/nope.nlt: cannot open: No such file or directory"
bad full $'[job A]\ntrace = bh.nlt\n[job B]\ntrace = bh.nlt\n[job C]\ntrace = bh.nlt' \
  "$dir/full.ini:6: [job C] key 'placement' (unset: contiguous): the job needs 8 endpoints (8 ranks, 1 per node), only 0 of 16 free"
bad fullset $'[job A]\ntrace = bh.nlt\n[job B]\ntrace = bh.nlt\n[job C]\ntrace = bh.nlt\nplacement = spread' \
  "$dir/fullset.ini:7: [job C] key 'placement': value 'spread': the job needs 8 endpoints (8 ranks, 1 per node), only 0 of 16 free"
bad both $'[job A]\ntrace = a.nlt\nsynthetic = ring\nranks = 4' \
  "$dir/both.ini:2: [job A] keys 'trace' and 'synthetic': expected one of them, not both"
bad noranks $'[job S]\nsynthetic = ring' "$dir/noranks.ini:2: [job S] key 'ranks': missing; expected the synthetic job's ranks"
bad pattern $'[job S]\nsynthetic = uniform\nranks = 4' \
  "$dir/pattern.ini:2: [job S] key 'synthetic': value 'uniform': expected a synthetic pattern: alltoall, shift or ring"
# At the key, named with its value (it was the section's first line).
bad stray $'[job A]\ntrace = a.nlt\nplacement = packed\nsteps = 4' \
  "$dir/stray.ini:4: [job A] key 'steps': value '4': ranks, bytes, interval_s and steps describe a synthetic job; expected key 'synthetic' with them"
# A job's placement keys set for the system (-s, a -c file) placed no
# job, yet the JSON's config echoed them: refused, naming the key and where.
out=$("$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" -s placement_seed=5 --json "$dir/jobkey.json" 2>&1 >/dev/null); rc=$?
expect_eq "placement_seed on -s" "$rc:$out" \
  "2:netloom interfere: -s: key 'placement_seed': a job's key, not the system's; expected it in the workload file $dir/halves.ini ([job NAME] placement_seed, or [workload] seed for every job, docs/placement.md)"
[ ! -e "$dir/jobkey.json" ] || fail "placement_seed on -s: JSON written"
printf '[replay]\nplacement = random-node\n' | cat "$dir/sys.ini" - > "$dir/sysplace.ini"
out=$("$netloom" interfere "$dir/halves.ini" -c "$dir/sysplace.ini" 2>&1 >/dev/null); rc=$?
expect_eq "placement in the system file" "$rc:$out" \
  "2:netloom interfere: $dir/sysplace.ini:7: key 'placement': a job's key, not the system's; expected it in the workload file $dir/halves.ini ([job NAME] placement, docs/placement.md)"
out=$("$netloom" interfere "$dir/halves.ini" 2>&1 >/dev/null); rc=$?
expect_eq "no topology" "$rc:$out" \
  "2:netloom interfere: key 'topology': not set; expected the machine the jobs share (interference needs a network)"
# A mistyped WORKLOAD is named before the system's keys are looked at
# (it was reported as the missing topology).
out=$("$netloom" interfere "$dir/nosuch.ini" 2>&1 >/dev/null); rc=$?
expect_eq "missing workload file" "$rc:$out" \
  "2:netloom interfere: $dir/nosuch.ini: cannot open workload file: No such file or directory"
out=$("$netloom" interfere -c "$dir/sys.ini" 2>&1 >/dev/null); rc=$?
expect_eq "no workload" "$rc:$out" "2:netloom interfere: missing WORKLOAD (see 'netloom interfere --help')"
# A second file (the system's, without -c) said only "unexpected
# argument 'X' after WORKLOAD", not what the line takes.
out=$("$netloom" interfere "$dir/halves.ini" "$dir/sys.ini" 2>&1 >/dev/null); rc=$?
expect_eq "two workloads" "$rc:$out" \
  "2:netloom interfere: unexpected argument '$dir/sys.ini' after WORKLOAD; expected one workload file (a system configuration goes after -c)"

# 10. The chart: an SVG from gnuplot, or, without gnuplot, a clear message
# after the table and JSON, and exit status 3 (outputs written, the chart
# missing), not 2 (bad input, nothing written).
if command -v gnuplot > /dev/null; then
  run heavy --plot "$dir/heavy.svg"
  grep -q "<svg" "$dir/heavy.svg" && [ "$(tr -d '\n' < "$dir/heavy.svg" | tail -c 6)" = "</svg>" ] || fail "plot: no whole SVG"
  ! compgen -G "$dir/heavy.svg.tmp*" > /dev/null || fail "plot: temporary left"
  # Job names drawn as written: gnuplot's enhanced text made lammps_lj a
  # subscript, bully^2 a superscript, read {} and @ as markup, and the
  # names lost '"' and '\'. Each is one <text> element, XML-escaped.
  : > "$dir/names.ini"
  names=('lammps_lj' 'bully^2' 'a"b\c' '{x}@y &<z' "it's")
  for n in "${names[@]}"; do printf '[job %s]\nsynthetic = ring\nranks = 2\nsteps = 2\n' "$n" >> "$dir/names.ini"; done
  "$netloom" interfere "$dir/names.ini" -c "$dir/sys.ini" "${an[@]}" --plot "$dir/names.svg" > /dev/null || fail "names: plot"
  # A name with no image extension is the same SVG (only .png, .pdf, ... are refused).
  "$netloom" interfere "$dir/names.ini" -c "$dir/sys.ini" "${an[@]}" --plot "$dir/names.chart" > /dev/null &&
    cmp -s "$dir/names.svg" "$dir/names.chart" || fail "--plot names.chart: not the chart --plot names.svg draws"
  for n in "${names[@]}"; do
    x=$(printf '%s' "$n" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')
    grep -qF "<text>$x</text>" "$dir/names.svg" || fail "names: '$n' not drawn as written ($x)"
  done
  # --plot - is the SVG on stdout, as layout --svg - (no table; no file
  # named '-'); it was written to a file named '-'.
  nl_abs=$(realpath "$netloom")
  (cd "$dir" && "$nl_abs" interfere names.ini -c sys.ini "${an[@]}" --plot - > "$dir/stdout.svg"); rc=$?
  expect_eq "--plot -: exit" $rc 0
  expect_eq "--plot -: the SVG on stdout" "$(head -c 5 "$dir/stdout.svg"):$(tr -d '\n' < "$dir/stdout.svg" | tail -c 6)" \
    "<?xml:</svg>"
  cmp -s "$dir/stdout.svg" "$dir/names.svg" || fail "--plot -: not the chart --plot FILE draws"
  [ ! -e "$dir/-" ] || fail "--plot -: a file named '-' written"
  (cd "$dir" && "$nl_abs" interfere names.ini -c sys.ini "${an[@]}" --plot - --json "$dir/names.json" > "$dir/stdout2.svg") &&
    cmp -s "$dir/stdout.svg" "$dir/stdout2.svg" && [ -s "$dir/names.json" ] || fail "--plot - with --json FILE"
fi
# Both on standard output: refused before the replays.
out=$("$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" --plot - --json - 2>&1 >"$dir/early.out"); rc=$?
expect_eq "--plot - --json -" "$rc:$out:$(wc -c <"$dir/early.out")" \
  "2:netloom interfere: --plot - and --json -: both on standard output; expected a file for one of them:0"
# --plot - is staged in TMPDIR: one that cannot take it was found after the
# replays (exit 3, the chart alone missing); now before them, exit 2,
# nothing on stdout, as layout --svg - does.
out=$(TMPDIR="$dir/no-tmp" "$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" "${an[@]}" --plot - 2>&1 >"$dir/early.out"); rc=$?
expect_eq "--plot - with TMPDIR missing" "$rc:$out:$(wc -c <"$dir/early.out")" \
  "2:netloom interfere: --plot: $dir/no-tmp/netloom-out: $dir/no-tmp: no such directory; expected an existing folder to write to; TMPDIR names that folder:0"
# The chart is SVG: a name of another image format got SVG text, exit 0.
# Refused before the replays, nothing written (--json neither).
for ext in png pdf JPG jpeg eps ps gif; do
  out=$("$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" "${an[@]}" --plot "$dir/chart.$ext" \
        --json "$dir/chart.json" 2>&1 >"$dir/early.out"); rc=$?
  expect_eq "--plot chart.$ext" "$rc:$out:$(wc -c <"$dir/early.out")" \
    "2:netloom interfere: --plot '$dir/chart.$ext': a .$ext name, but the plot is SVG; expected a .svg name (or one with no image extension):0"
  [ ! -e "$dir/chart.$ext" ] && [ ! -e "$dir/chart.json" ] || fail "--plot chart.$ext: a file written"
done
# gnuplot exits 0 after a failed write (a full disk), its SVG cut at a
# buffer's end or empty: exit 3, one line, the old chart kept and nothing
# staged left (the cut file replaced the chart, exit 0, no message).
mkdir -p "$dir/cutgp" "$dir/slowgp"
cat > "$dir/cutgp/gnuplot" <<'EOF'
#!/bin/sh
out=$(sed -n "s/^set output '\(.*\)'\$/\1/p")
cut='<?xml version="1.0" encoding="utf-8"?>\n<svg width="800" height="480">\n<path d="M10,20 L'
if [ -n "$out" ]; then printf "$cut" > "$out"; else printf "$cut"; fi
EOF
chmod +x "$dir/cutgp/gnuplot"
printf '<svg>old</svg>\n' > "$dir/cut.svg"
out=$(PATH="$dir/cutgp:$PATH" "$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" "${an[@]}" --plot "$dir/cut.svg" 2>&1 >/dev/null); rc=$?
expect_eq "cut SVG from gnuplot" "$rc:$out" \
  "3:netloom interfere: --plot: $dir/cut.svg: the SVG could not be written: gnuplot's output is cut (87 bytes, no closing </svg>; a full disk?)"
expect_eq "cut SVG: the old chart kept" "$(cat "$dir/cut.svg")" "<svg>old</svg>"
expect_eq "cut SVG: nothing staged left" "$(compgen -G "$dir/cut.svg.*" | wc -l)" 0

# A --json that cannot be written after the replays (status 1) left the
# chart undrawn without a word: drawn all the same, the JSON's line alone.
if [ -w /dev/full ] && command -v gnuplot > /dev/null; then
  printf '<svg>old</svg>\n' > "$dir/full.svg"
  out=$("$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" "${an[@]}" --json /dev/full --plot "$dir/full.svg" 2>&1 >/dev/null); rc=$?
  expect_eq "--json /dev/full with --plot" "$rc:$out" "1:netloom interfere: --json: /dev/full: write failed: No space left on device"
  expect_eq "--json /dev/full: the chart drawn" "$(grep -c '</svg>' "$dir/full.svg")" 1
  [ "$(head -c 5 "$dir/full.svg")" = "<?xml" ] || fail "--json /dev/full: the old chart left"
fi

# SIGTERM while gnuplot draws removes the staged chart and ends the
# command by the signal (exit 143; OUT.svg.tmpXXXXXX stayed). The fake
# gnuplot reads the script, says it is drawing, and waits for the test's
# go: the signal comes while the chart is staged, at any machine speed.
cat > "$dir/slowgp/gnuplot" <<'EOF'
#!/bin/sh
cat > /dev/null
touch "$GP_READY"
i=0
while [ ! -e "$GP_GO" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
exit 1
EOF
chmod +x "$dir/slowgp/gnuplot"
for nsig in 1 2; do # 2: as 'timeout -s', a second signal at once
  rm -f "$dir/gp.ready" "$dir/gp.go"
  PATH="$dir/slowgp:$PATH" GP_READY="$dir/gp.ready" GP_GO="$dir/gp.go" \
    "$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" "${an[@]}" --plot "$dir/sig.svg" > /dev/null 2>&1 &
  pid=$!
  for i in $(seq 600); do [ -e "$dir/gp.ready" ] && break; sleep 0.05; done
  staged=$(compgen -G "$dir/sig.svg.tmp*" | wc -l)
  for k in $(seq $nsig); do kill -TERM $pid; done
  touch "$dir/gp.go"
  wait $pid; rc=$?
  expect_eq "plot interrupted by $nsig SIGTERM: staged, exit, files left" \
    "$staged:$rc:$(compgen -G "$dir/sig.svg*" | wc -l)" "1:143:0"
done
# SIGTERM or SIGINT to netloom alone (its PID, not the process group)
# while gnuplot draws: netloom waited for gnuplot to finish (waitpid
# restarted after the handler recorded the signal), here 120 s. The signal
# is passed on to gnuplot, which is reaped, and netloom ends by it with
# nothing staged left; the JSON, written before the chart, is whole. The
# fake gnuplot reads the script, notes its PID (the one netloom started:
# sh -c 'exec gnuplot', then exec sleep) and sleeps.
mkdir -p "$dir/sleepgp"
cat > "$dir/sleepgp/gnuplot" <<'EOF'
#!/bin/sh
cat > /dev/null
echo $$ > "$GP_PID.tmp" && mv "$GP_PID.tmp" "$GP_PID"
exec sleep 120
EOF
chmod +x "$dir/sleepgp/gnuplot"
for s in TERM:143 INT:130; do
  rm -f "$dir/gp.pid" "$dir/alone.json"
  # env: a script's background job starts with SIGINT ignored, which
  # netloom would keep ignored (out_signals_catch).
  PATH="$dir/sleepgp:$PATH" GP_PID="$dir/gp.pid" env --default-signal=INT \
    "$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/alone.json" \
    --plot "$dir/alone.svg" > /dev/null 2>&1 &
  pid=$!
  for i in $(seq 1200); do [ -s "$dir/gp.pid" ] && break; sleep 0.05; done
  gpid=$(cat "$dir/gp.pid" 2>/dev/null)
  staged=$(compgen -G "$dir/alone.svg.tmp*" | wc -l)
  kill -"${s%:*}" $pid
  # 20 s on a loaded machine (before: the whole 120 s; then the test ends
  # the fake gnuplot itself).
  for i in $(seq 200); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  ended=yes
  if kill -0 $pid 2>/dev/null; then
    ended=no
    [ -z "$gpid" ] || kill -KILL "$gpid"
  fi
  wait $pid; rc=$?
  gp_gone=yes
  if [ -n "$gpid" ] && kill -0 "$gpid" 2>/dev/null; then
    gp_gone=no
    kill -KILL "$gpid"
  fi
  expect_eq "SIG${s%:*} to netloom alone while gnuplot draws: staged, ended, status, gnuplot gone, files left" \
    "$staged:$ended:$rc:$gp_gone:$(compgen -G "$dir/alone.svg*" | wc -l):$(compgen -G "$dir/alone.json?*" | wc -l)" \
    "1:yes:${s#*:}:yes:0:0"
  json "$dir/alone.json" 'len(d["results"]["jobs"])' > /dev/null 2>&1 || fail "SIG${s%:*} while gnuplot draws: JSON not whole"
done
# gnuplot starts as netloom did: popen passed on SIGXFSZ ignored (main
# ignores it for its own writes) and the soft limit on open files main
# raises to the hard one. The fake gnuplot says what it got (SigIgn's
# bits 24 and 12: SIGXFSZ, SIGPIPE), under a soft limit of 256.
mkdir -p "$dir/envgp"
cat > "$dir/envgp/gnuplot" <<'EOF'
#!/bin/sh
cat > /dev/null
ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status)
echo "xfsz_ignored=$((0x$ign >> 24 & 1)) pipe_ignored=$((0x$ign >> 12 & 1)) nofile=$(ulimit -Sn)" > "$GP_REPORT"
printf '<svg xmlns="http://www.w3.org/2000/svg"></svg>\n'
EOF
chmod +x "$dir/envgp/gnuplot"
if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -gt 256 ]; then
  rm -f "$dir/gp.env"
  (ulimit -Sn 256 && PATH="$dir/envgp:$PATH" GP_REPORT="$dir/gp.env" exec env --default-signal=XFSZ,PIPE \
    "$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" "${an[@]}" --plot "$dir/env.svg" > /dev/null); rc=$?
  expect_eq "gnuplot's signals and open-file limit: netloom's at start" "$rc:$(cat "$dir/gp.env" 2>&1)" \
    "0:xfsz_ignored=0 pipe_ignored=0 nofile=256"
fi
# So the real gnuplot past a file size limit is ended by SIGXFSZ, as when
# run alone (it wrote on, failing, and exited 0 with its SVG cut).
if command -v gnuplot > /dev/null; then
  printf '<svg>old</svg>\n' > "$dir/fsz.svg"
  out=$( (ulimit -f 4 && exec env --default-signal=XFSZ "$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" \
    "${an[@]}" --plot "$dir/fsz.svg" 2>&1 >/dev/null) ); rc=$?
  expect_eq "gnuplot past a file size limit" "$rc:$out:$(cat "$dir/fsz.svg"):$(compgen -G "$dir/fsz.svg.*" | wc -l)" \
    "3:netloom interfere: --plot $dir/fsz.svg: gnuplot failed (ended by signal 25, File size limit exceeded):<svg>old</svg>:0"
fi
rm -f "$dir/np.json"
out=$(PATH=/nonexistent "$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" --json "$dir/np.json" --plot "$dir/np.svg" 2>&1 >/dev/null); rc=$?
expect_eq "plot without gnuplot" "$rc:$out" \
  "3:netloom interfere: --plot $dir/np.svg: gnuplot not found; expected gnuplot on PATH (Debian: apt-get install gnuplot-nox); the table and JSON were written"
[ -s "$dir/np.json" ] || fail "plot without gnuplot: JSON missing"
# The line says what was written (it said 'the table and JSON' whatever
# was): the table alone without --json, the JSON alone on stdout or beside
# --plot -, nothing with --plot - alone. stdout: the table ('netloom
# interfere: ...'), the JSON ('{') or nothing.
nogp="gnuplot not found; expected gnuplot on PATH (Debian: apt-get install gnuplot-nox)"
for c in "np.svg||the table was written|netloom" "np.svg|-|the JSON was written|{" \
         "-|$dir/np2.json|the JSON was written|" "-||nothing was written|"; do
  IFS='|' read -r plot json said head <<< "$c"
  [ "$plot" = - ] || plot=$dir/$plot
  rm -f "$dir/np2.json" "$dir/np.svg"
  out=$(PATH=/nonexistent "$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" "${an[@]}" --plot "$plot" \
    ${json:+--json "$json"} 2>&1 >"$dir/np.out"); rc=$?
  expect_eq "plot without gnuplot, --plot $plot ${json:+--json $json}: status, line, stdout" \
    "$rc:$out:$(head -c ${#head} "$dir/np.out")" "3:netloom interfere: --plot $plot: $nogp; $said:$head"
  [ -z "$json" ] || [ "$json" = - ] || [ -s "$json" ] || fail "plot without gnuplot, --json $json: JSON missing"
  [ ! -e "$dir/np.svg" ] || fail "plot without gnuplot: $dir/np.svg written"
done

# Outputs that cannot be written fail before the replays (they failed
# after them, the table printed): nothing on stdout.
for opt in --json --plot; do
  out=$("$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" $opt "$dir/no/such/out" 2>&1 >"$dir/early.out"); rc=$?
  expect_eq "$opt unwritable: before the replays" "$rc:$out:$(wc -c <"$dir/early.out")" \
    "2:netloom interfere: $opt: $dir/no/such/out: $dir/no/such: no such directory; expected an existing folder to write to:0"
done

# An output's value left out, the next option taken for it: the option
# at fault is named, not the argument left over ("unexpected argument '3'
# after WORKLOAD" for '--json --top 3').
for opts in "--json --top 3" "--plot -c $dir/sys.ini"; do
  read -r -a args <<<"$opts"
  out=$("$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" "${args[@]}" 2>&1 >"$dir/early.out"); rc=$?
  expect_eq "$opts (a value left out)" "$rc:$out:$(wc -c <"$dir/early.out")" \
    "2:netloom interfere: ${args[0]} '${args[1]}': an option, not a file name (a value left out?); expected a file to write (./${args[1]} for a file of that name):0"
done

# --json and --plot naming one file (./NAME, a link): refused before the
# replays, where the plot silently replaced the JSON.
ln -sf "$dir/same.out" "$dir/same-link.out"
for other in "$dir/./same.out" "$dir/same-link.out"; do
  rm -f "$dir/same.out"
  [ "$other" = "$dir/./same.out" ] || printf old > "$dir/same.out"
  out=$("$netloom" interfere "$dir/halves.ini" -c "$dir/sys.ini" --json "$dir/same.out" --plot "$other" 2>&1 >"$dir/early.out"); rc=$?
  expect_eq "same file $other" "$rc:$out:$(wc -c <"$dir/early.out")" \
    "2:netloom interfere: --plot '$other': the same file as --json; expected another file:0"
  [ ! -e "$dir/same.out" ] || [ "$(cat "$dir/same.out")" = old ] || fail "same file $other: written"
done

# Foreign traces are converted as each job's is opened, and the calls a
# conversion drops are named with the job whose trace it is: with two
# jobs, "netloom interfere: not converted: MPI_Comm_rank x4 (...)" said
# neither which job nor which trace. DUMPI (7 ranks) and OTF2 (4 ranks).
data=$(cd "$(dirname "$0")/../data/traces" && pwd)
printf '[job D]\ntrace = %s\n[job O]\ntrace = %s\n' "$data/dumpi/testbgp.meta" "$data/otf2/ember/traces.otf2" \
  > "$dir/foreign.ini"
"$netloom" interfere "$dir/foreign.ini" -c "$dir/sys.ini" "${an[@]}" > /dev/null 2> "$dir/foreign.err"; rc=$?
expect_eq "foreign traces: status, the conversions' lines" "$rc
$(cat "$dir/foreign.err")" "0
netloom interfere: $dir/foreign.ini:2: [job D] key 'trace': $data/dumpi/testbgp.meta: not converted: MPI_Comm_size x7 (no netloom operation; its time counts as compute)
netloom interfere: $dir/foreign.ini:2: [job D] key 'trace': $data/dumpi/testbgp.meta: not converted: MPI_Comm_rank x203 (no netloom operation; its time counts as compute)
netloom interfere: $dir/foreign.ini:2: [job D] key 'trace': $data/dumpi/testbgp.meta: not converted: MPI_Comm_group x7 (group bookkeeping: used for communicator members)
netloom interfere: $dir/foreign.ini:2: [job D] key 'trace': $data/dumpi/testbgp.meta: not converted: MPI_Group_incl x7 (group bookkeeping: used for communicator members)
netloom interfere: $dir/foreign.ini:4: [job O] key 'trace': $data/otf2/ember/traces.otf2: not converted: MPI_Comm_rank x4 (no communication record: its time counts as compute)"

# A trace whose frames are corrupt opens (its header is whole) and fails
# as it replays: bad input, exit 2 as --help says, one line naming the
# workload's file, line and job, as a trace that does not open is (it
# named the run, 'job 'C' alone: trace rank 0 op 0: ...'), and the trace,
# nothing on stdout, no JSON.
python3 -c '
import sys
d = bytearray(open(sys.argv[1], "rb").read())
for i in range(2000, len(d), 997):
    d[i] ^= 0x55
open(sys.argv[2], "wb").write(d)' "$data/../../../traces/samples/lammps-lj-2.nlt" "$dir/corrupt.nlt"
printf '[job C]\ntrace = corrupt.nlt\n' > "$dir/corrupt.ini"
rm -f "$dir/corrupt.json"
"$netloom" interfere "$dir/corrupt.ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/corrupt.json" \
  > "$dir/corrupt.out" 2> "$dir/corrupt.err"; rc=$?
expect_eq "corrupt trace: status, lines, stdout, JSON" \
  "$rc:$(wc -l < "$dir/corrupt.err"):$(wc -c < "$dir/corrupt.out"):$(compgen -G "$dir/corrupt.json*" | wc -l)" "2:1:0:0"
grep -qx "netloom interfere: $dir/corrupt.ini:2: \[job C\] key 'trace': $dir/corrupt.nlt: rank 0, offset [0-9]*: frame does not decompress: .*" \
  "$dir/corrupt.err" || fail "corrupt trace: line: $(cat "$dir/corrupt.err")"
# Second of two jobs, the runs on two threads, the shared run started
# first: still the job's alone run that names it.
printf '[job A]\ntrace = a.nlt\n[job C]\ntrace = corrupt.nlt\n' > "$dir/corrupt2.ini"
"$netloom" interfere "$dir/corrupt2.ini" -c "$dir/sys.ini" "${an[@]}" -j 2 > "$dir/corrupt.out" 2> "$dir/corrupt.err"
expect_eq "corrupt second trace, -j 2: status, stderr" "$?:$(sed 's/offset [0-9]*:.*/offset/' "$dir/corrupt.err")" \
  "2:netloom interfere: $dir/corrupt2.ini:4: [job C] key 'trace': $dir/corrupt.nlt: rank 0, offset"
# A job alone that deadlocks before reaching its damage (both ranks send
# 1 MiB first; rank 0's frame claims one op more than it holds) is said
# as damage too, not the deadlock (exit 1), as by netloom replay.
"$mk" "$dir/dl.nlt" deadlock 1048576 || fail "mktrace deadlock"
python3 - "$dir/dl.nlt" "$dir/dl_bad.nlt" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off = 64 + struct.unpack_from('<Q', b, 32)[0]
b[off + 1] += 1
open(sys.argv[2], 'wb').write(b)
PY
printf '[job D]\ntrace = dl.nlt\n' > "$dir/dl.ini"
printf '[job D]\ntrace = dl_bad.nlt\n' > "$dir/dl_bad.ini"
"$netloom" interfere "$dir/dl.ini" -c "$dir/sys.ini" "${an[@]}" > /dev/null 2>&1
expect_eq "deadlocked job: status" $? 1
why=$("$netloom" trace verify "$dir/dl_bad.nlt" 2>&1)
why=${why#netloom trace verify: FAILED: }
case $why in "$dir/dl_bad.nlt: rank 0, offset "*": frame header says 6 ops, "*) ;; *) fail "dl_bad.nlt: verify said '$why'" ;; esac
rm -f "$dir/dl_bad.json"
out=$("$netloom" interfere "$dir/dl_bad.ini" -c "$dir/sys.ini" "${an[@]}" --json "$dir/dl_bad.json" 2>&1 > /dev/null); rc=$?
expect_eq "deadlocked job, damaged trace: status, line (verify's), JSON" \
  "$rc:$out:$(compgen -G "$dir/dl_bad.json*" | wc -l)" "2:netloom interfere: $dir/dl_bad.ini:2: [job D] key 'trace': $why:0"
"$netloom" interfere --help | tr '\n' ' ' | grep -q "2 a bad command line, workload, trace (also one found corrupt as it" ||
  fail "interfere --help: exit status 2 does not name a corrupt trace"

# The study of docs/placement.md (scripts/interfere-study.sh), at two
# all-to-alls: its output is the doc's table alone. It gave every run a
# [workload] seed, so the contiguous and round-robin runs, which draw
# nothing, each printed "netloom interfere: warning: ...contiguous-1.ini:2:
# [workload] key 'seed': value '1' is not read by interfere ...".
study=$(dirname "$0")/../../scripts/interfere-study.sh
BULLY_ITERS=2 SEEDS="1 2" "$study" "$(dirname "$netloom")" > "$dir/study.out" 2> "$dir/study.err"; rc=$?
expect_eq "interfere-study.sh: status, stderr" "$rc:$(cat "$dir/study.err")" "0:"
expect_eq "interfere-study.sh: runs (contiguous, random-node 1 and 2, round-robin)" \
  "$(awk 'NR > 1 && NF == 0 {exit} NR > 1 {printf "%s %s,", $1, $2}' "$dir/study.out")" \
  "contiguous 1,random-node 1,random-node 2,round-robin 1,"
# --help says what it runs and what it needs, exit 0 (it was taken for
# BUILD_DIR: "interfere-study: --help/netloom not built", exit 2); a bad
# option, a third argument or an OUT_DIR that is a file is one line, exit
# 2, before anything runs.
"$study" --help > "$dir/study.out" 2> "$dir/study.err"; rc=$?
expect_eq "interfere-study.sh --help: status, stderr" "$rc:$(cat "$dir/study.err")" "0:"
grep -q "^usage: scripts/interfere-study.sh \[BUILD_DIR\] \[OUT_DIR\]" "$dir/study.out" &&
  grep -q "^Needs python3. Time" "$dir/study.out" || fail "interfere-study.sh --help: $(head -3 "$dir/study.out")"
touch "$dir/study-file"
for args in "-x" "a b c" "$(dirname "$netloom") $dir/study-file"; do
  # shellcheck disable=SC2086 # the arguments
  "$study" $args > "$dir/study.out" 2> "$dir/study.err"; rc=$?
  expect_eq "interfere-study.sh $args: status, lines, stdout" \
    "$rc:$(wc -l < "$dir/study.err"):$(wc -c < "$dir/study.out")" "2:1:0"
done
expect_eq "interfere-study.sh, OUT_DIR a file" "$(cat "$dir/study.err")" \
  "interfere-study: OUT_DIR '$dir/study-file': not a directory; expected a directory, or a path where one can be made"

[ $fails -eq 0 ] && echo "interfere: all checks passed"
exit $((fails > 0))
