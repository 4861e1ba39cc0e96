/* analytic: the latency/bandwidth message model (net_backend "analytic").
 *
 * A message of S bytes handed over at t completes at
 *   t + latency + h * hop_latency + S / bandwidth            (link_model = none)
 * where h is the router hop count of the minimal route when a topology is
 * given (0 otherwise): the LogGP-style alpha + beta*S cost (Alexandrov et
 * al., SPAA 1995) with no interaction between messages.
 *
 * link_model = endpoint and links add contention as FIFO reservations:
 * every channel (an endpoint's injection and ejection channel; with links,
 * also every router-to-router channel of the message's minimal route) keeps
 * the time it becomes free. A message crosses its injection channel, its h
 * router-to-router channels and its ejection channel cut through, entering
 * the j-th router channel at t0 + j * hop_latency (the ejection channel
 * at t0 + h * hop_latency, also with endpoint) and holding each for
 * S / bandwidth; t0 is the
 * earliest start no earlier than t at which every
 * channel is free when the message reaches it. Channels are reserved in
 * send order, so a message never overtakes an earlier one on a shared
 * channel (no backfilling), and without contention the time is the
 * link_model = none time. The model does not cut messages into packets
 * (the flit backend does). Deterministic: no draws, ties complete in
 * send order. For one send order the time is continuous in hop_latency,
 * but the order is not: at hop_latency 0 answers over routes of
 * different lengths tie and go in rank order, at any positive value the
 * shorter route's go first, and the prediction can jump by tens of per
 * cent between the two (docs/replay.md gives a halo exchange).
 *
 * The minimal route: dimension order on grids (torus, mesh: the shorter
 * way round a ring, + on a tie). On other topologies several neighbours
 * of a router are often one hop closer to the destination (a fat tree's
 * up-links, a dragonfly's parallel global links); path_select picks one:
 *   spread (default): static multipath as switches do it (ECMP): a hash of
 *     the flow (source endpoint, destination endpoint) and the router picks
 *     one of the m equal-cost next hops by hash-threshold (RFC 2992: the
 *     hash space cut into m equal regions), so one flow keeps one path and
 *     different flows spread over the parallel links. The router enters
 *     the hash so that consecutive hops choose independently (a hash of the
 *     flow alone would send every flow that took the i-th up-link at one
 *     level to the i-th at the next, "polarisation"). No draws: the same
 *     flows take the same paths in every run.
 *   first: the lowest-numbered such port, every flow alike (before
 *     path_select existed the only rule; on a fat tree it puts every
 *     message leaving a leaf on its first up-link).
 * Every use of the route follows the choice: the channels a message
 * reserves (links), its cable latency and the per-job link counters.
 *
 * Empty messages (the app layer's rendezvous control messages) take no
 * channel time and are not queued behind others in any sharing model.
 *
 * link_model = bus: every message crosses one shared channel of the given
 * bandwidth, FIFO in send order: a shared-memory node, where all copies
 * share the memory system. It has no routers, so a hop latency is refused.
 *
 * Per-link latency (set_link_latency; the session's cable_latency, issue
 * 13): every router-to-router channel c of the minimal route adds its own
 * d_c, in every model but bus, so a message completes at
 *   t + latency + h * hop_latency + sum over its channels of d_c + S / bandwidth
 * without contention, and in the sharing models enters its j-th router
 * channel after j hop latencies and the d_c of the channels before it.
 * Empty messages pay the d_c too (a control message crosses the cables).
 *
 * ideal = yes: zero latency, infinite bandwidth (a message completes at
 * the instant it is sent), for checking the app layer's compute-only time.
 *
 * calibration = FILE: instead of latency + S / bandwidth, the one-way
 * time T(S) measured for S bytes by netloom-pingpong
 * (traces/samples/calibration-shm.json, docs/replay.md): the median of
 * the run with calibration_ranks ranks, interpolated linearly between
 * measured sizes and extended with the last segment's slope. T(0) is the
 * latency and T(S) - T(0) the time a message holds a channel, so the
 * sharing models apply unchanged. A measured table keeps what a
 * two-parameter fit loses, e.g. the step at Open MPI's shared-memory eager
 * limit. When the run also has an "exchange" table (both ranks of a pair
 * sending at once), a message that starts while its source's ejection or
 * its destination's injection channel is busy (traffic the other way)
 * holds its channels for X(S) - T(0) instead, X the exchange time: on
 * shared memory, opposite copies compete for the memory system. The
 * message reserved first keeps the ping-pong time, so of a simultaneous
 * pair only the later one pays; an exchange still completes at X(S).
 * Sizes above the eager threshold were measured with the real rendezvous,
 * so replay's own RTS/CTS control messages add about two small-message
 * latencies on top.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "core/evheap.h"
#include "core/param.h"
#include "net/analytic_internal.h"
#include "net/analytic_jobs.h"
#include "net/calibration.h"
#include "net/net.h"
#include "topo/topo.h"

const char *const analytic_link_models[] = {"none", "endpoint", "links", "bus", NULL};
const char *const analytic_path_selects[] = {"spread", "first", NULL};

static const struct param_def analytic_keys[] = {
	{"latency_ns", PARAM_DOUBLE, offsetof(struct analytic_params, latency_ns), "1000", 0, 1e12,
	 "analytic backend: fixed latency of every message, ns", NULL},
	{"bandwidth_gbps", PARAM_DOUBLE, offsetof(struct analytic_params, bandwidth_gbps), "100", 1e-6,
	 1e9, "analytic backend: bandwidth of a message (link_model=none) or of each channel, Gbit/s",
	 NULL},
	{"hop_latency_ns", PARAM_DOUBLE, offsetof(struct analytic_params, hop_latency_ns), "0", 0, 1e9,
	 "analytic backend: extra latency per router hop of the minimal route (needs topology), ns",
	 NULL},
	{"link_model", PARAM_CHOICE, offsetof(struct analytic_params, link_model), "none", 0, 0,
	 "analytic backend: none = contention-free; endpoint = messages share injection/ejection "
	 "bandwidth; links = and every channel of the minimal route (needs topology); bus = all "
	 "messages share one channel (one shared-memory node)",
	 analytic_link_models},
	{"path_select", PARAM_CHOICE, offsetof(struct analytic_params, path_select), "spread", 0, 0,
	 "analytic backend: next hop among equal-cost minimal ones off grids: spread = a hash of "
	 "(source, destination, router) picks one (ECMP); first = the lowest-numbered port",
	 analytic_path_selects},
	{"ideal", PARAM_BOOL, offsetof(struct analytic_params, ideal), "no", 0, 0,
	 "analytic backend: zero latency and infinite bandwidth (replay gives the compute-only time)",
	 NULL},
	{"report_links", PARAM_INT, offsetof(struct analytic_params, report_links), "10", 0, 100000,
	 "analytic backend: number of busiest channels listed in results", NULL},
	{"calibration", PARAM_PATH, offsetof(struct analytic_params, calibration), "", 0, 0,
	 "analytic backend: JSON of measured one-way times per size (the recorder's ping-pong); "
	 "replaces latency_ns and bandwidth_gbps", NULL},
	{"calibration_ranks", PARAM_INT, offsetof(struct analytic_params, calibration_ranks), "2", 1, 1 << 24,
	 "analytic backend: the calibration file's run with this many ranks", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

const struct config_table net_analytic_config = {
	.section = "analytic",
	.help = "analytical latency/bandwidth network model (backend = analytic)",
	.keys = analytic_keys,
	.struct_size = sizeof(struct analytic_params),
};

static void analytic_destroy(struct net_backend *b)
{
	struct analytic *a = b->state;
	if (!a)
		return;
	evheap_free(&a->done);
	free(a->chan);
	free(a->route);
	free(a->off);
	free(a->link_ps);
	free(a->dist);
	analytic_jobs_release(&a->jobs);
	net_cal_free(&a->cal);
	net_cal_free(&a->cal_x);
	free(a);
	b->state = NULL;
}

/* The refusal rc just made of `key` (with `other`, NULL: alone), named
 * where the first of them that a file or -s set was set (a value read
 * when the backend is built, as the flit backend's are). */
static int analytic_at(const struct config *cfg, const char *key, const char *other, struct nl_err *err, int rc)
{
	if (!cfg || !err)
		return rc;
	return other ? config_err_file_line_any(cfg, CONFIG_KEYS(key, other), err)
		     : config_err_file_line(cfg, key, err);
}

/* ideal = yes has zero latency and infinite bandwidth, so a latency,
 * bandwidth, calibration or channel key (link_model, path_select,
 * report_links) would be read and dropped: refused, with or
 * without a topology (hop_latency_ns was refused only without one, as
 * needing it), as bus refuses hop_latency_ns and both refuse cable_latency.
 * A zero latency says what ideal does and is kept. */
static int analytic_refuse_ideal_keys(const struct analytic_params *p, const struct config *cfg,
				      struct nl_err *err)
{
	if (!p->ideal)
		return 0;
	if (p->hop_latency_ns > 0)
		return analytic_at(cfg, "hop_latency_ns", "ideal", err,
				   nl_errf(err, NL_ECONFIG,
					   "hop_latency_ns = %g: key 'ideal' is 'yes': expected hop_latency_ns = 0 or ideal = no "
					   "(the ideal network has no latency)",
					   p->hop_latency_ns));
	if (p->latency_ns > 0 && config_get(cfg, "latency_ns"))
		return analytic_at(cfg, "latency_ns", "ideal", err,
				   nl_errf(err, NL_ECONFIG,
					   "latency_ns = %g: key 'ideal' is 'yes': expected latency_ns = 0 or unset, or ideal = no "
					   "(the ideal network has no latency)",
					   p->latency_ns));
	if (config_get(cfg, "bandwidth_gbps"))
		return analytic_at(cfg, "bandwidth_gbps", "ideal", err,
				   nl_errf(err, NL_ECONFIG,
					   "bandwidth_gbps = %g: key 'ideal' is 'yes': expected bandwidth_gbps unset or ideal = no "
					   "(the ideal network has infinite bandwidth)",
					   p->bandwidth_gbps));
	if (p->calibration[0])
		return analytic_at(cfg, "calibration", "ideal", err,
				   nl_errf(err, NL_ECONFIG,
					   "calibration = %s: key 'ideal' is 'yes': expected calibration unset or ideal = no "
					   "(the ideal network replaces measured times with zero)",
					   p->calibration));
	if (p->link_model != ANALYTIC_LINK_NONE)
		return analytic_at(cfg, "link_model", "ideal", err,
				   nl_errf(err, NL_ECONFIG,
					   "link_model = %s: key 'ideal' is 'yes': expected link_model = none or unset, or ideal = "
					   "no (the ideal network holds no channel, so none is shared)",
					   analytic_link_models[p->link_model]));
	if (config_get(cfg, "path_select"))
		return analytic_at(cfg, "path_select", "ideal", err,
				   nl_errf(err, NL_ECONFIG,
					   "path_select = %s: key 'ideal' is 'yes': expected path_select unset or ideal = no (the "
					   "ideal network reserves no route's channels)",
					   analytic_path_selects[p->path_select]));
	if (config_get(cfg, "report_links"))
		return analytic_at(cfg, "report_links", "ideal", err,
				   nl_errf(err, NL_ECONFIG,
					   "report_links = %lld: key 'ideal' is 'yes': expected report_links unset or ideal = no "
					   "(the ideal network has no busy channel to list)",
					   (long long)p->report_links));
	return 0;
}

/* calibration_ranks picks a run of the calibration file: without one it
 * would be read and dropped, as the keys ideal = yes refuses. */
static int analytic_refuse_calibration_ranks(const struct analytic_params *p, const struct config *cfg,
					     struct nl_err *err)
{
	if (p->calibration[0] || !config_get(cfg, "calibration_ranks"))
		return 0;
	return analytic_at(cfg, "calibration_ranks", NULL, err,
			   nl_errf(err, NL_ECONFIG,
				   "calibration_ranks = %lld: key 'calibration' is unset: expected calibration (the file whose "
				   "run it picks) or calibration_ranks unset",
				   (long long)p->calibration_ranks));
}

static int analytic_create(struct net_backend *b, const struct config *cfg, const struct topo *t,
			   struct nl_err *err)
{
	struct analytic *a = calloc(1, sizeof *a);
	if (!a)
		return nl_errf(err, NL_ENOMEM, "analytic backend: out of memory");
	b->state = a;
	int rc = cfg ? config_bind(cfg, &net_analytic_config, &a->p, err)
		     : param_defaults(analytic_keys, &a->p, "analytic", err);
	if (rc < 0)
		goto fail;
	a->t = t;
	if (cfg && ((rc = analytic_refuse_ideal_keys(&a->p, cfg, err)) < 0 ||
		    (rc = analytic_refuse_calibration_ranks(&a->p, cfg, err)) < 0))
		goto fail;
	if (a->p.link_model == ANALYTIC_LINK_LINKS && !t) {
		rc = analytic_at(cfg, "link_model", NULL, err,
				 nl_errf(err, NL_ECONFIG,
					 "link_model = links needs a topology (set 'topology', e.g. torus:k=4x4)"));
		goto fail;
	}
	if (a->p.hop_latency_ns > 0 && a->p.link_model == ANALYTIC_LINK_BUS) { /* checked first: a topology would not help */
		rc = analytic_at(cfg, "hop_latency_ns", "link_model", err,
				 nl_errf(err, NL_ECONFIG,
					 "hop_latency_ns = %g: key 'link_model' is 'bus': expected none, endpoint or links "
					 "(a bus has no router hops)",
					 a->p.hop_latency_ns));
		goto fail;
	}
	if (a->p.hop_latency_ns > 0 && !t) { /* no routers to count: it would be ignored */
		rc = analytic_at(cfg, "hop_latency_ns", NULL, err,
				 nl_errf(err, NL_ECONFIG, "hop_latency_ns = %g needs a topology (set 'topology', e.g. torus:k=4x4)",
					 a->p.hop_latency_ns));
		goto fail;
	}
	if (a->p.calibration[0]) {
		rc = net_cal_load(a->p.calibration, a->p.calibration_ranks, &a->cal, &a->cal_x, err);
		if (rc < 0) {
			rc = analytic_at(cfg, "calibration", NULL, err, rc);
			goto fail;
		}
	}
	if (a->p.ideal) {
		a->ps_per_byte = 0;
		a->latency_ps = 0;
		a->hop_ps = 0;
	} else {
		a->ps_per_byte = 8000.0 / a->p.bandwidth_gbps;
		a->latency_ps = (uint64_t)llround(a->p.latency_ns * 1000.0);
		a->hop_ps = (uint64_t)llround(a->p.hop_latency_ns * 1000.0);
		if (a->cal.n)
			a->latency_ps = net_cal_ps(&a->cal, 0);
	}
	if (t) {
		a->n_ep = t->n_endpoints;
		a->n_chan = 2 * a->n_ep + (a->p.link_model == ANALYTIC_LINK_LINKS ? t->n_ports : 0);
		if (a->n_chan) {
			a->chan = calloc(a->n_chan, sizeof *a->chan);
			if (!a->chan) {
				rc = nl_errf(err, NL_ENOMEM, "analytic backend: out of memory");
				goto fail;
			}
		}
		/* Irregular graphs get a distance table, so routes and hop counts
		 * never run a BFS per message. Families that list their minimal
		 * next hops (fat trees, Clos) need none: routes walk the lists,
		 * and so do hop counts (analytic_router_distance). */
		bool need_dist = a->p.link_model == ANALYTIC_LINK_LINKS || a->hop_ps > 0;
		if (need_dist) {
			rc = analytic_build_dist(a, err);
			if (rc < 0)
				goto fail;
		}
	}
	return 0;
fail:
	analytic_destroy(b);
	return rc;
}

static int analytic_grow_endpoints(struct analytic *a, uint32_t ep)
{
	if (ep < a->n_ep)
		return 0;
	/* Without a topology: injection then ejection, both indexed by
	 * endpoint; regrow both halves. */
	size_t n = a->n_ep ? a->n_ep : 16;
	while (n <= ep)
		n *= 2;
	struct analytic_chan *c = calloc(2 * n, sizeof *c);
	if (!c)
		return NL_ENOMEM;
	if (a->chan) {
		memcpy(c, a->chan, a->n_ep * sizeof *c);
		memcpy(c + n, a->chan + a->n_ep, a->n_ep * sizeof *c);
	}
	free(a->chan);
	a->chan = c;
	a->n_ep = n;
	a->n_chan = 2 * n;
	return 0;
}

/* --- the backend ----------------------------------------------------------- */

/* Time a message of `bytes` occupies a channel. With a calibration: the
 * measured one-way time less the latency (that of an empty ping-pong
 * message); `exchange` picks the time measured with a message going the
 * other way at once, when the calibration has one, and never less than
 * the ping-pong's. */
static uint64_t analytic_ser_ps(const struct analytic *a, uint64_t bytes, bool exchange)
{
	if (a->cal.n) {
		uint64_t t = net_cal_ps(&a->cal, bytes);
		if (exchange && a->cal_x.n) {
			uint64_t tx = net_cal_ps(&a->cal_x, bytes);
			t = tx > t ? tx : t;
		}
		return t > a->latency_ps ? t - a->latency_ps : 0;
	}
	double ps = (double)bytes * a->ps_per_byte;
	/* Past the limit it saturates (llround would overflow): analytic_send
	 * refuses the message. */
	return ps <= (double)NET_TIME_MAX_PS ? (uint64_t)llround(ps) : NET_TIME_MAX_PS + 1;
}

/* Reservation i of n: the injection channel, the router channels (links
 * model), the ejection channel; its channel id and when the message
 * enters it after its start. */
static void analytic_res(const struct analytic *a, size_t i, size_t n, uint32_t src_ep, uint32_t dst_ep,
			 uint64_t path_ps, size_t *chan, uint64_t *off)
{
	if (i == 0) {
		*chan = src_ep;
		*off = 0;
	} else if (i + 1 == n) {
		*chan = a->n_ep + dst_ep;
		*off = path_ps;
	} else {
		*chan = 2 * a->n_ep + a->route[i - 1];
		*off = a->off[i - 1];
	}
}

static int analytic_send(struct net_backend *b, uint64_t now_ps, uint32_t src_ep, uint32_t dst_ep,
			 uint64_t bytes, uint64_t msg_id, struct nl_err *err)
{
	struct analytic *a = b->state;
	const struct topo *t = a->t;

	NL_CHECK(net_time_check("analytic backend", true, now_ps, a->reached_ps, err));
	if (!a->p.ideal && analytic_ser_ps(a, bytes, true) > NET_TIME_MAX_PS)
		return nl_errf(err, NL_ERANGE,
			       "analytic backend: message %" PRIu64 ": %" PRIu64
			       " bytes take more than 2^62 ps (about 53 days) to send; expected fewer bytes",
			       msg_id, bytes);
	if (t && (src_ep >= t->n_endpoints || dst_ep >= t->n_endpoints))
		return nl_errf(err, NL_ERANGE,
			       "analytic backend: endpoint %" PRIu32 " out of range (topology has %" PRIu32
			       " endpoints)",
			       src_ep >= t->n_endpoints ? src_ep : dst_ep, t->n_endpoints);
	a->n_msgs++;
	a->n_bytes += bytes;

	/* The route, when its channels are reserved or add latency. */
	size_t h = 0;
	uint64_t path = 0;
	bool links = a->p.link_model == ANALYTIC_LINK_LINKS;
	if (t && !a->p.ideal && a->p.link_model != ANALYTIC_LINK_BUS && (links || a->link_ps)) {
		if (analytic_path(a, src_ep, dst_ep, &h, &path) < 0)
			return nl_errf(err, NL_ENOMEM, "analytic backend: out of memory");
	} else if (t && !a->p.ideal && a->hop_ps && a->p.link_model != ANALYTIC_LINK_BUS) {
		/* Hop latency alone needs only the hop count. */
		h = analytic_router_distance(a, topo_ep_router(t, src_ep), topo_ep_router(t, dst_ep));
		path = h * a->hop_ps;
	}
	a->cable_ps += path - h * a->hop_ps;

	uint64_t done;
	if (a->p.ideal) {
		done = now_ps;
	} else if (a->p.link_model == ANALYTIC_LINK_BUS && bytes > 0) {
		/* An empty message takes the branch below: it waits for no
		 * channel in any sharing model, the bus too. */
		uint64_t ser = analytic_ser_ps(a, bytes, false), t0 = now_ps > a->bus.free_ps ? now_ps : a->bus.free_ps;
		a->bus.free_ps = t0 + ser;
		a->bus.busy_ps += ser;
		a->bus.bytes += bytes;
		a->bus.msgs++;
		done = t0 + ser + a->latency_ps;
	} else if (a->p.link_model == ANALYTIC_LINK_NONE) {
		done = now_ps + a->latency_ps + path + analytic_ser_ps(a, bytes, false);
	} else if (bytes == 0) {
		/* An empty (control) message holds no channel and waits for none:
		 * an unpacketised model would otherwise queue it behind whole
		 * messages, where packets would let it pass (Open MPI's shared
		 * memory moves large data outside the queue the control
		 * fragments use). It still crosses the route: its routers'
		 * hop latency and its cables, as with link_model = none, so an
		 * idle network gives none's time (docs/replay.md). */
		done = now_ps + a->latency_ps + path;
	} else {
		if (!t && (analytic_grow_endpoints(a, src_ep) < 0 || analytic_grow_endpoints(a, dst_ep) < 0))
			return nl_errf(err, NL_ENOMEM, "analytic backend: out of memory");
		if (a->jobs.tab && analytic_jobs_reserve(&a->jobs, h) < 0)
			return nl_errf(err, NL_ENOMEM, "analytic backend: out of memory for per-job link counts");
		/* Injection, the router channels (links), ejection: the message
		 * enters each at its offset from the start t0. */
		size_t n = 2 + (links ? h : 0), c;
		uint64_t t0 = now_ps, off;
		for (size_t i = 0; i < n; i++) {
			analytic_res(a, i, n, src_ep, dst_ep, path, &c, &off);
			uint64_t f = a->chan[c].free_ps;
			if (f > off && f - off > t0)
				t0 = f - off;
		}
		/* A message that starts while its endpoints carry traffic the
		 * other way (the source receiving, the destination sending) moves
		 * at the calibration's exchange rate. */
		bool against = a->chan[a->n_ep + src_ep].free_ps > t0 || a->chan[dst_ep].free_ps > t0;
		uint64_t ser = analytic_ser_ps(a, bytes, against);
		for (size_t i = 0; i < n; i++) {
			analytic_res(a, i, n, src_ep, dst_ep, path, &c, &off);
			struct analytic_chan *ch = &a->chan[c];
			ch->free_ps = t0 + off + ser;
			ch->busy_ps += ser;
			ch->bytes += bytes;
			ch->msgs++;
			if (a->jobs.tab && c >= 2 * a->n_ep)
				analytic_jobs_add(&a->jobs, (uint32_t)(c - 2 * a->n_ep), src_ep, bytes);
		}
		done = t0 + path + ser + a->latency_ps;
	}
	if (evheap_push(&a->done, done, msg_id) < 0)
		return nl_errf(err, NL_ENOMEM, "analytic backend: out of memory");
	return 0;
}

/* cable_latency (issue 13): the session's per-channel latencies from cable
 * lengths, added to each router-to-router channel a message crosses. */
static int analytic_set_link_latency(struct net_backend *b, const uint64_t *lat_ps, struct nl_err *err)
{
	struct analytic *a = b->state;
	const struct topo *t = a->t;
	if (!t)
		return nl_errf(err, NL_ECONFIG, "per-link latency needs a topology (set key 'topology')");
	if (a->p.ideal)
		return nl_errf(err, NL_ECONFIG, "per-link latency: key 'ideal': value 'yes': expected no (the ideal "
						"network has no latency)");
	if (a->p.link_model == ANALYTIC_LINK_BUS)
		return nl_errf(err, NL_ECONFIG, "per-link latency: key 'link_model': value 'bus': expected none, endpoint "
						"or links (a bus has no links)");
	/* Irregular graphs route through the distance table. */
	NL_CHECK(analytic_build_dist(a, err));
	uint64_t *l = malloc((size_t)(t->n_ports ? t->n_ports : 1) * sizeof *l);
	if (!l)
		return nl_errf(err, NL_ENOMEM, "analytic backend: out of memory");
	for (uint32_t g = 0; g < t->n_ports; g++)
		l[g] = topo_port_is_network(t, g) ? lat_ps[g] : 0;
	free(a->link_ps);
	a->link_ps = l;
	return 0;
}

static int analytic_advance(struct net_backend *b, uint64_t until_ps, net_deliver_fn deliver, void *ctx,
			    uint64_t *reached_ps, uint64_t *next_ps, struct nl_err *err)
{
	struct analytic *a = b->state;
	NL_CHECK(net_time_check("analytic backend", false, until_ps, a->reached_ps, err));
	uint64_t t = evheap_next(&a->done);
	if (!a->done.n || t > until_ps) {
		a->reached_ps = until_ps;
		*reached_ps = until_ps;
		*next_ps = t;
		return 0;
	}
	a->reached_ps = t;
	while (a->done.n && evheap_next(&a->done) == t)
		deliver(ctx, evheap_pop(&a->done).data, t);
	*reached_ps = t;
	*next_ps = evheap_next(&a->done);
	return 0;
}

/* Per-job link use exists only where the model has links: link_model =
 * links over a topology. */
static int analytic_count_jobs(struct net_backend *b, const uint32_t *ep_job, uint32_t n_jobs, struct nl_err *err)
{
	struct analytic *a = b->state;
	if (!a->t || a->p.link_model != ANALYTIC_LINK_LINKS || a->p.ideal)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "analytic backend: per-job link use needs link_model = links, ideal = no and a topology "
			       "(key 'link_model' is '%s')",
			       analytic_link_models[a->p.link_model]);
	(void)n_jobs; /* the table is keyed by job: any number fits */
	if (analytic_jobs_start(&a->jobs, ep_job) < 0) /* a second call starts the counts again */
		return nl_errf(err, NL_ENOMEM, "analytic backend: out of memory");
	return 0;
}

/* The counts' pairs sorted by (port, job), once per report. */
static int analytic_job_links(struct net_backend *b, const struct net_job_use **use, size_t *n, const char **unit,
			      struct nl_err *err)
{
	struct analytic *a = b->state;
	*unit = "bytes";
	if (analytic_jobs_list(&a->jobs, use, n) < 0)
		return nl_errf(err, NL_ENOMEM, "analytic backend: out of memory for per-job link counts");
	return 0;
}

/* Without link sharing along routes and without a hop latency a message's
 * time does not depend on its route (endpoint sharing counts endpoints,
 * not routers). */
static const char *analytic_routes_unused(const struct config *cfg)
{
	struct analytic_params p;
	struct nl_err ignored = {0};
	if (config_bind(cfg, &net_analytic_config, &p, &ignored) < 0)
		return NULL; /* refused where the backend is made */
	if (p.ideal)
		return "ideal = yes";
	if (p.link_model == ANALYTIC_LINK_LINKS || p.hop_latency_ns > 0)
		return NULL;
	return p.link_model == ANALYTIC_LINK_NONE	? "link_model = none and hop_latency_ns = 0"
	       : p.link_model == ANALYTIC_LINK_ENDPOINT ? "link_model = endpoint and hop_latency_ns = 0"
							: "link_model = bus";
}

/* The analytic model takes a message's time from [analytic] alone (and
 * the topology's minimal routes when one is set): the flit model's
 * channels, cycle, packets and engine settings change nothing here. The
 * routing function is read to check it (session_check_routing). */
static const char *const analytic_unread_sections[] = {"network", "simulation", NULL};
static const char *const analytic_read_keys[] = {"topology", "routing_function", NULL};
static const struct config_unread analytic_unread = {
	.sections = analytic_unread_sections,
	.read = analytic_read_keys,
};

const struct net_backend_ops net_analytic_ops = {
	.name = "analytic",
	.topology_optional = true,
	.ignores_routing = true,
	.help = "latency + size/bandwidth per message; optional endpoint or per-link FIFO sharing",
	.config = &net_analytic_config,
	.unread = &analytic_unread,
	.routes_unused = analytic_routes_unused,
	.create = analytic_create,
	.destroy = analytic_destroy,
	.send = analytic_send,
	.advance = analytic_advance,
	.report = analytic_report,
	.set_link_latency = analytic_set_link_latency,
	.count_jobs = analytic_count_jobs,
	.job_links = analytic_job_links,
};
