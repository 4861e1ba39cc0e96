#!/usr/bin/env bash
# OTF2 import (issue 17): the two public Score-P archives in
# tests/data/traces/otf2 (sst-macro's otf2_test_traces, 10 ranks; SST
# Ember's test_emberotf2, 4 ranks) convert with the message, byte and
# collective counts otf2-print lists (hard-coded here and, when otf2-tools
# is installed, recounted from otf2-print), name their dropped calls with
# counts, replay to completion on both backends (directly from the .otf2
# too), and damaged archives (missing .evt, cut .def, cut .evt) fail with
# one line naming the file. Exit 77 (skip) when built without OTF2.
# usage: otf2.sh NETLOOM SOURCE_ROOT
set -uo pipefail
netloom=$1
data=$2/tests/data/traces/otf2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NETLOOM_PROGRESS=0
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
expect() { [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

if "$netloom" trace convert "$data/ember/traces.otf2" "$dir/probe.nlt" 2>&1 | grep -q "built without the OTF2 library"; then
  echo "netloom built without OTF2: skipped"; exit 77
fi

COLL='sum(v for k,v in d["calls"].items() if k in ("barrier","bcast","reduce","allreduce","gather","scatter","allgather","alltoall","scan","exscan","reduce_scatter_block"))'
check() { # NAME ARCHIVE MESSAGES BYTES COLLECTIVES
  local name=$1 a=$2
  "$netloom" trace convert "$a" "$dir/$name.nlt" > /dev/null 2> "$dir/$name.err" || { fail "convert $name: $(head -1 "$dir/$name.err")"; return; }
  "$netloom" trace info "$dir/$name.nlt" --json > "$dir/$name.info" || fail "info $name"
  expect "$name messages" "$(json "$dir/$name.info" 'd["p2p"]["messages"]')" "$3"
  expect "$name bytes" "$(json "$dir/$name.info" 'd["p2p"]["bytes"]')" "$4"
  expect "$name collectives" "$(json "$dir/$name.info" "$COLL")" "$5"
  if command -v otf2-print > /dev/null; then
    otf2-print "$a" > "$dir/$name.print"
    expect "$name messages (otf2-print)" "$3" "$(grep -cE '^MPI_(I?SEND) ' "$dir/$name.print")"
    expect "$name bytes (otf2-print)" "$4" "$(grep -E '^MPI_(I?SEND) ' "$dir/$name.print" | sed 's/.*Length: \([0-9]*\).*/\1/' | awk '{s+=$1} END {print s+0}')"
    expect "$name collectives (otf2-print)" "$5" "$(grep '^MPI_COLLECTIVE_END' "$dir/$name.print" | grep -cv '_HANDLE')"
  fi
  for b in analytic flit; do
    "$netloom" replay "$dir/$name.nlt" -s backend=$b --json "$dir/$name.$b.json" > /dev/null 2> "$dir/$name.rerr" || { fail "replay $name on $b: $(head -1 "$dir/$name.rerr")"; continue; }
    expect "$name $b status" "$(json "$dir/$name.$b.json" 'd["results"]["status"]')" ok
    expect "$name $b unmatched" "$(json "$dir/$name.$b.json" 'd["results"]["messages"]["unmatched"]')" 0
    expect "$name $b p2p" "$(json "$dir/$name.$b.json" 'd["results"]["messages"]["p2p"]["count"]')" "$3"
  done
}
check sstmacro "$data/sst-macro/traces.otf2" 1440 23592600 1200
check ember "$data/ember/traces.otf2" 0 0 4

# Dropped calls are named with their counts (Score-P 2.0.2 wrote no records
# for non-blocking collectives).
grep -q "not converted: MPI_Iallgather x360 " "$dir/sstmacro.err" || fail "MPI_Iallgather drop not named: $(cat "$dir/sstmacro.err")"
grep -q "not converted: MPI_Wait x1080 " "$dir/sstmacro.err" || fail "MPI_Wait drop not named"

# Replay straight from the anchor file gives the same prediction.
"$netloom" replay "$data/sst-macro/traces.otf2" --json "$dir/direct.json" > /dev/null 2> "$dir/direct.err" || fail "direct replay: $(head -1 "$dir/direct.err")"
expect "direct replay" "$(json "$dir/direct.json" 'd["results"]["runtime"]["predicted_s"]')" \
  "$(json "$dir/sstmacro.analytic.json" 'd["results"]["runtime"]["predicted_s"]')"
grep -q "netloom replay: not converted: MPI_Iallgather x360" "$dir/direct.err" || fail "direct replay does not name dropped calls"

# Damaged archives: one line naming the file, non-zero exit, no output.
bad() { # WHAT FILE_NAMED  (archive copy in $dir/bad)
  out=$("$netloom" trace convert "$dir/bad/traces.otf2" "$dir/bad.nlt" 2>&1 >/dev/null); rc=$?
  [ $rc -ne 0 ] || fail "$1: exit 0"
  [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "$1: not one line: $out"
  case $out in *"$2"*) ;; *) fail "$1: message does not name $2: $out" ;; esac
  [ ! -e "$dir/bad.nlt" ] || fail "$1: output written"
}
fresh() { rm -rf "$dir/bad"; cp -r "$data/sst-macro" "$dir/bad"; chmod -R u+w "$dir/bad"; }
fresh; rm "$dir/bad/traces/3.evt"; bad "missing .evt" "traces/3.evt"
fresh; head -c 3000 "$data/sst-macro/traces.def" > "$dir/bad/traces.def"; bad "cut .def" "traces.def"
fresh; rm "$dir/bad/traces.def"; bad "missing .def" "traces.def"
fresh; head -c 2000 "$data/sst-macro/traces/5.evt" > "$dir/bad/traces/5.evt"; bad "cut .evt" "traces/5.evt"
fresh; head -c 20 "$data/sst-macro/traces.otf2" > "$dir/bad/traces.otf2"; bad "cut anchor" "traces.otf2"

[ $fails -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "otf2: ok"
