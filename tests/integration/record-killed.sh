#!/usr/bin/env bash
# A rank 0 killed while it writes the archive (docs/recorder.md, section
# Failures): what it leaves is the temporary archive, hidden as the
# stream files are (.NAME.nlt.tmpXXXXXX beside NAME.nlt; it was
# NAME.nlt.tmpXXXXXX, shown beside the archives), the file at the
# archive's path (an earlier run's) as it was, and the cleaning command
# the doc gives removes it. The kill: rename_kill.so, preloaded, ends
# rank 0 by SIGKILL just before the temporary archive is renamed into
# place. Without the kill the run writes t.nlt and leaves nothing. A
# stream shipped to rank 0 leaves its copy, hidden as well.
# usage: record-killed.sh RECORDER_SO RENAME_KILL_SO PROGRAM   (exit 77: no mpirun)
set -uo pipefail
command -v mpirun >/dev/null 2>&1 || { echo "mpirun not found: skipping" >&2; exit 77; }
lib=$(realpath "$1") kill_so=$(realpath "$2") prog=$(realpath "$3")
. "$(dirname "$0")/../mpi_env.sh"
unset NETLOOM_TRACE NETLOOM_TRACE_TMPDIR NETLOOM_TRACE_QUIET NETLOOM_TRACE_FORCE_TRANSFER NL_TEST_KILL_RENAME
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nl-record-killed.XXXXXX")
trap 'rm -rf "$tmp" "$nl_ompi_tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
# The files in $1, the temporary names' random part as XXXXXX, the run tag
# as RUN; rank 1's stream file, which rank 1 removes only once rank 0
# has written the archive (and mpirun may end it first or not), left out.
list() {
  (cd "$1" && LC_ALL=C ls -A | sed 's/\.tmp[A-Za-z0-9]\{6\}$/.tmpXXXXXX/; s/^\.t\.nlt\.[0-9a-f-]*\.r/.t.nlt.RUN.r/' |
    grep -vxF .t.nlt.RUN.r1.stream | tr '\n' ' ')
}

mkdir ok killed
# Preloaded with rename_kill.so but not told to kill: the archive.
env NETLOOM_TRACE="$tmp/ok/t.nlt" timeout 120 mpirun -np 2 env LD_PRELOAD="$kill_so:$lib" "$prog" \
  >ok.out 2>ok.err </dev/null || fail "ok: exit $?: $(head -5 ok.err)"
[ "$(list ok)" = "t.nlt " ] || fail "ok: files '$(list ok)', expected 't.nlt '"

printf 'an earlier run\n' >killed/t.nlt
env NETLOOM_TRACE="$tmp/killed/t.nlt" NL_TEST_KILL_RENAME=t.nlt \
  timeout 120 mpirun -np 2 env LD_PRELOAD="$kill_so:$lib" "$prog" >killed.out 2>killed.err </dev/null
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "killed: exit $rc, expected mpirun's for a killed rank: $(head -5 killed.err)"
# Rank 0's stream file stays (it removes it after the rename), hidden.
[ "$(list killed)" = ".t.nlt.RUN.r0.stream .t.nlt.tmpXXXXXX t.nlt " ] ||
  fail "killed: files '$(list killed)', expected '.t.nlt.RUN.r0.stream .t.nlt.tmpXXXXXX t.nlt ' (the temporary archive hidden)"
[ "$(cat killed/t.nlt)" = "an earlier run" ] || fail "killed: the file at the archive's path changed"
# The doc's cleaning command, in the archive's folder.
(cd killed && rm -f .t.nlt.*.stream .t.nlt.tmp*)
[ "$(list killed)" = "t.nlt " ] || fail "killed: after the doc's rm, files '$(list killed)'"

# The same with rank 1's stream shipped to rank 0 (ranks on other hosts):
# its copy stays too, hidden and named with the run's tag, as the streams
# (it was t.nlt.r1.xfer, shown, and one name for every run).
mkdir shipped
printf 'an earlier run\n' >shipped/t.nlt
env NETLOOM_TRACE="$tmp/shipped/t.nlt" NETLOOM_TRACE_FORCE_TRANSFER=1 NL_TEST_KILL_RENAME=t.nlt \
  timeout 120 mpirun -np 2 env LD_PRELOAD="$kill_so:$lib" "$prog" >shipped.out 2>shipped.err </dev/null
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "shipped: exit $rc, expected mpirun's for a killed rank: $(head -5 shipped.err)"
[ "$(list shipped)" = ".t.nlt.RUN.r0.stream .t.nlt.RUN.r1.xfer .t.nlt.tmpXXXXXX t.nlt " ] ||
  fail "shipped: files '$(list shipped)', expected '.t.nlt.RUN.r0.stream .t.nlt.RUN.r1.xfer .t.nlt.tmpXXXXXX t.nlt '"
(cd shipped && rm -f .t.nlt.*.stream .t.nlt.*.xfer .t.nlt.tmp*)
[ "$(list shipped)" = "t.nlt " ] || fail "shipped: after the doc's rm, files '$(list shipped)'"
echo "record-killed: OK"
