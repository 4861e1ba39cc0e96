#!/usr/bin/env bash
# Flit-engine speed and memory on BookSim2's own topologies (issue 11):
# the dragonfly (FleX settings, min and UGAL), the flattened butterfly
# (ran_min and UGAL) and the 4-ary 5-tree (NCA), from BookSim's own
# key=value files in benchmarks/validation/booksim/, converted with
# `netloom config --from-booksim` and run with `netloom run`.
#
#   booksim_topos.sh NETLOOM speed  CASE LOAD   last line: flit-hops per second
#   booksim_topos.sh NETLOOM memory CASE LOAD   last line: bytes per endpoint
#   NETLOOM=build/netloom booksim_topos.sh BOOKSIM memory CASE LOAD
#                                               the same figure for BookSim2
#                                               (a binary named booksim; NETLOOM
#                                               counts the endpoints)
#   BOOKSIM=/path/to/booksim booksim_topos.sh NETLOOM vs CASE LOAD
#                                               side by side: last line, netloom's
#                                               flit-hops per CPU second over
#                                               BookSim2's (median of PAIRS
#                                               alternating pairs, default 3):
#                                               "CASE at LOAD: netloom / BookSim2
#                                               flit-hops per CPU second, median
#                                               of 3 pairs: 15.3x"
#
# CASE is a file name without .cfg (df_flex_min, df_flex_ugal, ff_ranmin,
# ff_ugal, ft_nca, ...). Memory per endpoint is the peak resident memory
# at LOAD minus the same binary's peak on the idle network of that size,
# over the endpoints. Idle is IDLE_RATE (default 1e-6 flits per cycle per
# endpoint: a handful of packets in the whole run, none in flight at a
# time), not 0: BookSim2 steps every router every cycle, so its idle run
# runs all of its code, while netloom's at 0 runs none of the routers' and
# endpoints' code, and the pages of code (its own, libm's log) first
# touched under load were charged to traffic (on the 256-endpoint
# flattened butterfly that was all of the 292 KiB netloom "grew" at 0.3;
# BookSim2's peak is the same at 0 and at 1e-6). Both runs are made with
# address-space randomisation off (setarch -R) when the machine allows it:
# the peaks are then the same on every call; otherwise each peak is the
# median of MEMORY_RUNS runs (default 5). Both runs are pinned to one CPU
# (MEMORY_CPU, default the last; taskset) when the machine allows it: the
# kernel's resident-page count, which the peak is taken from, is kept per
# CPU and folded into the total in batches (percpu counters since Linux
# 6.2), so a peak can read up to a batch (32 pages, 128 KiB) per CPU the
# process ran on below the truth; pinned, that is one CPU's batch, the same
# on every call. That bound is why the 256-endpoint flattened butterfly
# cannot decide a 10x bar of ~90 KiB (its growth reads 0.3-0.6 KiB per
# endpoint from call to call unpinned) and why ff_ugal_n4 exists (the same
# router on 1,024 endpoints, n = 4 being BookSim's largest flatfly): there
# the bound is 128 bytes per endpoint. `hold_switch_for_packet
# = 1` (the fat tree files) is dropped before converting, as when these
# figures were first taken (1-flit packets: it never takes effect); BookSim
# runs the same file without the line.
set -euo pipefail
case ${1:-} in -h | --help) echo "usage: booksim_topos.sh NETLOOM speed|memory|vs CASE LOAD (see the header)"; exit 0 ;; esac
[ $# -ge 4 ] || { echo "usage: booksim_topos.sh NETLOOM speed|memory|vs CASE LOAD (see the header)" >&2; exit 2; }
. "$(dirname "$0")/bench_lib.sh"
netloom=$1
mode=$2
case=$3
load=$4
# The mode, then the binaries, before anything runs (README: a NETLOOM
# that is not an executable is one line and exit 2, not bash's exit 127).
case $mode in
speed | memory | vs) ;;
*) echo "booksim_topos.sh: mode '$mode': expected speed, memory or vs" >&2; exit 2 ;;
esac
if [ "$(basename "$netloom")" = booksim ]; then
  bench_exe booksim_topos.sh BOOKSIM "$netloom"
  [ -z "${NETLOOM:-}" ] || bench_exe booksim_topos.sh NETLOOM "$NETLOOM"
else
  bench_exe booksim_topos.sh NETLOOM "$netloom"
fi
here=$(cd "$(dirname "$0")" && pwd)
cfg=$here/../validation/booksim/$case.cfg
[ -f "$cfg" ] || { echo "booksim_topos.sh: $cfg: no such BookSim configuration" >&2; exit 2; }
if [ "$mode" = vs ]; then
  # Checked before the conversion and netloom's runs, as hyperx_dal.sh
  # checks its binary: a wrong BOOKSIM otherwise showed only as a missing
  # line in its output after the first netloom run.
  booksim=${BOOKSIM:?"booksim_topos.sh: set BOOKSIM to a BookSim2 binary for vs"}
  case $booksim in
  */*) [ -f "$booksim" ] && [ -x "$booksim" ] ||
         { echo "booksim_topos.sh: BOOKSIM '$booksim': not an executable" >&2; exit 2; } ;;
  *) command -v -- "$booksim" >/dev/null ||
       { echo "booksim_topos.sh: BOOKSIM '$booksim': not found in PATH" >&2; exit 2; } ;;
  esac
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NETLOOM_PROGRESS=0

grep -v '^ *hold_switch_for_packet *= *1' "$cfg" >"$dir/$case.cfg"
counter=$netloom # converts the file and counts the endpoints
if [ "$(basename "$netloom")" = booksim ]; then
  [ "$mode" = memory ] || { echo "booksim_topos.sh: BookSim2: memory only" >&2; exit 2; }
  counter=${NETLOOM:?"booksim_topos.sh: set NETLOOM to a netloom binary (it converts and counts the endpoints)"}
  cmd=("$netloom" "$dir/$case.cfg")
else
  cmd=("$netloom" run -c "$dir/$case.ini" -s)
fi
"$counter" config --from-booksim "$dir/$case.cfg" >"$dir/$case.ini"

case $mode in
speed)
  out=$("$netloom" run -c "$dir/$case.ini" -s injection_rate="$load")
  echo "$out"
  # "N cycles, F flit-hops in S s (R M flit-hops/s)": recompute F / S in full.
  echo "$out" | flit_hops_rate booksim_topos.sh
  ;;
memory)
  idle_rate=${IDLE_RATE:-0.000001}
  norand=()
  runs=${MEMORY_RUNS:-5}
  if setarch -R true 2>/dev/null; then
    norand=(setarch -R)
    runs=1
  fi
  cpu=${MEMORY_CPU:-$(($(nproc) - 1))}
  if taskset -c "$cpu" true 2>/dev/null; then
    norand=(taskset -c "$cpu" "${norand[@]}")
  fi
  median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
  peak_at() { # peak RSS (KiB, GNU time) of the run at rate $1, median of $runs
    local rc kib
    for _ in $(seq "$runs"); do
      # BookSim2 exits 255 after a normal run: GNU time then writes a
      # line about it before the figure. Any other failure (netloom's
      # at all) ends the script with the program's own message shown.
      rc=0
      /usr/bin/time -f %M -o "$dir/rss" "${norand[@]}" "${cmd[@]}" injection_rate="$1" >/dev/null || rc=$?
      if [ "$rc" -ne 0 ] && { [ "$counter" = "$netloom" ] || [ "$rc" -ne 255 ]; }; then
        echo "booksim_topos.sh: $(basename "$netloom") failed on $case at injection_rate=$1 (exit status $rc)" >&2
        exit 1
      fi
      kib=$(tail -n 1 "$dir/rss")
      case $kib in '' | *[!0-9]*) echo "booksim_topos.sh: no peak RSS from GNU time (got '$kib')" >&2; exit 1 ;; esac
      echo "$kib"
    done | median
  }
  idle=$(peak_at "$idle_rate") || exit 1
  busy=$(peak_at "$load") || exit 1
  eps=$("$counter" run -c "$dir/$case.ini" -s injection_rate=0 -s sample_period=10 -s warmup_periods=0 -s max_samples=1 |
    sed -n 's/.* \([0-9][0-9]*\) endpoints.*/\1/p')
  how="address-space randomisation off"
  [ "$runs" -gt 1 ] && how="medians of $runs runs"
  [ "${norand[0]:-}" = taskset ] && how="$how, on CPU $cpu"
  echo "$case at $load ($(basename "$netloom")): peak RSS $busy KiB, idle ($idle_rate) $idle KiB ($how), $eps endpoints"
  python3 -c "print(round(($busy - $idle) * 1024 / $eps))"
  ;;
vs)
  # Both on the same statistics (seed 0, warm-up periods of the file,
  # sample_period SAMPLE_PERIOD, default 300: about 2,000 cycles), netloom
  # then BookSim2, PAIRS times; CPU seconds (user + system) of each whole
  # process. Flit-hops: netloom's own count (router-to-router channel
  # traversals); BookSim2's from its overall statistics, accepted flit
  # rate x endpoints x cycles x (hops - 1) (its hop count includes the
  # ejection channel).
  period=${SAMPLE_PERIOD:-300}
  pairs=${PAIRS:-3}
  eps=$("$netloom" run -c "$dir/$case.ini" -s injection_rate=0 -s sample_period=10 -s warmup_periods=0 -s max_samples=1 |
    sed -n 's/.* \([0-9][0-9]*\) endpoints.*/\1/p')
  TIMEFORMAT='%3U %3S'
  for i in $(seq "$pairs"); do
    { time "$netloom" run -c "$dir/$case.ini" -s injection_rate="$load" -s seed=0 -s sample_period="$period" \
      >"$dir/nl.out" 2>&1; } 2>"$dir/nl.cpu" ||
      { cat "$dir/nl.out" >&2; echo "booksim_topos.sh: netloom failed on $case at injection_rate=$load" >&2; exit 1; }
    # BookSim2 exits 255 after a normal run.
    { time "$booksim" "$dir/$case.cfg" injection_rate="$load" seed=0 sample_period="$period" \
      >"$dir/bs.out" 2>&1 || true; } 2>"$dir/bs.cpu"
    python3 - "$dir" "$eps" "$i" <<'PY'
import re, sys
d, eps, i = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cpu = lambda f: sum(float(x) for x in open(f"{d}/{f}").read().split()[-2:])
nl, bs = open(f"{d}/nl.out").read(), open(f"{d}/bs.out").read()
m = re.search(r"(\d+) cycles, (\d+) flit-hops", nl)
if not m:
    sys.exit("booksim_topos.sh: no flit-hops line in netloom's output")
# A run that did not finish says why on its last line (BookSim2's own
# error, e.g. "Error: Unknown routing function: ..."): shown with the miss.
said = [l.strip() for l in bs.splitlines() if l.strip()]
said = f"its last line: {said[-1]}" if said else "it printed nothing"
def last(key):
    v = re.findall(key + r" = ([0-9.eE+-]+)", bs)
    if not v:
        sys.exit(f"booksim_topos.sh: no '{key}' in BookSim2's output ({said})")
    return float(v[-1])
cyc = re.findall(r"Time taken is (\d+) cycles", bs)
if not cyc:
    sys.exit(f"booksim_topos.sh: no 'Time taken' in BookSim2's output ({said})")
bfh = last("Accepted flit rate average") * eps * int(cyc[-1]) * (last("Hops average") - 1)
ncpu, bcpu = cpu("nl.cpu"), cpu("bs.cpu")
if ncpu <= 0 or bcpu <= 0:
    sys.exit(f"booksim_topos.sh: {'netloom' if ncpu <= 0 else 'BookSim2'} took no measurable CPU time "
             "(bash's time counts milliseconds); expected longer runs: raise SAMPLE_PERIOD")
r = (int(m.group(2)) / ncpu) / (bfh / bcpu)
print(f"pair {i}: netloom {m.group(1)} cycles, {int(m.group(2))} flit-hops, {ncpu:.3f} CPU s; "
      f"BookSim2 {cyc[-1]} cycles, {bfh:.0f} flit-hops, {bcpu:.3f} CPU s; ratio {r:.1f}")
with open(f"{d}/ratios", "a") as f:
    f.write(f"{r}\n")
PY
  done
  # The figure with its unit and what it is a median of: a bare "15.3"
  # as the last line said neither.
  sort -n "$dir/ratios" | awk -v c="$case" -v l="$load" '{v[NR] = $1} END {
    printf "%s at %s: netloom / BookSim2 flit-hops per CPU second, median of %d pairs: %.1fx\n", c, l, NR,
      (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
  ;;
esac
