/* Recorder test, 2 ranks: calls the trace model cannot represent are left
 * out and counted, never recorded wrongly: matched probes and operations
 * on an intercommunicator. The runner checks the summary line on stderr.
 * (MPI_Cancel is recorded: mpi_cancel.c.)
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
	MPI_Comm local, inter;
	MPI_Message msg;
	MPI_Status st;
	long sum = 0;
	int v = 5, w = 0;

	mt_init(&argc, &argv);
	MT_REQUIRE(mt_size == 2);
	int me = mt_rank, other = 1 - me;

	if (me == 0) {
		MPI_Send(&v, 1, MPI_INT, 1, 1, W);
		EXPECT("send peer=1 tag=1 bytes=4");
	} else {
		MPI_Mprobe(0, 1, W, &msg, &st);
		MPI_Mrecv(&w, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
		sum += w;
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
