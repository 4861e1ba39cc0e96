#!/usr/bin/env bash
# With the streams elsewhere (NETLOOM_TRACE_TMPDIR), the names rank 0
# creates beside the archive, the shipped streams' copies
# (.NAME.<run>.r<rank>.xfer), are checked at MPI_Init as the streams'
# names are (docs/recorder.md, NETLOOM_TRACE): a name too long for the
# archive's folder (its limit smaller than the stream folder's, given by
# name_max.so) and a path too long for PATH_MAX there are refused once,
# the program runs on, no archive and no file is left. Only the stream
# folder was checked: the run recorded, and rank 0 failed fetching a
# stream after the whole run (NETLOOM_TRACE_FORCE_TRANSFER, as for a rank
# on another host).
# usage: record-archive-names.sh RECORDER_SO NAME_MAX_SO PROGRAM   (exit 77: no mpirun)
set -uo pipefail
command -v mpirun >/dev/null 2>&1 || { echo "mpirun not found: skipping" >&2; exit 77; }
lib=$(realpath "$1") name_max_so=$(realpath "$2") prog=$(realpath "$3")
. "$(dirname "$0")/../mpi_env.sh"
unset NETLOOM_TRACE NETLOOM_TRACE_TMPDIR NETLOOM_TRACE_QUIET NETLOOM_TRACE_FORCE_TRANSFER NL_TEST_NAME_MAX NL_TEST_NAME_MAX_DIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nl-record-names.XXXXXX")
trap 'rm -rf "$tmp" "$nl_ompi_tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir arch streams
export NETLOOM_TRACE_TMPDIR=$tmp/streams NETLOOM_TRACE_FORCE_TRANSFER=1

# run NAME STDERR_RE: the program under the recorder, archive NAME; exit
# 0, stderr the one line matching, no file left in either folder.
run() {
  env NETLOOM_TRACE="$1" timeout 120 mpirun -np 2 env LD_PRELOAD="$name_max_so:$lib" "$prog" \
    >run.out 2>run.err </dev/null || fail "$1: exit $?: $(head -5 run.err)"
  grep -Eq -- "$2" run.err ||
    fail "$1: stderr '$(head -5 run.err)', expected one line matching /$2/"
  # Nothing else but rank 0's closing line, as for every setting refused.
  ! grep -Ev -- "$2|^netloom-record: no trace written: rank 0 stopped recording \\(see its message above\\)\$" run.err ||
    fail "$1: more on stderr than the one line"
  [ -z "$(cd arch && ls -A; cd ../streams && ls -A)" ] || fail "$1: files left: $(find arch streams -mindepth 1 | tr '\n' ' ')"
}

# A 60-byte name: its streams' names (105 bytes) fit the stream folder's
# 255, its copies' (103) not the archive folder's 100.
name=$(printf 'a%.0s' $(seq 56)).nlt
NL_TEST_NAME_MAX_DIR=$tmp/arch NL_TEST_NAME_MAX=100 \
  run "$tmp/arch/$name" "^netloom-record: NETLOOM_TRACE='$tmp/arch/a+\\.nlt': file name of 60 bytes; rank 0's copies of shipped streams \\(\\.NAME\\.<run>\\.r<rank>\\.xfer\\) in '$tmp/arch' add 43, past the folder's limit of 100 bytes a name; expected a file name of at most 57 bytes; not recording\$"

# A path within PATH_MAX (4096 bytes) made absolute, its copies' not; the
# streams' paths in streams/ are short.
deep=$(printf './%.0s' $(seq $(( (4096 - ${#tmp} - 10) / 2 ))))
[ $(( ${#tmp} + 1 + ${#deep} + 5 + 43 )) -ge 4096 ] && [ $(( ${#tmp} + 1 + ${#deep} + 5 )) -lt 4096 ] ||
  fail "cannot make the path for $tmp"
run "${deep}x.nlt" "^netloom-record: NETLOOM_TRACE='(\\./)+x\\.nlt': path of $(( ${#deep} + 5 )) bytes; rank 0's copies of shipped streams beside it \\(\\.NAME\\.<run>\\.r<rank>\\.xfer, absolute\\) pass the limit of 4096 bytes a path; expected a shorter path; not recording\$"

# Both with the names fitting: an archive, and no other file.
NL_TEST_NAME_MAX_DIR=$tmp/arch NL_TEST_NAME_MAX=103 \
  env NETLOOM_TRACE="$tmp/arch/$name" NETLOOM_TRACE_QUIET=1 timeout 120 mpirun -np 2 env LD_PRELOAD="$name_max_so:$lib" "$prog" \
  >ok.out 2>ok.err </dev/null || fail "ok: exit $?: $(head -5 ok.err)"
[ "$(cd arch && ls -A; cd ../streams && ls -A)" = "$name" ] || fail "ok: files '$(find arch streams -mindepth 1 | tr '\n' ' ')', expected '$name'"
echo ok
