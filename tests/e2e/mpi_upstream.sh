#!/usr/bin/env bash
# lookahead_decide = upstream over MPI ranks (issue 16 part 2,
# mpi_upstream.c mx_la_*): `mpirun -np K netloom run` for K = 1..3 gives
# the JSON of the sequential run byte for byte when switch winners'
# routes are decided at the next router, which another rank may run.
# Cases: a dragonfly with UGAL-L and 40-cycle global links, one with
# min:select=adaptive, internal speedup (heads still in the crossbar at
# the exchange: requests) and METIS; fat trees with nca and anca (the output-queue view, two outputs
# per port, hold_switch_for_packet's multi-cycle crossbar, a three-cycle
# crossbar keeping several decided heads per input VC); threads inside
# ranks; the BookSim2 ft_anca/ft_nca files as `netloom config
# --from-booksim` converts them; a trace replay. Windows are one cycle.
# usage: mpi_upstream.sh NETLOOM REPLAY_MKTRACE SOURCE_ROOT   (exit 77: no MPI)
set -uo pipefail
netloom=$1
mk=$2
src=$3
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/../mpi_env.sh"
mpi_require "$netloom"

up=(-s routing_delay=0 -s lookahead_decide=upstream)
short=(-s sample_period=200 -s warmup_periods=2 -s max_samples=6)
for f in ft_anca ft_nca; do
  "$netloom" config --from-booksim "$src/benchmarks/validation/booksim/$f.cfg" >"$dir/$f.toml" \
    || fail "$f: conversion exit $?"
  grep -q '^lookahead_decide = upstream$' "$dir/$f.toml" || fail "$f: converted without lookahead_decide = upstream"
done
# name, then the run's keys
cases=(
  "df_ugal_l|-s topology=dragonfly:a=4,p=2,h=2 -s routing_function=ugal:mode=local -s num_vcs=6 -s packet_size=1..4 -s injection_rate=0.3 -s global_latency=40 ${up[*]}"
  "df_adaptive|-s topology=dragonfly:a=4,p=2,h=2 -s routing_function=min:select=adaptive -s num_vcs=4 -s packet_size=1..4 -s injection_rate=0.35 -s internal_speedup=2 -s partitioner=metis ${up[*]}"
  "ft_nca|-s topology=fattree:k=4,n=3 -s routing_function=nca -s num_vcs=2 -s packet_size=1..4 -s injection_rate=0.5 ${up[*]}"
  "ft_anca|-s topology=fattree:k=4,n=3 -s routing_function=anca:queue=output -s num_vcs=2 -s packet_size=1..4 -s injection_rate=0.5 -s output_speedup=2 ${up[*]}"
  "ft_anca_hold|-s topology=fattree:k=4,n=3 -s routing_function=anca -s num_vcs=2 -s packet_size=1..4 -s injection_rate=0.5 -s hold_switch_for_packet=1 -s partitioner=metis ${up[*]}"
  "ft_anca_xb3|-s topology=fattree:k=4,n=3 -s routing_function=anca -s num_vcs=2 -s packet_size=1..4 -s injection_rate=0.5 -s st_final_delay=3 -s internal_speedup=2 ${up[*]}"
  "booksim_ft_anca|-c $dir/ft_anca.toml -s injection_rate=0.4 -s max_samples=4"
  "booksim_ft_nca|-c $dir/ft_nca.toml -s injection_rate=0.4 -s max_samples=4"
)
for c in "${cases[@]}"; do
  name=${c%%|*}
  read -r -a keys <<<"${c#*|}"
  # The converted files' 1,024-endpoint fat trees on 3 ranks only (a
  # partition that is not a power of two): the small cases above take the
  # rank counts through 1 to 3, and the big ones on 1 and 2 ranks were 16
  # of this script's 35 s.
  ranks="1 2 3"
  case $name in booksim_*) ranks=3 ;; esac
  mpi_same_as_seq "$name" "$ranks" "${short[@]}" "${keys[@]}"
done
# The decisions are upstream ones: lookahead_decide = arrival gives
# another run.
read -r -a keys <<<"${cases[0]#*|}"
"$netloom" run "${short[@]}" "${keys[@]}" -s lookahead_decide=arrival --reproducible --json "$dir/arrival.json" \
  >/dev/null || fail "df_ugal_l: arrival run"
cmp -s "$dir/arrival.json" "$dir/df_ugal_l-seq.json" && fail "df_ugal_l: upstream and arrival give the same run"

# Windows of one cycle: the 40-cycle links between ranks would allow 41.
st=$(NETLOOM_MPI_STATS=1 mpi 2 "$netloom" run "${short[@]}" "${keys[@]}" -s partitioner=metis -s sim_type=throughput \
  2>&1 >/dev/null | grep '^netloom mpi:')
grep -q "window up to 1 cycles" <<<"$st" || fail "df_ugal_l: windows: got '$st'"

# Two threads in each of two ranks: heads crossing partitions of one rank
# and of two.
read -r -a keys <<<"${cases[4]#*|}"
mpi 2 "$netloom" run "${short[@]}" "${keys[@]}" -s threads=2 --reproducible --json "$dir/thr-2.json" >/dev/null 2>&1 \
  || fail "threads=2 under 2 ranks exit $?"
# The configuration echo says threads = 2: compare the results.
[ "$(json "$dir/thr-2.json" 'd["results"]')" = "$(json "$dir/ft_anca_hold-seq.json" 'd["results"]')" ] \
  || fail "threads=2 under 2 ranks: results differ from the sequential run"

# A trace replay (every cycle an exchange already): the JSON but its
# wall-clock fields, and the report.
"$mk" "$dir/st.nlt" stencil 16 5 4096 1000 || fail "mktrace stencil"
r=("$dir/st.nlt" -s backend=flit -s topology=fattree:k=4,n=3 -s routing_function=anca -s num_vcs=2
   -s hold_switch_for_packet=1 "${up[@]}")
"$netloom" replay "${r[@]}" --json "$dir/replay-seq.json" >"$dir/replay-seq.out" 2>&1 || fail "replay: sequential exit $?"
for k in 2 3; do
  mpi "$k" "$netloom" replay "${r[@]}" --json "$dir/replay-$k.json" >"$dir/replay-$k.out" 2>"$dir/replay-$k.err" \
    || fail "replay: mpirun -np $k exit $?: $(head -3 "$dir/replay-$k.err")"
  expect_eq "replay: -np $k JSON" "$(nowall "$dir/replay-$k.json")" "$(nowall "$dir/replay-seq.json")"
  cmp -s <(grep -v wall "$dir/replay-seq.out") <(grep -v wall "$dir/replay-$k.out") \
    || fail "replay: -np $k report differs"
done

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "ok: MPI runs with upstream decisions equal the sequential ones"
