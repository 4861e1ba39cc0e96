#!/usr/bin/env bash
# End-to-end tests of `netloom replay` on synthetic archives.
# usage: replay.sh NETLOOM REPLAY_MKTRACE
# Every check compares values (closed forms, exact messages, exit codes).
set -uo pipefail
netloom=$1
mk=$2
. "$(dirname "$0")/lib.sh"

net=(-s latency_ns=1000 -s bandwidth_gbps=8)

# 1. Ping-pong: 10 x (1 us compute + 2 x (1 us + 100 ns)) = 32 us.
"$mk" "$dir/pp.nlt" pingpong 10 100 || fail "mktrace pingpong"
"$netloom" replay "$dir/pp.nlt" "${net[@]}" --json "$dir/pp.json" > "$dir/pp.txt" || fail "replay pingpong exit $?"
expect_eq "pingpong predicted" "$(json "$dir/pp.json" 'round(d["results"]["runtime"]["predicted_s"]*1e12)')" 32000000
expect_eq "pingpong recorded" "$(json "$dir/pp.json" 'round(d["results"]["runtime"]["recorded_s"]*1e12)')" 10000000
expect_eq "pingpong ratio" "$(json "$dir/pp.json" 'round(d["results"]["runtime"]["ratio"],6)')" 3.2
expect_eq "pingpong messages" "$(json "$dir/pp.json" 'd["results"]["messages"]["count"]')" 20
expect_eq "pingpong bytes" "$(json "$dir/pp.json" 'd["results"]["messages"]["bytes"]')" 2000
expect_eq "pingpong rank0 compute" "$(json "$dir/pp.json" 'round(d["results"]["ranks"][0]["compute_s"]*1e12)')" 10000000
expect_eq "pingpong latency p50" "$(json "$dir/pp.json" 'round(d["results"]["messages"]["latency"]["p50_s"]*1e12)')" 1100000
expect_eq "pingpong config" "$(json "$dir/pp.json" 'd["config"]["latency_ns"], d["config"]["backend"]')" "(1000.0, 'analytic')"
expect_eq "pingpong version" "$(json "$dir/pp.json" 'd["netloom_version"]')" "$("$netloom" version | cut -d' ' -f2)"
expect_eq "pingpong build" "$(json "$dir/pp.json" 'd["netloom_build"]')" "$("$netloom" version | sed -E 's/^netloom ([^ ]+)$/\1/; s/^netloom [^ ]+ \(build ([^)]+)\)$/\1/')"
expect_eq "pingpong identity" "$(json "$dir/pp.json" 'len(d["trace"]["rank_hashes"]), d["trace"]["ranks"]')" "(2, 2)"
grep -q "predicted runtime  0.000032000 s" "$dir/pp.txt" || fail "text report lacks the predicted runtime"
grep -q "ratio              3.2000 (predicted / recorded; comparability unknown)" "$dir/pp.txt" || fail "text report lacks the ratio"

# A -s of a key the backend does not read ran silently ('-s num_vcs=4' on
# the analytic backend read as a router change): warned of, once per key,
# with the same results; a -c file's keys are not (one file serves both).
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s num_vcs=2 -s traffic=transpose -s num_vcs=4 --json "$dir/pw.json" \
  > /dev/null 2> "$dir/pw.err" || fail "replay with unread keys exit $?"
expect_eq "unread keys: warnings" "$(cat "$dir/pw.err")" "netloom replay: warning: -s traffic=transpose: key 'traffic' of [traffic] is not read by replay (backend analytic); it has no effect
netloom replay: warning: -s num_vcs=4: key 'num_vcs' of [router] is not read by replay (backend analytic); it has no effect"
expect_eq "unread keys: the same prediction" "$(json "$dir/pw.json" 'd["results"]["runtime"]["predicted_s"]')" \
  "$(json "$dir/pp.json" 'd["results"]["runtime"]["predicted_s"]')"
out=$("$netloom" replay "$dir/pp.nlt" -s backend=flit -s topology=torus:k=4 -s num_vcs=4 -s ideal=yes 2>&1 > /dev/null)
expect_eq "unread keys on the flit backend" "$out" "netloom replay: warning: -s ideal=yes: key 'ideal' of [analytic] is not read by replay (backend flit); it has no effect"
# lookahead_decide times BookSim's lookahead routing (routing_delay = 0)
# alone: with the default routing_delay = 1 '-s lookahead_decide=upstream'
# changed nothing, silently. Warned of; not with routing_delay = 0.
out=$("$netloom" replay "$dir/pp.nlt" -s backend=flit -s topology=torus:k=4 -s lookahead_decide=upstream 2>&1 > /dev/null)
expect_eq "lookahead_decide without routing_delay = 0" "$out" "netloom replay: warning: -s lookahead_decide=upstream: key 'lookahead_decide' of [router] is not read by replay (without routing_delay = 0); it has no effect"
out=$("$netloom" replay "$dir/pp.nlt" -s backend=flit -s topology=torus:k=4 -s lookahead_decide=upstream -s routing_delay=0 2>&1 > /dev/null)
expect_eq "lookahead_decide with routing_delay = 0" "$out" ""
# placement_seed seeds the random policies alone: under linear (the
# default) or contiguous '-s placement_seed=7' changed no endpoint, silently.
# Warned of; not under random-node, which draws from it.
out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" -s placement_seed=7 2>&1 > /dev/null)
expect_eq "placement_seed under linear: warned" "$out" "netloom replay: warning: -s placement_seed=7: key 'placement_seed' of [replay] is not read by replay (placement = linear (unset) draws nothing; random-node and random-router do); it has no effect"
out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=links -s placement=contiguous \
  -s placement_seed=7 2>&1 > /dev/null)
expect_eq "placement_seed under contiguous: warned" "$out" "netloom replay: warning: -s placement_seed=7: key 'placement_seed' of [replay] is not read by replay (placement = contiguous draws nothing; random-node and random-router do); it has no effect"
out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=links -s placement=random-node \
  -s placement_seed=7 2>&1 > /dev/null)
expect_eq "placement_seed under random-node: not warned" "$out" ""
# placement_inner orders the ranks sharing a node: with one per node (the
# default ranks_per_node) '-s placement_inner=round_robin' changed nothing.
out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=links -s placement=contiguous \
  -s placement_inner=round_robin 2>&1 > /dev/null)
expect_eq "placement_inner, one rank per node: warned" "$out" "netloom replay: warning: -s placement_inner=round_robin: key 'placement_inner' of [replay] is not read by replay (ranks_per_node = 1 (unset): one rank per node, in either order); it has no effect"
out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=links -s placement=contiguous \
  -s ranks_per_node=2 -s placement_inner=round_robin 2>&1 > /dev/null)
expect_eq "placement_inner, two ranks per node: not warned" "$out" ""
# Under placement = map the file gives each rank its endpoint: neither
# ranks_per_node nor the order is read (the same rank_endpoints); both are
# warned of, in the order given ('-s ranks_per_node=2' ran silently).
printf '0 3\n1 2\n' > "$dir/pp.map"
out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=links -s placement=map \
  -s placement_map="$dir/pp.map" -s ranks_per_node=2 -s placement_inner=round_robin 2>&1 > /dev/null)
expect_eq "ranks_per_node and placement_inner under map: warned" "$out" "netloom replay: warning: -s ranks_per_node=2: key 'ranks_per_node' of [replay] is not read by replay (placement = map gives each rank its endpoint from the map file); it has no effect
netloom replay: warning: -s placement_inner=round_robin: key 'placement_inner' of [replay] is not read by replay (placement = map gives each rank its endpoint from the map file); it has no effect"
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=links -s placement=map \
  -s placement_map="$dir/pp.map" -s ranks_per_node=1 --json "$dir/pm1.json" 2> "$dir/pm1.err" > /dev/null ||
  fail "ranks_per_node=1 under map: exit $?"
expect_eq "ranks_per_node under map: warned" "$(cat "$dir/pm1.err")" "netloom replay: warning: -s ranks_per_node=1: key 'ranks_per_node' of [replay] is not read by replay (placement = map gives each rank its endpoint from the map file); it has no effect"
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=links -s placement=map \
  -s placement_map="$dir/pp.map" -s ranks_per_node=2 --json "$dir/pm2.json" 2> /dev/null > /dev/null ||
  fail "ranks_per_node=2 under map: exit $?"
expect_eq "ranks_per_node under map: the map's endpoints either way" \
  "$(json "$dir/pm1.json" 'd["results"]["rank_endpoints"]'):$(json "$dir/pm2.json" 'd["results"]["rank_endpoints"]')" \
  "[3, 2]:[3, 2]"
# The report names what placed the ranks and nothing it did not read:
# under map the file (it said "map (seed 1, 2 ranks per node)", neither
# read), in the text, the table of several networks and the JSON; the
# seed only under a policy that draws from it.
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=links -s placement=map \
  -s placement_map="$dir/pp.map" -s ranks_per_node=2 2> /dev/null > "$dir/pm2.txt" || fail "map text: exit $?"
expect_eq "map: the text's placement line" "$(grep '^  placement ' "$dir/pm2.txt")" \
  "  placement          map (file $dir/pp.map)"
expect_eq "map: the JSON's placement" "$(json "$dir/pm2.json" 'd["results"]["placement"], d["results"]["placement_map"]')" \
  "('map', '$dir/pp.map')"
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s link_model=links -s placement=map -s placement_map="$dir/pp.map" \
  -t torus:k=4 -t mesh:k=4 --json "$dir/pmt.json" > "$dir/pmt.txt" || fail "map on two networks: exit $?"
expect_eq "map on two networks: the table's placement line" "$(grep '^  placement ' "$dir/pmt.txt" | head -1)" \
  "  placement          map (file $dir/pp.map) on every network"
expect_eq "map on two networks: the JSON's placement" \
  "$(json "$dir/pmt.json" '[(r["placement"], r["placement_map"]) for r in d["runs"]]')" \
  "[('map', '$dir/pp.map'), ('map', '$dir/pp.map')]"
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=links -s placement=contiguous \
  -s ranks_per_node=2 --json "$dir/pc2.json" > "$dir/pc2.txt" || fail "contiguous text: exit $?"
expect_eq "contiguous: the text's placement line, no seed" "$(grep '^  placement ' "$dir/pc2.txt")" \
  "  placement          contiguous (2 ranks per node)"
expect_eq "contiguous: no placement_map in the JSON" "$(json "$dir/pc2.json" '"placement_map" in d["results"]')" False
printf '[router]\nnum_vcs = 4\n' > "$dir/rt.ini"
out=$("$netloom" replay "$dir/pp.nlt" -c "$dir/rt.ini" 2>&1 > /dev/null)
expect_eq "unread keys from a file: no warning" "$out" ""
# The analytic backend reads [network]'s topology and routing_function
# alone, no [simulation] key, and the flit backend none of the experiment's
# phases: '-s cycle_ps=500' and '-s sample_period=4' ran silently, results
# unchanged (checked here too).
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=links -s hop_latency_ns=50 -s cycle_ps=500 -s flit_bytes=64 -s seed=9 \
  -s sample_period=4 --json "$dir/pc.json" > /dev/null 2> "$dir/pc.err" || fail "replay with unread [network] keys exit $?"
expect_eq "unread keys of the analytic backend" "$(cat "$dir/pc.err")" "netloom replay: warning: -s cycle_ps=500: key 'cycle_ps' of [network] is not read by replay (backend analytic); it has no effect
netloom replay: warning: -s flit_bytes=64: key 'flit_bytes' of [network] is not read by replay (backend analytic); it has no effect
netloom replay: warning: -s seed=9: key 'seed' of [simulation] is not read by replay (backend analytic); it has no effect
netloom replay: warning: -s sample_period=4: key 'sample_period' of [simulation] is not read by replay (backend analytic); it has no effect"
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=links -s hop_latency_ns=50 --json "$dir/pc0.json" > /dev/null || fail "replay on torus:k=4 exit $?"
expect_eq "unread [network] keys: the same prediction" "$(json "$dir/pc.json" 'd["results"]["runtime"]["predicted_s"]')" \
  "$(json "$dir/pc0.json" 'd["results"]["runtime"]["predicted_s"]')"
out=$("$netloom" replay "$dir/pp.nlt" -s backend=flit -s topology=torus:k=4 -s max_samples=1 -s seed=3 2>&1 > /dev/null)
expect_eq "experiment keys on the flit backend" "$out" "netloom replay: warning: -s max_samples=1: key 'max_samples' of [simulation] is not read by replay (backend flit); it has no effect"
# On the analytic backend without link sharing or hop latency the route
# changes nothing: 'replay T -t A -t B' printed one runtime for every
# network, unremarked. Warned of; not when links, hops or cables count.
out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" -t torus:k=4 -t fattree:k=4,n=2 2>&1 > /dev/null)
expect_eq "topology unused: warned" "$out" "netloom replay: warning: backend analytic with link_model = none and hop_latency_ns = 0 does not see the topology: the 2 networks predict the same runtime (-s backend=flit models each network flit by flit; -s link_model=links shares the channels of its routes; docs/replay.md)"
out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" -s topology=torus:k=4 -s link_model=endpoint 2>&1 > /dev/null)
expect_eq "topology unused, one network: warned" "$out" "netloom replay: warning: backend analytic with link_model = endpoint and hop_latency_ns = 0 does not see the topology: the topology changes no prediction (-s backend=flit models each network flit by flit; -s link_model=links shares the channels of its routes; docs/replay.md)"
# The JSON says it too (each network's results.network.topology_unused):
# a script comparing networks by their JSON read equal runtimes as equal.
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -t torus:k=4 -t mesh:k=4 --json "$dir/tu.json" > /dev/null 2>&1 || fail "topology unused: json exit $?"
expect_eq "topology unused: json" "$(json "$dir/tu.json" '[r["network"].get("topology_unused") for r in d["runs"]]')" \
  "['link_model = none and hop_latency_ns = 0', 'link_model = none and hop_latency_ns = 0']"
for extra in "-s link_model=links" "-s hop_latency_ns=1" "-s cable_latency=1" "-s backend=flit"; do
  # shellcheck disable=SC2086
  out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" -t torus:k=4 $extra --json "$dir/tu.json" 2>&1 > /dev/null)
  expect_eq "topology used ($extra): no warning" "$(grep -c 'does not see the topology' <<< "$out")" 0
  expect_eq "topology used ($extra): none in the json" "$(json "$dir/tu.json" '"topology_unused" in d["results"]["network"]')" False
done
"$netloom" replay "$dir/pp.nlt" "${net[@]}" --json "$dir/tu.json" > /dev/null 2>&1 || fail "no topology: json exit $?"
expect_eq "no topology: none in the json" "$(json "$dir/tu.json" '"topology_unused" in d["results"]["network"]')" False
out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" 2>&1 > /dev/null)
expect_eq "no topology: no warning" "$out" ""
# replay --help listed [traffic] and the experiment's keys among its own.
help=$("$netloom" replay --help)
expect_eq "replay --help: keys it reads, not synthetic traffic's" \
  "$(grep -cE '^  (injection_rate|traffic|sample_period|max_drain_cycles) ' <<< "$help") $(grep -cE '^  (num_vcs|latency_ns|seed|threads|placement) ' <<< "$help")" "0 5"
# A routing function --topology picked is the family's: with num_vcs = 3
# (no effect on the analytic backend, warned of) the torus's dor was
# checked against it and the replay refused; one the user sets is still
# checked as the flit model would, num_vcs then not warned of.
out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" -t torus:k=4 -s link_model=links -s hop_latency_ns=50 -s num_vcs=3 --json "$dir/pv.json" 2>&1 > /dev/null)
expect_eq "picked routing, num_vcs = 3: warned" "$out" "netloom replay: warning: -s num_vcs=3: key 'num_vcs' of [router] is not read by replay (backend analytic); it has no effect"
expect_eq "picked routing, num_vcs = 3: the same prediction" "$(json "$dir/pv.json" 'd["results"]["runtime"]["predicted_s"]')" \
  "$(json "$dir/pc0.json" 'd["results"]["runtime"]["predicted_s"]')"
out=$("$netloom" replay "$dir/pp.nlt" "${net[@]}" -t torus:k=4 -s num_vcs=3 -s routing_function=dor 2>&1 > /dev/null)
expect_eq "set routing, num_vcs = 3: refused, not warned" "$? $out" "2 netloom replay: -s: key 'routing_function': routing function 'dor' on a torus needs an even num_vcs >= 2 (two dateline classes), got 3"
# The analytic backend runs no routing function (minimal routes,
# path_select): '-t torus:k=4' named the dor it picked in the title and
# the JSON, '-s topology=torus:k=4' or '-s routing_function=min' none.
# No routing on the analytic backend, however given; the flit one names
# its routing however given.
for rt in "-t torus:k=4" "-s topology=torus:k=4" "-t torus:k=4 -s routing_function=min"; do
  # shellcheck disable=SC2086
  "$netloom" replay "$dir/pp.nlt" "${net[@]}" -s link_model=links $rt --json "$dir/ra.json" > "$dir/ra.txt" 2>/dev/null || fail "analytic routing ($rt): exit $?"
  expect_eq "analytic ($rt): no routing in the title" "$(head -1 "$dir/ra.txt")" "netloom replay: $dir/pp.nlt (synthetic-pingpong, 2 ranks) on backend analytic, topology torus:k=4,p=1"
  expect_eq "analytic ($rt): no routing in the JSON" "$(json "$dir/ra.json" '"routing" in d["results"]["network"]')" False
  # shellcheck disable=SC2086
  "$netloom" replay "$dir/pp.nlt" -s backend=flit $rt > "$dir/rf.txt" 2>/dev/null || fail "flit routing ($rt): exit $?"
  case $rt in *routing_function=min) want="min:select=auto,classes=auto,table=auto" ;; *) want="dor:dateline=1" ;; esac
  expect_eq "flit ($rt): routing in the title" "$(head -1 "$dir/rf.txt")" "netloom replay: $dir/pp.nlt (synthetic-pingpong, 2 ranks) on backend flit, topology torus:k=4,p=1, routing $want"
done
for rt in "" "-s routing_function=min"; do
  # shellcheck disable=SC2086
  "$netloom" replay "$dir/pp.nlt" "${net[@]}" -s link_model=links -t torus:k=4 -t fattree:k=4,n=2 $rt --json "$dir/rm.json" > "$dir/rm.txt" 2>/dev/null || fail "analytic, 2 networks ($rt): exit $?"
  expect_eq "analytic, 2 networks ($rt): table routing" "$(grep -E '^  (torus|fattree):' "$dir/rm.txt" | awk '{print $2}' | tr '\n' ' ')" "- - "
  expect_eq "analytic, 2 networks ($rt): JSON routing" "$(json "$dir/rm.json" '[r["routing"] for r in d["runs"]]')" "[None, None]"
done

# 2. Determinism: identical JSON except wall_seconds.
"$netloom" replay "$dir/pp.nlt" "${net[@]}" --json "$dir/pp2.json" > /dev/null || fail "second run"
python3 - "$dir/pp.json" "$dir/pp2.json" <<'PY' || fail "two runs differ beyond wall_seconds"
import re, sys
a, b = (re.sub(r'"wall_seconds": [^\n]*', '', open(p).read()) for p in sys.argv[1:])
sys.exit(a != b)
PY
"$mk" "$dir/st.nlt" stencil 6 20 2000 50000 || fail "mktrace stencil"
for k in 1 2; do
  "$netloom" replay "$dir/st.nlt" -s link_model=endpoint --json "$dir/st$k.json" > /dev/null || fail "stencil run $k"
done
python3 - "$dir/st1.json" "$dir/st2.json" <<'PY' || fail "stencil runs differ beyond wall_seconds"
import re, sys
a, b = (re.sub(r'"wall_seconds": [^\n]*', '', open(p).read()) for p in sys.argv[1:])
sys.exit(a != b)
PY

# 3. Ideal network: the runtime is the compute critical path, 20 x 1.2 x 50 us.
"$netloom" replay "$dir/st.nlt" -s ideal=yes --json "$dir/ideal.json" > /dev/null || fail "ideal replay"
expect_eq "ideal runtime" "$(json "$dir/ideal.json" 'round(d["results"]["runtime"]["predicted_s"]*1e12)')" 1200000000
expect_eq "ideal comm" "$(json "$dir/ideal.json" 'sum(r["comm_s"] for r in d["results"]["ranks"])')" 0.0

# 4. Deadlock: both ranks Send 1 MiB first (rendezvous) -> report, exit 1;
#    the same below the eager threshold completes.
"$mk" "$dir/dl.nlt" deadlock 1048576 || fail "mktrace deadlock"
"$netloom" replay "$dir/dl.nlt" --json "$dir/dl.json" > "$dir/dl.out" 2> "$dir/dl.err"
expect_eq "deadlock exit" $? 1
grep -q "replay deadlock at t=0.000002000 s: 2 of 2 ranks wait forever" "$dir/dl.err" || fail "deadlock summary: $(cat "$dir/dl.err")"
grep -q "rank 0: blocked in op 2 send to 1 tag 7 comm 0 (1048576 bytes)" "$dir/dl.err" || fail "deadlock rank 0 line"
grep -q "waits for: send to 0 tag 7 comm 0, 1048576 bytes, rendezvous: no matching receive posted at world rank 0" "$dir/dl.err" || fail "deadlock rank 1 detail"
expect_eq "deadlock json" "$(json "$dir/dl.json" 'd["results"]["status"], len(d["results"]["deadlock"]["stuck"])')" "('deadlock', 2)"
# No runtime and no finish for ranks that wait forever: null, as serve
# writes them, not 0.0, which a script read as a runtime (and a ratio 0).
expect_eq "deadlock json: no runtime, no finish" \
  "$(json "$dir/dl.json" 'd["results"]["runtime"]["predicted_s"], d["results"]["runtime"]["ratio"], [x["finish_s"] for x in d["results"]["ranks"]]')" \
  "(None, None, [None, None])"
# A timeline asked for is not drawn of a deadlocked replay, and says so
# last (it was missing without a word); the JSON is written, exit 1.
"$netloom" replay "$dir/dl.nlt" --json "$dir/dl2.json" --svg "$dir/dl.svg" --otf2 "$dir/dl.otf2" > /dev/null 2> "$dir/dl2.err"
expect_eq "deadlock with a timeline: exit" $? 1
expect_eq "deadlock with a timeline: last line" "$(tail -1 "$dir/dl2.err")" \
  "netloom replay: --svg $dir/dl.svg and --otf2 $dir/dl.otf2: not written: the replay deadlocked (a timeline is of a run every rank finished)"
[ -e "$dir/dl2.json" ] && [ ! -e "$dir/dl.svg" ] && [ ! -e "$dir/dl.otf2" ] || fail "deadlock with a timeline: files $(ls "$dir" | grep '^dl')"
"$netloom" replay "$dir/dl.nlt" --svg "$dir/dl.svg" > /dev/null 2> "$dir/dl3.err"
expect_eq "deadlock with --svg: last line" "$(tail -1 "$dir/dl3.err")" \
  "netloom replay: --svg $dir/dl.svg: not written: the replay deadlocked (a timeline is of a run every rank finished)"
# A deadlock does not hide a damaged archive: the part the replay did not
# read is checked before the deadlock is said, and damage there is said as
# verify says it (exit 2, nothing written), as when the replay reaches it.
# Here rank 0's first frame claims one op more than it holds (its op count,
# byte 1 of the section after the 64-byte header and the metadata block),
# which the replay, stuck in op 2, never got to; then a frame of rank 1 at
# the end of a long tail after the exchange (frames of 256 bytes).
python3 - "$dir/dl.nlt" "$dir/dl_nops.nlt" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off = 64 + struct.unpack_from('<Q', b, 32)[0]
assert b[off] == ord('F'), b[off]
b[off + 1] += 1
open(sys.argv[2], 'wb').write(b)
PY
{
  printf 'netloom-trace 2\nframe_target 256\nranks 2\n'
  for r in 0 1; do
    printf 'rank %d\ninit t=0 dur=0\nsend t=0 dur=0 peer=%d tag=7 bytes=1048576\nrecv t=0 dur=0 peer=%d tag=7 bytes=1048576\n' $r $((1 - r)) $((1 - r))
    for i in $(seq 1 200); do printf 'compute t=0 dur=%d\n' $((1000 + i)); done
    printf 'finalize t=0 dur=0\n'
  done
} > "$dir/dl_tail.txt"
"$netloom" trace encode "$dir/dl_tail.txt" "$dir/dl_tail.nlt" || fail "encode dl_tail"
"$netloom" replay "$dir/dl_tail.nlt" > /dev/null 2>&1
expect_eq "deadlock before a long tail: exit" $? 1
python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[-30] ^= 0xff; open(sys.argv[2], 'wb').write(b)" \
  "$dir/dl_tail.nlt" "$dir/dl_tail_bad.nlt"
for t in dl_nops dl_tail_bad; do
  out=$("$netloom" trace verify "$dir/$t.nlt" 2>&1); rc=$?
  expect_eq "deadlock, $t: verify exit" $rc 1
  why=${out#netloom trace verify: FAILED: }
  rm -f "$dir/$t.json"
  out=$("$netloom" replay "$dir/$t.nlt" --json "$dir/$t.json" --svg "$dir/$t.svg" 2>&1); rc=$?
  expect_eq "deadlock, $t: replay says the damage, exit" $rc 2
  expect_eq "deadlock, $t: replay's line is verify's" "$out" "netloom replay: $why"
  [ -e "$dir/$t.json" ] || [ -e "$dir/$t.svg" ] && fail "deadlock, $t: an output was written"
done
case $why in "$dir/dl_tail_bad.nlt: rank 1, offset "*) ;; *) fail "dl_tail_bad: damage not in rank 1: $why" ;; esac
"$mk" "$dir/ok.nlt" deadlock 1024 || fail "mktrace small"
# Both messages leave after each rank's 1 us of compute, eagerly, and cross
# at once (link_model none: no shared channel): 1 us + 1000 ns latency +
# 1024 B at 1 B/ns = 3.024 us on either rank.
"$netloom" replay "$dir/ok.nlt" "${net[@]}" --json "$dir/ok.json" > /dev/null 2>&1 || fail "eager exchange should complete (exit $?)"
expect_eq "eager exchange: status, runtime (ps), eager, rendezvous" \
  "$(json "$dir/ok.json" '(d["results"]["status"], round(d["results"]["runtime"]["predicted_s"]*1e12), d["results"]["messages"]["eager"], d["results"]["messages"]["rendezvous"])')" \
  "('ok', 3024000, 2, 0)"

# 4b. A network deadlock on the flit backend: 8 ranks on a ring without VC
#     classes each send to the rank 3 on. The replay fails with the
#     network's one-line report (exit 1) instead of waiting; the JSON names
#     the stuck channels. With dateline classes the same trace completes.
"$mk" "$dir/sh.nlt" shift 8 3 65536 || fail "mktrace shift"
ring=(-s backend=flit -s topology=torus:k=8 -s num_vcs=1 -s vc_buf_size=2 -s packet_bytes=128 -s flit_bytes=16)
"$netloom" replay "$dir/sh.nlt" "${ring[@]}" -s routing_function=dor:dateline=0 --json "$dir/sh.json" > "$dir/sh.out" 2> "$dir/sh.err"
expect_eq "network deadlock exit" $? 1
head -1 "$dir/sh.err" | grep -Eq "^netloom replay: network deadlock at cycle [0-9]+: 32 flits stuck in 16 input VCs that wait on each other: router 0 in-port 1 VC 0 waits for a VC 0 on out-port 0, .* \(global check: nothing in the network can move\)$" || fail "network deadlock line: $(head -1 "$dir/sh.err")"
expect_eq "network deadlock json" "$(json "$dir/sh.json" 'd["results"]["status"], d["results"]["network"]["deadlock"]["input_vcs"], d["results"]["network"]["deadlock"]["check"]')" "('deadlock', 16, 'global')"
expect_eq "network deadlock json: no runtime" "$(json "$dir/sh.json" 'd["results"]["runtime"]["predicted_s"]')" "None"
"$netloom" replay "$dir/sh.nlt" "${ring[@]}" -s num_vcs=2 -s routing_function=dor > /dev/null || fail "shift with datelines should complete (exit $?)"
# The line names the --topology spec as one line of clean text: an anynet
# file in a folder whose name holds an escape sequence and a byte of no
# UTF-8 came out raw (the terminal took the escape).
odd=$dir/$'ring\033[1m\377'
mkdir -p "$odd"
python3 -c 'for r in range(8): print("router %d node %d router %d router %d" % (r, r, (r + 1) % 8, (r - 1) % 8))' > "$odd/ring.anynet"
"$netloom" replay "$dir/sh.nlt" "${ring[@]:0:2}" --topology "anynet:file=$odd/ring.anynet" -s routing_function=min:classes=none "${ring[@]:4}" > /dev/null 2> "$dir/odd.err"
expect_eq "network deadlock exit (anynet)" $? 1
head -1 "$dir/odd.err" | grep -Fq 'ring\x1b[1m\xff/ring.anynet: network deadlock at cycle' || fail "deadlock line not escaped: $(head -c 160 "$dir/odd.err" | od -c | head -4)"

# 5. Links on a topology: busiest links reported.
"$netloom" replay "$dir/st.nlt" -s topology=torus:k=6 -s link_model=links -s report_links=40 --json "$dir/links.json" > "$dir/links.txt" || fail "links replay"
expect_eq "links kinds" "$(json "$dir/links.json" 'sorted(set(l["kind"] for l in d["results"]["network"]["busiest_links"]))')" "['ejection', 'injection', 'link']"
grep -q "busiest links:" "$dir/links.txt" || fail "text report lacks busiest links"
# Utilisation is over the replay's span (the network is not run past the last event).
expect_eq "links utilisation" "$(json "$dir/links.json" '0 < d["results"]["network"]["busiest_links"][0]["utilisation"] <= 1')" True

# 5b. The flit-level backend under the same replay: the network's own
#     keys (topology, packet_bytes, ...) come from the [network] table.
"$netloom" replay "$dir/pp.nlt" -s backend=flit -s topology=torus:k=4 --json "$dir/flit.json" > /dev/null || fail "flit replay"
expect_eq "flit backend" "$(json "$dir/flit.json" 'd["results"]["network"]["backend"], d["results"]["messages"]["count"]')" "('flit', 20)"
expect_eq "flit slower than compute" "$(json "$dir/flit.json" 'd["results"]["runtime"]["predicted_s"] > 1e-5')" True
expect_eq "flit cycles" "$(json "$dir/flit.json" 'd["results"]["network"]["cycles"] * d["config"]["cycle_ps"] <= round(d["results"]["runtime"]["predicted_s"] * 1e12) + d["config"]["cycle_ps"]')" True
# Its busiest links: ranks 0 and 1 sit on neighbouring routers of the
# ring, so each direction's one channel carries 10 messages of 100 bytes,
# 7 flits of 16 bytes each, and no other channel carries anything.
expect_eq "flit busiest links" "$(json "$dir/flit.json" '[(l["from"], l["to"], l["flits"]) for l in d["results"]["network"]["busiest_links"]]')" "[('router 0', 'router 1', 70), ('router 1', 'router 0', 70)]"
expect_eq "flit links add up to flit_hops" "$(json "$dir/flit.json" 'sum(l["flits"] for l in d["results"]["network"]["busiest_links"]) == d["results"]["network"]["flit_hops"]')" True
# The text report says what was simulated (140 flit-hops: the links
# above), the same figures as the JSON; the analytic report has no such line.
"$netloom" replay "$dir/pp.nlt" -s backend=flit -s topology=torus:k=4 > "$dir/flit.txt" || fail "flit replay text"
expect_eq "flit simulated line" "$(grep '^  simulated:' "$dir/flit.txt")" \
  "  simulated: $(json "$dir/flit.json" 'd["results"]["network"]["cycles"]') network cycles, 140 flit-hops (router-to-router channel traversals)"
grep -q "simulated:" "$dir/pp.txt" && fail "analytic report has a simulated line"

# 6. CSV.
"$netloom" replay "$dir/pp.nlt" "${net[@]}" --csv > "$dir/pp.csv" || fail "csv"
expect_eq "csv header" "$(head -1 "$dir/pp.csv")" "rank,compute_s,comm_s,wait_s,finish_s,ops,mpi_calls,messages_sent,bytes_sent"
expect_eq "csv rows" "$(wc -l < "$dir/pp.csv")" 3
# Seconds with 12 decimals (exact ps) in every column: %.12g wrote
# "1e-05" and "1.99e-05" here, 9 decimals in one column and 11 in the next
# on the samples, and rounded runs of 1 s and longer.
expect_eq "csv seconds" "$(tail -n +2 "$dir/pp.csv")" "0,0.000010000000,0.000011000000,0.000011000000,0.000032000000,32,22,10,1000
1,0.000000000000,0.000011000000,0.000019900000,0.000030900000,22,22,10,1000"

# 7. Bad input: one line naming the problem, exit 2, nothing written.
out=$("$netloom" replay "$dir/missing.nlt" --json "$dir/bad.json" 2>&1); rc=$?
expect_eq "missing trace exit" $rc 2
expect_eq "missing trace message" "$out" "netloom replay: $dir/missing.nlt: cannot open: No such file or directory"
[ -e "$dir/bad.json" ] && fail "a failed run wrote JSON"
out=$("$netloom" replay "$dir/pp.nlt" -s eager_treshold=5 2>&1); rc=$?
expect_eq "bad key exit" $rc 2
expect_eq "bad key message" "$out" "netloom replay: -s: unknown key 'eager_treshold' (did you mean 'eager_threshold'?)"
out=$("$netloom" replay "$dir/pp.nlt" -s backend=flitz 2>&1); rc=$?
expect_eq "bad backend exit" $rc 2
expect_eq "bad backend message" "$out" "netloom replay: -s: key 'backend': value 'flitz': expected one of analytic, flit (did you mean 'flit'?)"
# Set in a file: its line (it named no place).
printf '[replay]\nbackend = flitz\n' > "$dir/bk.ini"
out=$("$netloom" replay "$dir/pp.nlt" -c "$dir/bk.ini" 2>&1); rc=$?
expect_eq "bad backend in a file" "$rc:$out" "2:netloom replay: $dir/bk.ini:2: key 'backend': value 'flitz': expected one of analytic, flit (did you mean 'flit'?)"
out=$("$netloom" replay "$dir/pp.nlt" -s topology=torus:k=1 2>&1); rc=$?
expect_eq "bad topology exit" $rc 2
expect_eq "bad topology message" "$out" "netloom replay: -s: key 'topology': topology 'torus': parameter 'k' value '1' out of range: expected each element in 2..65535"
# From a file, the message starts with its line (it named no file).
printf '[network]\ntopology = torus:k=1\n' > "$dir/badtopo.ini"
out=$("$netloom" replay "$dir/pp.nlt" -c "$dir/badtopo.ini" 2>&1); rc=$?
expect_eq "bad topology in a file exit" $rc 2
expect_eq "bad topology in a file message" "$out" "netloom replay: $dir/badtopo.ini:2: key 'topology': topology 'torus': parameter 'k' value '1' out of range: expected each element in 2..65535"
# A routing_function the analytic backend only checks named no file,
# as a topology's did before.
printf '[network]\ntopology = torus:k=4\nrouting_function = zigzag\n' > "$dir/badrf.ini"
out=$("$netloom" replay "$dir/pp.nlt" -c "$dir/badrf.ini" 2>&1); rc=$?
expect_eq "bad routing in a file exit" $rc 2
expect_eq "bad routing in a file message" "${out%% (valid*}" "netloom replay: $dir/badrf.ini:3: key 'routing_function': unknown routing function 'zigzag'"
out=$("$netloom" replay "$dir/pp.nlt" -s topology=torus:k=2 -s link_model=links 2>&1); rc=$?
expect_eq "small topology exit" $rc 0
out=$("$netloom" replay "$dir/st.nlt" -s topology=torus:k=2 2>&1); rc=$?
expect_eq "topology too small exit" $rc 2
expect_eq "topology too small message" "$out" "netloom replay: -s: key 'topology': 'torus:k=2' has 2 endpoints, the trace needs 6 (one per rank); expected a topology of 6 endpoints or more, or ranks sharing endpoints: placement = contiguous, ranks_per_node = 3 (docs/placement.md)"
# The flit backend's default network, not set by the user, is said to be
# unset: the message named "key 'topology': 'torus:k=8x8'" as if given.
awk 'BEGIN { print "netloom-trace 2"; print "ranks 100"; for (r = 0; r < 100; r++)
  printf "rank %d\ninit t=0 dur=0\nbarrier t=0 dur=0\nfinalize t=0 dur=0\n", r }' > "$dir/b100.txt"
"$netloom" trace encode "$dir/b100.txt" "$dir/b100.nlt" || fail "encode 100-rank trace"
out=$("$netloom" replay "$dir/b100.nlt" -s backend=flit 2>&1); rc=$?
expect_eq "default topology too small" "$rc:$out" "2:netloom replay: key 'topology' (unset): 'torus:k=8x8' has 64 endpoints, the trace needs 100 (one per rank); expected a topology of 100 endpoints or more, or ranks sharing endpoints: placement = contiguous, ranks_per_node = 2 (docs/placement.md)"
# A calibration that cannot be read is named where it was set, as the
# other analytic keys are: it said "key 'calibration': unable to open ..."
# with no file line or -s.
printf '[analytic]\ncalibration = nosuch.json\n' > "$dir/cal.ini"
out=$("$netloom" replay "$dir/pp.nlt" -c "$dir/cal.ini" 2>&1); rc=$?
# A relative name is read from the file's folder, and named as written
# and where it was looked for (docs/configuration.md).
expect_eq "calibration in a file, unreadable" "$rc:$out" "2:netloom replay: $dir/cal.ini:2: key 'calibration': nosuch.json (resolved to $(cd "$dir" && pwd -P)/nosuch.json, relative to the config $dir/cal.ini): cannot open calibration file: No such file or directory"
# Given with -s: the key, the file and the OS's reason, worded as
# placement_map's map file (it was jansson's "unable to open ...").
out=$("$netloom" replay "$dir/pp.nlt" -s calibration="$dir/nosuch.json" 2>&1); rc=$?
expect_eq "calibration with -s, unreadable" "$rc:$out" "2:netloom replay: -s: key 'calibration': $dir/nosuch.json: cannot open calibration file: No such file or directory"
# A directory read as an empty file: "/tmp:1: '[' or '{' expected near end of file".
out=$("$netloom" replay "$dir/pp.nlt" -s calibration="$dir" 2>&1); rc=$?
expect_eq "calibration a directory" "$rc:$out" "2:netloom replay: -s: key 'calibration': $dir: is a directory, not a calibration file (netloom-pingpong's JSON)"
printf '{"runs": [{"ranks": 2, "one_way": [{"bytes": 0, "median_seconds": 1e-6}, {"bytes": 8, "median_seconds": 2e-6}]}, {"ranks": 8}]}' > "$dir/cal.json"
out=$("$netloom" replay "$dir/pp.nlt" -s calibration="$dir/cal.json" -s calibration_ranks=4 2>&1); rc=$?
expect_eq "calibration with -s, no such run" "$rc:$out" "2:netloom replay: -s: calibration $dir/cal.json: no run with 4 ranks (calibration_ranks); expected calibration_ranks = the ranks of one of its runs: 2, 8"
# Two runs of the same ranks: the last one was used, silently.
printf '{"runs": [{"ranks": 8}, {"ranks": 2, "one_way": [{"bytes": 0, "median_seconds": 1e-6}, {"bytes": 8, "median_seconds": 2e-6}]}, {"ranks": 2, "one_way": [{"bytes": 0, "median_seconds": 5e-6}, {"bytes": 8, "median_seconds": 6e-6}]}]}' > "$dir/cal2.json"
out=$("$netloom" replay "$dir/pp.nlt" -s calibration="$dir/cal2.json" 2>&1); rc=$?
expect_eq "calibration with two runs of 2 ranks" "$rc:$out" "2:netloom replay: -s: calibration $dir/cal2.json: runs[1] and runs[2] both have 2 ranks; expected one run per rank count"
printf 'not a trace' > "$dir/junk.nlt"
out=$("$netloom" replay "$dir/junk.nlt" 2>&1); expect_eq "junk exit" $? 2
expect_eq "junk message" "$out" "netloom replay: $dir/junk.nlt: unknown trace format: expected a netloom trace archive (.nlt) or a DUMPI .meta file ('numprocs=' and 'fileprefix=' lines) or a SimGrid time-independent trace ('<rank> <action> ...' lines, or a list of such files) or an OTF2 anchor file (NAME.otf2)"
out=$("$netloom" replay 2>&1); expect_eq "no args exit" $? 2
expect_eq "no args message" "$out" "netloom replay: missing TRACE (see 'netloom replay --help')"

# Cancel (format version 2): rank 0 cancels a wildcard receive nothing
# matches (cancelled, as recorded), then receives tag 9; rank 1's isend is
# recorded as cancelled, but replay never cancels a send: one divergence,
# named in the report and the JSON; the replay completes.
cat > "$dir/cx.txt" <<'TXT'
netloom-trace 2
ranks 2
rank 0
init t=0 dur=0
irecv t=10 dur=0 peer=any tag=any bytes=8 req=1
cancel t=10 dur=0 req=1 n_done=1
wait t=10 dur=0 req=1
recv t=10 dur=0 peer=1 tag=9 bytes=8
recv t=10 dur=0 peer=1 tag=5 bytes=8
finalize t=10 dur=0
rank 1
init t=0 dur=0
send t=0 dur=0 peer=0 tag=9 bytes=8
isend t=0 dur=0 peer=0 tag=5 bytes=8 req=3
cancel t=0 dur=0 req=3 n_done=1
wait t=0 dur=0 req=3
finalize t=0 dur=0
TXT
"$netloom" trace encode "$dir/cx.txt" "$dir/cx.nlt" || fail "encode cancel trace"
"$netloom" replay "$dir/cx.nlt" "${net[@]}" --json "$dir/cx.json" > "$dir/cx.out" 2>&1 || fail "replay cancel exit $?"
grep -q "^  cancels: 2 (1 cancelled their request in replay)$" "$dir/cx.out" || fail "cancel count line: $(cat "$dir/cx.out")"
grep -q "^  warning: 1 cancel ended otherwise than in the recorded run; first: rank 1, op 3 (cancel of a request from isend), recorded cancelled, replayed not cancelled$" "$dir/cx.out" || fail "cancel divergence line"
expect_eq "cancel json" "$(json "$dir/cx.json" '(lambda c: (c["calls"], c["cancelled"], c["divergences"], c["first_divergence"]["rank"], c["first_divergence"]["op_index"], c["first_divergence"]["request_op"]))(d["results"]["cancel"])')" "(2, 1, 1, 1, 3, 'isend')"

# Waits/tests on ids with no live request. A polling loop: rank 0 tests
# its receive every 2 us, as the recorded run (slower) did until it came,
# then waits; replay receives it by the first test, so the later tests
# and the wait find it completed: a plain line, no warning. A trace that
# lacks the calls creating ids 7, 6000 and 130 (ids past 4096 are told by
# the largest made, 5000; 130 is below 200, made) warns, naming the
# first. The note before said both as one: "note: 4 waits/tests named
# requests the trace never created or the replay had already completed".
cat > "$dir/poll.txt" <<'TXT'
netloom-trace 2
ranks 2
rank 0
init t=0 dur=0
irecv t=0 dur=0 peer=1 tag=1 bytes=8 req=1
compute t=0 dur=2000000
test t=2000000 dur=0 req=1
compute t=2000000 dur=2000000
test t=4000000 dur=0 req=1
compute t=4000000 dur=2000000
test t=6000000 dur=0 req=1
wait t=6000000 dur=3000000 req=1
finalize t=9000000 dur=0
rank 1
init t=0 dur=0
send t=0 dur=0 peer=0 tag=1 bytes=8
finalize t=0 dur=0
TXT
"$netloom" trace encode "$dir/poll.txt" "$dir/poll.nlt" || fail "encode polling trace"
"$netloom" replay "$dir/poll.nlt" "${net[@]}" --json "$dir/poll.json" > "$dir/poll.out" 2>&1 || fail "replay polling exit $?"
grep -q "^  3 requests named by waits/tests (counted once per id named; start, cancel, request_free too) had already been completed by the replay (sooner than in the recorded run, as when a program polls with MPI_Test)$" "$dir/poll.out" || fail "polling line: $(cat "$dir/poll.out")"
! grep -q "warning\|note" "$dir/poll.out" || fail "polling warns: $(cat "$dir/poll.out")"
expect_eq "polling json" "$(json "$dir/poll.json" '(lambda m: (m["unknown_requests"], m["requests_already_completed"], m["requests_never_created"], "first_never_created" in m))(d["results"]["messages"])')" "(3, 3, 0, False)"
cat > "$dir/nc.txt" <<'TXT'
netloom-trace 2
ranks 2
rank 0
init t=0 dur=0
isend t=0 dur=0 peer=1 tag=1 bytes=8 req=200
wait t=0 dur=0 req=200
isend t=0 dur=0 peer=1 tag=1 bytes=8 req=5000
wait t=0 dur=0 req=5000
wait t=0 dur=0 req=7
test t=0 dur=0 req=5000
wait t=0 dur=0 req=6000
test t=0 dur=0 req=130
wait t=0 dur=0 req=200
finalize t=0 dur=0
rank 1
init t=0 dur=0
recv t=0 dur=0 peer=0 tag=1 bytes=8
recv t=0 dur=0 peer=0 tag=1 bytes=8
finalize t=0 dur=0
TXT
"$netloom" trace encode "$dir/nc.txt" "$dir/nc.nlt" || fail "encode never-created trace"
"$netloom" replay "$dir/nc.nlt" "${net[@]}" --json "$dir/nc.json" > "$dir/nc.out" 2>&1 || fail "replay never-created exit $?"
grep -q "^  2 requests named by waits/tests (counted once per id named; start, cancel, request_free too) had already been completed by the replay (sooner than in the recorded run, as when a program polls with MPI_Test)$" "$dir/nc.out" || fail "never-created: completed line: $(cat "$dir/nc.out")"
grep -q "^  warning: 3 requests named by waits/tests (counted once per id named; start, cancel, request_free too) were never created by the trace (ignored: the trace lacks the calls that made them); first: rank 0, op 5 (wait of request 7)$" "$dir/nc.out" || fail "never-created warning: $(cat "$dir/nc.out")"
expect_eq "never-created json" "$(json "$dir/nc.json" '(lambda m: (m["unknown_requests"], m["requests_already_completed"], m["requests_never_created"], m["first_never_created"]))(d["results"]["messages"])')" "(5, 2, 3, {'rank': 0, 'op_index': 5, 'op': 'wait', 'request': 7})"

# Placement (issue 13): key placement maps ranks with an emu/place policy.
pl=(-s backend=flit -s topology=torus:k=8x8)
"$netloom" replay "$dir/st.nlt" "${pl[@]}" --json "$dir/pl_lin.json" > /dev/null || fail "placement linear"
"$netloom" replay "$dir/st.nlt" "${pl[@]}" -s placement=random-node --json "$dir/pl_r1.json" > "$dir/pl_r1.txt" || fail "placement random"
"$netloom" replay "$dir/st.nlt" "${pl[@]}" -s placement=random-node --json "$dir/pl_r1b.json" > /dev/null || fail "placement random again"
"$netloom" replay "$dir/st.nlt" "${pl[@]}" -s placement=random-node -s placement_seed=2 --json "$dir/pl_r2.json" > /dev/null || fail "placement seed 2"
expect_eq "placement names" "$(json "$dir/pl_lin.json" 'd["results"]["placement"], "rank_endpoints" in d["results"]')" "('linear', False)"
expect_eq "placement random name" "$(json "$dir/pl_r1.json" 'd["results"]["placement"], len(set(d["results"]["rank_endpoints"]))')" "('random-node', 6)"
grep -q "^  placement          random-node (seed 1, 1 rank per node)$" "$dir/pl_r1.txt" || fail "placement text line"
runtime='round(d["results"]["runtime"]["predicted_s"]*1e12)'
[ "$(json "$dir/pl_lin.json" "$runtime")" != "$(json "$dir/pl_r1.json" "$runtime")" ] || fail "random placement should change the runtime"
[ "$(json "$dir/pl_r1.json" 'd["results"]["rank_endpoints"]')" != "$(json "$dir/pl_lin.json" 'list(range(6))')" ] || fail "random placement is linear"
[ "$(json "$dir/pl_r1.json" 'd["results"]["rank_endpoints"]')" != "$(json "$dir/pl_r2.json" 'd["results"]["rank_endpoints"]')" ] || fail "seeds 1 and 2 place alike"
python3 - "$dir/pl_r1.json" "$dir/pl_r1b.json" <<'PY' || fail "same seed, different placement runs"
import re, sys
a, b = (re.sub(r'"wall_seconds": [^\n]*', '', open(p).read()) for p in sys.argv[1:])
sys.exit(a != b)
PY
"$netloom" replay "$dir/st.nlt" "${pl[@]}" -s placement=contiguous --json "$dir/pl_c.json" > /dev/null || fail "placement contiguous"
expect_eq "contiguous is linear on an empty machine" "$(json "$dir/pl_c.json" "$runtime, d['results']['rank_endpoints']")" "($(json "$dir/pl_lin.json" "$runtime"), [0, 1, 2, 3, 4, 5])"
"$netloom" replay "$dir/st.nlt" "${pl[@]}" -s placement=random-node -s ranks_per_node=2 --json "$dir/pl_rpn.json" > /dev/null || fail "ranks_per_node 2"
expect_eq "ranks_per_node 2 nodes" "$(json "$dir/pl_rpn.json" 'len(set(d["results"]["rank_endpoints"]))')" 3
out=$("$netloom" replay "$dir/st.nlt" "${pl[@]}" -s placement=bogus 2>&1); rc=$?
expect_eq "placement bad exit" $rc 2
expect_eq "placement bad message" "$out" "netloom replay: -s: key 'placement': value 'bogus': expected one of linear, contiguous, random-node, random-router, round-robin, packed, spread, map"
# Set in a file: its line (these named no place).
printf '[replay]\nplacement = bogus\n' > "$dir/plb.ini"
out=$("$netloom" replay "$dir/st.nlt" "${pl[@]}" -c "$dir/plb.ini" 2>&1); rc=$?
expect_eq "placement bad in a file" "$rc:$out" "2:netloom replay: $dir/plb.ini:2: key 'placement': value 'bogus': expected one of linear, contiguous, random-node, random-router, round-robin, packed, spread, map"
out=$("$netloom" replay "$dir/st.nlt" -s placement=spread 2>&1); rc=$?
expect_eq "placement without topology exit" $rc 2
expect_eq "placement without topology" "$out" "netloom replay: -s: key 'placement': value 'spread': this backend runs without a topology; expected linear, or set key 'topology'"
out=$("$netloom" replay "$dir/st.nlt" -s topology=torus:k=2x2 -s placement=random-node 2>&1); rc=$?
expect_eq "placement too small exit" $rc 2
expect_eq "placement too small" "$out" "netloom replay: -s: key 'placement': value 'random-node': the job needs 6 endpoints (6 ranks, 1 per node), only 4 of 4 free"
# 6 ranks, 2 per endpoint, on a 4-endpoint network: the policy's own
# need (3 endpoints), not one endpoint per rank (refused before).
for b in analytic flit; do
  "$netloom" replay "$dir/st.nlt" -s backend=$b -s topology=torus:k=2x2 -s placement=contiguous -s ranks_per_node=2 \
    --json "$dir/rpn_small.json" > /dev/null || fail "ranks_per_node 2 on 4 endpoints, $b"
  expect_eq "ranks_per_node 2 on 4 endpoints, $b" "$(json "$dir/rpn_small.json" 'd["results"]["rank_endpoints"]')" "[0, 0, 1, 1, 2, 2]"
done
# ranks_per_node under linear placement was ignored: refused.
out=$("$netloom" replay "$dir/st.nlt" -s topology=torus:k=8x8 -s ranks_per_node=2 2>&1); rc=$?
expect_eq "ranks_per_node with linear exit" $rc 2
expect_eq "ranks_per_node with linear" "$out" "netloom replay: -s: key 'ranks_per_node': 2 ranks per endpoint need a placement policy (placement = linear puts rank r on endpoint r); set placement, e.g. contiguous (docs/placement.md)"
# A rank's message to itself crosses no network: counted in to_self and
# under the latency table, not as a latency (the table's counts fell
# short of the message count with no word why).
printf 'netloom-trace 1\nranks 2\napplication "self"\nrank 0\ninit t=0 dur=0\nisend t=0 dur=0 peer=0 tag=1 bytes=8 req=1\nirecv t=0 dur=0 peer=0 tag=1 bytes=8 req=2\nwaitall t=0 dur=0 reqs=1,2\nrecv t=0 dur=0 peer=1 tag=2 bytes=8\nfinalize t=0 dur=0\nrank 1\ninit t=0 dur=0\nsend t=0 dur=0 peer=0 tag=2 bytes=8\nfinalize t=0 dur=0\n' > "$dir/self.txt"
"$netloom" trace encode "$dir/self.txt" "$dir/self.nlt" || fail "encode self"
"$netloom" replay "$dir/self.nlt" --json "$dir/self.json" > "$dir/self.out" || fail "replay self"
expect_eq "self messages: count, to_self, latency n" "$(json "$dir/self.json" '(lambda m: (m["count"], m["to_self"], m["latency"]["n"]))(d["results"]["messages"])')" "(2, 1, 1)"
grep -q "^  (and 1 message ranks sent to themselves: delivered at once, no latency)$" "$dir/self.out" || fail "self messages: text note"
# The banner of a one-rank trace that names no application said
# "(?, 1 ranks)": now "(1 rank)", on one network and on several.
printf 'netloom-trace 1\nranks 1\nrank 0\ninit t=0 dur=0\ncompute t=0 dur=1\nfinalize t=0 dur=0\n' > "$dir/one.txt"
"$netloom" trace encode "$dir/one.txt" "$dir/one.nlt" || fail "encode one rank"
"$netloom" replay "$dir/one.nlt" > "$dir/one.out" || fail "replay one rank"
expect_eq "one rank, no application: banner" "$(head -1 "$dir/one.out")" "netloom replay: $dir/one.nlt (1 rank) on backend analytic"
"$netloom" replay "$dir/one.nlt" --topology torus:k=2 --topology torus:k=3 > "$dir/one.out" || fail "replay one rank on two networks"
expect_eq "one rank, two networks: banner" "$(head -1 "$dir/one.out")" "netloom replay: $dir/one.nlt (1 rank) on 2 networks, backend analytic"
expect_eq "two ranks named: banner" "$(head -1 "$dir/self.out")" "netloom replay: $dir/self.nlt (self, 2 ranks) on backend analytic"
# A rendezvous message (1 MB: RTS, CTS, data) on an idle network takes
# link_model none's time with endpoint and links too: the empty control
# messages pay the route's hop latency (they skipped it, 0.1 us less).
printf 'netloom-trace 1\nranks 2\napplication "rv"\nrank 0\ninit t=0 dur=0\nsend t=0 dur=0 peer=1 tag=2 bytes=1000000\nfinalize t=0 dur=0\nrank 1\ninit t=0 dur=0\nrecv t=0 dur=0 peer=0 tag=2 bytes=1000000\nfinalize t=0 dur=0\n' > "$dir/rv.txt"
"$netloom" trace encode "$dir/rv.txt" "$dir/rv.nlt" || fail "encode rv"
for lm in none endpoint links; do
  "$netloom" replay "$dir/rv.nlt" -s topology=torus:k=4x4 -s hop_latency_ns=50 -s link_model=$lm --json "$dir/rv.json" > /dev/null ||
    fail "rendezvous $lm exit $?"
  expect_eq "rendezvous on an idle network, link_model $lm" "$(json "$dir/rv.json" 'round(d["results"]["runtime"]["predicted_s"]*1e12)')" 83150000
done
out=$("$netloom" replay "$dir/rv.nlt" -s hop_latency_ns=50 2>&1); rc=$?
expect_eq "hop latency without a topology exit" $rc 2
expect_eq "hop latency without a topology" "$out" "netloom replay: -s: hop_latency_ns = 50 needs a topology (set 'topology', e.g. torus:k=4x4)"
# The ideal network reads no hop latency: refused with or without a
# topology, the same line (it said 'needs a topology' without one and ran
# with one).
for topo in "" "-s topology=torus:k=4x4"; do
  out=$("$netloom" replay "$dir/rv.nlt" -s ideal=yes -s hop_latency_ns=50 $topo 2>&1 > "$dir/ih.txt"); rc=$?
  expect_eq "ideal with hop latency ($topo) exit" $rc 2
  expect_eq "ideal with hop latency ($topo)" "$out" "netloom replay: -s: hop_latency_ns = 50: key 'ideal' is 'yes': expected hop_latency_ns = 0 or ideal = no (the ideal network has no latency)"
  expect_eq "ideal with hop latency ($topo): nothing on stdout" "$(cat "$dir/ih.txt")" ""
done
# Refusals of keys read when the network is built start with the place
# that set the key (they named none): the first of the keys in a file.
printf '[analytic]\nlink_model = bus\nhop_latency_ns = 50\n' > "$dir/bus.ini"
out=$("$netloom" replay "$dir/rv.nlt" -c "$dir/bus.ini" -s topology=torus:k=4x4 2>&1); rc=$?
expect_eq "bus with hop latency, in a file" "$rc:$out" "2:netloom replay: $dir/bus.ini:3: hop_latency_ns = 50: key 'link_model' is 'bus': expected none, endpoint or links (a bus has no router hops)"
printf '[analytic]\nideal = yes\nbandwidth_gbps = 5\n' > "$dir/idb.ini"
out=$("$netloom" replay "$dir/rv.nlt" -c "$dir/idb.ini" 2>&1); rc=$?
expect_eq "ideal with a bandwidth, in a file" "$rc:$out" "2:netloom replay: $dir/idb.ini:3: bandwidth_gbps = 5: key 'ideal' is 'yes': expected bandwidth_gbps unset or ideal = no (the ideal network has infinite bandwidth)"
printf '[network]\ntopology = torus:k=2\n' > "$dir/small.ini"
out=$("$netloom" replay "$dir/st.nlt" -c "$dir/small.ini" 2>&1); rc=$?
expect_eq "topology too small, in a file" "$rc:$out" "2:netloom replay: $dir/small.ini:2: key 'topology': 'torus:k=2' has 2 endpoints, the trace needs 6 (one per rank); expected a topology of 6 endpoints or more, or ranks sharing endpoints: placement = contiguous, ranks_per_node = 3 (docs/placement.md)"
# An output path that cannot be written fails before the replay: nothing
# on stdout. --otf2 DIR's folder too (its line named no expected folder,
# and a link to a missing directory was found after the replay, status 3).
ln -s "$dir/nodir/x.out" "$dir/dangling.out"
for opt in --json --svg --otf2; do
  out=$("$netloom" replay "$dir/st.nlt" "$opt" "$dir/nodir/x.out" 2>&1 > "$dir/nodir.txt"); rc=$?
  expect_eq "replay $opt in a missing folder exit" $rc 2
  expect_eq "replay $opt in a missing folder" "$out" "netloom replay: $opt: $dir/nodir/x.out: $dir/nodir: no such directory; expected an existing folder to write to"
  expect_eq "replay $opt in a missing folder: stdout" "$(wc -c < "$dir/nodir.txt")" 0
  out=$("$netloom" replay "$dir/st.nlt" "$opt" "$dir/st.nlt/x.out" 2>&1 > "$dir/nodir.txt"); rc=$?
  expect_eq "replay $opt under a file" "$rc:$out" "2:netloom replay: $opt: $dir/st.nlt/x.out: $dir/st.nlt: not a directory; expected a folder to write to"
  out=$("$netloom" replay "$dir/st.nlt" "$opt" "$dir/dangling.out" 2>&1 > "$dir/nodir.txt"); rc=$?
  # --otf2 writes a directory: the line said "a missing file ... expected
  # a file to write", a file output's words.
  want="a symbolic link to a missing file (No such file or directory); expected a file to write"
  [ $opt = --otf2 ] && want="a symbolic link to a missing directory (No such file or directory); expected a new directory for the OTF2 archive"
  expect_eq "replay $opt link to a missing file" "$rc:$out" "2:netloom replay: $opt: $dir/dangling.out: $want"
  expect_eq "replay $opt link to a missing file: stdout" "$(wc -c < "$dir/nodir.txt")" 0
done
[ -L "$dir/dangling.out" ] || fail "replay: the link to a missing file was replaced"
rm -f "$dir/dangling.out"
# An empty name, the same: it ran the whole replay, then failed naming
# nothing (": cannot replace file", ": cannot move the archive into place").
for opt in --json --svg --otf2; do
  what="file name; expected a file to write, or '-' for standard output"
  [ $opt = --otf2 ] && what="directory name; expected a new directory for the OTF2 archive"
  out=$(nl=$(realpath "$netloom") && cd "$dir" && "$nl" replay "$dir/st.nlt" "$opt" '' 2>&1 > "$dir/empty.txt"); rc=$?
  expect_eq "replay $opt '' exit" $rc 2
  expect_eq "replay $opt ''" "$out" "netloom replay: $opt '': empty $what"
  expect_eq "replay $opt '': stdout" "$(wc -c < "$dir/empty.txt")" 0
  expect_eq "replay $opt '': nothing staged" "$(ls -a "$dir" | grep -c '^\.tmp')" 0
done
# The analytic backend does not run the routing function, but a bad one is
# refused, not ignored.
out=$("$netloom" replay "$dir/st.nlt" -s topology=torus:k=4x4 -s link_model=links -s routing_function=min:foo=1 2>&1); rc=$?
expect_eq "analytic: bad routing_function exit" $rc 2
expect_eq "analytic: bad routing_function" "$out" "netloom replay: -s: key 'routing_function': routing function 'min': unknown parameter 'foo' (valid: select, classes, table)"
# Nor does it build min's distance table to check it (64 MiB and 1.4 s on
# dln:n=8192), but a VC count the flit backend would refuse is refused.
out=$("$netloom" replay "$dir/st.nlt" -s topology=dln:n=64,d=3 -s routing_function=min -s num_vcs=7 2>&1); rc=$?
expect_eq "analytic: min on dln with fewer VCs than its diameter" "$rc:$out" "2:netloom replay: -s: key 'routing_function': routing function 'min' needs num_vcs >= the diameter 8 (one VC class per hop), got 7"
out=$("$netloom" replay "$dir/st.nlt" -s routing_function=zigzag 2>&1); rc=$?
expect_eq "analytic without topology: bad routing_function exit" $rc 2
expect_eq "analytic without topology: bad routing_function" "${out:0:86}" "netloom replay: -s: key 'routing_function': unknown routing function 'zigzag' (valid: "
out=$("$netloom" replay "$dir/st.nlt" -s topology=torus:k=4x4 -s placement=map 2>&1); rc=$?
expect_eq "placement map without a file exit" $rc 2
expect_eq "placement map without a file" "$out" "netloom replay: -s: key 'placement_map': missing; expected a map file for placement = map"
# From a file, at placement's line, as a workload's [job] names its line.
printf '[network]\ntopology = torus:k=4x4\n[replay]\nplacement = map\n' > "$dir/nomap.ini"
out=$("$netloom" replay "$dir/st.nlt" -c "$dir/nomap.ini" 2>&1); rc=$?
expect_eq "placement map without a file, from a file" "$rc:$out" "2:netloom replay: $dir/nomap.ini:4: key 'placement_map': missing; expected a map file for placement = map"
# A placement that fails is named once, by the key at fault: the line
# said "key 'placement': placement: job 0 needs ..." (the library's
# prefix and a job index a replay does not have), and a map file's
# problem was the key 'placement''s.
out=$("$netloom" replay "$dir/st.nlt" -s topology=torus:k=2x2 -s placement=contiguous 2>&1); rc=$?
expect_eq "contiguous too small" "$rc:$out" "2:netloom replay: -s: key 'placement': value 'contiguous': the job needs 6 endpoints (6 ranks, 1 per node), only 4 of 4 free"
printf '0 1\n' > "$dir/short.map"
out=$("$netloom" replay "$dir/st.nlt" -s topology=torus:k=4x4 -s placement=map -s placement_map="$dir/short.map" 2>&1); rc=$?
expect_eq "placement map short" "$rc:$out" "2:netloom replay: -s: key 'placement_map': $dir/short.map: rank 1: not mapped (the file maps 1 of 6 ranks)"

# A map under another placement was never read (exit 0, placed linear or
# by that policy): refused, naming the key, its value and the placement,
# at its -c file's line when a file set it.
out=$("$netloom" replay "$dir/st.nlt" -s topology=torus:k=4x4 -s placement_map=any.map 2>&1); rc=$?
expect_eq "placement_map without placement" "$rc:$out" "2:netloom replay: -s: key 'placement_map': value 'any.map': only placement = map reads it, and the placement in force is linear (unset); expected placement = map with it, or placement_map unset"
printf 'topology = torus:k=4x4\nplacement = spread\nplacement_map = any.map\n' > "$dir/pm.ini"
out=$("$netloom" replay "$dir/st.nlt" -c "$dir/pm.ini" 2>&1); rc=$?
expect_eq "placement_map beside spread" "$rc:$out" "2:netloom replay: $dir/pm.ini:3: key 'placement_map': value 'any.map' (resolved to $(cd "$dir" && pwd -P)/any.map, relative to the config $dir/pm.ini): only placement = map reads it, and the placement in force is spread; expected placement = map with it, or placement_map unset"

# A backend name longer than the old 256-byte field (overflowed it before).
out=$("$netloom" replay "$dir/st.nlt" -s backend="$(printf 'x%.0s' $(seq 1000))" 2>&1); rc=$?
expect_eq "long backend exit" $rc 2
expect_eq "long backend message" "${out:0:52}" "netloom replay: -s: key 'backend': value 'xxxxxxxxxx"

# A channel idle for more than 2^31 cycles (2.5 s at 1 GHz) is free, not
# busy for 2^32 cycles: 32-bit stamps once put this message at 4.295 s.
printf '0 init\n1 init\n0 recv 1 0 1e6\n1 compute 2.5e9\n1 send 0 0 1e6\n0 finalize\n1 finalize\n' > "$dir/idle.txt"
"$netloom" replay "$dir/idle.txt" -s backend=flit -s topology=torus:k=2 --json "$dir/idle.json" > /dev/null ||
  fail "long idle replay exit $?"
expect_eq "long idle: predicted within 1 ms of 2.5 s" \
  "$(json "$dir/idle.json" '2.5 < d["results"]["runtime"]["predicted_s"] < 2.501')" True

# Compute past the engine's time limit (2^62 ps, NET_TIME_MAX_PS, where
# sends stop): cpu_factor scales exactly up to it, then the op is refused
# in one line. Before, 10 gave 9223372.04 s and 18.5 4611686.02 s (a
# larger factor, a smaller runtime; exit 0), 1e19 ps alone 1e7 s, and two
# computes that passed the limit together an internal "advance to ...,
# before the reached time" (exit 2).
lim="expected to end by 4611686018427387904 ps (2^62 ps, about 53 days; later times would overflow)"
printf 'netloom-trace 2\nranks 1\nrank 0\ninit t=0 dur=0\ncompute t=0 dur=1000000000000000000\nfinalize t=0 dur=0\n' > "$dir/cf.txt"
"$netloom" trace encode "$dir/cf.txt" "$dir/cf.nlt" || fail "encode cpu_factor trace"
for f in 1 4.5; do
  "$netloom" replay "$dir/cf.nlt" -s cpu_factor=$f --json "$dir/cf.json" > /dev/null || fail "cpu_factor $f exit $?"
  expect_eq "cpu_factor $f: predicted" "$(json "$dir/cf.json" 'd["results"]["runtime"]["predicted_s"] == '$f' * 1e6')" True
done
for f in 10 18.5; do
  out=$("$netloom" replay "$dir/cf.nlt" -s cpu_factor=$f 2>&1); rc=$?
  expect_eq "cpu_factor $f past the limit exit" $rc 2
  expect_eq "cpu_factor $f past the limit" "$out" "netloom replay: $dir/cf.nlt: rank 0 op 1 (compute): compute of 1000000000000000000 ps times cpu_factor $f = $(python3 -c "print(int(1e18 * $f))") ps at 0 ps: $lim"
done
for d in 4611686018427387904 4611686018427387905; do
  printf 'netloom-trace 2\nranks 1\nrank 0\ninit t=0 dur=0\ncompute t=0 dur=%s\nfinalize t=0 dur=0\n' $d > "$dir/cl.txt"
  "$netloom" trace encode "$dir/cl.txt" "$dir/cl.nlt" || fail "encode compute $d"
  out=$("$netloom" replay "$dir/cl.nlt" 2>&1 > /dev/null); rc=$?
  if [ $d = 4611686018427387904 ]; then
    expect_eq "compute of 2^62 ps exit" $rc 0
    # Exactly at the limit: the runtime is the compute itself, 2^62 ps.
    "$netloom" replay "$dir/cl.nlt" --json "$dir/cl.json" > /dev/null 2>&1 || fail "compute of 2^62 ps: --json run"
    expect_eq "compute of 2^62 ps: predicted" "$(json "$dir/cl.json" 'round(d["results"]["runtime"]["predicted_s"] * 1e12) == 2**62')" True
  else
    expect_eq "compute of 2^62 + 1 ps exit" $rc 2
    expect_eq "compute of 2^62 + 1 ps" "$out" "netloom replay: $dir/cl.nlt: rank 0 op 1 (compute): compute of $d ps at 0 ps: $lim"
  fi
done
printf 'netloom-trace 2\nranks 1\nrank 0\ninit t=0 dur=0\ncompute t=0 dur=3000000000000000000\ncompute t=3000000000000000000 dur=3000000000000000000\nfinalize t=0 dur=0\n' > "$dir/cw.txt"
"$netloom" trace encode "$dir/cw.txt" "$dir/cw.nlt" || fail "encode two computes"
for b in analytic flit; do
  # The analytic backend sharing links: the topology counts (no warning).
  links=(); [ $b = analytic ] && links=(-s link_model=links)
  out=$("$netloom" replay "$dir/cw.nlt" -s backend=$b -s topology=torus:k=2x2 "${links[@]}" 2>&1); rc=$?
  expect_eq "two computes past the limit ($b) exit" $rc 2
  expect_eq "two computes past the limit ($b)" "$out" "netloom replay: $dir/cw.nlt: rank 0 op 2 (compute): compute of 3000000000000000000 ps at 3000000000000000000 ps: $lim"
done

# A message too large for the model (more than 2^62 ps to serialise on the
# analytic backend, more than 2^32-1 packets on the flit one) is the
# trace's: named by its file, rank and op. Before, the line named the
# backend's message number alone ("netloom replay: analytic backend:
# message 0: ...").
printf 'netloom-trace 2\nranks 2\nrank 0\ninit t=0 dur=0\nsend t=0 dur=0 peer=1 bytes=18446744073709551615\nrank 1\ninit t=0 dur=0\nrecv t=0 dur=0 peer=0 bytes=18446744073709551615\n' > "$dir/huge.txt"
"$netloom" trace encode "$dir/huge.txt" "$dir/huge.nlt" || fail "encode a 2^64-1 byte message"
for b in analytic flit; do
  rm -f "$dir/huge.json"
  out=$("$netloom" replay "$dir/huge.nlt" -s backend=$b --json "$dir/huge.json" 2>&1); rc=$?
  expect_eq "2^64-1 byte message ($b) exit" $rc 2
  expect_eq "2^64-1 byte message ($b): names the file, rank and op" "${out%%: $b backend: message *}" "netloom replay: $dir/huge.nlt: rank 0 op 1 (send)"
  [ -e "$dir/huge.json" ] && fail "2^64-1 byte message ($b): --json written"
done

# Errors about the archive's contents name it first, once, as trace
# verify's: "PATH: rank R ...". Before, an op replay refused said "trace
# rank 0 op 1 (compute): ..." without the file, and a damaged frame "trace
# rank 1 op 0: PATH: rank 1, offset O: ..." (the file in the middle).
python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[-30] ^= 0xff; open(sys.argv[2], 'wb').write(b)" \
  "$dir/cw.nlt" "$dir/cw_bad.nlt"
out=$("$netloom" trace verify "$dir/cw_bad.nlt" 2>&1); rc=$?
expect_eq "damaged frame: verify exit" $rc 1
why=${out#netloom trace verify: FAILED: }
case $why in "$dir/cw_bad.nlt: rank 0, offset "*": frame does not decompress: "*) ;; *) fail "damaged frame: verify said '$out'" ;; esac
out=$("$netloom" replay "$dir/cw_bad.nlt" 2>&1); rc=$?
expect_eq "damaged frame: replay exit" $rc 2
expect_eq "damaged frame: replay names the file first, as verify" "$out" "netloom replay: $why"

# Replay numbers at most 65535 communicators, world and self among them;
# the manifest keeps freed ones, so a run creating one per step passes
# that: the refusal gives the count, not only "more than". trace verify
# refuses such an archive as replay does (status 1, as for damage), and
# encode writes none (status 2, nothing written), so the archive comes
# from the writer API; one fewer is accepted by all three.
lim_comms="communicators (world, self and every one the program created, freed ones too); expected at most 65535, replay's limit"
"$mk" "$dir/mc.nlt" comms 65534 || fail "mktrace 65536 communicators"
out=$("$netloom" replay "$dir/mc.nlt" 2>&1); rc=$?
expect_eq "65536 communicators exit" $rc 2
expect_eq "65536 communicators" "$out" "netloom replay: trace manifest: 65536 $lim_comms"
out=$("$netloom" trace verify "$dir/mc.nlt" 2>&1); rc=$?
expect_eq "verify 65536 communicators exit" $rc 1
expect_eq "verify 65536 communicators" "$out" "netloom trace verify: FAILED: $dir/mc.nlt: trace manifest: 65536 $lim_comms"
"$netloom" trace dump "$dir/mc.nlt" > "$dir/mc.txt" || fail "dump 65536 communicators"
out=$("$netloom" trace encode "$dir/mc.txt" "$dir/mc2.nlt" 2>&1); rc=$?
expect_eq "encode 65536 communicators exit" $rc 2
expect_eq "encode 65536 communicators" "$out" "netloom trace encode: $dir/mc.txt: trace manifest: 65536 $lim_comms"
expect_eq "encode 65536 communicators: nothing written" "$(ls "$dir/mc2.nlt" 2>&1 > /dev/null | wc -l)" 1
"$mk" "$dir/mc.nlt" comms 65533 || fail "mktrace 65535 communicators"
out=$("$netloom" trace verify "$dir/mc.nlt" 2>&1); rc=$?
expect_eq "verify 65535 communicators exit" $rc 0
"$netloom" trace dump "$dir/mc.nlt" > "$dir/mc.txt" || fail "dump 65535 communicators"
"$netloom" trace encode "$dir/mc.txt" "$dir/mc2.nlt" || fail "encode 65535 communicators"
cmp -s "$dir/mc.nlt" "$dir/mc2.nlt" || fail "encode of the dump of 65535 communicators: other bytes"
"$netloom" replay "$dir/mc.nlt" > /dev/null || fail "replay 65535 communicators exit $?"

# The report's byte total in binary units beside the exact count (none
# under a KiB): 7263655112 bytes was left to count.
"$mk" "$dir/big.nlt" pingpong 3 1000000 || fail "mktrace pingpong of 1 MB"
expect_eq "messages line, MiB" "$("$netloom" replay "$dir/big.nlt" 2>/dev/null | grep '^  messages:')" \
  "  messages: 6 (6000000 bytes, 5.72 MiB): 6 point-to-point, 0 inside collectives; 0 eager, 6 rendezvous"
expect_eq "messages line, bytes" "$("$netloom" replay "$dir/pp.nlt" 2>/dev/null | grep '^  messages:')" \
  "  messages: 20 (2000 bytes, 1.95 KiB): 20 point-to-point, 0 inside collectives; 20 eager, 0 rendezvous"

# Fat trees and Clos have no closed-form distance: the analytic backend
# built an all-pairs table for their routes and hop counts, and refused
# them past 4,096 routers ("fattree:k=64,n=3 has 12288 routers and no
# closed-form distance"). Their own minimal next hops serve both now.
# Spread puts the two ranks under different leaf switches 2 router hops
# apart on both trees: 10 x (1 us + 2 x (1 us + 100 ns + 2 x 100 ns)) =
# 36 us (the table's count on the small tree before).
for t in fattree:k=4,n=3 fattree:k=64,n=3; do
  "$netloom" replay "$dir/pp.nlt" "${net[@]}" -t "$t" -s link_model=endpoint -s hop_latency_ns=100 -s placement=spread \
    --json "$dir/ft.json" > /dev/null 2>&1 || fail "hop count on $t: exit $?"
  expect_eq "hop count on $t" "$(json "$dir/ft.json" 'round(d["results"]["runtime"]["predicted_s"]*1e12)')" 36000000
done
for t in fattree:k=64,n=3 clos:l=3,r=64; do
  "$netloom" replay "$dir/pp.nlt" "${net[@]}" -t "$t" -s link_model=links -s placement=spread > /dev/null 2>&1 ||
    fail "routes on $t (past 4,096 routers): exit $?"
done

if [ $fails -ne 0 ]; then
  echo "$fails e2e replay checks failed" >&2
  exit 1
fi
echo "all e2e replay checks passed"
