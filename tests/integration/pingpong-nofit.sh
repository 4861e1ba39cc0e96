#!/usr/bin/env bash
# netloom-pingpong with fewer than two sizes from --fit-min up: no
# bandwidth fit, said on stderr (bandwidth_Bps 0 read like a measured
# figure); the JSON is still written and parses. And an option above its
# limit names the value and the limit (it printed only the usage text).
# usage: pingpong-nofit.sh NETLOOM_PINGPONG
set -uo pipefail
command -v mpirun >/dev/null 2>&1 || { echo "mpirun not found: skipping" >&2; exit 77; }
. "$(dirname "$0")/../mpi_env.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir" "$nl_ompi_tmp"' EXIT
mpi 2 "$1" --max-bytes 65536 --reps 2 >"$dir/pp.json" 2>"$dir/pp.err" || { echo "FAIL: exit $?: $(cat "$dir/pp.err")"; exit 1; }
grep -q "^netloom-pingpong: no bandwidth fit: 1 size of at least --fit-min 65536 bytes" "$dir/pp.err" ||
  { echo "FAIL: no warning: $(cat "$dir/pp.err")"; exit 1; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["bandwidth_Bps"] != 0)' "$dir/pp.json" ||
  { echo "FAIL: JSON: $(head -c 300 "$dir/pp.json")"; exit 1; }
mpi 2 "$1" --max-bytes 1073741825 >"$dir/big.out" 2>"$dir/big.err"
rc=$?
[ "$rc" = 2 ] || { echo "FAIL: --max-bytes 1073741825: exit $rc, expected 2: $(cat "$dir/big.err")"; exit 1; }
grep -qx "netloom-pingpong: --max-bytes: value '1073741825': expected an integer from 1 to 1073741824" "$dir/big.err" ||
  { echo "FAIL: --max-bytes 1073741825: $(cat "$dir/big.err")"; exit 1; }
! grep -q '^usage:' "$dir/big.err" || { echo "FAIL: --max-bytes 1073741825 printed the usage"; exit 1; }
# A command line it cannot run is one line naming what is wrong, exit 2
# (an unknown option, a missing value, an argument and an odd number of
# ranks printed only the usage text, naming nothing); --help is the usage
# on stdout, exit 0.
refused() { # expected-line np args...
  local want=$1 np=$2
  shift 2
  mpi "$np" "$1" "${@:2}" >"$dir/r.out" 2>"$dir/r.err"
  local rc=$?
  [ "$rc" = 2 ] || { echo "FAIL: ${*:2}: exit $rc, expected 2: $(cat "$dir/r.err")"; exit 1; }
  grep -qxF -- "$want" "$dir/r.err" || { echo "FAIL: ${*:2} (np $np): $(cat "$dir/r.err")"; exit 1; }
  ! grep -q '^usage:' "$dir/r.err" || { echo "FAIL: ${*:2} printed the usage"; exit 1; }
}
refused "netloom-pingpong: unknown option '--bogus'; expected --max-bytes, --iters, --reps or --fit-min (see --help)" 2 "$1" --bogus
refused "netloom-pingpong: --iters: missing value; expected an integer from 1 to 10000000" 2 "$1" --iters
refused "netloom-pingpong: unexpected argument 'extra'; expected options only (see --help)" 2 "$1" extra
# A value holding a newline printed two lines: escaped, one line.
refused 'netloom-pingpong: --iters: value '"'"'1\n2'"'"': expected an integer from 1 to 10000000' 2 "$1" --iters $'1\n2'
refused "netloom-pingpong: 3 ranks: expected an even number of ranks, 2 or more (ranks pair up: mpirun -np 2 ...)" 3 "$1"
mpi 2 "$1" --help >"$dir/h.out" 2>"$dir/h.err"
rc=$?
[ "$rc" = 0 ] && grep -q '^usage: netloom-pingpong' "$dir/h.out" ||
  { echo "FAIL: --help: exit $rc, stdout: $(head -1 "$dir/h.out"), stderr: $(head -1 "$dir/h.err")"; exit 1; }
echo "pingpong-nofit: warned; --max-bytes over 1 GiB refused; bad command lines named; --help"
