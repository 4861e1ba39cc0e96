#!/usr/bin/env bash
# The settings messages docs/recorder.md quotes ("Settings") are the lines
# the recorder prints, byte for byte: each quoted value is set as the doc
# sets it, on netloom-pingpong (built beside the library), and the one
# line said must be "netloom-record: " and the quote (the doc quoted
# `NETLOOM_TRACE=d: ...` for NETLOOM_TRACE='d': ..., and three messages
# without their end).
# usage: record-doc-quotes.sh LIBNETLOOM_RECORD_SO SOURCE_ROOT
set -uo pipefail
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun not found"; exit 77; }
. "$(dirname "$0")/../mpi_env.sh"
lib=$(realpath "$1")
doc=$(realpath "$2")/docs/recorder.md
pp=$(dirname "$lib")/netloom-pingpong
[ -x "$pp" ] || { echo "FAIL: no netloom-pingpong beside $lib"; exit 1; }
[ -r "$doc" ] || { echo "FAIL: cannot read $doc"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir" "$nl_ompi_tmp"' EXIT
cd "$dir" || exit 1
fails=0

# quote PREFIX: the doc's code span (whitespace runs as one space) that
# starts with PREFIX; empty when there is none.
quote() {
  python3 - "$doc" "$1" <<'PY'
import re, sys
# Fenced blocks out first: their ``` would pair with the spans' quotes.
text = re.sub(r"^```.*?^```$", "", open(sys.argv[1], encoding="utf-8").read(), flags=re.M | re.S)
for span in re.findall(r"`([^`]+)`", text):
    span = " ".join(span.split())
    if span.startswith(sys.argv[2]):
        print(span)
        break
PY
}

# check PREFIX VAR=VALUE...: the recorded run with these settings prints,
# besides the end line, exactly "netloom-record: QUOTE".
check() {
  local prefix=$1 q got
  shift
  q=$(quote "$prefix")
  q=${q#netloom-record: } # quoted with or without the prefix
  if [ -z "$q" ]; then
    echo "FAIL: docs/recorder.md quotes no message starting with $prefix"
    fails=$((fails + 1))
    return
  fi
  mpi 2 env LD_PRELOAD="$lib" "$@" "$pp" --max-bytes 1 --iters 1 --reps 1 >out.txt 2>err.txt ||
    { echo "FAIL: $*: exit $?: $(head -5 err.txt)"; fails=$((fails + 1)); return; }
  got=$(grep -v '^netloom-record: no trace written: ' err.txt | grep '^netloom-record: ')
  if [ "$got" != "netloom-record: $q" ]; then
    echo "FAIL: $*:"
    echo "  printed: $got"
    echo "  doc:     netloom-record: $q"
    fails=$((fails + 1))
  fi
}

mkdir d
ln -s missing-target t.nlt
check "NETLOOM_TRACE='d':" NETLOOM_TRACE=d
check "NETLOOM_TRACE='out/lj.nlt':" NETLOOM_TRACE=out/lj.nlt
check "NETLOOM_TRACE='-':" NETLOOM_TRACE=-
check "NETLOOM_TRACE='t.nlt':" NETLOOM_TRACE=t.nlt
check "NETLOOM_TRACE='/dev/null':" NETLOOM_TRACE=/dev/null
if [ ! -e /scratch/x ]; then
  check "NETLOOM_TRACE_TMPDIR='/scratch/x':" NETLOOM_TRACE=m.nlt NETLOOM_TRACE_TMPDIR=/scratch/x
fi
check "netloom-record: NETLOOM_TRACE_POLLS='x':" NETLOOM_TRACE=m.nlt NETLOOM_TRACE_POLLS=x
check "NETLOOM_TRACE_QUIET='yes':" NETLOOM_TRACE=m.nlt NETLOOM_TRACE_QUIET=yes
[ "$fails" = 0 ] || exit 1
echo "record-doc-quotes: the quoted settings messages are the ones printed"
