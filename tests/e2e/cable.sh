#!/usr/bin/env bash
# End-to-end tests of cable_latency (docs/layout.md): `netloom replay`
# with cable lengths as link latencies, checked against the lengths
# `netloom layout --lengths` prints for the same layout options.
# usage: cable.sh NETLOOM REPLAY_MKTRACE SOURCE_ROOT
set -uo pipefail
netloom=$1
mk=$2
root=$3
. "$(dirname "$0")/lib.sh"

net=(-s latency_ns=1000 -s bandwidth_gbps=8 -s topology=torus:k=8x8)
lay=(-s layout_pack=canonical -s layout_per_cabinet=1 -s layout_placement=rule)

# 1. Ping-pong between routers 0 and 1, each in its own cabinet: 10 x (1 us
#    compute + 2 x (1 us + 100 ns + the cable's 5 ns/m)).
"$mk" "$dir/pp.nlt" pingpong 10 100 || fail "mktrace pingpong"
"$netloom" layout torus:k=8x8 --pack canonical --per-cabinet 1 --layout rule --lengths "$dir/len.txt" \
  || fail "layout --lengths exit $?"
len=$(awk '$1 == 0 && $3 == 1 { print $5 }' "$dir/len.txt")
[ -n "$len" ] || fail "no cable between routers 0 and 1 in $(head -3 "$dir/len.txt")"
want=$(python3 -c "print(32000000 + 20 * round($len * 5.0 * 1000))")
"$netloom" replay "$dir/pp.nlt" "${net[@]}" "${lay[@]}" -s cable_latency=1 --json "$dir/on.json" > "$dir/on.txt" \
  || fail "replay cable_latency=1 exit $?"
expect_eq "pingpong with cables" "$(json "$dir/on.json" 'round(d["results"]["runtime"]["predicted_s"]*1e12)')" "$want"
"$netloom" replay "$dir/pp.nlt" "${net[@]}" "${lay[@]}" --json "$dir/off.json" > /dev/null || fail "replay cable_latency=0"
expect_eq "pingpong without cables" "$(json "$dir/off.json" 'round(d["results"]["runtime"]["predicted_s"]*1e12)')" 32000000
# The [layout] keys lay the cables out for cable_latency alone: set with -s
# without it they changed nothing, silently ('-s layout_preset=besta' read
# as cabled); warned of, as every -s key a replay does not read, once per
# key; not with cable_latency = 1, nor from a -c file (one file serves both).
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s link_model=links -s layout_preset=besta -s propagation_ns_per_m=4 \
  -s layout_seed=3 -s layout_seed=4 > /dev/null 2> "$dir/unread.err" || fail "replay with [layout] keys, no cables: exit $?"
expect_eq "[layout] keys without cable_latency: warned" "$(cat "$dir/unread.err")" "netloom replay: warning: -s layout_preset=besta: key 'layout_preset' of [layout] is not read by replay (without cable_latency = 1); it has no effect
netloom replay: warning: -s propagation_ns_per_m=4: key 'propagation_ns_per_m' of [layout] is not read by replay (without cable_latency = 1); it has no effect
netloom replay: warning: -s layout_seed=4: key 'layout_seed' of [layout] is not read by replay (without cable_latency = 1); it has no effect"
"$netloom" replay "$dir/pp.nlt" "${net[@]}" "${lay[@]}" -s cable_latency=1 -s layout_preset=besta -s propagation_ns_per_m=4 \
  > /dev/null 2> "$dir/read.err" || fail "replay with [layout] keys and cables: exit $?"
expect_eq "[layout] keys with cable_latency = 1: no warning" "$(cat "$dir/read.err")" ""
printf '[layout]\nlayout_preset = besta\n' > "$dir/lk.ini"
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s link_model=links -c "$dir/lk.ini" > /dev/null 2> "$dir/file.err" \
  || fail "replay with [layout] keys from a file: exit $?"
expect_eq "[layout] keys from a file: no warning" "$(cat "$dir/file.err")" ""
expect_eq "report" "$(json "$dir/on.json" 'd["results"]["network"]["cables"]["rule"], d["results"]["network"]["cables"]["cabinets"]')" "('canonical', 64)"
grep -q "^  cables: 128 links laid out by canonical (flex preset, 64 cabinets, rule order)" "$dir/on.txt" \
  || fail "text report lacks the cables line: $(grep cables "$dir/on.txt")"
# One cabinet is "1 cabinet".
"$netloom" replay "$dir/pp.nlt" -s topology=torus:k=4x4 -s cable_latency=1 -s layout_placement=rule > "$dir/one.txt" \
  || fail "replay in one cabinet exit $?"
grep -q "^  cables: 32 links laid out by canonical (flex preset, 1 cabinet, rule order)" "$dir/one.txt" \
  || fail "one cabinet: $(grep cables "$dir/one.txt")"
# One link is "1 link" ("1 links laid out").
"$netloom" replay "$dir/pp.nlt" -s topology=full:n=2 -s cable_latency=1 > "$dir/onel.txt" \
  || fail "replay over one link exit $?"
grep -q "^  cables: 1 link laid out by hyperx-enclosure (flex preset, 1 cabinet, rule order)" "$dir/onel.txt" \
  || fail "one link: $(grep cables "$dir/onel.txt")"
# Annealing one cabinet moves nothing: the line said "annealed" where
# cost and layout say "nothing to anneal"; the JSON keeps what was asked
# (placement anneal) and says nothing moved (annealed false). Two
# cabinets anneal.
"$netloom" replay "$dir/pp.nlt" -s topology=torus:k=4x4 -s cable_latency=1 -s layout_placement=anneal \
  --json "$dir/onea.json" > "$dir/onea.txt" || fail "replay annealing one cabinet exit $?"
grep -q "^  cables: 32 links laid out by canonical (flex preset, 1 cabinet, nothing to anneal)" "$dir/onea.txt" \
  || fail "one cabinet annealed: $(grep cables "$dir/onea.txt")"
expect_eq "one cabinet annealed: JSON" "$(json "$dir/onea.json" '[d["results"]["network"]["cables"][k] for k in ("placement", "annealed")]')" "['anneal', False]"
"$netloom" replay "$dir/pp.nlt" -s topology=torus:k=4x8 -s cable_latency=1 -s layout_placement=anneal \
  -s layout_per_cabinet=16 -s layout_iterations=1000 --json "$dir/twoa.json" > "$dir/twoa.txt" || fail "replay annealing two cabinets exit $?"
grep -q "^  cables: 64 links laid out by canonical (flex preset, 2 cabinets, annealed)" "$dir/twoa.txt" \
  || fail "two cabinets annealed: $(grep cables "$dir/twoa.txt")"
expect_eq "two cabinets annealed: JSON" "$(json "$dir/twoa.json" '[d["results"]["network"]["cables"][k] for k in ("placement", "annealed")]')" "['anneal', True]"
# 0 moves per trial moves nothing either (the line said "annealed").
"$netloom" replay "$dir/pp.nlt" -s topology=torus:k=4x8 -s cable_latency=1 -s layout_placement=anneal \
  -s layout_per_cabinet=16 -s layout_iterations=0 --json "$dir/twoz.json" > "$dir/twoz.txt" || fail "replay with 0 moves exit $?"
grep -q "^  cables: 64 links laid out by canonical (flex preset, 2 cabinets, 0 annealing moves)" "$dir/twoz.txt" \
  || fail "two cabinets, 0 moves: $(grep cables "$dir/twoz.txt")"
expect_eq "two cabinets, 0 moves: JSON" "$(json "$dir/twoz.json" '[d["results"]["network"]["cables"][k] for k in ("placement", "annealed")]')" "['anneal', False]"
expect_eq "cost --json: one cabinet not annealed" "$("$netloom" cost torus:k=4x4 --layout anneal --json - | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["placement"], d["annealed"])')" "anneal False"
# The report's lengths are `netloom cost`'s for the same layout, summed in
# whole micrometres (docs/layout.md): the sum of doubles in port order gave
# 259.19999999999976 m where cost gives 259.2.
"$netloom" cost torus:k=8x8 --pack canonical --per-cabinet 1 --layout rule --json "$dir/cost.json" > /dev/null \
  || fail "cost exit $?"
expect_eq "cable lengths = cost's" \
  "$(json "$dir/on.json" 'repr([d["results"]["network"]["cables"][k] for k in ("links", "length_m", "mean_length_m", "max_length_m")])')" \
  "$(json "$dir/cost.json" 'repr([d[k] for k in ("links", "length_m", "mean_length_m", "max_length_m")])')"
# 10 ns/m doubles the cables' share.
want10=$(python3 -c "print(32000000 + 20 * round($len * 10.0 * 1000))")
"$netloom" replay "$dir/pp.nlt" "${net[@]}" "${lay[@]}" -s cable_latency=1 -s propagation_ns_per_m=10 --json "$dir/on10.json" \
  > /dev/null || fail "replay 10 ns/m"
expect_eq "pingpong at 10 ns/m" "$(json "$dir/on10.json" 'round(d["results"]["runtime"]["predicted_s"]*1e12)')" "$want10"

# 2. A recorded trace on an annealed dragonfly: slower with cables, and the
#    same document twice (but wall_seconds).
t16="$root/traces/samples/lammps-lj-16.nlt"
df=(-s topology=dragonfly:a=4,p=2,h=2 -s link_model=links -s layout_iterations=100000)
for k in 1 2; do
  "$netloom" replay "$t16" "${df[@]}" -s cable_latency=1 --json "$dir/df$k.json" > /dev/null || fail "dragonfly run $k"
done
python3 - "$dir/df1.json" "$dir/df2.json" <<'PY' || fail "two cable_latency runs differ beyond wall_seconds"
import re, sys
a, b = (re.sub(r'"wall_seconds": [^\n]*', '', open(p).read()) for p in sys.argv[1:])
sys.exit(a != b)
PY
"$netloom" replay "$t16" "${df[@]}" --json "$dir/df0.json" > /dev/null || fail "dragonfly without cables"
expect_eq "cables slow it down" "$(python3 -c "
import json
a, b = (json.load(open('$dir/df%s.json' % k))['results']['runtime']['predicted_s'] for k in (1, 0))
print(a > b)")" True

# 2b. The flit backend takes the cables too (issue 11 part 1: each delay
#     rounded up to cycles): slower than without, and exit 0.
fl=(-s backend=flit -s topology=torus:k=8x8 "${lay[@]}")
"$netloom" replay "$dir/pp.nlt" "${fl[@]}" -s cable_latency=1 --json "$dir/fl1.json" > /dev/null || fail "flit with cables exit $?"
"$netloom" replay "$dir/pp.nlt" "${fl[@]}" --json "$dir/fl0.json" > /dev/null || fail "flit without cables exit $?"
expect_eq "flit: cables slow it down" "$(python3 -c "
import json
a, b = (json.load(open('$dir/fl%s.json' % k))['results']['runtime']['predicted_s'] for k in (1, 0))
print(a > b)")" True

# 3. Bad values: one line on stderr naming the key, exit 2, nothing written.
bad() { # expected-substring args...
  local want=$1
  shift
  "$netloom" replay "$dir/pp.nlt" "$@" --json "$dir/bad.json" > /dev/null 2> "$dir/bad.err"
  local rc=$?
  expect_eq "exit for $*" "$rc" 2
  expect_eq "stderr lines for $*" "$(wc -l < "$dir/bad.err")" 1
  grep -qF -- "$want" "$dir/bad.err" || fail "error for $*: got '$(cat "$dir/bad.err")', expected '$want'"
  [ ! -e "$dir/bad.json" ] || fail "$* wrote a result"
}
bad "key 'cable_latency': value 'maybe'" -s cable_latency=maybe
bad "key 'propagation_ns_per_m': value '-5': out of range" -s propagation_ns_per_m=-5
bad "-s: key 'cable_latency': value '1': needs a topology" -s cable_latency=1
# Names are checked when read, as every other key, with the valid ones.
bad "-s: key 'layout_preset': value 'cheap': expected one of flex, besta, equality, fujiwara, hyperx" -s layout_preset=cheap
bad "-s: key 'layout_pack': value 'zz': expected one of base-cabinets, flex-fig7," -s layout_pack=zz
# Whether a rule applies needs the topology: checked when it is laid out.
bad "-s: key 'layout_pack': value 'flex-fig7': the rule does not apply" -s cable_latency=1 -s topology=torus:k=4x4 \
  -s layout_pack=flex-fig7
# Set in a file: its line.
printf '[layout]\ncable_latency = 1\nlayout_pack = flex-fig7\n' > "$dir/lp.ini"
bad "$dir/lp.ini:3: key 'layout_pack': value 'flex-fig7': the rule does not apply" -c "$dir/lp.ini" -s topology=torus:k=4x4
printf '[layout]\ncable_latency = 1\n' > "$dir/cl.ini"
bad "$dir/cl.ini:2: key 'cable_latency': per-link latency: key 'ideal': value 'yes': expected no" -c "$dir/cl.ini" \
  -s ideal=yes -s topology=torus:k=4x4
# An annealing key where nothing is annealed is refused, not ignored (it
# ran, "rule order"): layout_placement = rule, or auto (the default) on a
# rule with its own floor order; a value equal to the default is set too.
bad "-s: key 'layout_iterations': value '7': only the annealing uses it, and layout_placement = rule keeps the packaging rule's floor order; expected layout_placement = anneal with it, or layout_iterations unset" \
  "${net[@]}" "${lay[@]}" -s cable_latency=1 -s layout_iterations=7
bad "-s: key 'layout_seed': value '1': only the annealing uses it, and layout_placement = auto (the default) keeps the floor order of rule 'grid-folded' (torus:k=8x8,p=1); expected layout_placement = anneal with it, or layout_seed unset" \
  "${net[@]}" -s cable_latency=1 -s layout_seed=1
bad "key 'layout_trials': value '2': only the annealing uses it, and layout_placement = auto keeps the floor order" \
  "${net[@]}" -s cable_latency=1 -s layout_placement=auto -s layout_trials=2
bad "-s: key 'layout_threads': value '2': only the annealing uses it, and layout_placement = rule keeps the packaging rule's floor order; expected layout_placement = anneal with it, or layout_threads unset" \
  "${net[@]}" "${lay[@]}" -s cable_latency=1 -s layout_threads=2
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s cable_latency=1 -s layout_placement=anneal -s layout_iterations=7 > /dev/null \
  || fail "layout_iterations with layout_placement=anneal: exit $?"
"$netloom" replay "$dir/pp.nlt" "${net[@]}" -s cable_latency=1 -s layout_placement=anneal -s layout_threads=2 > /dev/null \
  || fail "layout_threads with layout_placement=anneal: exit $?"
"$netloom" run -s cable_latency=1 > /dev/null 2> "$dir/run.err"
expect_eq "run exit" $? 2
grep -qF "netloom run: -s: key 'cable_latency': value '1': synthetic runs take no cable lengths yet" "$dir/run.err" || fail "run error: $(cat "$dir/run.err")"

[ "$fails" -eq 0 ] && echo "cable: all checks passed"
exit $((fails > 0))
