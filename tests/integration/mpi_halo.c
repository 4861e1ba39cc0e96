/* OTF2 import test program (issue 17), 4 ranks: a ring (Isend/Irecv +
 * Waitall), a 1-D halo exchange (two Irecv, two Isend, Waitall),
 * blocking Send/Recv in a ring, an MPI_ANY_SOURCE Irecv + Wait, and the
 * world collectives, three times. Recorded once with EZTrace
 * (`eztrace -t openmpi`) and once with netloom's recorder; eztrace-compare.sh
 * checks that both give the same messages and matching. Phases are
 * separated by barriers: EZTrace records no irecv source, so the importer
 * infers it from send times (docs/trace-format.md, OTF2), which is
 * unambiguous when one phase's messages cannot overtake the next's.
 * No MPI_Sendrecv: EZTrace 2.0 records nothing for it.
 */
#include <mpi.h>
#include <stdio.h>

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
	int r, n, buf[1024] = {0}, rb[1024], big[1024] = {0};
	long check = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(W, &r);
	MPI_Comm_size(W, &n);
	int right = (r + 1) % n, left = (r + n - 1) % n;
	for (int i = 0; i < 1024; i++)
		buf[i] = i + r;
	for (int it = 0; it < 3; it++) {
		MPI_Request q[4];
		MPI_Irecv(rb, 16, MPI_INT, left, 1, W, &q[0]);
		MPI_Isend(buf, 16, MPI_INT, right, 1, W, &q[1]);
		MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
		check += rb[0];
		MPI_Barrier(W);
		MPI_Irecv(rb, 32, MPI_INT, left, 2, W, &q[0]);
		MPI_Irecv(rb + 32, 32, MPI_INT, right, 2, W, &q[1]);
		MPI_Isend(buf, 32, MPI_INT, right, 2, W, &q[2]);
		MPI_Isend(buf, 32, MPI_INT, left, 2, W, &q[3]);
		MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
		check += rb[0] + rb[32];
		MPI_Barrier(W);
		if (r % 2 == 0) {
			MPI_Send(big, 1024, MPI_INT, right, 4, W);
			MPI_Recv(big, 1024, MPI_INT, left, 4, W, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(big, 1024, MPI_INT, left, 4, W, MPI_STATUS_IGNORE);
			MPI_Send(big, 1024, MPI_INT, right, 4, W);
		}
		MPI_Barrier(W);
		MPI_Request w;
		MPI_Irecv(rb, 4, MPI_INT, MPI_ANY_SOURCE, 5, W, &w);
		MPI_Send(buf, 4, MPI_INT, right, 5, W);
		MPI_Wait(&w, MPI_STATUS_IGNORE);
		check += rb[0];
		MPI_Barrier(W);
		MPI_Bcast(buf, 64, MPI_INT, 0, W);
		MPI_Allreduce(buf, rb, 16, MPI_INT, MPI_SUM, W);
		MPI_Reduce(buf, rb, 16, MPI_INT, MPI_SUM, 1, W);
		MPI_Allgather(buf, 8, MPI_INT, rb, 8, MPI_INT, W);
		MPI_Alltoall(buf, 4, MPI_INT, rb, 4, MPI_INT, W);
		MPI_Gather(buf, 4, MPI_INT, rb, 4, MPI_INT, 2, W);
		MPI_Scatter(buf, 4, MPI_INT, rb, 4, MPI_INT, 3, W);
	}
	long total = 0;
	MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, W);
	if (r == 0)
		printf("halo: checksum %ld\n", total);
	MPI_Finalize();
	return 0;
}
