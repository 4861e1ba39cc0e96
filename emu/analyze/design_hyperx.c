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
#include <string.h>

#include "core/error.h"

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
	struct analyze_hx *o = h->out;
	h->best = P;
	o->found = true;
	o->L = h->L;
	o->T = T;
	o->switches = P;
	o->ports = (uint32_t)ports;
	uint64_t minks = UINT64_MAX;
	for (uint32_t k = 0; k < h->L; k++) {
		o->S[k] = h->S[k];
		o->K[k] = K[k];
		if ((uint64_t)K[k] * h->S[k] < minks)
			minks = (uint64_t)K[k] * h->S[k];
	}
	o->beta = (double)minks / (2.0 * T);
	/* The largest T the same S, K admit: ports (2) and bisection (4). */
	uint64_t tmax = h->R - (ports - T);
	double tb = floor((double)minks / (2.0 * h->B) + 1e-9);
	if (tb < (double)tmax)
		tmax = (uint64_t)tb;
	o->T_max = (uint32_t)tmax;
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
	/* 1 <= L <= R - 1 (a hypercube uses R - 1 ports, seed 001 §3.1.2);
	 * P >= 2^L, so L stops once 2^L reaches the best P. */
	for (uint32_t L = 1; L < req->R && L <= ANALYZE_HX_MAX_L; L++) {
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
	return 0;
}
