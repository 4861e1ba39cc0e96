#!/usr/bin/env bash
# End-to-end tests of `netloom trace`: runs the built binary on the public
# traces in tests/data/traces and checks outputs, exit statuses and bytes.
# Usage: trace_cli.sh NETLOOM SOURCE_ROOT
set -uo pipefail
NL=$1
DATA=$2/tests/data/traces
T=$(mktemp -d /tmp/nl_e2e_trace.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
n=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; fails=$((fails + 1)); }
# expect STATUS DESC CMD...: run CMD, check its exit status.
expect() {
	local want=$1 desc=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	local got=$?
	if [ "$got" = "$want" ]; then ok "$desc"; else
		fail "$desc (exit $got, expected $want)"
		sed 's/^/    /' "$T/out" "$T/err" | head -20
	fi
}
# same STRING FILE DESC: FILE's content equals STRING.
same() {
	if [ "$(cat "$2")" = "$1" ]; then ok "$3"; else
		fail "$3"
		echo "    expected: $1"
		echo "    got:      $(cat "$2")"
	fi
}

# --- convert + info --json --------------------------------------------------
expect 0 "convert DUMPI testbgp" "$NL" trace convert "$DATA/dumpi/testbgp.meta" "$T/bgp.nlt"
same "netloom trace convert: not converted: MPI_Comm_size x7 (no netloom operation; its time counts as compute)
netloom trace convert: not converted: MPI_Comm_rank x203 (no netloom operation; its time counts as compute)
netloom trace convert: not converted: MPI_Comm_group x7 (group bookkeeping: used for communicator members)
netloom trace convert: not converted: MPI_Group_incl x7 (group bookkeeping: used for communicator members)" \
	"$T/err" "convert lists the calls it did not convert, with counts"
expect 0 "info --json" "$NL" trace info --json "$T/bgp.nlt"
python3 - "$T/out" >"$T/json" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["ranks"], d["calls"]["isend"], d["calls"]["irecv"], d["calls"]["waitall"], d["calls"]["alltoall"],
      d["calls"]["comm_create"], d["p2p"]["messages"], d["p2p"]["bytes"], repr(d["recorded_runtime_s"]),
      d["application"], d["machine"], d["start_unix"], d["format_version"], len(d["communicators"]),
      d["communicators"][2]["world_ranks"], d["ops"], "compute" not in d["calls"])
PY
same "7 588 588 98 49 7 588 418656 0.012875546000000002 randombenchmark R00-M1-N01-J01.challenger 1385157238 2 3 [0, 1, 2, 3, 4, 5, 6] 2723 True" \
	"$T/json" "info --json field values (testbgp)"

expect 0 "convert SimGrid index of 32 ranks" "$NL" trace convert \
	"$DATA/simgrid/replay_multiple/smpi_replay.txt" "$T/ti.nlt"
expect 0 "info --json (SimGrid)" "$NL" trace info --json "$T/ti.nlt"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["ranks"], d["calls"]["bcast"], d["calls"]["alltoallv"], d["p2p"]["messages"], d["compute"]["flops_ops"], d["compute"]["flops"])' \
	"$T/out" >"$T/json"
same "32 288 64 0 1440 2266760717150.0" "$T/json" "info --json field values (SimGrid 32 ranks)"

expect 0 "convert SimGrid actions file with sends" "$NL" trace convert \
	"$DATA/simgrid/replay/actions_waitall.txt" "$T/wa.nlt"
expect 0 "info --json (actions_waitall)" "$NL" trace info --json "$T/wa.nlt"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["p2p"], d["calls"])' "$T/out" >"$T/json"
same "{'messages': 3, 'bytes': 8000} {'init': 3, 'finalize': 3, 'isend': 3, 'irecv': 3, 'waitall': 3}" \
	"$T/json" "p2p messages and bytes (actions_waitall: 2000 + 3000 + 3000)"

# --- dump -> encode byte identity -------------------------------------------------
for f in bgp ti wa; do
	"$NL" trace dump "$T/$f.nlt" >"$T/$f.txt" && "$NL" trace encode "$T/$f.txt" "$T/$f.re.nlt"
	if cmp -s "$T/$f.nlt" "$T/$f.re.nlt"; then ok "dump -> encode is byte-identical ($f)"; else fail "dump -> encode ($f)"; fi
done
expect 0 "dump --rank 3" "$NL" trace dump "$T/bgp.nlt" --rank 3
if grep -q '^rank 3$' "$T/out" && ! grep -q '^rank 0$' "$T/out"; then ok "dump --rank prints only that rank"; else fail "dump --rank"; fi
cp "$T/out" "$T/r3.txt"
expect 2 "encode of a one-rank dump is refused" "$NL" trace encode "$T/r3.txt" "$T/x.nlt"
same "netloom: $T/r3.txt:15: 'rank 3': expected 'rank 0' (every rank below 7, in order; a dump made with --rank cannot be encoded)" \
	"$T/err" "encode names why"
sed 's/^alltoall \(.*\)$/alltoall \1 frob=1/' "$T/bgp.txt" >"$T/bad.txt"
expect 2 "encode rejects an unknown field" "$NL" trace encode "$T/bad.txt" "$T/x.nlt"
line=$(grep -n 'frob=1' "$T/bad.txt" | head -1 | cut -d: -f1)
same "netloom: $T/bad.txt:$line: unknown op field 'frob'" "$T/err" "encode error names file and line"
if [ ! -e "$T/x.nlt" ]; then ok "nothing half-written after a failed encode"; else fail "x.nlt left behind"; fi

# Recorded samples (traces/samples/, written by the recorder): every one
# verifies and re-encodes from its dump to the same bytes.
shopt -s nullglob
samples=("$2"/traces/samples/*.nlt)
for s in "${samples[@]}"; do
	b=$(basename "$s" .nlt)
	if "$NL" trace verify "$s" >/dev/null && "$NL" trace dump "$s" >"$T/$b.txt" &&
		"$NL" trace encode "$T/$b.txt" "$T/$b.re.nlt" && cmp -s "$s" "$T/$b.re.nlt"; then
		ok "recorded sample $b: verify, dump -> encode byte-identical"
	else
		fail "recorded sample $b"
	fi
	rm -f "$T/$b.txt" "$T/$b.re.nlt"
done
[ ${#samples[@]} -gt 0 ] || echo "# no recorded samples in traces/samples yet"

# --- verify -------------------------------------------------------------------------
expect 0 "verify an intact archive" "$NL" trace verify "$T/bgp.nlt"
same "$T/bgp.nlt: OK: 7 ranks, 2723 ops, every stream matches its hash and op count" "$T/out" "verify OK line"
python3 - "$T/bgp.nlt" "$T/bad.nlt" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[len(d) - 25 + 17] ^= 0x01   # rank 6's end-chunk hash
open(sys.argv[2], 'wb').write(d)
PY
expect 1 "verify finds a flipped byte" "$NL" trace verify "$T/bad.nlt"
size=$(stat -c %s "$T/bgp.nlt")
if grep -q "^netloom: verify FAILED: $T/bad.nlt: rank 6, offset $((size - 25)): hash mismatch" "$T/err"; then
	ok "verify names rank and offset"
else
	fail "verify message: $(cat "$T/err")"
fi
expect 2 "verify of a missing file is bad input" "$NL" trace verify "$T/none.nlt"

# --- pack / unpack ----------------------------------------------------------------------
printf '[network]\ntopology = torus:k=4x4\n' >"$T/system.ini"
expect 0 "pack two traces and a config" "$NL" trace pack "$T/study.nlb" "$T/bgp.nlt" "$T/ti.nlt" --config "$T/system.ini"
expect 0 "unpack" "$NL" trace unpack "$T/study.nlb" "$T/restored"
if cmp -s "$T/bgp.nlt" "$T/restored/bgp.nlt" && cmp -s "$T/ti.nlt" "$T/restored/ti.nlt" &&
	cmp -s "$T/system.ini" "$T/restored/system.ini"; then
	ok "unpack restores every file byte for byte"
else
	fail "unpacked files differ"
fi
"$NL" trace pack "$T/study2.nlb" "$T/bgp.nlt" "$T/ti.nlt" --config "$T/system.ini" >/dev/null
if cmp -s "$T/study.nlb" "$T/study2.nlb"; then ok "pack is deterministic"; else fail "pack differs between runs"; fi
python3 - "$T/study.nlb" "$T/badb.nlb" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[200] ^= 0x55
open(sys.argv[2], 'wb').write(d)
PY
expect 2 "unpack detects a damaged entry" "$NL" trace unpack "$T/badb.nlb" "$T/restored2"
if grep -q "entry 'bgp.nlt'" "$T/err" && [ ! -e "$T/restored2/bgp.nlt" ]; then ok "damaged entry named, not written"; else fail "unpack damage: $(cat "$T/err")"; fi
expect 2 "pack refuses a damaged trace" "$NL" trace pack "$T/x.nlb" "$T/bad.nlt"

# --- usage ------------------------------------------------------------------------------
for c in info dump encode verify convert pack unpack; do
	expect 0 "trace $c --help" "$NL" trace "$c" --help
done
expect 0 "trace --help" "$NL" trace --help
expect 2 "trace without a command" "$NL" trace
expect 2 "unknown option" "$NL" trace info --frob "$T/bgp.nlt"
same "netloom trace info: unknown option '--frob' (usage: netloom trace info FILE [--json])" "$T/err" "usage error is one line"
expect 2 "convert of an unknown format" "$NL" trace convert "$T/system.ini" "$T/x.nlt"

echo "$n tests, $fails failed"
[ "$fails" = 0 ]
