#!/usr/bin/env bash
# benchmarks/engine/booksim_topos.sh vs and booksim_table.sh (issue 11's
# speed table) against a stand-in for BookSim2 that prints the three
# figures the scripts read, so their parsing and last lines are tested
# here without BookSim2 (the figures themselves come from real runs:
# benchmarks/README.md). The last lines name what the figure is: they were
# a bare "15.3".
# usage: booksim_vs.sh NETLOOM SOURCE_ROOT
set -uo pipefail
netloom=$1
root=$2
. "$(dirname "$0")/lib.sh"
engine=$root/benchmarks/engine
fake=$dir/booksim
cat > "$fake" <<'SH'
#!/bin/sh
# Burns a little CPU (bash's time counts milliseconds), then BookSim2's
# overall statistics' lines, and its exit status after a normal run.
awk 'BEGIN { for (i = 0; i < 2000000; i++) s += i }'
echo "Time taken is 2000 cycles"
echo "Accepted flit rate average = 0.3 (1 samples)"
echo "Hops average = 4.5 (1 samples)"
exit 255
SH
chmod +x "$fake"
export BOOKSIM=$fake SAMPLE_PERIOD=100 PAIRS=3
out=$("$engine/booksim_topos.sh" "$netloom" vs ff_ranmin 0.3 2>"$dir/err")
rc=$?
expect_eq "vs: exit status" "$rc" 0
expect_eq "vs: pair lines" "$(printf '%s\n' "$out" | grep -c '^pair [123]: netloom .* CPU s; BookSim2 2000 cycles, 537600 flit-hops, .* CPU s; ratio ')" 3
last=$(printf '%s\n' "$out" | tail -n 1)
[[ $last =~ ^"ff_ranmin at 0.3: netloom / BookSim2 flit-hops per CPU second, median of 3 pairs: "[0-9]+\.[0-9]x$ ]] ||
  fail "vs: last line '$last'"
# The table: a row per case with the median, then the smallest, named.
out=$(PAIRS=1 "$engine/booksim_table.sh" "$netloom" ff_ranmin@0.3 ff_ugal@0.3 2>"$dir/err")
rc=$?
expect_eq "table: exit status" "$rc $(cat "$dir/err")" "0 "
expect_eq "table: rows" "$(printf '%s\n' "$out" | grep -c '^| ff_[a-z]* 0.3 | [0-9.-]* | [0-9.-]* | \*\*[0-9.]*x\*\* ([0-9.]*) |$')" 2
last=$(printf '%s\n' "$out" | tail -n 1)
[[ $last =~ ^"smallest: ff_"(ranmin|ugal)" at 0.3: netloom / BookSim2 flit-hops per CPU second, median of 1 pairs: "[0-9]+\.[0-9]x$ ]] ||
  fail "table: last line '$last'"
# The smallest is the row with the smallest figure.
min_row=$(printf '%s\n' "$out" | sed -n 's/^| \(ff_[a-z]*\) 0.3 .*\*\*\([0-9.]*\)x\*\*.*/\2 \1/p' | sort -n | head -n 1)
[[ $last == "smallest: ${min_row#* } at 0.3: "*": ${min_row%% *}x" ]] || fail "table: smallest '$last', rows' smallest '$min_row'"
[ "$fails" -eq 0 ]
