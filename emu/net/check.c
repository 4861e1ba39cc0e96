/* The flit model's invariants (flitnet_check: conservation of flits,
 * credits and packets, run by check_interval) and its channel statistics
 * (the busiest channels of a report). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "net/mpi.h"
#include "net/net_internal.h"
#include "topo/topo.h"

/* --- invariants ---------------------------------------------------------------- */

/* The check balances output VCs a window at a time (below), walking the
 * events in flight once per window: each event lowers its output VC's
 * balance when that VC is in the window. */
enum {
	CHECK_WINDOW = 4096,   /* output VCs per window at least (32 KiB on the stack) */
	CHECK_MAX_WALKS = 16,  /* walks over the events at most (larger windows on the heap) */
};

struct check_walk {
	int64_t *bal;   /* [ov - lo]: the window's balances */
	uint64_t lo, k; /* the window: output VCs [lo, lo + k) */
	bool count;     /* count the flits (the first walk) */
	uint64_t flits;
};

static void check_put(struct check_walk *w, uint64_t ov, bool is_flit)
{
	if (ov - w->lo < w->k)
		w->bal[ov - w->lo]--;
	if (w->count)
		w->flits += is_flit;
}

/* An event in flight, by the output VC it belongs to (router ports' first,
 * then endpoints' injection VCs). */
static void check_event(const struct topo *t, uint32_t V, const struct fl_event *ev, struct check_walk *w)
{
	const uint64_t P = t->n_ports;
	switch (ev->kind) {
	case EV_FLIT_ROUTER: {
		uint32_t peer = t->peer[ev->to];
		check_put(w, (peer & TOPO_EP_BIT) ? (P + (peer & ~TOPO_EP_BIT)) * V + ev->vc : (uint64_t)peer * V + ev->vc,
			  true);
		break;
	}
	case EV_CREDIT_ROUTER:
		check_put(w, (uint64_t)ev->to * V + ev->vc, false);
		break;
	case EV_FLIT_NIC:
		check_put(w, (uint64_t)t->ep_port[ev->to] * V + ev->vc, true);
		break;
	default:
		check_put(w, (P + ev->to) * V + ev->vc, false);
	}
}

/* Every event and crossbar flit in flight, to check_put. */
static void check_in_flight(const struct flitnet *n, struct check_walk *w)
{
	const struct topo *t = n->topo;
	const uint32_t V = n->V;
	const uint64_t P = t->n_ports;
	for (uint32_t pk = 0; pk < n->n_parts; pk++) {
		const struct flitnet *pn = n->part[pk];
		for (uint32_t i = 0; i <= pn->wheel_mask; i++) {
			const struct fl_slot *s = &pn->wheel[i];
			for (const struct fl_evblk *b = s->head; b; b = b->next) {
				const uint32_t cnt = b->next ? (pn->fl_compact ? FL_BLK_FLITS : FL_BLK_EVENTS) : s->tail_n;
				for (uint32_t k = 0; k < cnt; k++) {
					const struct fl_event ev = pn->fl_compact ? fl_cflit_event(pn, b->fl[k]) : b->ev[k];
					check_event(t, V, &ev, w);
				}
			}
			/* Compact credits: the code is the output VC's index. */
			for (const struct fl_evblk *b = s->chead; b; b = b->next)
				for (uint32_t k = 0; k < (b->next ? FL_BLK_CREDITS : s->ctail_n); k++) {
					uint32_t code = b->cr[k];
					check_put(w, code & FL_CR_NIC ? P * V + (code & ~FL_CR_NIC) : code, false);
				}
		}
		for (uint32_t i = 0; i < pn->n_far; i++)
			check_event(t, V, &pn->far[i].ev, w);
	}
	/* Flits in a crossbar pipeline were already counted downstream. */
	for (uint32_t r = 0; r < t->n_routers; r++) {
		const struct fl_router *ro = &n->routers[r];
		for (uint32_t i = 0; i < ro->xb_q.len; i++) {
			const struct fl_xitem *x = &n->xitems[ro->xq_off + ((ro->xb_q.head + i) & (ro->xq_cap - 1u))];
			check_put(w, (uint64_t)(ro->port_base + x->out) * V + x->vc, true);
		}
	}
}

int flitnet_check(const struct flitnet *n, struct nl_err *err)
{
	const struct topo *t = n->topo;
	const uint32_t V = n->V;
	uint64_t P = t->n_ports, E = t->n_endpoints;
	/* Expected minus observed, by output VC, a window of them at a time:
	 * its credit count, less the flits in the downstream buffer, less the
	 * flits and credits in flight between the two. A balance for every
	 * output VC at once (8 bytes a VC: 320 KiB on the 4-ary 5-tree) was
	 * the largest thing a loaded run's final check added; a window of at
	 * least 4,096 on the stack, or a sixteenth of them, costs at most
	 * sixteen walks over the events. Under MPI a rank counts what it runs
	 * and the events it holds, and the windows are summed over the ranks. */
	const uint64_t n_ov = (P + E) * V;
	uint64_t win = (n_ov + CHECK_MAX_WALKS - 1) / CHECK_MAX_WALKS;
	int64_t stack_bal[CHECK_WINDOW];
	int64_t *bal = stack_bal;
	if (win <= CHECK_WINDOW)
		win = CHECK_WINDOW;
	else
		bal = malloc(win * sizeof *bal);
	int rc = bal ? 0 : nl_errf(err, NL_ENOMEM, "out of memory checking the network");

	/* Under MPI a rank short of memory must not leave the others in the
	 * sums below: the allocation is agreed first. */
	if (n->mx)
		rc = net_mpi_agree(n->sc.mpi, rc, err);
	if (rc < 0) {
		if (bal != stack_bal)
			free(bal);
		return rc;
	}
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
	for (uint32_t g = 0; n->asum && g < P; g++) {
		uint32_t sum = 0, full = 0;
		for (uint32_t v = 0; v < n->asum_vcs; v++) {
			uint32_t o = n->ovc[(uint64_t)g * V + v].occ;
			sum += o;
			full += n->asum_full && o >= n->asum_full;
		}
		if (sum + route_asum_base(n->asum_vcs) + (full << 16) != n->asum[g] && pocc_bad++ == 0)
			pocc_first = g;
	}
	uint64_t flits = 0;
	for (uint64_t lo = 0; lo < n_ov; lo += win) {
		const uint64_t k = n_ov - lo < win ? n_ov - lo : win;
		for (uint64_t j = 0; j < k; j++) {
			const uint64_t ov = lo + j;
			/* The buffer ov feeds: the input across router port ov / V,
			 * or the router port endpoint (ov - P x V) / V injects into. */
			int64_t b;
			uint64_t in = P;
			if (ov < P * V) {
				b = n->ovc[ov].occ;
				uint32_t peer = t->peer[ov / V];
				if (peer != TOPO_NONE && !(peer & TOPO_EP_BIT))
					in = peer;
			} else {
				b = n->nic_occ[ov - P * V];
				in = t->ep_port[(ov - P * V) / V];
			}
			if (in < P) {
				uint32_t c = n->ivc[in * V + ov % V].count;
				flits += c;
				b -= c;
			}
			bal[j] = b;
		}
		struct check_walk w = {.bal = bal, .lo = lo, .k = k, .count = lo == 0};
		check_in_flight(n, &w);
		flits += w.flits;
		if (n->mx)
			fl_mpi_sum_i64(n, bal, k);
		for (uint64_t j = 0; j < k && rc == 0; j++) {
			const uint64_t i = lo + j;
			if (bal[j] == 0)
				continue;
			uint64_t port = i / V;
			if (port < P)
				rc = nl_errf(err, NL_ECORRUPT,
					     "credit invariant broken at cycle %" PRIu64 ": router %u port %u VC %u off by %lld",
					     n->now, t->port_router[port], (uint32_t)(port - t->port_base[t->port_router[port]]),
					     (uint32_t)(i % V), (long long)bal[j]);
			else
				rc = nl_errf(err, NL_ECORRUPT,
					     "credit invariant broken at cycle %" PRIu64 ": endpoint %u VC %u off by %lld",
					     n->now, (uint32_t)(port - P), (uint32_t)(i % V), (long long)bal[j]);
		}
	}
	if (bal != stack_bal)
		free(bal);
	/* Under MPI each rank counted what it runs. */
	if (n->mx) {
		flits = fl_mpi_sum(n, flits);
		pocc_bad = fl_mpi_sum(n, pocc_bad);
	}
	/* A broken per-port sum is reported before a broken balance. */
	if (pocc_bad && pocc_first < P)
		rc = nl_errf(err, NL_ECORRUPT, "port occupancy sum broken at cycle %" PRIu64 ": router %u port %u",
			     n->now, t->port_router[pocc_first],
			     (uint32_t)(pocc_first - t->port_base[t->port_router[pocc_first]]));
	else if (pocc_bad)
		rc = nl_errf(err, NL_ECORRUPT, "port occupancy sum broken at cycle %" PRIu64 " on another MPI rank",
			     n->now);
	if (rc == 0 && flits != n->flits_in_net)
		rc = nl_errf(err, NL_ECORRUPT,
			     "flit conservation broken at cycle %" PRIu64 ": %" PRIu64 " flits found, %" PRIu64 " in the network",
			     n->now, flits, n->flits_in_net);
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
