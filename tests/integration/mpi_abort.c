/* Recorder test program (record-abort.sh): the last rank calls MPI_Abort
 * mid-run, after some recorded traffic, while the others wait in a
 * barrier it never enters. Exit status: MPI_Abort's errorcode, 3. */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, v = 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 0; i < 100; i++)
		MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == size - 1)
		MPI_Abort(MPI_COMM_WORLD, 3);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
