# Shared set-up of the replay e2e scripts (sourced, not run): a scratch
# directory $dir removed on exit, no progress lines, a failure counter and
# the comparison helpers every check uses.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NETLOOM_PROGRESS=0
fails=0

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# json FILE EXPR: evaluate a Python expression over the document `d`.
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

expect_eq() { # what got want
  if [ "$2" != "$3" ]; then fail "$1: got '$2', expected '$3'"; fi
}

# Under mpirun (the MPI e2e scripts): root in CI, more ranks than cores,
# containers without single copy, ranks yielding while they wait.
# `mpi K ARGS...` is mpirun -np K ARGS with a two-minute limit (124: hung).
mpi_env() {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_rmaps_base_oversubscribe=1
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  export OMPI_MCA_orte_base_help_aggregate=0
  export OMPI_MCA_mpi_yield_when_idle=1
}
mpi() { timeout 120 mpirun --oversubscribe -np "$@" </dev/null; }
