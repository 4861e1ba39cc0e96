#!/usr/bin/env bash
# Replay of the shared public traces (tests/data/traces: DUMPI from
# sst-macro, SimGrid time-independent examples) after `netloom trace
# convert`. Every converted trace replays without error; the ideal-network
# runtimes of SimGrid examples match the compute-only times derived by hand
# from the files (SimGrid's flop counts at cpu_flops = 1e9 flop/s). The
# per-rank files actions0.txt and actions1.txt of a 2-rank trace are
# refused alike, pointing at their index file, which converts and replays.
# usage: replay_public.sh NETLOOM SOURCE_ROOT
set -uo pipefail
netloom=$1
data=$2/tests/data/traces
. "$(dirname "$0")/lib.sh"

convert() { # IN OUT
  "$netloom" trace convert "$1" "$2" > /dev/null 2>&1 || fail "convert $1"
}

convert "$data/dumpi/testtrace.meta" "$dir/testtrace.nlt"
convert "$data/dumpi/testbgp.meta" "$dir/testbgp.nlt"
convert "$data/simgrid/replay_multiple/smpi_replay.txt" "$dir/smpi32.nlt"
for f in "$data"/simgrid/replay/actions_*.txt; do
  convert "$f" "$dir/$(basename "$f" .txt).nlt"
done

# Every converted trace replays on the default and the ideal network, with
# no message left unmatched.
for t in "$dir"/*.nlt; do
  for net in "" "-s ideal=yes"; do
    # shellcheck disable=SC2086
    "$netloom" replay "$t" $net --json "$t.json" > /dev/null 2> "$t.err" || { fail "replay $(basename "$t") $net: $(head -1 "$t.err")"; continue; }
    [ "$(json "$t.json" 'd["results"]["messages"]["unmatched"]')" = 0 ] || fail "$(basename "$t") $net: unmatched messages"
  done
done

# Ideal network: compute-only times derived from the files.
ideal() { # NAME EXPECTED_S
  "$netloom" replay "$dir/$1.nlt" -s ideal=yes --json "$dir/$1.ideal.json" > /dev/null || { fail "$1 ideal"; return; }
  got=$(json "$dir/$1.ideal.json" 'round(d["results"]["runtime"]["predicted_s"], 12)')
  [ "$got" = "$2" ] || fail "$1 ideal runtime: got $got s, expected $2 s"
}
ideal actions_allreduce 1.0          # allreduce (+5e8 flops reduction) then compute 5e8
ideal actions_barrier 0.098095       # rank 0's compute after the barrier: 98095000 flops
ideal actions_bcast 1.5              # two bcasts gate on the root's 0.5 s steps, then 0.5 s of reduction work
ideal actions_with_isend 3.0         # rank 2: 2e9 + 2.5e8 + 2.5e8 + 5e8 flops
ideal actions_waitall 0.0            # no compute at all

# DUMPI: the 7-rank Blue Gene/P trace keeps its communicator and collectives.
expect() { [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"; }
expect "testbgp ranks" "$(json "$dir/testbgp.nlt.json" 'len(d["results"]["ranks"])')" 7
expect "testbgp alltoall" "$(json "$dir/testbgp.nlt.json" '"alltoall" in d["results"]["collectives"]')" True
expect "smpi32 ranks" "$(json "$dir/smpi32.nlt.json" 'len(d["results"]["ranks"])')" 32

# The per-rank files of a 2-rank trace: actions0.txt references rank 1,
# actions1.txt has only rank 1's lines (it was converted with an empty
# rank 0, and its replay deadlocked). Both are refused with the same hint,
# nothing written; their index split_traces converts and replays.
hint="(ranks are the ones this file has actions for; a per-rank file of a larger trace is converted through the index file that lists every rank's file)"
for r in 0 1; do
  "$netloom" trace convert "$data/simgrid/replay/actions$r.txt" "$dir/single$r.nlt" > /dev/null 2> "$dir/single$r.err"
  expect_eq "convert actions$r.txt exit" $? 2
  [ ! -e "$dir/single$r.nlt" ] || fail "actions$r.txt: output written"
done
expect_eq "actions0.txt refusal" "$(cat "$dir/single0.err")" \
  "netloom trace convert: $data/simgrid/replay/actions0.txt:2: partner '1': expected a rank 0 .. 0 $hint"
expect_eq "actions1.txt refusal" "$(cat "$dir/single1.err")" \
  "netloom trace convert: $data/simgrid/replay/actions1.txt: rank 0 has no actions, though rank 1 has: expected actions for every rank 0 .. 1 $hint"
"$netloom" replay "$data/simgrid/replay/actions1.txt" > /dev/null 2> "$dir/single1r.err"
expect_eq "replay actions1.txt exit" $? 2
expect_eq "replay actions1.txt refusal" "$(cat "$dir/single1r.err")" \
  "$(sed 's/^netloom trace convert: /netloom replay: /' "$dir/single1.err")"
convert "$data/simgrid/replay/split_traces" "$dir/split.nlt"
"$netloom" replay "$dir/split.nlt" -s ideal=yes --json "$dir/split.json" > /dev/null 2> "$dir/split.err" || fail "replay split_traces: $(head -1 "$dir/split.err")"
expect_eq "split_traces status" "$(json "$dir/split.json" 'd["results"]["status"]')" ok
expect_eq "split_traces ideal runtime" "$(json "$dir/split.json" 'round(d["results"]["runtime"]["predicted_s"], 12)')" 1.0

if [ $fails -ne 0 ]; then
  echo "$fails public-trace replay checks failed" >&2
  exit 1
fi
echo "all public-trace replay checks passed"
