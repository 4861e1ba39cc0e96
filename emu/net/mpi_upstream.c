/* The MPI engine's lookahead_decide = upstream (mx_la_*; mpi.c's comment
 * says how it travels): at each exchange, this rank's switch winners split
 * into the decisions it takes, the keys its heads carry and the requests
 * for heads still in a crossbar; a request received makes its head's record
 * and parks it on the input VC until the head arrives; the decisions are
 * taken in the one process's order. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "net/mpi_internal.h"
#include "net/net_internal.h"
#include "topo/topo.h"

#ifdef NETLOOM_HAVE_MPI

#define MX_LA_REQ UINT32_MAX      /* fl_mblk.src of the block of decision requests */
#define MX_REQ_BYTES (12u + MX_PKT_BYTES) /* upstream port, push order, VC, the record */

/* A head still in its router's crossbar, decided by its downstream rank. */
struct mx_req {
	uint32_t rank; /* the downstream router's */
	uint32_t gout, order, vc;
	struct fl_pkt pk;
};

/* A record decided before its head arrived, waiting on its input VC. */
struct mx_park {
	uint32_t pkt, next;
};

void mx_la_add(struct flitnet *n, const struct mx_dec *d)
{
	struct fl_mx *mx = n->mx;
	if (MX_GROW(n, mx->dec, mx->cap_dec, mx->n_dec + 1))
		mx->dec[mx->n_dec++] = *d;
}

/* Before packing: split this rank's partitions' switch winners of the cycle
 * (their fl_la_pend lists) into the decisions this rank takes (its own
 * routers'), the keys the heads sent to other ranks carry, and the
 * requests for heads still in a crossbar. A channel carries one flit a
 * cycle, and a window is one cycle: at most one head per input VC in the
 * outboxes. A head still in the crossbar has a live record whose index no
 * head sent in the cycle had (that one was live too until it left). */
void mx_la_collect(struct flitnet *n)
{
	struct fl_mx *mx = n->mx;
	const uint32_t V = n->V, N = n->x_size;
	if (++mx->stamp == 0) { /* wrapped: forget every stamp */
		memset(mx->xs, 0, (size_t)n->topo->n_ports * V * sizeof *mx->xs);
		mx->stamp = 1;
	}
	const uint32_t stamp = mx->stamp;
	mx->n_lreq = 0;
	mx->n_dec = 0;
	for (uint32_t i = 0; i < n->n_own; i++) {
		const struct flitnet *s = n->part[n->own[i]];
		for (uint32_t d = 0; d < s->n_xdst; d++) {
			const uint32_t k = s->xdst[d];
			if (mx_owned(n, k))
				continue;
			const struct fl_xbox *x = &s->xbox[k];
			for (uint32_t j = 0; j < x->n; j++)
				if (x->ev[j].ev.kind == EV_FLIT_ROUTER && x->ev[j].ev.seq == 0) {
					struct mx_xs *xs = &mx->xs[(uint64_t)x->ev[j].ev.to * V + x->ev[j].ev.vc];
					xs->sent = stamp;
					xs->idx = j;
				}
		}
	}
	for (uint32_t i = 0; i < n->n_own; i++) {
		struct flitnet *s = n->part[n->own[i]];
		for (uint32_t j = 0; j < s->n_la_pend; j++) {
			const struct fl_la_pend *e = &s->la_pend[j];
			const uint32_t gin = n->ports[e->gout].link.to;
			const uint32_t k = n->r_part[n->topo->port_router[gin]];
			if (mx_owned(n, k)) {
				mx_la_add(n, &(struct mx_dec){.gout = e->gout, .order = e->order, .part = s->part_id,
							      .pkt = e->pkt, .vc = e->vc, .local = true});
				continue;
			}
			struct mx_xs *xs = &mx->xs[(uint64_t)gin * V + e->vc];
			if (xs->sent == stamp && s->xbox[k].ev[xs->idx].src_pkt == e->pkt) {
				xs->dec = stamp;
				xs->gout = e->gout;
				xs->order = e->order;
			} else if (MX_GROW(n, mx->lreq, mx->cap_lreq, mx->n_lreq + 1)) {
				mx->lreq[mx->n_lreq++] = (struct mx_req){.rank = k % N, .gout = e->gout, .order = e->order,
									 .vc = e->vc, .pk = s->pool.pkts[e->pkt]};
			}
		}
		s->n_la_pend = 0;
	}
}

/* The requests for rank q, as one block after the events. */
void mx_la_pack_req(struct flitnet *n, uint32_t q, size_t *used)
{
	struct fl_mx *mx = n->mx;
	uint32_t count = 0;
	for (uint32_t i = 0; i < mx->n_lreq; i++)
		count += mx->lreq[i].rank == q;
	if (!count)
		return;
	uint8_t *p = mx_room(n, &mx->sbuf, &mx->scap, *used, sizeof(struct fl_mblk) + (size_t)count * MX_REQ_BYTES);
	if (!p)
		return;
	const struct fl_mblk blk = {.src = MX_LA_REQ, .dst = 0, .count = count};
	memcpy(p, &blk, sizeof blk);
	p += sizeof blk;
	for (uint32_t i = 0; i < mx->n_lreq; i++) {
		const struct mx_req *r = &mx->lreq[i];
		if (r->rank != q)
			continue;
		const uint32_t w[3] = {r->gout, r->order, r->vc};
		memcpy(p, w, sizeof w);
		memcpy(p + sizeof w, &r->pk, MX_PKT_BYTES);
		p += MX_REQ_BYTES;
	}
	*used = (size_t)(p - mx->sbuf);
}

/* Record li waits on input VC iv for its head, behind those before it
 * (a channel and a crossbar keep their order). False when out of memory. */
static bool mx_la_park(struct flitnet *n, uint64_t iv, uint32_t li)
{
	struct fl_mx *mx = n->mx;
	uint32_t nd = mx->free_park;
	if (nd != FL_NONE) {
		mx->free_park = mx->park[nd].next;
	} else {
		if (!MX_GROW(n, mx->park, mx->cap_park, mx->n_park + 1))
			return false;
		nd = mx->n_park++;
	}
	mx->park[nd] = (struct mx_park){.pkt = li, .next = FL_NONE};
	if (mx->park_tail[iv] == FL_NONE)
		mx->park_head[iv] = nd;
	else
		mx->park[mx->park_tail[iv]].next = nd;
	mx->park_tail[iv] = nd;
	return true;
}

/* The record decided for the head arriving on iv, or FL_NONE. */
uint32_t mx_la_unpark(struct flitnet *n, uint64_t iv)
{
	struct fl_mx *mx = n->mx;
	const uint32_t nd = mx->park_head ? mx->park_head[iv] : FL_NONE;
	if (nd == FL_NONE)
		return FL_NONE;
	mx->park_head[iv] = mx->park[nd].next;
	if (mx->park_head[iv] == FL_NONE)
		mx->park_tail[iv] = FL_NONE;
	mx->park[nd].next = mx->free_park;
	mx->free_park = nd;
	return mx->park[nd].pkt;
}

/* A received block of requests: each head's record made now in the
 * partition of its next router, decided with the others (mx_la_decide),
 * and kept on its input VC until the head arrives (mx_unpack). Returns the
 * bytes it took. */
size_t mx_la_unpack_req(struct flitnet *n, const uint8_t *b)
{
	struct fl_mblk blk;
	memcpy(&blk, b, sizeof blk);
	if (blk.src != MX_LA_REQ)
		NL_BUG("MPI exchange: block from partition %u after the requests", blk.src);
	const uint8_t *q = b + sizeof blk;
	for (uint32_t i = 0; i < blk.count; i++, q += MX_REQ_BYTES) {
		uint32_t w[3];
		memcpy(w, q, sizeof w);
		const uint32_t gin = n->ports[w[0]].link.to;
		struct flitnet *p = fl_part_of_router(n, n->topo->port_router[gin]);
		NL_ASSERT(mx_owned(n, p->part_id));
		const uint32_t li = fl_pkt_alloc(p);
		if (li == FL_NONE || !mx_la_park(n, (uint64_t)gin * n->V + w[2], li)) {
			p->oom = n->oom = true;
			continue;
		}
		memcpy(&p->pool.pkts[li], q + sizeof w, MX_PKT_BYTES);
		p->pool.la_n[li] = 0;
		mx_la_add(n, &(struct mx_dec){.gout = w[0], .order = w[1], .part = p->part_id, .pkt = li,
					      .vc = (uint8_t)w[2], .local = false});
	}
	return (size_t)(q - b);
}

static int mx_dec_cmp(const void *a, const void *b)
{
	const struct mx_dec *x = a, *y = b;
	if (x->gout != y->gout)
		return x->gout < y->gout ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* This rank's decisions in the one process's order (fl_la_flush): a
 * router's heads are decided in that order, and decisions at different
 * routers read and draw nothing of each other's. */
void mx_la_decide(struct flitnet *n)
{
	struct fl_mx *mx = n->mx;
	if (mx->n_dec) /* dec is NULL until a window has decided something: qsort's argument must not be */
		qsort(mx->dec, mx->n_dec, sizeof *mx->dec, mx_dec_cmp);
	for (uint32_t i = 0; i < mx->n_dec; i++) {
		const struct mx_dec *d = &mx->dec[i];
		struct flitnet *p = n->part[d->part];
		if (d->local) {
			const struct fl_la_pend e = {.gout = d->gout, .pkt = d->pkt, .order = d->order, .vc = d->vc};
			fl_la_decide_pend(n, p, &e);
		} else if (!p->oom) {
			const uint32_t gin = n->ports[d->gout].link.to;
			fl_la_decide_end(p, n->topo->port_router[gin], d->vc, gin, d->pkt);
		}
	}
	mx->n_dec = 0;
}

#endif
