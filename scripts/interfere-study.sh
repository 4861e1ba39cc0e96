#!/usr/bin/env bash
# The interference study of docs/placement.md (issue 13): the bundled
# LAMMPS trace (traces/samples/lammps-lj-8.nlt) beside a synthetic
# all-to-all "bully" (a workload's synthetic job: ITERS x (GAP ns of
# compute, then MPI_Alltoall of BYTES per peer), 8 ranks) on a dragonfly, both jobs placed by the same policy
# (contiguous, random-node, round-robin), random placement over several
# seeds; prints one line per run, then min / median / max per policy.
#
# usage: scripts/interfere-study.sh [BUILD_DIR] [OUT_DIR]
#   BUILD_DIR  holds the netloom binary (default build; scripts/build.sh)
#   OUT_DIR    keeps the workloads and JSON documents (default: a temporary
#              folder, removed at the end); the tables go to stdout only
# Environment: SEEDS (whole numbers separated by white space, default
# "1 2 3 4 5"; contiguous and round-robin run with the first only), BACKEND (analytic or flit,
# default analytic), TOPOLOGY (default dragonfly:a=4,p=2,h=2), BULLY_ITERS
# (default 600), BULLY_BYTES (bytes per peer per all-to-all, default 65536),
# BULLY_GAP_NS (compute between all-to-alls, default 200000).
# Needs python3. Time (docs/placement.md): the default study about 2 s of
# CPU; BACKEND=flit with BULLY_ITERS=60 BULLY_GAP_NS=2000000 SEEDS="1 2 3"
# about 1 min of CPU (the default bully on the flit model: far longer).
set -euo pipefail
usage="usage: scripts/interfere-study.sh [BUILD_DIR] [OUT_DIR]"
case ${1:-} in
-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
-*) echo "interfere-study: unknown option '$1' ($usage)" >&2; exit 2 ;;
esac
[ $# -le 2 ] || { echo "interfere-study: $# arguments; expected at most 2 ($usage)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
netloom=$build/netloom
[ -x "$netloom" ] || { echo "interfere-study: $netloom: not an executable; expected BUILD_DIR to hold a built netloom (scripts/build.sh)" >&2; exit 2; }
if [ $# -ge 2 ]; then
  out=$2
  if [ -e "$out" ] && [ ! -d "$out" ] || ! mkdir -p "$out" 2> /dev/null; then
    echo "interfere-study: OUT_DIR '$out': not a directory; expected a directory, or a path where one can be made" >&2
    exit 2
  fi
else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
# SEEDS is split on white space, so " 2 3" or "2  3" is the seeds 2 and 3;
# the first is the one seed the deterministic policies run with.
read -r -a seeds <<<"${SEEDS:-1 2 3 4 5}"
[ ${#seeds[@]} -gt 0 ] || { echo "interfere-study: SEEDS: '${SEEDS:-}' holds no seed (expected whole numbers, e.g. \"1 2 3\")" >&2; exit 2; }
for s in "${seeds[@]}"; do
  case $s in '' | *[!0-9]*) echo "interfere-study: SEEDS: '$s' is not a whole number" >&2; exit 2 ;; esac
done
backend=${BACKEND:-analytic}
topology=${TOPOLOGY:-dragonfly:a=4,p=2,h=2}
iters=${BULLY_ITERS:-600}
bytes=${BULLY_BYTES:-65536}
gap=${BULLY_GAP_NS:-200000}
export NETLOOM_PROGRESS=0

cat > "$out/system.ini" <<EOF
[network]
topology = $topology
routing_function = min
[replay]
backend = $backend
[analytic]
link_model = links
EOF

printf '%-12s %5s %13s %13s %11s %11s %11s %7s  %s\n' policy seed lammps_alone lammps_shared slowdown p99_shift bully_slow shared "busiest shared link (lammps/bully share)"
results=()
for policy in contiguous random-node round-robin; do
  for seed in "${seeds[@]}"; do
    [ "$policy" = contiguous ] || [ "$policy" = round-robin ] && [ "$seed" != "${seeds[0]}" ] && continue
    w=$out/$policy-$seed.ini
    # The seed only where the policy draws (random-node): a [workload]
    # seed no job reads is warned of, one stderr line per such run.
    if [ "$policy" = random-node ]; then printf '[workload]\nseed = %s\n' "$seed"; fi > "$w"
    cat >> "$w" <<EOF
[job lammps]
trace = $root/traces/samples/lammps-lj-8.nlt
placement = $policy
[job bully]
synthetic = alltoall
ranks = 8
bytes = $bytes
interval_s = $(python3 -c "print($gap / 1e9)")
steps = $iters
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
