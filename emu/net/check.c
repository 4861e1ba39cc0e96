/* The flit model's invariants (flitnet_check: conservation of flits,
 * credits and packets, run by check_interval) and its channel statistics
 * (the busiest channels of a report). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "net/mpi.h"
#include "net/net_internal.h"
#include "topo/topo.h"

/* --- invariants ---------------------------------------------------------------- */

/* An event in flight: one less expected at the output VC it belongs to;
 * returns 1 for a flit. */
static uint32_t check_event(const struct topo *t, uint32_t V, const struct fl_event *ev, int64_t *bal)
{
	const uint64_t P = t->n_ports;
	switch (ev->kind) {
	case EV_FLIT_ROUTER: {
		uint32_t peer = t->peer[ev->to];
		bal[(peer & TOPO_EP_BIT) ? (P + (peer & ~TOPO_EP_BIT)) * V + ev->vc : (uint64_t)peer * V + ev->vc]--;
		return 1;
	}
	case EV_CREDIT_ROUTER:
		bal[(uint64_t)ev->to * V + ev->vc]--;
		return 0;
	case EV_FLIT_NIC:
		bal[(uint64_t)t->ep_port[ev->to] * V + ev->vc]--;
		return 1;
	default:
		bal[(P + ev->to) * V + ev->vc]--;
		return 0;
	}
}

int flitnet_check(const struct flitnet *n, struct nl_err *err)
{
	const struct topo *t = n->topo;
	const uint32_t V = n->V;
	uint64_t P = t->n_ports, E = t->n_endpoints;
	/* Expected minus observed, by output VC. Written where a count or an
	 * event is not zero only: under MPI a rank's are its own routers' and
	 * endpoints' and the events it holds, and the rest of the array stays
	 * untouched pages (fl_calloc_lines; docs/scaling.md). */
	int64_t *bal = fl_calloc_lines((size_t)(P + E) * V, sizeof *bal);
	uint64_t flits = 0;
	int rc = bal ? 0 : nl_errf(err, NL_ENOMEM, "out of memory checking the network");

	/* Under MPI a rank short of memory must not leave the others in the
	 * sums below: the allocation is agreed first. */
	if (n->mx)
		rc = net_mpi_agree(n->sc.mpi, rc, err);
	if (rc < 0) {
		fl_free_lines(bal);
		return rc;
	}
	/* Every output VC's occupancy must equal the flits in the downstream
	 * buffer plus flits and credits in flight between the two. */
	for (uint64_t ov = 0; ov < P * V; ov++)
		if (n->ovc[ov].occ)
			bal[ov] += n->ovc[ov].occ;
	for (uint64_t s = 0; s < E * V; s++)
		if (n->nic_occ[s])
			bal[P * V + s] += n->nic_occ[s];
	/* The routing views' per-port sums follow the VCs' counts (under MPI
	 * both are zero where another rank runs the port). */
	uint64_t pocc_bad = 0, pocc_first = P;
	for (uint32_t g = 0; n->pocc && g < P; g++) {
		uint64_t sum = 0;
		for (uint32_t v = 0; v < V; v++)
			sum += n->ovc[(uint64_t)g * V + v].occ;
		if (sum != n->pocc[g] && pocc_bad++ == 0)
			pocc_first = g;
	}
	for (uint32_t h = 0; h < P; h++) {
		uint32_t peer = t->peer[h];
		if (peer == TOPO_NONE)
			continue;
		for (uint32_t v = 0; v < V; v++) {
			uint32_t c = n->ivc[(uint64_t)h * V + v].count;
			if (!c)
				continue;
			flits += c;
			/* Input h is fed by output `peer` (a router port) or by a NIC. */
			uint64_t slot = (peer & TOPO_EP_BIT) ? (P + (peer & ~TOPO_EP_BIT)) * V + v
							     : (uint64_t)peer * V + v;
			bal[slot] -= c;
		}
	}
	for (uint32_t pk = 0; pk < n->n_parts; pk++) {
		const struct flitnet *pn = n->part[pk];
		for (uint32_t i = 0; i <= pn->wheel_mask; i++) {
			const struct fl_slot *s = &pn->wheel[i];
			for (const struct fl_evblk *b = s->head; b; b = b->next) {
				const uint32_t cnt = b->next ? (pn->fl_compact ? FL_BLK_FLITS : FL_BLK_EVENTS) : s->tail_n;
				for (uint32_t k = 0; k < cnt; k++) {
					const struct fl_event ev = pn->fl_compact ? fl_cflit_event(pn, b->fl[k]) : b->ev[k];
					flits += check_event(t, V, &ev, bal);
				}
			}
			/* Compact credits: the code is the output VC's index. */
			for (const struct fl_evblk *b = s->chead; b; b = b->next)
				for (uint32_t k = 0; k < (b->next ? FL_BLK_CREDITS : s->ctail_n); k++) {
					uint32_t code = b->cr[k];
					bal[code & FL_CR_NIC ? P * V + (code & ~FL_CR_NIC) : code]--;
				}
		}
		for (uint32_t i = 0; i < pn->n_far; i++)
			flits += check_event(t, V, &pn->far[i].ev, bal);
	}
	/* Flits in a crossbar pipeline were already counted downstream. */
	for (uint32_t r = 0; r < t->n_routers; r++) {
		const struct fl_router *ro = &n->routers[r];
		for (uint32_t i = 0; i < ro->xb_q.len; i++) {
			const struct fl_xitem *x = &n->xitems[ro->xq_off + ((ro->xb_q.head + i) & (ro->xq_cap - 1u))];
			bal[(uint64_t)(ro->port_base + x->out) * V + x->vc]--;
			flits++;
		}
	}
	/* Under MPI each rank counted what it runs (the rest of its arrays is
	 * untouched zeros): the balances and flits add up over the ranks, in
	 * pieces summed on the stack, so that bal stays as sparse as it is. */
	if (n->mx) {
		flits = fl_mpi_sum(n, flits);
		pocc_bad = fl_mpi_sum(n, pocc_bad);
	}
	if (pocc_bad && pocc_first < P)
		rc = nl_errf(err, NL_ECORRUPT, "port occupancy sum broken at cycle %" PRIu64 ": router %u port %u",
			     n->now, t->port_router[pocc_first],
			     (uint32_t)(pocc_first - t->port_base[t->port_router[pocc_first]]));
	else if (pocc_bad)
		rc = nl_errf(err, NL_ECORRUPT, "port occupancy sum broken at cycle %" PRIu64 " on another MPI rank",
			     n->now);
	enum { PIECE = 4096 };
	int64_t piece[PIECE];
	for (uint64_t i0 = 0; i0 < (P + E) * V && rc == 0; i0 += PIECE) {
		const uint64_t k = (P + E) * V - i0 < PIECE ? (P + E) * V - i0 : PIECE;
		const int64_t *b = bal + i0;
		if (n->mx) {
			memcpy(piece, b, k * sizeof *piece);
			fl_mpi_sum_i64(n, piece, k);
			b = piece;
		}
		for (uint64_t j = 0; j < k && rc == 0; j++) {
			const uint64_t i = i0 + j;
			if (b[j] == 0)
				continue;
			uint64_t port = i / V;
			if (port < P)
				rc = nl_errf(err, NL_ECORRUPT,
					     "credit invariant broken at cycle %" PRIu64 ": router %u port %u VC %u off by %lld",
					     n->now, t->port_router[port], (uint32_t)(port - t->port_base[t->port_router[port]]),
					     (uint32_t)(i % V), (long long)b[j]);
			else
				rc = nl_errf(err, NL_ECORRUPT,
					     "credit invariant broken at cycle %" PRIu64 ": endpoint %u VC %u off by %lld",
					     n->now, (uint32_t)(port - P), (uint32_t)(i % V), (long long)b[j]);
		}
	}
	if (rc == 0 && flits != n->flits_in_net)
		rc = nl_errf(err, NL_ECORRUPT,
			     "flit conservation broken at cycle %" PRIu64 ": %" PRIu64 " flits found, %" PRIu64 " in the network",
			     n->now, flits, n->flits_in_net);
	fl_free_lines(bal);
	return rc;
}

static int fl_channel_cmp(const void *a, const void *b)
{
	const struct net_channel_use *x = a, *y = b;
	if (x->flits != y->flits)
		return x->flits < y->flits ? 1 : -1;
	return x->port < y->port ? -1 : x->port > y->port;
}

uint32_t fl_busiest_channels(const struct flitnet *n, struct net_channel_use out[NET_BUSIEST], uint64_t *sum,
			     uint64_t *n_chan)
{
	const struct topo *t = n->topo;
	uint32_t k = 0;
	*sum = 0;
	*n_chan = 0;
	for (uint32_t g = 0; g < t->n_ports; g++) {
		if (!topo_port_is_network(t, g))
			continue;
		++*n_chan;
		*sum += n->ports[g].chan_flits;
		struct net_channel_use u = {.port = g, .flits = n->ports[g].chan_flits};
		if (k < NET_BUSIEST)
			out[k++] = u;
		else if (fl_channel_cmp(&u, &out[NET_BUSIEST - 1]) < 0)
			out[NET_BUSIEST - 1] = u;
		else
			continue;
		qsort(out, k, sizeof u, fl_channel_cmp);
	}
	for (uint32_t i = 0; i < k; i++) {
		uint32_t g = out[i].port;
		out[i].router = t->port_router[g];
		out[i].local_port = g - t->port_base[out[i].router];
		out[i].peer_router = t->port_router[t->peer[g]];
	}
	return k;
}
