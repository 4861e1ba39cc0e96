#!/usr/bin/env bash
# Accepted flit rate against channel latency on two_router.cfg (docs/engine.md,
# "Throughput is not monotonic in channel latency"): for each latency L the
# two-router anynet file is written, the config converted with
# `netloom config --from-booksim`, and each simulator run at seeds 0-4.
#
#   two_router.sh NETLOOM [BOOKSIM] [L ...]     (L defaults to 1 8 10 16)
#
# Prints one line per latency: L, netloom's mean accepted flit rate and,
# with BOOKSIM, BookSim2's (its "Accepted flit rate average").
#
# -h/--help prints this text; any other argument starting with '-' is
# refused with one line, exit 2 (it was taken for NETLOOM or BOOKSIM).
set -euo pipefail
usage="usage: two_router.sh NETLOOM [BOOKSIM] [L ...]"
for a in "$@"; do
  case $a in
  -h | --help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
  -*) echo "two_router.sh: unknown option '$a' ($usage)" >&2; exit 2 ;;
  esac
done
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
netloom=$1; shift
case $netloom in
*/*) [ -f "$netloom" ] && [ -x "$netloom" ] || { echo "two_router.sh: NETLOOM '$netloom': not an executable" >&2; exit 2; } ;;
*) command -v -- "$netloom" >/dev/null || { echo "two_router.sh: NETLOOM '$netloom': not found in PATH" >&2; exit 2; } ;;
esac
# Absolute: the runs are made from a scratch directory.
[[ $netloom == */* ]] && netloom=$(cd "$(dirname "$netloom")" && pwd)/$(basename "$netloom")
booksim=
if [ $# -ge 1 ] && ! [[ $1 =~ ^[0-9]+$ ]]; then
  booksim=$1; shift
  case $booksim in
  */*) [ -f "$booksim" ] && [ -x "$booksim" ] ||
         { echo "two_router.sh: BOOKSIM '$booksim': not an executable" >&2; exit 2; }
       booksim=$(cd "$(dirname "$booksim")" && pwd)/$(basename "$booksim") ;;
  *) command -v -- "$booksim" >/dev/null ||
       { echo "two_router.sh: BOOKSIM '$booksim': not found in PATH" >&2; exit 2; } ;;
  esac
fi
lats=("$@")
[ ${#lats[@]} -gt 0 ] || lats=(1 8 10 16)
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$here/two_router.cfg" "$dir/"
cd "$dir" # BookSim opens network_file relative to where it runs
for L in 1 "${lats[@]}"; do
  [[ $L =~ ^[0-9]+$ ]] && [ "$L" -ge 1 ] || { echo "two_router.sh: latency '$L': expected a whole number of cycles >= 1" >&2; exit 2; }
  printf 'router 0 node 0 router 1 %s\nrouter 1 node 1 router 0 %s\n' "$L" "$L" >"two_router_$L.anynet"
done
"$netloom" config --from-booksim two_router.cfg >two_router.ini
mean() { # of five figures, one per seed; a missing one ends the script
  awk -v who="$1" '{s += $1} END {if (NR != 5) {print "two_router.sh: " NR " of 5 figures from " who > "/dev/stderr"; exit 1}
                                   printf "%.3f", s / NR}'
}
echo "latency netloom${booksim:+ booksim2}"
for L in "${lats[@]}"; do
  nl=$(for s in 0 1 2 3 4; do
    "$netloom" run -c two_router.ini -s topology=anynet:file=two_router_$L.anynet -s seed=$s | awk 'NR == 3 {print $3}'
  done | mean netloom)
  bs=
  if [ -n "$booksim" ]; then
    # BookSim2 exits 255 after a normal run.
    bs=" $(for s in 0 1 2 3 4; do
      { "$booksim" two_router.cfg network_file="two_router_$L.anynet" seed=$s || true; } |
        sed -n 's/^Accepted flit rate average *= *//p' | tail -n 1
    done | mean BookSim2)"
  fi
  echo "$L $nl$bs"
done
