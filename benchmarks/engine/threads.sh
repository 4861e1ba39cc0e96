#!/usr/bin/env bash
# Parallel efficiency of the threaded flit model (issue 16 part 1): the
# same `netloom run` on 1 thread and on N, timed by the JSON's
# results' wall_seconds (the simulation, not the set-up), and the two results
# checked equal byte for byte (JSON, wall clock aside). Last line: "parallel efficiency at N threads: E (speedup S)".
#   benchmarks/engine/threads.sh NETLOOM [N] [CASE]
# CASE: torus64 (64x64 torus, dor, 2 VCs, uniform 0.1; the default),
# dragonfly (a=16,p=8,h=8: 2,064 routers, 16,512 endpoints, min, 3 VCs,
# uniform 0.3), small (16x16 torus: where a cycle is too short for two
# threads to pay).
set -euo pipefail
case ${1:-} in -h | --help) echo "usage: threads.sh NETLOOM [N] [CASE]"; exit 0 ;; esac
[ $# -ge 1 ] || { echo "usage: threads.sh NETLOOM [N] [CASE]" >&2; exit 2; }
. "$(dirname "$0")/bench_lib.sh"
netloom=${1:?usage: threads.sh NETLOOM [N] [CASE]}
threads=${2:-2}
case=${3:-torus64}
# Checked before both runs (N = 0 once ended them in a ZeroDivisionError).
bench_exe threads.sh NETLOOM "$netloom"
bench_count threads.sh N "$threads"
common=(-s sample_period=300 -s max_samples=2 -s warmup_periods=1 -s seed=1)
case "$case" in
  torus64) args=(-s topology=torus:k=64x64 -s num_vcs=2 -s injection_rate=0.1) ;;
  dragonfly) args=(-s topology=dragonfly:a=16,p=8,h=8 -s routing_function=min -s num_vcs=3 -s injection_rate=0.3) ;;
  small) args=(-s topology=torus:k=16x16 -s num_vcs=2 -s injection_rate=0.1) ;;
  *) echo "threads.sh: unknown case '$case' (torus64, dragonfly, small)" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rate() { # json: flit-hops per wall second of the simulation
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(round(r["flit_hops"] / r["wall_seconds"]))' "$1"
}
run() { # threads
  NETLOOM_PROGRESS=0 "$netloom" run "${args[@]}" "${common[@]}" -s threads="$1" --json "$tmp/$1.json" >/dev/null
  rate "$tmp/$1.json" >"$tmp/$1.rate"
  sed -i -E -e 's/"wall_seconds": [0-9.e+-]+/"wall_seconds": 0/g' -e '/^ *"threads": [0-9]+,?$/d' \
    -e '/^ *"partitions": [0-9]+,?$/d' "$tmp/$1.json"
}
run 1
run "$threads"
if ! cmp -s "$tmp/1.json" "$tmp/$threads.json"; then
  echo "threads.sh: $threads threads gave other results than 1" >&2
  exit 1
fi
one=$(cat "$tmp/1.rate")
many=$(cat "$tmp/$threads.rate")
echo "case $case: 1 thread $one flit-hops/s, $threads threads $many flit-hops/s (same results)"
python3 -c 'import sys; s = int(sys.argv[2]) / int(sys.argv[1]); print(f"parallel efficiency at {sys.argv[3]} threads: {s / int(sys.argv[3]):.2f} (speedup {s:.2f})")' \
  "$one" "$many" "$threads"
