/* flitnet_new's first phases (flitnet_build.c), before the network's
 * arrays exist: the router keys refused together, the split over threads
 * and MPI ranks, the router's shape, and the routing function with the
 * refusals of what it needs of the other keys, each one line found at the
 * file:line of the key expected changed first. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "net/net_internal.h"
#include "net/workers.h"
#include "topo/topo.h"

/* What is refused before anything is allocated. */
int fl_check_router_cfg(const struct router_cfg *rc, const struct sim_cfg *sc, const struct topo *t,
			struct nl_err *err)
{
	if (rc->num_vcs > 255)
		return nl_errf(err, NL_ECONFIG, "num_vcs %lld: at most 255", (long long)rc->num_vcs);
	if (topo_max_radix(t) > 65535)
		return nl_errf(err, NL_EUNSUPPORTED, "routers with more than 65535 ports are not supported");
	/* Refusals of keys together, found at the first key's file:line. */
	if (rc->st_prepare_delay + rc->st_final_delay < 1) {
		/* Both are >= 0 (their ranges): name the values and the fix, as
		 * the bare rule left a BookSim user's st_final_delay = 0 to guess. */
		nl_errf(err, NL_ECONFIG,
			"st_prepare_delay (%lld) + st_final_delay (%lld) must be at least 1 cycle; set st_final_delay = 1 "
			"(its default) or st_prepare_delay = 1",
			(long long)rc->st_prepare_delay, (long long)rc->st_final_delay);
		return config_err_file_line_any(sc->cfg, CONFIG_KEYS("st_final_delay", "st_prepare_delay"), err);
	}
	if (rc->input_speedup > rc->num_vcs) {
		nl_errf(err, NL_ECONFIG, "input_speedup %lld exceeds num_vcs %lld (VCs are interleaved over crossbar inputs)",
			(long long)rc->input_speedup, (long long)rc->num_vcs);
		return config_err_file_line_any(sc->cfg, CONFIG_KEYS("input_speedup", "num_vcs"), err);
	}
	uint32_t n_alloc = 0;
	while (alloc_registry[n_alloc])
		n_alloc++;
	if (rc->vc_allocator < 0 || (uint32_t)rc->vc_allocator >= n_alloc || rc->sw_allocator < 0 ||
	    (uint32_t)rc->sw_allocator >= n_alloc)
		return nl_errf(err, NL_ECONFIG, "vc_allocator %d / sw_allocator %d: expected 0..%u", rc->vc_allocator,
			       rc->sw_allocator, n_alloc - 1);
	return 0;
}

int fl_plan_split(struct flitnet *n, const struct sim_cfg *sc, struct fl_split *s, struct nl_err *err)
{
	const struct topo *t = n->topo;
	/* Threads run partitions: threads above partitions raise partitions
	 * (a thread without one would idle). */
	s->n_threads = fl_workers_resolve(sc->threads, t->n_routers);
	if (s->n_threads > t->n_routers) {
		const char *at = config_origin(sc->cfg, "threads");
		return nl_errf(err, NL_ECONFIG,
			       "%s%skey 'threads': value '%lld': out of range: expected 0 (automatic) or 1..%u (a router "
			       "at least per thread)",
			       at ? at : "", at ? ": " : "", (long long)sc->threads, t->n_routers);
	}
	/* MPI ranks run partitions too, each its share of threads: at least
	 * that many per rank (results do not depend on the count). */
	s->n_ranks = net_mpi_size(sc->mpi);
	const uint32_t plan_threads = fl_workers_plan(sc->threads, s->n_threads, s->n_ranks, t->n_routers);
	s->parts_auto = n->sc.partitions == 0;
	if (s->parts_auto)
		n->sc.partitions = fl_partitions_auto(plan_threads, s->n_ranks, t->n_routers);
	const bool raise = (int64_t)plan_threads * s->n_ranks > n->sc.partitions;
	if (raise)
		n->sc.partitions = (int64_t)plan_threads * s->n_ranks;
	n->parts_chosen = s->parts_auto || raise;
	s->key = NULL;
	s->auto_threads[0] = '\0';
	if (sc->mpi)
		snprintf(s->what, sizeof s->what, "%u MPI ranks", s->n_ranks);
	else if (s->n_threads > 1)
		s->key = "threads";
	else
		s->key = "partitions";
	if (s->key)
		snprintf(s->what, sizeof s->what, "%s = %lld", s->key,
			 s->n_threads > 1 ? (long long)sc->threads : (long long)n->sc.partitions);
	/* 'threads = 0' was said as 'threads = 2', a value nobody set and
	 * another machine would not pick. */
	if (!sc->mpi && s->n_threads > 1 && sc->threads == 0)
		snprintf(s->auto_threads, sizeof s->auto_threads,
			 "%u threads here: one per %u routers, at most one per processor", s->n_threads,
			 FL_ROUTERS_PER_THREAD);
	return 0;
}

/* The router's shape: VCs, buffers, delays, and which stage paths apply. */
void fl_set_shape(struct flitnet *n, const struct router_cfg *rc)
{
	const struct topo *t = n->topo;
	n->V = (uint32_t)rc->num_vcs;
	n->cr_compact = ((uint64_t)t->n_ports > t->n_endpoints ? (uint64_t)t->n_ports : t->n_endpoints) * n->V <
			FL_CR_NIC;
	n->v_shift = -1;
	for (int b = 0; b < 8; b++)
		if (n->V == 1u << b)
			n->v_shift = b;
	n->buf = (uint32_t)rc->vc_buf_size;
	n->Xd = (uint32_t)(rc->st_prepare_delay + rc->st_final_delay);
	n->lookahead = rc->routing_delay == 0;
	/* The one-pass path runs each stage's evaluation and update together,
	 * which BookSim's holding stage (evaluated before switch allocation,
	 * updated after it reads the holds) does not allow. */
	n->unit_delays = rc->routing_delay <= 1 && rc->vc_alloc_delay == 1 && rc->sw_alloc_delay == 1 && n->Xd == 1 &&
			 !rc->hold_switch_for_packet;
	n->steps_max = (uint32_t)ceil(rc->internal_speedup);
	/* A whole speedup k: every cycle takes k steps and leaves the credit
	 * at 0, where it starts (fl_jump and fl_idle_cycle keep it there). */
	n->speedup_whole = rc->internal_speedup == floor(rc->internal_speedup);
	n->pool.free_pkt = n->pool.free_run = n->msg.free_msg = FL_NONE;
}

/* The routing function over each traffic class's VCs, and what it needs
 * of the rest of the configuration. */
int fl_route_setup(struct flitnet *n, const struct net_cfg *nc, const struct router_cfg *rc,
		   const struct sim_cfg *sc, const struct fl_split *s, struct nl_err *err)
{
	int rc_;
	/* Traffic classes: each class owns V / C contiguous VCs of every port
	 * and the routing function is instantiated over that many, so its VC
	 * rules (datelines, escape VCs) hold within each class; the engine
	 * shifts its ranges into the packet's class (router.c, nic.c). */
	n->n_cls = (uint32_t)rc->traffic_classes;
	if (n->n_cls < 1 || n->V % n->n_cls) {
		nl_errf(err, NL_ECONFIG,
			"[router] traffic_classes = %u: num_vcs (%lld) must be a multiple of it (equal VC ranges per class)",
			n->n_cls, (long long)rc->num_vcs);
		return config_err_file_line_any(sc->cfg, CONFIG_KEYS("traffic_classes", "num_vcs"), err);
	}
	n->cls_w = n->V / n->n_cls;
	/* A refused VC count starts with where num_vcs was set; with traffic
	 * classes, where traffic_classes was, before what it left per class. */
	const struct route_origin route_at = {.vcs = n->n_cls > 1 ? NULL : config_origin(sc->cfg, "num_vcs"),
					      .spec_cfg = sc->cfg};
	rc_ = route_new_origin(nc->routing_function, n->topo, n->cls_w, &route_at, &n->route, err);
	if (rc_ < 0 && n->n_cls > 1) { /* its "got N" counts one class's VCs */
		const char *at = config_origin(sc->cfg, "traffic_classes");
		nl_err_prefix(err, "%s%s[router] traffic_classes = %u leaves num_vcs / %u = %u VC%s per class",
			      at ? at : "", at ? ": " : "", n->n_cls, n->n_cls, n->cls_w, n->cls_w == 1 ? "" : "s");
	}
	if (rc_ < 0)
		return rc_;
	/* The live global view needs the network in one partition: the
	 * automatic count gives it that on one thread and one rank. */
	if ((n->route->views & ROUTE_VIEW_GLOBAL) && s->parts_auto && s->n_threads == 1 && s->n_ranks == 1)
		n->sc.partitions = 1;
	/* Found where routing_function was set, and the key that split the
	 * network named where it was set beside its value: the first of the
	 * keys set named a line that may be right ("partitions = 1" in the
	 * file when -s threads = 2 split the network). */
	if ((n->route->views & ROUTE_VIEW_GLOBAL) && (n->sc.partitions > 1 || sc->mpi)) {
		const char *rf_at = config_place(sc->cfg, "routing_function");
		const char *parts_at = s->key ? config_place(sc->cfg, s->key) : NULL;
		if (parts_at && rf_at && !strcmp(parts_at, rf_at))
			parts_at = NULL; /* both -s: said once, in front */
		const char *note = s->auto_threads;
		rc_ = nl_errf(err, NL_ECONFIG,
			"routing_function '%s' reads the live global congestion view, which %s%s%s%s%s%s%s "
			"cannot give (other partitions' channels change meanwhile); expected partitions = 1 and threads = 1%s",
			n->route->spec, s->what, parts_at || *note ? " (" : "", parts_at ? "from " : "",
			parts_at ? parts_at : "", parts_at && *note ? "; " : "", note, parts_at || *note ? ")" : "",
			sc->mpi ? ", without mpirun" : "");
		config_err_file_line(sc->cfg, "routing_function", err);
		return rc_;
	}
	/* What the routing function needs of the router, each refusal found
	 * at the file:line of the first key listed that was set, the one it
	 * expects changed first. */
	const struct {
		bool is_refused;
		const char *key, *why;
	} needs[] = {
		{n->route->needs_pend && !rc->sequential_allocation, "sequential_allocation",
		 "counts the flits routed to each port and not yet sent, which needs [router] sequential_allocation = 1, got 0"},
		{n->route->needs_vct && nc->flow_control != FL_VCT, "flow_control",
		 "lets a packet leave its escape VC for adaptive VCs and come back, deadlock-free only when a blocked packet holds one buffer (Duato 1996); expected flow_control = vct, got wormhole"},
		{n->route->needs_atomic_vcs && !rc->wait_for_tail_credit, "wait_for_tail_credit",
		 "needs wait_for_tail_credit = 1 (an output VC reused only once its downstream buffer is empty, else a head behind another packet in an adaptive VC cannot reach its escape VC: Duato 1995), got 0"},
	};
	for (size_t i = 0; i < sizeof needs / sizeof *needs; i++)
		if (needs[i].is_refused) {
			rc_ = nl_errf(err, NL_ECONFIG, "routing_function '%s' %s", n->route->spec, needs[i].why);
			config_err_file_line_any(sc->cfg, CONFIG_KEYS(needs[i].key, "routing_function"), err);
			return rc_;
		}
	/* Its candidate priorities are the algorithm (route.h,
	 * needs_priority_alloc): an allocator that ignores them takes a
	 * deroute or an escape VC as readily as a free minimal port. */
	if (n->route->ops->needs_priority_alloc && !n->va_ops->by_priority) {
		char ok[128] = "";
		for (uint32_t k = 0; alloc_registry[k]; k++)
			if (alloc_registry[k]->by_priority)
				snprintf(ok + strlen(ok), sizeof ok - strlen(ok), "%s%s", *ok ? " or " : "",
					 alloc_registry[k]->name);
		/* Found at vc_allocator's place, else routing_function's, as
		 * `needs` above; a place in front is not said again. */
		const char *at = config_origin(sc->cfg, "vc_allocator");
		const bool at_front = config_place(sc->cfg, "vc_allocator") != NULL;
		rc_ = nl_errf(err, NL_ECONFIG,
			"routing_function '%s' takes a deroute, a blocked port or its escape VCs only when no higher-priority candidate has a free VC, which only a by-priority VC allocator does; expected vc_allocator = %s, got %s%s%s%s",
			n->route->spec, ok, n->va_ops->name, at_front ? "" : at ? " (from " : " (the default",
			at_front || !at ? "" : at, at_front ? "" : ")");
		config_err_file_line_any(sc->cfg, CONFIG_KEYS("vc_allocator", "routing_function"), err);
		return rc_;
	}
	/* lookahead_decide = upstream reads the downstream router's state from
	 * the upstream one (router.c, fl_la_decide; with partitions, at the
	 * exchange): no VOQ, whose rotations route a packet again at the same
	 * router. */
	n->la_upstream = n->lookahead && rc->lookahead_decide == 1;
	if (n->la_upstream && rc->voq) {
		rc_ = nl_errf(err, NL_ECONFIG,
			"[router] lookahead_decide = upstream with voq = 1: a VOQ rotation routes a packet again where it is; expected voq = 0 or lookahead_decide = arrival");
		config_err_file_line_any(sc->cfg, CONFIG_KEYS("voq", "lookahead_decide"), err);
		return rc_;
	}
	/* Sequential allocation counts a packet at the router that routes it,
	 * as it is routed: a decision made upstream, or a VOQ rotation that
	 * routes a packet again where it is, would count it elsewhere or
	 * twice. */
	if (rc->sequential_allocation && n->la_upstream) {
		rc_ = nl_errf(err, NL_ECONFIG,
			"[router] sequential_allocation = 1 with lookahead_decide = upstream: a decision made at the router before cannot see this router's order of decisions; expected lookahead_decide = arrival");
		config_err_file_line_any(sc->cfg, CONFIG_KEYS("lookahead_decide", "sequential_allocation"), err);
		return rc_;
	}
	if (rc->sequential_allocation && rc->voq) {
		rc_ = nl_errf(err, NL_ECONFIG,
			"[router] sequential_allocation = 1 with voq = 1: a VOQ rotation routes a packet again where it is; expected voq = 0");
		config_err_file_line_any(sc->cfg, CONFIG_KEYS("voq", "sequential_allocation"), err);
		return rc_;
	}
	/* A switch winner leaves the crossbar at the router's next step:
	 * its output queue can take it at once, as at that step, unless a
	 * routing function reads the output queue (ROUTE_VIEW_OQ), which
	 * would see it a step early. Steps of a cycle are consecutive
	 * (fl_cycle), and with internal_speedup >= 1 every cycle has one, so
	 * the next step is in this cycle or at the next (n->xb_at). */
	n->direct_xbar = n->unit_delays && (rc->internal_speedup == 1.0 || !(n->route->views & ROUTE_VIEW_OQ));
	/* A function whose per-hop step reads neither router state nor random
	 * numbers (route.h, hop_pure) gives the same candidates decided
	 * upstream or on arrival, so the upstream bookkeeping is skipped (8%
	 * of the instructions on BookSim's dragonfly with group_min). */
	if (n->la_upstream && n->route->hop_pure)
		n->la_upstream = false;
	n->snap_next = n->route->snapshot_period && n->route->ops->snapshot ? 0 : UINT64_MAX;
	/* Under MPI, lookahead_decide = upstream is decided by the rank of the
	 * next router, at one-cycle windows (mpi_upstream.c, mx_la_*). */
	if (n->la_upstream)
		n->pool.la_w = n->route->max_cands;
	return 0;
}
