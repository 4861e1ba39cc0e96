#!/usr/bin/env bash
# `netloom compare` warns of the keys of a study's systems that nothing
# reads, as replay, serve and interfere do of theirs (it ran them
# silently): one line per key on stderr naming the study's file:line and
# [system NAME] for an inline key, the config file's file:line and its
# section for one set there (once, however many systems load the file,
# and not when one of them reads it); the same results and exit status.
# usage: compare_unread.sh NETLOOM SOURCE_ROOT
set -uo pipefail
netloom=$1
root=$2
. "$(dirname "$0")/lib.sh"
s=$root/traces/samples

# Read by every system: the topology, routing, analytic keys, a [layout]
# key (the price reads it without cable_latency); nothing warned.
cat > "$dir/base.ini" <<EOS
[study]
backend = analytic
[system torus]
topology = torus:k=4x4
routing_function = dor
link_model = links
num_vcs = 4
[system fattree]
config = fattree.ini
[workload hpcc]
trace = $s/hpcc-8.nlt
placement = contiguous
EOS
printf '[network]\ntopology = fattree:k=4,n=2\n[analytic]\nlink_model = links\n[layout]\nlayout_preset = besta\n' > "$dir/fattree.ini"
"$netloom" compare "$dir/base.ini" -o "$dir/base" > /dev/null 2> "$dir/base.err" || fail "base study: exit $?"
expect_eq "keys all read: stderr" "$(cat "$dir/base.err")" ""

# The same systems with keys nothing reads: [traffic] and
# propagation_ns_per_m (only cable_latency's replays read it) inline and
# in a config file two systems load, placement_inner with one rank per
# node, a placement_map no workload reads.
cat > "$dir/unread.ini" <<EOS
[study]
backend = analytic
[system torus]
topology = torus:k=4x4
routing_function = dor
link_model = links
num_vcs = 4
traffic = transpose
propagation_ns_per_m = 5
placement_inner = round_robin
[system fattree]
config = fat.ini
placement_map = x.map
[system fattree2]
config = fat.ini
[workload hpcc]
trace = $s/hpcc-8.nlt
placement = contiguous
EOS
printf '[network]\ntopology = fattree:k=4,n=2\n[analytic]\nlink_model = links\n[traffic]\ntraffic = transpose\n[layout]\nlayout_preset = besta\npropagation_ns_per_m = 4\n' > "$dir/fat.ini"
printf '0 0\n' > "$dir/x.map"
"$netloom" compare "$dir/unread.ini" -o "$dir/unread" > /dev/null 2> "$dir/unread.err"
expect_eq "unread keys: exit status" "$?" 0
expect_eq "unread keys: warnings" "$(cat "$dir/unread.err")" "netloom compare: warning: $dir/unread.ini:8: [system torus] key 'traffic': value 'transpose' is not read by compare (backend analytic); it has no effect
netloom compare: warning: $dir/unread.ini:9: [system torus] key 'propagation_ns_per_m': value '5' is not read by compare (without cable_latency = 1); it has no effect
netloom compare: warning: $dir/unread.ini:10: [system torus] key 'placement_inner': value 'round_robin' is not read by compare (ranks_per_node = 1 (unset): one rank per node, in either order); it has no effect
netloom compare: warning: $dir/fat.ini:6: [traffic] key 'traffic': value 'transpose' is not read by compare (backend analytic); it has no effect
netloom compare: warning: $dir/fat.ini:9: [layout] key 'propagation_ns_per_m': value '4' is not read by compare (without cable_latency = 1); it has no effect
netloom compare: warning: $dir/unread.ini:13: [system fattree] key 'placement_map': value '$dir/x.map' is not read by compare (no workload has placement = map); it has no effect"
runtimes() { json "$1" '[(c["system"], c["runtime_s"]) for c in d["cells"]]'; }
expect_eq "unread keys: the same runtimes" "$(runtimes "$dir/unread/report.json")" \
  "$(runtimes "$dir/base/report.json" | sed "s/('fattree', \([^)]*\))/('fattree', \1), ('fattree2', \1)/")"

# A file key one of its systems reads (cable_latency = 1 inline: its
# replays read propagation_ns_per_m) is not warned of for the other.
sed '0,/^config = fat.ini$/s//config = fat.ini\ncable_latency = 1/; /^placement_map/d' "$dir/unread.ini" > "$dir/one.ini"
"$netloom" compare "$dir/one.ini" -o "$dir/one" > /dev/null 2> "$dir/one.err" || fail "one reads it: exit $?"
expect_eq "a file key one system reads: not warned" "$(grep -c "fat.ini:9" "$dir/one.err"):$(grep -c "cable_latency = 1" "$dir/one.ini")" 0:1

# Every workload placed by map: ranks_per_node and placement_inner are
# not read (the map gives each rank its endpoint).
for r in 0 1 2 3 4 5 6 7; do echo "$r $r"; done > "$dir/all.map"
cat > "$dir/map.ini" <<EOS
[study]
backend = analytic
[system torus]
topology = torus:k=4x4
link_model = links
placement_map = all.map
ranks_per_node = 2
placement_inner = round_robin
[workload hpcc]
trace = $s/hpcc-8.nlt
placement = map
EOS
"$netloom" compare "$dir/map.ini" -o "$dir/map" > /dev/null 2> "$dir/map.err" || fail "map study: exit $?"
expect_eq "under map: warnings" "$(cat "$dir/map.err")" "netloom compare: warning: $dir/map.ini:7: [system torus] key 'ranks_per_node': value '2' is not read by compare (every workload has placement = map, which gives each rank its endpoint from the map file); it has no effect
netloom compare: warning: $dir/map.ini:8: [system torus] key 'placement_inner': value 'round_robin' is not read by compare (every workload has placement = map, which gives each rank its endpoint from the map file); it has no effect"

# With a workload placed by a policy beside it, both are read.
printf '[workload hpcc2]\ntrace = %s\nplacement = contiguous\n' "$s/hpcc-8.nlt" >> "$dir/map.ini"
"$netloom" compare "$dir/map.ini" -o "$dir/map2" > /dev/null 2> "$dir/map2.err" || fail "map and contiguous: exit $?"
expect_eq "map and contiguous: no warning" "$(cat "$dir/map2.err")" ""

# lookahead_decide times BookSim's lookahead routing (routing_delay = 0)
# alone: a flit study's system with it and the default routing_delay = 1
# ran as without it, silently. Warned of; not with routing_delay = 0.
printf 'netloom-trace 2\nranks 2\nrank 0\ninit t=0 dur=0\nisend t=1000 dur=0 peer=1 tag=0 bytes=64 req=0\nwaitall t=2000 dur=0 reqs=0\nfinalize t=3000 dur=0\nrank 1\ninit t=0 dur=0\nirecv t=1000 dur=0 peer=0 tag=0 bytes=64\nwaitall t=2000 dur=0 reqs=0\nfinalize t=3000 dur=0\n' > "$dir/tiny.txt"
"$netloom" trace encode "$dir/tiny.txt" "$dir/tiny.nlt" || fail "trace encode: exit $?"
printf '[study]\nbackend = flit\n[system a]\ntopology = torus:k=4x4\nlookahead_decide = upstream\n[system b]\ntopology = torus:k=4x4\nlookahead_decide = upstream\nrouting_delay = 0\n[workload w]\ntrace = tiny.nlt\n' > "$dir/la.ini"
"$netloom" compare "$dir/la.ini" -o "$dir/la" > /dev/null 2> "$dir/la.err" || fail "lookahead study: exit $?"
expect_eq "lookahead_decide without routing_delay = 0" "$(cat "$dir/la.err")" "netloom compare: warning: $dir/la.ini:5: [system a] key 'lookahead_decide': value 'upstream' is not read by compare (without routing_delay = 0); it has no effect"

[ $fails -eq 0 ] && echo "compare_unread: all checks passed"
exit $((fails > 0))
