/* The MPI engine's exchange at each window's end (mpi.h, fl_mpi_exchange):
 * the events and heads that crossed to other ranks' partitions, the
 * window's head, and a replay's completed messages. Set-up, the plan and
 * the steps' reductions are mpi.c.
 *
 * Wire format of one window, rank A to a neighbouring rank B: blocks in
 * (source partition, target partition) order, each a struct fl_mblk and
 * its events, 16 bytes each (the cycle less now, then the event), a head
 * followed by its 28-byte packet record. A window's end costs one
 * allreduce of MH_WORDS words (its size does not grow with the ranks)
 * and, when some rank sends anything, one message to each neighbour
 * (point to point; its size read with MPI_Probe); a trace replay's, when
 * some rank completed messages, their all-gather (mx_gather_done). With
 * two ranks, one MPI_Sendrecv instead, the head and the completed
 * messages in front of the blocks (fl_mpi_plan, mx_pair_swap). A
 * rank's neighbours and the lookahead are computed from the partitions
 * at build time (fl_mpi_plan).
 *
 * lookahead_decide = upstream (mx_la_*): a switch winner's route at the
 * next router is decided by the rank running that router, at the exchange
 * after the cycle it won (windows of one cycle), with the heads of its own
 * partitions, in the one process's order (upstream output port, then push
 * order), so each router's state and random draws are the one process's.
 * A head that crossed in the cycle carries its key (8 more bytes after its
 * record) and is decided on the record its receiver made; a head still in
 * its router's crossbar is sent ahead as a request (a block of source
 * MX_LA_REQ after the events: key, VC and a copy of its record), decided on
 * a record the receiver keeps for it by input VC until the head arrives
 * (mpi_upstream.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "net/mpi.h"
#include "net/mpi_internal.h"
#include "net/net_internal.h"

#ifdef NETLOOM_HAVE_MPI

#define MX_EV_BYTES 16u  /* u32 cycle - now, struct fl_event */

#define MX_TAG 16 /* point-to-point payloads (issue 16) */
#define MX_LA_BYTES 8u            /* a head's decision key: upstream port, push order (MX_LA_NONE: none) */
#define MX_LA_NONE UINT32_MAX
#define MX_PAIR_PREFIX (8u + MH_WORDS * 8u) /* two ranks: a message's own word, then the head (mx_pair_swap) */

/* An outbox of this rank's partitions holding events at a window's end. */
struct mx_box {
	uint32_t rank;     /* its target's: target % ranks */
	uint32_t src, dst; /* source and target partitions */
};

/* Room for `more` bytes at the end of a growable buffer. */
uint8_t *mx_room(struct flitnet *n, uint8_t **buf, size_t *cap, size_t used, size_t more)
{
	if (used + more > *cap) {
		size_t c = *cap ? *cap : 4096;
		while (c < used + more)
			c *= 2;
		uint8_t *b = fl_grow(n, *buf, c);
		if (!b)
			return NULL; /* n->oom ends the run */
		*buf = b;
		*cap = c;
	}
	return *buf + used;
}

bool mx_grow_to(struct flitnet *n, void *arrp, uint32_t *cap, uint32_t need, size_t size)
{
	void **arr = arrp;
	uint32_t c = *cap ? *cap : 256;
	while (c < need)
		c *= 2;
	void *a = fl_grow(n, *arr, (size_t)c * size);
	if (!a)
		return false;
	*arr = a;
	*cap = c;
	return true;
}

/* Append outbox x (partition src to dst) to the send buffer at *used. */
static void mx_pack(struct flitnet *n, struct fl_xbox *x, uint32_t src, uint32_t dst, size_t *used)
{
	struct fl_mx *mx = n->mx;
	struct net_mpi *m = mx->m;
	size_t need = sizeof(struct fl_mblk) + (size_t)x->n * (MX_EV_BYTES + MX_PKT_BYTES + 4 + MX_LA_BYTES);
	uint8_t *p = mx_room(n, &mx->sbuf, &mx->scap, *used, need);
	if (!p) {
		x->n = 0;
		return;
	}
	const struct fl_mblk blk = {.src = src, .dst = dst, .count = x->n};
	memcpy(p, &blk, sizeof blk);
	p += sizeof blk;
	for (uint32_t i = 0; i < x->n; i++) {
		const struct fl_xevent *xe = &x->ev[i];
		const uint32_t dc = (uint32_t)(xe->cycle - n->now);
		memcpy(p, &dc, 4);
		memcpy(p + 4, &xe->ev, sizeof xe->ev);
		p += MX_EV_BYTES;
		if (xe->ev.kind == EV_FLIT_ROUTER && xe->ev.seq == 0) {
			/* A decision made on the sender's record is for a
			 * router of this rank (mx_la_collect). */
			NL_ASSERT(xe->la_n == 0);
			memcpy(p, &xe->pk, MX_PKT_BYTES);
			p += MX_PKT_BYTES;
			if (n->msg_driven) { /* its message's record, the same index on every rank */
				memcpy(p, &xe->msg, 4);
				p += 4;
			}
			if (mx->xs) { /* its decision key, if the receiver decides it now */
				const struct mx_xs *xs = &mx->xs[(uint64_t)xe->ev.to * n->V + xe->ev.vc];
				const bool key = xs->dec == mx->stamp && xs->sent == mx->stamp && xs->idx == i;
				const uint32_t w[2] = {key ? xs->gout : 0, key ? xs->order : MX_LA_NONE};
				memcpy(p, w, MX_LA_BYTES);
				p += MX_LA_BYTES;
			}
			m->st.heads++;
		}
	}
	m->st.events += x->n;
	*used = (size_t)(p - mx->sbuf);
	x->n = 0;
}

/* Merge one received block into its target partition; returns the bytes
 * it took. */
static size_t mx_unpack(struct flitnet *n, const uint8_t *p)
{
	struct fl_mblk blk;
	memcpy(&blk, p, sizeof blk);
	const uint8_t *q = p + sizeof blk;
	struct flitnet *t = n->part[blk.dst];
	for (uint32_t i = 0; i < blk.count; i++) {
		struct fl_xevent xe;
		uint32_t dc;
		memcpy(&dc, q, 4);
		memcpy(&xe.ev, q + 4, sizeof xe.ev);
		q += MX_EV_BYTES;
		xe.cycle = n->now + dc;
		xe.msg = 0;
		xe.la_n = 0;
		xe.src_pkt = FL_NONE;
		uint32_t key[2] = {0, MX_LA_NONE};
		if (xe.ev.kind == EV_FLIT_ROUTER && xe.ev.seq == 0) {
			memcpy(&xe.pk, q, MX_PKT_BYTES);
			q += MX_PKT_BYTES;
			if (n->msg_driven) {
				memcpy(&xe.msg, q, 4);
				q += 4;
			}
			if (n->mx->xs) {
				memcpy(key, q, MX_LA_BYTES);
				q += MX_LA_BYTES;
				/* Its record made and decided when it won the
				 * switch (mx_la_unpack_req). */
				const uint64_t iv = (uint64_t)xe.ev.to * n->V + xe.ev.vc;
				const uint32_t li = mx_la_unpark(n, iv);
				if (li != FL_NONE) {
					NL_ASSERT(key[1] == MX_LA_NONE && t->pool.pkts[li].ctime == xe.pk.ctime);
					if (n->msg_driven)
						fl_pkt_set_msg(t, li, xe.msg);
					n->xpkt[iv] = li;
					xe.ev.pkt = li;
					fl_schedule_merged(t, xe.cycle, &xe.ev);
					continue;
				}
			}
		}
		fl_xmerge_event(n, t, &xe, NULL);
		if (key[1] != MX_LA_NONE) /* a head that crossed in the cycle: decided on its new record */
			mx_la_add(n, &(struct mx_dec){.gout = key[0], .order = key[1], .part = blk.dst,
						      .pkt = n->xpkt[(uint64_t)xe.ev.to * n->V + xe.ev.vc],
						      .vc = xe.ev.vc, .local = false});
	}
	return (size_t)(q - p);
}

/* Earliest cycle with work among the events of outbox x. */
static uint64_t mx_box_next(const struct fl_xbox *x, uint64_t next)
{
	for (uint32_t i = 0; i < x->n; i++)
		if (x->ev[i].cycle < next)
			next = x->ev[i].cycle;
	return next;
}

static int mx_box_cmp(const void *a, const void *b)
{
	const struct mx_box *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* The outboxes of this rank's partitions that hold events, taken from
 * their sources' lists (fl_xsend lists a box with events; part.c's merges
 * inside a window leave those for other ranks listed) into mx->box in the
 * order the exchange packs and merges them: by target rank, source, then
 * target, as a visit of every (source, target) pair would take them.
 * Every list is emptied, since the exchange empties every box. That
 * visit cost partitions squared over ranks per window: 64x64 torus,
 * 3 x 300 cycles, 2 ranks, 2,048 partitions took 100-107 s of user CPU
 * (19-20 s now; docs/scaling.md, "Partition count"). Out of
 * memory: no box and the lists kept (n->oom ends the run at this
 * exchange, on every rank). */
static void mx_boxes(struct flitnet *n)
{
	struct fl_mx *mx = n->mx;
	uint32_t listed = 0;
	mx->n_box = 0;
	for (uint32_t i = 0; i < n->n_own; i++)
		listed += n->part[n->own[i]]->n_xdst;
	if (!MX_GROW(n, mx->box, mx->cap_box, listed))
		return;
	for (uint32_t i = 0; i < n->n_own; i++) {
		struct flitnet *s = n->part[n->own[i]];
		for (uint32_t j = 0; j < s->n_xdst; j++) {
			const uint32_t t = s->xdst[j];
			s->xbox[t].listed = false;
			if (s->xbox[t].n)
				mx->box[mx->n_box++] = (struct mx_box){.rank = t % n->x_size, .src = s->part_id, .dst = t};
		}
		s->n_xdst = 0;
	}
	if (mx->n_box) /* box is NULL until a window has sent something: qsort's argument must not be */
		qsort(mx->box, mx->n_box, sizeof *mx->box, mx_box_cmp);
}

/* Room for `total` completed messages in n->msg.done; false when out of
 * memory, the list emptied (n->oom ends the run at the next exchange). */
static bool mx_done_room(struct flitnet *n, size_t total)
{
	struct fl_msgdrv *md = &n->msg;
	if (total <= md->cap_done)
		return true;
	uint64_t *d = fl_grow(n, md->done, total * sizeof *d);
	if (!d) {
		md->n_done = 0;
		return false;
	}
	md->done = d;
	md->cap_done = (uint32_t)total;
	return true;
}

/* The messages completed this cycle on every rank, on every rank: each
 * rank's list (its partitions', router << 32 | record index) gathered in
 * rank order into the root's list, which fl_part_exchange then delivers
 * sorted by router. A router's completions all come from its owner, in
 * the owner's order, so the sorted list is the one process's, and every
 * rank's application sees the same deliveries at the same cycle. The
 * record indices agree because every rank allocates every message's
 * record (backend_flit.c, flit_send) and frees it on delivery.
 *
 * `all`, the ranks' completions summed by the window's allreduce
 * (MH_DONE), is 0 in nearly every window (lammps-lj-2 on 2 ranks: a few
 * thousand deliveries in 4.8 million windows): then nothing is gathered,
 * on every rank alike, and the window's allreduce stays its one
 * collective (the counts were all-gathered at every exchange before). */
static void mx_gather_done(struct flitnet *n, uint64_t all)
{
	struct fl_mx *mx = n->mx;
	struct net_mpi *m = mx->m;
	struct fl_msgdrv *md = &n->msg;
	const uint32_t N = m->size;
	if (!all)
		return;
	int mine = (int)md->n_done;
	m->st.colls++;
	MPI_Allgather(&mine, 1, MPI_INT, mx->rcount, 1, MPI_INT, m->comm);
	uint64_t total = 0;
	for (uint32_t q = 0; q < N; q++) {
		mx->rdispl[q] = (int)total;
		total += (uint64_t)mx->rcount[q];
	}
	NL_ASSERT(total == all);
	if (total > (uint64_t)INT32_MAX)
		return;
	uint8_t *r = mx_room(n, &mx->rbuf, &mx->rcap, 0, total * sizeof *md->done);
	if (!r) { /* the peers send regardless: no clean end */
		fprintf(stderr, "netloom %s: rank %u: out of memory for %" PRIu64 " completed messages\n", m->who, m->rank,
			total);
		MPI_Abort(m->comm, 1);
	}
	m->st.colls++;
	MPI_Allgatherv(md->done, mine, MPI_UINT64_T, r, mx->rcount, mx->rdispl, MPI_UINT64_T, m->comm);
	if (!mx_done_room(n, total))
		return;
	memcpy(md->done, r, total * sizeof *md->done);
	md->n_done = (uint32_t)total;
}

/* mx_gather_done for two ranks whose window heads ride the messages: the
 * peer's `theirs` completed messages came after its head (rbuf at `at`),
 * and the ranks' lists go together in rank order, as the all-gather puts
 * them. */
static void mx_merge_done(struct flitnet *n, size_t theirs, size_t at, uint64_t all)
{
	struct fl_msgdrv *md = &n->msg;
	const size_t mine = md->n_done, total = mine + theirs;
	if (total != all)
		NL_BUG("MPI exchange: %zu completed messages here and %zu from rank %u, the heads said %" PRIu64, mine,
		       theirs, n->mx->nbr[0], all);
	if (!theirs)
		return;
	if (!mx_done_room(n, total))
		return;
	const size_t w = sizeof *md->done;
	if (n->mx->m->rank == 0) {
		memcpy(md->done + mine, n->mx->rbuf + at, theirs * w);
	} else {
		memmove(md->done + theirs, md->done, mine * w);
		memcpy(md->done, n->mx->rbuf + at, theirs * w);
	}
	md->n_done = (uint32_t)total;
}

/* Two ranks (head_on_msgs): the window's exchange is one MPI_Sendrecv
 * each way into a receive buffer of MX_PAIR_ONE bytes, posted before the
 * peer's message is known, so nothing is probed. A message is its
 * prefix (a word: the bytes that follow in a second message, 0 when
 * none; the head; this rank's completed messages, as many as the head's
 * MH_DONE says) and its blocks; one longer than MX_PAIR_ONE goes as its
 * word and head, then the rest in a second message. Out of memory the
 * head goes alone (its MH_OOM ends the run on both ranks). `prefix`: the
 * bytes of this rank's prefix, packed at sbuf + sdispl[peer]. Folds the
 * peer's head into g (holding this rank's) and leaves its blocks at
 * rbuf + rdispl[peer], its completed messages at rbuf + *done_at. */
#define MX_PAIR_ONE 4096u /* Open MPI's shared-memory eager limit: a longer message has a round trip more anyway */

static void mx_pair_swap(struct flitnet *n, const uint64_t head[MH_WORDS], uint64_t g[MH_WORDS], size_t prefix,
			 size_t *their_done, size_t *done_at)
{
	struct fl_mx *mx = n->mx;
	struct net_mpi *m = mx->m;
	const uint32_t q = mx->nbr[0];
	memcpy(g, head, MH_WORDS * sizeof *g);
	uint64_t alone[1 + MH_WORDS] = {0};
	uint8_t *out = (uint8_t *)alone;
	size_t len = sizeof alone;
	uint64_t rest = 0;
	if (!n->oom) {
		out = mx->sbuf + mx->sdispl[q];
		len = (size_t)mx->scount[q];
		if (len > MX_PAIR_ONE) {
			rest = len - MX_PAIR_PREFIX;
			len = MX_PAIR_PREFIX;
		}
		memcpy(out, &rest, sizeof rest);
		memcpy(out + sizeof rest, head, MH_WORDS * sizeof *head);
	} else {
		memcpy(alone + 1, head, MH_WORDS * sizeof *head);
	}
	m->st.msgs++;
	m->st.bytes += n->oom ? 0 : (uint64_t)mx->scount[q] - prefix;
	m->st.vcalls++;
	/* Out of memory here cannot end the run cleanly (the peer goes
	 * on): a receive of nothing makes MPI report the truncation and
	 * abort. */
	const int cap = mx_room(n, &mx->rbuf, &mx->rcap, 0, MX_PAIR_ONE) ? (int)MX_PAIR_ONE : 0;
	MPI_Status st;
	int count = 0;
	MPI_Sendrecv(out, (int)len, MPI_BYTE, (int)q, MX_TAG, cap ? mx->rbuf : NULL, cap, MPI_BYTE, (int)q, MX_TAG,
		     m->comm, &st);
	MPI_Get_count(&st, MPI_BYTE, &count);
	uint64_t theirs[1 + MH_WORDS];
	if (count < (int)sizeof theirs)
		NL_BUG("MPI exchange: %d bytes from rank %u, shorter than a window's head", count, q);
	memcpy(theirs, mx->rbuf, sizeof theirs);
	int one = 1;
	mx_fold(theirs + 1, g, &one, NULL);
	size_t skip = sizeof theirs;
	*their_done = 0;
	if (!theirs[1 + MH_OOM] && theirs[1 + MH_DONE]) {
		*their_done = theirs[1 + MH_DONE];
		*done_at = skip;
		skip += *their_done * sizeof *n->msg.done;
	}
	/* The blocks that did not fit: the other way too, before waiting. */
	if (rest || theirs[0]) {
		MPI_Request req;
		if (rest)
			MPI_Isend(out + MX_PAIR_PREFIX, (int)rest, MPI_BYTE, (int)q, MX_TAG, m->comm, &req);
		if (theirs[0]) {
			const int room = mx_room(n, &mx->rbuf, &mx->rcap, (size_t)count, theirs[0]) ? (int)theirs[0] : 0;
			MPI_Recv(room ? mx->rbuf + count : NULL, room, MPI_BYTE, (int)q, MX_TAG, m->comm, MPI_STATUS_IGNORE);
			count += (int)theirs[0];
		}
		MPI_Waitall(rest ? 1 : 0, &req, MPI_STATUSES_IGNORE);
	}
	if (skip > (size_t)count)
		NL_BUG("MPI exchange: %d bytes from rank %u, shorter than its %zu completed messages", count, q,
		       *their_done);
	mx->rdispl[q] = (int)skip;
	mx->rcount[q] = count - (int)skip;
}

void fl_mpi_exchange(struct flitnet *n)
{
	struct fl_mx *mx = n->mx;
	struct net_mpi *m = mx->m;
	const uint32_t N = m->size, me = m->rank, P = n->n_parts;
	uint64_t *c[MH_N_COUNTERS] = {0};
	mx_counters(n, c);

	/* This rank's partitions' increments folded into the root first (its
	 * own, on rank 0, are in the root already). */
	uint64_t events = 0, next = UINT64_MAX;
	for (uint32_t i = 0; i < n->n_own; i++) {
		struct flitnet *s = n->part[n->own[i]];
		events += s->n_events;
		uint64_t w = fl_part_next_work(s);
		if (w < next)
			next = w;
		for (uint32_t j = 0; j < s->n_xdst; j++) {
			events += s->xbox[s->xdst[j]].n;
			next = mx_box_next(&s->xbox[s->xdst[j]], next);
		}
		if (s == n)
			continue;
		fl_part_fold_counters(n, s);
		if (n->msg_driven)
			fl_part_gather_done(n, s);
	}

	const uint64_t clast = mx_last_event(n); /* before packing empties the outboxes */
	if (mx->xs)
		mx_la_collect(n);
	mx_boxes(n);

	/* Pack, peer by peer: for each of this rank's source partitions in
	 * order, its outboxes towards that peer's partitions in order;
	 * behind room for the head when it rides the message. */
	uint64_t head[MH_WORDS], g[MH_WORDS];
	const size_t head_room = mx->head_on_msgs ? MX_PAIR_PREFIX : 0;
	size_t their_done = 0, done_at = 0; /* the peer's completed messages, in rbuf */
	size_t used = 0, heads = 0;
	uint32_t b = 0;
	for (uint32_t q = 0; q < N; q++) {
		size_t start = used;
		if (head_room && q != me) {
			/* Then this rank's completed messages (a trace replay's),
			 * as many as the head's MH_DONE says: mx_merge_done. */
			const size_t more = head_room + (n->msg_driven ? (size_t)n->msg.n_done * sizeof *n->msg.done : 0);
			uint8_t *p = mx_room(n, &mx->sbuf, &mx->scap, used, more);
			if (p) {
				if (more > head_room)
					memcpy(p + head_room, n->msg.done, more - head_room);
				used += more, heads += more;
			} else {
				n->oom = true; /* the head alone goes (below) */
			}
		}
		for (; b < mx->n_box && mx->box[b].rank == q; b++)
			if (q != me)
				mx_pack(n, &n->part[mx->box[b].src]->xbox[mx->box[b].dst], mx->box[b].src, mx->box[b].dst,
					&used);
		if (q != me && mx->n_lreq)
			mx_la_pack_req(n, q, &used);
		mx->sdispl[q] = (int)start;
		mx->scount[q] = (int)(used - start);
		if (used > (size_t)INT32_MAX)
			n->oom = true; /* MPI counts are ints */
	}
	/* Links join only neighbours: nothing may be packed for another rank. */
	size_t to_nbrs = 0;
	for (uint32_t k = 0; k < mx->n_nbr; k++)
		to_nbrs += (size_t)mx->scount[mx->nbr[k]];
	if (to_nbrs != used)
		NL_BUG("MPI exchange: %zu of %zu bytes for ranks sharing no link with rank %u", used - to_nbrs, used, me);
	for (int i = 0; i < MH_N_COUNTERS; i++)
		head[i] = (i == MH_UNDRAINED ? n->obs.n_undrained : *c[i]) - mx->base[i];
	head[MH_EVENTS] = events;
	head[MH_TOTAL] = used - heads;
	head[MH_DONE] = n->msg_driven ? n->msg.n_done : 0;
	head[MH_LAST_MOVE] = n->last_move;
	head[MH_OOM] = n->oom;
	head[MH_NOT_NEXT] = UINT64_MAX - next;
	head[MH_CLAST] = clast;
	head[MH_BUSY] = n->x_busy;
	m->st.cycles++;
	m->st.wcycles += n->now - n->x_wstart;
	m->st.hdr_bytes += sizeof head;
	for (uint32_t q = 0; q < N; q++)
		mx->rcount[q] = 0;
	if (head_room) {
		mx_pair_swap(n, head, g, heads, &their_done, &done_at);
	} else {
		m->st.colls++;
		MPI_Allreduce(head, g, 1, mx->words, mx->fold, m->comm);
	}

	/* The payloads, when some rank sends any: a message to each rank
	 * sharing a link with this one (empty or not: the receiver cannot
	 * know), its size read from the message itself. */
	if (!head_room && g[MH_TOTAL]) {
		for (uint32_t k = 0; k < mx->n_nbr; k++) {
			const uint32_t q = mx->nbr[k];
			MPI_Isend(mx->sbuf ? mx->sbuf + mx->sdispl[q] : NULL, mx->scount[q], MPI_BYTE, (int)q, MX_TAG,
				  m->comm, &mx->req[k]);
			m->st.msgs++;
			m->st.bytes += (uint64_t)mx->scount[q];
		}
		size_t rtotal = 0;
		for (uint32_t k = 0; k < mx->n_nbr; k++) {
			const uint32_t q = mx->nbr[k];
			MPI_Status st;
			int count = 0;
			MPI_Probe((int)q, MX_TAG, m->comm, &st);
			MPI_Get_count(&st, MPI_BYTE, &count);
			/* Out of memory here cannot end the run cleanly (the
			 * peers go on): a receive of nothing makes MPI report
			 * the truncation and abort. */
			int room = count;
			if (count && !mx_room(n, &mx->rbuf, &mx->rcap, rtotal, (size_t)count))
				room = 0;
			MPI_Recv(room ? mx->rbuf + rtotal : NULL, room, MPI_BYTE, (int)q, MX_TAG, m->comm, MPI_STATUS_IGNORE);
			mx->rdispl[q] = (int)rtotal;
			mx->rcount[q] = count;
			rtotal += (size_t)count;
		}
		MPI_Waitall((int)mx->n_nbr, mx->req, MPI_STATUSES_IGNORE);
		m->st.vcalls++;
	}

	/* Merge every target in source-partition order, as one process does
	 * (part.c, fl_part_exchange): a local source's outbox, or the next
	 * blocks of its rank's message. */
	for (uint32_t q = 0; q < N; q++)
		mx->cursor[q] = 0;
	b = 0;
	while (b < mx->n_box && mx->box[b].rank < me)
		b++;
	for (uint32_t s = 0; s < P; s++) {
		if (mx_owned(n, s)) {
			for (; b < mx->n_box && mx->box[b].rank == me && mx->box[b].src == s; b++)
				fl_xmerge(n, n->part[s], n->part[mx->box[b].dst]);
			continue;
		}
		const uint32_t q = s % N;
		while (mx->cursor[q] < (uint32_t)mx->rcount[q]) {
			const uint8_t *b = mx->rbuf + mx->rdispl[q];
			struct fl_mblk blk;
			memcpy(&blk, b + mx->cursor[q], sizeof blk);
			if (blk.src != s)
				break;
			mx->cursor[q] += (uint32_t)mx_unpack(n, b + mx->cursor[q]);
		}
	}
	if (mx->xs) {
		for (uint32_t k = 0; k < mx->n_nbr; k++) {
			const uint32_t q = mx->nbr[k];
			if (mx->cursor[q] < (uint32_t)mx->rcount[q])
				mx->cursor[q] += (uint32_t)mx_la_unpack_req(n, mx->rbuf + mx->rdispl[q] + mx->cursor[q]);
		}
		mx_la_decide(n);
	}

	for (int i = 0; i < MH_N_COUNTERS; i++) {
		uint64_t v = mx->base[i] + g[i];
		if (i == MH_UNDRAINED)
			n->obs.n_undrained = (uint32_t)v;
		else
			*c[i] = v;
	}
	mx_base(n);
	n->last_move = g[MH_LAST_MOVE];
	n->oom = g[MH_OOM] != 0;
	n->x_events = g[MH_EVENTS];
	n->x_next = UINT64_MAX - g[MH_NOT_NEXT];
	n->x_clast = g[MH_CLAST];
	n->x_gbusy = g[MH_BUSY] != 0;
	if (n->msg_driven && head_room && !n->oom)
		mx_merge_done(n, their_done, done_at, g[MH_DONE]);
	else if (n->msg_driven && !head_room)
		mx_gather_done(n, g[MH_DONE]);
}


#endif
