#!/usr/bin/env bash
# A sweep's points side by side on threads, without mpirun
# (docs/scaling.md "Sweeps on threads"): `netloom sweep --spread points
# -s threads=T` prints and writes what the sequential sweep of the same
# configuration does, byte for byte (--reproducible JSON, table, CSV, the
# deadlock report on stderr, exit status), for T = 1..3, on a torus and a
# dragonfly: sweeps that stop at an unstable point in the middle of a
# round (the points past it dropped), --continue, a last round with fewer
# points than threads, and a deadlock. The points and rates are checked
# against what the sweep must keep, so a sweep that kept a dropped point
# or lost one fails even when both sides agree. SIGINT or SIGTERM while
# a round runs ends the sweep by the signal, nothing written.
# usage: thread_points.sh NETLOOM
set -uo pipefail
netloom=$(realpath "$1")
. "$(dirname "$0")/lib.sh"

short=(-s sample_period=200 -s warmup_periods=2 -s max_samples=6)
torus=(-s topology=torus:k=4x4 -s num_vcs=2 -s latency_thres=100 "${short[@]}")        # first unstable 0.6
dfly=(-s topology=dragonfly:a=4,p=2,h=2 -s num_vcs=3 -s latency_thres=100 "${short[@]}") # first unstable 0.5
dl=(-s topology=torus:k=8 -s routing_function=min:select=first,classes=none -s num_vcs=1 -s vc_buf_size=2
    -s packet_size=8 -s traffic=tornado "${short[@]}")                                  # deadlock at 0.06
# name|rates and options|keys (an array name)|the offered rates kept
sweeps=(
  "torus-stops|--rates 0.2:0.7:0.1|torus|0.2 0.3 0.4 0.5 0.6"
  "torus-short|--rates 0.5:0.6:0.1|torus|0.5 0.6"
  "torus-continue|--rates 0.4:0.7:0.1 --continue|torus|0.4 0.5 0.6 0.7"
  "torus-csv|--rates 0.3:0.8:0.1 --csv|torus|0.3 0.4 0.5 0.6"
  "dfly-stops|--rates 0.1:0.9:0.1|dfly|0.1 0.2 0.3 0.4 0.5"
  "dfly-continue|--rates 0.3:0.6:0.1 --continue|dfly|0.3 0.4 0.5 0.6"
  "deadlock|--rates 0.02:0.1:0.01 --continue|dl|0.02 0.03 0.04 0.05 0.06"
)
for c in "${sweeps[@]}"; do
  IFS='|' read -r name opts arr want <<<"$c"
  read -r -a o <<<"$opts"
  declare -n keys=$arr
  for t in 1 2 3; do
    "$netloom" sweep "${keys[@]}" -s threads=$t "${o[@]}" --reproducible --json "$dir/$name-seq$t.json" \
      >"$dir/$name-seq$t.out" 2>"$dir/$name-seq$t.err"
    seq_rc=$?
    "$netloom" sweep "${keys[@]}" -s threads=$t "${o[@]}" --spread points --reproducible \
      --json "$dir/$name-$t.json" >"$dir/$name-$t.out" 2>"$dir/$name-$t.err"
    expect_eq "$name: exit on $t threads" "$?" "$seq_rc"
    cmp -s "$dir/$name-seq$t.json" "$dir/$name-$t.json" || fail "$name: --spread points on $t threads: JSON differs"
    cmp -s "$dir/$name-seq$t.out" "$dir/$name-$t.out" || fail "$name: --spread points on $t threads: stdout differs"
    cmp -s "$dir/$name-seq$t.err" "$dir/$name-$t.err" || fail "$name: --spread points on $t threads: stderr differs"
    expect_eq "$name: offered rates on $t threads" \
      "$(json "$dir/$name-$t.json" '" ".join("%g" % p["throughput"]["offered"] for p in d["results"]["points"])')" \
      "$want"
  done
  # The results do not depend on T (the configuration records threads).
  r() { json "$1" 'json.dumps(d["results"], sort_keys=True)'; }
  [ "$(r "$dir/$name-1.json")" = "$(r "$dir/$name-3.json")" ] || fail "$name: results differ on 1 and 3 threads"
  unset -n keys
done
expect_eq "torus-stops: first unstable" "$(json "$dir/torus-stops-2.json" 'd["results"]["saturation"]["first_unstable_rate"]')" 0.6
expect_eq "dfly-stops: first unstable" "$(json "$dir/dfly-stops-3.json" 'd["results"]["saturation"]["first_unstable_rate"]')" 0.5
expect_eq "deadlock: rate" "$(json "$dir/deadlock-2.json" 'd["results"]["saturation"]["deadlock_rate"]')" 0.06
expect_eq "deadlock: exit" "$("$netloom" sweep "${dl[@]}" --rates 0.02:0.1:0.01 --spread points -s threads=2 >/dev/null 2>&1; echo $?)" 1
grep -q "deadlocked input VCs" "$dir/deadlock-2.err" || fail "deadlock: no report of the waiting VCs on 2 threads"
# threads = 0: one per online processor, the same bytes; --plot too.
"$netloom" sweep "${torus[@]}" -s threads=0 --rates 0.2:0.7:0.1 --reproducible --json "$dir/auto-seq.json" >/dev/null 2>&1
"$netloom" sweep "${torus[@]}" -s threads=0 --rates 0.2:0.7:0.1 --spread points --reproducible \
  --json "$dir/auto.json" >"$dir/auto.out" 2>"$dir/auto.err" || fail "threads=0: exit $?"
cmp -s "$dir/auto-seq.json" "$dir/auto.json" || fail "threads=0: JSON differs"
expect_eq "threads=0: stderr" "$(cat "$dir/auto.err")" ""
if command -v gnuplot > /dev/null; then
  "$netloom" sweep "${dfly[@]}" --rates 0.1:0.9:0.1 --continue --plot "$dir/plot-seq.svg" >/dev/null 2>&1 || fail "plot: sequential"
  "$netloom" sweep "${dfly[@]}" -s threads=3 --rates 0.1:0.9:0.1 --continue --spread points --plot "$dir/plot-3.svg" \
    >/dev/null 2>&1 || fail "plot: --spread points exit $?"
  cmp -s "$dir/plot-seq.svg" "$dir/plot-3.svg" || fail "plot: --spread points on 3 threads: the chart differs"
fi
# A configuration refused when each point's network is built (on every
# thread): its one line, as sequential, and nothing on stdout.
bad=(-s flow_control=vct -s vc_buf_size=2 -s packet_size=8)
seq_err=$("$netloom" sweep "${torus[@]}" "${bad[@]}" --rates 0.1:0.3:0.1 2>&1 >/dev/null)
thr_err=$("$netloom" sweep "${torus[@]}" "${bad[@]}" --rates 0.1:0.3:0.1 --spread points -s threads=2 2>&1 >"$dir/bad.out")
expect_eq "refused: exit" "$?" 2
expect_eq "refused: the sequential line" "$thr_err" "$seq_err"
expect_eq "refused: stdout" "$(cat "$dir/bad.out")" ""
# Interrupted (SIGINT, as Ctrl-C, and SIGTERM) while a round's points run
# on pool_run's threads: the sweep ends by the signal at once, nothing on
# stdout and nothing written (no --json, no --plot, no temporary file by
# them or in TMPDIR). The signal comes once the round's two threads exist
# (/proc's thread count), each point far longer than the 60 s the sweep
# is given (2 x 10^8 cycles of warm-up): a signal held until the round's
# threads are joined leaves it running then.
long=(-s topology=torus:k=4x4 -s num_vcs=2 -s sample_period=100000000 -s warmup_periods=2 -s max_samples=3)
for sig in INT TERM; do
  o=$dir/intr-$sig
  mkdir -p "$o/out" "$o/tmp"
  TMPDIR=$o/tmp sig_run "$o/run" "$sig" 60 "$netloom" sweep "${long[@]}" -s threads=2 --rates 0.1:0.4:0.1 \
    --spread points --json "$o/out/sweep.json" --plot "$o/out/sweep.svg" & w=$!
  pid=$(sig_pid "$o/run")
  for _ in $(seq 600); do
    threads=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$pid/status" 2> /dev/null)
    [ "$threads" = 2 ] && break
    sleep 0.1
  done
  kill -"$sig" "$pid"
  wait "$w"
  expect_eq "$sig while the points run: threads, end, stdout, stderr, files" \
    "$threads:$(cat "$o/run.end"):$(cat "$o/run.out"):$(cat "$o/run.err"):$(find "$o/out" "$o/tmp" -mindepth 1)" \
    "2:signal SIG$sig:::"
done
[ "$fails" -eq 0 ] || exit 1
echo ok
