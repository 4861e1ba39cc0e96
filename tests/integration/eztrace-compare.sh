#!/usr/bin/env bash
# OTF2 import, EZTrace dialect (issue 17): record one 4-rank MPI program
# (mpi_halo.c: ring, halo, blocking ring, wildcard receive, collectives)
# with Debian's `eztrace -t openmpi` and with netloom's recorder, convert
# the EZTrace archive, and check that
#   - both give the same point-to-point message count and bytes;
#   - each rank sends the same (destination, tag, bytes) in the same order;
#   - each receive is paired with the same send: per rank and per phase
#     (between barriers), the receives' (source, tag, bytes) agree, a
#     recorded MPI_ANY_SOURCE standing for any source;
#   - the import names the inferred irecvs on stderr;
#   - both archives replay to completion with every message matched.
# Exit 77 (skipped) without mpirun or eztrace.
# usage: eztrace-compare.sh NETLOOM RECORDER_SO PROGRAM
set -uo pipefail
netloom=$(realpath "$1") lib=$(realpath "$2") prog=$(realpath "$3")
command -v mpirun > /dev/null || { echo "no mpirun: skipped"; exit 77; }
command -v eztrace > /dev/null || { echo "no eztrace: skipped"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_mpi_yield_when_idle=1 NETLOOM_PROGRESS=0
unset NETLOOM_TRACE
dir=$(mktemp -d "${TMPDIR:-/tmp}/nl-eztrace.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

mpirun -np 4 eztrace -t openmpi -o "$dir/ez" "$prog" > ez.out 2>&1 < /dev/null || { cat ez.out >&2; echo "FAIL: eztrace run" >&2; exit 1; }
anchor=$(find "$dir/ez" -name "*.otf2" | head -1)
[ -n "$anchor" ] || { echo "FAIL: eztrace wrote no .otf2 in $dir/ez: $(ls -R "$dir/ez" | head)" >&2; exit 1; }
mpirun -np 4 env LD_PRELOAD="$lib" NETLOOM_TRACE="$dir/rec.nlt" "$prog" > rec.out 2> rec.err < /dev/null || { cat rec.err >&2; echo "FAIL: recorded run" >&2; exit 1; }
cmp -s ez.out rec.out 2> /dev/null || grep -q "checksum" rec.out || fail "program output differs"

"$netloom" trace convert "$anchor" ez.nlt > /dev/null 2> convert.err || { cat convert.err >&2; echo "FAIL: convert" >&2; exit 1; }
grep -q "MPI_Irecv source/tag/size x48 " convert.err || fail "inferred irecvs not named: $(cat convert.err)"

"$netloom" trace dump ez.nlt > ez.txt && "$netloom" trace dump rec.nlt > rec.txt || fail "dump"
python3 - ez.txt rec.txt <<'PY' || fails=$((fails + 1))
import re, sys
def load(path):
    ranks, cur = {}, None
    for line in open(path):
        if line.startswith("rank "):
            cur = ranks.setdefault(int(line.split()[1]), [])
            continue
        if cur is None or not line.strip() or line.startswith("#"):
            continue
        kind = line.split()[0]
        f = dict(re.findall(r"(\w+)=(\S+)", line))
        cur.append((kind, f.get("peer", "0"), f.get("tag", "0"), int(f.get("bytes", "0"))))
    return ranks
ez, rec = load(sys.argv[1]), load(sys.argv[2])
bad = 0
def err(msg):
    global bad
    bad += 1
    print("FAIL:", msg, file=sys.stderr)
SENDS = ("send", "isend", "ssend", "bsend", "rsend", "issend")
RECVS = ("recv", "irecv")
if sorted(ez) != sorted(rec):
    err(f"ranks differ: {sorted(ez)} vs {sorted(rec)}")
for r in sorted(rec):
    s_ez = [o[1:] for o in ez.get(r, []) if o[0] in SENDS]
    s_rec = [o[1:] for o in rec[r] if o[0] in SENDS]
    if s_ez != s_rec:
        err(f"rank {r}: sends differ:\n  eztrace  {s_ez}\n  recorder {s_rec}")
    def phases(ops):
        out, cur = [], []
        for o in ops:
            if o[0] == "barrier":
                out.append(cur); cur = []
            elif o[0] in RECVS:
                cur.append(o[1:])
        out.append(cur)
        return out
    p_ez, p_rec = phases(ez.get(r, [])), phases(rec[r])
    if len(p_ez) != len(p_rec):
        err(f"rank {r}: {len(p_ez)} phases vs {len(p_rec)}")
        continue
    for i, (a, b) in enumerate(zip(p_ez, p_rec)):
        left = list(a)
        for want in sorted(b, key=lambda x: x[0] == "any"):
            hit = next((x for x in left if (want[0] == "any" or x[0] == want[0]) and x[1:] == want[1:]), None)
            if hit is None:
                err(f"rank {r} phase {i}: recorder receive {want} has no counterpart in {a}")
            else:
                left.remove(hit)
        if left:
            err(f"rank {r} phase {i}: eztrace receives {left} not in the recording")
sys.exit(1 if bad else 0)
PY

for t in ez rec; do
  "$netloom" trace info "$t.nlt" --json > "$t.info" || fail "info $t"
  for b in analytic flit; do
    "$netloom" replay "$t.nlt" -s backend=$b --json "$t.$b.json" > /dev/null 2> "$t.$b.err" || { fail "replay $t on $b: $(head -1 "$t.$b.err")"; continue; }
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["results"]; sys.exit(0 if d["status"] == "ok" and d["messages"]["unmatched"] == 0 else 1)' "$t.$b.json" || fail "$t on $b: not complete"
  done
done
for k in messages bytes; do
  a=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["p2p"][sys.argv[2]])' ez.info $k)
  b=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["p2p"][sys.argv[2]])' rec.info $k)
  [ "$a" = "$b" ] || fail "p2p $k: eztrace $a, recorder $b"
done
[ $fails -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "eztrace-compare: ok"
