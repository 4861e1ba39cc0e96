/* Recorder test, 2 ranks: a program asking for MPI_THREAD_MULTIPLE runs
 * unchanged and is not recorded (one line on stderr, no archive).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int provided = 0, rank, v, sum = 0;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	v = rank + 1;
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("thread: sum %d\n", sum);
	MPI_Finalize();
	return 0;
}
