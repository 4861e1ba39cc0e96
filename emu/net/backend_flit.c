/* flit: the flit-level network model as a message backend (net.h).
 *
 * A message of B bytes becomes ceil(B / packet_bytes) packets (at least
 * one), each of ceil(payload / flit_bytes) flits (at least one), queued at
 * the source endpoint in order; the message is delivered when its last
 * packet's tail flit is ejected. Network cycle t is time t * cycle_ps. A
 * message sent at time s enters the source queue at the first cycle not
 * yet simulated at or after s (the cycle of s itself unless the network has
 * already run it, as after an advance that stopped on a delivery in that
 * cycle); one dated past the cycle reached waits for the advance that
 * reaches its cycle, which delivers what completes before. A send before
 * the time the network reached (the last advance's *reached_ps, or inside
 * a deliver callback the delivery's time, which is the time that advance
 * reaches), or an advance to it, is refused as the analytic backend
 * refuses it (net.h's contract), and so is a send past NET_TIME_MAX_PS
 * (net_time_check).
 *
 * The report lists the busiest router-to-router channels of the whole
 * replay: a channel carries at most one flit per cycle, so its busy time is
 * its flits x cycle_ps and its utilisation flits / cycles. Read mid-run
 * (a stopped or deadlocked run) it counts the flits sent by the cycle
 * reached, not those still queued for a later one.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "net/mpi.h"
#include "net/net_internal.h"
#include "topo/topo.h"

struct flit_backend {
	struct flitnet *net;
	uint64_t cycle_ps;
	uint64_t flit_bytes, packet_bytes;
	uint64_t *job_flits; /* count_jobs: the observer's per (channel, job) counts */
	struct net_job_use *job_list; /* job_links: job_flits' nonzero counts */
	bool chan_summed;    /* under MPI: the channels' counts are the ranks' sum (flit_report) */
	uint64_t reached_ps; /* the time the network reached (ps): no send or advance before it */
	net_deliver_fn deliver; /* the running advance's caller's callback (flit_deliver calls it) */
	void *deliver_ctx;
	bool made;              /* under MPI: a message made since the ranks last agreed on the next
				   cycle with work (flit_advance) */
	struct flit_pend *pend; /* sends dated past the network's clock, in order (flit_send) */
	size_t n_pend, cap_pend, pend_next; /* pend[pend_next .. n_pend - 1] still to be made */
};

/* A send whose cycle the network has not reached: its packets are made
 * when an advance gets there (flit_make_due). */
struct flit_pend {
	uint64_t cycle, msg_id, bytes;
	uint32_t src_ep, dst_ep;
};


/* The flits of a packet carrying `payload` bytes (at least one). */
static uint32_t flit_packet_flits(const struct flit_backend *fb, uint64_t payload)
{
	return payload ? (uint32_t)((payload + fb->flit_bytes - 1) / fb->flit_bytes) : 1u;
}

static int flit_create(struct net_backend *b, const struct config *cfg, const struct topo *t,
		       struct nl_err *err)
{
	struct net_cfg nc;
	struct router_cfg rc;
	struct sim_cfg sc = {0}; /* mpi is not a key: config_bind leaves it */

	if (!t)
		return nl_errf(err, NL_ECONFIG, "network backend 'flit' needs a topology");
	NL_CHECK(config_bind(cfg, &net_network_table, &nc, err));
	NL_CHECK(config_bind(cfg, &net_router_table, &rc, err));
	NL_CHECK(config_bind(cfg, &net_sim_table, &sc, err));
	sc.mpi = b->mpi;
	sc.cfg = cfg;
	/* Refusals of keys together, found at the first key's file:line. */
	uint64_t max_flits = ((uint64_t)nc.packet_bytes + (uint64_t)nc.flit_bytes - 1) / (uint64_t)nc.flit_bytes;
	if (max_flits > 65535) {
		nl_errf(err, NL_ECONFIG, "packet_bytes %lld / flit_bytes %lld gives %llu flits per packet (at most 65535)",
			(long long)nc.packet_bytes, (long long)nc.flit_bytes, (unsigned long long)max_flits);
		return config_err_file_line_any(cfg, CONFIG_KEYS("packet_bytes", "flit_bytes"), err);
	}
	if (nc.flow_control == FL_VCT && max_flits > (uint64_t)rc.vc_buf_size) {
		nl_errf(err, NL_ECONFIG, "flow_control = vct needs vc_buf_size (%lld) >= flits per full packet (%llu)",
			(long long)rc.vc_buf_size, (unsigned long long)max_flits);
		return config_err_file_line_any(cfg, CONFIG_KEYS("flow_control", "vc_buf_size", "packet_bytes"), err);
	}
	struct flit_backend *fb = calloc(1, sizeof *fb);
	if (!fb)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	int rc_ = flitnet_new(&nc, &rc, &sc, t, &fb->net, err);
	if (rc_ < 0) {
		free(fb);
		return rc_;
	}
	fb->cycle_ps = (uint64_t)nc.cycle_ps;
	fb->flit_bytes = (uint64_t)nc.flit_bytes;
	fb->packet_bytes = (uint64_t)nc.packet_bytes;
	fl_obs_phase(&fb->net->obs, PH_DONE); /* no synthetic-traffic statistics */
	fb->net->obs.count_channels = true;
	fb->net->msg_driven = true;
	if (fb->net->mx)
		fl_mpi_plan(fb->net); /* one-cycle windows */
	b->state = fb;
	return 0;
}

extern const struct net_backend_ops net_backend_flit_ops;

struct flitnet *fl_backend_net(const struct net_backend *b)
{
	NL_ASSERT(b->ops == &net_backend_flit_ops);
	return ((const struct flit_backend *)b->state)->net;
}

static void flit_destroy(struct net_backend *b)
{
	struct flit_backend *fb = b->state;
	if (!fb)
		return;
	flitnet_free(fb->net);
	free(fb->pend);
	free(fb->job_flits);
	free(fb->job_list);
	free(fb);
	b->state = NULL;
}

static uint32_t flit_msg_alloc(struct flitnet *n)
{
	uint32_t i = n->msg.free_msg;
	if (i != FL_NONE) {
		n->msg.free_msg = n->msg.msgs[i].next;
		return i;
	}
	if (n->msg.n_msgs == FL_MSG_MAX)
		return FL_NONE;
	if (n->msg.n_msgs == n->msg.cap_msgs) {
		uint32_t cap = n->msg.cap_msgs ? 2 * n->msg.cap_msgs : 1024;
		struct fl_msg *m = fl_grow(n, n->msg.msgs, (size_t)cap * sizeof *m);
		if (!m)
			return FL_NONE;
		n->msg.msgs = m;
		n->msg.cap_msgs = cap;
	}
	return n->msg.n_msgs++;
}

static int flit_make(struct flit_backend *fb, uint32_t src_ep, uint32_t dst_ep, uint64_t bytes, uint64_t n_pkts,
		     uint64_t msg_id, struct nl_err *err);

/* Packets of a message of `bytes` (flit_send checked the count). */
static uint64_t flit_msg_packets(const struct flit_backend *fb, uint64_t bytes)
{
	/* Rounded up without the sum that wraps for bytes near 2^64 (0
	 * packets: the message lost). */
	return bytes ? bytes / fb->packet_bytes + (bytes % fb->packet_bytes != 0) : 1;
}

static int flit_send(struct net_backend *b, uint64_t now_ps, uint32_t src_ep, uint32_t dst_ep, uint64_t bytes,
		     uint64_t msg_id, struct nl_err *err)
{
	struct flit_backend *fb = b->state;
	struct flitnet *n = fb->net;
	const struct topo *t = n->topo;

	if (src_ep >= t->n_endpoints || dst_ep >= t->n_endpoints)
		return nl_errf(err, NL_EINVAL, "message %llu: endpoint %u -> %u outside 0..%u",
			       (unsigned long long)msg_id, src_ep, dst_ep, t->n_endpoints - 1);
	NL_CHECK(net_time_check("flit backend", true, now_ps, fb->reached_ps, err));
	const uint64_t n_pkts = flit_msg_packets(fb, bytes);
	if (n_pkts > UINT32_MAX)
		return nl_errf(err, NL_ERANGE,
			       "flit backend: message %" PRIu64 ": %" PRIu64 " bytes is too large: expected at most %" PRIu64
			       " packets of packet_bytes %" PRIu64,
			       msg_id, bytes, (uint64_t)UINT32_MAX, fb->packet_bytes);
	uint64_t cycle = now_ps / fb->cycle_ps + (now_ps % fb->cycle_ps != 0);
	if (cycle < n->now)
		cycle = n->now;
	/* A send dated past the clock waits for an advance to reach its
	 * cycle (flit_advance), which delivers what completes on the way.
	 * Running the network there from here would have no callback for
	 * those deliveries (they were lost), and from inside a deliver
	 * callback would re-enter the cycle's delivery loop (fl_msg_flush;
	 * test_session's test_send_later). A later send dated before a
	 * waiting one goes at the waiting one's cycle, where such a run
	 * would have left the clock. */
	if (fb->pend_next < fb->n_pend && cycle < fb->pend[fb->n_pend - 1].cycle)
		cycle = fb->pend[fb->n_pend - 1].cycle;
	if (cycle > n->now) {
		if (fb->n_pend == fb->cap_pend) {
			size_t cap = fb->cap_pend ? 2 * fb->cap_pend : 16;
			struct flit_pend *p = realloc(fb->pend, cap * sizeof *p);
			if (!p)
				return nl_errf(err, NL_ENOMEM, "message %" PRIu64 ": out of memory", msg_id);
			fb->pend = p;
			fb->cap_pend = cap;
		}
		fb->pend[fb->n_pend++] = (struct flit_pend){
			.cycle = cycle, .msg_id = msg_id, .bytes = bytes, .src_ep = src_ep, .dst_ep = dst_ep};
		return 0;
	}
	return flit_make(fb, src_ep, dst_ep, bytes, n_pkts, msg_id, err);
}

/* Message msg_id's record and packets, queued at src_ep at the current
 * cycle (every rank under MPI keeps the record; the source's makes the
 * packets). */
static int flit_make(struct flit_backend *fb, uint32_t src_ep, uint32_t dst_ep, uint64_t bytes, uint64_t n_pkts,
		     uint64_t msg_id, struct nl_err *err)
{
	struct flitnet *n = fb->net;
	const struct topo *t = n->topo;
	const uint64_t cycle = n->now;
	fb->made = true; /* before any failure: on every rank alike */
	uint32_t mi = flit_msg_alloc(n);
	if (mi == FL_NONE)
		return nl_errf(err, NL_ENOMEM, "out of memory for messages");
	n->msg.msgs[mi].id = msg_id;
	n->msg.msgs[mi].pkts_left = (uint32_t)n_pkts;
	struct fl_nic *c = &n->nics[src_ep];
	/* The source's packets live in its partition's pool. Under MPI every
	 * rank's application sends every message: each keeps the record and
	 * the counters the driver changes (the same on every rank), and only
	 * the source's rank makes its packets. */
	struct flitnet *p = fl_part_of_router(n, topo_ep_router(t, src_ep));
	const bool local = fl_ep_local(n, src_ep);
	if (local && n->n_parts > 1 && fl_part_asleep(n, p->part_id))
		fl_part_wake(n, p->part_id); /* asleep: its clock first */
	/* Its first packet is its largest; every rank grows the bound alike. */
	fl_pkt_max_grow(n, flit_packet_flits(fb, bytes < fb->packet_bytes ? bytes : fb->packet_bytes));
	uint64_t left = bytes;
	for (uint64_t k = 0; k < n_pkts; k++) {
		uint64_t payload = left < fb->packet_bytes ? left : fb->packet_bytes;
		left -= payload;
		uint64_t flits = flit_packet_flits(fb, payload);
		n->obs.flits_alive += flits;
		n->obs.ctime_sum_alive += flits * cycle;
		if (!local)
			continue;
		uint32_t pi = fl_pkt_alloc(p);
		if (pi == FL_NONE)
			return nl_errf(err, NL_ENOMEM, "message %llu: out of memory for its packets",
				       (unsigned long long)msg_id);
		struct fl_pkt *pk = &p->pool.pkts[pi];
		memset(pk, 0, sizeof *pk);
		pk->ctime = (uint32_t)cycle;
		fl_pkt_set_msg(p, pi, mi + 1); /* < 2^31 (FL_MSG_MAX) */
		if (p->oom)
			return nl_errf(err, NL_ENOMEM, "message %llu: out of memory for its packets",
				       (unsigned long long)msg_id);
		NL_ASSERT(flits <= p->pkt_max_flits); /* fl_pkt_max_grow */
		pk->size = (uint16_t)flits;
		pk->rt.src_ep = src_ep;
		pk->rt.dst_ep = dst_ep;
		pk->next = FL_NONE;
		if (c->q_tail == FL_NONE)
			c->q_head = pi;
		else
			p->pool.pkts[c->q_tail].next = pi;
		c->q_tail = pi;
	}
	if (local)
		fl_activate_nic(p, src_ep, n->now);
	return 0;
}

/* The waiting sends due by the current cycle (the advances stop at each
 * one's cycle, so due at it), made in the order they were sent
 * (flit_send); a failure leaves the rest unmade (the network is then
 * refused, net.h). */
static int flit_make_due(struct flit_backend *fb, struct nl_err *err)
{
	struct flitnet *n = fb->net;
	while (fb->pend_next < fb->n_pend && fb->pend[fb->pend_next].cycle <= n->now) {
		const struct flit_pend p = fb->pend[fb->pend_next++];
		NL_ASSERT(p.cycle == n->now);
		NL_CHECK(flit_make(fb, p.src_ep, p.dst_ep, p.bytes, flit_msg_packets(fb, p.bytes), p.msg_id, err));
	}
	if (fb->pend_next == fb->n_pend)
		fb->pend_next = fb->n_pend = 0;
	return 0;
}

/* The cycle of the first waiting send, UINT64_MAX for none. */
static uint64_t flit_pend_cycle(const struct flit_backend *fb)
{
	return fb->pend_next < fb->n_pend ? fb->pend[fb->pend_next].cycle : UINT64_MAX;
}

/* The advance's deliver callback, called through here so a send it makes
 * is checked against the delivery's time: the advance reaches that time
 * (it stops there), as the analytic backend's does before its callbacks. */
static void flit_deliver(void *ctx, uint64_t msg_id, uint64_t t_ps)
{
	struct flit_backend *fb = ctx;
	fb->reached_ps = t_ps;
	fb->deliver(fb->deliver_ctx, msg_id, t_ps);
}

static int flit_advance(struct net_backend *b, uint64_t until_ps, net_deliver_fn deliver, void *ctx,
			uint64_t *reached_ps, uint64_t *next_ps, struct nl_err *err)
{
	struct flit_backend *fb = b->state;
	struct flitnet *n = fb->net;
	uint64_t last = until_ps / fb->cycle_ps; /* last cycle that may run */

	NL_CHECK(net_time_check("flit backend", false, until_ps, fb->reached_ps, err));
	bool agreed = false; /* under MPI: n->x_next is the ranks' next cycle with work now */
	fb->deliver = deliver;
	fb->deliver_ctx = ctx;
	n->msg.deliver = flit_deliver;
	n->msg.deliver_ctx = fb;
	n->msg.delivered = 0;
	*reached_ps = until_ps;
	if (!n->mx) {
		/* The loop below for one process, in one call (its set-up once
		 * per cycle with work was 3.5% of a sparse replay). A waiting
		 * send's cycle is reached as flitnet_run_until reached it (the
		 * idle cycles before it jumped), stopping at a delivery. */
		int rc = 0;
		for (uint64_t c; rc == 0 && !n->msg.delivered && (c = flit_pend_cycle(fb)) <= last;) {
			if (n->now < c)
				rc = flitnet_run_to_delivery(n, c - 1, err);
			if (rc == 0 && !n->msg.delivered)
				rc = flit_make_due(fb, err);
		}
		if (rc == 0 && !n->msg.delivered)
			rc = flitnet_run_to_delivery(n, last, err);
		if (rc < 0) {
			n->msg.deliver = NULL;
			return rc;
		}
		if (n->msg.delivered)
			*reached_ps = (n->now - 1) * fb->cycle_ps;
	} else {
		/* The ranks' next cycle with work (n->x_next) is taken once,
		 * by fl_mpi_begin, the advance's first collective (a step's
		 * first: it tells of a rank that failed between two
		 * advances), and again only after a waiting send was made.
		 * Otherwise the last window's exchange folded it (and the
		 * latest pending event, and based the counters there), and
		 * nothing has changed it since: the deliveries after the
		 * exchange free records, and a send from the deliver callback
		 * (fb->made, the same on every rank, as each sends every
		 * message) ends the advance. So a window of a one-cycle step
		 * costs the exchange's allreduce alone, not two more
		 * reductions of the same next cycle (one here, one in
		 * flitnet_run_until): lammps-lj-2, 2 ranks, 4 collective calls
		 * per window before, 1 after (benchmarks/README.md,
		 * 2026-12-07). */
		while (n->now <= last) {
			if (!agreed) {
				fl_mpi_begin(n);
				agreed = true;
				fb->made = false;
			}
			const uint64_t next = n->x_next;
			/* A rank failed between two steps (flit_agree). */
			if (fl_mpi_peer_check(n, err) < 0) {
				n->msg.deliver = NULL;
				return NL_ESTATE;
			}
			/* A waiting send due before any other work: its cycle,
			 * every rank alike (each sends every message). */
			const uint64_t c = flit_pend_cycle(fb);
			if (c <= next && c <= last) {
				n->x_agreed = true;
				int rc = n->now < c ? flitnet_run_until(n, c, err) : 0;
				n->x_agreed = false;
				if (rc == 0)
					rc = flit_make_due(fb, err);
				agreed = false;
				if (rc < 0) {
					n->msg.deliver = NULL;
					return rc;
				}
				continue;
			}
			if (next > last) {
				/* Jumped as the one process's advance jumps it
				 * (flitnet_run_to_delivery), speedup credit too. */
				fl_clock_jump(n, last + 1);
				break;
			}
			n->x_agreed = true;
			int rc = flitnet_run_until(n, next + 1, err);
			if (rc < 0) {
				n->msg.deliver = NULL;
				return rc;
			}
			if (n->msg.delivered) {
				*reached_ps = (n->now - 1) * fb->cycle_ps;
				break;
			}
		}
		if (fb->made)
			agreed = false;
	}
	n->msg.deliver = NULL;
	fb->reached_ps = *reached_ps;
	uint64_t nw = agreed ? n->x_next : fl_next_work_all(n);
	if (flit_pend_cycle(fb) < nw)
		nw = flit_pend_cycle(fb);
	*next_ps = nw == UINT64_MAX ? UINT64_MAX : nw * fb->cycle_ps;
	return 0;
}

/* Flits counted on network port g's channel but given a cycle at or
 * after now: fl_output (router.c) counts a flit as it queues it in the
 * output stage, and those queued for now or later take the cycles now ..
 * out_free - 1 back to back (experiment.c, exp_chan_queued). 0 at the end
 * of a run; mid-run (a stopped live session, a deadlocked replay) up to
 * the downstream buffers' credits with a speedup. */
static uint64_t flit_chan_queued(const struct flitnet *n, uint32_t g)
{
	const struct fl_port *pt = &n->ports[g];
	return pt->link.network && pt->out_free > n->now ? pt->out_free - n->now : 0;
}

static int flit_report(struct net_backend *b, json_t *out, struct nl_err *err)
{
	struct flit_backend *fb = b->state;
	struct flitnet *n = fb->net;
	const struct topo *t = n->topo;
	(void)err;
	json_object_set_new(out, "backend", json_string("flit"));
	json_object_set_new(out, "topology", out_json_utf8(t->spec)); /* a graph:file= path: any bytes */
	json_object_set_new(out, "cycles", json_integer((json_int_t)n->now));
	json_object_set_new(out, "flit_hops", json_integer((json_int_t)n->flit_hops));
	/* The flits sent by cycle now, the cycles reported: those still
	 * queued are taken off while the channels are ranked, then put back
	 * for the run to go on. Under MPI every rank takes off its own before
	 * the sum, once: the first report ends the counts there. */
	const uint32_t P = t->n_ports;
	if (!fb->chan_summed)
		for (uint32_t g = 0; g < P; g++)
			n->ports[g].chan_flits -= flit_chan_queued(n, g);
	if (n->mx && !fb->chan_summed) { /* each channel counted by its owner */
		fl_mpi_sum_channels(n);
		fb->chan_summed = true;
	}

	struct net_channel_use top[NET_BUSIEST];
	uint64_t sum, n_chan;
	uint32_t n_top = fl_busiest_channels(n, top, &sum, &n_chan);
	if (!fb->chan_summed)
		for (uint32_t g = 0; g < P; g++)
			n->ports[g].chan_flits += flit_chan_queued(n, g);
	json_t *arr = json_array();
	for (uint32_t i = 0; i < n_top; i++) {
		if (!top[i].flits)
			break;
		char from[32], to[32];
		snprintf(from, sizeof from, "router %u", top[i].router);
		snprintf(to, sizeof to, "router %u", top[i].peer_router);
		json_t *o = json_object();
		json_object_set_new(o, "kind", json_string("link"));
		json_object_set_new(o, "from", json_string(from));
		json_object_set_new(o, "to", json_string(to));
		json_object_set_new(o, "port", json_integer(top[i].local_port));
		json_object_set_new(o, "busy_s", json_real((double)top[i].flits * (double)fb->cycle_ps * 1e-12));
		json_object_set_new(o, "utilisation", json_real(n->now ? (double)top[i].flits / (double)n->now : 0.0));
		json_object_set_new(o, "flits", json_integer((json_int_t)top[i].flits));
		json_array_append_new(arr, o);
	}
	json_object_set_new(out, "busiest_links", arr);
	const struct net_deadlock *dl = flitnet_deadlock(n);
	if (dl)
		json_object_set_new(out, "deadlock", net_deadlock_json(dl));
	return 0;
}

static int flit_count_jobs(struct net_backend *b, const uint32_t *ep_job, uint32_t n_jobs, struct nl_err *err)
{
	struct flit_backend *fb = b->state;
	struct flitnet *n = fb->net;
	if (n->mx)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "per-job link counts (interference) are not gathered over MPI ranks; run without mpirun");
	uint64_t *c = calloc((size_t)n->topo->n_ports * (n_jobs ? n_jobs : 1), sizeof *c);
	if (!c)
		return nl_errf(err, NL_ENOMEM, "out of memory for per-job link counts");
	free(fb->job_flits);
	fb->job_flits = c;
	n->obs.job_flits = c;
	n->obs.ep_job = ep_job;
	n->obs.n_jobs = n_jobs;
	return 0;
}

/* job_flits' nonzero counts, in port then job order as they lie. The
 * counts themselves stay a channels x jobs table: router.c adds each flit
 * hop to it by index. */
static int flit_job_links(struct net_backend *b, const struct net_job_use **use, size_t *n, const char **unit,
			  struct nl_err *err)
{
	struct flit_backend *fb = b->state;
	const struct flitnet *net = fb->net;
	size_t len = (size_t)net->topo->n_ports * net->obs.n_jobs, k = 0;
	*unit = "flits";
	*use = NULL;
	*n = 0;
	if (!fb->job_flits)
		return 0;
	for (size_t i = 0; i < len; i++)
		k += fb->job_flits[i] != 0;
	struct net_job_use *l = malloc((k ? k : 1) * sizeof *l);
	if (!l)
		return nl_errf(err, NL_ENOMEM, "out of memory for per-job link counts");
	k = 0;
	for (size_t i = 0; i < len; i++)
		if (fb->job_flits[i])
			l[k++] = (struct net_job_use){.port = (uint32_t)(i / net->obs.n_jobs),
						      .job = (uint32_t)(i % net->obs.n_jobs),
						      .count = fb->job_flits[i]};
	free(fb->job_list);
	fb->job_list = l;
	*use = l;
	*n = k;
	return 0;
}

/* cable_latency (issue 13) on the flit model: each router-to-router
 * channel's extra picoseconds rounded UP to whole cycles (a channel
 * delivers at a cycle boundary, and no cable is faster than its length),
 * added to its class latency. */
static int flit_set_link_latency(struct net_backend *b, const uint64_t *lat_ps, struct nl_err *err)
{
	struct flit_backend *fb = b->state;
	struct flitnet *n = fb->net;
	const struct topo *t = n->topo;
	uint64_t *cyc = malloc((size_t)(t->n_ports ? t->n_ports : 1) * sizeof *cyc);
	if (!cyc)
		return nl_errf(err, NL_ENOMEM, "flit backend: out of memory");
	for (uint32_t g = 0; g < t->n_ports; g++)
		cyc[g] = topo_port_is_network(t, g) ? (lat_ps[g] + fb->cycle_ps - 1) / fb->cycle_ps : 0;
	int rc = fl_add_link_latency(n, cyc, err);
	free(cyc);
	return rc;
}

static int flit_agree(struct net_backend *b, int rc, struct nl_err *err)
{
	struct flit_backend *fb = b->state;
	struct flitnet *n = fb->net;
	if (!n->mx)
		return rc;
	/* A rank that learned of a failure in a step has its placeholder
	 * line; the others say whether they failed, in what is a step's
	 * first collective for a rank still in the network's steps. */
	const bool told = fl_mpi_peer_check(n, NULL) < 0;
	if (!told)
		fl_mpi_step_end(n, rc < 0);
	return net_mpi_agree(b->mpi, told ? 0 : rc, err);
}

/* Messages drive the network: none of a synthetic experiment's phases. */
static const struct config_unread flit_unread = {.keys = net_sim_experiment_keys};

const struct net_backend_ops net_backend_flit_ops = {
	.name = "flit",
	.help = "flit-level network model: BookSim2-compatible input-queued VC routers",
	.spreads_over_ranks = true,
	.config = &net_router_table,
	.unread = &flit_unread,
	.create = flit_create,
	.destroy = flit_destroy,
	.send = flit_send,
	.advance = flit_advance,
	.report = flit_report,
	.count_jobs = flit_count_jobs,
	.job_links = flit_job_links,
	.set_link_latency = flit_set_link_latency,
	.agree = flit_agree,
};
