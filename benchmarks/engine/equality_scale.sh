#!/usr/bin/env bash
# The Equality paper's scale run (seed 002 §5.5, issue 16 part 1): an
# n64000k64p16 network (1,024,000 endpoints) at 0.9 flits/cycle/endpoint,
# bit-complement traffic, amin routing, single-flit packets, 64-flit VCs,
# as many VCs as the diameter; or the 128,000-endpoint n8000k64p16 at the
# same settings (the size CI gates, tests/e2e/cli_engine.py).
#   benchmarks/engine/equality_scale.sh NETLOOM [128k|1m] [CYCLES] [THREADS]
# CYCLES: measured cycles (default 10000, the issue's "warm-up plus at
# least 10,000 measured cycles"; give a few hundred for a quick figure),
# after WARMUP (environment) cycles of warm-up, as many by default; both
# are measured in sample periods of their greatest common divisor, every
# one of them run (no early stop on convergence). THREADS: [simulation]
# threads (default 1). PARTITIONS (environment): [simulation] partitions, unset:
# the engine's automatic count (docs/scaling.md). KEEP (environment): a
# directory to keep the run's JSON (run.json: histograms, every figure)
# and the design's (design.json) in; unset, they go with the temporary
# directory. The network is the one `netloom design equality --routers N
# --radix 64 --endpoints 16 --seed 1` finds (its chords are not in our copy
# of the paper). sim_type = throughput: 0.9 is past amin's saturation on
# these networks (docs/validation.md), so a latency run would never drain;
# max_drain_cycles = 0: nor does this one drain, which past saturation
# would empty source queues grown over every cycle (3,456 cycles after
# 40 measured on 128k; hours after 10,000 on 1m). The figures below are
# the measured window's, as in the paper's throughput runs.
# Last line: flit-hops per second, peak memory per endpoint, accepted rate.
set -euo pipefail
case ${1:-} in -h | --help) echo "usage: equality_scale.sh NETLOOM [128k|1m] [CYCLES] [THREADS]"; exit 0 ;; esac
[ $# -ge 1 ] || { echo "usage: equality_scale.sh NETLOOM [128k|1m] [CYCLES] [THREADS]" >&2; exit 2; }
. "$(dirname "$0")/bench_lib.sh"
netloom=${1:?usage: equality_scale.sh NETLOOM [128k|1m] [CYCLES] [THREADS]}
size=${2:-128k}
cycles=${3:-10000}
threads=${4:-1}
warmup=${WARMUP:-$cycles}
case "$size" in
  128k) routers=8000 ;;
  1m) routers=64000 ;;
  *) echo "equality_scale.sh: unknown size '$size' (128k or 1m)" >&2; exit 2 ;;
esac
# All checked before the design (minutes on 1m): CYCLES 0 once ended the
# run in a ZeroDivisionError, 'abc' in a ValueError.
bench_exe equality_scale.sh NETLOOM "$netloom"
bench_count equality_scale.sh CYCLES "$cycles"
bench_count equality_scale.sh THREADS "$threads"
bench_count equality_scale.sh WARMUP "$warmup" 0
[ -z "${PARTITIONS:-}" ] || bench_count equality_scale.sh PARTITIONS "$PARTITIONS" 0 # 0: automatic
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP" || { echo "equality_scale.sh: cannot create KEEP directory '$KEEP'" >&2; exit 2; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$netloom" design equality --routers "$routers" --radix 64 --endpoints 16 --seed 1 --json -o "$tmp/design.json"
python3 - "$netloom" "$tmp" "$size" "$cycles" "$threads" "$warmup" <<'EOF'
import json, math, os, resource, subprocess, sys, time
netloom, tmp, size, cycles, threads, warmup = sys.argv[1:7]
period = math.gcd(int(warmup), int(cycles))
d = json.load(open(os.path.join(tmp, "design.json")))
args = [netloom, "run", "-s", "topology=" + d["spec"], "-s", "routing_function=amin",
        "-s", "num_vcs=%d" % d["diameter"], "-s", "vc_buf_size=64", "-s", "packet_size=1",
        "-s", "traffic=bitcomp", "-s", "injection_rate=0.9", "-s", "seed=1",
        "-s", "sim_type=throughput", "-s", "max_drain_cycles=0", "-s", "warmup_periods=%d" % (int(warmup) // period),
        "-s", "max_samples=%d" % ((int(warmup) + int(cycles)) // period), "-s", "acc_stopping_thres=0",
        "-s", "sample_period=%d" % period, "-s", "threads=" + threads,
        "--json", os.path.join(tmp, "run.json")]
if os.environ.get("PARTITIONS"):
    args[2:2] = ["-s", "partitions=" + os.environ["PARTITIONS"]]
t0 = time.monotonic()
rc = subprocess.run(args, env=dict(os.environ, NETLOOM_PROGRESS=os.environ.get("NETLOOM_PROGRESS", "0"))).returncode
if rc != 0:  # netloom has said why on its standard error
    sys.exit(f"equality_scale.sh: netloom run failed (exit status {rc})")
wall = time.monotonic() - t0
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # the largest child: netloom run
r = json.load(open(os.path.join(tmp, "run.json")))["results"]
eps = d["routers"] * 16
print(f"network {d['notation'][:24]}... : {d['routers']} routers, {eps} endpoints, diameter {d['diameter']}, "
      f"average distance {d['aspl']:.3f}")
print(f"{int(warmup)} + {int(cycles)} cycles on {threads} thread(s), partitions {os.environ.get('PARTITIONS') or 'automatic'}: {r['flit_hops']} flit-hops in {r['wall_seconds']:.1f} s "
      f"of simulation, {wall:.1f} s in all; peak memory {peak / 2**30:.2f} GiB")
print(f"{r['cycles']} cycles run, {r['measured_cycles']} measured in {r['samples'] - int(warmup) // period} sample(s)")
print(f"offered 0.9, accepted {r['throughput']['accepted']:.4f} flits/cycle/endpoint, packet latency mean "
      f"{r['latency']['packet']['mean']:.1f} cycles, hops mean {r['hops']['mean']:.3f}")
if os.environ.get("KEEP"):
    import shutil
    for f in ("run.json", "design.json"):
        shutil.copyfile(os.path.join(tmp, f), os.path.join(os.environ["KEEP"], f))
print(f"equality {size}: {r['flit_hops'] / r['wall_seconds']:.0f} flit-hops/s, "
      f"{peak / eps:.0f} bytes per endpoint peak, accepted {r['throughput']['accepted']:.4f} of 0.9")
EOF
