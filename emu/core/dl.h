/* A shared library opened when a command first needs it rather than
 * linked (adapters/zmq_port.h, net/mpi_port.h say why): its name from an
 * environment variable or a default, its symbols resolved by name into a
 * struct of pointers, each failure one line naming the library. */
#ifndef NETLOOM_CORE_DL_H
#define NETLOOM_CORE_DL_H

#include <stddef.h>

struct nl_err;

/* One symbol: its name in the library and where its address goes (an
 * offset into the caller's struct of function or object pointers). */
struct nl_dl_sym {
	const char *name;
	size_t offset;
};

/* What a port says of its library, for the loader and its errors. */
struct nl_dl_lib {
	const char *who;         /* the line's prefix: "live", "MPI" */
	const char *label;       /* "libzmq" */
	const char *env;         /* the variable naming another: "NETLOOM_LIBZMQ" */
	const char *dflt;        /* the soname opened otherwise: "libzmq.so.5" */
	const char *expect_load; /* "libzmq 4.1 or later (Debian: libzmq5)" */
	const char *expect_sym;  /* "libzmq 4.1 or later" */
	int flags;               /* dlopen's mode: RTLD_NOW | RTLD_LOCAL or RTLD_GLOBAL */
};

/* Open lib and write each of the n symbols' addresses into api (a struct
 * laid out as the offsets say); 0, else an NL_EIO error ('live: cannot
 * load libzmq (REASON); expected ..., or NETLOOM_LIBZMQ naming it', or
 * 'live: NAME has no SYMBOL; expected ...'), the library closed and api
 * partly written (give a scratch struct, copied on success). The handle
 * of a success stays open for the process's life. */
int nl_dl_open(const struct nl_dl_lib *lib, const struct nl_dl_sym *syms, size_t n, void *api, struct nl_err *err);

#endif
