/* Shared by the recorder's MPI test programs (tests/integration/mpi_*.c).
 *
 * A test program states, next to each MPI call, the op the recorder must
 * write for it: EXPECT("send peer=1 tag=7 bytes=40"). The lines go to one
 * file per rank ($NLTEST_EXPECT.r<rank>); check_record compares them with
 * the archive field by field (tests/integration/check_record.c says the
 * syntax). Without NLTEST_EXPECT (the run without the recorder) EXPECT
 * does nothing, so both runs execute the same MPI calls.
 * Programs print their results from rank 0 only, in a fixed order, so the
 * runs with and without the recorder can be compared byte for byte.
 */
#ifndef NETLOOM_TESTS_MPITEST_H
#define NETLOOM_TESTS_MPITEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *mt_expect_file;
static int mt_rank, mt_size;

static void mt_init(int *argc, char ***argv)
{
	const char *base = getenv("NLTEST_EXPECT");

	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
	if (base && *base) {
		char path[4096];
		snprintf(path, sizeof path, "%s.r%d", base, mt_rank);
		mt_expect_file = fopen(path, "w");
		if (!mt_expect_file) {
			fprintf(stderr, "cannot write %s\n", path);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		fprintf(mt_expect_file, "init\n");
	}
}

__attribute__((format(printf, 1, 2))) static void EXPECT(const char *fmt, ...)
{
	va_list ap;

	if (!mt_expect_file)
		return;
	va_start(ap, fmt);
	vfprintf(mt_expect_file, fmt, ap);
	va_end(ap);
	fputc('\n', mt_expect_file);
}

/* Fail the whole job (a wrong result, not a recorder check). */
#define MT_REQUIRE(c)                                                                  \
	do {                                                                           \
		if (!(c)) {                                                            \
			fprintf(stderr, "rank %d: %s:%d: %s\n", mt_rank, __FILE__, __LINE__, #c); \
			MPI_Abort(MPI_COMM_WORLD, 1);                                  \
		}                                                                      \
	} while (0)

/* Rank 0 prints one line per rank: the checksum each rank computed. */
static void mt_report(const char *what, long value)
{
	long *all = mt_rank == 0 ? malloc((size_t)mt_size * sizeof *all) : NULL;

	MPI_Gather(&value, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	if (mt_rank == 0)
		EXPECT("gather peer=0 bytes=%zu rbytes=%zu", sizeof(long), sizeof(long));
	else
		EXPECT("gather peer=0 bytes=%zu", sizeof(long));
	if (mt_rank == 0) {
		for (int r = 0; r < mt_size; r++)
			printf("%s rank %d: %ld\n", what, r, all[r]);
		free(all);
	}
}

/* NLTEST_NO_FINALIZE set: the program ends without MPI_Finalize, as
 * a user's program may (run-mpi-test.sh --no-finalize). */
static int mt_finish(void)
{
	EXPECT("finalize");
	if (mt_expect_file)
		fclose(mt_expect_file);
	if (getenv("NLTEST_NO_FINALIZE"))
		return 0;
	MPI_Finalize();
	return 0;
}

#endif
