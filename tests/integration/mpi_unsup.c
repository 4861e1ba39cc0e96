/* Recorder test, 2 ranks: calls the trace model cannot represent are left
 * out and counted, never recorded wrongly: operations on an
 * intercommunicator. The runner checks the summary line on stderr.
 * Matched probes are recorded as a probe and a receive naming the found
 * message's source and tag (record_mprobe.c); MPI_Cancel as a cancel op
 * (mpi_cancel.c).
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
	MPI_Comm local, inter;
	MPI_Message msg;
	MPI_Status st;
	long sum = 0;
	int v = 5, v2[2] = {5, 6}, w = 0;

	mt_init(&argc, &argv);
	MT_REQUIRE(mt_size == 2);
	int me = mt_rank, other = 1 - me;

	if (me == 0) {
		MPI_Send(&v, 1, MPI_INT, 1, 1, W);
		EXPECT("send peer=1 tag=1 bytes=4");
		MPI_Send(v2, 2, MPI_INT, 1, 3, W);
		EXPECT("send peer=1 tag=3 bytes=8");
	} else {
		MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, W, &msg, &st);
		EXPECT("probe peer=-1 tag=-1 bytes=4 done=1");
		MPI_Mrecv(&w, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
		EXPECT("recv tag=1 bytes=4");
		sum += w;
	}
	/* Rank 0's tag-3 message is in before the barrier's (shared memory
	 * keeps their order), so one MPI_Improbe finds it. */
	MPI_Barrier(W);
	EXPECT("barrier");
	if (me == 1) {
		int flag = 0, pair[2] = {0, 0};
		MPI_Request rq;
		MPI_Improbe(0, MPI_ANY_TAG, W, &flag, &msg, MPI_STATUS_IGNORE);
		MT_REQUIRE(flag);
		EXPECT("iprobe tag=-1 bytes=8 done=1");
		MPI_Imrecv(pair, 2, MPI_INT, &msg, &rq);
		EXPECT("irecv tag=3 bytes=8");
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		EXPECT("wait done=1");
		sum += pair[0] + pair[1];
	}

	MPI_Comm_split(W, me, 0, &local);
	EXPECT("comm_split color=%d new=$local%d", me, me);
	MPI_Intercomm_create(local, 0, W, other, 42, &inter);
	if (me == 0) {
		MPI_Send(&v, 1, MPI_INT, 0, 2, inter);
	} else {
		MPI_Recv(&w, 1, MPI_INT, 0, 2, inter, MPI_STATUS_IGNORE);
		sum += w;
	}
	MPI_Comm_free(&inter);
	MPI_Comm_free(&local);
	EXPECT("comm_free comm=$local%d", me);

	mt_report("unsup", sum);
	return mt_finish();
}
