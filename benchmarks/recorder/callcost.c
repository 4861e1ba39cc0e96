/* Cost of one recorded MPI call: a single rank calls MPI_Iprobe on
 * MPI_PROC_NULL (which returns at once, found) N times; run it with and
 * without the recorder preloaded and compare the figures. Prints the mean
 * time per call in ns as its last line.
 * usage: mpirun -np 1 [env LD_PRELOAD=...] callcost [N]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	int flag = 0;
	double t0, t1;

	MPI_Init(&argc, &argv);
	for (long i = 0; i < n / 10; i++) /* warm-up */
		MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	t0 = MPI_Wtime();
	for (long i = 0; i < n; i++)
		MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	t1 = MPI_Wtime();
	printf("%ld calls in %.3f s\n%.1f ns per MPI_Iprobe\n", n, t1 - t0, (t1 - t0) / n * 1e9);
	MPI_Finalize();
	return 0;
}
