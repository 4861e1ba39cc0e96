/* Recorder test, 2 ranks: persistent requests (Send_init, Ssend_init,
 * Recv_init, Start, Startall, Request_free) and every Wait/Test call.
 * Rank 0 sends, rank 1 receives. Request ids: a new request takes the id
 * freed last, else the next unused one (record_req.c), so the expected ids
 * below follow from the order of creation and completion.
 * Completion ops list completed requests first, then the others still
 * pending, in array order; MPI_REQUEST_NULL entries are left out.
 */
#include <stdio.h>
#include <string.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

/* "a,b,c": ids[order[0..n)] */
static const char *id_list(const int *ids, const int *order, int n)
{
	static char buf[256];
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%d", i ? "," : "", ids[order[i]]);
	return buf;
}

int main(int argc, char **argv)
{
	int iv[64], jv[4][16];
	long sum = 0;
	MPI_Request p[2], rq[3];
	MPI_Status sts[3];
	int flag, idx, outcount, indices[3];

	mt_init(&argc, &argv);
	MT_REQUIRE(mt_size == 2);
	int me = mt_rank;
	for (int i = 0; i < 64; i++)
		iv[i] = 3 * i + 1;
	memset(jv, 0, sizeof jv);

	/* Persistent: ids 0 and 1, started three times and once together. */
	if (me == 0) {
		MPI_Send_init(iv, 4, MPI_INT, 1, 50, W, &p[0]);
		EXPECT("send_init peer=1 tag=50 bytes=16 req=0");
		MPI_Ssend_init(iv + 4, 2, MPI_INT, 1, 51, W, &p[1]);
		EXPECT("send_init peer=1 tag=51 bytes=8 req=1");
	} else {
		MPI_Recv_init(jv[0], 4, MPI_INT, 0, 50, W, &p[0]);
		EXPECT("recv_init tag=50 bytes=16 req=0");
		MPI_Recv_init(jv[1], 2, MPI_INT, 0, 51, W, &p[1]);
		EXPECT("recv_init tag=51 bytes=8 req=1");
	}
	for (int k = 0; k < 3; k++) {
		MPI_Start(&p[0]);
		EXPECT("start req=0");
		MPI_Wait(&p[0], MPI_STATUS_IGNORE);
		EXPECT("wait req=0 done=1");
		sum += jv[0][3];
	}
	MPI_Startall(2, p);
	EXPECT("start req=0");
	EXPECT("start req=1");
	MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
	EXPECT("waitall reqs=0,1 done=2");
	sum += jv[1][1];
	MPI_Request_free(&p[0]);
	EXPECT("request_free req=0");
	MPI_Request_free(&p[1]);
	EXPECT("request_free req=1");
	/* Free stack now: 0, 1 (top). A wait on MPI_REQUEST_NULL records nothing. */
	MPI_Wait(&p[0], MPI_STATUS_IGNORE);

	/* Waitany: rank 1 posts tags 60, 61, 62 (ids 1, 0, 2); rank 0 sends
	 * 61 first, so index 1 completes first. */
	int ids[3] = {1, 0, 2};
	if (me == 1) {
		for (int i = 0; i < 3; i++) {
			MPI_Irecv(jv[i], 2, MPI_INT, 0, 60 + i, W, &rq[i]);
			EXPECT("irecv tag=%d bytes=8 req=%d", 60 + i, ids[i]);
		}
	}
	MPI_Barrier(W);
	EXPECT("barrier");
	if (me == 0) {
		MPI_Send(iv, 2, MPI_INT, 1, 61, W);
		EXPECT("send peer=1 tag=61 bytes=8");
	} else {
		MPI_Waitany(3, rq, &idx, &sts[0]);
		MT_REQUIRE(idx == 1 && sts[0].MPI_TAG == 61);
		EXPECT("waitany reqs=0,1,2 done=1");
	}
	MPI_Barrier(W);
	EXPECT("barrier");
	/* Waitsome over the two left (index 1 is MPI_REQUEST_NULL now). */
	if (me == 0) {
		MPI_Send(iv, 2, MPI_INT, 1, 60, W);
		EXPECT("send peer=1 tag=60 bytes=8");
		MPI_Send(iv + 2, 2, MPI_INT, 1, 62, W);
		EXPECT("send peer=1 tag=62 bytes=8");
	} else {
		int left = 2, pending[3] = {1, 0, 1};
		while (left > 0) {
			int order[3], k = 0;
			MPI_Waitsome(3, rq, &outcount, indices, sts);
			for (int j = 0; j < outcount; j++) {
				order[k++] = indices[j];
				pending[indices[j]] = 0;
			}
			for (int i = 0; i < 3; i++)
				if (pending[i])
					order[k++] = i;
			EXPECT("waitsome reqs=%s done=%d", id_list(ids, order, k), outcount);
			left -= outcount;
		}
		sum += jv[0][1] + jv[1][0] + jv[2][1];
	}
	MPI_Barrier(W);
	EXPECT("barrier");

	/* Test: rank 1 polls one receive until it completes. */
	if (me == 0) {
		MPI_Isend(iv, 3, MPI_INT, 1, 70, W, &rq[0]);
		EXPECT("isend peer=1 tag=70 bytes=12 req=1");
		MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
		EXPECT("wait req=1 done=1");
	} else {
		/* The id is the one Waitsome freed last (1 or 2): bound, not fixed. */
		MPI_Irecv(jv[0], 3, MPI_INT, 0, 70, W, &rq[0]);
		EXPECT("irecv tag=70 bytes=12 req=$t70");
		do {
			MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
			EXPECT(flag ? "test req=$t70 done=1" : "test req=$t70");
		} while (!flag);
		sum += jv[0][2];
	}
	MPI_Barrier(W);
	EXPECT("barrier");

	/* Testall, Testany, Testsome on two receives each. Rank 0 sends both
	 * messages before each phase's barrier, so the polls end. */
	for (int phase = 0; phase < 3; phase++) {
		if (me == 1) {
			for (int i = 0; i < 2; i++) {
				MPI_Irecv(jv[i], 1, MPI_INT, 0, 80 + 2 * phase + i, W, &rq[i]);
				EXPECT("irecv tag=%d bytes=4 req=$p%dr%d", 80 + 2 * phase + i, phase, i);
			}
		} else {
			for (int i = 0; i < 2; i++) {
				MPI_Send(iv + i, 1, MPI_INT, 1, 80 + 2 * phase + i, W);
				EXPECT("send peer=1 tag=%d bytes=4", 80 + 2 * phase + i);
			}
		}
		MPI_Barrier(W);
		EXPECT("barrier");
		if (me == 0)
			continue;
		char pv[2][16];
		snprintf(pv[0], sizeof pv[0], "$p%dr0", phase);
		snprintf(pv[1], sizeof pv[1], "$p%dr1", phase);
		if (phase == 0) {
			do {
				MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE);
				EXPECT("testall reqs=%s,%s%s", pv[0], pv[1], flag ? " done=2" : "");
			} while (!flag);
		} else if (phase == 1) {
			int pending[2] = {1, 1}, left = 2;
			while (left) {
				MPI_Testany(2, rq, &idx, &flag, MPI_STATUS_IGNORE);
				if (flag) {
					pending[idx] = 0;
					left--;
					if (pending[1 - idx])
						EXPECT("testany reqs=%s,%s done=1", pv[idx], pv[1 - idx]);
					else
						EXPECT("testany reqs=%s done=1", pv[idx]);
				} else if (pending[0] && pending[1]) {
					EXPECT("testany reqs=%s,%s", pv[0], pv[1]);
				} else {
					EXPECT("testany reqs=%s", pv[pending[0] ? 0 : 1]);
				}
			}
		} else {
			int pending[2] = {1, 1}, left = 2;
			while (left) {
				char line[128];
				size_t len;
				MPI_Testsome(2, rq, &outcount, indices, MPI_STATUSES_IGNORE);
				len = (size_t)snprintf(line, sizeof line, "testsome reqs=");
				for (int j = 0; j < outcount; j++) {
					len += (size_t)snprintf(line + len, sizeof line - len, "%s%s",
								j ? "," : "", pv[indices[j]]);
				}
				for (int i = 0; i < 2; i++) {
					int done_now = 0;
					for (int j = 0; j < outcount; j++)
						done_now |= indices[j] == i;
					if (pending[i] && !done_now)
						len += (size_t)snprintf(line + len, sizeof line - len, "%s%s",
									len > 14 ? "," : "", pv[i]);
				}
				if (outcount)
					snprintf(line + len, sizeof line - len, " done=%d", outcount);
				EXPECT("%s", line);
				for (int j = 0; j < outcount; j++)
					pending[indices[j]] = 0;
				left -= outcount;
			}
		}
		sum += jv[0][0] + jv[1][0];
	}

	mt_report("req", sum);
	return mt_finish();
}
