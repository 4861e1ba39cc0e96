#!/usr/bin/env bash
# Flit-engine speed on FleX Table 6 (seed 000: flex:nx=6,ny=6,nz=3,p=10,
# 1,080 endpoints) with LBR (issue 14), under the paper's BookSim settings
# (single-flit packets, VC buffers 256, internal speedup 2, credit delay
# 2; 4 VCs, ours) and uniform traffic, shortened statistics.
#
#   flex_lbr.sh NETLOOM ROUTING LOAD   last line: flit-hops per second
#   flex_lbr.sh NETLOOM anynet FILE    write the same FleX as a BookSim2
#                                      anynet network_file (for its min_anynet)
#
# BookSim2 has no FleX and its anynet topology routes min_anynet only (no
# UGAL), so the nearest BookSim2 run is min_anynet on this exported graph;
# benchmarks/README.md has both figures and the commands.
set -euo pipefail
case ${1:-} in -h | --help) echo "usage: flex_lbr.sh NETLOOM ROUTING LOAD | flex_lbr.sh NETLOOM anynet FILE"; exit 0 ;; esac
[ $# -ge 3 ] || { echo "usage: flex_lbr.sh NETLOOM ROUTING LOAD | flex_lbr.sh NETLOOM anynet FILE" >&2; exit 2; }
. "$(dirname "$0")/bench_lib.sh"
netloom=$1
topo=flex:nx=6,ny=6,nz=3,p=10
export NETLOOM_PROGRESS=0
bench_exe flex_lbr.sh NETLOOM "$netloom"
if [ "$2" = anynet ]; then
  # The file's directory is checked before the export (a missing one
  # ended it in a FileNotFoundError).
  out_dir=$(dirname -- "$3")
  [ -d "$out_dir" ] && [ -w "$out_dir" ] ||
    { echo "flex_lbr.sh: FILE '$3': directory '$out_dir' does not exist or is not writable" >&2; exit 2; }
  [ ! -d "$3" ] || { echo "flex_lbr.sh: FILE '$3': is a directory (expected the network file to write)" >&2; exit 2; }
  # "router R node E... router S..." per router: its endpoints (router-major,
  # p = 10) and its neighbours, from netloom's edge list.
  "$netloom" topo export "$topo" --format edgelist | python3 -c '
import sys
p, adj = 10, {}
for line in sys.stdin:
    if line.startswith("#"):
        continue
    a, b, w = map(int, line.split())
    for _ in range(w):
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
out = []
for r in sorted(adj):
    nodes = " ".join(f"node {r * p + i}" for i in range(p))
    out.append(f"router {r} {nodes} " + " ".join(f"router {n}" for n in adj[r]))
try:
    open(sys.argv[1], "w").write("\n".join(out) + "\n")
except OSError as e:
    sys.exit(f"flex_lbr.sh: FILE {sys.argv[1]!r}: {e.strerror}")' "$3"
  exit 0
fi
routing=$2
load=$3
out=$("$netloom" run -s topology=$topo -s routing_function="$routing" -s num_vcs=4 -s packet_size=1 \
  -s vc_buf_size=256 -s internal_speedup=2 -s credit_delay=2 -s sample_period=300 -s injection_rate="$load" -s seed=0)
echo "$out"
echo "$out" | flit_hops_rate flex_lbr.sh
