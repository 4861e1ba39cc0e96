/* VC buffers of the flit model (emu/net only): an input VC's buffer is a
 * list of runs, each run consecutive flits of one packet, from the
 * partition's run pool (router.c; inline so the hot path stays one
 * function). */
#ifndef NETLOOM_NET_VCBUF_H
#define NETLOOM_NET_VCBUF_H

#include "core/error.h"
#include "net/net_internal.h"

/* --- VC buffers: runs of flits of one packet ---------------------------------- */

static inline void fl_buf_push(struct flitnet *n, uint64_t iv, uint32_t pkt, uint16_t seq)
{
	uint32_t tl = n->ivc[iv].tail;
	if (tl != FL_NONE && n->pool.runs[tl].pkt == pkt) {
		NL_ASSERT(n->pool.runs[tl].seq + n->pool.runs[tl].n == seq);
		n->pool.runs[tl].n++;
	} else {
		uint32_t ru = fl_run_alloc(n);
		n->pool.runs[ru].pkt = pkt;
		n->pool.runs[ru].seq = seq;
		n->pool.runs[ru].n = 1;
		n->pool.runs[ru].next = FL_NONE;
		/* A head's size is filled in by route computation
		 * (fl_route_apply), which reads the packet anyway and comes
		 * before anything reads the size: an arriving head does not
		 * touch its packet record (a cache miss per hop). */
		n->pool.runs[ru].size = seq == 0 ? 0 : n->pool.pkts[pkt].size;
		if (seq == 0)
			__builtin_prefetch(&n->pool.pkts[pkt].rt, 1); /* the fields routing reads */
		if (tl == FL_NONE)
			n->ivc[iv].head = ru;
		else
			n->pool.runs[tl].next = ru;
		n->ivc[iv].tail = ru;
	}
	n->ivc[iv].count++;
}

/* Front flit of a VC buffer: packet, index, and the packet's size. */
static inline void fl_buf_front(const struct flitnet *n, uint64_t iv, uint32_t *pkt, uint16_t *seq)
{
	const struct fl_run *ru = &n->pool.runs[n->ivc[iv].head];
	*pkt = ru->pkt;
	*seq = ru->seq;
}

static inline uint16_t fl_buf_front_size(const struct flitnet *n, uint64_t iv)
{
	return n->pool.runs[n->ivc[iv].head].size;
}

static inline void fl_buf_pop(struct flitnet *n, uint64_t iv)
{
	uint32_t h = n->ivc[iv].head;
	struct fl_run *ru = &n->pool.runs[h];
	ru->seq++;
	if (--ru->n == 0) {
		n->ivc[iv].head = ru->next;
		if (ru->next == FL_NONE)
			n->ivc[iv].tail = FL_NONE;
		fl_run_free(n, h);
	}
	n->ivc[iv].count--;
}

#endif
