/* Recorder test, 4 ranks: every non-blocking collective. Each is recorded
 * as its blocking kind with flags=nb and the request it created; the
 * completion is a wait/waitall on that id. Several are left in flight
 * together so ids 0..k are all live at once.
 */
#include <stdio.h>
#include <string.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

static const char *list(const long *v, int n)
{
	static char buf[4][256];
	static int which;
	char *b = buf[which++ % 4];
	size_t len = 0;

	b[0] = '\0';
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(b + len, 256 - len, "%s%ld", i ? "," : "", v[i]);
	return b;
}

int main(int argc, char **argv)
{
	int si[64], ri[8][64], counts[4], displs[4], rcounts[4], rdispls[4];
	long sum = 0, bytes[4], rbytes[4], sl, rl[2];
	MPI_Request rq[8];

	mt_init(&argc, &argv);
	MT_REQUIRE(mt_size == 4);
	int me = mt_rank, n = mt_size;
	for (int i = 0; i < 64; i++)
		si[i] = 7 * me + i;
	memset(ri, 0, sizeof ri);

	/* Four in flight at once: ids 0..3, completed together. */
	MPI_Ibarrier(W, &rq[0]);
	EXPECT("barrier flags=nb req=0");
	memcpy(ri[1], si, 3 * sizeof(int));
	MPI_Ibcast(ri[1], 3, MPI_INT, 2, W, &rq[1]);
	EXPECT("bcast peer=2 bytes=12 flags=nb req=1");
	MPI_Iallreduce(si, ri[2], 2, MPI_INT, MPI_SUM, W, &rq[2]);
	EXPECT("allreduce bytes=8 flags=nb req=2");
	MPI_Ireduce(si, ri[3], 4, MPI_INT, MPI_MAX, 1, W, &rq[3]);
	EXPECT("reduce peer=1 bytes=16 flags=nb req=3");
	MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
	EXPECT("waitall reqs=0,1,2,3 done=4");
	sum += ri[1][2] + ri[2][1] + (me == 1 ? ri[3][3] : 0);
	/* Free stack: 0,1,2,3 (top) -> the next request takes 3. */

	MPI_Igather(si, 2, MPI_INT, ri[0], 2, MPI_INT, 3, W, &rq[0]);
	EXPECT(me == 3 ? "gather peer=3 bytes=8 rbytes=8 flags=nb req=3"
		       : "gather peer=3 bytes=8 flags=nb req=3");
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	EXPECT("wait req=3 done=1");

	for (int i = 0; i < n; i++) {
		counts[i] = i + 1;
		displs[i] = i * (i + 1) / 2;
		bytes[i] = 4L * (i + 1);
	}
	MPI_Igatherv(si, me + 1, MPI_INT, ri[0], counts, displs, MPI_INT, 0, W, &rq[0]);
	if (me == 0)
		EXPECT("gatherv bytes=4 rcounts=%s flags=nb req=3", list(bytes, n));
	else
		EXPECT("gatherv bytes=%d flags=nb req=3", 4 * (me + 1));
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	EXPECT("wait req=3 done=1");
	if (me == 0)
		sum += ri[0][9];

	MPI_Iscatter(si, 2, MPI_INT, ri[0], 2, MPI_INT, 2, W, &rq[0]);
	EXPECT(me == 2 ? "scatter peer=2 bytes=8 rbytes=8 flags=nb req=3"
		       : "scatter peer=2 rbytes=8 flags=nb req=3");
	MPI_Iscatterv(si, counts, displs, MPI_INT, ri[1], me + 1, MPI_INT, 1, W, &rq[1]);
	if (me == 1)
		EXPECT("scatterv peer=1 rbytes=8 scounts=%s flags=nb req=2", list(bytes, n));
	else
		EXPECT("scatterv peer=1 rbytes=%d flags=nb req=2", 4 * (me + 1));
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	EXPECT("waitall reqs=3,2 done=2");
	sum += ri[0][1] + ri[1][me];
	/* Free stack: 0,1,3,2 (top). */

	MPI_Iallgather(si, 1, MPI_INT, ri[0], 1, MPI_INT, W, &rq[0]);
	EXPECT("allgather bytes=4 rbytes=4 flags=nb req=2");
	MPI_Iallgatherv(si, me + 1, MPI_INT, ri[1], counts, displs, MPI_INT, W, &rq[1]);
	EXPECT("allgatherv bytes=%d rcounts=%s flags=nb req=3", 4 * (me + 1), list(bytes, n));
	MPI_Ialltoall(si, 2, MPI_INT, ri[2], 2, MPI_INT, W, &rq[2]);
	EXPECT("alltoall bytes=8 rbytes=8 flags=nb req=1");
	for (int i = 0; i < n; i++) {
		rcounts[i] = me + 1;
		rdispls[i] = i * (me + 1);
		rbytes[i] = 4L * (me + 1);
	}
	MPI_Ialltoallv(si, counts, displs, MPI_INT, ri[3], rcounts, rdispls, MPI_INT, W, &rq[3]);
	EXPECT("alltoallv scounts=%s rcounts=%s flags=nb req=0", list(bytes, n), list(rbytes, n));
	MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
	EXPECT("waitall reqs=2,3,1,0 done=4");
	sum += ri[0][3] + ri[1][9] + ri[2][7] + ri[3][rdispls[3]];
	/* Free stack: 2,3,1,0 (top). */

	{
		MPI_Datatype types[4] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT};
		int ones[4] = {1, 1, 1, 1}, dis[4] = {0, 4, 8, 12};
		long fours[4] = {4, 4, 4, 4};
		MPI_Ialltoallw(si, ones, dis, types, ri[4], ones, dis, types, W, &rq[0]);
		EXPECT("alltoallw scounts=%s rcounts=%s flags=nb req=0", list(fours, n),
		       list(fours, n));
	}
	MPI_Ireduce_scatter(si, ri[5], counts, MPI_INT, MPI_SUM, W, &rq[1]);
	EXPECT("reduce_scatter bytes=40 rbytes=%d rcounts=%s flags=nb req=1", 4 * (me + 1),
	       list(bytes, n));
	MPI_Ireduce_scatter_block(si, ri[6], 3, MPI_INT, MPI_SUM, W, &rq[2]);
	EXPECT("reduce_scatter_block bytes=48 rbytes=12 flags=nb req=3");
	sl = me + 2;
	MPI_Iscan(&sl, &rl[0], 1, MPI_LONG, MPI_PROD, W, &rq[3]);
	EXPECT("scan bytes=8 flags=nb req=2");
	rl[1] = 0;
	MPI_Iexscan(&sl, &rl[1], 1, MPI_LONG, MPI_SUM, W, &rq[4]);
	EXPECT("exscan bytes=8 flags=nb req=4");
	MPI_Waitall(5, rq, MPI_STATUSES_IGNORE);
	EXPECT("waitall reqs=0,1,3,2,4 done=5");
	sum += ri[4][12] + ri[5][me] + ri[6][2] + rl[0] + (me ? rl[1] : 0);

	mt_report("icoll", sum);
	return mt_finish();
}
