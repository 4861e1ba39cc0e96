#!/usr/bin/env bash
# The scripts docs/validation.md runs by path (benchmarks/validation/...):
# each one with a #! line is executable, as the doc invokes them
# ("benchmarks/validation/booksim/anynet_side_by_side.py --netloom ..."),
# and a repro/ script given no arguments prints its usage, not a Python
# traceback. Nothing is simulated.
# usage: validation_scripts.sh SOURCE_ROOT
set -uo pipefail
root=$1
. "$(dirname "$0")/lib.sh"

for f in "$root"/benchmarks/validation/*.py "$root"/benchmarks/validation/*.sh \
         "$root"/benchmarks/validation/booksim/*.py "$root"/benchmarks/validation/booksim/*.sh \
         "$root"/benchmarks/validation/repro/*.py; do
  [ "$(head -c 2 "$f")" = '#!' ] || continue
  [ -x "$f" ] || fail "${f#"$root"/}: has a #! line but is not executable"
done

# Without NETLOOM OUTDIR a repro script says how to call it (as reproduce.sh
# does), exit 1, and writes nothing.
for f in "$root"/benchmarks/validation/repro/*.py; do
  name=${f##*/}
  (cd "$dir" && python3 "$f" > out 2> err)
  rc=$?
  expect_eq "$name without arguments: exit status" "$rc" 1
  grep -q Traceback "$dir/err" && fail "$name without arguments: a traceback: $(tail -1 "$dir/err")"
  grep -qi "^usage: $name NETLOOM OUTDIR" "$dir/err" ||
    fail "$name without arguments: stderr '$(head -1 "$dir/err")', expected 'usage: $name NETLOOM OUTDIR ...'"
  expect_eq "$name without arguments: stdout" "$(cat "$dir/out")" ""
done

# flex_fig8_10.py reprinting docs/validation/flex_fig8_10.tsv (no runs):
# the tables docs/validation.md shows, where a routing with no stable
# load reads '-' (the dragonfly's min on bitcomp, unstable at 0.1), not a
# load of 0.0.
FLEX_FROM_TSV="$root/docs/validation/flex_fig8_10.tsv" \
  python3 "$root/benchmarks/validation/repro/flex_fig8_10.py" "$dir/false-netloom" "$dir/flex" > "$dir/flex.out" 2> "$dir/flex.err" ||
  fail "flex_fig8_10.py FLEX_FROM_TSV: exit status $?: $(tail -1 "$dir/flex.err")"
row() { awk -v pat="$1" -v sys="$2" '/^[a-z]+: Fig/ { p = ($1 == pat ":") } p && $1 == sys { print $6 }' "$dir/flex.out"; }
expect_eq "flex_fig8_10 bitcomp dragonfly: stable to min/UGAL/LBR" "$(row bitcomp dragonfly)" "-/0.3/0.3"
expect_eq "flex_fig8_10 bitcomp FleX: stable to min/UGAL/LBR" "$(row bitcomp FleX)" "0.1/0.3/0.5"
expect_eq "flex_fig8_10 uniform fattree: stable to min/UGAL/LBR" "$(row uniform fattree)" "0.9/0.9/0.5"

[ $fails -eq 0 ] && echo "validation_scripts: all checks passed"
exit $((fails > 0))
