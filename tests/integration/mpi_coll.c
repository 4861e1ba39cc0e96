/* Recorder test, 4 ranks: every blocking collective, the v and w variants,
 * MPI_IN_PLACE, and a collective on MPI_COMM_SELF. Field conventions
 * (record_coll.c, docs/recorder.md): bytes = what this rank sends per
 * destination, rbytes = what it receives per source, v/w variants carry
 * the count arrays in bytes, peer = root.
 */
#include <stdio.h>
#include <string.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

/* "4,8,12,16" from n values */
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
	int si[64], ri[256], counts[4], displs[4], rcounts[4], rdispls[4];
	double sd[64], rd[256];
	long sl, rl, sum = 0, bytes[4], rbytes[4];

	mt_init(&argc, &argv);
	MT_REQUIRE(mt_size == 4);
	int me = mt_rank, n = mt_size;
	for (int i = 0; i < 64; i++) {
		si[i] = 10 * me + i;
		sd[i] = me + 0.25 * i;
	}
	memset(ri, 0, sizeof ri);
	memset(rd, 0, sizeof rd);

	MPI_Barrier(W);
	EXPECT("barrier");

	memcpy(ri, si, 5 * sizeof(int));
	MPI_Bcast(ri, 5, MPI_INT, 1, W);
	EXPECT("bcast peer=1 bytes=20");
	sum += ri[4];

	MPI_Reduce(sd, rd, 3, MPI_DOUBLE, MPI_SUM, 2, W);
	EXPECT("reduce peer=2 bytes=24");
	if (me == 2)
		sum += (long)rd[2];
	/* In place at the root. */
	memcpy(rd, sd, 3 * sizeof(double));
	MPI_Reduce(me == 2 ? MPI_IN_PLACE : sd, rd, 3, MPI_DOUBLE, MPI_MAX, 2, W);
	EXPECT(me == 2 ? "reduce peer=2 bytes=24 flags=inplace" : "reduce peer=2 bytes=24");

	MPI_Allreduce(si, ri, 4, MPI_INT, MPI_SUM, W);
	EXPECT("allreduce bytes=16");
	sum += ri[3];
	MPI_Allreduce(MPI_IN_PLACE, ri, 4, MPI_INT, MPI_MIN, W);
	EXPECT("allreduce bytes=16 flags=inplace");

	MPI_Gather(si, 2, MPI_INT, ri, 2, MPI_INT, 0, W);
	EXPECT(me == 0 ? "gather bytes=8 rbytes=8" : "gather bytes=8");
	if (me == 0)
		sum += ri[7];
	/* In place at the root: its block is already in the receive buffer. */
	MPI_Gather(me == 0 ? MPI_IN_PLACE : si, 2, MPI_INT, ri, 2, MPI_INT, 0, W);
	EXPECT(me == 0 ? "gather bytes=8 rbytes=8 flags=inplace" : "gather bytes=8");

	for (int i = 0; i < n; i++) {
		counts[i] = i + 1;
		displs[i] = i * (i + 1) / 2;
		bytes[i] = 4L * (i + 1);
	}
	MPI_Gatherv(si, me + 1, MPI_INT, ri, counts, displs, MPI_INT, 3, W);
	if (me == 3)
		EXPECT("gatherv peer=3 bytes=16 rcounts=%s", list(bytes, n));
	else
		EXPECT("gatherv peer=3 bytes=%d", 4 * (me + 1));
	if (me == 3)
		sum += ri[9];

	MPI_Scatter(si, 3, MPI_INT, ri, 3, MPI_INT, 1, W);
	EXPECT(me == 1 ? "scatter peer=1 bytes=12 rbytes=12" : "scatter peer=1 rbytes=12");
	sum += ri[2];

	for (int i = 0; i < n; i++) {
		counts[i] = 4 - i;
		displs[i] = 4 * i;
		bytes[i] = 4L * (4 - i);
	}
	MPI_Scatterv(si, counts, displs, MPI_INT, ri, 4 - me, MPI_INT, 0, W);
	if (me == 0)
		EXPECT("scatterv rbytes=16 scounts=%s", list(bytes, n));
	else
		EXPECT("scatterv rbytes=%d", 4 * (4 - me));
	sum += ri[0];

	MPI_Allgather(sd, 2, MPI_DOUBLE, rd, 2, MPI_DOUBLE, W);
	EXPECT("allgather bytes=16 rbytes=16");
	sum += (long)rd[7];
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rd, 2, MPI_DOUBLE, W);
	EXPECT("allgather bytes=16 rbytes=16 flags=inplace");

	for (int i = 0; i < n; i++) {
		counts[i] = i + 1;
		displs[i] = i * (i + 1) / 2;
		bytes[i] = 4L * (i + 1);
	}
	MPI_Allgatherv(si, me + 1, MPI_INT, ri, counts, displs, MPI_INT, W);
	EXPECT("allgatherv bytes=%d rcounts=%s", 4 * (me + 1), list(bytes, n));
	sum += ri[9];

	MPI_Alltoall(si, 1, MPI_INT, ri, 1, MPI_INT, W);
	EXPECT("alltoall bytes=4 rbytes=4");
	sum += ri[3];

	for (int i = 0; i < n; i++) {
		counts[i] = i + 1;              /* to rank i */
		displs[i] = i * (i + 1) / 2;
		rcounts[i] = me + 1;            /* from rank i */
		rdispls[i] = i * (me + 1);
		bytes[i] = 4L * (i + 1);
		rbytes[i] = 4L * (me + 1);
	}
	MPI_Alltoallv(si, counts, displs, MPI_INT, ri, rcounts, rdispls, MPI_INT, W);
	EXPECT("alltoallv scounts=%s rcounts=%s", list(bytes, n), list(rbytes, n));
	sum += ri[rdispls[3]];

	/* Alltoallw: rank i sends one value of type T(j) to rank j, where
	 * T(j) is int for even j and double for odd j. */
	{
		MPI_Datatype stypes[4], rtypes[4];
		int sdis[4], rdis[4], ones[4];
		char sbuf[64], rbuf[64];
		MPI_Datatype mine = me % 2 ? MPI_DOUBLE : MPI_INT;
		for (int i = 0; i < n; i++) {
			stypes[i] = i % 2 ? MPI_DOUBLE : MPI_INT;
			rtypes[i] = mine;
			sdis[i] = 8 * i;
			rdis[i] = 8 * i;
			ones[i] = 1;
			bytes[i] = i % 2 ? 8 : 4;
			rbytes[i] = me % 2 ? 8 : 4;
		}
		memset(sbuf, me + 1, sizeof sbuf);
		memset(rbuf, 0, sizeof rbuf);
		MPI_Alltoallw(sbuf, ones, sdis, stypes, rbuf, ones, rdis, rtypes, W);
		EXPECT("alltoallw scounts=%s rcounts=%s", list(bytes, n), list(rbytes, n));
		sum += rbuf[8 * 3];
	}

	for (int i = 0; i < n; i++) {
		counts[i] = i + 1;
		bytes[i] = 4L * (i + 1);
	}
	MPI_Reduce_scatter(si, ri, counts, MPI_INT, MPI_SUM, W);
	EXPECT("reduce_scatter bytes=40 rbytes=%d rcounts=%s", 4 * (me + 1), list(bytes, n));
	sum += ri[me];

	MPI_Reduce_scatter_block(si, ri, 2, MPI_INT, MPI_SUM, W);
	EXPECT("reduce_scatter_block bytes=32 rbytes=8");
	sum += ri[1];

	sl = me + 1;
	MPI_Scan(&sl, &rl, 1, MPI_LONG, MPI_SUM, W);
	EXPECT("scan bytes=8");
	sum += rl;
	rl = 0;
	MPI_Exscan(&sl, &rl, 1, MPI_LONG, MPI_SUM, W);
	EXPECT("exscan bytes=8");
	if (me > 0)
		sum += rl;

	MPI_Allreduce(&sl, &rl, 1, MPI_LONG, MPI_SUM, MPI_COMM_SELF);
	EXPECT("allreduce comm=1 bytes=8");
	sum += rl;

	mt_report("coll", sum);
	return mt_finish();
}
