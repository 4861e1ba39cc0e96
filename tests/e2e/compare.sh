#!/usr/bin/env bash
# End-to-end tests of `netloom compare` (issue 15, docs/procurement.md): a
# 2-system x 2-workload study on the bundled samples, -j1 and -j2 reports
# (report.json with busiest links and communication share, report.md,
# index.html) byte-identical but for the execution figures, a second run
# that executes no replay, a new cost preset that replays nothing, a
# changed system that replays only its cells, the routing run (named or
# the family's default) in the cache key, a deadlocking system as a
# failed cell (exit 3), a system's own layout keys pricing it, bad
# study files (routing against the family and the VCs included) refused
# before any run with one line, and SIGINT/SIGTERM while a cache entry is
# written (-j1 and -j3) ending the command by the signal, nothing left.
# usage: compare.sh NETLOOM SOURCE_ROOT
set -uo pipefail
netloom=$1
root=$2
. "$(dirname "$0")/lib.sh"
s=$root/traces/samples

cat > "$dir/study.ini" <<EOS
[study]
backend = analytic
seeds = 2
preset = flex
reference = torus
[system torus]
topology = torus:k=4x4
routing_function = dor
link_model = links
[system fattree]
config = fattree.ini
[workload lammps]
trace = $s/lammps-lj-8.nlt
ranks = 8
weight = 2
[workload hpcc]
trace = $s/hpcc-8.nlt
placement = random-node
EOS
printf '[network]\ntopology = fattree:k=4,n=2\n' > "$dir/fattree.ini"

"$netloom" compare "$dir/study.ini" -o "$dir/a" -j1 > /dev/null 2> "$dir/a.err" || fail "run -j1"
# fattree runs on analytic's defaults (link_model = none): its runtimes do
# not depend on its network, which the report did not say; now the
# report (md, json, html) and stderr do, torus (links) not named.
blind="the backend does not see the topology of 'fattree' (analytic with link_model = none and hop_latency_ns = 0): its runtimes do not depend on its network (backend = flit models each network flit by flit; link_model = links shares the channels of its routes; docs/replay.md)"
expect_eq "topology unused: stderr" "$(cat "$dir/a.err")" "netloom compare: warning: $blind"
expect_eq "topology unused: json" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([d["study"]["topology_unused"] == sys.argv[2]] + [s["topology_unused"] for s in d["systems"]])' "$dir/a/report.json" "$blind")" \
  "[True, None, 'link_model = none and hop_latency_ns = 0']"
grep -qxF "**Warning:** $blind." "$dir/a/report.md" || fail "report.md: topology unused not said"
grep -qF "<b>Warning:</b> the backend does not see the topology of &apos;fattree&apos; (analytic with" "$dir/a/index.html" || fail "index.html: topology unused not said"
"$netloom" compare "$dir/study.ini" -o "$dir/b" -j2 > /dev/null || fail "run -j2"
strip() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("execution"); print(json.dumps(d, indent=1))' "$1"; }
[ -n "$(strip "$dir/a/report.json")" ] || fail "report.json unreadable"
[ "$(strip "$dir/a/report.json")" = "$(strip "$dir/b/report.json")" ] || fail "-j1 and -j2 reports differ"
cmp -s "$dir/a/report.md" "$dir/b/report.md" || fail "-j1 and -j2 report.md differ"
# index.html too, but for its execution table (wall time, jobs).
[ "$(sed '/<h2>Execution/,$d' "$dir/a/index.html")" = "$(sed '/<h2>Execution/,$d' "$dir/b/index.html")" ] || fail "-j1 and -j2 index.html differ"
grep -q '<h2>Execution' "$dir/a/index.html" || fail "index.html: no execution table"
expect_eq "cells" "$(json "$dir/a/report.json" 'len(d["cells"])')" 4
# The head of every results document; compare's lacked netloom_build.
expect_eq "report head" "$(json "$dir/a/report.json" '[(k, d[k]) for k in list(d)[:3]]')" \
  "[('netloom_version', '$("$netloom" version | cut -d' ' -f2)'), ('netloom_build', '$("$netloom" version | sed -E 's/^netloom ([^ ]+)$/\1/; s/^netloom [^ ]+ \(build ([^)]+)\)$/\1/')'), ('command', 'compare')]"
expect_eq "cells ok" "$(json "$dir/a/report.json" 'sorted(set(c["status"] for c in d["cells"]))')" "['ok']"
# lammps's placement (linear) does not use the seed: seed 1 replays on
# each system and is seed 2's result too (8 replays before, 6 now);
# hpcc's random-node replays both seeds.
expect_eq "executed" "$(json "$dir/a/report.json" '[d["execution"][k] for k in ("runs", "executed_runs", "reused_runs")]')" "[8, 6, 2]"
expect_eq "reused seeds" "$(json "$dir/a/report.json" '[(c["workload"], [(s["seed"], s.get("same_as_seed")) for s in c["seeds"]]) for c in d["cells"] if c["system"] == "torus"]')" \
  "[('lammps', [(1, None), (2, 1)]), ('hpcc', [(1, None), (2, None)])]"
expect_eq "seeds replayed" "$(json "$dir/a/report.json" '[w["seeds_replayed"] for w in d["workloads"]]')" "[1, 2]"
expect_eq "reused seeds: the same result" "$(json "$dir/a/report.json" 'all(c["seeds"][0]["runtime_s"] == c["seeds"][1]["runtime_s"] and c["runtime_min_s"] == c["runtime_max_s"] for c in d["cells"] if c["workload"] == "lammps")')" True
grep -q '^Workload \*\*lammps\*\* (placement `linear`, which does not use the seed): seed 1 replayed on each system, its result also that of seeds 2..2.$' "$dir/a/report.md" || fail "report.md: reused seeds not said"
grep -q '<p>Workload <b>lammps</b> (placement <code>linear</code>, which does not use the seed)' "$dir/a/index.html" || fail "index.html: reused seeds not said"
expect_eq "reference" "$(json "$dir/a/report.json" '[s["relative_runtime"] for s in d["systems"]][0]')" 1.0
expect_eq "cost" "$(json "$dir/a/report.json" 'all(s["cost_usd"] > 0 and s["power_w"] > 0 for s in d["systems"])')" True
# Slowdown against the best: 1 for the fastest system of each workload.
expect_eq "slowdown" "$(json "$dir/a/report.json" 'min(c["slowdown_vs_best"] for c in d["cells"] if c["workload"] == "hpcc")')" 1.0

# Busiest links: torus (link_model = links) has them in bytes, busiest
# first, shares of the cell's total; fattree (link_model none) says why not.
expect_eq "links unit" "$(json "$dir/a/report.json" 'd["cells"][0]["busiest_links"]["unit"]')" bytes
expect_eq "links sorted" "$(json "$dir/a/report.json" '(lambda t: [x["use"] for x in t] == sorted([x["use"] for x in t], reverse=True) and len(t) == 10)(d["cells"][0]["busiest_links"]["top"])')" True
expect_eq "links share" "$(json "$dir/a/report.json" '(lambda l: abs(l["top"][0]["share"] - l["top"][0]["use"] / l["total"]) < 1e-12 and l["top"][0]["peer_router"] != l["top"][0]["router"])(d["cells"][0]["busiest_links"])')" True
# report.md's busiest links: '; ' between links, none after the last
# (the line read '... 4.0%; |').
grep -Eq '^\| lammps \| torus \| bytes \| [0-9]+ \| [0-9]+\.[0-9]+ -> [0-9]+ network: [0-9.]+%(; [0-9]+\.[0-9]+ -> [0-9]+ network: [0-9.]+%){4} \|$' "$dir/a/report.md" ||
  fail "report.md: busiest links of lammps on torus: $(grep '^| lammps | torus | bytes' "$dir/a/report.md")"
expect_eq "links why" "$(json "$dir/a/report.json" '"link_model" in d["cells"][1]["busiest_links"]["unavailable"]')" True
expect_eq "comm share" "$(json "$dir/a/report.json" 'all(0 < c["comm_share"] < 1 for c in d["cells"])')" True
expect_eq "cost evaluations" "$(json "$dir/a/report.json" 'd["execution"]["cost_evaluations"]')" 2
expect_eq "build" "$(json "$dir/a/report.json" 'len(d["execution"]["build"]) > 0')" True

# A second run computes nothing; the report is the same.
"$netloom" compare "$dir/study.ini" -o "$dir/a" -j2 > /dev/null || fail "second run"
expect_eq "second run executed" "$(json "$dir/a/report.json" 'd["execution"]["executed_runs"]')" 0
expect_eq "second run cached" "$(json "$dir/a/report.json" 'd["execution"]["cached_runs"]')" 6
[ "$(strip "$dir/a/report.json")" = "$(strip "$dir/b/report.json")" ] || fail "cached report differs"
expect_eq "second run cost" "$(json "$dir/a/report.json" 'd["execution"]["cost_evaluations"]')" 0

# A cache entry damaged into valid JSON is a miss, as an unreadable one
# is: a status cmp_cache_put never writes (an error, or no status at all)
# was a failed cell with an empty message, a negative runtime a result,
# and a link beyond the system's ports silently left out of its busiest
# links. Each of the four is replayed; the report is the computed one.
# Four entries: the torus's three (lammps's seed 1, which seed 2 reuses,
# and hpcc's two), and the fat tree's lammps entry for the error status.
cp -r "$dir/a" "$dir/damaged"
python3 - "$dir/damaged" <<'EOP'
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/report.json"))
keys = [s["cache_key"] for c in r["cells"] if c["system"] == "torus" for s in c["seeds"] if "same_as_seed" not in s]
keys.insert(1, [c for c in r["cells"] if c["system"] == "fattree"][0]["seeds"][0]["cache_key"])
edits = [("status", 7), ("status", 2), ("runtime_s", -1.0), ("links", None)]
assert len(set(keys)) == 4
for key, (field, value) in zip(keys, edits):
    p = "%s/cache/%s.json" % (d, key)
    e = json.load(open(p))
    if field == "links":
        e["links"][0][0] = 1000000
    else:
        e[field] = value
    json.dump(e, open(p, "w"))
EOP
"$netloom" compare "$dir/study.ini" -o "$dir/damaged" > /dev/null || fail "damaged cache entries: run"
expect_eq "damaged cache entries: executed, cached" "$(json "$dir/damaged/report.json" '(d["execution"]["executed_runs"], d["execution"]["cached_runs"])')" "(4, 2)"
[ "$(strip "$dir/damaged/report.json")" = "$(strip "$dir/b/report.json")" ] || fail "damaged cache entries: report differs"
# So is a damaged cost entry: a negative cost, cables by medium that do
# not add up to the links, a packaging rule that does not exist.
python3 - "$dir/damaged" <<'EOP'
import glob, json, sys
for p, (field, value) in zip(sorted(glob.glob(sys.argv[1] + "/cache/cost-*.json")), [("cost_usd", -1.0), ("copper", 1)]):
    e = json.load(open(p))
    e[field] = e[field] + value if field == "copper" else value
    e["rule"] = "nosuch" if field == "copper" else e["rule"]
    json.dump(e, open(p, "w"))
EOP
"$netloom" compare "$dir/study.ini" -o "$dir/damaged" > /dev/null || fail "damaged cost entries: run"
expect_eq "damaged cost entries: priced, cached" "$(json "$dir/damaged/report.json" '(d["execution"]["cost_evaluations"], d["execution"]["cost_cached"])')" "(2, 0)"
[ "$(strip "$dir/damaged/report.json")" = "$(strip "$dir/b/report.json")" ] || fail "damaged cost entries: report differs"
# So is a figure no pricing or replay gives, past what the port table's
# systems reach: a cost, power or cable length of 1e308 was taken (the
# report's cost a 309-digit number, its plots without bars), and so was a
# runtime of 1e308 s (its slowdowns infinite).
python3 - "$dir/damaged" <<'EOP'
import glob, json, sys
costs = sorted(glob.glob(sys.argv[1] + "/cache/cost-*.json"))
for p, field in zip(costs, ("cost_usd", "power_w")):
    e = json.load(open(p))
    e[field] = 1e308
    e["length_m"] = 1e308 if field == "power_w" else e["length_m"]
    json.dump(e, open(p, "w"))
runs = sorted(set(glob.glob(sys.argv[1] + "/cache/*.json")) - set(costs))
e = json.load(open(runs[0]))
e["status"], e["runtime_s"] = 0, 1e308
json.dump(e, open(runs[0], "w"))
EOP
"$netloom" compare "$dir/study.ini" -o "$dir/damaged" > /dev/null || fail "huge cached figures: run"
expect_eq "huge cached figures: priced, cached" "$(json "$dir/damaged/report.json" '(d["execution"]["cost_evaluations"], d["execution"]["cost_cached"], d["execution"]["executed_runs"])')" "(2, 0, 1)"
[ "$(strip "$dir/damaged/report.json")" = "$(strip "$dir/b/report.json")" ] || fail "huge cached figures: report differs"

# An interrupt while the report is staged (here while gnuplot draws, the
# report's slow part) removes what was staged and leaves the previous
# report whole: report.json.tmpXXXXXX and report.md.tmpXXXXXX were left.
cp -r "$dir/a" "$dir/intr"
mkdir -p "$dir/slowgp"
printf '#!/bin/sh\necho $$ > "%s/gp.pid"\nexec sleep 60\n' "$dir" > "$dir/slowgp/gnuplot"
chmod +x "$dir/slowgp/gnuplot"
PATH="$dir/slowgp:$PATH" "$netloom" compare "$dir/study.ini" -o "$dir/intr" > /dev/null 2>&1 & cpid=$!
for _ in $(seq 1 1200); do [ -s "$dir/gp.pid" ] && break; sleep 0.1; done
kill -TERM "$cpid"; wait "$cpid"; rc=$?
[ -s "$dir/gp.pid" ] && kill "$(cat "$dir/gp.pid")" 2> /dev/null
expect_eq "interrupted while staged: exit status" "$rc" 143
expect_eq "interrupted while staged: files left" "$(cd "$dir/intr" && LC_ALL=C ls -A | tr '\n' ' ')" ".report.lock cache index.html report.json report.md "
cmp -s "$dir/a/report.json" "$dir/intr/report.json" || fail "interrupted while staged: the previous report.json changed"
# gnuplot exits 0 after a failed write (a full disk), its SVG cut
# mid-element: each plot is a note saying so; the cut SVG was pasted into
# the page (an unclosed <svg> swallowing what follows it).
mkdir -p "$dir/cutgp"
printf '#!/bin/sh\ncat > /dev/null\nprintf %s\n' \
  "'<?xml version=\"1.0\" encoding=\"utf-8\"?>\\n<svg width=\"820\" height=\"420\">\\n<path d=\"M10,20 L'" \
  > "$dir/cutgp/gnuplot"
chmod +x "$dir/cutgp/gnuplot"
PATH="$dir/cutgp:$PATH" "$netloom" compare "$dir/study.ini" -o "$dir/cut" > /dev/null 2>&1 || fail "cut SVG: run"
expect_eq "cut SVG: none in the page" "$(grep -c '<svg' "$dir/cut/index.html")" 0
expect_eq "cut SVG: a note per plot" \
  "$(grep -c 'not drawn: gnuplot&apos;s output is cut ([0-9]* bytes, no closing &lt;/svg&gt;; a full disk?)' "$dir/cut/index.html")" \
  "$(grep -c '<figure>' "$dir/cut/index.html")"
# gnuplot starts as netloom did (cli_child_start): popen passed on SIGXFSZ
# ignored and the raised soft limit on open files. Each plot's fake
# gnuplot says what it got (SigIgn's bit 24: SIGXFSZ), under a soft limit
# of 256; every line must read the same.
if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -gt 256 ]; then
  mkdir -p "$dir/envgp"
  cat > "$dir/envgp/gnuplot" <<'EOF'
#!/bin/sh
cat > /dev/null
ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status)
echo "xfsz_ignored=$((0x$ign >> 24 & 1)) nofile=$(ulimit -Sn)" >> "$GP_REPORT"
printf '<svg xmlns="http://www.w3.org/2000/svg"></svg>\n'
EOF
  chmod +x "$dir/envgp/gnuplot"
  rm -f "$dir/gp.env"
  (ulimit -Sn 256 && PATH="$dir/envgp:$PATH" GP_REPORT="$dir/gp.env" exec env --default-signal=XFSZ \
    "$netloom" compare "$dir/study.ini" -o "$dir/envr" > /dev/null 2>&1) || fail "gnuplot's start: run"
  expect_eq "gnuplot's signals and open-file limit: netloom's at start" \
    "$(sort -u "$dir/gp.env" 2>&1):$(grep -c . "$dir/gp.env")" \
    "xfsz_ignored=0 nofile=256:$(grep -c '<figure>' "$dir/envr/index.html")"
fi
# An interrupt while a cache entry is written: the entry is staged under
# a name registered for the signal, as the report's files are, so the
# signal waits for it and then removes the temporary file, where
# DIR/cache/KEY.json.tmpXXXXXX was left (about 2 SIGTERMs in 15 into a
# 64-seed study). Made deterministic with a FIFO for the entry: its
# temporary file is then made in TMPDIR (core/output.h), and the write
# waits for a reader. A cached entry is read first: fed a byte that is
# no JSON, it is a miss and the run replays.
printf '[system a]\ntopology = torus:k=4x4\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/sig.ini"
"$netloom" compare "$dir/sig.ini" -o "$dir/sig" > /dev/null || fail "signal while cached: first run"
key=$(json "$dir/sig/report.json" 'd["cells"][0]["seeds"][0]["cache_key"]')
rm "$dir/sig/cache/$key.json" && mkfifo "$dir/sig/cache/$key.json"
mkdir "$dir/sigtmp"
TMPDIR=$dir/sigtmp "$netloom" compare "$dir/sig.ini" -o "$dir/sig" > /dev/null 2>&1 & cpid=$!
timeout 60 sh -c 'printf x > "$1"' _ "$dir/sig/cache/$key.json" || fail "signal while cached: the entry was not read"
for _ in $(seq 1 600); do [ -n "$(ls -A "$dir/sigtmp")" ] && break; sleep 0.1; done
if [ -n "$(ls -A "$dir/sigtmp")" ]; then
  kill -TERM "$cpid"
  timeout 60 cat "$dir/sig/cache/$key.json" > "$dir/sig.got"
  wait "$cpid"; rc=$?
  expect_eq "signal while cached: exit status" "$rc" 143
  expect_eq "signal while cached: the entry written whole" "$(json "$dir/sig.got" 'd["status"]')" 0
  expect_eq "signal while cached: files left" "$(ls -A "$dir/sigtmp")" ""
else
  fail "signal while cached: the entry was not staged under a registered name"
  kill -KILL "$cpid"; wait "$cpid"
fi
# The same on -j3, where the runs are on pool_run's threads (core/pool.c),
# for SIGTERM and SIGINT (Ctrl-C). Seeds 1..3 of a workload placed by the
# seed are runs 0..2: run 0 on the calling thread, held reading its entry
# (a FIFO never fed); run 1 on a worker, its entry (a FIFO) fed a byte
# that is no JSON, so it replays and holds its entry's write (staged in
# TMPDIR) until read. The signal comes then: the command must end by it
# once the entry is read whole, while run 0 is still held (a signal left
# blocked until the pool's threads are joined would wait for it for
# ever), with no temporary file, no report and only whole cache entries.
printf '[study]\nseeds = 3\n[system a]\ntopology = torus:k=4x4\nlink_model = links\n[workload w]\ntrace = %s\nplacement = random-node\n' \
  "$s/lammps-lj-8.nlt" > "$dir/sigj.ini"
"$netloom" compare "$dir/sigj.ini" -o "$dir/sigj" -j3 > /dev/null || fail "signal on -j3: first run"
keys=($(json "$dir/sigj/report.json" '" ".join(s["cache_key"] for s in d["cells"][0]["seeds"])'))
expect_eq "signal on -j3: a key per seed" "$(printf '%s\n' "${keys[@]}" | sort -u | wc -l)" 3
for sig in TERM INT; do
  o=$dir/sigj-$sig t=$dir/sigjtmp-$sig
  mkdir -p "$o/cache" "$t"
  cp "$dir"/sigj/cache/cost-*.json "$o/cache/"
  mkfifo "$o/cache/${keys[0]}.json" "$o/cache/${keys[1]}.json"
  TMPDIR=$t sig_run "$o.run" "$sig" 60 "$netloom" compare "$dir/sigj.ini" -o "$o" -j3 & w=$!
  pid=$(sig_pid "$o.run")
  timeout 60 sh -c 'printf x > "$1"' _ "$o/cache/${keys[1]}.json" || fail "signal on -j3 ($sig): run 1's entry was not read"
  for _ in $(seq 600); do [ -n "$(ls -A "$t")" ] && break; sleep 0.1; done
  if [ "$(ls -A "$t" | wc -l)" = 1 ]; then
    kill -"$sig" "$pid"
    timeout 60 cat "$o/cache/${keys[1]}.json" > "$o.got"
  else
    fail "signal on -j3 ($sig): run 1's entry was not staged under a registered name"
    kill -KILL "$pid"
  fi
  wait "$w"
  expect_eq "signal on -j3 ($sig): end, stderr, left in TMPDIR, in DIR" \
    "$(cat "$o.run.end"):$(cat "$o.run.err"):$(ls -A "$t"):$(ls -A "$o")" "signal SIG$sig:::cache"
  expect_eq "signal on -j3 ($sig): run 1's entry whole" "$(json "$o.got" 'd["status"]' 2> /dev/null)" 0
  for f in "$o"/cache/*; do
    [ -p "$f" ] || json "$f" 'd["status"] if "status" in d else d["cost_usd"]' > /dev/null 2>&1 ||
      fail "signal on -j3 ($sig): $f is no whole entry"
  done
done

# A new cost preset prices every system again and replays nothing.
sed 's/^preset = flex/preset = besta/' "$dir/study.ini" > "$dir/preset.ini"
"$netloom" compare "$dir/preset.ini" -o "$dir/a" > /dev/null || fail "preset run"
expect_eq "preset: simulations" "$(json "$dir/a/report.json" 'd["execution"]["simulations_executed"]')" 0
expect_eq "preset: cost evaluations" "$(json "$dir/a/report.json" 'd["execution"]["cost_evaluations"]')" 2
expect_eq "preset: cost changed" "$(python3 -c "import json,sys; a,b=(json.load(open(p))[\"systems\"][0][\"cost_usd\"] for p in sys.argv[1:]); print(a != b)" "$dir/a/report.json" "$dir/b/report.json")" True
# A changed system replays only its own cells (hpcc's 2 seeds, lammps's
# seed 1, which is its seed 2's result) and keeps its cost (same topology).
sed 's/^config = fattree.ini/config = fattree.ini\nchannel_latency = 2/' "$dir/study.ini" > "$dir/changed.ini"
"$netloom" compare "$dir/changed.ini" -o "$dir/a" > /dev/null || fail "changed run"
expect_eq "changed: simulations" "$(json "$dir/a/report.json" 'd["execution"]["simulations_executed"]')" 3
expect_eq "changed: cost evaluations" "$(json "$dir/a/report.json" 'd["execution"]["cost_evaluations"]')" 0
# The routing a replay runs is in its key, named or the family's default
# (a changed default must not serve results of the old one): the fat tree
# that names none ran min, so naming min replays nothing, naming nca
# replays its 3 replays (lammps reuses seed 1), and dropping it again replays nothing.
expect_eq "picked routing" "$(json "$dir/b/report.json" 'd["systems"][1]["routing"]')" min
for r in min:0 nca:3 -:0; do
	if [ "${r%:*}" = - ]; then cp "$dir/study.ini" "$dir/routing.ini"
	else sed "s/^config = fattree.ini/config = fattree.ini\nrouting_function = ${r%:*}/" "$dir/study.ini" > "$dir/routing.ini"; fi
	"$netloom" compare "$dir/routing.ini" -o "$dir/b" > /dev/null || fail "routing ${r%:*}: run"
	expect_eq "routing ${r%:*}: simulations" "$(json "$dir/b/report.json" 'd["execution"]["simulations_executed"]')" "${r#*:}"
done

# A placement map's contents are in the key, not only its path: an edited
# map replays (and gives its own runtime), the same map again replays nothing.
printf '[system a]\ntopology = torus:k=4x4\nplacement_map = %s\nlink_model = links\nhop_latency_ns = 100\n[workload w]\ntrace = %s\nplacement = map\n' "$dir/rev.map" "$s/lammps-lj-8.nlt" > "$dir/map.ini"
for i in 0 1 2 3 4 5 6 7; do echo "$i $((15 - i))"; done > "$dir/rev.map"
"$netloom" compare "$dir/map.ini" -o "$dir/m" > "$dir/m.out" || fail "map: first run"
# One run, one system: singular ("1 runs", "1 system(s) priced").
expect_eq "one run: summary" "$(cat "$dir/m.out")" "$dir/m/index.html, $dir/m/report.json, $dir/m/report.md: 1 run (1 executed, 0 from the cache, 0 reused from seed 1, 0 failed); 1 system priced, 0 costs from the cache"
# One seed: "1 seed(s)" in report.md and index.html (two: "2 seeds").
grep -q '^Backend \*\*analytic\*\* (contention .*), 1 seed, cost preset ' "$dir/m/report.md" ||
  fail "one seed: report.md: $(grep '^Backend' "$dir/m/report.md")"
grep -q ' placement seed, cost preset <b>' "$dir/m/index.html" || fail "one seed: index.html"
grep -q '), 2 seeds, cost preset ' "$dir/a/report.md" || fail "two seeds: report.md: $(grep '^Backend' "$dir/a/report.md")"
rt1=$(json "$dir/m/report.json" 'd["cells"][0]["runtime_s"]')
printf '0 0\n1 10\n2 5\n3 15\n4 2\n5 8\n6 13\n7 7\n' > "$dir/rev.map"
"$netloom" compare "$dir/map.ini" -o "$dir/m" > /dev/null || fail "map: edited map run"
expect_eq "edited map: executed" "$(json "$dir/m/report.json" 'd["execution"]["executed_runs"]')" 1
[ "$(json "$dir/m/report.json" 'd["cells"][0]["runtime_s"]')" != "$rt1" ] || fail "edited map: the old runtime"
"$netloom" compare "$dir/map.ini" -o "$dir/m" > /dev/null || fail "map: same map again"
expect_eq "same map: cached" "$(json "$dir/m/report.json" 'd["execution"]["cached_runs"]')" 1
# A relative placement_map is the study file's neighbour, like its traces,
# not a file of the current directory (a decoy of the same name there).
mkdir -p "$dir/rel" "$dir/elsewhere"
cp "$dir/rev.map" "$dir/rel/rev.map"
printf '0 1\n' > "$dir/elsewhere/rev.map"
printf '[system a]\ntopology = torus:k=4x4\nplacement_map = rev.map\nlink_model = links\nhop_latency_ns = 100\n[workload w]\ntrace = %s\nplacement = map\n' "$s/lammps-lj-8.nlt" > "$dir/rel/map.ini"
nl_abs=$(realpath "$netloom")
(cd "$dir/elsewhere" && "$nl_abs" compare "$dir/rel/map.ini" -o "$dir/rel/out" > /dev/null) || fail "relative map: exit $?"
expect_eq "relative map: the study's neighbour" "$(json "$dir/rel/out/report.json" 'd["cells"][0]["runtime_s"]')" \
  "$(json "$dir/m/report.json" 'd["cells"][0]["runtime_s"]')"

# Values that differ only in bytes that are not UTF-8 are two keys: the
# key read them through U+FFFD, so system b (traffic 'uniform\xfe', a key
# the replay keeps in its configuration) took a's results from the cache
# (2 executed, 2 cached). Traces named t\xff.nlt and t\xfe.nlt are keyed
# by their bytes and give their own results.
mkdir -p "$dir/bytes"
cp "$s/lammps-lj-8.nlt" "$dir/bytes/t"$'\xff'".nlt"
cp "$s/hpcc-8.nlt" "$dir/bytes/t"$'\xfe'".nlt"
printf '[system a]\ntopology = torus:k=4x4\ntraffic = uniform\xff\n[system b]\ntopology = torus:k=4x4\ntraffic = uniform\xfe\n[workload x]\ntrace = t\xff.nlt\n[workload y]\ntrace = t\xfe.nlt\n' > "$dir/bytes/study.ini"
"$netloom" compare "$dir/bytes/study.ini" -o "$dir/bytes/out" > /dev/null || fail "bytes: exit $?"
expect_eq "bytes: executed" "$(json "$dir/bytes/out/report.json" '(d["execution"]["executed_runs"], d["execution"]["cached_runs"])')" "(4, 0)"
expect_eq "bytes: keys" "$(json "$dir/bytes/out/report.json" 'len(set(c["seeds"][0]["cache_key"] for c in d["cells"]))')" 4
expect_eq "bytes: traces" "$(json "$dir/bytes/out/report.json" 'len(set(c["runtime_s"] for c in d["cells"] if c["system"] == "a"))')" 2

# --help says what a study file holds (it named only docs/procurement.md)
# and the range of -j.
help=$("$netloom" compare --help) || fail "compare --help exit $?"
for w in '[study]            backend (analytic or flit), seeds (1..64)' '[system NAME]' '[workload NAME]' 'threads, 1..64'; do
  case $help in *"$w"*) ;; *) fail "compare --help lacks '$w'" ;; esac
done
# bad NAME EXPECTED-LINE: the study $dir/NAME.ini fails before any run, one line, exit 2, nothing written.
bad() {
  out=$("$netloom" compare "$dir/$1.ini" -o "$dir/out-$1" 2>&1 >/dev/null); rc=$?
  expect_eq "bad $1" "$rc:$out" "2:$2"
  [ ! -e "$dir/out-$1" ] || fail "bad $1: output written"
}
sed 's/^routing_function = dor/routing_fuction = dor/' "$dir/study.ini" > "$dir/unknown.ini"
bad unknown "netloom compare: $dir/unknown.ini:8: [system torus]: unknown key 'routing_fuction' (did you mean 'routing_function'?)"
# A system's inline backend other than the study's ran on the study's
# (analytic here), silently: refused at its line. From the system's config
# file it is the documented override (fattree.ini would take it).
sed 's/^routing_function = dor/backend = flit/' "$dir/study.ini" > "$dir/ownbackend.ini"
bad ownbackend "netloom compare: $dir/ownbackend.ini:8: [system torus] key 'backend': value 'flit': every system of a study runs on the [study] backend (analytic); expected it unset here, or backend = flit in [study]"
# One system named with a '|', -o with a trailing slash: the Markdown
# cell escapes it, the summary names DIR/index.html, and gnuplot (one
# system, one workload: an x range of one point) writes no warning.
printf '[system a|b]\ntopology = torus:k=4x4\nlink_model = links\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/one.ini"
"$netloom" compare "$dir/one.ini" -o "$dir/one/" > "$dir/one.out" 2> "$dir/one.err" || fail "one system: exit $?"
expect_eq "one system: stderr" "$(cat "$dir/one.err")" ""
expect_eq "one system: summary" "$(cut -d, -f1 "$dir/one.out")" "$dir/one/index.html"
grep -q '^| a\\|b | `torus:k=4x4` |' "$dir/one/report.md" || fail "one system: '|' not escaped in report.md"
# A system's header twice in a row is two systems, not one merged one; a
# line without '=' is not a key (inih splits at ':' too).
printf '[system a]\ntopology = torus:k=4x4\n[system a]\ntopology = fattree:k=4,n=2\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/dupsys.ini"
bad dupsys "netloom compare: $dir/dupsys.ini:3: [system a]: system 'a' defined twice; expected one section per system"
# A name's blanks are not part of it: [system  a ] is system a again (it
# was a second system, both shown as 'a'), and a name of blanks alone is
# none ([system  ] was a system named ' ', where [system ] was refused).
printf '[system a]\ntopology = torus:k=4x4\n[system  a ]\ntopology = fattree:k=4,n=2\n[workload  w ]\ntrace = %s\nweight = -1\n' "$s/lammps-lj-8.nlt" > "$dir/dupblank.ini"
bad dupblank "netloom compare: $dir/dupblank.ini:3: [system  a ]: system 'a' defined twice; expected one section per system
netloom compare: $dir/dupblank.ini:7: [workload w] key 'weight': value '-1': expected a finite decimal number > 0 (a double: 4.9e-324 .. 1.8e308)"
# ranks past 2^32 - 1, a positive integer, was refused as "expected a
# positive integer": the range is said.
printf '[system a]\ntopology = torus:k=4x4\n[workload w]\ntrace = %s\nranks = 4294967304\n[workload v]\ntrace = %s\nranks = 0\n' "$s/lammps-lj-8.nlt" "$s/lammps-lj-8.nlt" > "$dir/bigranks.ini"
bad bigranks "netloom compare: $dir/bigranks.ini:5: [workload w] key 'ranks': value '4294967304': expected an integer in [1, 4294967295] (the trace's ranks)
netloom compare: $dir/bigranks.ini:8: [workload v] key 'ranks': value '0': expected an integer in [1, 4294967295] (the trace's ranks)"
# A weight is a decimal number: strtod read 0x1p1 as 2.
printf '[system a]\ntopology = torus:k=4x4\n[workload w]\ntrace = %s\nweight = 0x1p1\n' "$s/lammps-lj-8.nlt" > "$dir/hexweight.ini"
bad hexweight "netloom compare: $dir/hexweight.ini:5: [workload w] key 'weight': value '0x1p1': expected a finite decimal number > 0 (a double: 4.9e-324 .. 1.8e308)"
# Past a double's range strtod gives inf (1e309) or 0 (1e-330): refused
# "expected a number > 0", which both are, on paper; the range is said.
printf '[system a]\ntopology = torus:k=4x4\n[workload w]\ntrace = %s\nweight = 1e309\n[workload v]\ntrace = %s\nweight = 1e-330\n' "$s/lammps-lj-8.nlt" "$s/lammps-lj-8.nlt" > "$dir/rangeweight.ini"
bad rangeweight "netloom compare: $dir/rangeweight.ini:5: [workload w] key 'weight': value '1e309': expected a finite decimal number > 0 (a double: 4.9e-324 .. 1.8e308)
netloom compare: $dir/rangeweight.ini:8: [workload v] key 'weight': value '1e-330': expected a finite decimal number > 0 (a double: 4.9e-324 .. 1.8e308)"
# The tab is shown escaped (\t), as every one-line error shows it.
printf '[system  ]\ntopology = torus:k=4x4\n[workload \t ]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/blankname.ini"
bad blankname "netloom compare: $dir/blankname.ini:1: section [system  ]: expected [study], [system NAME] or [workload NAME]
netloom compare: $dir/blankname.ini:3: section [workload \t ]: expected [study], [system NAME] or [workload NAME]
netloom compare: $dir/blankname.ini: no [system NAME] section; expected at least one
netloom compare: $dir/blankname.ini: no [workload NAME] section; expected at least one"
# A key twice in one section, or [study] twice: the last one won silently.
printf '[system a]\ntopology = torus:k=4x4\ntopology = torus:k=8x8\n[workload w]\ntrace = %s\ntrace = %s\n' "$s/lammps-lj-8.nlt" "$s/lammps-lj-8.nlt" > "$dir/dupkey.ini"
bad dupkey "netloom compare: $dir/dupkey.ini:3: [system a] key 'topology' given twice (first at line 2); expected each key once
netloom compare: $dir/dupkey.ini:6: [workload w] key 'trace' given twice (first at line 5); expected each key once"
# A value continued on indented lines, as configuration files take it
# (docs/configuration.md): joined without a separator, blank and comment
# lines between allowed, errors at the key's first line; an indented
# 'name = value' is a mis-indented key. Read as the key given twice.
printf '[system a]\ntopology = torus:\n    k=4\n\n# the second dimension\n    x4\nrouting_function = dor\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/cont.ini"
"$netloom" compare "$dir/cont.ini" -o "$dir/out-cont" > /dev/null || fail "continued topology: exit $?"
expect_eq "continued topology" "$(json "$dir/out-cont/report.json" '[(x["topology"], x["routing"]) for x in d["systems"]]')" \
  "[('torus:k=4x4', 'dor')]"
# A continuation line's ' ; comment' is a comment, as a key line's (the
# topology was 'torus:k=4x4 ; a 4x4 torus').
printf '[system a]\ntopology = torus:k=4\n    x4 ; a 4x4 torus\nrouting_function = dor ; dimension order\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/contc.ini"
"$netloom" compare "$dir/contc.ini" -o "$dir/out-contc" > /dev/null || fail "continued topology, comment: exit $?"
expect_eq "continued topology, comment" "$(json "$dir/out-contc/report.json" '[(x["topology"], x["routing"]) for x in d["systems"]]')" \
  "[('torus:k=4x4', 'dor')]"
printf '[system a]\ntopology = torus:k=4\n  y4\n  link_model = links\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/badcont.ini"
bad badcont "netloom compare: $dir/badcont.ini:4: [system a] indented line 'link_model = links' reads as 'name = value' after key 'topology'; expected keys unindented (an indented line continues the key before it)
netloom compare: $dir/badcont.ini:2: [system a] key 'topology': value 'torus:k=4y4': topology 'torus': parameter 'k' value '4y4': expected dimensions like 8x8x4"
# A line past libinih's 198 characters (a 240-character topology and a
# comment) is read whole, as in configuration files (its pieces were read
# as lines of their own: "unknown key 'ate_system_5/torus-4x4-...'"), and the lines
# after it keep their numbers.
g=$(printf 'graph_files_of_the_candidate_system_%s/' 1 2 3 4 5)
mkdir -p "$dir/$g" && "$netloom" topo export torus:k=4x4 --format edgelist > "$dir/${g}torus-4x4-exported.edges" ||
  fail "long line: edge list"
printf '[system a]\ntopology = graph:file=%storus-4x4-exported.edges,p=1   ; a long line\nrouting_function = min\n[workload w]\ntrace = %s\n' \
  "$g" "$s/lammps-lj-8.nlt" > "$dir/long.ini"
"$netloom" compare "$dir/long.ini" -o "$dir/out-long" > /dev/null || fail "long line: exit $?"
expect_eq "long line" "$(json "$dir/out-long/report.json" '[(x["topology"], x["routing"]) for x in d["systems"]]')" \
  "[('graph:file=$dir/${g}torus-4x4-exported.edges,p=1', 'min')]"
sed 's/^routing_function = min/routing_fuction = min/' "$dir/long.ini" > "$dir/longbad.ini"
bad longbad "netloom compare: $dir/longbad.ini:3: [system a]: unknown key 'routing_fuction' (did you mean 'routing_function'?)"
# A long line with blanks at every cut cannot be handed to libinih in
# pieces: refused at its line with configuration files' reason (not the
# generic "expected 'key = value'"); reading stops there, so the unread
# rest adds no problems ("no [workload NAME] section").
printf '[system a]\ntopology = torus:k=4%300sx4\n[workload w]\ntrace = %s\n' "" "$s/lammps-lj-8.nlt" > "$dir/uncut.ini"
bad uncut "netloom compare: $dir/uncut.ini:2: line of 322 characters cannot be split into libinih's 198-character lines (a run of blanks or a comment character at every cut); shorten it, continue it on indented lines, or use 'topology = @file'"
# The flit backend's partitions and threads past the routers: refused
# before any replay, at the study's line or the config file's, as a system
# that does not build (it ran, failed, and wrote a report: exit 3).
printf '[study]\nbackend = flit\n[system a]\ntopology = torus:k=4x4\npartitions = 17\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/parts.ini"
bad parts "netloom compare: $dir/parts.ini:5: [system a] key 'partitions': value '17' out of range: expected 0 (automatic) or 1..16 (one router at least in each)"
printf '[network]\ntopology = torus:k=4x4\n[simulation]\nthreads = 17\n' > "$dir/threads-sys.ini"
printf '[study]\nbackend = flit\n[system a]\nconfig = threads-sys.ini\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/threads.ini"
bad threads "netloom compare: $dir/threads.ini:3: [system a] key 'threads': value '17' out of range: expected 0 (automatic) or 1..16 (a router at least per thread) (set at $dir/threads-sys.ini:4)"
printf '[study]\nseeds = 2\n[system a]\ntopology = torus:k=4x4\n[study]\nseeds = 3\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/dupstudy.ini"
bad dupstudy "netloom compare: $dir/dupstudy.ini:5: [study] given twice (first at line 1); expected one [study] section"
printf '[system a]\ntopology torus:k=4x4\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/noeq.ini"
bad noeq "netloom compare: $dir/noeq.ini:2: expected 'key = value' with one word before '=', got key 'topology torus'
netloom compare: $dir/noeq.ini:1: [system a] key 'topology': unset; expected a topology (e.g. torus:k=4x4), inline or in its config file"
# A line with no '=' (a key without its value) is quoted: the line number
# alone was given ("noval.ini:3: expected 'key = value' or a [section]").
printf '[system a]\ntopology = torus:k=4x4\nlink_model\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/noval.ini"
bad noval "netloom compare: $dir/noval.ini:3: 'link_model': expected 'key = value' or a [section]"
# A control character in a quoted value is escaped, as in every other
# one-line error: it reached the terminal raw.
printf '[study]\nbackend = fl\001x\n[system a]\ntopology = torus:k=4x4\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/ctl.ini"
bad ctl "netloom compare: $dir/ctl.ini:2: [study] key 'backend': value 'fl\x01x': expected analytic or flit"
# Every problem at once, each with its line: the file's own and the study's.
printf '[study]\nbackend = nosuch\npreset = nosuch\n[system a]\ntopology = torus:k=4x4\n[workload w]\ntrace = %s\nranks = 16\nplacement = nosuch\nweight = -1\n' "$s/lammps-lj-8.nlt" > "$dir/multi.ini"
bad multi "netloom compare: $dir/multi.ini:10: [workload w] key 'weight': value '-1': expected a finite decimal number > 0 (a double: 4.9e-324 .. 1.8e308)
netloom compare: $dir/multi.ini:2: [study] key 'backend': value 'nosuch': expected analytic or flit
netloom compare: $dir/multi.ini:3: [study] key 'preset': unknown cost preset 'nosuch' (valid: flex, besta, equality, fujiwara, hyperx)
netloom compare: $dir/multi.ini:9: [workload w] key 'placement': value 'nosuch': expected linear or a policy of docs/placement.md (contiguous, random-node, random-router, round-robin, packed, spread, map)
netloom compare: $dir/multi.ini:8: [workload w] key 'ranks': value '16': expected the trace's 8 ranks"
# placement = map: a system without placement_map, or whose map does not
# fit it, is refused before any run (each replay failed, cached, exit 3).
printf '[system a]\ntopology = torus:k=4x4\n[system b]\ntopology = torus:k=2x4\nplacement_map = %s\n[workload w]\ntrace = %s\nplacement = map\n' "$dir/rev.map" "$s/lammps-lj-8.nlt" > "$dir/nomap.ini"
bad nomap "netloom compare: $dir/nomap.ini:8: [workload w] key 'placement': value 'map': system 'a' sets no placement_map; expected a map file ('rank endpoint' lines) in the system
netloom compare: $dir/nomap.ini:8: [workload w] on system 'b': key 'placement_map': $dir/rev.map:2: endpoint 10: expected an endpoint below 8"
# A map no workload reads (all placed linear) was never opened: a
# mistyped path ran, exit 0. One that cannot be read is refused as other
# missing inputs are; one that can may sit there.
printf '[system a]\ntopology = torus:k=4x4\nplacement_map = nothere.map\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/unreadmap.ini"
bad unreadmap "netloom compare: $dir/unreadmap.ini:3: [system a] key 'placement_map': $dir/nothere.map: cannot open map file: No such file or directory; expected a map file ('rank endpoint' lines)"
sed "s|^trace = $s/hpcc-8.nlt|trace = nothere.nlt|" "$dir/study.ini" > "$dir/missing.ini"
out=$("$netloom" compare "$dir/missing.ini" -o "$dir/out-missing" 2>&1 >/dev/null); rc=$?
expect_eq "missing trace status" "$rc" 2
expect_eq "missing trace lines" "$(printf '%s\n' "$out" | wc -l)" 1
# The value as the study writes it, then the path it was looked for at
# (the study's folder): the resolved path was shown as the value.
case $out in *"[workload hpcc] key 'trace': value 'nothere.nlt': $dir/nothere.nlt: cannot open"*) ;; *) fail "missing trace: $out" ;; esac
[ ! -e "$dir/out-missing" ] || fail "missing trace: output written"
sed "s|^trace = $s/hpcc-8.nlt|trace = $s/hpcc-16.nlt|; s/^topology = torus:k=4x4/topology = torus:k=2x4/" "$dir/study.ini" > "$dir/big.ini"
bad big "netloom compare: $dir/big.ini:18: [workload hpcc] key 'placement': value 'random-node' on system 'torus': the job needs 16 endpoints (16 ranks, 1 per node), only 8 of 8 free"
# A system's placement keys, inline or in its config file, were replaced
# in every replay by its workload's placement and seed: its cells ran
# placed otherwise than `netloom replay -c` of the same file, and were
# cached as if the keys were not there. Refused at their lines.
printf '[network]\ntopology = torus:k=4x4\n[replay]\nplacement = random-node\nplacement_seed = 9\n' > "$dir/plsys.ini"
printf '[system a]\nconfig = plsys.ini\n[system b]\ntopology = torus:k=4x4\nplacement_seed = 2\n[workload w]\ntrace = %s\nplacement = contiguous\n' "$s/hpcc-8.nlt" > "$dir/plkeys.ini"
bad plkeys "netloom compare: $dir/plsys.ini:4: [system a] key 'placement': a study places each workload by its own key 'placement', not the system's; expected it in the [workload NAME] sections (docs/procurement.md)
netloom compare: $dir/plsys.ini:5: [system a] key 'placement_seed': a study replays every cell with placement seeds 1..N, N = [study] seeds; expected [study] seeds (docs/procurement.md)
netloom compare: $dir/plkeys.ini:5: [system b] key 'placement_seed': a study replays every cell with placement seeds 1..N, N = [study] seeds; expected [study] seeds (docs/procurement.md)"
# A system's calibration file that does not read as the analytic backend
# reads it was found only by the replays (exit 3, the failure cached: a
# re-run said "1 from the cache, 1 failed"): refused before any run, at
# the key's line (or its system's, naming the config file's).
echo garbage > "$dir/garbage.json"
printf '[analytic]\ncalibration = %s\n' "$dir/garbage.json" > "$dir/calsys.ini"
printf '[system a]\ntopology = torus:k=4x4\ncalibration = nosuch.json\n[system b]\nconfig = calsys.ini\ntopology = torus:k=4x4\n[system c]\ntopology = torus:k=4x4\ncalibration = %s\ncalibration_ranks = 7\n[workload w]\ntrace = %s\n' "$s/calibration-shm.json" "$s/hpcc-8.nlt" > "$dir/cal.ini"
bad cal "netloom compare: $dir/cal.ini:3: [system a] key 'calibration': $dir/nosuch.json: cannot open calibration file: No such file or directory
netloom compare: $dir/cal.ini:4: [system b] key 'calibration': $dir/garbage.json:1: '[' or '{' expected near 'garbage' (set at $dir/calsys.ini:2)
netloom compare: $dir/cal.ini:9: [system c] key 'calibration': calibration $s/calibration-shm.json: no run with 7 ranks (calibration_ranks); expected calibration_ranks = the ranks of one of its runs: 2, 8, 16"
# A replay that fails with an error is a failed cell, not a result to
# keep: its cause (here a trace whose last rank stream does not
# decompress, which only the replay reads) may be gone by the next run,
# which replays it rather than report the error "from the cache".
printf 'netloom-trace 1\nranks 2\napplication "c"\nrank 0\ninit t=0 dur=0\nsend t=0 dur=0 peer=1 tag=1 bytes=8\nfinalize t=0 dur=0\nrank 1\ninit t=0 dur=0\nrecv t=0 dur=0 peer=0 tag=1 bytes=8\nfinalize t=0 dur=0\n' > "$dir/corrupt.txt"
"$netloom" trace encode "$dir/corrupt.txt" "$dir/corrupt.nlt" || fail "encode corrupt"
python3 -c 'import sys; p=sys.argv[1]; d=bytearray(open(p,"rb").read()); i=d.rfind(b"\x28\xb5\x2f\xfd"); d[i+8]^=0xff; open(p,"wb").write(d)' "$dir/corrupt.nlt"
printf '[system a]\ntopology = torus:k=4x4\n[workload w]\ntrace = corrupt.nlt\n' > "$dir/corrupt.ini"
for run in first second; do
  "$netloom" compare "$dir/corrupt.ini" -o "$dir/corrupt" > /dev/null 2>&1; rc=$?
  expect_eq "error cell, $run run: exit status, executed" \
    "$rc $(json "$dir/corrupt/report.json" '[d["execution"][k] for k in ("executed_runs", "cached_runs", "failed_runs")]')" "3 [1, 0, 1]"
done
expect_eq "error cell: its error" "$(json "$dir/corrupt/report.json" '"does not decompress" in d["cells"][0]["seeds"][0]["error"]')" True
# ... named at the workload's trace key, as interfere names a corrupt
# trace at its job's, and as a trace that does not open is named here.
expect_eq "error cell: named at the key" \
  "$(json "$dir/corrupt/report.json" 'd["cells"][0]["seeds"][0]["error"].split(": frame")[0]' | sed 's/offset [0-9]*/offset N/')" \
  "$dir/corrupt.ini:4: [workload w] key 'trace': $dir/corrupt.nlt: rank 1, offset N"

# The files a topology spec names (anynet:file=, graph:file=) are the
# study file's neighbours too, and their contents are in both cache keys:
# an edited anynet file replays and re-prices (a tenth endpoint, its
# terminal cable priced as `netloom cost` prices it); the same files from
# another directory, or a system's config file with a comment added,
# replay and price nothing.
mkdir -p "$dir/topo"
cp "$root/tests/data/topo/ring6.anynet" "$dir/topo/ring.anynet"
printf '0 1\n1 2\n2 0\n' > "$dir/topo/tri.edges"
printf '[analytic]\nlink_model = links\n' > "$dir/topo/sys.ini"
printf '[system a]\ntopology = anynet:file=ring.anynet\n[system g]\nconfig = sys.ini\ntopology = graph:file=tri.edges,p=1\n[workload w]\ntrace = %s\n' "$s/lammps-lj-2.nlt" > "$dir/topo/any.ini"
topo_run() { # WHAT DIRECTORY: run any.ini from DIRECTORY, print the execution figures
  (cd "$2" && "$nl_abs" compare "$dir/topo/any.ini" -o "$dir/topo/out" > /dev/null) || fail "topology file: $1: exit $?"
  json "$dir/topo/out/report.json" '[d["execution"][k] for k in ("executed_runs", "cost_evaluations")]'
}
expect_eq "topology file: first run" "$(topo_run first "$dir/topo")" "[2, 2]"
sed -i '1i # a comment' "$dir/topo/sys.ini"
expect_eq "topology file: a comment in a config file" "$(topo_run comment "$dir/topo")" "[0, 0]"
expect_eq "topology file: another directory" "$(topo_run elsewhere /)" "[0, 0]"
sed -i 's/^router 3 router 4 7/router 3 node 9 router 4 7/' "$dir/topo/ring.anynet"
expect_eq "edited topology file: executed" "$(topo_run edited "$dir/topo")" "[1, 1]"
expect_eq "edited topology file: endpoints and cables" "$(json "$dir/topo/out/report.json" '[d["systems"][0]["endpoints"], d["systems"][0]["cables"]["terminal_cables"]]')" "[10, 10]"
cost_now=$("$netloom" cost "anynet:file=$dir/topo/ring.anynet" --layout rule --json - 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["cost_usd"]["total"])')
expect_eq "edited topology file: cost as netloom cost" "$(json "$dir/topo/out/report.json" 'd["systems"][0]["cost_usd"]')" "$cost_now"
# A topology's files as written: run from another directory, a study's
# refusal quoted the value as the study resolved it ("value
# '@../st/nets/ring.txt': topology '@../st/nets/ring.txt': cannot open
# spec file") and report.json / report.md recorded '@../st/nets/ring.txt',
# which reruns from that directory alone. Now the refusal names the value
# as written and where it was looked for, as a -c file's does, and the
# report records the name made absolute.
mkdir -p "$dir/st/nets" "$dir/away"
rdir=$(realpath "$dir") # the study's folder as realpath names it
echo "anynet:file=ring.anynet" > "$dir/st/nets/ring.txt"
cp "$dir/topo/ring.anynet" "$dir/st/nets/"
printf '[system a]\ntopology = @nets/ring.txt\n[workload w]\ntrace = %s\n' "$s/lammps-lj-2.nlt" > "$dir/st/ok.ini"
printf '[system b]\ntopology = @nets/nosuch.txt\n[system g]\ntopology = graph:file=no.edges,p=1\n[workload w]\ntrace = %s\n' "$s/lammps-lj-2.nlt" > "$dir/st/bad.ini"
out=$(cd "$dir/away" && "$nl_abs" compare ../st/bad.ini -o out 2>&1 > /dev/null); rc=$?
expect_eq "topology as written: refusal" "$rc:$out" "2:netloom compare: ../st/bad.ini:2: [system b] key 'topology': value '@nets/nosuch.txt': topology '@nets/nosuch.txt' (resolved to $rdir/st/nets/nosuch.txt, relative to the study ../st/bad.ini): cannot open spec file: No such file or directory
netloom compare: ../st/bad.ini:4: [system g] key 'topology': value 'graph:file=no.edges,p=1': topology 'graph': parameter 'file': cannot open 'no.edges' (resolved to $rdir/st/no.edges, relative to the study ../st/bad.ini): No such file or directory"
(cd "$dir/away" && "$nl_abs" compare ../st/ok.ini -o out > /dev/null 2>&1) || fail "topology as written: run from another directory: exit $?"
expect_eq "topology as written: report.json records it absolute" "$(json "$dir/away/out/report.json" '[x["topology"] for x in d["systems"]]')" "['@$rdir/st/nets/ring.txt']"
grep -qF "| a | \`@$rdir/st/nets/ring.txt\` |" "$dir/away/out/report.md" || fail "topology as written: report.md: $(grep '^| a |' "$dir/away/out/report.md")"
# A relative placement_map from another directory: the same file, cached.
(cd "$dir/rel" && "$nl_abs" compare map.ini -o "$dir/rel/out" > /dev/null) || fail "relative map from its directory: exit $?"
expect_eq "relative map from another directory: cached" "$(json "$dir/rel/out/report.json" 'd["execution"]["cached_runs"]')" 1

# Ranks that fit as the replay places them: 8 ranks on 4 endpoints with
# ranks_per_node = 2 under a policy, or a map putting two ranks on each,
# run (as `netloom replay` runs them); linear with ranks_per_node = 2 is
# refused before any run, as the replay refuses it.
printf '[system a]\ntopology = torus:k=2x2\nlink_model = links\nranks_per_node = 2\n[workload w]\ntrace = %s\nplacement = contiguous\n' "$s/lammps-lj-8.nlt" > "$dir/rpn.ini"
"$netloom" compare "$dir/rpn.ini" -o "$dir/rpn" > /dev/null 2> "$dir/rpn.err"; rc=$?
expect_eq "ranks_per_node: exit status" "$rc:$(cat "$dir/rpn.err")" "0:"
rpn_replay=$("$netloom" replay "$s/lammps-lj-8.nlt" -s topology=torus:k=2x2 -s link_model=links -s ranks_per_node=2 -s placement=contiguous -s placement_seed=1 --json - 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"]["runtime"]["predicted_s"])')
expect_eq "ranks_per_node: the replay's runtime" "$(json "$dir/rpn/report.json" 'd["cells"][0]["runtime_s"]')" "$rpn_replay"
for i in 0 1 2 3 4 5 6 7; do echo "$i $((i / 2))"; done > "$dir/two.map"
printf '[system a]\ntopology = torus:k=2x2\nlink_model = links\nplacement_map = two.map\n[workload w]\ntrace = %s\nplacement = map\n' "$s/lammps-lj-8.nlt" > "$dir/twomap.ini"
"$netloom" compare "$dir/twomap.ini" -o "$dir/twomap" > /dev/null 2> "$dir/twomap.err"; rc=$?
expect_eq "two ranks per endpoint by map: exit status" "$rc:$(cat "$dir/twomap.err")" "0:"
printf '[system a]\ntopology = torus:k=4x4\nranks_per_node = 2\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/rpnlinear.ini"
bad rpnlinear "netloom compare: $dir/rpnlinear.ini:4: [workload w] on system 'a': key 'ranks_per_node': 2 ranks per endpoint need a placement policy (placement = linear puts rank r on endpoint r); set placement, e.g. contiguous (docs/placement.md)"
printf '[system a]\ntopology = torus:k=2x2\n[workload w]\ntrace = %s\nplacement = contiguous\n[workload l]\ntrace = %s\n' "$s/lammps-lj-8.nlt" "$s/lammps-lj-8.nlt" > "$dir/nofit.ini"
bad nofit "netloom compare: $dir/nofit.ini:5: [workload w] key 'placement': value 'contiguous' on system 'a': the job needs 8 endpoints (8 ranks, 1 per node), only 4 of 4 free
netloom compare: $dir/nofit.ini:7: [workload l] trace '$s/lammps-lj-8.nlt': 8 ranks; expected at most the 4 endpoints of system 'a' (placement linear: one rank per endpoint)"

# A topology that does not build: at the line of its key.
printf '[system a]\ntopology = torus:k=1x4\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/badtopo.ini"
out=$("$netloom" compare "$dir/badtopo.ini" -o "$dir/out-badtopo" 2>&1 >/dev/null); rc=$?
case "$rc:$out" in
"2:netloom compare: $dir/badtopo.ini:2: [system a] key 'topology': value 'torus:k=1x4': "*) ;;
*) fail "bad topology: expected its key's line, got '$rc:$out'" ;;
esac

# Sections without keys are sections: an empty system is refused for its
# topology (not dropped, so reference = b finds it), an empty workload
# for its trace (each at its header's line, where the key is missing), an
# empty unknown section or second [study] as such.
printf '[study]\nreference = b\n[system a]\ntopology = torus:k=4x4\n[system b]\n[workload w]\ntrace = %s\n[workload x]\n[bogus]\n[study]\n' "$s/lammps-lj-8.nlt" > "$dir/empty.ini"
bad empty "netloom compare: $dir/empty.ini:9: section [bogus]: expected [study], [system NAME] or [workload NAME]
netloom compare: $dir/empty.ini:10: [study] given twice (first at line 1); expected one [study] section
netloom compare: $dir/empty.ini:8: [workload x] key 'trace': missing; expected a trace archive (.nlt)
netloom compare: $dir/empty.ini:5: [system b] key 'topology': unset; expected a topology (e.g. torus:k=4x4), inline or in its config file"
# A typo of a section's kind names the header meant; another word does not.
printf '[study]\nreference = a\n[system a]\ntopology = torus:k=4x4\n[sytem b]\n[workload w]\ntrace = %s\n[wrkload x]\ntrace = %s\n[bogus]\n' "$s/lammps-lj-8.nlt" "$s/lammps-lj-8.nlt" > "$dir/typo.ini"
bad typo "netloom compare: $dir/typo.ini:5: section [sytem b]: expected [study], [system NAME] or [workload NAME] (did you mean [system b]?)
netloom compare: $dir/typo.ini:8: section [wrkload x]: expected [study], [system NAME] or [workload NAME] (did you mean [workload x]?)
netloom compare: $dir/typo.ini:10: section [bogus]: expected [study], [system NAME] or [workload NAME]"
# A kind without its name is suggested with one ('[sytem]' and '[systems]'
# suggested '[system]', which is refused too); a name glued to the kind
# is set apart.
printf '[system a]\ntopology = torus:k=4x4\n[sytem]\n[systems]\n[workloadlammps]\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/noname.ini"
bad noname "netloom compare: $dir/noname.ini:3: section [sytem]: expected [study], [system NAME] or [workload NAME] (did you mean [system NAME]?)
netloom compare: $dir/noname.ini:4: section [systems]: expected [study], [system NAME] or [workload NAME] (did you mean [system NAME]?)
netloom compare: $dir/noname.ini:5: section [workloadlammps]: expected [study], [system NAME] or [workload NAME] (did you mean [workload lammps]?)"
# A reference that names no system said only "expected the name of a
# [system NAME]": it lists the systems, and the one it is a typo of.
printf '[study]\nreference = fat-tree\n[system torus]\ntopology = torus:k=4x4\n[system fattree]\ntopology = fattree:k=4,n=2\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/badref.ini"
bad badref "netloom compare: $dir/badref.ini:2: [study] key 'reference': value 'fat-tree': expected the name of a [system NAME] (did you mean 'fattree'? systems: torus, fattree)"
sed 's/^reference = fat-tree$/reference = dragonfly/' "$dir/badref.ini" > "$dir/badref2.ini"
bad badref2 "netloom compare: $dir/badref2.ini:2: [study] key 'reference': value 'dragonfly': expected the name of a [system NAME] (systems: torus, fattree)"
# What the flit network refuses only as it builds (UGAL-G's live view
# with threads or partitions, ugal queue = routed without
# sequential_allocation) ran the study, every replay of the system an
# error cell (exit 3, report written); refused before any run now, as
# netloom replay refuses it, inline at routing_function's line, from a
# config file at its own.
printf '[study]\nbackend = flit\n[system d]\ntopology = dragonfly:a=4,p=2,h=2\nrouting_function = ugal:mode=global\nthreads = 2\n[system e]\ntopology = dragonfly:a=4,p=2,h=2\nrouting_function = ugal:queue=routed\n[system f]\nconfig = ugalg.ini\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/flitbuild.ini"
printf '[network]\ntopology = dragonfly:a=4,p=2,h=2\nrouting_function = ugal:mode=global\n[simulation]\npartitions = 2\n' > "$dir/ugalg.ini"
bad flitbuild "netloom compare: $dir/flitbuild.ini:5: [system d]: routing_function 'ugal:mode=global,inter=router,threshold=0,snapshot=0,queue=credit' reads the live global congestion view, which threads = 2 cannot give (other partitions' channels change meanwhile); expected partitions = 1 and threads = 1
netloom compare: $dir/flitbuild.ini:9: [system e]: routing_function 'ugal:mode=local,inter=router,threshold=0,snapshot=0,queue=routed' counts the flits routed to each port and not yet sent, which needs [router] sequential_allocation = 1, got 0
netloom compare: $dir/flitbuild.ini:10: [system f]: $dir/ugalg.ini:3: routing_function 'ugal:mode=global,inter=router,threshold=0,snapshot=0,queue=credit' reads the live global congestion view, which partitions = 2 (from $dir/ugalg.ini:5) cannot give (other partitions' channels change meanwhile); expected partitions = 1 and threads = 1"
# A key before the first header was dropped silently.
printf 'seeds = 3\n[system a]\ntopology = torus:k=4x4\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/nosection.ini"
bad nosection "netloom compare: $dir/nosection.ini:1: key 'seeds' before any section; expected it under [study], [system NAME] or [workload NAME]"
# An empty backend: one line, not one more per system with a '-s:' prefix.
printf '[study]\nbackend =\n[system a]\ntopology = torus:k=4x4\n[system b]\ntopology = torus:k=2x4\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/nobackend.ini"
bad nobackend "netloom compare: $dir/nobackend.ini:2: [study] key 'backend': value '': expected analytic or flit"

# Where the report cannot go is found before any run: exit 2, nothing run
# (no new cache entry), the previous report untouched, rather than every
# replay run and then a new report.json beside the old index.html.
printf '[system a]\ntopology = torus:k=4x4\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/w1.ini"
printf '[study]\nseeds = 2\n' | cat "$dir/w1.ini" - > "$dir/w2.ini"
"$netloom" compare "$dir/w1.ini" -o "$dir/w" > /dev/null || fail "report place: first run"
cp -r "$dir/w" "$dir/w0"
rm "$dir/w/report.md"
mkdir "$dir/w/report.md"
out=$("$netloom" compare "$dir/w2.ini" -o "$dir/w" 2>&1 >/dev/null); rc=$?
expect_eq "report.md a directory" "$rc:$out" "2:netloom compare: -o: $dir/w/report.md: is a directory; expected a file name to write"
expect_eq "report.md a directory: nothing run" "$(ls "$dir/w/cache" | wc -l)" "$(ls "$dir/w0/cache" | wc -l)"
cmp -s "$dir/w/report.json" "$dir/w0/report.json" || fail "report.md a directory: report.json replaced"
rmdir "$dir/w/report.md"
cp "$dir/w0/report.md" "$dir/w/report.md"
out=$("$netloom" compare "$dir/w1.ini" -o "$dir/w1.ini" 2>&1 >/dev/null); rc=$?
expect_eq "-o a file" "$rc:$out" "2:netloom compare: -o $dir/w1.ini: not a directory; expected a directory to write the report to"
out=$("$netloom" compare "$dir/w1.ini" -o "" 2>&1 >/dev/null); rc=$?
expect_eq "-o ''" "$rc:$out" "2:netloom compare: -o '': empty directory name; expected a directory to write the report to"
# '-' is standard output, which a report of three files and a cache cannot
# go to (it made a directory named '-', as replay --otf2 does not).
out=$(cd "$dir" && "$nl_abs" compare "$dir/w1.ini" -o - 2>&1 >/dev/null); rc=$?
expect_eq "-o -" "$rc:$out" "2:netloom compare: -o '-': not a directory name (the report is a directory of files, it cannot go to standard output); expected a directory to write the report to (./- for one of that name)"
[ ! -e "$dir/-" ] || fail "-o -: a directory '-' was made"
# A second study file said only "unexpected argument 'X'".
out=$("$netloom" compare "$dir/w1.ini" "$dir/w1.ini" -o "$dir/two" 2>&1 >/dev/null); rc=$?
expect_eq "two studies" "$rc:$out" "2:netloom compare: unexpected argument '$dir/w1.ini' after STUDY.ini; expected one study file"
[ ! -e "$dir/two" ] || fail "two studies: $dir/two was made"
# DIR in a missing folder: named with its option, as every output is
# (it said "cannot create directory: No such file or directory").
out=$("$netloom" compare "$dir/w1.ini" -o "$dir/nodir/x" 2>&1 >/dev/null); rc=$?
expect_eq "-o in a missing folder" "$rc:$out" "2:netloom compare: -o: $dir/nodir/x: $dir/nodir: no such directory; expected an existing folder to write to"
# DIR under a file: the file named (it said "$dir/w1.ini/x: Not a directory").
out=$("$netloom" compare "$dir/w1.ini" -o "$dir/w1.ini/x" 2>&1 >/dev/null); rc=$?
expect_eq "-o under a file" "$rc:$out" "2:netloom compare: -o: $dir/w1.ini/x: $dir/w1.ini: not a directory; expected a folder to write to"
mkdir "$dir/wc"
: > "$dir/wc/cache"
out=$("$netloom" compare "$dir/w1.ini" -o "$dir/wc" 2>&1 >/dev/null); rc=$?
expect_eq "DIR/cache a file" "$rc:$out" "2:netloom compare: -o: $dir/wc/cache: not a directory; expected a directory for the report's cache"
# A write that fails after the runs (a full disk; here a file size limit
# below index.html's size) is status 1, and the report is the previous
# one whole, three files and no temporary one left.
limit=$(( ($(stat -c %s "$dir/w/index.html") - 1) / 1024 ))
out=$(trap '' XFSZ; ulimit -f "$limit"; "$netloom" compare "$dir/w2.ini" -o "$dir/w" 2>&1 >/dev/null); rc=$?
expect_eq "write fails" "$rc:$out" "1:netloom compare: -o: $dir/w/index.html: write failed: File too large"
for f in report.json report.md index.html; do
  cmp -s "$dir/w/$f" "$dir/w0/$f" || fail "write fails: $f replaced"
done
expect_eq "write fails: files" "$(LC_ALL=C ls -A "$dir/w" | tr '\n' ' ')" ".report.lock cache index.html report.json report.md "

# Only the weights' ratios matter: both workloads at 1e308 (whose sum is
# inf) or 4e-324 (whose products with a logarithm are 0) give the relative
# runtime of weight 1, not exactly 1 for every system.
for wt in 1 1e308 4e-324; do
  printf '[system t]\ntopology = torus:k=4x4\nlink_model = links\n[system f]\ntopology = fattree:k=4,n=2\nlink_model = links\n[workload a]\ntrace = %s\nweight = %s\n[workload b]\ntrace = %s\nweight = %s\n' \
    "$s/lammps-lj-8.nlt" "$wt" "$s/hpcc-8.nlt" "$wt" > "$dir/weight.ini"
  "$netloom" compare "$dir/weight.ini" -o "$dir/weight" > /dev/null || fail "weight $wt: exit $?"
  rel=$(json "$dir/weight/report.json" 'd["systems"][1]["relative_runtime"]')
  [ "$wt" = 1 ] && rel1=$rel
  expect_eq "weight $wt: relative runtime" "$rel" "$rel1"
done
[ "$rel1" != 1.0 ] || fail "weight: the systems tie, nothing tested"

# study.contention names each system's path_select (the analytic
# backend's choice among equal-cost paths), not always spread.
printf '[system a]\ntopology = fattree:k=4,n=2\npath_select = first\n[system b]\ntopology = torus:k=4x4\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/paths.ini"
"$netloom" compare "$dir/paths.ini" -o "$dir/paths" > /dev/null || fail "path_select: exit $?"
expect_eq "path_select: contention" "$(json "$dir/paths/report.json" 'd["study"]["contention"].split("(")[2].split(")")[0]')" \
  "path_select = first on 'a': the lowest-numbered closer port at every router, for every pair; path_select = spread on 'b': a hash of the pair picks one of the equal-cost paths"
grep -q "path_select = first on &apos;a&apos;" "$dir/paths/index.html" || fail "path_select: index.html"

# Routing against the family and the VCs, before any run: the registry's
# own checks (nca is for fat trees; dor on a torus needs 2 dateline VCs).
sed 's/^routing_function = dor/routing_function = nca/' "$dir/study.ini" > "$dir/family.ini"
bad family "netloom compare: $dir/family.ini:8: [system torus] key 'routing_function': value 'nca': routing function 'nca' does not run on topology 'torus' (it supports: fattree, clos); set routing_function to one that does: dor, valiant, min, ugal, lbr, duato, updown, updown_adaptive"
sed 's/^routing_function = dor/routing_function = dor\nnum_vcs = 1/' "$dir/study.ini" > "$dir/vcs.ini"
bad vcs "netloom compare: $dir/vcs.ini:8: [system torus] key 'routing_function': value 'dor': routing function 'dor' on a torus needs an even num_vcs >= 2 (two dateline classes), got 1 (num_vcs set at $dir/vcs.ini:9)"
# num_vcs from the system's config file: named where it was set.
printf '[router]\nnum_vcs = 1\n' > "$dir/vcs-sys.ini"
sed "s|^routing_function = dor|routing_function = dor\nconfig = $dir/vcs-sys.ini|" "$dir/study.ini" > "$dir/vcsfile.ini"
bad vcsfile "netloom compare: $dir/vcsfile.ini:8: [system torus] key 'routing_function': value 'dor': routing function 'dor' on a torus needs an even num_vcs >= 2 (two dateline classes), got 1 (num_vcs set at $dir/vcs-sys.ini:2)"

# A system that deadlocks (dor without dateline classes, 1 VC of 2 flits on
# a ring) is a failed cell: the others are computed, the report is
# written, exit status 3 (docs/procurement.md).
cat > "$dir/fail.ini" <<EOS
[study]
backend = flit
reference = ok
[system ok]
topology = torus:k=8
routing_function = dor
num_vcs = 2
[system ring]
topology = torus:k=8
routing_function = dor:dateline=0
num_vcs = 1
vc_buf_size = 2
[workload lammps]
trace = $s/lammps-lj-8.nlt
EOS
"$netloom" compare "$dir/fail.ini" -o "$dir/f" > /dev/null 2>&1; rc=$?
expect_eq "failed cell: exit status" "$rc" 3
expect_eq "failed cell: statuses" "$(json "$dir/f/report.json" '[c["status"] for c in d["cells"]]')" "['ok', 'deadlock']"
expect_eq "failed cell: ok computed" "$(json "$dir/f/report.json" 'd["cells"][0]["runtime_s"] > 0 and d["systems"][0]["relative_runtime"] == 1.0')" True
expect_eq "failed cell: no aggregate" "$(json "$dir/f/report.json" 'd["systems"][1]["relative_runtime"] is None and d["cells"][1]["runtime_s"] is None')" True
expect_eq "failed cell: message" "$(json "$dir/f/report.json" '"network deadlock" in d["cells"][1]["seeds"][0]["error"]')" True
expect_eq "failed cell: counted" "$(json "$dir/f/report.json" 'd["execution"]["failed_runs"]')" 1
grep -q '| lammps (weight 1) | .* s (x1.000) | deadlock |' "$dir/f/report.md" || fail "failed cell: report.md"
# ... and no busiest links, saying why, where it read as "0 links used".
expect_eq "failed cell: links" "$(json "$dir/f/report.json" 'd["cells"][1]["busiest_links"]')" \
  "{'unavailable': 'the cell failed (deadlock, seed 1): no link use reported'}"
grep -q '^| lammps | ring | n/a | n/a | the cell failed (deadlock, seed 1): no link use reported |$' "$dir/f/report.md" || fail "failed cell: report.md links"
# Why it failed is in report.md and index.html too, not only report.json.
grep -q '^| lammps | ring | 1 | deadlock | .*network deadlock.* |$' "$dir/f/report.md" || fail "failed cell: report.md message"
grep -q '<table id="failed">' "$dir/f/index.html" || fail "failed cell: index.html failed runs"
grep -q 'data-k="cells/1/seeds/0/error">.*network deadlock' "$dir/f/index.html" || fail "failed cell: index.html message"
grep -q 'Failed runs' "$dir/a/report.md" "$dir/a/index.html" && fail "failed runs listed where every run ended"
# Seeds 2..3 of a workload placed without the seed reuse seed 1's
# failure: one row "1-3" and one failed run, where each seed was listed
# and counted.
sed 's/^reference = ok$/&\nseeds = 3/; s/^trace = .*/&\nplacement = contiguous/' "$dir/fail.ini" > "$dir/fail3.ini"
"$netloom" compare "$dir/fail3.ini" -o "$dir/f3" > /dev/null 2>&1; rc=$?
expect_eq "failed reused seeds: exit, failed, reused" \
  "$rc $(json "$dir/f3/report.json" '[d["execution"][k] for k in ("failed_runs", "reused_runs")]')" "3 [1, 4]"
expect_eq "failed reused seeds: report.md rows" "$(grep -c '^| lammps | ring |.*| deadlock |' "$dir/f3/report.md")" 1
grep -q '^| lammps | ring | 1-3 | deadlock | .*network deadlock.* |$' "$dir/f3/report.md" || fail "failed reused seeds: report.md"
expect_eq "failed reused seeds: index.html rows" "$(grep -c 'data-k="cells/1/seeds/[0-9]/error"' "$dir/f3/index.html")" 1
grep -q 'seeds/0/seed" data-v="1">1</span><span data-k="cells/1/seeds/2/seed" data-v="3">-3</span>' "$dir/f3/index.html" ||
  fail "failed reused seeds: index.html seeds"

# A system's own layout keys (layout_preset, layout_pack, ...) price and
# cable it, as they lay out its cable_latency replays: two systems that
# differ only in them get the cost and cables of `netloom cost` with the
# same options (the study's preset and --layout rule for the keys a
# system does not set), and the cost cache keys them: an edited
# layout_preset re-prices that system alone. The costs are compared as
# written: both round to the cent (report.json had 16809.056 where cost
# --json had 16809.06). Priced on the study's
# layout, system a got b's $143,519.54 and 87.2 m while its replays ran on
# the one-cabinet besta layout.
mkdir -p "$dir/lay"
cat > "$dir/lay/s.ini" <<EOS
[system a]
topology = fattree:k=4,n=2
cable_latency = 1
layout_pack = canonical
layout_preset = besta
[system b]
topology = fattree:k=4,n=2
cable_latency = 1
[system c]
config = c.ini
[workload w]
trace = $s/lammps-lj-8.nlt
EOS
printf '[network]\ntopology = fattree:k=4,n=2\n[layout]\nlayout_preset = equality\n' > "$dir/lay/c.ini"
lay_cost() { # SPEC OPTIONS...: [cost, length, cabinets] of netloom cost --layout rule
  "$netloom" cost "$@" --layout rule --json - 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print([d["cost_usd"]["total"], round(d["length_m"], 1), d["cabinets"]["count"]])'
}
lay_sys() { # NAME: [cost, length, cabinets] of system NAME in the layout study's report
  json "$dir/lay/out/report.json" "[[s['cost_usd'], round(s['cables']['length_m'], 1), s['cables']['cabinets']] for s in d['systems'] if s['name'] == '$1'][0]"
}
"$netloom" compare "$dir/lay/s.ini" -o "$dir/lay/out" > /dev/null || fail "layout keys: exit $?"
expect_eq "layout keys: a as netloom cost" "$(lay_sys a)" "$(lay_cost fattree:k=4,n=2 --pack canonical --preset besta)"
expect_eq "layout keys: b on the study's" "$(lay_sys b)" "$(lay_cost fattree:k=4,n=2 --preset flex)"
expect_eq "layout keys: c from its config file" "$(lay_sys c)" "$(lay_cost fattree:k=4,n=2 --preset equality)"
expect_eq "layout keys: report.json says whose" "$(json "$dir/lay/out/report.json" '[(s["cables"]["layout"], s["cables"]["preset"], s["cables"]["rule"]) for s in d["systems"]]')" "[('system', 'besta', 'canonical'), ('study', 'flex', 'tree-pods'), ('system', 'equality', 'tree-pods')]"
grep -q 'System a is priced and cabled with its own layout keys: preset \*\*besta\*\*, packaging rule `canonical`' "$dir/lay/out/report.md" || fail "layout keys: report.md note"
sed -i 's/^layout_preset = besta/layout_preset = fujiwara/' "$dir/lay/s.ini"
"$netloom" compare "$dir/lay/s.ini" -o "$dir/lay/out" > /dev/null || fail "layout keys: edited preset: exit $?"
expect_eq "layout keys: edited preset re-prices a alone" "$(json "$dir/lay/out/report.json" '[d["execution"][k] for k in ("cost_evaluations", "cost_cached")]')" "[1, 2]"
expect_eq "layout keys: a as netloom cost after the edit" "$(lay_sys a)" "$(lay_cost fattree:k=4,n=2 --pack canonical --preset fujiwara)"
# A layout key that cannot lay its system out is refused before any run,
# at its line (or its config file's).
printf '[system a]\ntopology = fattree:k=4,n=2\nlayout_pack = flex-fig7\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/lay/bad.ini"
"$netloom" compare "$dir/lay/bad.ini" -o "$dir/lay/bad" > /dev/null 2> "$dir/lay/bad.err"; rc=$?
expect_eq "layout keys: bad pack: exit status" "$rc" 2
expect_eq "layout keys: bad pack: message" "$(cat "$dir/lay/bad.err")" "netloom compare: $dir/lay/bad.ini:3: [system a] key 'layout_pack': value 'flex-fig7': the rule does not apply to fattree:k=4,n=2; expected a rule for its family, or unset"
# An annealing key where nothing anneals is refused at its line, not
# ignored: the price's rule order (set, or the study's default, even to
# the key's default value: a cached rule-order price did not check it), or
# with cable_latency and no layout_placement the replays' auto on a rule
# with its own floor order. They ran and exited 0.
printf '[system a]\ntopology = torus:k=8x8\nlayout_placement = rule\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/lay/ann.ini"
"$netloom" compare "$dir/lay/ann.ini" -o "$dir/lay/ann" > /dev/null || fail "layout keys: rule order: exit $?"
sed -i 's/^layout_placement = rule$/&\nlayout_trials = 2/' "$dir/lay/ann.ini"
"$netloom" compare "$dir/lay/ann.ini" -o "$dir/lay/ann" > /dev/null 2> "$dir/lay/ann.err"; rc=$?
expect_eq "layout keys: trials with rule: exit status" "$rc" 2
expect_eq "layout keys: trials with rule: message" "$(cat "$dir/lay/ann.err")" "netloom compare: $dir/lay/ann.ini:4: [system a] key 'layout_trials': value '2': only the annealing uses it, and layout_placement = rule keeps the packaging rule's floor order; expected layout_placement = anneal with it, or layout_trials unset"
printf '[system a]\ntopology = fattree:k=4,n=2\nlayout_seed = 1\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/lay/ann2.ini"
"$netloom" compare "$dir/lay/ann2.ini" -o "$dir/lay/ann2" > /dev/null 2> "$dir/lay/ann2.err"; rc=$?
expect_eq "layout keys: seed on the study's rule order: exit status" "$rc" 2
expect_eq "layout keys: seed on the study's rule order: message" "$(cat "$dir/lay/ann2.err")" "netloom compare: $dir/lay/ann2.ini:3: [system a] key 'layout_seed': value '1': only the annealing uses it, and layout_placement = rule (the default) keeps the packaging rule's floor order; expected layout_placement = anneal with it, or layout_seed unset"
printf '[system a]\ntopology = torus:k=8x8\ncable_latency = 1\nlayout_iterations = 1000\n[workload w]\ntrace = %s\n' "$s/lammps-lj-8.nlt" > "$dir/lay/ann3.ini"
"$netloom" compare "$dir/lay/ann3.ini" -o "$dir/lay/ann3" > /dev/null 2> "$dir/lay/ann3.err"; rc=$?
expect_eq "layout keys: iterations on the replays' own order: exit status" "$rc" 2
expect_eq "layout keys: iterations on the replays' own order: message" "$(cat "$dir/lay/ann3.err")" "netloom compare: $dir/lay/ann3.ini:4: [system a] key 'layout_iterations': value '1000': only the annealing uses it, and layout_placement = auto (the default) keeps the floor order of rule 'grid-folded' (torus:k=8x8,p=1); expected layout_placement = anneal with it, or layout_iterations unset"

# A workload that deadlocks on every system: the report's charts say so
# instead of gnuplot's warnings on stderr and a lost cost/power chart.
printf 'netloom-trace 1\nranks 2\napplication "dl"\nrank 0\ninit t=0 dur=0\nrecv t=0 dur=0 peer=1 tag=1 bytes=8\nfinalize t=0 dur=0\nrank 1\ninit t=0 dur=0\nrecv t=0 dur=0 peer=0 tag=1 bytes=8\nfinalize t=0 dur=0\n' > "$dir/dl.txt"
"$netloom" trace encode "$dir/dl.txt" "$dir/dl.nlt" || fail "encode dl"
printf '[system a]\ntopology = torus:k=4x4\nlink_model = links\n[system b]\ntopology = torus:k=2x2\nlink_model = links\n[workload dl]\ntrace = dl.nlt\n' > "$dir/alldl.ini"
"$netloom" compare "$dir/alldl.ini" -o "$dir/alldl" > /dev/null 2> "$dir/alldl.err"; rc=$?
expect_eq "every cell failed: exit status" "$rc" 3
if command -v gnuplot > /dev/null; then
  expect_eq "every cell failed: nothing on stderr" "$(cat "$dir/alldl.err")" ""
  grep -q "no value (a workload failed on every system)" "$dir/alldl/index.html" || fail "every cell failed: performance panel"
  grep -q "not drawn: no cell ran to the end" "$dir/alldl/index.html" || fail "every cell failed: runtime chart note"
  grep -q "not drawn: gnuplot failed" "$dir/alldl/index.html" && fail "every cell failed: a chart lost to gnuplot"
fi

[ $fails -eq 0 ] && echo "compare: all checks passed"
exit $((fails > 0))
