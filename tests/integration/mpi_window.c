/* Recorder test, 2 ranks, run with NETLOOM_TRACE_START_BARRIER=1: the trace
 * starts when the first MPI_Barrier on MPI_COMM_WORLD returns. Before it,
 * nothing is written but communicators are tracked (their ids and members
 * are in the manifest); a request created before it and completed after
 * it is left out of its completion (and counted).
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
	MPI_Comm c;
	MPI_Request rq;
	int v, w = 0, s = 0;

	mt_init(&argc, &argv); /* expects "init": the window's first op */
	MT_REQUIRE(mt_size == 2);
	v = mt_rank + 1;

	MPI_Comm_split(W, 0, -mt_rank, &c);
	MPI_Irecv(&w, 1, MPI_INT, 1 - mt_rank, 7, W, &rq);
	MPI_Send(&v, 1, MPI_INT, 1 - mt_rank, 7, W);
	MPI_Barrier(W); /* the window opens when this returns */

	MPI_Wait(&rq, MPI_STATUS_IGNORE); /* created before: left out */
	MPI_Allreduce(&w, &s, 1, MPI_INT, MPI_SUM, c);
	EXPECT("allreduce comm=$c bytes=4");
	MPI_Barrier(W);
	EXPECT("barrier");
	if (mt_rank == 0)
		EXPECT("@comm $c 1,0");
	mt_report("window", s);
	return mt_finish();
}
