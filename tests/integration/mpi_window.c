/* Recorder test, 2 ranks, run with NETLOOM_TRACE_START_BARRIER=1: the trace
 * starts when the first MPI_Barrier on MPI_COMM_WORLD returns. Before it,
 * nothing is written but communicators are tracked (their ids and members
 * are in the manifest); a request created before it and completed after
 * it is left out of its completion (and counted). Persistent requests
 * created before it and still alive are written as send_init/recv_init
 * when it opens (with their ids, communicator, peer, tag and size), so
 * their starts, completions and frees inside it are recorded; one freed
 * before it is not written.
 * With NLTEST_WINDOW_EARLY=1, a persistent pair is also started before the
 * window and completed inside it: those operations are left out (the
 * completion is counted under "completions and cancels of persistent
 * operations started before the recorded window"), the later ones are
 * recorded; and a receive posted before the window is freed inside it
 * (counted under "starts, frees and cancels of requests the recorder did
 * not create").
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
	MPI_Comm c;
	MPI_Request rq, p[2], e[2], gone, fr;
	int v, w = 0, s = 0, t = 0, x = 0, y = 0, z = 0, cr;
	const char *early = getenv("NLTEST_WINDOW_EARLY");
	int is_early = early && *early == '1';

	mt_init(&argc, &argv); /* expects "init": the window's first op */
	MT_REQUIRE(mt_size == 2);
	v = mt_rank + 1;

	MPI_Comm_split(W, 0, -mt_rank, &c);
	MPI_Comm_rank(c, &cr); /* 1 - mt_rank: the split reverses the order */
	MPI_Send_init(&v, 1, MPI_INT, 1 - mt_rank, 9, W, &gone);
	MPI_Request_free(&gone); /* freed before the window: not written */
	MPI_Send_init(&v, 1, MPI_INT, 1 - cr, 8, c, &p[0]);
	MPI_Recv_init(&x, 1, MPI_INT, 1 - cr, 8, c, &p[1]);
	MPI_Startall(2, p); /* used before the window too, inactive at its start */
	MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
	MT_REQUIRE(x == 2 - mt_rank);
	if (is_early) {
		MPI_Send_init(&v, 1, MPI_INT, 1 - mt_rank, 6, W, &e[0]);
		MPI_Recv_init(&y, 1, MPI_INT, 1 - mt_rank, 6, W, &e[1]);
		MPI_Startall(2, e); /* active when the window opens */
		MPI_Irecv(&z, 1, MPI_INT, 1 - mt_rank, 5, W, &fr);
		MPI_Send(&v, 1, MPI_INT, 1 - mt_rank, 5, W);
	}
	MPI_Irecv(&w, 1, MPI_INT, 1 - mt_rank, 7, W, &rq);
	MPI_Send(&v, 1, MPI_INT, 1 - mt_rank, 7, W);
	MPI_Barrier(W); /* the window opens when this returns */
	EXPECT("send_init comm=$c peer=%d tag=8 bytes=4 req=0", 1 - cr);
	EXPECT("recv_init comm=$c peer=%d tag=8 bytes=4 req=1", 1 - cr);
	if (is_early) {
		EXPECT("send_init peer=%d tag=6 bytes=4 req=2", 1 - mt_rank);
		EXPECT("recv_init peer=%d tag=6 bytes=4 req=3", 1 - mt_rank);
		MPI_Waitall(2, e, MPI_STATUSES_IGNORE); /* started before: left out */
		MPI_Startall(2, e);
		EXPECT("start req=2");
		EXPECT("start req=3");
		MPI_Waitall(2, e, MPI_STATUSES_IGNORE);
		EXPECT("waitall reqs=2,3 done=2");
		MPI_Request_free(&e[0]);
		EXPECT("request_free req=2");
		MPI_Request_free(&e[1]);
		EXPECT("request_free req=3");
		MT_REQUIRE(y == 2 - mt_rank);
		MPI_Request_free(&fr); /* created before: left out */
	}

	MPI_Wait(&rq, MPI_STATUS_IGNORE); /* created before: left out */
	for (int i = 0; i < 2; i++) {
		v += 10;
		MPI_Startall(2, p);
		EXPECT("start req=0");
		EXPECT("start req=1");
		MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
		EXPECT("waitall reqs=0,1 done=2");
		t += x;
	}
	MPI_Request_free(&p[0]);
	EXPECT("request_free req=0");
	MPI_Request_free(&p[1]);
	EXPECT("request_free req=1");
	MPI_Allreduce(&w, &s, 1, MPI_INT, MPI_SUM, c);
	EXPECT("allreduce comm=$c bytes=4");
	MPI_Barrier(W);
	EXPECT("barrier");
	if (mt_rank == 0)
		EXPECT("@comm $c 1,0");
	mt_report("window", 1000L * s + t);
	return mt_finish();
}
