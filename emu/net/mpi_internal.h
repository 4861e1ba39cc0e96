/* The MPI engine's process-wide state (struct net_mpi), shared by its
 * launch side (mpi_launch.c: opening, agreement, closing) and the
 * exchange of the flit model (mpi.c), which counts its statistics. */
#ifndef NETLOOM_NET_MPI_INTERNAL_H
#define NETLOOM_NET_MPI_INTERNAL_H

#include <stdint.h>

#ifdef NETLOOM_HAVE_MPI
#include "net/mpi_port.h"
#endif

/* Exchange statistics over a process's runs (NETLOOM_MPI_STATS). */
struct mpi_stats {
	uint64_t cycles;   /* exchanges (windows) */
	uint64_t wcycles;  /* cycles the windows covered (idle jumps between them aside) */
	uint64_t bytes;    /* payload bytes sent to other ranks */
	uint64_t hdr_bytes; /* bytes this rank gave the window's allreduce */
	uint64_t msgs;     /* non-empty payloads sent */
	uint64_t events;   /* events sent */
	uint64_t heads;    /* of which heads with their record */
	uint64_t vcalls;   /* cycles with an all-to-all-v */
};

struct net_mpi {
#ifdef NETLOOM_HAVE_MPI
	MPI_Comm comm;
#endif
	uint32_t rank, size;
	struct mpi_stats st;
	uint64_t lookahead, window; /* of the last network planned (fl_mpi_plan), for the statistics */
	char who[64];               /* the command, in the line said before an abort (net_mpi_open) */
};

#endif
