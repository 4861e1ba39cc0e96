/* Recorder test, 2 ranks: one-sided communication and neighborhood
 * collectives are left out and counted (docs/recorder.md, "What is not
 * recorded"), the request-based one-sided calls (MPI_Rput, MPI_Rget)
 * included: they were neither recorded nor counted, so a program moving
 * its data with them got a summary naming only the completions of their
 * requests, not the one-sided traffic itself. The runner checks the
 * summary line on stderr: per rank 2 fences + MPI_Put + MPI_Rput + MPI_Rget
 * (x10 on 2 ranks), one neighborhood collective (x2), and the two
 * requests' completions (x4).
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
	int win_buf[4] = {0, 0, 0, 0}, v, got = 0, nb[2] = {0, 0};
	MPI_Win win;
	MPI_Request rq;
	MPI_Comm cart;
	int dims[1] = {2}, periods[1] = {1};
	long sum = 0;

	mt_init(&argc, &argv);
	MT_REQUIRE(mt_size == 2);
	int me = mt_rank, other = 1 - me;
	v = 10 + me;

	MPI_Win_create(win_buf, sizeof win_buf, sizeof(int), MPI_INFO_NULL, W, &win);
	MPI_Win_fence(0, win);
	MPI_Put(&v, 1, MPI_INT, other, 0, 1, MPI_INT, win);
	MPI_Win_fence(0, win);

	MPI_Win_lock_all(0, win);
	MPI_Rput(&v, 1, MPI_INT, other, 1, 1, MPI_INT, win, &rq);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	MPI_Win_flush_all(win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(W);
	EXPECT("barrier");

	MPI_Win_lock_all(0, win);
	MPI_Rget(&got, 1, MPI_INT, other, 0, 1, MPI_INT, win, &rq);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	MPI_Win_unlock_all(win);
	MPI_Barrier(W);
	EXPECT("barrier");
	MPI_Win_free(&win);
	sum += win_buf[0] + win_buf[1] + got;

	/* A 1-D periodic grid of 2: the cart is recorded as the split giving
	 * its members (color = lowest world rank), its neighborhood collective
	 * is counted. */
	MPI_Cart_create(W, 1, dims, periods, 0, &cart);
	EXPECT("comm_split key=%d new=$cart", me);
	MPI_Neighbor_allgather(&v, 1, MPI_INT, nb, 1, MPI_INT, cart);
	sum += nb[0] + nb[1];
	MPI_Comm_free(&cart);
	EXPECT("comm_free comm=$cart");

	mt_report("rma", sum);
	return mt_finish();
}
