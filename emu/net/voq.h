/* Virtual output queues at the router inputs ([router] voq = 1; issue 11
 * part 4, the EXTOLL-like router of seed 004, Andujar et al. §II: "each
 * packet is stored in a different queue depending on its output channel",
 * so a blocked head does not block packets behind it to other outputs).
 *
 * The model (docs/engine.md, "Virtual output queues"): per input port and
 * VC the buffer of vc_buf_size flits stays one credit domain (the upstream
 * router sees one buffer per VC and gets one credit per flit that leaves,
 * as without VOQ); inside it, packets wait in arrival order per output
 * port. The input VC presents one packet at a time to VC and switch
 * allocation (its front packet). When that packet finds every candidate
 * output VC owned by other packets (BookSim's buffer-busy stall: a wait
 * that lasts, unlike a lost arbitration, which retries in place) and a
 * complete packet waits behind it, it goes back behind the VC's complete
 * packets with its routing state restored, and the next packet is routed
 * (possibly to another output). Packets to one output keep their order
 * unless one of them is passed over while blocked. A packet that holds an
 * output VC keeps its place (as in a VOQ switch, the queue of that output
 * is then the one served). Rotations and the routes that follow them are
 * not progress to the global deadlock check, and the exact check calls
 * such a VC stuck only if every complete packet in it is (deadlock.c).
 * Off: one pointer test where a route is computed and where a VC
 * allocation fails. */
#ifndef NETLOOM_NET_VOQ_H
#define NETLOOM_NET_VOQ_H

#include <stdbool.h>
#include <stdint.h>

#include "net/net_internal.h"

struct nl_err;

struct fl_voq {
	struct fl_rt *saved;     /* [iv] front packet's routing state before this router routed it */
	uint16_t *saved_routers; /* [iv] its router count then */
	uint8_t *rerouted;       /* [iv] the next route follows a rotation: not progress */
	uint64_t rotations;      /* whole run, for tests */
};

/* Build time, when rc.voq is set: allocate n->voq. */
int fl_voq_init(struct flitnet *n, struct nl_err *err);
void fl_voq_release(struct flitnet *n);

/* Before input VC iv's front packet pk is routed: keep its routing state
 * for a rotation. Returns whether the route counts as progress (not when
 * it follows a rotation, so rotations alone never look like movement to
 * the global deadlock check). */
bool fl_voq_before_route(struct flitnet *n, uint64_t iv, struct fl_pkt *pk);

/* The front packet of local input VC li failed allocation with stall
 * `why` (FL_STALL_*): move it behind the VC's other complete packets when
 * the model allows (see above). Returns true when it did: the caller puts
 * the VC back to routing. A VC_ACTIVE VC's output VC is released. */
bool fl_voq_rotate(struct flitnet *n, struct fl_router *ro, uint32_t li, int why);

/* Deadlock checks: is input VC iv routing again after a rotation (a VC
 * whose packets all wait, not a head that arrived)? */
static inline bool fl_voq_rerouted(const struct flitnet *n, uint64_t iv)
{
	return n->voq->rerouted[iv] != 0;
}

#endif
