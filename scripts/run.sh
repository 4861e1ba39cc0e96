#!/usr/bin/env bash
# Quick start: install what is missing, build, and run netloom's main job
# on its bundled default: replay the recorded LAMMPS sample
# (traces/samples/lammps-lj-16.nlt, 16 ranks of LAMMPS's in.lj benchmark)
# through the flit-level network model on the default topology (an 8x8
# torus, BookSim2's defaults for routers and links).
#   scripts/run.sh                  the default job
#   scripts/run.sh ARGS...          build/netloom ARGS... (e.g. run -s topology=torus:k=4x4)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
if [ $# -gt 0 ]; then
  exec build/netloom "$@"
fi
exec build/netloom replay traces/samples/lammps-lj-16.nlt -s backend=flit
