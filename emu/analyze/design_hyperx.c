/* HyperX design search (seed 001 §3.1.2, eqs. 2-9).
 *
 * Find the HyperX with the fewest switches P = prod S_k for N terminals,
 * switch radix R and relative bisection B:
 *   T + sum K_k (S_k - 1) <= R       (2)  switch ports
 *   T P >= N                          (3)  network size
 *   min(K_k S_k) / 2T >= B            (4)  bisection
 *   S_k >= 2                          (5)
 * searched exhaustively over S_1 <= .. <= S_L (6), K_1 >= .. >= K_L (7),
 * with P <= O, the best so far (8), and T >= ceil(N / P) (9). For a shape
 * S, (2) grows with T and each K_k, so the least T of (9) and the least K_k
 * meeting (4), K_k = ceil(2BT / S_k) (nonincreasing in k, which is (7)),
 * decide whether S is feasible. Table 1 of the paper is the test.
 */
#include "analyze/analyze.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/param.h"
#include "topo/topo.h"

/* The most dimensions the search considers: a design's spec is to build,
 * and the hyperx family takes an s= of at most its parameter table's
 * element count (16), where the search went to ANALYZE_HX_MAX_L (32) and
 * printed specs the family refused ('--terminals 1048576 --radix 21
 * --bisection 1' found L = 20). Seed 001 §3.1.2 bounds L by R - 1 alone,
 * but looks for designs "in three or at most four dimensions". */
static uint32_t hx_family_max_l(void)
{
	struct nl_err err = {0};
	const struct topo_ops *ops = topo_find("hyperx", &err);
	const struct param_def *s = ops ? param_find(ops->params, "s") : NULL;
	uint32_t n = s ? (uint32_t)param_max_elements(s) : ANALYZE_HX_MAX_L;
	return n < ANALYZE_HX_MAX_L ? n : ANALYZE_HX_MAX_L;
}

struct hx_search {
	uint64_t N;
	uint32_t R;
	double B;
	bool regular;
	uint32_t L;
	uint32_t S[ANALYZE_HX_MAX_L];
	uint64_t best; /* O of eq. 8 */
	uint64_t work; /* shapes tried and enumeration steps so far */
	bool is_over;  /* work passed HX_MAX_WORK: the search stopped */
	struct analyze_hx *out;
};

/* Search steps allowed (about 5 s at ~10^7 a second), as the full-
 * bandwidth listings refuse more than 5x10^7 router ports: the pruning
 * keeps the paper's requests (Table 1, N = 2^17) to ~10^4 steps, but the
 * steps grow with N (N = 10^10 at R = 128: ~10^8, 8 s) and a request of
 * 2^63 terminals ran for minutes with no output. */
#define HX_MAX_WORK 50000000ull

/* Counts one step; false once the budget is spent (the search unwinds). */
static bool hx_step(struct hx_search *h)
{
	if (++h->work > HX_MAX_WORK)
		h->is_over = true;
	return !h->is_over;
}

/* ceil(2 B T / S) with a tolerance for decimal B (0.1 is not exact). */
static uint32_t hx_min_k(double B, uint32_t T, uint32_t S)
{
	double k = ceil(2.0 * B * (double)T / (double)S - 1e-9);
	return k < 1 ? 1 : (uint32_t)k;
}

/* Fill o with the HyperX of shape S[0..L-1] (P switches), T terminals a
 * switch and the least K meeting the bisection (eq. 4), which fits radix
 * R (eq. 2). */
static void hx_record(struct analyze_hx *o, double B, uint32_t R, uint32_t T, const uint32_t *S, uint32_t L,
		      uint64_t P)
{
	uint64_t ports = T, minks = UINT64_MAX;

	o->found = true;
	o->L = L;
	o->T = T;
	o->switches = P;
	for (uint32_t k = 0; k < L; k++) {
		o->S[k] = S[k];
		o->K[k] = hx_min_k(B, T, S[k]);
		ports += (uint64_t)o->K[k] * (S[k] - 1);
		if ((uint64_t)o->K[k] * S[k] < minks)
			minks = (uint64_t)o->K[k] * S[k];
	}
	o->ports = (uint32_t)ports;
	o->beta = (double)minks / (2.0 * T);
	/* The largest T the same S, K admit: ports (2) and bisection (4). */
	uint64_t tmax = R - (ports - T);
	double tb = floor((double)minks / (2.0 * B) + 1e-9);
	if (tb < (double)tmax)
		tmax = (uint64_t)tb;
	o->T_max = (uint32_t)tmax;
}

/* Whether the hyperx family builds the design found (out->found), and
 * why not: the limits of the flit model, not of the paper's design space,
 * so the search keeps its answer and marks it. */
static void hx_mark_buildable(struct analyze_hx *o)
{
	struct nl_err err = {0};

	o->build_limit[0] = '\0';
	if (!o->found)
		return;
	o->is_buildable = topo_hyperx_fits(o->L, o->S, o->K, o->T, &err) == 0;
	if (!o->is_buildable)
		snprintf(o->build_limit, sizeof o->build_limit, "%s", err.msg);
}

/* Check shape S[0..L-1] with product P; record it if it beats the best. */
static void hx_try(struct hx_search *h, uint64_t P)
{
	h->out->visited++;
	if (P >= h->best)
		return; /* ties keep the earlier (lower L, lexicographically smaller S) */
	uint64_t T64 = (h->N + P - 1) / P;
	if (T64 > h->R)
		return;
	uint32_t T = (uint32_t)T64, K[ANALYZE_HX_MAX_L];
	uint64_t ports = T;
	for (uint32_t k = 0; k < h->L; k++) {
		K[k] = hx_min_k(h->B, T, h->S[k]);
		if (h->regular && k > 0)
			K[k] = K[0]; /* S is all equal, so K is too */
		ports += (uint64_t)K[k] * (h->S[k] - 1);
	}
	if (ports > h->R)
		return;
	h->best = P;
	hx_record(h->out, h->B, h->R, T, h->S, h->L, P);
}

/* The fewest ports a dimension of S switches can charge in (2): K >=
 * ceil(2BT/S) (4) with T >= 1, so K (S - 1) >= max(S - 1, 2B (S - 1) / S),
 * rounded up. Nondecreasing in S, so the enumeration below can break on
 * it; without the bisection term a request no HyperX can meet (B near R)
 * walked every partition of R - 1 into S_k - 1. */
static uint64_t hx_min_ports(double B, uint32_t S)
{
	double kb = ceil(2.0 * B * (double)(S - 1) / (double)S - 1e-9);
	return kb > (double)(S - 1) ? (uint64_t)kb : (uint64_t)(S - 1);
}

/* Enumerate S[j..L-1] >= lo with prefix product pp and prefix ports sp =
 * sum_{k<j} hx_min_ports(S_k) (the least (2) can charge; >= S_k - 1). */
static void hx_enum(struct hx_search *h, uint32_t j, uint32_t lo, uint64_t pp, uint64_t sp)
{
	if (j == h->L) {
		hx_try(h, pp);
		return;
	}
	uint32_t r = h->L - j; /* dimensions left, this one included */
	for (uint32_t s = lo; hx_step(h); s++) {
		/* Every later S_k >= s: product >= pp s^r (eq. 8 prune). */
		uint64_t minp = pp;
		bool over = false;
		for (uint32_t i = 0; i < r && !over; i++) {
			if (minp > h->best / s)
				over = true;
			else
				minp *= s;
		}
		if (over || minp >= h->best)
			break;
		/* Ports: T >= 1 and every later S_k >= s (eq. 2 prune). */
		uint64_t cs = hx_min_ports(h->B, s);
		if (1 + sp + (uint64_t)r * cs > h->R)
			break;
		/* Size: the r dimensions left spend at most R - 1 - sp
		 * ports, so their product is at most (1 + (R-1-sp)/r)^r; the
		 * T that leaves (eq. 3) plus the ports S >= s spends must
		 * fit (eq. 2). The bound is constant in s and the spend
		 * grows with s: break. */
		double pmax = (double)pp * pow(1.0 + ((double)h->R - 1.0 - (double)sp) / r, (double)r);
		double tneed = ceil((double)h->N / pmax - 1e-9);
		if (tneed < 1)
			tneed = 1;
		if (tneed + (double)sp + (double)r * (double)cs > (double)h->R)
			break;
		h->S[j] = s;
		if (h->regular) {
			for (uint32_t k = j + 1; k < h->L; k++)
				h->S[k] = s;
			hx_try(h, minp);
			continue;
		}
		hx_enum(h, j + 1, s, pp * s, sp + cs);
	}
}

int analyze_hyperx_design(const struct analyze_hx_req *req, bool regular, struct analyze_hx *out,
			  struct nl_err *err)
{
	memset(out, 0, sizeof *out);
	if (req->N < 1)
		return nl_errf(err, NL_EINVAL, "design hyperx: --terminals must be at least 1");
	if (req->R < 2)
		return nl_errf(err, NL_EINVAL, "design hyperx: --radix %u: a switch needs at least 2 ports", req->R);
	if (!(req->B > 0) || !isfinite(req->B))
		return nl_errf(err, NL_EINVAL, "design hyperx: --bisection %g: expected a number > 0", req->B);
	/* beta = min(K S) / 2T <= K_1 S_1 / 2 with K_1 (S_1 - 1) <= R - 1
	 * (eq. 2, T >= 1), largest at S_1 = 2, K_1 = R - 1: beta <= R - 1. */
	if (req->B > (double)req->R - 1.0 + 1e-9)
		return nl_errf(err, NL_EINVAL,
			       "design hyperx: --bisection %g: expected at most %u (R - 1, the most any HyperX "
			       "of radix %u reaches: one dimension of 2 switches, %u trunked links, 1 terminal)",
			       req->B, req->R - 1, req->R, req->R - 1);

	struct hx_search h = {
		.N = req->N, .R = req->R, .B = req->B, .regular = regular, .best = UINT64_MAX, .out = out,
	};
	/* 1 <= L <= R - 1 (a hypercube uses R - 1 ports, seed 001 §3.1.2),
	 * and what the family builds; P >= 2^L, so L stops once 2^L reaches
	 * the best P. */
	uint32_t max_l = hx_family_max_l();
	for (uint32_t L = 1; L < req->R && L <= max_l; L++) {
		if (L < 64 && (1ull << L) >= h.best)
			break;
		h.L = L;
		hx_enum(&h, 0, 2, 1, 0);
		if (h.is_over) {
			memset(out, 0, sizeof *out);
			return nl_errf(err, NL_ERANGE,
				       "design hyperx: --terminals %llu with --radix %u: the %s search passed its limit of "
				       "%llu steps (about 5 s) at L = %u without finishing; expected a smaller request "
				       "(e.g. --terminals 10^9 at --radix 128 takes ~3x10^7)",
				       (unsigned long long)req->N, req->R, regular ? "regular" : "general",
				       (unsigned long long)HX_MAX_WORK, L);
		}
	}
	hx_mark_buildable(out);
	return 0;
}

/* --- reach: why nothing meets a request ----------------------------------- */

/* Products saturate here: --terminals is below 2^63, so a larger count
 * stands for "more than any request". */
#define HX_REACH_CAP (1ull << 63)

static uint64_t hx_mul_cap(uint64_t a, uint64_t b)
{
	return b && a > HX_REACH_CAP / b ? HX_REACH_CAP : a * b;
}

/* The ports a dimension of S switches takes at T terminals a switch: the
 * least K meeting the bisection (eq. 4) times its S - 1 links. */
static uint64_t hx_dim_ports(double B, uint32_t T, uint32_t S)
{
	return (uint64_t)hx_min_k(B, T, S) * (S - 1);
}

/* A lower bound of hx_dim_ports over T >= t that is nondecreasing in S
 * (hx_min_ports scaled by t), so the loops over S can break on it. */
static uint64_t hx_dim_floor(double B, uint32_t T, uint32_t S)
{
	double kb = ceil(2.0 * B * (double)T * (double)(S - 1) / (double)S - 1e-9);
	return kb > (double)(S - 1) ? (uint64_t)kb : (uint64_t)(S - 1);
}

struct hx_reach {
	double B;
	uint32_t R;
	uint32_t Lcap;          /* the search's most dimensions: R - 1 and hx_family_max_l() */
	uint64_t work;          /* steps so far, against HX_MAX_WORK as the search */
	uint64_t most;          /* most terminals so far */
	struct analyze_hx *out; /* the configuration reaching them */
};

/* Keep S[0..L-1] (any order) at T terminals when it has more terminals
 * than the best so far; ties keep the earlier (smaller T). */
static void hx_reach_keep(struct hx_reach *r, uint32_t T, uint32_t *S, uint32_t L, uint64_t P)
{
	uint64_t terminals = hx_mul_cap(P, T);

	if (terminals <= r->most)
		return;
	for (uint32_t i = 1; i < L; i++) /* nondecreasing, as eq. 6 lists them */
		for (uint32_t j = i; j > 0 && S[j - 1] > S[j]; j--) {
			uint32_t t = S[j];
			S[j] = S[j - 1];
			S[j - 1] = t;
		}
	r->most = terminals;
	hx_record(r->out, r->B, r->R, T, S, L, P);
}

/* Regular: L dimensions of S switches each, as many as the ports left
 * after T terminals pay for. */
static void hx_reach_regular(struct hx_reach *r)
{
	uint32_t S[ANALYZE_HX_MAX_L];

	for (uint32_t T = 1; T < r->R && hx_dim_floor(r->B, T, 2) <= r->R - T; T++) {
		uint64_t budget = r->R - T;
		for (uint32_t s = 2; hx_dim_floor(r->B, T, s) <= budget; s++) {
			if (++r->work > HX_MAX_WORK)
				return;
			uint64_t cost = hx_dim_ports(r->B, T, s);
			if (cost > budget)
				continue;
			uint32_t L = budget / cost < r->Lcap ? (uint32_t)(budget / cost) : r->Lcap;
			uint64_t P = 1;
			for (uint32_t k = 0; k < L; k++) {
				S[k] = s;
				P = hx_mul_cap(P, s);
			}
			hx_reach_keep(r, T, S, L, P);
		}
	}
}

/* General, at T terminals a switch: the most switches within the ports
 * left, by a knapsack over (dimensions used, ports spent): most[l][c] is
 * the largest product of at most l dimensions costing at most c ports,
 * pick[l][c] the S of its last dimension (0: fewer than l). 0, or -1 out
 * of memory; stops (r->work past HX_MAX_WORK) when the steps would pass
 * the limit. */
static int hx_reach_general_t(struct hx_reach *r, uint32_t T)
{
	uint32_t budget = r->R - T, L = r->Lcap < budget ? r->Lcap : budget;
	size_t w = (size_t)budget + 1;
	uint32_t S[ANALYZE_HX_MAX_L];

	/* Each cell is a step, whether or not a dimension fits in it. */
	if ((uint64_t)L * w > HX_MAX_WORK - r->work) {
		r->work = HX_MAX_WORK + 1;
		return 0;
	}
	r->work += (uint64_t)L * w;
	uint64_t *most = malloc((L + 1) * w * sizeof *most);
	uint32_t *pick = malloc((L + 1) * w * sizeof *pick);
	if (!most || !pick) {
		free(most);
		free(pick);
		return -1;
	}
	for (size_t c = 0; c < w; c++) {
		most[c] = 1;
		pick[c] = 0;
	}
	for (uint32_t l = 1; l <= L && r->work <= HX_MAX_WORK; l++) {
		const uint64_t *prev = most + (l - 1) * w;
		uint64_t *cur = most + l * w;
		uint32_t *cp = pick + l * w;
		for (size_t c = 0; c < w && r->work <= HX_MAX_WORK; c++) {
			cur[c] = prev[c];
			cp[c] = 0;
			for (uint32_t s = 2; hx_dim_floor(r->B, T, s) <= c; s++) {
				if (++r->work > HX_MAX_WORK)
					break;
				uint64_t cost = hx_dim_ports(r->B, T, s);
				if (cost > c)
					continue;
				uint64_t v = hx_mul_cap(prev[c - cost], s);
				if (v > cur[c]) {
					cur[c] = v;
					cp[c] = s;
				}
			}
		}
	}
	if (r->work <= HX_MAX_WORK) {
		uint32_t n = 0;
		size_t c = budget;
		for (uint32_t l = L; l > 0; l--) {
			uint32_t s = pick[l * w + c];
			if (s) {
				S[n++] = s;
				c -= hx_dim_ports(r->B, T, s);
			}
		}
		if (n) /* no dimension fits the ports left: no HyperX at this T */
			hx_reach_keep(r, T, S, n, most[L * w + budget]);
	}
	free(most);
	free(pick);
	return 0;
}

int analyze_hyperx_reach(const struct analyze_hx_req *req, bool regular, struct analyze_hx *out,
			 struct nl_err *err)
{
	memset(out, 0, sizeof *out);
	if (req->R < 2 || !(req->B > 0) || req->B > (double)req->R - 1.0 + 1e-9)
		return nl_errf(err, NL_EINVAL, "design hyperx: reach: radix %u, bisection %g: not a valid request", req->R,
			       req->B);
	struct hx_reach r = {
		.B = req->B,
		.R = req->R,
		.Lcap = req->R - 1 < hx_family_max_l() ? req->R - 1 : hx_family_max_l(),
		.out = out,
	};
	if (regular)
		hx_reach_regular(&r);
	else
		/* T past the ports the smallest dimension leaves: none beyond. */
		for (uint32_t T = 1; T < req->R && hx_dim_floor(req->B, T, 2) <= req->R - T && r.work <= HX_MAX_WORK;
		     T++)
			if (hx_reach_general_t(&r, T) < 0) {
				memset(out, 0, sizeof *out);
				return nl_errf(err, NL_ENOMEM, "out of memory");
			}
	if (r.work > HX_MAX_WORK) {
		memset(out, 0, sizeof *out);
		return nl_errf(err, NL_ERANGE,
			       "the most terminals within radix %u was not found within the search's limit of %llu steps",
			       req->R, (unsigned long long)HX_MAX_WORK);
	}
	hx_mark_buildable(out);
	return 0;
}
