/* Recorder test, 2 ranks (or 1, record-one-rank): the program changes directory after MPI_Init
 * (as a solver moving into its output folder does). The archive and the
 * stream files stay where the recording began: with a relative path
 * (the default name here) they were looked for in the new directory,
 * the trace was lost ("cannot fetch rank 1's stream") and the streams
 * were left behind.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
	mt_init(&argc, &argv);
	MT_REQUIRE(mt_size <= 2);
	char dir[32];
	snprintf(dir, sizeof dir, "elsewhere%d", mt_rank);
	mkdir(dir, 0700); /* exists from the run without the recorder */
	MT_REQUIRE(chdir(dir) == 0);
	MPI_Barrier(W);
	EXPECT("barrier");
	mt_report("chdir", 0);
	return mt_finish();
}
