#!/usr/bin/env bash
# The preloaded recorder exports MPI_* symbols only (docs/recorder.md): any
# other would override a program's own (it exported nl_err_name and
# nl_strerror, libnetloom's, compiled in for its writer).
# Then its settings checks (docs/recorder.md, "Settings"), on
# netloom-pingpong (built beside the library) when mpirun is installed: a
# bad value on rank 1 only is said by rank 1 (it printed nothing while
# rank 0 pointed at "its message above"); one all ranks share is said once;
# NETLOOM_TRACE_START_BARRIER takes digits only (' -1' was 2^64 - 1).
# usage: record-exports.sh LIBNETLOOM_RECORD_SO
set -uo pipefail
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
others=$(nm -D --defined-only "$1" | awk 'NF == 3 { print $3 }' | grep -v '^MPI_')
mpi=$(nm -D --defined-only "$1" | awk 'NF == 3 { print $3 }' | grep -c '^MPI_')
[ "$mpi" -gt 100 ] || { echo "FAIL: $1 exports $mpi MPI_* symbols, expected the wrappers"; exit 1; }
[ -z "$others" ] || { echo "FAIL: $1 exports symbols other than MPI_*: $others"; exit 1; }
echo "record-exports: $mpi MPI_* symbols, nothing else"

command -v mpirun >/dev/null 2>&1 || { echo "record-exports: mpirun not found: settings not checked"; exit 0; }
. "$(dirname "$0")/../mpi_env.sh"
lib=$(realpath "$1")
pp=$(dirname "$lib")/netloom-pingpong
[ -x "$pp" ] || { echo "FAIL: no netloom-pingpong beside $lib"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir" "$nl_ompi_tmp"' EXIT
cd "$dir" || exit 1
ppargs=(--max-bytes 1 --iters 1 --reps 1)
# run NAME MPIRUN-ARGS...: the recorded run must succeed and write no archive.
run() {
  local name=$1
  shift
  unset NETLOOM_TRACE_CPU NETLOOM_TRACE_POLLS NETLOOM_TRACE_START_BARRIER NETLOOM_TRACE_QUIET
  mpi "$@" >"$dir/$name.out" 2>"$dir/$name.err" ||
    { echo "FAIL: $name: exit $?: $(head -5 "$dir/$name.err")"; exit 1; }
  [ ! -e "$dir/m.nlt" ] || { echo "FAIL: $name: an archive was written"; exit 1; }
  ! ls -A "$dir" | grep -q '\.stream$' || { echo "FAIL: $name: stream files left behind"; exit 1; }
}
# expect NAME COUNT ERE: COUNT lines of NAME's stderr match ERE.
expect() {
  local n
  n=$(grep -Ec -- "$3" "$dir/$1.err")
  [ "$n" = "$2" ] || { echo "FAIL: $1: $n lines match /$3/, expected $2:"; cat "$dir/$1.err"; exit 1; }
}
env_ok=(env LD_PRELOAD="$lib" NETLOOM_TRACE="$dir/m.nlt")

run cpu-rank1 1 "${env_ok[@]}" "$pp" "${ppargs[@]}" : -np 1 "${env_ok[@]}" NETLOOM_TRACE_CPU=bogus "$pp" "${ppargs[@]}"
expect cpu-rank1 1 "^netloom-record: rank 1: NETLOOM_TRACE_CPU='bogus': expected 'auto', 'on' or 'off'; not recording\$"
expect cpu-rank1 1 '^netloom-record: no trace written: rank 1 stopped recording \(see its message above\)$'
expect cpu-rank1 2 '^netloom-record: '

run polls-all 2 "${env_ok[@]}" NETLOOM_TRACE_POLLS=x "$pp" "${ppargs[@]}"
expect polls-all 1 "^netloom-record: NETLOOM_TRACE_POLLS='x': expected 'all' or 'fold'; not recording\$"
expect polls-all 2 '^netloom-record: '

run polls-differ 1 "${env_ok[@]}" NETLOOM_TRACE_POLLS=x "$pp" "${ppargs[@]}" : -np 1 "${env_ok[@]}" NETLOOM_TRACE_POLLS=y "$pp" "${ppargs[@]}"
expect polls-differ 1 "^netloom-record: NETLOOM_TRACE_POLLS='x': expected"
expect polls-differ 1 "^netloom-record: rank 1: NETLOOM_TRACE_POLLS='y': expected"

run barrier-space 2 "${env_ok[@]}" "NETLOOM_TRACE_START_BARRIER= -1" "$pp" "${ppargs[@]}"
expect barrier-space 1 "^netloom-record: NETLOOM_TRACE_START_BARRIER=' -1': expected a count of MPI_Barrier calls on MPI_COMM_WORLD, digits from 0 to 18446744073709551615; not recording\$"
# Past 2^64 - 1: the range is named ('0 or more' named none, and the value is).
run barrier-big 2 "${env_ok[@]}" "NETLOOM_TRACE_START_BARRIER=99999999999999999999" "$pp" "${ppargs[@]}"
expect barrier-big 1 "^netloom-record: NETLOOM_TRACE_START_BARRIER='99999999999999999999': expected a count of MPI_Barrier calls on MPI_COMM_WORLD, digits from 0 to 18446744073709551615; not recording\$"
# NETLOOM_TRACE_QUIET: 0 or empty keep the "wrote" line, 1 drops it, any
# other value is refused as the other settings are (any value set, '0'
# too, dropped it).
quiet() { # NAME VALUE: the recorded run with NETLOOM_TRACE_QUIET=VALUE
  mpi 2 "${env_ok[@]}" NETLOOM_TRACE_QUIET="$2" "$pp" "${ppargs[@]}" >"$dir/$1.out" 2>"$dir/$1.err" ||
    { echo "FAIL: $1: exit $?: $(head -5 "$dir/$1.err")"; exit 1; }
}
for v in 0 ''; do
  rm -f "$dir/m.nlt"
  quiet quiet-off "$v"
  [ -s "$dir/m.nlt" ] || { echo "FAIL: NETLOOM_TRACE_QUIET='$v': no archive"; exit 1; }
  expect quiet-off 1 "^netloom-record: wrote $dir/m\.nlt \(2 ranks, "
  expect quiet-off 1 '^netloom-record: '
done
rm -f "$dir/m.nlt"
quiet quiet-on 1
[ -s "$dir/m.nlt" ] || { echo "FAIL: NETLOOM_TRACE_QUIET=1: no archive"; exit 1; }
expect quiet-on 0 '^netloom-record: '
rm -f "$dir/m.nlt"
run quiet-bad 2 "${env_ok[@]}" NETLOOM_TRACE_QUIET=yes "$pp" "${ppargs[@]}"
expect quiet-bad 1 "^netloom-record: NETLOOM_TRACE_QUIET='yes': expected '0' or '1'; not recording\$"
expect quiet-bad 2 '^netloom-record: '
# A folder the program cannot write in is one line with what was expected,
# as a missing folder's is (it ended at the errno text). Root writes
# anywhere: as root the ranks run as nobody (runuser), else skipped.
mkdir -p "$dir/ro" "$dir/tmp" && chmod 555 "$dir/ro" && chmod 1777 "$dir/tmp" && chmod 755 "$dir"
as_user=()
# nobody must reach the build: a clone under a folder of mode 700 (mktemp
# -d's) is out of its reach, and the check cannot run there.
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
   runuser -u nobody -- test -x "$pp" -a -r "$lib" -a -w "$dir/tmp"; then
  as_user=(runuser -u nobody --)
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  "${as_user[@]}" env HOME="$dir/tmp" TMPDIR="$dir/tmp" timeout 120 mpirun --oversubscribe -np 2 \
    env LD_PRELOAD="$lib" NETLOOM_TRACE="$dir/ro/m.nlt" "$pp" "${ppargs[@]}" </dev/null \
    >"$dir/ro.out" 2>"$dir/ro.err" || { echo "FAIL: ro: exit $?: $(head -5 "$dir/ro.err")"; exit 1; }
  expect ro 1 "^netloom-record: NETLOOM_TRACE='$dir/ro/m\.nlt': folder '$dir/ro': cannot write in it: Permission denied; expected a folder the program can write in; not recording\$"
  expect ro 2 '^netloom-record: '
else
  echo "record-exports: root without runuser, or nobody, or a build nobody can reach: unwritable folder not checked"
fi
echo "record-exports: settings problems said once, by the rank that has them"
