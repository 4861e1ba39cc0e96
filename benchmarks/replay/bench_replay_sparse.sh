#!/usr/bin/env bash
# Replay cost against network size at the same traffic: an 8-rank halo
# exchange (replay_mktrace stencil 8 400 65536 20000) replayed on the flit
# backend on a 36-router dragonfly (p=2, a=4, h=2) and on a 2,064-router
# one (p=2, a=16, h=8). The ranks sit on the same four routers of group 0
# in both and exchange over the same one-hop local channels, so both
# predict the same runtime (checked) and a replay whose cost followed the
# traffic would take the same time; what the larger network adds is what
# the engine spends on routers that carry nothing. The last line is the
# ratio of the two replays' CPU seconds (medians of RUNS, default 3).
# usage: bench_replay_sparse.sh NETLOOM REPLAY_MKTRACE [RUNS]
set -euo pipefail
usage="usage: bench_replay_sparse.sh NETLOOM REPLAY_MKTRACE [RUNS]"
case ${1:-} in -h | --help) echo "$usage"; exit 0 ;; esac
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "$usage" >&2; exit 2; }
netloom=$1
mk=$2
runs=${3:-3}
# shellcheck source=benchmarks/engine/bench_lib.sh
. "$(dirname "$0")/../engine/bench_lib.sh"
bench_exe bench_replay_sparse.sh NETLOOM "$netloom"
bench_exe bench_replay_sparse.sh REPLAY_MKTRACE "$mk"
bench_count bench_replay_sparse.sh RUNS "$runs"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NETLOOM_PROGRESS=0
"$mk" "$dir/st8.nlt" stencil 8 400 65536 20000

# CPU seconds (user + system, getrusage of the child) and predicted
# runtime of one replay, median over RUNS.
replay() {
  python3 - "$runs" "$dir/r.json" "$netloom" replay "$dir/st8.nlt" -s backend=flit -t "$1" --json "$dir/r.json" <<'PY'
import json, resource, statistics, subprocess, sys
runs, out, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
cpu = []
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
    if rc != 0:  # the command has said why on its standard error
        sys.exit(f"bench_replay_sparse.sh: replay on {cmd[-3]} failed (exit status {rc})")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
pred = json.load(open(out))["results"]["runtime"]["predicted_s"]
print(f"{statistics.median(cpu):.3f} {pred!r}")
PY
}
read -r small_s small_pred < <(replay dragonfly:p=2,a=4,h=2)
read -r big_s big_pred < <(replay dragonfly:p=2,a=16,h=8)
[ -n "${small_s:-}" ] && [ -n "${big_s:-}" ] || exit 1
echo "36 routers (dragonfly:p=2,a=4,h=2):     ${small_s} CPU s, predicted ${small_pred} s"
echo "2,064 routers (dragonfly:p=2,a=16,h=8): ${big_s} CPU s, predicted ${big_pred} s"
[ "$small_pred" = "$big_pred" ] ||
  { echo "bench_replay_sparse.sh: the two networks predicted different runtimes: not the same traffic" >&2; exit 1; }
python3 -c "import sys; print(f'replay CPU time, 2,064 routers / 36 routers, same traffic: {float(sys.argv[2]) / float(sys.argv[1]):.2f}x')" "$small_s" "$big_s"
