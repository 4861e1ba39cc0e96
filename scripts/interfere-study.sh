#!/usr/bin/env bash
# The interference study of docs/placement.md (issue 13): the bundled
# LAMMPS trace (traces/samples/lammps-lj-8.nlt) beside a synthetic
# all-to-all "bully" on a dragonfly, both jobs placed by the same policy
# (contiguous, random-node, round-robin), random placement over several
# seeds; prints one line per run, then min / median / max per policy.
#
# usage: scripts/interfere-study.sh [BUILD_DIR] [OUT_DIR]
#   BUILD_DIR  holds the netloom binary (default build)
#   OUT_DIR    keeps the workloads and JSON documents (default: a temporary
#              folder, removed at the end)
# Environment: SEEDS (default "1 2 3 4 5"), BACKEND (analytic or flit,
# default analytic), TOPOLOGY (default dragonfly:a=4,p=2,h=2), BULLY_ITERS
# (default 600), BULLY_BYTES (bytes per peer per all-to-all, default 65536),
# BULLY_GAP_NS (compute between all-to-alls, default 200000).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
netloom=$build/netloom
[ -x "$netloom" ] || { echo "interfere-study: $netloom not built (scripts/build.sh)" >&2; exit 2; }
if [ $# -ge 2 ]; then out=$2; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
seeds=${SEEDS:-1 2 3 4 5}
backend=${BACKEND:-analytic}
topology=${TOPOLOGY:-dragonfly:a=4,p=2,h=2}
iters=${BULLY_ITERS:-600}
bytes=${BULLY_BYTES:-65536}
gap=${BULLY_GAP_NS:-200000}
export NETLOOM_PROGRESS=0

# The bully: 8 ranks, ITERS x (GAP ns of compute, then MPI_Alltoall of
# BYTES per peer; its CPU time is the compute time, as LAMMPS's replays),
# written as text form and encoded (docs/trace-format.md §8).
python3 - "$out/bully.txt" "$iters" "$bytes" "$gap" <<'PY'
import sys
path, iters, nbytes, gap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with open(path, "w") as f:
    f.write('netloom-trace 2\nranks 8\napplication "alltoall-bully"\n')
    f.write('recorded_runtime_s %.17g\nhosts 8\nranks_per_host 1\ncores_per_host 1\ncompute_cpu_time 1\n' % (iters * gap * 1e-12 * 1e3))
    for r in range(8):
        f.write("rank %d\ninit t=0 dur=0\n" % r)
        t = 0
        for _ in range(iters):
            f.write("compute t=%d dur=%d cpu=%d\n" % (t, gap * 1000, gap * 1000))
            t += gap * 1000
            f.write("alltoall t=%d dur=0 bytes=%d recv_bytes=%d\n" % (t, nbytes, nbytes))
        f.write("finalize t=%d dur=0\n" % t)
PY
"$netloom" trace encode "$out/bully.txt" "$out/bully.nlt" > /dev/null

cat > "$out/system.ini" <<EOF
[network]
topology = $topology
routing_function = min
[replay]
backend = $backend
compute_time = cpu
[analytic]
link_model = links
EOF

printf '%-12s %5s %13s %13s %11s %11s %11s %7s  %s\n' policy seed lammps_alone lammps_shared slowdown p99_shift bully_slow shared "busiest shared link (lammps/bully share)"
results=()
for policy in contiguous random-node round-robin; do
  for seed in $seeds; do
    [ "$policy" = contiguous ] || [ "$policy" = round-robin ] && [ "$seed" != "${seeds%% *}" ] && continue
    w=$out/$policy-$seed.ini
    cat > "$w" <<EOF
[workload]
seed = $seed
[job lammps]
trace = $root/traces/samples/lammps-lj-8.nlt
placement = $policy
[job bully]
trace = bully.nlt
placement = $policy
EOF
    "$netloom" interfere "$w" -c "$out/system.ini" --json "$out/$policy-$seed.json" > /dev/null
    line=$(python3 - "$out/$policy-$seed.json" "$policy" "$seed" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["results"]
l, b = d["jobs"]
top = d["links"]["top_shared"]
t = ("router %d -> %d (%.0f%%/%.0f%%)" % (top[0]["router"], top[0]["peer_router"], 100 * top[0]["shares"][0], 100 * top[0]["shares"][1])) if top else "-"
print("%-12s %5s %13.6f %13.6f %+10.3f%% %+10.2f%% %+10.3f%% %7d  %s" % (
    sys.argv[2], sys.argv[3], l["alone"]["runtime_s"], l["shared"]["runtime_s"], 100 * l["slowdown"],
    100 * (l["latency_shift"]["p99"] or 0), 100 * b["slowdown"], d["links"]["links_shared"], t))
PY
)
    echo "$line"
    results+=("$out/$policy-$seed.json")
  done
done

echo
python3 - "${results[@]}" <<'PY'
import json, statistics, sys
by = {}
for p in sys.argv[1:]:
    d = json.load(open(p))["results"]
    pol = d["jobs"][0]["placement"]
    by.setdefault(pol, []).append(d)
print("%-12s %4s %27s %27s %27s" % ("policy", "runs", "lammps slowdown min/med/max", "bully slowdown min/med/max", "shared links min/med/max"))
for pol, ds in by.items():
    def mmm(v, pct=True):
        f = (lambda x: "%+.3f%%" % (100 * x)) if pct else (lambda x: "%g" % x)
        return "%s/%s/%s" % (f(min(v)), f(statistics.median(v)), f(max(v)))
    print("%-12s %4d %27s %27s %27s" % (pol, len(ds), mmm([d["jobs"][0]["slowdown"] for d in ds]),
          mmm([d["jobs"][1]["slowdown"] for d in ds]), mmm([d["links"]["links_shared"] for d in ds], False)))
PY
