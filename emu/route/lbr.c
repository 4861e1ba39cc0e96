/* lbr: stochastic Load-Balanced Routing (Jeon et al., IEEE Access 2022,
 * seed 000 §III-C2, eqs. 9-16), "lbr:t=100,n=1,m=3,redraw=1".
 *
 * Every source router v_s keeps, for every destination router v_d, N
 * minimal and M non-minimal (Valiant) candidate paths p_1..p_{N+M} and a
 * forwarding probability alpha_k for each (Step 1). Every T cycles (the
 * engine's route_ops.snapshot, with the global view; no scan per packet)
 * it reads the queue length q(p) of every candidate, removes the paths
 * expected to congest during the next interval (eq. 9, Step 2) and sets
 *   alpha_k = 1/(N'+M') + sum_j q(p_j) / (lambda_s T (N'+M')) - q(p_k) / (lambda_s T)   (eq. 10)
 * over the N'+M' paths left, so that the expected queue q(p_k) +
 * lambda_s T alpha_k is the same on every one (eqs. 13-16) and the
 * alphas sum to 1 (Lemma 1, eqs. 11-12). Each packet draws its path at
 * injection (its source NIC, the endpoint's stream) from the alphas of
 * the last snapshot, and carries it: inter = the Valiant intermediate
 * (UINT32_MAX for a minimal path), phase = 0 before it, 1 after,
 * vc_class = an 8-bit salt choosing among the minimal next hops of each
 * segment (below). No field of route_pkt is added.
 *
 * Paths. A candidate is (intermediate w or none, salt). Each segment (s to
 * w, w to d, or s to d) is minimal; at router c towards target t the next
 * hop is minimal port number hash(salt, c, t) mod (number of minimal ports
 * of c towards t), from a table built at init. The salt makes the choice
 * among FleX's detouring minimal paths (§III-C1) part of the path, so the
 * snapshot can walk exactly the channels a packet will use and the packet
 * follows them without per-path state. Minimal candidates draw only a salt
 * (a uniformly hashed minimal path: on FleX the Algorithm 1 paths and the
 * detours beside them, §III-C1); Valiant candidates draw w uniformly among
 * the routers other than s and d ("VAL [30]"; with N = 1, M = 3 as in
 * §III-C2's evaluation). A Valiant path may be no longer than the minimal
 * one (the text's "non-minimal" is whatever VAL returns), and one whose
 * first leg passes through d ends there: the packet is delivered rather
 * than carried on to w and back, and the snapshot's walk (lbr_walk) stops
 * at d as well, so q counts the channels the packet uses (on torus 4x4,
 * p=2 with n=0, m=1: 3.77-3.83 mean hops against 4.00 for the full
 * detour; `valiant` keeps the detour unless shortcut=1).
 *
 * Gaps in the text, and what we chose:
 *  - q of a path. The text defines q on vertices ("queue length of the
 *    packets to be processed by the node") and then "the queue length of
 *    all channels in the path". We sum, over the channels of the path, the
 *    flits sent into each channel's downstream buffer and not yet credited
 *    (route_view_gocc, all VCs: the occupancy UGAL-G reads): a router's
 *    total queue would not say which of its output directions is loaded.
 *  - eq. 9's "q_s T" is read as lambda_s T: then the right-hand side is the
 *    common level of eq. 16, and eq. 9 removes exactly the paths whose
 *    alpha by eq. 10 would be <= 0.
 *  - lambda_s T is a count of packets injected during the last interval
 *    ("profiles the packet injection rate"), counted at inject; the
 *    paper's packets are one flit, so it is also flits (q is in flits;
 *    with longer packets lambda_s T undercounts the flits by the packet
 *    length). Whose packets: the text writes lambda_s, the source's rate,
 *    but eqs. 13-16 (the expected queue q(p_k) + lambda_s T alpha_k made
 *    equal on the pair's paths) hold only if lambda_s T is what is spread
 *    over those paths, i.e. the pair's packets. rate=pair (the default)
 *    counts the pair's packets; rate=source the whole source router's, the
 *    literal reading, which on the paper's FleX (10 endpoints, 107
 *    destinations) makes lambda_s T ~100x the pair's and the alphas
 *    nearly uniform (3 of 4 packets on Valiant paths at any load).
 *  - Probabilities still negative after one removal: a removal lowers the
 *    level, so eq. 9 is applied again to the paths left until none is
 *    removed (water filling; at most N+M rounds). The least-loaded path
 *    always stays (its q is below the level while lambda_s T > 0), so the
 *    set is never empty and every alpha is > 0 and they sum to 1.
 *  - A source with no traffic in the last interval (lambda_s T = 0, eq. 10
 *    divides by it): lambda_s T is taken as 1, i.e. the next packet goes to
 *    the least-loaded paths only (the limit of eq. 10 as lambda_s T -> 0
 *    sends everything there too).
 *  - Are the Valiant paths redrawn every T? "After updating interval T,
 *    each source v_s determines available routing paths": yes by default
 *    (redraw=1, new intermediates and salts at every snapshot, before
 *    their queues are read); redraw=0 keeps those drawn at init. Packets in
 *    flight keep their own path (it is in the packet). The draws hash the
 *    snapshot number, source, destination and candidate (the snapshot hook
 *    has no stream), so they do not change with the run's seed; the
 *    per-packet choice among candidates does.
 *  - Before the first snapshot every candidate has alpha = 1/(N+M).
 *
 * State: per (source, destination) router pair N+M paths with their
 * channels and cumulative alphas, plus an n x n hop-distance table and the
 * minimal next-hop lists: O(routers^2 (N+M) D) memory, about 1 MB on the
 * paper's 108-router FleX; refused above 1,024 routers. A snapshot costs
 * one pass over the channels; each pair that sends after it then pays
 * O((N+M) D) once (lbr_pair_current), so T trades that against staleness
 * (Fig. 14) and idle pairs cost nothing.
 *
 * Deadlock freedom: VC class per hop. A path is at most D hops to w and D
 * hops on, so a packet that has taken h router-to-router hops uses class
 * h < 2D and every channel dependency goes from class h to h + 1: acyclic.
 * Needs num_vcs >= 2D (4 on the 3-layer FleX); each class gets
 * num_vcs / 2D VCs; ejection uses every VC.
 */
#include "route/route.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/lbr.h"
#include "route/route_internal.h"
#include "topo/topo.h"

enum { LBR_RATE_PAIR, LBR_RATE_SOURCE };
static const char *const lbr_rate_names[] = {"pair", "source", NULL};

struct lbr_params {
	int64_t t, n, m, redraw;
	int rate;
};

static const struct param_def lbr_params_def[] = {
	{"t", PARAM_INT, offsetof(struct lbr_params, t), "100", 1, 1e9,
	 "update period T in cycles: queues are read and the alphas recomputed every T (Fig. 14 sweeps it)", NULL},
	{"n", PARAM_INT, offsetof(struct lbr_params, n), "1", 0, LBR_MAX_K,
	 "minimal candidate paths per source-destination pair, N (paper: 1)", NULL},
	{"m", PARAM_INT, offsetof(struct lbr_params, m), "3", 0, LBR_MAX_K,
	 "Valiant candidate paths per pair, M (paper: 3)", NULL},
	{"redraw", PARAM_INT, offsetof(struct lbr_params, redraw), "1", 0, 1,
	 "1: new candidate paths at every update (the text's reading), 0: the paths drawn at start", NULL},
	{"rate", PARAM_CHOICE, offsetof(struct lbr_params, rate), "pair", 0, 0,
	 "lambda_s T of eqs. 9-10: packets of this source-destination pair in the last interval (pair: the "
	 "packets spread over these paths, for which eq. 16 holds) or of the whole source router (source)",
	 lbr_rate_names},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

#define LBR_NONE UINT32_MAX

/* Local port of the next hop from cur towards target (cur != target) on
 * the path with this salt: the same function for packets and snapshots. */
static inline uint32_t lbr_next(const struct lbr_state *s, uint32_t cur, uint32_t target, uint8_t salt)
{
	size_t idx = (size_t)cur * s->n + target;
	uint32_t lo = s->moff[idx], cnt = s->moff[idx + 1] - lo;
	if (cnt == 1) /* the hash mod 1 is 0 */
		return s->mports[lo];
	uint64_t h = rng_mix64(((uint64_t)salt << 48) ^ ((uint64_t)cur << 24) ^ target ^ 0x5851f42d4c957f2dULL);
	return s->mports[lo + (uint32_t)(h % cnt)];
}

/* Walk candidate k of (src, dst): record its channels; returns the sum
 * of their queues in occ (0 when occ is NULL). */
static uint32_t lbr_walk(const struct topo *t, struct lbr_state *s, uint32_t src, uint32_t dst,
			 struct lbr_path *pa, uint32_t *ch, const uint32_t *occ)
{
	uint32_t cur = src, phase = pa->inter == LBR_NONE ? 1 : 0, n = 0, sum = 0;
	while (cur != dst) {
		if (phase == 0 && cur == pa->inter)
			phase = 1;
		uint32_t target = phase ? dst : pa->inter;
		uint32_t g = t->port_base[cur] + lbr_next(s, cur, target, pa->salt);
		ch[n++] = g;
		if (occ)
			sum += occ[g];
		cur = t->port_router[t->peer[g]];
	}
	pa->n_ch = (uint8_t)n;
	return sum;
}

/* Draw candidate k of pair (src, dst) for update number `epoch`; returns
 * its queue in occ (lbr_walk). */
static uint32_t lbr_draw(const struct topo *t, struct lbr_state *s, uint32_t src, uint32_t dst, uint32_t k,
			 uint64_t epoch, const uint32_t *occ)
{
	size_t pk = ((size_t)src * s->n + dst) * s->K + k;
	struct lbr_path *pa = &s->path[pk];
	uint64_t key = rng_mix64(epoch * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)src << 40) ^ ((uint64_t)dst << 16) ^ k);
	uint64_t a = rng_at(key, 0);
	pa->salt = (uint8_t)a;
	pa->inter = LBR_NONE;
	if (k >= s->N && s->n > 2) {
		uint32_t lo = src < dst ? src : dst, hi = src < dst ? dst : src;
		uint32_t w = (uint32_t)(rng_at(key, 1) % (s->n - 2));
		w += w >= lo;
		w += w >= hi;
		pa->inter = w;
	}
	return lbr_walk(t, s, src, dst, pa, s->ch + pk * s->max_hops, occ);
}

void lbr_alphas(const double *q, uint32_t K, double L, double *alpha)
{
	bool on[LBR_MAX_K];
	uint32_t left = K;
	for (uint32_t k = 0; k < K; k++)
		on[k] = true;
	double level = 0;
	for (;;) {
		double sum = 0;
		for (uint32_t k = 0; k < K; k++)
			if (on[k])
				sum += q[k];
		/* eq. 9 (with q_s T read as lambda_s T) over the paths left;
		 * eq. 16's level. */
		level = (L + sum) / left;
		uint32_t removed = 0;
		for (uint32_t k = 0; k < K; k++)
			if (on[k] && q[k] >= level) {
				on[k] = false;
				removed++;
			}
		if (!removed)
			break;
		left -= removed;
	}
	/* eq. 10: alpha_k = 1/n' + sum/(L n') - q_k/L = (level - q_k) / L. */
	for (uint32_t k = 0; k < K; k++)
		alpha[k] = on[k] ? (level - q[k]) / L : 0.0;
}

/* Pair (src, dst)'s candidates (drawn anew for snapshot s->epoch when
 * draw) and cumulative alphas from the channel queues occ (NULL: all
 * empty) when c = lambda_s T packets were injected in the last interval. */
static void lbr_pair_update(const struct topo *t, struct lbr_state *s, uint32_t src, uint32_t dst,
			    const uint32_t *occ, bool draw, uint32_t c)
{
	double q[LBR_MAX_K], alpha[LBR_MAX_K];
	const double L = c ? (double)c : 1.0;
	const size_t base = ((size_t)src * s->n + dst) * s->K;
	for (uint32_t k = 0; k < s->K; k++) {
		uint32_t sum = 0;
		if (draw) {
			sum = lbr_draw(t, s, src, dst, k, s->epoch, occ);
		} else if (occ) {
			const uint32_t *ch = s->ch + (base + k) * s->max_hops;
			for (uint32_t i = 0; i < s->path[base + k].n_ch; i++)
				sum += occ[ch[i]];
		}
		q[k] = sum;
	}
	lbr_alphas(q, s->K, L, alpha);
	double acc = 0;
	for (uint32_t k = 0; k < s->K; k++) {
		acc += alpha[k];
		double cu = acc * (double)LBR_ONE;
		s->cum[base + k] = cu >= (double)LBR_ONE ? LBR_ONE : (uint32_t)cu;
	}
	s->cum[base + s->K - 1] = LBR_ONE;
}

/* Source src's packet counts moved to interval s->epoch: src_prev is then
 * lambda_s T of snapshot s->epoch for rate=source. */
static void lbr_src_current(struct lbr_state *s, uint32_t src)
{
	if (s->src_epoch[src] == s->epoch)
		return;
	s->src_prev[src] = s->src_epoch[src] + 1 == s->epoch ? s->src_count[src] : 0;
	s->src_count[src] = 0;
	s->src_epoch[src] = s->epoch;
}

/* A snapshot only records the queues (lbr_snapshot); each pair is brought
 * up to it here, at its next packet, from that record and the packets of
 * the interval before it. The result is what updating every pair at the
 * snapshot gives (the draws hash the snapshot number, the queues are the
 * snapshot's, the counts those of the interval that snapshot closed),
 * but a pair without packets costs nothing: an eager update walked every
 * pair's N + M paths every T cycles, 85% of a nearly idle replay on
 * torus:k=6x6. Only src's own rows are written, so partitions running
 * side by side each touch their own sources. */
void lbr_pair_current(const struct topo *t, struct lbr_state *s, uint32_t src, uint32_t dst)
{
	const size_t pi = (size_t)src * s->n + dst;
	if (s->pair_epoch[pi] == s->epoch)
		return;
	lbr_src_current(s, src);
	uint32_t c = s->src_prev[src];
	if (s->per_pair)
		c = s->pair_epoch[pi] + 1 == s->epoch ? s->count[pi] : 0;
	s->count[pi] = 0;
	s->pair_epoch[pi] = s->epoch;
	lbr_pair_update(t, s, src, dst, s->occ, s->redraw, c);
}

/* Distances by BFS and the minimal next-hop lists of every pair. */
static int lbr_tables(const struct topo *t, struct lbr_state *s, struct nl_err *err)
{
	uint32_t n = s->n;
	uint8_t *dist = malloc((size_t)n * n);
	uint32_t *d = malloc((size_t)n * sizeof *d), *qq = malloc((size_t)n * sizeof *qq);
	s->moff = malloc(((size_t)n * n + 1) * sizeof *s->moff);
	if (!dist || !d || !qq || !s->moff)
		goto oom;
	s->diameter = 0;
	for (uint32_t a = 0; a < n; a++) {
		topo_bfs(t, a, d, qq);
		for (uint32_t b = 0; b < n; b++) {
			if (d[b] == UINT32_MAX || d[b] > LBR_MAX_D) {
				const uint32_t hops = d[b];
				free(dist), free(d), free(qq);
				/* A connected topology too wide was told it
				 * was not connected ("too far from"). */
				if (hops == UINT32_MAX)
					return nl_errf(err, NL_EUNSUPPORTED,
						       "routing function 'lbr': router %u is unreachable from router %u; "
						       "expected a connected topology of diameter <= %u",
						       b, a, LBR_MAX_D);
				return nl_errf(err, NL_EUNSUPPORTED,
					       "routing function 'lbr': router %u is %u hops from router %u; expected a "
					       "topology of diameter <= %u (a Valiant path of up to 2 x %u hops, one VC "
					       "class per hop)",
					       b, hops, a, LBR_MAX_D, LBR_MAX_D);
			}
			dist[(size_t)a * n + b] = (uint8_t)d[b];
			if (d[b] > s->diameter)
				s->diameter = d[b];
		}
	}
	size_t cap = (size_t)n * n * 2, used = 0;
	s->mports = malloc(cap * sizeof *s->mports);
	if (!s->mports)
		goto oom;
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = 0; b < n; b++) {
			s->moff[(size_t)a * n + b] = (uint32_t)used;
			if (a == b)
				continue;
			uint32_t want = dist[(size_t)a * n + b] - 1u, base = t->port_base[a];
			for (uint32_t g = base; g < t->port_base[a + 1]; g++) {
				if (!topo_port_is_network(t, g) ||
				    dist[(size_t)t->port_router[t->peer[g]] * n + b] != want)
					continue;
				if (used == cap) {
					uint16_t *np = realloc(s->mports, 2 * cap * sizeof *np);
					if (!np)
						goto oom;
					s->mports = np;
					cap *= 2;
				}
				s->mports[used++] = (uint16_t)(g - base);
			}
		}
	s->moff[(size_t)n * n] = (uint32_t)used;
	free(dist), free(d), free(qq);
	return 0;
oom:
	free(dist), free(d), free(qq);
	return nl_errf(err, NL_ENOMEM, "routing function 'lbr': out of memory for %u-router tables", n);
}

static void lbr_release(struct route *r)
{
	struct lbr_state *s = r->state;
	free(s->moff);
	free(s->mports);
	free(s->path);
	free(s->ch);
	free(s->cum);
	free(s->pair_epoch);
	free(s->count);
	free(s->src_epoch);
	free(s->src_count);
	free(s->src_prev);
	free(s->src_active);
	free(s->occ);
	memset(s, 0, sizeof *s);
}

static int lbr_init(struct route *r, struct nl_err *err)
{
	const struct topo *t = r->topo;
	const struct lbr_params *pr = r->params;
	struct lbr_state *s = r->state;

	if (t->n_routers > LBR_MAX_ROUTERS) {
		/* Say what runs instead: the limit alone left a user to guess. */
		char others[256];
		route_names_on(t->ops->name, "lbr", others, sizeof others);
		return nl_errf(err, NL_EUNSUPPORTED,
			       "routing function 'lbr': %u routers; its per-pair path tables (O(routers^2)) allow at most "
			       "%u: use a network of at most %u routers, or another routing function on topology '%s': %s",
			       t->n_routers, LBR_MAX_ROUTERS, LBR_MAX_ROUTERS, t->ops->name, others);
	}
	if (pr->n + pr->m < 1 || pr->n + pr->m > LBR_MAX_K)
		return nl_errf(err, NL_ECONFIG, "routing function 'lbr': n + m = %lld; expected 1..%d candidate paths",
			       (long long)(pr->n + pr->m), LBR_MAX_K);
	s->n = t->n_routers;
	s->N = (uint32_t)pr->n;
	s->K = (uint32_t)(pr->n + pr->m);
	s->redraw = pr->redraw != 0;
	s->per_pair = pr->rate == LBR_RATE_PAIR;
	NL_CHECK(lbr_tables(t, s, err));
	uint32_t classes = 2 * (s->diameter ? s->diameter : 1);
	if (r->n_vcs < classes)
		return route_vcs_errf(r, err,
				      "routing function 'lbr' needs num_vcs >= 2 x the diameter = %u (one VC class per hop of a "
				      "Valiant path), got %u",
				      classes, r->n_vcs);
	s->class_w = r->n_vcs / classes;
	s->max_hops = classes;
	size_t pairs = (size_t)s->n * s->n;
	s->path = calloc(pairs * s->K, sizeof *s->path);
	s->ch = malloc(pairs * s->K * s->max_hops * sizeof *s->ch);
	s->cum = malloc(pairs * s->K * sizeof *s->cum);
	s->pair_epoch = calloc(pairs, sizeof *s->pair_epoch);
	s->count = calloc(pairs, sizeof *s->count);
	s->src_epoch = calloc(s->n, sizeof *s->src_epoch);
	s->src_count = calloc(s->n, sizeof *s->src_count);
	s->src_prev = calloc(s->n, sizeof *s->src_prev);
	s->src_active = calloc(s->n, sizeof *s->src_active);
	s->occ = malloc((size_t)t->n_ports * sizeof *s->occ);
	if (!s->path || !s->ch || !s->cum || !s->pair_epoch || !s->count || !s->src_epoch || !s->src_count ||
	    !s->src_prev || !s->src_active || !s->occ)
		return nl_errf(err, NL_ENOMEM, "routing function 'lbr': out of memory for %u routers x %u paths",
			       s->n, s->K);
	/* Snapshot 0, before the first: every pair drawn, alpha = 1/(N+M). */
	s->epoch = 0;
	for (uint32_t src = 0; src < s->n; src++)
		for (uint32_t dst = 0; dst < s->n; dst++)
			if (dst != src)
				lbr_pair_update(t, s, src, dst, NULL, true, 0);
	r->snapshot_period = (uint32_t)pr->t;
	r->max_cands = 1;
	return 0;
}

static void lbr_snapshot(const struct route *r, const struct route_view *g, uint64_t now)
{
	const struct topo *t = r->topo;
	struct lbr_state *s = r->state;
	(void)now;
	s->epoch++;
	for (uint32_t p = 0; p < t->n_ports; p++)
		s->occ[p] = topo_port_is_network(t, p) ? route_view_gocc(g, p) : 0;
	/* A source most of whose pairs sent in the interval just closed will
	 * send on most again: update its row now, in order, rather than pair
	 * by pair between the routers' steps, where the same work ran 6%
	 * slower (FleX Table 6 at 0.3). The values are the same either way.
	 * Decided per source, so that under MPI a rank updates only the
	 * sources it runs (the others' counts stay 0 in its copy). */
	for (uint32_t src = 0; src < s->n; src++) {
		const uint32_t active = s->src_active[src];
		s->src_active[src] = 0;
		if (active && 2 * (uint64_t)active >= s->n - 1)
			for (uint32_t dst = 0; dst < s->n; dst++)
				if (dst != src)
					lbr_pair_current(t, s, src, dst);
	}
}

static void lbr_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo, uint8_t *vc_hi)
{
	struct lbr_state *s = r->state;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
	p->phase = 1;
	p->inter = LBR_NONE;
	p->vc_class = 0;
	const uint32_t src = route_src_router(r, p);
	if (src == p->dst_router)
		return;
	lbr_pair_current(r->topo, s, src, p->dst_router);
	if (s->count[(size_t)src * s->n + p->dst_router]++ == 0)
		s->src_active[src]++;
	s->src_count[src]++;
	size_t base = ((size_t)src * s->n + p->dst_router) * s->K;
	uint32_t u = (uint32_t)(rng_u64(rng) >> 33), k = 0;
	while (k + 1 < s->K && u >= s->cum[base + k])
		k++;
	const struct lbr_path *pa = &s->path[base + k];
	p->inter = pa->inter;
	p->phase = pa->inter == LBR_NONE ? 1 : 0;
	p->vc_class = pa->salt;
}

static int lbr_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc, struct route_pkt *p,
		       struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct lbr_state *s = r->state;
	(void)in_port;
	(void)in_vc;
	(void)rng;
	(void)v;

	if (router == p->dst_router)
		return route_eject(r, p, out);
	if (p->phase == 0 && router == p->inter)
		p->phase = 1;
	uint32_t target = p->phase ? p->dst_router : p->inter;
	uint32_t lo = (uint32_t)p->hops * s->class_w;
	out->port = (uint16_t)lbr_next(s, router, target, p->vc_class);
	out->vc_lo = (uint8_t)lo;
	out->vc_hi = (uint8_t)(lo + s->class_w - 1);
	out->prio = 0;
	return 1;
}

const struct route_ops route_lbr_ops = {
	.name = "lbr",
	.help = "FleX's stochastic load-balanced routing: N minimal + M Valiant paths per pair, alphas from "
		"queue snapshots every T cycles (Jeon et al. 2022, seed 000 §III-C2, eqs. 9-16), VC class per hop",
	.params = lbr_params_def,
	.params_size = sizeof(struct lbr_params),
	.state_size = sizeof(struct lbr_state),
	.families = NULL,
	.is_deterministic = false,
	.init = lbr_init,
	.inject = lbr_inject,
	.compute = lbr_compute,
	.release = lbr_release,
	.snapshot = lbr_snapshot,
};
