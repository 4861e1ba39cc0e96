/* BookSim2's hold_switch_for_packet ([router] hold_switch_for_packet = 1):
 * a crossbar connection granted to a packet's flit is kept for the
 * packet's next flits, which then skip switch allocation.
 *
 * The rule, as BookSim's IQRouter (iq_router.cpp, _SWHoldEvaluate /
 * _SWHoldUpdate / _SWAllocAddReq / _SWAllocUpdate) has it:
 *  - a hold is set when switch allocation grants a non-tail flit and its
 *    VC still has flits: the crossbar input (port, VC mod input_speedup)
 *    and output (port, input mod output_speedup) of that grant are held
 *    for that VC;
 *  - switch allocation ignores every request on a held input or output,
 *    and drops a grant that meets a hold when it completes;
 *  - each step, before switch allocation, a holding VC sends its front
 *    flit if the buffer across its output VC has a credit for it; the
 *    hold ends when that flit is the tail (the next packet is routed) or
 *    the VC is left empty, and at once when there is no credit (the flit
 *    is not sent, and the VC bids in switch allocation again);
 *  - a holding stage takes one cycle whatever sw_alloc_delay is.
 * A hold never outlives a blocked flit, so it adds no waiting that the
 * deadlock checks would have to know of. Off (NULL n->hold) costs one flag
 * test in switch allocation's general path; the one-pass unit-delay path
 * is not used when it is on (flitnet_plan.c). */
#ifndef NETLOOM_NET_HOLD_H
#define NETLOOM_NET_HOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "net/net_internal.h"

struct nl_err;

struct fl_hold {
	struct fl_fifo *q; /* [router] VCs holding a connection (BookSim's _sw_hold_vcs) */
	int32_t *in_out;   /* [global port * input_speedup + k] held crossbar output (local), -1 */
	int32_t *out_in;   /* [global port * output_speedup + k] held crossbar input (local), -1 */
	int16_t *in_vc;    /* [global port * input_speedup + k] the VC holding that input, -1 */
};

/* Build time, when rc.hold_switch_for_packet is set: allocate n->hold. */
int fl_hold_init(struct flitnet *n, struct nl_err *err);
void fl_hold_release(struct flitnet *n);

/* Is the crossbar input ein or output eout (local expanded indices) held?
 * Switch allocation skips such a request (BookSim's _SWAllocAddReq). */
static inline bool fl_hold_blocks(const struct flitnet *n, const struct fl_router *ro, uint32_t ein, uint32_t eout)
{
	const struct fl_hold *h = n->hold;
	return h->in_out[(uint64_t)ro->port_base * (uint32_t)n->rc.input_speedup + ein] >= 0 ||
	       h->out_in[(uint64_t)ro->port_base * (uint32_t)n->rc.output_speedup + eout] >= 0;
}

/* The crossbar input of local input VC li (BookSim's expanded input). */
static inline uint32_t fl_hold_ein(const struct flitnet *n, uint32_t li)
{
	const uint32_t isp = (uint32_t)n->rc.input_speedup;
	uint32_t in = fl_li_port(n, li), vc = fl_li_vc(n, li);
	return isp == 1 ? in : in * isp + vc % isp;
}

/* Input VC li has just sent a flit through crossbar output eout: keep
 * the connection for its next flit when that flit was not a tail and the
 * VC is not empty (the VC joins the holding stage: returns true), else
 * end any hold of li (returns false). */
bool fl_hold_next(struct flitnet *n, struct fl_router *ro, uint32_t li, uint32_t eout, bool tail);

/* The holding stage of router r (BookSim's _SWHoldEvaluate and
 * _SWHoldUpdate), between VC and switch allocation in both halves. */
void fl_hold_stage_eval(struct flitnet *n, struct fl_router *ro, uint32_t r);
void fl_hold_stage_update(struct flitnet *n, struct fl_router *ro, uint32_t r);

/* --- router.c, for the holding stage --- */
/* Switch allocation's update for input VC li with crossbar result res
 * (an expanded output, or a stall < 0: the VC bids again). */
void fl_router_sa_apply(struct flitnet *n, struct fl_router *ro, uint32_t li, int32_t res);

#endif
