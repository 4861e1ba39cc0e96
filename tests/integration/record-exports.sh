#!/usr/bin/env bash
# The preloaded recorder exports MPI_* symbols only (docs/recorder.md): any
# other would override a program's own (it exported nl_err_name and
# nl_strerror, libnetloom's, compiled in for its writer).
# usage: record-exports.sh LIBNETLOOM_RECORD_SO
set -uo pipefail
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
others=$(nm -D --defined-only "$1" | awk 'NF == 3 { print $3 }' | grep -v '^MPI_')
mpi=$(nm -D --defined-only "$1" | awk 'NF == 3 { print $3 }' | grep -c '^MPI_')
[ "$mpi" -gt 100 ] || { echo "FAIL: $1 exports $mpi MPI_* symbols, expected the wrappers"; exit 1; }
[ -z "$others" ] || { echo "FAIL: $1 exports symbols other than MPI_*: $others"; exit 1; }
echo "record-exports: $mpi MPI_* symbols, nothing else"
