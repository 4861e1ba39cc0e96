/* Unit tests: FleX's routing functions (seed 000 §III-C): LBR's selection
 * maths (eqs. 9-16) on hand-computed cases, its snapshot -> alphas ->
 * injection chain, that packets follow the channels the snapshot reads,
 * flexmin's Algorithm 1, and determinism of whole runs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "net/net.h"
#include "net_config.h"
#include "route/lbr.h"
#include "route/route.h"
#include "test.h"
#include "topo/topo.h"
#include "topo/topo_flex.h"

/* eqs. 9-10 by hand.
 * Case A: q = (2, 6, 10, 14), lambda_s T = L = 8, N + M = 4.
 *   eq. 9: (8 + 32) / 4 = 10; paths with q >= 10 go: 10 and 14.
 *   Again over (2, 6): (8 + 8) / 2 = 8; neither is >= 8, the set stays.
 *   eq. 10 with N' + M' = 2: alpha_1 = 1/2 + 8/(8*2) - 2/8 = 0.75,
 *   alpha_2 = 1/2 + 1/2 - 6/8 = 0.25; eq. 16: 2 + 8*0.75 = 6 + 8*0.25 = 8.
 * Case B (a removal leaves a negative alpha, lbr.c's repeated removal):
 *   q = (0, 5, 9, 20), L = 4. (4 + 34)/4 = 9.5 removes 20; eq. 10 over
 *   (0, 5, 9) would give alpha_3 = 1/3 + 14/12 - 9/4 = -0.75 < 0, so eq. 9
 *   again: (4 + 14)/3 = 6 removes 9; (4 + 5)/2 = 4.5 removes 5; (4 + 0)/1
 *   = 4 keeps 0: alpha = (1, 0, 0, 0).
 * Case C: equal queues q = (3, 3, 3, 3), L = 2: level (2 + 12)/4 = 3.5,
 *   nothing removed, alpha = (3.5 - 3)/2 = 0.25 each (eq. 10: 1/4 + 12/8
 *   - 3/2 = 0.25).
 * Case D: the source's own rate dominates: q = (0, 40), L = 100: level 70,
 *   alpha = (0.7, 0.3). */
static void test_lbr_alphas_by_hand(void)
{
	double a[4];
	const double qa[4] = {2, 6, 10, 14};
	lbr_alphas(qa, 4, 8, a);
	CHECK_NEAR(a[0], 0.75, 1e-12);
	CHECK_NEAR(a[1], 0.25, 1e-12);
	CHECK_NEAR(a[2], 0.0, 0);
	CHECK_NEAR(a[3], 0.0, 0);
	/* eq. 16: the expected queues of the paths left are equal. */
	CHECK_NEAR(qa[0] + 8 * a[0], qa[1] + 8 * a[1], 1e-12);

	const double qb[4] = {0, 5, 9, 20};
	lbr_alphas(qb, 4, 4, a);
	CHECK_NEAR(a[0], 1.0, 1e-12);
	CHECK_NEAR(a[1] + a[2] + a[3], 0.0, 0);

	const double qc[4] = {3, 3, 3, 3};
	lbr_alphas(qc, 4, 2, a);
	for (int k = 0; k < 4; k++)
		CHECK_NEAR(a[k], 0.25, 1e-12);

	const double qd[2] = {0, 40};
	lbr_alphas(qd, 2, 100, a);
	CHECK_NEAR(a[0], 0.7, 1e-12);
	CHECK_NEAR(a[1], 0.3, 1e-12);
}

/* Lemma 1 on random queues: every alpha in [0, 1], their sum 1, and the
 * paths kept share eq. 16's level. */
static void test_lbr_alphas_lemma1(void)
{
	struct rng g;
	rng_init(&g, 7, 0, 0);
	for (int it = 0; it < 2000; it++) {
		uint32_t K = 1 + (uint32_t)rng_below(&g, LBR_MAX_K);
		double q[LBR_MAX_K], a[LBR_MAX_K], L = 1 + (double)rng_below(&g, 200), sum = 0, level = -1;
		for (uint32_t k = 0; k < K; k++)
			q[k] = (double)rng_below(&g, 300);
		lbr_alphas(q, K, L, a);
		for (uint32_t k = 0; k < K; k++) {
			CHECK(a[k] >= 0 && a[k] <= 1);
			sum += a[k];
			if (a[k] > 0) {
				double e = q[k] + L * a[k];
				if (level < 0)
					level = e;
				CHECK_NEAR(e, level, 1e-9);
			}
		}
		CHECK_NEAR(sum, 1.0, 1e-9);
		/* A removed path's queue is at or above the level. */
		for (uint32_t k = 0; k < K; k++)
			if (a[k] == 0)
				CHECK(q[k] >= level - 1e-9);
	}
}

/* Walk a packet from router src with the state inject gave it; record the
 * global ports it crosses. */
static uint32_t walk_pkt(const struct route *r, struct route_pkt pk, uint32_t *ch, uint32_t cap)
{
	const struct topo *t = r->topo;
	struct route_cand c[ROUTE_MAX_CANDS];
	struct rng g;
	rng_init(&g, 1, 0, 0);
	uint32_t cur = topo_ep_router(t, pk.src_ep), n = 0;
	for (;;) {
		int nc = r->ops->compute(r, cur, 0, 0, &pk, &g, NULL, c);
		if (nc != 1)
			return UINT32_MAX;
		uint32_t gp = t->port_base[cur] + c[0].port;
		if (topo_port_is_terminal(t, gp))
			return n;
		if (n == cap)
			return UINT32_MAX;
		ch[n++] = gp;
		cur = t->port_router[t->peer[gp]];
		pk.hops++;
	}
}

/* The snapshot's congestion reaches injection: one candidate of pair
 * (0, d) made busy on a channel no other candidate uses is never drawn,
 * the others get 1/3 each (L = 1: no traffic yet; eq. 9 removes the busy
 * path, eq. 10 gives (1 + 0)/3 - 0); and every packet crosses exactly the
 * channels the snapshot summed for its path. */
static void test_lbr_snapshot_to_injection(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("flex:nx=4,ny=4,nz=3,p=1", &t, &e), &e);
	CHECK_OK(route_new("lbr:redraw=0,t=50", t, 4, &r, &e), &e);
	if (!r)
		return;
	struct lbr_state *s = r->state;
	CHECK_UINT(r->snapshot_period, ==, 50);
	CHECK_UINT(s->K, ==, 4);
	CHECK_UINT(s->class_w, ==, 1);
	uint32_t src = 0, dst = 0, busy = UINT32_MAX, busy_k = 0;
	for (dst = 1; dst < s->n && busy == UINT32_MAX; dst++) {
		size_t base = ((size_t)src * s->n + dst) * s->K;
		for (uint32_t k = s->N; k < s->K && busy == UINT32_MAX; k++) {
			const uint32_t *ck = s->ch + (base + k) * s->max_hops;
			for (uint32_t i = 0; i < s->path[base + k].n_ch && busy == UINT32_MAX; i++) {
				int shared = 0;
				for (uint32_t j = 0; j < s->K; j++) {
					if (j == k)
						continue;
					const uint32_t *cj = s->ch + (base + j) * s->max_hops;
					for (uint32_t l = 0; l < s->path[base + j].n_ch; l++)
						shared |= cj[l] == ck[i];
				}
				if (!shared) {
					busy = ck[i];
					busy_k = k;
				}
			}
		}
	}
	dst--;
	CHECK(busy != UINT32_MAX);
	if (busy == UINT32_MAX)
		goto out;
	size_t base = ((size_t)src * s->n + dst) * s->K;
	uint16_t *occ = calloc((size_t)t->n_ports * r->n_vcs, sizeof *occ);
	for (uint32_t vc = 0; vc < r->n_vcs; vc++)
		occ[(size_t)busy * r->n_vcs + vc] = 50;
	struct route_view gv = {.occ_base = occ, .occ_stride = sizeof *occ, .n_vcs = r->n_vcs, .gocc_base = occ};
	r->ops->snapshot(r, &gv, 50);
	uint32_t hits[LBR_MAX_K] = {0};
	struct rng g;
	rng_init(&g, 3, 0, 0);
	const int draws = 6000;
	for (int i = 0; i < draws; i++) {
		struct route_pkt pk = {.src_ep = topo_router_ep(t, src), .dst_router = dst, .dst_ep = dst};
		uint8_t lo, hi;
		r->ops->inject(r, &pk, &g, &lo, &hi);
		uint32_t k = 0;
		while (k < s->K && !(s->path[base + k].inter == pk.inter && s->path[base + k].salt == pk.vc_class))
			k++;
		CHECK(k < s->K);
		if (k >= s->K)
			break;
		hits[k]++;
		if (i < 64) {
			uint32_t ch[2 * LBR_MAX_D];
			uint32_t n = walk_pkt(r, pk, ch, 2 * LBR_MAX_D);
			CHECK_UINT(n, ==, s->path[base + k].n_ch);
			for (uint32_t j = 0; n != UINT32_MAX && j < n; j++)
				CHECK_UINT(ch[j], ==, s->ch[(base + k) * s->max_hops + j]);
		}
	}
	CHECK_UINT(hits[busy_k], ==, 0);
	/* The other three share the draws: 1/3 each within 4 sigma (sigma =
	 * sqrt(6000 * 2/9) = 36.5), unless two candidates coincide. */
	for (uint32_t k = 0; k < s->K; k++)
		if (k != busy_k)
			CHECK_NEAR(hits[k], draws / 3.0, 150);
	/* The pair's 6,000 injections above are lambda_s T of the next update
	 * (rate=pair). With the busy channel still at 4 VCs x 50 = 200 flits:
	 * eq. 9: (6000 + 200) / 4 = 1550 > 200, nothing removed; eq. 10:
	 * alpha_busy = 1/4 + 200/24000 - 200/6000 = 0.225, the others
	 * 1/4 + 200/24000 = 0.258333. With L = 1 (count ignored) the busy path
	 * would be removed again. */
	/* Other pairs of the same source do not count (rate=pair): 6,000
	 * packets to another destination would make lambda_s T 12,000 with
	 * rate=source (alpha_busy 0.2375). */
	uint32_t other = dst + 1 < s->n ? dst + 1 : 1;
	for (int i = 0; i < draws; i++) {
		struct route_pkt pk = {.src_ep = topo_router_ep(t, src), .dst_router = other, .dst_ep = other};
		uint8_t lo, hi;
		r->ops->inject(r, &pk, &g, &lo, &hi);
	}
	r->ops->snapshot(r, &gv, 100);
	free(occ);
	lbr_pair_current(t, s, src, dst);
	for (uint32_t k = 0; k < s->K; k++) {
		double lo = k ? s->cum[base + k - 1] : 0, w = (s->cum[base + k] - lo) / (double)LBR_ONE;
		CHECK_NEAR(w, k == busy_k ? 0.225 : 0.2583333333, 1e-6);
	}
out:
	route_free(r);
	topo_free(t);
}

/* The alphas pair (src, dst) would get from its paths' queues in occ
 * (global port x VC, n_vcs VCs each) and lambda_s T = c (0 read as 1). */
static void lbr_expected(const struct lbr_state *s, uint32_t src, uint32_t dst,
			 const uint16_t *occ, uint32_t n_vcs, uint32_t c, double *alpha)
{
	double q[LBR_MAX_K];
	size_t base = ((size_t)src * s->n + dst) * s->K;
	for (uint32_t k = 0; k < s->K; k++) {
		q[k] = 0;
		const uint32_t *ch = s->ch + (base + k) * s->max_hops;
		for (uint32_t i = 0; i < s->path[base + k].n_ch; i++)
			for (uint32_t v = 0; v < n_vcs; v++)
				q[k] += occ[(size_t)ch[i] * n_vcs + v];
	}
	lbr_alphas(q, s->K, c ? c : 1, alpha);
}

static void check_pair_alphas(const struct lbr_state *s, uint32_t src, uint32_t dst, const double *want)
{
	size_t base = ((size_t)src * s->n + dst) * s->K;
	for (uint32_t k = 0; k < s->K; k++) {
		double lo = k ? s->cum[base + k - 1] : 0, w = (s->cum[base + k] - lo) / (double)LBR_ONE;
		CHECK_NEAR(w, want[k], 1e-6);
	}
}

/* A pair is brought up to the last snapshot at its next packet: lambda_s
 * T is the count of the interval that snapshot closed, not of an older
 * one, however many snapshots passed without a packet of the pair (or,
 * with rate=source, of its source); the queues are the last snapshot's. */
static void test_lbr_lazy_pairs(void)
{
	for (int per_source = 0; per_source < 2; per_source++) {
		struct topo *t = NULL;
		struct route *r = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new("flex:nx=4,ny=4,nz=3,p=1", &t, &e), &e);
		CHECK_OK(route_new(per_source ? "lbr:redraw=0,t=50,rate=source" : "lbr:redraw=0,t=50", t, 4, &r, &e),
			 &e);
		if (!r) {
			topo_free(t);
			return;
		}
		struct lbr_state *s = r->state;
		const uint32_t V = r->n_vcs, src = 0, dst = 5, other = 9;
		uint16_t *occ = calloc((size_t)t->n_ports * V, sizeof *occ);
		for (uint32_t g = 0; g < t->n_ports; g++)
			occ[(size_t)g * V] = (uint16_t)(g * 7 % 23);
		struct route_view gv = {.occ_base = occ, .occ_stride = sizeof *occ, .n_vcs = V, .gocc_base = occ};
		struct rng g;
		rng_init(&g, 9, 0, 0);
		double want[LBR_MAX_K];
		uint8_t lo, hi;
		struct route_pkt pk;
#define SEND_FROM(S, D, COUNT)                                                                          \
	for (int i_ = 0; i_ < (COUNT); i_++) {                                                          \
		pk = (struct route_pkt){.src_ep = topo_router_ep(t, (S)), .dst_router = (D), .dst_ep = (D)}; \
		r->ops->inject(r, &pk, &g, &lo, &hi);                                                   \
	}
#define SEND(D, COUNT) SEND_FROM(src, D, COUNT)
		SEND(dst, 30);
		SEND(other, 11);
		r->ops->snapshot(r, &gv, 50); /* closes an interval of 30 (pair), 41 (source) */
		lbr_pair_current(t, s, src, dst);
		lbr_expected(s, src, dst, occ, V, per_source ? 41 : 30, want);
		check_pair_alphas(s, src, dst, want);
		SEND(dst, 17);
		SEND(other, 4);
		r->ops->snapshot(r, &gv, 100);
		for (uint32_t i = 0; i < t->n_ports; i++)
			occ[(size_t)i * V] = (uint16_t)(i * 5 % 31);
		r->ops->snapshot(r, &gv, 150); /* the interval it closes had no packet */
		lbr_pair_current(t, s, src, dst);
		lbr_expected(s, src, dst, occ, V, 0, want);
		check_pair_alphas(s, src, dst, want);
		/* Another pair of the source only: rate=source counts it. */
		SEND(other, 25);
		r->ops->snapshot(r, &gv, 200);
		lbr_pair_current(t, s, src, dst);
		lbr_expected(s, src, dst, occ, V, per_source ? 25 : 0, want);
		check_pair_alphas(s, src, dst, want);
		/* Every pair sends: the snapshot then updates them all at once,
		 * with the same values a pair's next packet would have given. */
		for (uint32_t a = 0; a < s->n; a++)
			for (uint32_t b = 0; b < s->n; b++)
				if (a != b)
					SEND_FROM(a, b, 1);
		SEND(dst, 3);
		r->ops->snapshot(r, &gv, 250);
		const uint32_t others = s->n - 1;
		lbr_expected(s, src, dst, occ, V, per_source ? others + 3 : 4, want);
		check_pair_alphas(s, src, dst, want);
		lbr_expected(s, 1, 2, occ, V, per_source ? others : 1, want);
		check_pair_alphas(s, 1, 2, want);
#undef SEND
#undef SEND_FROM
		free(occ);
		route_free(r);
		topo_free(t);
	}
}

/* Configuration errors name the rule. */
static void test_lbr_errors(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("flex:nx=4,ny=4,nz=3,p=1", &t, &e), &e);
	CHECK_ERR(route_new("lbr", t, 3, &r, &e), NL_ECONFIG, &e, "num_vcs >= 2 x the diameter = 4");
	CHECK_ERR(route_new("lbr:n=0,m=0", t, 4, &r, &e), NL_ECONFIG, &e, "n + m = 0");
	CHECK_ERR(route_new("flexmin", t, 1, &r, &e), NL_ECONFIG, &e, "num_vcs >= the diameter 2");
	topo_free(t);
	CHECK_OK(topo_new("flex:nx=4,ny=4,nz=4,p=1", &t, &e), &e);
	CHECK_ERR(route_new("flexmin:paths=alg1", t, 4, &r, &e), NL_ECONFIG, &e, "expected paths=all");
	topo_free(t);
	/* A connected topology past the diameter bound: the hops, not
	 * "too far ... expected a connected topology". */
	CHECK_OK(topo_new("torus:k=20x20", &t, &e), &e);
	CHECK_ERR(route_new("lbr", t, 64, &r, &e), NL_EUNSUPPORTED, &e,
		  "routing function 'lbr': router 9 is 9 hops from router 0; expected a topology of diameter <= 8 (a "
		  "Valiant path of up to 2 x 8 hops, one VC class per hop)");
	topo_free(t);
}

/* flexmin's Algorithm 1 on the 3-layer FleX: every route is minimal, and
 * where Algorithm 1 has no choice (same layer, x and y both differ) the
 * first hop is (xs, yd, zs - 1); where it draws, the draws cover every
 * allowed intermediate. */
static void test_flexmin_alg1(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("flex:nx=4,ny=5,nz=3,p=1", &t, &e), &e);
	CHECK_OK(route_new("flexmin", t, 2, &r, &e), &e);
	if (!r)
		goto out;
	const struct topo_flex *f = topo_flex_of(t);
	struct rng g;
	rng_init(&g, 5, 0, 0);
	for (uint32_t a = 0; a < t->n_routers; a++)
		for (uint32_t b = 0; b < t->n_routers; b++) {
			if (a == b)
				continue;
			uint32_t xa, ya, za, xb, yb, zb;
			topo_flex_xyz(f, a, &xa, &ya, &za);
			topo_flex_xyz(f, b, &xb, &yb, &zb);
			uint64_t firsts = 0; /* bitmap of first-hop routers (< 64 routers) */
			for (int it = 0; it < 48; it++) {
				struct route_pkt pk = {.src_ep = topo_router_ep(t, a), .dst_router = b, .dst_ep = b};
				struct route_cand c[ROUTE_MAX_CANDS];
				uint32_t cur = a, hops = 0, first = UINT32_MAX;
				while (cur != b && hops < 8) {
					pk.hops = (uint8_t)hops;
					CHECK_INT(r->ops->compute(r, cur, 0, 0, &pk, &g, NULL, c), ==, 1);
					CHECK_UINT(c[0].vc_lo, ==, hops);
					uint32_t gp = t->port_base[cur] + c[0].port;
					cur = t->port_router[t->peer[gp]];
					if (first == UINT32_MAX)
						first = cur;
					hops++;
				}
				CHECK_UINT(hops, ==, topo_distance(t, a, b));
				firsts |= 1ull << first;
				if (za == zb && xa != xb && ya != yb)
					CHECK_UINT(first, ==, f->nx * f->ny * ((za + 2) % 3) + f->nx * yb + xa);
			}
			/* Same layer, same x: Algorithm 1 draws y' != ya, yb in the
			 * previous layer: ny - 2 = 3 choices, all seen in 48 draws. */
			if (za == zb && xa == xb)
				CHECK_INT(__builtin_popcountll(firsts), ==, (int)f->ny - 2);
		}
out:
	route_free(r);
	topo_free(t);
}

/* Same seed, same results; another seed, other results. */
static void test_lbr_determinism(void)
{
	const char *kv[] = {"topology=flex:nx=3,ny=3,nz=3,p=2", "routing_function=lbr:t=20", "num_vcs=4",
			    "injection_rate=0.4", "sample_period=500", "max_samples=4", "warmup_periods=1",
			    "seed=1", NULL, NULL};
	struct net_point a, b, c, d;
	struct nl_err e = {0};
	CHECK_OK(run_point_kv(kv, &a, &e), &e);
	CHECK_OK(run_point_kv(kv, &b, &e), &e);
	/* The update is between cycles, so a split model gives the same run. */
	kv[8] = "partitions=3";
	CHECK_OK(run_point_kv(kv, &d, &e), &e);
	kv[8] = NULL;
	kv[7] = "seed=2";
	CHECK_OK(run_point_kv(kv, &c, &e), &e);
	CHECK(a.packets > 1000);
	CHECK_UINT(a.flit_hops, ==, b.flit_hops);
	CHECK_UINT(a.packets, ==, b.packets);
	CHECK(a.plat_mean == b.plat_mean && a.hops_mean == b.hops_mean);
	CHECK_UINT(a.flit_hops, ==, d.flit_hops);
	CHECK(a.plat_mean == d.plat_mean && a.hops_mean == d.hops_mean);
	CHECK(a.flit_hops != c.flit_hops || a.plat_mean != c.plat_mean);
	net_point_release(&a);
	net_point_release(&b);
	net_point_release(&c);
	net_point_release(&d);
}

int main(void)
{
	TEST_RUN(test_lbr_alphas_by_hand);
	TEST_RUN(test_lbr_alphas_lemma1);
	TEST_RUN(test_lbr_snapshot_to_injection);
	TEST_RUN(test_lbr_lazy_pairs);
	TEST_RUN(test_lbr_errors);
	TEST_RUN(test_flexmin_alg1);
	TEST_RUN(test_lbr_determinism);
	return test_done();
}
