/* Unit tests: the flit model split into router-range partitions (issue 10
 * part 2, part.c) and run by threads (issue 16, workers.c). One partition
 * or several, run cycle by cycle in one thread or side by side in two or
 * three, must give the same results bit for bit: synthetic points on
 * torus, dragonfly, fat tree, speedups, VCT and multi-cycle stages, and
 * message deliveries (order and times) through the flit backend. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "core/config.h"
#include "core/error.h"
#include "net/net_internal.h"
#include "net/workers.h"
#include "topo/topo.h"
#include "traffic/traffic.h"
#include "net_config.h"
#include "point_json.h"
#include "test.h"

/* The ways of running one network compared below: partitions one after
 * the other, threads (each raising partitions to its count), and more
 * partitions than threads. */
#define N_SPLITS 10
static const char *const splits[N_SPLITS][3] = {
	{"partitions=1", NULL}, {"partitions=2", NULL}, {"partitions=3", NULL}, {"partitions=4", NULL},
	{"threads=2", NULL},    {"threads=3", NULL},    {"partitions=4", "threads=2"},
	/* METIS's cut: partitions that are not router ranges. */
	{"partitions=3", "partitioner=metis"}, {"partitions=4", "partitioner=metis"},
	{"partitions=4", "partitioner=metis", "threads=2"},
};

/* Whether split p is run here. Under ThreadSanitizer (.ci/run's
 * build-tsan, which runs this test alone) only the splits that run
 * threads: the sequential ones are the same code the plain and
 * sanitizer builds run, and under TSan they doubled the test's time. */
static bool split_runs_here(size_t p)
{
#if defined(__SANITIZE_THREAD__)
	for (int j = 0; j < 3 && splits[p][j]; j++)
		if (!strncmp(splits[p][j], "threads=", 8))
			return true;
	return p == 0;
#else
	(void)p;
	return true;
#endif
}

/* Whether synthetic case i runs split p. Under ThreadSanitizer each case
 * runs half the threaded splits, the halves alternating from case to
 * case, so every split still meets every kind of case across the list:
 * the point there is data races on the cases' paths, and all four
 * threaded splits of all 17 cases were 128 s of the test's 153 s (the
 * sanitizer phase's longest test). The plain and ASan builds run them all. */
static bool synthetic_split_runs(size_t p, size_t i)
{
	if (!split_runs_here(p))
		return false;
#if defined(__SANITIZE_THREAD__)
	size_t before = 0; /* threaded splits listed before p */
	for (size_t q = 1; q < p; q++)
		before += split_runs_here(q);
	return p == 0 || before % 2 == i % 2;
#else
	(void)i;
	return true;
#endif
}

static char *point_json(const char *const *base, const char *const *parts, struct nl_err *e)
{
	const char *kv[24];
	int k = 0;
	for (int j = 0; base[j]; j++)
		kv[k++] = base[j];
	kv[k++] = "sample_period=300";
	kv[k++] = "max_samples=6";
	kv[k++] = "warmup_periods=2";
	kv[k++] = "check_interval=97"; /* conservation over all partitions' wheels */
	for (int j = 0; j < 3 && parts[j]; j++)
		kv[k++] = parts[j];
	kv[k] = NULL;
	return point_json_kv(kv, false, e);
}

/* Synthetic points: the same JSON for 1, 2, 3 and 4 partitions, and 2 and
 * 3 threads. */
static void test_synthetic_split(void)
{
	static const char *const cases[][10] = {
		{"topology=torus:k=8x8", "routing_function=dor", "num_vcs=2", "injection_rate=0.35", NULL},
		{"topology=torus:k=6x5", "routing_function=valiant", "num_vcs=4", "packet_size=1..8",
		 "injection_rate=0.25", NULL},
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=min:select=adaptive", "num_vcs=4",
		 "injection_rate=0.3", NULL},
		{"topology=fattree:k=4,n=3", "routing_function=min", "num_vcs=2", "traffic=bitcomp", NULL},
		{"topology=torus:k=4x4", "internal_speedup=2", "input_speedup=2", "output_speedup=2",
		 "injection_rate=0.4", NULL},
		{"topology=torus:k=4x4", "flow_control=vct", "packet_size=4", "injection_rate=0.3", NULL},
		{"topology=mesh:k=4x5", "routing_delay=2", "vc_alloc_delay=2", "sw_alloc_delay=3", "st_final_delay=2",
		 "wait_for_tail_credit=1", "packet_size=3", NULL},
		{"topology=torus:k=4x4", "visit_order=reverse", "packet_size=2", "injection_rate=0.3", NULL},
		/* Per-link latencies (issue 11 part 1): boundary events of
		 * different delays, some beyond the wheel (far heap). */
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=min:select=adaptive", "num_vcs=4",
		 "terminal_latency=2", "local_latency=3", "global_latency=40", "injection_rate=0.3", NULL},
		/* BookSim's flatfly on-chip channels (issue 11 part 7): 2..12 cycles. */
		{"topology=hyperx:s=4x4,t=4", "routing_function=min:select=adaptive", "num_vcs=4", "noc_latency=1",
		 "injection_rate=0.35", NULL},
		/* Lookahead routing: adaptive choices at the step start. */
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=min:select=adaptive", "num_vcs=4",
		 "routing_delay=0", "injection_rate=0.35", NULL},
		{"topology=torus:k=4x4", "routing_delay=0", "visit_order=reverse", "packet_size=2", "injection_rate=0.3",
		 NULL},
		/* BookSim's lookahead timing: switch winners decided at their
		 * downstream routers, across boundaries at the exchange; one
		 * adaptive, multi-flit (heads that cross and stay), one with
		 * the BookSim dragonfly's long links and speedup. */
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=min:select=adaptive", "num_vcs=4",
		 "routing_delay=0", "lookahead_decide=upstream", "packet_size=1..4", "injection_rate=0.35", NULL},
		/* A per-hop adaptive function decided upstream (not hop_pure):
		 * with METIS's partitions the exchange merges the partitions'
		 * lists by port. */
		{"topology=fattree:k=4,n=3", "routing_function=anca", "num_vcs=2", "routing_delay=0",
		 "lookahead_decide=upstream", "packet_size=1..4", "injection_rate=0.5", NULL},
		/* The output-queue view reads the clock: decided at the exchange
		 * as of the cycle that ended, as one partition decides. */
		{"topology=fattree:k=4,n=3", "routing_function=anca:queue=output", "num_vcs=2", "routing_delay=0",
		 "lookahead_decide=upstream", "packet_size=1..4", "injection_rate=0.5", NULL},
		/* Equality with amin, a VC per hop (seed 002 §4). */
		{"topology=equality:n=40,sa=-1/1/5/-11/17,sb=6/16/20,p=2", "routing_function=amin", "num_vcs=4",
		 "injection_rate=0.4", NULL},
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=ugal", "num_vcs=6", "routing_delay=0",
		 "lookahead_decide=upstream", "local_latency=10", "global_latency=100", "internal_speedup=2",
		 "injection_rate=0.3", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct nl_err e = {0};
		char *one = point_json(cases[i], splits[0], &e);
		CHECK_OK(one ? 0 : -1, &e);
		for (size_t p = 1; one && p < N_SPLITS; p++) {
			if (!synthetic_split_runs(p, i))
				continue;
			char *s = point_json(cases[i], splits[p], &e);
			CHECK_OK(s ? 0 : -1, &e);
			if (s && strcmp(one, s))
				fprintf(stderr, "case %zu, %s %s differs from one partition\n", i, splits[p][0],
					splits[p][1] ? splits[p][1] : "");
			CHECK_STR(one, s);
			free(s);
		}
		free(one);
	}
}

/* As many partitions as routers, or one fewer: nearly every link crosses
 * a boundary and a partition takes events from several others in one
 * cycle, which the merge lists per (source, target) pair (part.c,
 * fl_part_list_inbound). The bytes are still one partition's. */
static void test_router_per_partition(void)
{
	static const char *const cases[][10] = {
		{"topology=torus:k=4x4", "routing_function=dor", "num_vcs=2", "packet_size=1..4", "injection_rate=0.4",
		 NULL},
		/* 36 routers, upstream decisions across every boundary. */
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=min:select=adaptive", "num_vcs=4",
		 "routing_delay=0", "lookahead_decide=upstream", "packet_size=1..4", "injection_rate=0.35", NULL},
	};
	static const char *const many[][2][3] = {
		{{"partitions=15", NULL}, {"partitions=35", NULL}},
		{{"partitions=16", NULL}, {"partitions=36", NULL}},
		{{"partitions=16", "threads=2", NULL}, {"partitions=36", "threads=3", NULL}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct nl_err e = {0};
		char *one = point_json(cases[i], splits[0], &e);
		CHECK_OK(one ? 0 : -1, &e);
		for (size_t p = 0; one && p < sizeof many / sizeof *many; p++) {
			const char *const *parts = many[p][i];
			char *s = point_json(cases[i], parts, &e);
			CHECK_OK(s ? 0 : -1, &e);
			if (s && strcmp(one, s))
				fprintf(stderr, "case %zu, %s %s differs from one partition\n", i, parts[0],
					parts[1] ? parts[1] : "");
			CHECK_STR(one, s);
			free(s);
		}
		free(one);
	}
}

/* Deadlocks: the same error line, report and JSON for any N (the checks
 * read each input VC's packet from its owner's pool). */
static char *deadlock_text(const char *const *base, const char *const *parts)
{
	const char *kv[16];
	int k = 0;
	for (int j = 0; base[j]; j++)
		kv[k++] = base[j];
	for (int j = 0; j < 3 && parts[j]; j++)
		kv[k++] = parts[j];
	kv[k] = NULL;
	struct net_point pt;
	struct nl_err e = {0};
	int rc = run_point_kv(kv, &pt, &e);
	json_t *j = net_point_json(&pt, NULL, true);
	char *js = json_dumps(j, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	size_t len = strlen(js) + strlen(e.msg) + (pt.report ? strlen(pt.report) : 0) + 64;
	char *s = malloc(len);
	snprintf(s, len, "rc %d\n%s\n%s\n%s", rc, e.msg, pt.report ? pt.report : "", js);
	free(js);
	json_decref(j);
	net_point_release(&pt);
	return s;
}

static void test_deadlock_split(void)
{
	static const char *const cases[][10] = {
		{"topology=hyperx:s=4x4x4,t=4", "num_vcs=4", "vc_buf_size=8",
		 "routing_function=min:select=hash,classes=none", "injection_rate=1.0", "sim_type=throughput", NULL},
		{"topology=torus:k=8", "routing_function=dor:dateline=0", "num_vcs=1", "vc_buf_size=2", "packet_size=8",
		 "traffic=tornado", "injection_rate=0.9", "sim_type=throughput", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *one = deadlock_text(cases[i], splits[0]);
		CHECK(strncmp(one, "rc -", 4) == 0 && strstr(one, "network deadlock at cycle"));
		for (size_t p = 1; p < N_SPLITS; p++) {
			if (!split_runs_here(p))
				continue;
			char *s = deadlock_text(cases[i], splits[p]);
			CHECK_STR(one, s);
			free(s);
		}
		free(one);
	}
}

/* A network's keys bound from key=value strings, its topology and
 * uniform traffic over it: what the engine-level tests below build their
 * flitnet from. */
struct part_setup {
	struct config cfg;
	struct net_cfg nc;
	struct router_cfg rc;
	struct sim_cfg sc;
	struct traffic_cfg tc;
	struct topo *t;
	struct traffic *tr;
};

static void part_setup_release(struct part_setup *s)
{
	traffic_free(s->tr);
	topo_free(s->t);
	config_release(&s->cfg);
}

static int part_setup_new(struct part_setup *s, const char *const *kv, struct nl_err *e)
{
	memset(s, 0, sizeof *s); /* sc.mpi is not a key: config_bind leaves it */
	int rc = make_config(&s->cfg, kv, e);
	if (rc)
		return rc;
	if ((rc = config_bind(&s->cfg, &net_network_table, &s->nc, e)) ||
	    (rc = config_bind(&s->cfg, &net_router_table, &s->rc, e)) ||
	    (rc = config_bind(&s->cfg, &net_sim_table, &s->sc, e)) ||
	    (rc = config_bind(&s->cfg, &traffic_table, &s->tc, e)) || (rc = topo_new(s->nc.topology, &s->t, e)) ||
	    (rc = traffic_new("uniform", s->t, 1, &s->tr, e)))
		part_setup_release(s);
	return rc;
}

/* The split itself: contiguous ranges covering every router, links that
 * know their target's partition, packets that really cross. */
static void test_ranges_and_crossing(void)
{
	const char *kv[] = {"topology=torus:k=5x4", "num_vcs=2", "partitions=3", "check_interval=50", NULL};
	struct nl_err e = {0};
	struct part_setup ps;
	struct flitnet *n = NULL;

	CHECK_OK(part_setup_new(&ps, kv, &e), &e);
	const struct topo *t = ps.t;
	CHECK_OK(flitnet_new(&ps.nc, &ps.rc, &ps.sc, ps.t, &n, &e), &e);
	CHECK_OK(flitnet_set_traffic(n, ps.tr, 0.4, 2, 2, &e), &e);
	CHECK_UINT(n->n_parts, ==, 3);
	uint32_t next = 0;
	for (uint32_t k = 0; k < n->n_parts; k++) {
		const struct flitnet *p = n->part[k];
		CHECK_UINT(p->r_lo, ==, next);
		CHECK_UINT(p->r_hi, >, p->r_lo);
		for (uint32_t r = p->r_lo; r < p->r_hi; r++)
			CHECK_UINT(n->r_part[r], ==, k);
		next = p->r_hi;
	}
	CHECK_UINT(next, ==, t->n_routers);
	for (uint32_t g = 0; g < t->n_ports; g++) {
		const struct fl_link *l = &n->ports[g].link;
		if (l->flit_kind == EV_FLIT_ROUTER)
			CHECK_UINT(l->part, ==, n->r_part[l->target]);
		else
			CHECK_UINT(l->part, ==, n->r_part[t->port_router[g]]);
	}
	CHECK_OK(flitnet_run_until(n, 3000, &e), &e);
	CHECK_OK(flitnet_check(n, &e), &e);
	/* Every partition allocated packet records of its own and sent
	 * events across its boundary. */
	for (uint32_t k = 0; k < n->n_parts; k++) {
		CHECK_UINT(n->part[k]->pool.n_pkts, >, 0);
		uint32_t sent = 0;
		for (uint32_t q = 0; q < n->n_parts; q++)
			sent += n->part[k]->xbox[q].cap;
		CHECK_UINT(sent, >, 0);
	}
	flitnet_free(n);
	part_setup_release(&ps);
}

/* Message deliveries through the flit backend: every delivery starts a
 * reply, so the order and times of deliveries shape the rest of the run. */
struct deliv {
	char *log;
	size_t len, cap;
	uint64_t ids[4096];
	uint32_t n;
};

static void on_deliver(void *ctx, uint64_t id, uint64_t t_ps)
{
	struct deliv *d = ctx;
	char buf[64];
	int w = snprintf(buf, sizeof buf, "%llu@%llu;", (unsigned long long)id, (unsigned long long)t_ps);
	if (d->len + (size_t)w + 1 > d->cap) {
		d->cap = d->cap ? 2 * d->cap : 4096;
		d->log = realloc(d->log, d->cap);
	}
	memcpy(d->log + d->len, buf, (size_t)w + 1);
	d->len += (size_t)w;
	if (d->n < sizeof d->ids / sizeof *d->ids)
		d->ids[d->n++] = id;
}

/* The flit backend over `spec` with the keys kv; 0, or an error with the
 * half-built parts released. */
struct part_backend {
	struct config cfg;
	struct topo *t;
	struct net_backend b;
};

static int part_backend_open(struct part_backend *pb, const char *spec, const char *const *kv, struct nl_err *e)
{
	memset(pb, 0, sizeof *pb);
	int rc = make_config(&pb->cfg, kv, e);
	if (rc)
		return rc;
	if (!(rc = topo_new(spec, &pb->t, e))) {
		pb->b.ops = net_backend_find("flit", e);
		rc = pb->b.ops ? pb->b.ops->create(&pb->b, &pb->cfg, pb->t, e) : e->code;
	}
	if (rc) {
		topo_free(pb->t);
		config_release(&pb->cfg);
	}
	return rc;
}

static void part_backend_close(struct part_backend *pb)
{
	pb->b.ops->destroy(&pb->b);
	topo_free(pb->t);
	config_release(&pb->cfg);
}

static char *backend_log(const char *extra, const char *const *parts, struct nl_err *e)
{
	const char *kv[] = {"topology=torus:k=4x4", "num_vcs=2", "packet_bytes=256", "flit_bytes=32", extra, parts[0],
			    parts[1], NULL};
	struct part_backend pb;
	struct net_backend *b = &pb.b;
	struct deliv d = {0};
	const uint32_t E = 16;

	if (part_backend_open(&pb, "torus:k=4x4", kv, e))
		return NULL;
	uint64_t now = 0;
	int rc = 0;
	/* All to all at time 0, sizes 1 to 4 packets. */
	for (uint32_t s = 0; s < E && !rc; s++)
		for (uint32_t k = 1; k < E && !rc; k++)
			rc = b->ops->send(b, 0, s, (s + k) % E, 64 + 192 * ((s + k) % 4), s * E + k, e);
	while (!rc) {
		uint64_t reached, next;
		d.n = 0;
		rc = b->ops->advance(b, UINT64_MAX / 2, on_deliver, &d, &reached, &next, e);
		if (rc)
			break;
		now = reached;
		/* Replies to the first round: the destination answers at once. */
		for (uint32_t i = 0; i < d.n && !rc; i++)
			if (d.ids[i] < E * E) {
				uint32_t s = (uint32_t)(d.ids[i] / E), k = (uint32_t)(d.ids[i] % E);
				rc = b->ops->send(b, now, (s + k) % E, s, 32, 1000000 + d.ids[i], e);
			}
		if (!d.n && next == UINT64_MAX)
			break;
	}
	part_backend_close(&pb);
	if (rc) {
		free(d.log);
		return NULL;
	}
	return d.log;
}

static void test_backend_split(void)
{
	/* Speedups: deliveries of one cycle come from several scheduling
	 * cycles, so a partition's wheel does not list them in router order. */
	static const char *const extra[] = {"num_vcs=2", "internal_speedup=2.0", "output_speedup=2"};
	for (size_t x = 0; x < 3; x++) {
	struct nl_err e = {0};
	char *one = backend_log(extra[x], splits[0], &e);
	CHECK_OK(one ? 0 : -1, &e);
	/* 240 messages and 240 replies. */
	size_t n_deliv = 0;
	for (const char *c = one; c && *c; c++)
		n_deliv += *c == ';';
	CHECK_UINT(n_deliv, ==, 480);
	for (size_t p = 1; one && p < N_SPLITS; p++) {
		if (!split_runs_here(p))
			continue;
		char *s = backend_log(extra[x], splits[p], &e);
		CHECK_OK(s ? 0 : -1, &e);
		CHECK_STR(one, s);
		free(s);
	}
	free(one);
	}
}

/* Sparse messages (issue 11's sleeping partitions, flitnet_run.c): three
 * tokens hop between far-apart endpoints of an 8x8 torus, each sent
 * 300 ns after the last arrived, so most partitions sleep most of the
 * time, wake on a send or on a flit crossing into them, and the network
 * idles between hops. *slept counts the advances after which a partition
 * slept. */
static char *backend_sparse_log(const char *extra, const char *const *parts, uint32_t *slept, struct nl_err *e)
{
	const char *kv[] = {"topology=torus:k=8x8", "num_vcs=2", "packet_bytes=256", "flit_bytes=32", extra, parts[0],
			    parts[1], parts[2], NULL};
	struct part_backend pb;
	struct net_backend *b = &pb.b;
	struct deliv d = {0};
	const uint32_t E = 64;

	if (part_backend_open(&pb, "torus:k=8x8", kv, e))
		return NULL;
	const struct flitnet *n = fl_backend_net(b);
	int rc = 0;
	for (uint32_t k = 0; k < 3 && !rc; k++)
		rc = b->ops->send(b, 0, 21 * k, (21 * k + 27) % E, 32, k, e);
	/* The hops waiting for their time: the network is advanced to it
	 * first, as net.h asks of a send. */
	struct hop {
		uint64_t at_ps, id;
	} wait[3];
	uint32_t n_wait = 0;
	for (bool sent = true; !rc; ) {
		uint64_t until = UINT64_MAX / 2, reached, next;
		for (uint32_t i = 0; i < n_wait; i++)
			if (wait[i].at_ps < until)
				until = wait[i].at_ps;
		d.n = 0;
		rc = b->ops->advance(b, until, on_deliver, &d, &reached, &next, e);
		if (rc)
			break;
		for (uint32_t k = 1; k < n->n_parts && n->n_parts > 1; k++)
			if (fl_part_asleep(n, k)) {
				(*slept)++;
				break;
			}
		sent = false;
		for (uint32_t i = 0; i < n_wait && !rc;) {
			if (wait[i].at_ps > reached) {
				i++;
				continue;
			}
			/* Token id % 3 at hop id / 3 + 1, from where it arrived. */
			const uint64_t id = wait[i].id;
			const uint32_t at = (uint32_t)((21 * (id % 3) + 27 * (id / 3 + 1)) % E);
			rc = b->ops->send(b, reached, at, (at + 27) % E, 32 + 200 * (id % 7), id + 3, e);
			wait[i] = wait[--n_wait];
			sent = true;
		}
		for (uint32_t i = 0; i < d.n; i++)
			if (d.ids[i] + 3 < 3 * 21)
				wait[n_wait++] = (struct hop){reached + 300000, d.ids[i]};
		if (!d.n && !n_wait && !sent && next == UINT64_MAX)
			break;
	}
	part_backend_close(&pb);
	if (rc) {
		free(d.log);
		return NULL;
	}
	return d.log;
}

static void test_backend_sparse(void)
{
	/* A whole speedup lets partitions sleep; 1.5 keeps them stepping
	 * idle cycles; a 4-cycle channel makes far events; lookahead routing
	 * decided upstream, decisions made at the exchange. */
	static const char *const extra[] = {"num_vcs=2", "internal_speedup=2.0", "internal_speedup=1.5",
					    "channel_latency=4", "lookahead_decide=upstream"};
	static const char *const sparse_splits[][3] = {
		{"partitions=1", NULL}, {"partitions=2", NULL}, {"partitions=8", NULL},
		{"partitions=8", "partitioner=metis", NULL}, {"threads=2", NULL},
	};
	for (size_t x = 0; x < sizeof extra / sizeof *extra; x++) {
		struct nl_err e = {0};
		const char *rd = x == 4 ? "routing_delay=0" : "routing_delay=1";
		const char *base[3] = {sparse_splits[0][0], rd, NULL};
		uint32_t slept = 0;
		char *one = backend_sparse_log(extra[x], base, &slept, &e);
		CHECK_OK(one ? 0 : -1, &e);
		size_t n_deliv = 0;
		for (const char *c = one; c && *c; c++)
			n_deliv += *c == ';';
		CHECK_UINT(n_deliv, ==, 63);
		for (size_t p = 1; one && p < sizeof sparse_splits / sizeof *sparse_splits; p++) {
			if (!split_runs_here(p == 4 ? 4 : 0))
				continue;
			const char *parts[3] = {sparse_splits[p][0], sparse_splits[p][1] ? sparse_splits[p][1] : rd,
						sparse_splits[p][1] ? rd : NULL};
			slept = 0;
			char *s = backend_sparse_log(extra[x], parts, &slept, &e);
			CHECK_OK(s ? 0 : -1, &e);
			if (s && strcmp(one, s))
				fprintf(stderr, "  %s %s %s: not partitions=1's deliveries\n", extra[x], parts[0],
					parts[1]);
			if (s)
				CHECK_STR(one, s);
			/* One thread and a whole speedup: partitions slept. */
			if (p != 4 && x != 2)
				CHECK_UINT(slept, >, 0);
			else
				CHECK_UINT(slept, ==, 0);
			free(s);
		}
		free(one);
	}
}

/* The cycles with work after fl_gen_stop (throughput runs' drain), to the
 * last one, as "c c c ...": the cycles the run loop runs, where it takes
 * its routing snapshots and deadlock scans. */
static char *stopped_work(const char *parts, struct nl_err *e)
{
	const char *kv[] = {"topology=torus:k=8x8", "num_vcs=2", parts, NULL};
	struct part_setup ps;
	struct flitnet *n = NULL;
	char *log = NULL;
	size_t len = 0, cap = 0;
	int rc_ = part_setup_new(&ps, kv, e);
	if (rc_)
		return NULL;
	if (!(rc_ = flitnet_new(&ps.nc, &ps.rc, &ps.sc, ps.t, &n, e)) &&
	    !(rc_ = flitnet_set_traffic(n, ps.tr, 0.01, 1, 1, e)))
		rc_ = flitnet_run_until(n, 500, e);
	if (!rc_)
		fl_gen_stop(n);
	for (uint64_t c; !rc_ && (c = fl_next_work(n)) != UINT64_MAX;) {
		char buf[32];
		int w = snprintf(buf, sizeof buf, "%llu ", (unsigned long long)c);
		if (len + (size_t)w + 1 > cap) {
			cap = cap ? 2 * cap : 1024;
			log = realloc(log, cap);
		}
		memcpy(log + len, buf, (size_t)w + 1);
		len += (size_t)w;
		rc_ = flitnet_run_until(n, c + 1, e);
	}
	flitnet_free(n);
	part_setup_release(&ps);
	if (rc_) {
		free(log);
		return NULL;
	}
	return log ? log : strdup("");
}

/* Sources stopped (fl_gen_stop) while partitions slept until their next
 * packet: they woke at those cycles anyway, cycles with no work that one
 * partition never runs (64 partitions: 537, 539, 540, 545, ... after 536,
 * where the last flit arrives), each with an LBR snapshot, a deadlock
 * scan, a conservation check. */
static void test_stopped_sources(void)
{
	struct nl_err e = {0};
	char *one = stopped_work("partitions=1", &e);
	CHECK_OK(one ? 0 : -1, &e);
	CHECK(one && strlen(one) > 0);
	static const char *const many[] = {"partitions=8", "partitions=64"};
	for (size_t p = 0; one && p < sizeof many / sizeof *many; p++) {
		char *s = stopped_work(many[p], &e);
		CHECK_OK(s ? 0 : -1, &e);
		if (s && strcmp(one, s))
			fprintf(stderr, "  %s: cycles with work after the sources stopped differ\n", many[p]);
		if (s)
			CHECK_STR(one, s);
		free(s);
	}
	free(one);
}

/* A cycle's merge targets (n->xtgt, n_parts entries) when the root's
 * allocations fail from the nth on, among them the growth of a target's
 * list of sources (fl_part_list_add): each target once. A target whose
 * list could not grow was listed again for each of its sources, past the
 * array's end: 17 and 18 targets of 16 partitions at 0.6 load on the 8x8
 * torus, the run's end an "out of memory" line. */
static void test_merge_targets_oom(void)
{
	const char *kv[] = {"topology=torus:k=8x8", "num_vcs=2", "partitions=16", NULL};
	struct nl_err e = {0};
	struct part_setup ps;

	CHECK_OK(part_setup_new(&ps, kv, &e), &e);
	uint32_t failed = 0;
	for (uint32_t nth = 1; nth <= 30; nth++) {
		struct flitnet *n = NULL;
		CHECK_OK(flitnet_new(&ps.nc, &ps.rc, &ps.sc, ps.t, &n, &e), &e);
		CHECK_OK(flitnet_set_traffic(n, ps.tr, 0.6, 4, 4, &e), &e);
		n->fail_nth = nth; /* the root's: it grows the targets' lists */
		int rc_ = 0;
		bool once = true;
		while (!rc_ && n->now < 300) {
			rc_ = flitnet_run_until(n, n->now + 1, &e);
			once &= n->n_xtgt <= n->n_parts;
			for (uint32_t i = 0; once && i < n->n_xtgt; i++)
				for (uint32_t j = 0; j < i; j++)
					once &= n->xtgt[i] != n->xtgt[j];
		}
		if (!once)
			fprintf(stderr, "  fail_nth %u: a merge target listed twice (%u of %u partitions)\n", nth,
				n->n_xtgt, n->n_parts);
		CHECK(once);
		if (rc_) { /* 0: the root made fewer than nth allocations in 300 cycles */
			CHECK_ERR(rc_, NL_ENOMEM, &e, "out of memory at cycle");
			failed++;
		}
		flitnet_free(n);
	}
	CHECK_UINT(failed, >=, 25);
	part_setup_release(&ps);
}

static void test_errors(void)
{
	struct net_point pt;
	struct nl_err e = {0};
	const char *many[] = {"topology=torus:k=4x4", "partitions=17", NULL};
	CHECK_ERR(run_point_kv(many, &pt, &e), NL_ECONFIG, &e,
		  "key 'partitions': value '17': out of range: expected 0 (automatic) or 1..16 (one router at least in "
		  "each)");
	const char *neg[] = {"partitions=-1", NULL};
	CHECK_ERR(run_point_kv(neg, &pt, &e), NL_ECONFIG, &e, "key 'partitions': value '-1': out of range");
	const char *threads[] = {"topology=torus:k=4x4", "threads=17", NULL};
	CHECK_ERR(run_point_kv(threads, &pt, &e), NL_ECONFIG, &e,
		  "key 'threads': value '17': out of range: expected 0 (automatic) or 1..16 (a router at least per thread)");
	/* Readers of another router's live state name the setting that
	 * split the network. */
	const char *glob[] = {"topology=dragonfly:a=4,p=2,h=2", "routing_function=ugal:mode=global", "num_vcs=6",
			      "threads=2", NULL};
	CHECK_ERR(run_point_kv(glob, &pt, &e), NL_ECONFIG, &e,
		  "reads the live global congestion view, which threads = 2 cannot give (other partitions' channels change meanwhile); expected partitions = 1 and threads = 1");
	/* threads = 0 was named as what it resolved to ("threads = 2"), a
	 * value nobody set and another machine would not pick; on one
	 * processor it is one thread, and the run is not refused. */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus >= 2) {
		const char *glob0[] = {"topology=dragonfly:a=16,p=1,h=8", "routing_function=ugal:mode=global",
				       "num_vcs=6", "threads=0", NULL};
		char want[200];
		snprintf(want, sizeof want,
			 "which threads = 0 (%ld threads here: one per 512 routers, at most one per processor) cannot "
			 "give",
			 cpus < 4 ? cpus : 4); /* 2,064 routers: 4 threads at most */
		CHECK_ERR(run_point_kv(glob0, &pt, &e), NL_ECONFIG, &e, want);
	}
	/* ... but the automatic count (2,064 routers: 8 partitions) gives it
	 * its one partition. */
	const char *glob_auto[] = {"topology=dragonfly:a=16,p=1,h=8", "routing_function=ugal:mode=global", "num_vcs=6",
				   "injection_rate=0.05", "sample_period=50", "max_samples=2", "warmup_periods=1", NULL};
	CHECK_OK(run_point_kv(glob_auto, &pt, &e), &e);
	net_point_release(&pt);
	/* threads = 0 on a small network: one thread (fl_workers_resolve). */
	const char *autot[] = {"topology=torus:k=2", "threads=0", "sample_period=100", "max_samples=2", NULL};
	CHECK_OK(run_point_kv(autot, &pt, &e), &e);
	net_point_release(&pt);
}

/* partitions = 0 (the default): on T threads 8 T router ranges dealt
 * round robin, at most one per 64 routers and never fewer than the
 * threads; from 2,048 routers on, one per 256 routers at least, on one
 * thread too; under MPI threads x ranks. */
static void test_partitions_auto(void)
{
	CHECK_UINT(fl_partitions_auto(1, 1, 2047), ==, 1);
	CHECK_UINT(fl_partitions_auto(1, 1, 2064), ==, 8);
	CHECK_UINT(fl_partitions_auto(1, 1, 64000), ==, 250);
	CHECK_UINT(fl_partitions_auto(2, 1, 1280), ==, 16);
	CHECK_UINT(fl_partitions_auto(2, 1, 8000), ==, 31);
	CHECK_UINT(fl_partitions_auto(4, 1, 2048), ==, 32);
	CHECK_UINT(fl_partitions_auto(2, 1, 256), ==, 4);
	CHECK_UINT(fl_partitions_auto(2, 1, 64), ==, 2);
	CHECK_UINT(fl_partitions_auto(2, 1, 2), ==, 2);
	CHECK_UINT(fl_partitions_auto(2, 4, 64000), ==, 8);
	CHECK_UINT(fl_partitions_auto(1, 1, 1u << 22), ==, 4096);
	/* Where the automatic count exceeds the threads (192 routers on 2
	 * threads: 3 ranges, the first and third on thread 0), with traffic
	 * crowded into a router range (bitcomp's power-of-two subset: the
	 * first 128 endpoints send), the bytes are one partition's. */
	static const char *const base[] = {"topology=torus:k=16x12", "routing_function=dor", "num_vcs=2",
					   "traffic=bitcomp", "injection_rate=0.3", NULL};
	static const char *const one_part[] = {"partitions=1", NULL};
	static const char *const autop[] = {"threads=2", NULL};
	struct nl_err e = {0};
	char *one = point_json(base, one_part, &e);
	CHECK_OK(one ? 0 : -1, &e);
	char *two = point_json(base, autop, &e);
	CHECK_OK(two ? 0 : -1, &e);
	if (one && two)
		CHECK_STR(one, two);
	free(one);
	free(two);
}

int main(void)
{
	TEST_RUN(test_partitions_auto);
	TEST_RUN(test_synthetic_split);
	TEST_RUN(test_router_per_partition);
	TEST_RUN(test_ranges_and_crossing);
	TEST_RUN(test_deadlock_split);
	TEST_RUN(test_backend_split);
	TEST_RUN(test_backend_sparse);
	TEST_RUN(test_stopped_sources);
	TEST_RUN(test_merge_targets_oom);
	TEST_RUN(test_errors);
	return test_done();
}
