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

[ $fails -eq 0 ] && echo "validation_scripts: all checks passed"
exit $((fails > 0))
