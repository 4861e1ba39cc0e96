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
mpi() { timeout 120 mpirun --oversubscribe -np "$@" </dev/null; }
