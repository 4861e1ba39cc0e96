/* Recorder test, 2 ranks: polling loops, recorded in full by default and
 * folded with NETLOOM_TRACE_POLLS=fold (record.c): an unsuccessful poll
 * that repeats the previous op exactly is then not written. The program
 * writes its expectations from the outcomes it observed, so the check is
 * exact whatever the timing.
 */
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

static int is_fold;
static char last_poll[128]; /* the last expectation, when it was a failed poll */

static void expect_op(const char *line)
{
	EXPECT("%s", line);
	last_poll[0] = '\0';
}

static void expect_poll(const char *line, int is_failed)
{
	if (is_fold && is_failed && !strcmp(line, last_poll))
		return;
	EXPECT("%s", line);
	if (is_failed)
		snprintf(last_poll, sizeof last_poll, "%s", line);
	else
		last_poll[0] = '\0';
}

int main(int argc, char **argv)
{
	const char *polls = getenv("NETLOOM_TRACE_POLLS");
	int v = 1, w = 0, flag = 0, found = 0, done = 0;
	long sum = 0, n_polls = 0;
	MPI_Request rq;

	mt_init(&argc, &argv);
	MT_REQUIRE(mt_size == 2);
	is_fold = polls && !strcmp(polls, "fold");

	/* One request polled with MPI_Test until the late send arrives. */
	if (mt_rank == 0) {
		usleep(30000);
		MPI_Send(&v, 1, MPI_INT, 1, 1, W);
		expect_op("send peer=1 tag=1 bytes=4");
	} else {
		MPI_Irecv(&w, 1, MPI_INT, 0, 1, W, &rq);
		expect_op("irecv tag=1 bytes=4 req=0");
		do {
			MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
			expect_poll(flag ? "test req=0 done=1" : "test req=0", !flag);
			n_polls++;
		} while (!flag);
		sum += w;
	}
	MPI_Barrier(W);
	expect_op("barrier");

	/* Two different polls alternating: never folded. */
	if (mt_rank == 0) {
		usleep(30000);
		MPI_Send(&v, 1, MPI_INT, 1, 2, W);
		expect_op("send peer=1 tag=2 bytes=4");
		MPI_Send(&v, 1, MPI_INT, 1, 3, W);
		expect_op("send peer=1 tag=3 bytes=4");
	} else {
		MPI_Irecv(&w, 1, MPI_INT, 0, 3, W, &rq);
		expect_op("irecv tag=3 bytes=4 req=0");
		while (!found || !done) {
			if (!found) {
				MPI_Iprobe(0, 2, W, &found, MPI_STATUS_IGNORE);
				expect_poll(found ? "iprobe tag=2 bytes=4 done=1" : "iprobe tag=2", !found);
				if (found) {
					MPI_Recv(&v, 1, MPI_INT, 0, 2, W, MPI_STATUS_IGNORE);
					expect_op("recv tag=2 bytes=4");
				}
			}
			if (!done) {
				MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
				expect_poll(done ? "test req=0 done=1" : "test req=0", !done);
			}
			n_polls++;
		}
		sum += w + v;
	}
	/* Only the values, not the poll counts, are output: they vary. */
	(void)n_polls;
	mt_report("poll", sum);
	return mt_finish();
}
