/* Virtual output queues at the router inputs (the model is in voq.h).
 * A rotation relinks the input VC's list of runs (one run per packet: a
 * packet's flits reach a VC contiguously): the front run goes behind the
 * last complete packet, ahead of a packet still arriving, whose flits must
 * keep joining the tail run. O(packets in the VC) per rotation. */
#include "net/voq.h"

#include <stdlib.h>

#include "core/error.h"
#include "topo/topo.h"

int fl_voq_init(struct flitnet *n, struct nl_err *err)
{
	const uint64_t IV = (uint64_t)n->topo->n_ports * n->V;
	struct fl_voq *q = calloc(1, sizeof *q);
	if (!q)
		goto nomem;
	n->voq = q;
	q->saved = calloc(IV ? IV : 1, sizeof *q->saved);
	q->saved_routers = calloc(IV ? IV : 1, sizeof *q->saved_routers);
	q->rerouted = calloc(IV ? IV : 1, sizeof *q->rerouted);
	if (!q->saved || !q->saved_routers || !q->rerouted)
		goto nomem;
	return 0;
nomem:
	fl_voq_release(n);
	return nl_errf(err, NL_ENOMEM, "out of memory for voq (%llu input VCs)", (unsigned long long)IV);
}

void fl_voq_release(struct flitnet *n)
{
	struct fl_voq *q = n->voq;
	if (!q)
		return;
	free(q->saved);
	free(q->saved_routers);
	free(q->rerouted);
	free(q);
	n->voq = NULL;
}

bool fl_voq_before_route(struct flitnet *n, uint64_t iv, struct fl_pkt *pk)
{
	struct fl_voq *q = n->voq;
	q->saved[iv] = pk->rt;
	q->saved_routers[iv] = pk->routers;
	bool progress = !q->rerouted[iv];
	q->rerouted[iv] = 0;
	return progress;
}

/* A head run's size is filled in only when it is routed (vcbuf.h), so
 * the packets queued behind the front read it from their record. */
static inline bool voq_complete(const struct flitnet *n, const struct fl_run *ru)
{
	return ru->seq == 0 && ru->n == n->pool.pkts[ru->pkt].size;
}

bool fl_voq_rotate(struct flitnet *n, struct fl_router *ro, uint32_t li, int why)
{
	if (why != FL_STALL_BUFFER_BUSY)
		return false; /* lost an arbitration: retry in place */
	uint64_t iv = (uint64_t)ro->vc_base + li;
	struct fl_ivc *c = &n->ivc[iv];
	struct fl_run *runs = n->pool.runs;
	uint32_t f = c->head;
	if (f == FL_NONE || !voq_complete(n, &runs[f]))
		return false;
	uint32_t s = runs[f].next;
	if (s == FL_NONE || !voq_complete(n, &runs[s]))
		return false; /* no complete packet behind it */
	struct fl_voq *q = n->voq;
	struct fl_pkt *pk = &n->pool.pkts[runs[f].pkt];
	pk->rt = q->saved[iv];
	pk->routers = q->saved_routers[iv];
	/* Relink: f after the last complete run, before an arriving one. */
	c->head = s;
	uint32_t prev = s;
	while (runs[prev].next != FL_NONE && voq_complete(n, &runs[runs[prev].next]))
		prev = runs[prev].next;
	runs[f].next = runs[prev].next;
	runs[prev].next = f;
	if (runs[f].next == FL_NONE)
		c->tail = f;
	q->rerouted[iv] = 1;
	q->rotations++;
	return true;
}
