#!/usr/bin/env bash
# The same source built by two compilers gives the same results to the
# byte: gcc's build (the test suite's) and clang's (scripts/build.sh
# --clang). Results must not depend on the compiler that built netloom:
# no floating-point contraction or evaluation-order dependence (C11 on
# x86-64's SSE2, no fast-math).
# usage: compilers_agree.sh NETLOOM SOURCE_ROOT
# The other binary is $NETLOOM_OTHER_BUILD (scripts/test.sh sets it);
# without it the test is skipped (exit 77).
set -uo pipefail
netloom=$1
root=$2
other=${NETLOOM_OTHER_BUILD:-}
if [ -z "$other" ]; then
  echo "SKIP: NETLOOM_OTHER_BUILD is not set (scripts/test.sh builds build-clang/ and sets it)"
  exit 77
fi
[ -x "$other" ] || { echo "FAIL: NETLOOM_OTHER_BUILD=$other: not an executable"; exit 1; }
. "$(dirname "$0")/lib.sh"

# BookSim2's flattened butterfly and FleX dragonfly as converted (lookahead,
# internal speedup 2, UGAL's booksim mode), seed 001's DAL with input
# speedup 2 and cut-through, ANCA on a fat tree, and a trace replayed on
# the flit backend: the engine's main paths.
"$netloom" config --from-booksim "$root/benchmarks/validation/booksim/ff_ranmin.cfg" >"$dir/ff.ini" 2>/dev/null ||
  fail "converting ff_ranmin.cfg"
"$netloom" config --from-booksim "$root/benchmarks/validation/booksim/df_flex_ugal.cfg" >"$dir/df.ini" 2>/dev/null ||
  fail "converting df_flex_ugal.cfg"
short="-s warmup_periods=2 -s sample_period=300 -s max_samples=4 -s seed=3 --reproducible"
runs=(
  "run -c $dir/ff.ini -s injection_rate=0.4 -s traffic=bitcomp $short"
  "run -c $dir/df.ini -s injection_rate=0.5 $short"
  "run -s topology=hyperx:s=4x4x4,t=4 -s routing_function=dal -s num_vcs=6 -s vc_buf_size=32 -s flow_control=vct -s input_speedup=2 -s vc_allocator=separable_input_first -s injection_rate=0.5 $short"
  "run -s topology=fattree:k=4,n=3 -s routing_function=anca -s num_vcs=2 -s injection_rate=0.6 $short"
  "run -s topology=torus:k=6x6 -s routing_function=duato -s num_vcs=4 -s wait_for_tail_credit=1 -s packet_size=1..8 -s injection_rate=0.3 $short"
  # a recorded trace on the flit backend: messages, not synthetic traffic
  "replay $root/traces/samples/lammps-lj-8.nlt -s backend=flit -t dragonfly:a=2,p=2,h=1"
)
i=0
for args in "${runs[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$netloom" $args --json "$dir/a$i.json" >/dev/null 2>"$dir/a$i.err"
  ra=$?
  # shellcheck disable=SC2086
  "$other" $args --json "$dir/b$i.json" >/dev/null 2>"$dir/b$i.err"
  rb=$?
  [ "$ra" -eq 0 ] || fail "run $i ($args): exit $ra: $(head -c 300 "$dir/a$i.err")"
  [ "$ra" -eq "$rb" ] || fail "run $i ($args): exit $ra against $rb"
  # replay has no --reproducible: its wall clock is dropped here
  sed -i -E 's/"wall_seconds": [0-9.e+-]+/"wall_seconds": 0/g' "$dir/a$i.json" "$dir/b$i.json" 2>/dev/null
  cmp -s "$dir/a$i.json" "$dir/b$i.json" || fail "run $i ($args): the two builds' results differ"
done
[ "$fails" -eq 0 ] && echo "ok: ${#runs[@]} runs and replays, the two builds agree to the byte"
exit $((fails > 0))
