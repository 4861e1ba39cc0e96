/* Recorder test, 2 ranks: blocking and immediate sends in every mode,
 * receives with wildcards, MPI_PROC_NULL, derived datatypes, Sendrecv(+
 * _replace), Probe and Iprobe. Each call is followed by the op the
 * recorder must write for it (mpitest.h).
 */
#include <string.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
	int iv[64], jv[64];
	double dv[64];
	long sum = 0;
	MPI_Status st;
	MPI_Request rq[2];
	char bsend_buf[4096];
	void *detached;
	int detached_size, n, flag;

	mt_init(&argc, &argv);
	MT_REQUIRE(mt_size == 2);
	int me = mt_rank, other = 1 - mt_rank;
	for (int i = 0; i < 64; i++) {
		iv[i] = i + 100 * me;
		jv[i] = 0;
		dv[i] = 0.5 * i + me;
	}

	/* Blocking modes; the receiver posts a bigger buffer with wildcards
	 * once: the recorded size is the posted buffer's. */
	if (me == 0) {
		MPI_Send(dv, 10, MPI_DOUBLE, 1, 7, W);
		EXPECT("send peer=1 tag=7 bytes=80");
		MPI_Ssend(iv, 3, MPI_INT, 1, 8, W);
		EXPECT("ssend peer=1 tag=8 bytes=12");
	} else {
		MPI_Recv(dv, 10, MPI_DOUBLE, 0, 7, W, MPI_STATUS_IGNORE);
		EXPECT("recv tag=7 bytes=80");
		MPI_Recv(jv, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, W, &st);
		EXPECT("recv peer=-1 tag=-1 bytes=256");
		MPI_Get_count(&st, MPI_INT, &n);
		MT_REQUIRE(n == 3 && st.MPI_TAG == 8 && st.MPI_SOURCE == 0);
		sum += (long)dv[9] + jv[2];
	}

	MPI_Buffer_attach(bsend_buf, sizeof bsend_buf);
	if (me == 0) {
		MPI_Bsend(iv, 5, MPI_INT, 1, 9, W);
		EXPECT("bsend peer=1 tag=9 bytes=20");
	} else {
		MPI_Recv(jv, 5, MPI_INT, 0, 9, W, MPI_STATUS_IGNORE);
		EXPECT("recv tag=9 bytes=20");
		sum += jv[4];
	}
	MPI_Buffer_detach(&detached, &detached_size);

	/* Ready mode: the receive is posted before the barrier. */
	if (me == 1) {
		MPI_Irecv(jv, 4, MPI_INT, 0, 10, W, &rq[0]);
		EXPECT("irecv tag=10 bytes=16 req=0");
	}
	MPI_Barrier(W);
	EXPECT("barrier");
	if (me == 0) {
		MPI_Rsend(iv, 4, MPI_INT, 1, 10, W);
		EXPECT("rsend peer=1 tag=10 bytes=16");
	} else {
		MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
		EXPECT("wait req=0 done=1");
		sum += jv[3];
	}

	MPI_Send(iv, 2, MPI_INT, MPI_PROC_NULL, 1, W);
	EXPECT("send peer=-2 tag=1 bytes=8");
	MPI_Recv(jv, 2, MPI_INT, MPI_PROC_NULL, 1, W, MPI_STATUS_IGNORE);
	EXPECT("recv peer=-2 tag=1 bytes=8");

	/* Derived datatypes: sizes as the program defined them (data only,
	 * not extent): vector 3 x 2 ints = 24 B, struct {int; double[2]} =
	 * 20 B, contiguous 5 x vector = 120 B. */
	MPI_Datatype vec, rec, con;
	int blens[2] = {1, 2};
	MPI_Aint disp[2] = {0, 8};
	MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
	MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
	MPI_Type_create_struct(2, blens, disp, types, &rec);
	MPI_Type_contiguous(5, vec, &con);
	MPI_Type_commit(&vec);
	MPI_Type_commit(&rec);
	MPI_Type_commit(&con);
	{
		char sbuf[64] = {0};
		memcpy(sbuf, &iv[1], sizeof(int));
		memcpy(sbuf + 8, &dv[1], 2 * sizeof(double));
		if (me == 0) {
			MPI_Send(iv, 2, vec, 1, 11, W);
			EXPECT("send peer=1 tag=11 bytes=48");
			MPI_Send(sbuf, 1, rec, 1, 12, W);
			EXPECT("send peer=1 tag=12 bytes=20");
			MPI_Send(iv, 1, con, 1, 13, W);
			EXPECT("send peer=1 tag=13 bytes=120");
		} else {
			MPI_Recv(jv, 2, vec, 0, 11, W, MPI_STATUS_IGNORE);
			EXPECT("recv tag=11 bytes=48");
			sum += jv[13];
			MPI_Recv(sbuf, 1, rec, 0, 12, W, MPI_STATUS_IGNORE);
			EXPECT("recv tag=12 bytes=20");
			MPI_Recv(jv, 1, con, 0, 13, W, MPI_STATUS_IGNORE);
			EXPECT("recv tag=13 bytes=120");
			sum += jv[41] + (long)(*(double *)(sbuf + 16));
		}
	}
	MPI_Type_free(&vec);
	MPI_Type_free(&rec);
	MPI_Type_free(&con);

	/* Immediate sends in every mode; ids are reused last-freed-first. */
	if (me == 0) {
		MPI_Isend(dv, 4, MPI_DOUBLE, 1, 20, W, &rq[0]);
		EXPECT("isend peer=1 tag=20 bytes=32 req=0");
		MPI_Issend(iv, 6, MPI_INT, 1, 21, W, &rq[1]);
		EXPECT("issend peer=1 tag=21 bytes=24 req=1");
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
		EXPECT("waitall reqs=0,1 done=2");
	} else {
		MPI_Irecv(dv, 4, MPI_DOUBLE, 0, 20, W, &rq[0]);
		EXPECT("irecv tag=20 bytes=32 req=0");
		MPI_Irecv(jv, 6, MPI_INT, 0, 21, W, &rq[1]);
		EXPECT("irecv tag=21 bytes=24 req=1");
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
		EXPECT("waitall reqs=0,1 done=2");
		sum += (long)dv[3] + jv[5];
	}
	MPI_Buffer_attach(bsend_buf, sizeof bsend_buf);
	if (me == 0) {
		MPI_Ibsend(iv, 8, MPI_INT, 1, 22, W, &rq[0]);
		EXPECT("isend peer=1 tag=22 bytes=32 req=1");
		MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
		EXPECT("wait req=1 done=1");
	} else {
		MPI_Recv(jv, 8, MPI_INT, 0, 22, W, MPI_STATUS_IGNORE);
		EXPECT("recv tag=22 bytes=32");
		sum += jv[7];
	}
	MPI_Buffer_detach(&detached, &detached_size);
	if (me == 1) {
		MPI_Irecv(jv, 2, MPI_INT, 0, 23, W, &rq[0]);
		EXPECT("irecv tag=23 bytes=8 req=1");
	}
	MPI_Barrier(W);
	EXPECT("barrier");
	if (me == 0) {
		MPI_Irsend(iv, 2, MPI_INT, 1, 23, W, &rq[0]);
		EXPECT("isend peer=1 tag=23 bytes=8 req=1");
	}
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	EXPECT("wait req=1 done=1");

	/* Sendrecv with a wildcard source, and Sendrecv_replace. */
	MPI_Sendrecv(iv, 3, MPI_INT, other, 30, jv, 5, MPI_INT, MPI_ANY_SOURCE, 30, W, &st);
	EXPECT("sendrecv peer=%d tag=30 bytes=12 rpeer=-1 rtag=30 rbytes=20", other);
	sum += jv[2];
	MPI_Sendrecv_replace(dv, 2, MPI_DOUBLE, other, 31, other, MPI_ANY_TAG, W, MPI_STATUS_IGNORE);
	EXPECT("sendrecv peer=%d tag=31 bytes=16 rpeer=%d rtag=-1 rbytes=16", other, other);
	sum += (long)dv[1];

	/* Probes: the size recorded is the probed message's. */
	if (me == 0) {
		MPI_Send(iv, 7, MPI_INT, 1, 40, W);
		EXPECT("send peer=1 tag=40 bytes=28");
		MPI_Send(iv, 9, MPI_INT, 1, 41, W);
		EXPECT("send peer=1 tag=41 bytes=36");
	} else {
		MPI_Probe(0, 40, W, &st);
		EXPECT("probe tag=40 bytes=28 done=1");
		MPI_Get_count(&st, MPI_INT, &n);
		MT_REQUIRE(n == 7);
		MPI_Recv(jv, n, MPI_INT, 0, 40, W, MPI_STATUS_IGNORE);
		EXPECT("recv tag=40 bytes=28");
		do {
			MPI_Iprobe(MPI_ANY_SOURCE, 41, W, &flag, MPI_STATUS_IGNORE);
			if (flag)
				EXPECT("iprobe peer=-1 tag=41 bytes=36 done=1");
			else
				EXPECT("iprobe peer=-1 tag=41");
		} while (!flag);
		MPI_Recv(jv, 9, MPI_INT, 0, 41, W, MPI_STATUS_IGNORE);
		EXPECT("recv tag=41 bytes=36");
		sum += jv[8];
	}

	/* Immediate operations on MPI_PROC_NULL: Open MPI hands out one shared
	 * request object for all of them; each still gets its own id, and a
	 * completion takes the newest id of a handle first. */
	MPI_Isend(iv, 1, MPI_INT, MPI_PROC_NULL, 2, W, &rq[0]);
	EXPECT("isend peer=-2 tag=2 bytes=4 req=1");
	MPI_Irecv(jv, 1, MPI_INT, MPI_PROC_NULL, 2, W, &rq[1]);
	EXPECT("irecv peer=-2 tag=2 bytes=4 req=0");
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	EXPECT("waitall reqs=0,1 done=2");

	mt_report("p2p", sum);
	return mt_finish();
}
