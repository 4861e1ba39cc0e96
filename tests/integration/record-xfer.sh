#!/usr/bin/env bash
# Streams shipped to rank 0 (ranks on other hosts; here forced with
# NETLOOM_TRACE_FORCE_TRANSFER) are copied beside the archive under names
# of the run's own, hidden: .NAME.nlt.<run>.r<rank>.xfer (docs/recorder.md,
# sections Multi-node runs and Failures). They were NAME.nlt.r<rank>.xfer,
# one name for every run: a file already there (another recording's copy)
# was overwritten, then removed, and two recordings finishing in one
# folder at once wrote into one copy.
# usage: record-xfer.sh RECORDER_SO NETLOOM PROGRAM   (exit 77: no mpirun)
set -uo pipefail
command -v mpirun >/dev/null 2>&1 || { echo "mpirun not found: skipping" >&2; exit 77; }
lib=$(realpath "$1") netloom=$(realpath "$2") prog=$(realpath "$3")
. "$(dirname "$0")/../mpi_env.sh"
unset NETLOOM_TRACE NETLOOM_TRACE_TMPDIR NETLOOM_TRACE_QUIET NETLOOM_TRACE_FORCE_TRANSFER
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nl-record-xfer.XXXXXX")
trap 'rm -rf "$tmp" "$nl_ompi_tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }

# record NAME DIR/ARCHIVE: the program recorded, rank 1's stream shipped.
# Each mpirun has a session folder base of its own: four started at once
# under one base raced to make its ompi.HOST.UID ("A call to mkdir was
# unable to create the desired directory ... File exists", a run of
# 2026-12-07).
record() {
  local base
  base=$(mktemp -d "$nl_ompi_tmp/$1.XXXXXX") || return 1
  env NETLOOM_TRACE="$tmp/$2" NETLOOM_TRACE_FORCE_TRANSFER=1 OMPI_MCA_orte_tmpdir_base="$base" \
    timeout 120 mpirun -np 2 env LD_PRELOAD="$lib" "$prog" >"$1.out" 2>"$1.err" </dev/null
}
# check NAME DIR/ARCHIVE: the run wrote a whole archive there.
check() {
  grep -qx "netloom-record: wrote $tmp/$2 (2 ranks, .*" "$1.err" || fail "$1: no 'wrote' line: $(head -5 "$1.err")"
  "$netloom" trace verify "$2" >"$1.verify" 2>&1 || fail "$1: $2 does not verify: $(cat "$1.verify")"
}

# Another run's copy of rank 1's stream under the old fixed name: left as
# it was (it was overwritten, then removed), and the recording unaffected.
mkdir old
printf 'another run\n' >old/t.nlt.r1.xfer
record old old/t.nlt || fail "old: exit $?: $(head -5 old.err)"
check old old/t.nlt
[ "$(cat old/t.nlt.r1.xfer 2>&1)" = "another run" ] || fail "old: the file t.nlt.r1.xfer changed or went"
[ "$(cd old && LC_ALL=C ls -A | tr '\n' ' ')" = "t.nlt t.nlt.r1.xfer " ] ||
  fail "old: files '$(cd old && LC_ALL=C ls -A | tr '\n' ' ')', expected 't.nlt t.nlt.r1.xfer '"

# Two recordings at once in one folder, to two archives and to one: each
# writes a whole archive (to one, the last rename wins) and leaves no
# temporary file (stream, copy or archive).
mkdir two same
for i in 1 2 3; do
  record two-a$i two/a.nlt & pa=$!
  record two-b$i two/b.nlt & pb=$!
  record same-a$i same/t.nlt & pc=$!
  record same-b$i same/t.nlt & pd=$!
  for p in $pa $pb $pc $pd; do wait $p || fail "round $i: a run exited $?: $(cat two-*$i.err same-*$i.err | head -8)"; done
  check two-a$i two/a.nlt
  check two-b$i two/b.nlt
  check same-a$i same/t.nlt
  check same-b$i same/t.nlt
  [ "$(cd two && LC_ALL=C ls -A | tr '\n' ' ')" = "a.nlt b.nlt " ] ||
    fail "round $i: two archives: files '$(cd two && LC_ALL=C ls -A | tr '\n' ' ')'"
  [ "$(cd same && LC_ALL=C ls -A | tr '\n' ' ')" = "t.nlt " ] ||
    fail "round $i: one archive: files '$(cd same && LC_ALL=C ls -A | tr '\n' ' ')'"
done
echo "record-xfer: OK"
