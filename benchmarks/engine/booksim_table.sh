#!/usr/bin/env bash
# The side-by-side table of issue 11's speed bar in one command: every
# case `booksim_topos.sh NETLOOM vs CASE LOAD` in turn, one Markdown row
# each (CPU seconds of both programs, the ratio's median and its pairs),
# as benchmarks/README.md quotes it.
#
#   BOOKSIM=/path/to/booksim booksim_table.sh NETLOOM [CASE@LOAD ...]
#
# Without cases, the bar's: the FleX dragonfly (min and UGAL, 0.3 and 0.7),
# the flattened butterfly (ran_min and UGAL) and the fat tree (NCA), at
# 0.3 but where named. PAIRS (default 3) and SAMPLE_PERIOD pass through.
# Last line: the smallest median ratio, the case the bar depends on
# ("smallest: ff_ugal at 0.3: netloom / BookSim2 flit-hops per CPU second,
# median of 3 pairs: 12.4x").
set -euo pipefail
usage="usage: BOOKSIM=/path/to/booksim booksim_table.sh NETLOOM [CASE@LOAD ...] (see the header)"
case ${1:-} in -h | --help) echo "$usage"; exit 0 ;; esac
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_lib.sh"
netloom=$1
shift
bench_exe booksim_table.sh NETLOOM "$netloom"
[ -n "${BOOKSIM:-}" ] || { echo "booksim_table.sh: BOOKSIM not set, expected the path of a BookSim2 binary" >&2; exit 2; }
bench_exe booksim_table.sh BOOKSIM "$BOOKSIM"
[ -z "${PAIRS:-}" ] || bench_count booksim_table.sh PAIRS "$PAIRS"
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(df_flex_min@0.3 df_flex_min@0.7 df_flex_ugal@0.3 df_flex_ugal@0.7
  ff_ranmin@0.3 ff_ugal@0.3 ft_nca@0.3)
# Every case checked before the first run (a run takes up to minutes).
for c in "${cases[@]}"; do
  case $c in
  *@*) ;;
  *) echo "booksim_table.sh: case '$c': expected CASE@LOAD, e.g. ff_ranmin@0.3" >&2; exit 2 ;;
  esac
  [ -f "$here/../validation/booksim/${c%@*}.cfg" ] ||
    { echo "booksim_table.sh: case '$c': no validation/booksim/${c%@*}.cfg" >&2; exit 2; }
  python3 -c 'import sys; x = float(sys.argv[1]); sys.exit(not 0 < x <= 1)' "${c#*@}" 2>/dev/null ||
    { echo "booksim_table.sh: case '$c': load '${c#*@}', expected a number in (0, 1]" >&2; exit 2; }
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
medians=()
echo "| case | netloom CPU s | BookSim2 CPU s | ratio (pairs) |"
echo "|---|---|---|---|"
for c in "${cases[@]}"; do
  "$here/booksim_topos.sh" "$netloom" vs "${c%@*}" "${c#*@}" >"$out"
  python3 - "$out" "${c%@*} ${c#*@}" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
pairs = [re.search(r"netloom .*?([0-9.]+) CPU s; BookSim2 .*?([0-9.]+) CPU s; ratio ([0-9.]+)", l)
         for l in lines if l.startswith("pair ")]
if not pairs or not all(pairs):
    sys.exit(f"booksim_table.sh: {sys.argv[2]}: no pair lines from booksim_topos.sh")
median = re.search(r": ([0-9.]+)x$", lines[-1])
if not median:
    sys.exit(f"booksim_table.sh: {sys.argv[2]}: no median line from booksim_topos.sh (last line: {lines[-1]!r})")
nl = sorted(float(m.group(1)) for m in pairs)
bs = sorted(float(m.group(2)) for m in pairs)
print(f"| {sys.argv[2]} | {nl[0]:.3f}-{nl[-1]:.3f} | {bs[0]:.3f}-{bs[-1]:.3f} | "
      f"**{median.group(1)}x** ({', '.join(m.group(3) for m in pairs)}) |")
PY
  medians+=("$(tail -n 1 "$out")")
done
# Sorted by the ratio after the last ': '.
printf '%s\n' "${medians[@]}" | awk -F': ' '{print $NF "\t" $0}' | sort -n | head -n 1 | cut -f 2- | sed 's/^/smallest: /'
