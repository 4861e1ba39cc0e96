/* Open MPI for the MPI engine (mpi.c, mpi_launch.c, mpi_reduce.c), opened
 * when netloom is started by an MPI launcher, for run, sweep, replay and
 * compare (nl_mpi_open, from net_mpi_open), instead of linked into netloom.
 *
 * Why: linked, libmpi and what it needs (Open MPI's ORTE and OPAL,
 * hwloc, libevent, libudev) were loaded by every netloom process, and
 * loading them cost about 8 ms of CPU at every start (on a 2-core VM, an
 * empty C program linked with netloom's other libraries started in 20-23
 * ms with libmpi, 6-7 ms without it and libzmq), for the few runs under
 * mpirun. zmq_port.h (adapters/) does the same for libzmq; docs/scaling.md
 * says how the library is found.
 *
 * mpi.c, mpi_launch.c and mpi_reduce.c include this header (through
 * mpi_internal.h) instead of <mpi.h> and call MPI by its own
 * names: each function used is an object-like macro for the pointer
 * nl_mpi_open filled, and each predefined handle (MPI_COMM_WORLD,
 * MPI_SUM, MPI_UINT64_T, ...) the address Open MPI gives its global,
 * read from the library: Open MPI's mpi.h writes every handle as
 * OMPI_PREDEFINED_GLOBAL(type, global), which is redefined here. A
 * function or handle not listed fails to compile or link, which is what
 * keeps a new call from linking libmpi back in. Built only against Open
 * MPI (meson.build: NL_MPI_PORT); another MPI is linked as before. */
#ifndef NETLOOM_NET_MPI_PORT_H
#define NETLOOM_NET_MPI_PORT_H

#include <mpi.h>

struct nl_err;

#ifdef NL_MPI_PORT

#ifndef OPEN_MPI
#error "mpi_port.h reads Open MPI's handles; meson.build links other MPIs instead (NL_MPI_PORT unset)"
#endif

/* The functions mpi.c uses, by their MPI names less the prefix. */
#define NL_MPI_FUNCS(X)                                                                                 \
	X(int, Init_thread, (int *, char ***, int, int *))                                              \
	X(int, Finalize, (void))                                                                        \
	X(int, Abort, (MPI_Comm, int))                                                                  \
	X(int, Comm_dup, (MPI_Comm, MPI_Comm *))                                                        \
	X(int, Comm_free, (MPI_Comm *))                                                                 \
	X(int, Comm_rank, (MPI_Comm, int *))                                                            \
	X(int, Comm_size, (MPI_Comm, int *))                                                            \
	X(int, Allreduce, (const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm))                  \
	X(int, Reduce, (const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm))                \
	X(int, Bcast, (void *, int, MPI_Datatype, int, MPI_Comm))                                       \
	X(int, Allgather, (const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm))       \
	X(int, Allgatherv,                                                                              \
	  (const void *, int, MPI_Datatype, void *, const int[], const int[], MPI_Datatype, MPI_Comm))  \
	X(int, Isend, (const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *))             \
	X(int, Recv, (void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *))                     \
	X(int, Sendrecv,                                                                                \
	  (const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype, int, int, MPI_Comm,    \
	   MPI_Status *))                                                                               \
	X(int, Probe, (int, int, MPI_Comm, MPI_Status *))                                               \
	X(int, Get_count, (const MPI_Status *, MPI_Datatype, int *))                                    \
	X(int, Waitall, (int, MPI_Request[], MPI_Status[]))                                             \
	X(int, Type_contiguous, (int, MPI_Datatype, MPI_Datatype *))                                    \
	X(int, Type_commit, (MPI_Datatype *))                                                           \
	X(int, Type_free, (MPI_Datatype *))                                                             \
	X(int, Op_create, (MPI_User_function *, int, MPI_Op *))                                         \
	X(int, Op_free, (MPI_Op *))

/* The predefined handles mpi.c uses, by Open MPI's names of their globals. */
#define NL_MPI_GLOBALS(X)                                                                               \
	X(ompi_mpi_comm_world)                                                                          \
	X(ompi_mpi_op_sum)                                                                              \
	X(ompi_mpi_op_max)                                                                              \
	X(ompi_mpi_op_min)                                                                              \
	X(ompi_mpi_byte)                                                                                \
	X(ompi_mpi_int)                                                                                 \
	X(ompi_mpi_double)                                                                              \
	X(ompi_mpi_uint8_t)                                                                             \
	X(ompi_mpi_uint16_t)                                                                            \
	X(ompi_mpi_int64_t)                                                                             \
	X(ompi_mpi_uint64_t)

struct nl_mpi_api {
#define NL_MPI_FIELD(ret, name, args) ret(*name) args;
	NL_MPI_FUNCS(NL_MPI_FIELD)
#undef NL_MPI_FIELD
#define NL_MPI_HANDLE(global) void *global;
	NL_MPI_GLOBALS(NL_MPI_HANDLE)
#undef NL_MPI_HANDLE
};

/* Filled once by nl_mpi_open, read-only after: one MPI per process. */
extern struct nl_mpi_api nl_mpi;

/* Open libmpi (NETLOOM_LIBMPI if set, a path or a library name, else
 * libmpi.so.40, the soname of Open MPI 3.0 to 5.0) with its symbols
 * global, as Open MPI's own plug-ins need, and resolve the functions and
 * handles above; 0 once done (later calls return at once), else an
 * NL_EIO error naming the library and the loader's reason. */
int nl_mpi_open(struct nl_err *err);

/* mpi_port.c itself sees Open MPI's declarations, to check the list's
 * types against them. */
#ifndef NL_MPI_PORT_IMPL
#undef OMPI_PREDEFINED_GLOBAL
#define OMPI_PREDEFINED_GLOBAL(type, global) ((type)nl_mpi.global)
#define MPI_Init_thread nl_mpi.Init_thread
#define MPI_Finalize nl_mpi.Finalize
#define MPI_Abort nl_mpi.Abort
#define MPI_Comm_dup nl_mpi.Comm_dup
#define MPI_Comm_free nl_mpi.Comm_free
#define MPI_Comm_rank nl_mpi.Comm_rank
#define MPI_Comm_size nl_mpi.Comm_size
#define MPI_Allreduce nl_mpi.Allreduce
#define MPI_Reduce nl_mpi.Reduce
#define MPI_Bcast nl_mpi.Bcast
#define MPI_Allgather nl_mpi.Allgather
#define MPI_Allgatherv nl_mpi.Allgatherv
#define MPI_Isend nl_mpi.Isend
#define MPI_Recv nl_mpi.Recv
#define MPI_Sendrecv nl_mpi.Sendrecv
#define MPI_Probe nl_mpi.Probe
#define MPI_Get_count nl_mpi.Get_count
#define MPI_Waitall nl_mpi.Waitall
#define MPI_Type_contiguous nl_mpi.Type_contiguous
#define MPI_Type_commit nl_mpi.Type_commit
#define MPI_Type_free nl_mpi.Type_free
#define MPI_Op_create nl_mpi.Op_create
#define MPI_Op_free nl_mpi.Op_free
#endif

#else /* linked */

static inline int nl_mpi_open(struct nl_err *err)
{
	(void)err;
	return 0;
}

#endif /* NL_MPI_PORT */

#endif
