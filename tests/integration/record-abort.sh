#!/usr/bin/env bash
# A recorded run ended by MPI_Abort (docs/recorder.md, section Failures):
# the rank that calls it says once that no archive is written and removes
# the run's stream files in the stream folder, its own and those of the
# ranks MPI_Abort ends, which used to stay behind without a word; no
# archive, and a file already at the archive's path (an earlier run's) is
# left as it was. Also with NETLOOM_TRACE_TMPDIR.
# usage: record-abort.sh RECORDER_SO PROGRAM   (exit 77: no mpirun)
set -uo pipefail
command -v mpirun >/dev/null 2>&1 || { echo "mpirun not found: skipping" >&2; exit 77; }
lib=$(realpath "$1") prog=$(realpath "$2")
. "$(dirname "$0")/../mpi_env.sh"
unset NETLOOM_TRACE NETLOOM_TRACE_TMPDIR NETLOOM_TRACE_QUIET NETLOOM_TRACE_FORCE_TRANSFER
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nl-record-abort.XXXXXX")
trap 'rm -rf "$tmp" "$nl_ompi_tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }

# case NAME NP [VAR=VALUE...]: streams in $tmp/$NAME/s (TMPDIR) or beside t.nlt.
case_() {
  local name=$1 np=$2 rc
  shift 2
  mkdir -p "$name/s"
  printf 'an earlier run\n' >"$name/t.nlt"
  env NETLOOM_TRACE="$tmp/$name/t.nlt" "$@" \
    timeout 120 mpirun -np "$np" env LD_PRELOAD="$lib" "$prog" >"$name.out" 2>"$name.err" </dev/null
  rc=$?
  [ "$rc" = 3 ] || fail "$name: exit $rc, expected MPI_Abort's 3: $(head -5 "$name.err")"
  [ "$(grep -c '^netloom-record: ' "$name.err")" = 1 ] ||
    fail "$name: expected one netloom-record line: $(grep '^netloom-record' "$name.err")"
  grep -qxE "netloom-record: rank $((np - 1)) called MPI_Abort: no trace written; the run's stream files in '[^']*' removed" "$name.err" ||
    fail "$name: got '$(grep '^netloom-record' "$name.err")'"
  [ "$(cat "$name/t.nlt")" = "an earlier run" ] || fail "$name: the file at the archive's path changed"
  local left
  left=$(find "$name" -name '*.stream' -o -name '*.tmp*')
  [ -z "$left" ] || fail "$name: left behind: $left"
}
case_ beside 2
case_ tmpdir 3 NETLOOM_TRACE_TMPDIR="$tmp/tmpdir/s"
case_ one 1
echo "record-abort: OK"
