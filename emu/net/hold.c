/* BookSim2's hold_switch_for_packet: the holding stage and its state
 * (the rule is in hold.h). Holding VCs wait in their own FIFO per router,
 * threaded through the input VCs' stage-queue nodes like the other stages
 * (a holding VC is in no other stage queue). */
#include "net/hold.h"

#include <stdlib.h>

#include "core/error.h"
#include "topo/topo.h"

int fl_hold_init(struct flitnet *n, struct nl_err *err)
{
	const uint32_t R = n->topo->n_routers, P = n->topo->n_ports;
	const uint64_t ni = (uint64_t)P * (uint64_t)n->rc.input_speedup;
	const uint64_t no = (uint64_t)P * (uint64_t)n->rc.output_speedup;
	struct fl_hold *h = calloc(1, sizeof *h);
	if (!h)
		goto nomem;
	n->hold = h;
	h->q = calloc(R ? R : 1, sizeof *h->q);
	h->in_out = malloc((ni ? ni : 1) * sizeof *h->in_out);
	h->out_in = malloc((no ? no : 1) * sizeof *h->out_in);
	h->in_vc = malloc((ni ? ni : 1) * sizeof *h->in_vc);
	if (!h->q || !h->in_out || !h->out_in || !h->in_vc)
		goto nomem;
	for (uint32_t r = 0; r < R; r++)
		h->q[r].head = h->q[r].tail = FL_NONE16;
	for (uint64_t i = 0; i < ni; i++) {
		h->in_out[i] = -1;
		h->in_vc[i] = -1;
	}
	for (uint64_t i = 0; i < no; i++)
		h->out_in[i] = -1;
	return 0;
nomem:
	fl_hold_release(n);
	return nl_errf(err, NL_ENOMEM, "out of memory for hold_switch_for_packet (%u ports)", P);
}

void fl_hold_release(struct flitnet *n)
{
	struct fl_hold *h = n->hold;
	if (!h)
		return;
	free(h->q);
	free(h->in_out);
	free(h->out_in);
	free(h->in_vc);
	free(h);
	n->hold = NULL;
}

static inline struct fl_node *hold_node(struct flitnet *n, const struct fl_router *ro, uint32_t li)
{
	return &n->ivc[ro->vc_base + li].node;
}

static void hold_push(struct flitnet *n, struct fl_router *ro, uint32_t li)
{
	struct fl_fifo *q = &n->hold->q[ro - n->routers];
	struct fl_node *nd = hold_node(n, ro, li);
	nd->time = 0;
	nd->result = FL_UNEVAL;
	nd->next = FL_NONE16;
	if (q->len)
		hold_node(n, ro, q->tail)->next = (uint16_t)li;
	else
		q->head = (uint16_t)li;
	q->tail = (uint16_t)li;
	q->len++;
}

static void hold_keep(struct flitnet *n, struct fl_router *ro, uint32_t li, uint32_t ein, uint32_t eout)
{
	struct fl_hold *h = n->hold;
	uint64_t gi = (uint64_t)ro->port_base * (uint32_t)n->rc.input_speedup + ein;
	uint64_t go = (uint64_t)ro->port_base * (uint32_t)n->rc.output_speedup + eout;
	NL_ASSERT(h->in_vc[gi] < 0 || h->in_vc[gi] == (int16_t)fl_li_vc(n, li));
	h->in_vc[gi] = (int16_t)fl_li_vc(n, li);
	h->in_out[gi] = (int32_t)eout;
	h->out_in[go] = (int32_t)ein;
	hold_push(n, ro, li);
}

static void hold_drop(struct flitnet *n, struct fl_router *ro, uint32_t li, uint32_t ein)
{
	struct fl_hold *h = n->hold;
	uint64_t gi = (uint64_t)ro->port_base * (uint32_t)n->rc.input_speedup + ein;
	if (h->in_vc[gi] != (int16_t)fl_li_vc(n, li))
		return;
	uint64_t go = (uint64_t)ro->port_base * (uint32_t)n->rc.output_speedup + (uint32_t)h->in_out[gi];
	h->in_vc[gi] = -1;
	h->in_out[gi] = -1;
	h->out_in[go] = -1;
}

bool fl_hold_next(struct flitnet *n, struct fl_router *ro, uint32_t li, uint32_t eout, bool tail)
{
	uint32_t ein = fl_hold_ein(n, li);
	if (!tail && n->ivc[(uint64_t)ro->vc_base + li].count) {
		hold_keep(n, ro, li, ein, eout);
		return true;
	}
	hold_drop(n, ro, li, ein);
	return false;
}

/* BookSim's _SWHoldEvaluate: the held connection is reused when the buffer
 * across the held output VC has room for the front flit (a body flit: a
 * hold starts after a non-tail flit). */
void fl_hold_stage_eval(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	struct fl_fifo *q = &n->hold->q[r];
	const uint32_t osp = (uint32_t)n->rc.output_speedup;
	uint32_t li = q->head;
	for (uint32_t i = 0; i < q->len; i++, li = hold_node(n, ro, li)->next) {
		struct fl_node *nd = hold_node(n, ro, li);
		if (nd->result != FL_UNEVAL)
			break;
		const struct fl_ivc *c = &n->ivc[(uint64_t)ro->vc_base + li];
		NL_ASSERT(c->state == VC_ACTIVE && c->count);
		uint64_t ov = (uint64_t)(ro->port_base + c->out_port) * n->V + c->out_vc;
		nd->time = (uint32_t)n->now;
		if (n->ovc[ov].occ + 1u > n->buf)
			nd->result = FL_STALL_BUFFER_FULL;
		else
			nd->result = (int16_t)(osp == 1 ? c->out_port : c->out_port * osp + fl_li_port(n, li) % osp);
	}
}

/* BookSim's _SWHoldUpdate: send the flit through the held connection
 * (switch allocation's update decides, from what is left in the VC,
 * whether the hold goes on), or end the hold and bid again. */
void fl_hold_stage_update(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	struct fl_fifo *q = &n->hold->q[r];
	while (q->len) {
		uint32_t li = q->head;
		struct fl_node *nd = hold_node(n, ro, li);
		if (nd->result == FL_UNEVAL)
			break;
		int32_t res = nd->result;
		q->head = nd->next;
		q->len--;
		if (res < 0)
			hold_drop(n, ro, li, fl_hold_ein(n, li));
		fl_router_sa_apply(n, ro, li, res);
	}
	if (q->len) /* held VCs keep the router stepping (flitnet.c looks at the other stages) */
		fl_activate_router(n, r, n->now + 1);
}
