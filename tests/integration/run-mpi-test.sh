#!/usr/bin/env bash
# Run one MPI test program twice, without and with the recorder, and check:
#   - both runs succeed and print the same stdout (the recorder changes
#     nothing the program computes);
#   - the archive matches the program's expectations (check_record), unless
#     --no-archive says the recorder must not write one;
#   - with --stderr RE, the recorded run's stderr matches the extended
#     regular expression RE (e.g. the "not recorded" summary);
#   - with --default-path, NETLOOM_TRACE is left unset and the archive must
#     appear under its default name, <program>-<ranks>.nlt;
#   - with --no-finalize, both runs end without MPI_Finalize
#     (NLTEST_NO_FINALIZE, mpitest.h) and must fail alike (mpirun's exit
#     status for ranks that skip it), with no archive and no stream file;
#   - with --stale, a file is at the archive's path before the recorded
#     run: a run that writes an archive replaces it, one that writes none
#     leaves it byte for byte as it was.
# Both runs execute in a fresh temporary directory.
# usage: run-mpi-test.sh [--no-archive] [--default-path] [--no-finalize] [--stale] [--stderr RE] [--env VAR=VALUE]...
#                        RECORDER_SO CHECKER PROGRAM NP [ARGS...]
# Exit 77 (meson: skipped) only when mpirun is not installed.
set -uo pipefail

no_archive=0
default_path=0
no_finalize=0
stale=0
stderr_re=""
extra_env=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-archive) no_archive=1; shift ;;
    --default-path) default_path=1; shift ;;
    --no-finalize) no_finalize=1; no_archive=1; shift ;;
    --stale) stale=1; shift ;;
    --stderr) stderr_re="$2"; shift 2 ;;
    --env) extra_env+=("$2"); shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 4 ]; then
  echo "usage: run-mpi-test.sh [--no-archive] [--stderr RE] [--env VAR=VALUE]... RECORDER_SO CHECKER PROGRAM NP [ARGS...]" >&2
  exit 2
fi
lib=$(realpath "$1") checker=$(realpath "$2") prog=$(realpath "$3") np=$4
shift 4

command -v mpirun >/dev/null 2>&1 || { echo "mpirun not found: skipping" >&2; exit 77; }

. "$(dirname "$0")/../mpi_env.sh"
unset NETLOOM_TRACE NETLOOM_TRACE_TMPDIR NETLOOM_TRACE_QUIET NETLOOM_TRACE_FORCE_TRANSFER NLTEST_EXPECT

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nl-record-test.XXXXXX")
trap 'rm -rf "$tmp" "$nl_ompi_tmp"' EXIT
cd "$tmp"
archive=$tmp/trace.nlt
trace_env=(NETLOOM_TRACE="$archive")
if [ "$default_path" = 1 ]; then
  archive=$tmp/$(basename "$prog")-$np.nlt
  trace_env=()
fi

if [ "$no_finalize" = 1 ]; then
  export NLTEST_NO_FINALIZE=1
fi
mpirun -np "$np" "$prog" "$@" >"$tmp/plain.out" 2>"$tmp/plain.err" </dev/null
plain_rc=$?
# Grouped: `a && b || c && d` is ((a && b) || c) && d in the shell, which
# let a failing program pass whenever --no-finalize was not given.
if { [ "$no_finalize" = 0 ] && [ "$plain_rc" != 0 ]; } || { [ "$no_finalize" = 1 ] && [ "$plain_rc" = 0 ]; }; then
  echo "FAIL: $prog without the recorder exited $plain_rc:" >&2
  cat "$tmp/plain.err" >&2
  exit 1
fi

if [ "$stale" = 1 ]; then
  printf 'an earlier run\n' >"$archive"
  cp "$archive" "$tmp/stale.copy"
fi
env "${trace_env[@]}" NLTEST_EXPECT="$tmp/expect" "${extra_env[@]}" \
  mpirun -np "$np" env LD_PRELOAD="$lib" "$prog" "$@" \
  >"$tmp/rec.out" 2>"$tmp/rec.err" </dev/null
rec_rc=$?
if [ "$rec_rc" != "$plain_rc" ]; then
  echo "FAIL: $prog under the recorder exited $rec_rc, without it $plain_rc:" >&2
  cat "$tmp/rec.err" >&2
  exit 1
fi
cat "$tmp/rec.err" >&2

if ! cmp -s "$tmp/plain.out" "$tmp/rec.out"; then
  echo "FAIL: output differs with the recorder:" >&2
  diff "$tmp/plain.out" "$tmp/rec.out" >&2
  exit 1
fi
if [ -n "$stderr_re" ] && ! grep -Eq -- "$stderr_re" "$tmp/rec.err"; then
  echo "FAIL: recorder stderr does not match /$stderr_re/" >&2
  exit 1
fi
# No stream file may be left behind, whatever happened.
if ls -A "$tmp" | grep -q '\.stream$'; then
  echo "FAIL: stream files left behind: $(ls -A "$tmp" | grep '\.stream$')" >&2
  exit 1
fi
if [ "$no_archive" = 1 ] && [ "$stale" = 1 ]; then
  if ! cmp -s "$archive" "$tmp/stale.copy"; then
    echo "FAIL: the file at $archive before the run was changed or removed, though no archive was written" >&2
    exit 1
  fi
  exit 0
fi
if [ "$no_archive" = 1 ]; then
  if [ -e "$archive" ]; then
    echo "FAIL: an archive was written although recording was off" >&2
    exit 1
  fi
  exit 0
fi
[ -s "$archive" ] || { echo "FAIL: no archive written at $archive" >&2; exit 1; }
"$checker" "$archive" "$tmp/expect" "$np" "$prog"
