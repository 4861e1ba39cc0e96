#!/usr/bin/env bash
# Flit-engine speed on seed 001's 4,096-endpoint HyperX with DAL (issue 14):
#
#   hyperx_dal.sh NETLOOM netloom LOAD [T]     last line: netloom flit-hops per second
#   hyperx_dal.sh BOOKSIM booksim LOAD [T]     last line: BookSim2 flit-hops per second
#
# netloom: hyperx:s=8x8x8,t=T (T = 8: Fig. 6's network) with `dal` and the
# Fig. 6 router settings (benchmarks/validation/repro/hyperx_fig6.py),
# uniform traffic at LOAD, shortened statistics: three periods of 300
# cycles, 900 cycles, seed 0, as BookSim2 runs below. netloom warms up
# for two and measures the third (warmup_periods = 2, max_samples = 3,
# sim_type = throughput with max_drain_cycles = 0: no drain, so the run
# ends at cycle 900), the same 900 cycles of the same traffic, flit for
# flit, as the former warmup_periods = max_samples = 3 (BookSim's setting,
# whose table reported the third, warm-up period: netloom warned so on
# every run), so flit-hops/s stay comparable with the figures recorded
# before (benchmarks/README.md). Flit-hops/s = flit-hops / wall seconds
# from its summary line.
# BookSim2: its nearest equivalent, flatfly_onchip k=8, n=3 with UGAL
# (ugal_flatfly_onchip) and the same VCs, buffers, delays and statistics.
# BookSim's flatfly needs c = xr * yr with xr = yr, so c = 8 (T = 8) is
# impossible there: c = 9 (xr = yr = 3, x = y = 32, 4,608 endpoints) is
# the nearest, and T = 9 gives netloom the same network. BookSim's
# flit-hops are estimated from its report as accepted rate x endpoints x
# cycles x (hops - 1) (its hop count includes the ejection channel), over
# the process's CPU seconds measured by the caller; here, over wall time.
# Runs in a temporary directory (BookSim writes nothing else).
set -euo pipefail
case ${1:-} in -h | --help) echo "usage: hyperx_dal.sh NETLOOM netloom LOAD [T] | hyperx_dal.sh BOOKSIM booksim LOAD [T]"; exit 0 ;; esac
[ $# -ge 3 ] || { echo "usage: hyperx_dal.sh NETLOOM netloom LOAD [T] | hyperx_dal.sh BOOKSIM booksim LOAD [T]" >&2; exit 2; }
. "$(dirname "$0")/bench_lib.sh"
bin=$1
# Made absolute before the cd below (a relative path such as build/netloom
# is the caller's); a bare name is looked up in PATH.
case $bin in
*/*) [ -f "$bin" ] && [ -x "$bin" ] || { echo "hyperx_dal.sh: $bin: not an executable" >&2; exit 2; }
     bin=$(realpath -- "$bin") ;;
*) command -v -- "$bin" >/dev/null || { echo "hyperx_dal.sh: $bin: not found in PATH" >&2; exit 2; } ;;
esac
mode=$2
load=$3
T=${4:-8}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export NETLOOM_PROGRESS=0
case $mode in
netloom)
  out=$("$bin" run -s topology=hyperx:s=8x8x8,t="$T" -s routing_function=dal -s num_vcs=6 -s vc_buf_size=32 \
    -s flow_control=vct -s packet_size=1 -s channel_latency=1 -s routing_delay=1 -s vc_alloc_delay=1 \
    -s sw_alloc_delay=1 -s st_final_delay=1 -s vc_allocator=separable_input_first -s sw_allocator=islip \
    -s input_speedup=2 -s traffic=uniform -s injection_rate="$load" -s seed=0 -s warmup_periods=2 \
    -s sample_period=300 -s max_samples=3 -s sim_type=throughput -s max_drain_cycles=0)
  echo "$out"
  echo "$out" | flit_hops_rate hyperx_dal.sh
  ;;
booksim)
  cat >ff.cfg <<EOF
topology = flatfly;
subnets = 1;
k = 8;
n = 3;
c = 9;
x = 32;
y = 32;
xr = 3;
yr = 3;
use_noc_latency = 0;
num_vcs = 6;
vc_buf_size = 32;
wait_for_tail_credit = 0;
vc_allocator = separable_input_first;
sw_allocator = islip;
alloc_iters = 1;
credit_delay = 0;
routing_delay = 1;
vc_alloc_delay = 1;
sw_alloc_delay = 1;
st_final_delay = 1;
input_speedup = 2;
output_speedup = 1;
internal_speedup = 1.0;
warmup_periods = 3;
sample_period = 300;
max_samples = 3;
sim_count = 1;
sim_type = latency;
packet_size = 1;
traffic = uniform;
routing_function = ugal;
seed = 0;
EOF
  start=$(date +%s.%N)
  # BookSim2 exits 255 after a normal run.
  out=$("$bin" ff.cfg injection_rate="$load") || [ $? -eq 255 ]
  end=$(date +%s.%N)
  echo "$out" | grep -E "Time taken|Overall Traffic" | tail -2
  echo "$out" | python3 -c '
import re, sys
t = sys.stdin.read()
acc = float(re.findall(r"Accepted flit rate average = ([0-9.]+) \(", t)[-1])
hops = float(re.findall(r"Hops average = ([0-9.]+)", t)[-1])
cyc = int(re.findall(r"Time taken is (\d+) cycles", t)[-1])
eps = 512 * 9
wall = float(sys.argv[2]) - float(sys.argv[1])
print(f"# BookSim2 {cyc} cycles, accepted {acc}, hops {hops}: est. {acc * eps * cyc * (hops - 1):.0f} flit-hops in {wall:.2f} s wall")
print(f"{acc * eps * cyc * (hops - 1) / wall:.0f}")' "$start" "$end"
  ;;
*)
  echo "hyperx_dal.sh: mode '$mode': expected netloom or booksim" >&2
  exit 2
  ;;
esac
