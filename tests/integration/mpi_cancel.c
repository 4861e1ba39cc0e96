/* Recorder test, 2 ranks: MPI_Cancel is a cancel op carrying the outcome
 * MPI_Test_cancelled gives on the request's completion status (also when
 * the program ignores the status), held until the request completes:
 * - a wildcard receive nothing matches: cancelled (n_done 1);
 * - a receive that matched an eager message before the cancel: not
 *   cancelled (Open MPI's shared memory delivers rank 0's message before
 *   the barrier's, so it has matched when the barrier returns);
 * - a receive freed after the cancel: outcome never known (no_outcome);
 * - a persistent receive cancelled, then restarted and matched: the
 *   restart is not cancelled.
 * The ops between a cancel and its completion keep their order.
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
	MPI_Request rq, pr;
	MPI_Status st;
	long sum = 0;
	int v = 5, w = 0, x = 0, cancelled = -1;

	mt_init(&argc, &argv);
	MT_REQUIRE(mt_size == 2);
	int me = mt_rank;

	if (me == 0) {
		MPI_Send(&v, 1, MPI_INT, 1, 7, W);
		EXPECT("send peer=1 tag=7 bytes=4");
	} else {
		/* Cancelled: nobody sends tag 99. */
		MPI_Irecv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 99, W, &rq);
		EXPECT("irecv peer=-1 tag=99 bytes=4");
		MPI_Cancel(&rq);
		EXPECT("cancel done=1");
		MPI_Wait(&rq, &st);
		EXPECT("wait done=1");
		MPI_Test_cancelled(&st, &cancelled);
		MT_REQUIRE(cancelled);
		/* Matched before the cancel. */
		MPI_Irecv(&x, 1, MPI_INT, 0, 7, W, &rq);
		EXPECT("irecv tag=7 bytes=4");
	}
	MPI_Barrier(W);
	EXPECT("barrier");
	if (me == 1) {
		MPI_Cancel(&rq);
		EXPECT("cancel");
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		EXPECT("wait done=1");
		sum += x;

		/* Freed after the cancel: the outcome is never known. */
		MPI_Irecv(&w, 1, MPI_INT, 0, 98, W, &rq);
		EXPECT("irecv tag=98 bytes=4");
		MPI_Cancel(&rq);
		EXPECT("cancel flags=noout");
		MPI_Request_free(&rq);
		EXPECT("request_free");

		/* Persistent: cancelled once, then restarted and matched. */
		MPI_Recv_init(&x, 1, MPI_INT, 0, 8, W, &pr);
		EXPECT("recv_init tag=8 bytes=4");
		MPI_Start(&pr);
		EXPECT("start");
		MPI_Cancel(&pr);
		EXPECT("cancel done=1");
		MPI_Wait(&pr, MPI_STATUS_IGNORE);
		EXPECT("wait done=1");
		MPI_Start(&pr);
		EXPECT("start");
	}
	MPI_Barrier(W);
	EXPECT("barrier");
	if (me == 0) {
		v = 6;
		MPI_Send(&v, 1, MPI_INT, 1, 8, W);
		EXPECT("send peer=1 tag=8 bytes=4");
	} else {
		MPI_Wait(&pr, MPI_STATUS_IGNORE);
		EXPECT("wait done=1");
		sum += x;
		MPI_Request_free(&pr);
		EXPECT("request_free");
	}

	mt_report("cancel", sum);
	return mt_finish();
}
