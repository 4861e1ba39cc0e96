# Sourced by the scripts that start mpirun (tests/e2e/mpi_*.sh,
# tests/integration/run-mpi-test.sh): root in CI, more ranks than cores,
# no terminal, containers without ptrace-based single copy, ranks that
# yield while they wait: all said through the environment, so the same
# command works everywhere. `mpi K ARGS...` is mpirun -np K ARGS with a
# two-minute limit (exit 124: it hung).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_orte_base_help_aggregate=0
export OMPI_MCA_mpi_yield_when_idle=1
# Shared memory and self only, and the ob1 messaging layer they run
# under, which Open MPI picks here anyway after probing UCX and the OFI
# libfabric layer (and the TCP transport) at every rank's start: skipping
# the probes made a 2-rank launch about 0.5 s shorter.
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
mpi() { timeout 120 mpirun --oversubscribe -np "$@" </dev/null; }
# Not shortened: when a rank exits non-zero, mpirun stops the ranks still
# alive with SIGCONT, SIGTERM one second later and SIGKILL one second after
# that (odls_base_sigkill_timeout, 1 s), two seconds on every launch that
# fails. Set to 0 it saved about 18 s of mpi_engine.sh, but a rank that
# says the run's one line could then be killed before it said it, when
# another rank's exit came first (mpi_engine's 'libmpi missing', a
# rehearsal of 2026-12-07).
# Open MPI's session directories under a folder of this script's own
# (OMPI_MCA_orte_tmpdir_base), removed at its exit: under the shared
# /tmp/ompi.HOST.UID, another test's mpirun ending removed that folder as
# this one made its pid.N in it, and mpirun failed in orte_init
# ("orte_session_dir failed", pingpong-nofit, a rehearsal of 2026-12-07).
# The removal is added to an EXIT trap set before (tests/e2e/lib.sh's); a
# script that sets its trap after this removes "$nl_ompi_tmp" itself.
nl_ompi_tmp=$(mktemp -d "${TMPDIR:-/tmp}/nl-ompi.XXXXXX") || { echo "mpi_env.sh: mktemp failed" >&2; exit 1; }
# Mode 1777, as /tmp: a test may run its ranks as another user
# (record-exports.sh's nobody), each with its ompi.HOST.UID folder.
chmod 1777 "$nl_ompi_tmp"
export OMPI_MCA_orte_tmpdir_base=$nl_ompi_tmp
nl_exit_trap=$(trap -p EXIT | sed -E "s/^trap -- '(.*)' EXIT$/\1/")
trap "rm -rf \"\$nl_ompi_tmp\"${nl_exit_trap:+; $nl_exit_trap}" EXIT
# `mpi_require NETLOOM`: exit 77 (meson's "skipped") when mpirun is
# missing or NETLOOM was built without MPI (mpi_engine checks that refusal).
mpi_require() {
  command -v mpirun >/dev/null 2>&1 || { echo "mpirun not found: skipping" >&2; exit 77; }
  # The refusal captured first, then searched: piped into grep under the
  # callers' pipefail, the pipeline took mpirun's failing status and the
  # test ran (and failed) instead of skipping.
  local said
  said=$(mpi 2 "$1" run -s topology=torus:k=4x4 -s max_samples=1 -s sample_period=10 2>&1 >/dev/null || true)
  if grep -q "built without MPI" <<<"$said"; then
    echo "netloom built without MPI: skipped (mpi_engine checks the refusal)" >&2
    exit 77
  fi
}
# `nowall FILE.json`: the JSON without its wall-clock fields, keys sorted
# (what an MPI run must equal the sequential run in).
nowall() {
  python3 - "$1" <<'PY'
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if "wall" not in k}
    if isinstance(o, list):
        return [strip(x) for x in o]
    return o
print(json.dumps(strip(json.load(open(sys.argv[1]))), sort_keys=True))
PY
}
# `mpi_same_as_seq NAME "K1 K2 ..." ARGS...`: `$netloom run ARGS` once,
# then under mpirun with each K ranks, JSON in $dir/NAME-{seq,K}.json
# (stdout, stderr in NAME-K.out, .err); the caller's `fail` unless every
# run equals the sequential one byte for byte.
mpi_same_as_seq() {
  local name=$1 ranks=$2 k
  shift 2
  "$netloom" run "$@" --reproducible --json "$dir/$name-seq.json" >/dev/null || fail "$name: sequential run exit $?"
  for k in $ranks; do
    mpi "$k" "$netloom" run "$@" --reproducible --json "$dir/$name-$k.json" \
      >"$dir/$name-$k.out" 2>"$dir/$name-$k.err" || fail "$name: mpirun -np $k exit $?: $(head -3 "$dir/$name-$k.err")"
    cmp -s "$dir/$name-seq.json" "$dir/$name-$k.json" || fail "$name: mpirun -np $k JSON differs from the sequential run"
  done
}
# `ranked`: a rank's command wrapper that appends "RANK STATUS" to $EXITS
# (each rank's exit status, which mpirun does not pass on).
ranked=(bash -c '"$@"; rc=$?; echo "$OMPI_COMM_WORLD_RANK $rc" >>"$EXITS"; exit $rc' rank)
# `mpi_rank1_limited KB OUT ARGS...`: `$netloom ARGS` on 2 ranks, rank 1
# alone under `ulimit -v KB` (a rank that runs out of memory while rank 0
# has enough), each rank's status appended to $EXITS; stdout into OUT,
# stderr printed; a one-minute limit (exit 124: it hung). Callers first
# check that netloom starts under the limit at all (a sanitizer's
# reservations do not fit): `(ulimit -v KB && "$netloom" version)`.
mpi_rank1_limited() {
  local kb=$1 out=$2
  shift 2
  timeout 60 mpirun --oversubscribe -np 1 "${ranked[@]}" "$netloom" "$@" : \
    -np 1 "${ranked[@]}" sh -c 'ulimit -v "$0" && exec "$@"' "$kb" "$netloom" "$@" </dev/null 2>&1 >"$out"
}
# `mpmd_fails WHAT DIFFERENCE RANK0-ARGS... -- RANK1-ARGS...`: an MPMD
# launch of $netloom whose ranks got other command lines must end on both
# ranks with exit 2 within 20 s and one line on stderr naming DIFFERENCE,
# nothing on stdout (not a --help's usage either: it is said after the
# comparison, by rank 0, when the lines agree); the caller's `fail` and
# `expect_eq` (tests/e2e/lib.sh) otherwise.
mpmd_fails() { # what expected-difference rank-0-args... -- rank-1-args...
  local what=$1 re=$2 a=() out t0 EXITS
  EXITS=$(mktemp "$dir/exits.XXXXXX") # unique: $RANDOM names collided
  shift 2
  while [ "$1" != -- ]; do a+=("$1"); shift; done
  shift
  export EXITS
  t0=$SECONDS
  out=$(timeout 60 mpirun --oversubscribe -np 1 "${ranked[@]}" "$netloom" "${a[@]}" : \
        -np 1 "${ranked[@]}" "$netloom" "$@" </dev/null 2>&1 >"$dir/mpmd.out")
  [ $? -ne 124 ] || fail "$what: hung"
  [ $((SECONDS - t0)) -le 20 ] || fail "$what: took $((SECONDS - t0)) s"
  expect_eq "$what: statuses" "$(awk '{print $2}' "$EXITS" 2>/dev/null | tr '\n' ' ')" "2 2 "
  expect_eq "$what: lines on stderr" "$(grep -c . <<<"$out")" 1
  # Said by rank 0's command ("netloom: " when it runs none: --version).
  local cmd="netloom ${a[0]}"
  case ${a[0]} in -*) cmd=netloom ;; esac
  grep -qxF "$cmd: MPI rank 1 of 2: its command line differs from rank 0's: $re; expected the same command and options on every rank" \
    <<<"$out" || fail "$what: got '$out'"
  [ ! -s "$dir/mpmd.out" ] || fail "$what: printed '$(head -c 300 "$dir/mpmd.out")'"
}
