#!/usr/bin/env bash
# Quick start: install what is missing, build, and run netloom's main job
# on its bundled default: replay a real recorded MPI trace
# (traces/samples/lammps-lj-16.nlt, 16 ranks of LAMMPS's in.lj benchmark)
# through the flit-level network model (BookSim2's defaults for routers and
# links) on three candidate networks of the smallest size that holds its 16
# ranks, one rank per endpoint (rank r on endpoint r):
#   torus:k=4x4                 4x4 torus, one endpoint per router, DOR
#   dragonfly:a=4,p=2,h=2,g=2   balanced dragonfly (a = 2p = 2h), 2 groups, minimal routing
#   fattree:k=4,n=2             4-ary 2-tree, 16 terminals, minimal routing
# It prints one table (predicted runtime, share of time in MPI, busiest
# link's load per network), then the full report for the torus.
#   scripts/run.sh                  the default job
#   scripts/run.sh ARGS...          build/netloom ARGS... (e.g. run -s topology=torus:k=4x4),
#                                   run from the directory you called it in, so
#                                   relative paths in ARGS (-c my.ini, --json out.json)
#                                   are yours, not the repository's
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
(cd "$repo" && scripts/deps.sh && scripts/build.sh)
if [ $# -gt 0 ]; then
  exec "$repo/build/netloom" "$@"
fi
cd "$repo"
exec build/netloom replay traces/samples/lammps-lj-16.nlt -s backend=flit \
  --topology torus:k=4x4 --topology dragonfly:a=4,p=2,h=2,g=2 --topology fattree:k=4,n=2
