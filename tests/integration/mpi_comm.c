/* Recorder test, 4 ranks: communicator constructors and MPI_Comm_free.
 * Ids are derived on each rank without messages (record_comm.c); the
 * checker binds $names on first use and requires every rank to agree and
 * distinct communicators to differ. Members are checked against the
 * manifest with "@comm $name world-ranks-in-comm-rank-order".
 */
#include <stdio.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD
#define NULL_ID "4294967295"

int main(int argc, char **argv)
{
	MPI_Comm half, halfdup, wdup, c3, s2, cart, row, selfdup;
	MPI_Group wg, g3;
	long sum = 0, v, r;

	mt_init(&argc, &argv);
	MT_REQUIRE(mt_size == 4);
	int me = mt_rank;
	const char *hname = me % 2 ? "$odd" : "$even";

	/* Split by parity, reversed order (key -rank). */
	MPI_Comm_split(W, me % 2, -me, &half);
	EXPECT("comm_split color=%d key=%d new=%s", me % 2, -me, hname);
	v = me;
	MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_SUM, half);
	EXPECT("allreduce comm=%s bytes=8", hname);
	sum += r;

	MPI_Comm_dup(half, &halfdup);
	EXPECT("comm_dup comm=%s new=%sdup", hname, hname);
	MPI_Barrier(halfdup);
	EXPECT("barrier comm=%sdup", hname);

	/* A dup of world: the same id on every rank. */
	MPI_Comm_dup(W, &wdup);
	EXPECT("comm_dup new=$wdup");
	/* p2p on it: peers are ranks in the communicator. */
	if (me == 0) {
		MPI_Send(&v, 1, MPI_LONG, 3, 5, wdup);
		EXPECT("send comm=$wdup peer=3 tag=5 bytes=8");
	} else if (me == 3) {
		MPI_Recv(&r, 1, MPI_LONG, 0, 5, wdup, MPI_STATUS_IGNORE);
		EXPECT("recv comm=$wdup tag=5 bytes=8");
	}

	/* Comm_idup: a nonblocking comm_dup completing with its request. */
	{
		MPI_Comm idup;
		MPI_Request rq;
		MPI_Comm_idup(W, &idup, &rq);
		EXPECT("comm_dup flags=nb req=0 new=$idup");
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		EXPECT("wait done=1");
		MPI_Comm_free(&idup);
		EXPECT("comm_free comm=$idup");
	}

	/* Comm_create from the group {3, 1, 0}: rank 2 gets MPI_COMM_NULL. */
	MPI_Comm_group(W, &wg);
	MPI_Group_incl(wg, 3, (int[]){3, 1, 0}, &g3);
	MPI_Comm_create(W, g3, &c3);
	EXPECT(me == 2 ? "comm_create new=" NULL_ID : "comm_create new=$c3");
	if (c3 != MPI_COMM_NULL) {
		/* c3 rank 0 is world 3, rank 2 is world 0. */
		int cr;
		MPI_Comm_rank(c3, &cr);
		if (cr == 0) {
			MPI_Send(&v, 1, MPI_LONG, 2, 6, c3);
			EXPECT("send comm=$c3 peer=2 tag=6 bytes=8");
		} else if (cr == 2) {
			MPI_Recv(&r, 1, MPI_LONG, 0, 6, c3, MPI_STATUS_IGNORE);
			EXPECT("recv comm=$c3 tag=6 bytes=8");
			sum += r;
		}
		MPI_Comm_free(&c3);
		EXPECT("comm_free comm=$c3");
	}
	MPI_Group_free(&g3);
	MPI_Group_free(&wg);

	/* Split with MPI_UNDEFINED on rank 1. */
	MPI_Comm_split(W, me == 1 ? MPI_UNDEFINED : 0, 0, &s2);
	EXPECT(me == 1 ? "comm_split color=-1 new=" NULL_ID : "comm_split new=$s2");
	if (s2 != MPI_COMM_NULL) {
		MPI_Bcast(&v, 1, MPI_LONG, 1, s2);
		EXPECT("bcast comm=$s2 peer=1 bytes=8");
		sum += v;
		MPI_Comm_free(&s2);
		EXPECT("comm_free comm=$s2");
	}

	/* Cartesian 2 x 2, then its rows: recorded as splits that yield the
	 * same members (color = lowest world rank, key = new rank). */
	MPI_Cart_create(W, 2, (int[]){2, 2}, (int[]){0, 0}, 0, &cart);
	EXPECT("comm_split key=%d new=$cart", me);
	MPI_Cart_sub(cart, (int[]){0, 1}, &row);
	EXPECT("comm_split comm=$cart color=%d key=%d new=$row%d", me / 2 * 2, me % 2, me / 2);
	MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_MAX, row);
	EXPECT("allreduce comm=$row%d bytes=8", me / 2);
	sum += r;

	/* Communicators made from MPI_COMM_SELF differ per rank. */
	MPI_Comm_dup(MPI_COMM_SELF, &selfdup);
	EXPECT("comm_dup comm=1 new=$self%d", me);
	MPI_Barrier(selfdup);
	EXPECT("barrier comm=$self%d", me);

	MPI_Comm_free(&selfdup);
	EXPECT("comm_free comm=$self%d", me);
	MPI_Comm_free(&row);
	EXPECT("comm_free comm=$row%d", me / 2);
	MPI_Comm_free(&cart);
	EXPECT("comm_free comm=$cart");
	MPI_Comm_free(&halfdup);
	EXPECT("comm_free comm=%sdup", hname);
	MPI_Comm_free(&half);
	EXPECT("comm_free comm=%s", hname);
	/* A second dup of world after frees: a new id, not a reused one. */
	MPI_Comm_free(&wdup);
	EXPECT("comm_free comm=$wdup");
	MPI_Comm_dup(W, &wdup);
	EXPECT("comm_dup new=$wdup2");
	MPI_Comm_free(&wdup);
	EXPECT("comm_free comm=$wdup2");

	if (me == 0) {
		EXPECT("@comm $even 2,0");
		EXPECT("@comm $odd 3,1");
		EXPECT("@comm $evendup 2,0");
		EXPECT("@comm $odddup 3,1");
		EXPECT("@comm $wdup 0,1,2,3");
		EXPECT("@comm $wdup2 0,1,2,3");
		EXPECT("@comm $c3 3,1,0");
		EXPECT("@comm $s2 0,2,3");
		EXPECT("@comm $cart 0,1,2,3");
		EXPECT("@comm $row0 0,1");
		EXPECT("@comm $row1 2,3");
		for (int i = 0; i < 4; i++)
			EXPECT("@comm $self%d %d", i, i);
	}
	mt_report("comm", sum);
	return mt_finish();
}
