#!/usr/bin/env bash
# Regenerate a source paper's figure with netloom (issue 14): each figure
# is one script in repro/ (NAME.sh or NAME.py) that runs the sweeps, writes
# a TSV table and a gnuplot SVG into OUT/NAME/ and prints the table with
# the paper's figures beside ours.
#
#   reproduce.sh [--netloom PATH] [--out DIR] NAME...   one or more figures
#   reproduce.sh [--netloom PATH] [--out DIR] all       every figure
#   reproduce.sh --list                                  names and what they show
#
# NETLOOM defaults to build/netloom (built by scripts/build.sh), OUT to
# build/reproduce. Each script's first comment line says what it shows.
# Exit status: 0 every figure written and its checks passed (or it has
# none); 3 every table written, some check against the paper failed
# ("CHECK FAILED" lines) or gnuplot failed to draw a plot (one line names
# the SVG not drawn and gnuplot's last stderr line); 2 bad usage (an OUT
# or OUT/NAME that is not a directory included); 1 a run failed (the
# script's one line names the netloom command and netloom's message). All
# NAMEs, OUT, and the scripts' environment variables, are checked before
# any runs. Without gnuplot (optional) the SVGs are not drawn: one line per
# plot says so, the tables are printed and the exit status is as above (an
# SVG left from an earlier run is removed, not kept stale, as when gnuplot
# fails).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
netloom=$root/build/netloom
out=$root/build/reproduce
names=()
checks_failed=0
while [ $# -gt 0 ]; do
  case $1 in
  --netloom | --out)
    [ $# -ge 2 ] || { echo "reproduce.sh: $1: expected a value after it" >&2; exit 2; }
    if [ "$1" = --netloom ]; then netloom=$2; else out=$2; fi
    shift 2 ;;
  --list)
    for f in "$here"/repro/*.sh "$here"/repro/*.py; do
      [ -e "$f" ] || continue
      n=$(basename "$f"); n=${n%.*}
      printf '%-24s %s\n' "$n" "$(sed -n '2s/^# *//p' "$f")"
    done
    exit 0 ;;
  -h|--help) sed -n '2,24s/^# \{0,1\}//p' "$0"; exit 0 ;;
  -*) echo "reproduce.sh: unknown option '$1' (expected --netloom, --out, --list)" >&2; exit 2 ;;
  *) names+=("$1"); shift ;;
  esac
done
[ ${#names[@]} -gt 0 ] || { echo "reproduce.sh: name a figure (see --list) or 'all'" >&2; exit 2; }
[ -x "$netloom" ] || { echo "reproduce.sh: $netloom: not an executable (build with scripts/build.sh or pass --netloom)" >&2; exit 2; }
# Every name checked (and 'all' expanded) before anything runs; each figure once.
every=()
for f in "$here"/repro/*.sh "$here"/repro/*.py; do
  [ -e "$f" ] && { n=$(basename "$f"); every+=("${n%.*}"); }
done
want=()
for n in "${names[@]}"; do
  if [ "$n" = all ]; then want+=("${every[@]}")
  elif [ -f "$here/repro/$n.sh" ] || [ -f "$here/repro/$n.py" ]; then want+=("$n")
  else echo "reproduce.sh: '$n': no such figure (see --list)" >&2; exit 2; fi
done
names=()
for n in "${want[@]}"; do
  [[ " ${names[*]} " == *" $n "* ]] || names+=("$n")
done
# The environment variables the scripts read (FLEX_RATES, HYPERX_FIG6_LOADS,
# ...) are checked before the first figure runs too: one line for each bad
# one, exit 2 (repro/lib/netloom_run.py, ENV).
/usr/bin/python3 "$here/repro/lib/netloom_run.py" check-env reproduce.sh || exit 2
# OUT and each OUT/NAME must be directories, or be made: a file there was
# mkdir's message and exit 1 (or a script's traceback), perhaps after hours
# of earlier figures.
for d in "$out" "${names[@]/#/$out/}"; do
  if [ -e "$d" ] && [ ! -d "$d" ]; then
    echo "reproduce.sh: --out: '$d': not a directory; expected a directory, or a path where one can be made" >&2
    exit 2
  fi
done

for n in "${names[@]}"; do
  if [ -f "$here/repro/$n.sh" ]; then s=("bash" "$here/repro/$n.sh")
  else s=("/usr/bin/python3" "$here/repro/$n.py"); fi
  mkdir -p "$out/$n"
  echo "== $n" >&2
  rc=0
  "${s[@]}" "$netloom" "$out/$n" || rc=$?
  if [ "$rc" -eq 3 ]; then checks_failed=1; elif [ "$rc" -ne 0 ]; then exit 1; fi
done
exit $((checks_failed ? 3 : 0))
