/* Unit tests: design-space searches (emu/analyze): the HyperX search of
 * seed 001 §3.1.2 against Table 1 and against a brute force without
 * pruning, the Equality GA of seed 002 §3.3 (reproducible, meets its
 * constraints, finds the optimum of a small case), and the full-bandwidth
 * listings of FleX §III-B against Table 6. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze.h"
#include "core/error.h"
#include "test.h"
#include "topo/topo.h"
#include "topo/topo_hyperx.h"

/* The design meets eqs. 2-5 of seed 001 §3.1. */
static void check_hx_valid(const struct analyze_hx *h, const struct analyze_hx_req *q)
{
	uint64_t P = 1, ports = h->T, minks = UINT64_MAX;
	for (uint32_t k = 0; k < h->L; k++) {
		CHECK_UINT(h->S[k], >=, 2);                     /* (5) */
		if (k)
			CHECK_UINT(h->S[k - 1], <=, h->S[k]);   /* (6) */
		if (k)
			CHECK_UINT(h->K[k - 1], >=, h->K[k]);   /* (7) */
		P *= h->S[k];
		ports += (uint64_t)h->K[k] * (h->S[k] - 1);
		if ((uint64_t)h->K[k] * h->S[k] < minks)
			minks = (uint64_t)h->K[k] * h->S[k];
	}
	CHECK_UINT(P, ==, h->switches);
	CHECK_UINT(ports, <=, q->R);                            /* (2) */
	CHECK_UINT(ports, ==, h->ports);
	CHECK_UINT(h->T * P, >=, q->N);                          /* (3) */
	CHECK((double)minks / (2.0 * h->T) >= q->B - 1e-12);     /* (4) */
	CHECK_UINT(h->T, <=, h->T_max);
}

/* Seed 001 Table 1: best regular and general HyperX for N = 2^17 and
 * R = 128 at B = 0.125 / 0.25 / 0.5 / 1. Switch counts 2,401 / 2,744 /
 * 4,096 / 10,000 (regular) and 1,805 / 2,430 / 3,780 / 7,220 (general),
 * with the table's L, S, K and T. The table's T for the general B = 0.125
 * design, 76, is the largest T that fits (T_max); the fewest is 73. */
static void test_hyperx_table1(void)
{
	static const struct {
		double B;
		uint32_t rL, rS, rK, rT;
		uint64_t rP;
		uint32_t gS[3], gK[3], gT;
		uint64_t gP;
	} row[] = {
		{0.125, 4, 7, 2, 55, 2401, {5, 19, 19}, {4, 1, 1}, 76, 1805},
		{0.25, 3, 14, 2, 48, 2744, {3, 27, 30}, {9, 1, 1}, 54, 2430},
		{0.5, 3, 16, 2, 32, 4096, {3, 35, 36}, {12, 1, 1}, 35, 3780},
		{1.0, 4, 10, 3, 14, 10000, {5, 38, 38}, {8, 1, 1}, 19, 7220},
	};
	for (size_t i = 0; i < sizeof row / sizeof *row; i++) {
		struct analyze_hx_req q = {.N = 1u << 17, .R = 128, .B = row[i].B};
		struct analyze_hx reg, gen;
		struct nl_err e = {0};
		CHECK_OK(analyze_hyperx_design(&q, true, &reg, &e), &e);
		CHECK_OK(analyze_hyperx_design(&q, false, &gen, &e), &e);
		CHECK(reg.found && gen.found);
		CHECK_UINT(reg.switches, ==, row[i].rP);
		CHECK_UINT(gen.switches, ==, row[i].gP);
		CHECK_EQ(reg.L, row[i].rL);
		for (uint32_t k = 0; k < reg.L; k++) {
			CHECK_EQ(reg.S[k], row[i].rS);
			CHECK_EQ(reg.K[k], row[i].rK);
		}
		CHECK_EQ(reg.T, row[i].rT);
		CHECK_EQ(gen.L, 3);
		for (uint32_t k = 0; k < 3; k++) {
			CHECK_EQ(gen.S[k], row[i].gS[k]);
			CHECK_EQ(gen.K[k], row[i].gK[k]);
		}
		if (i == 0) {
			CHECK_EQ(gen.T, 73);
			CHECK_EQ(gen.T_max, row[i].gT);
		} else {
			CHECK_EQ(gen.T, row[i].gT);
		}
		check_hx_valid(&reg, &q);
		check_hx_valid(&gen, &q);
	}
}

/* Seed 001 §3.2: restricted to flattened butterflies (regular, K = 2),
 * the full-bisection design for N = 2^17, R = 128 is L = 4, S = 11, K = 2,
 * T = 9 with 14,641 switches; with also T = S it is S = 11, N = 11^5 =
 * 161,051 terminals, 29,979 more than needed. netloom's search has no
 * K restriction, so the restricted optimum is found here by exhausting
 * the regular K = 2 space (eqs. 2-5: T <= S for beta = 2S / 2T >= 1), and
 * the two designs are built as topologies: switches, terminals, radix
 * within R and beta from the built shape. */
static void test_hyperx_flattened_butterfly(void)
{
	const uint64_t N = 1u << 17;
	const uint32_t R = 128;
	uint64_t best = UINT64_MAX;
	uint32_t bL = 0, bS = 0, bT = 0;
	for (uint32_t L = 1; 2 * L <= R - 1; L++)
		for (uint32_t S = 2; 1 + 2 * L * (S - 1) <= R; S++) {
			uint64_t P = 1;
			for (uint32_t k = 0; k < L && P <= 2 * N; k++)
				P *= S;
			if (P > 2 * N) /* T >= 1: S^L = N is feasible already */
				break;
			for (uint32_t T = 1; T <= S && T + 2 * L * (S - 1) <= R; T++)
				if ((uint64_t)T * P >= N && P < best) {
					best = P;
					bL = L, bS = S, bT = T;
				}
		}
	CHECK_UINT(best, ==, 14641);
	CHECK_EQ(bL, 4);
	CHECK_EQ(bS, 11);
	CHECK_EQ(bT, 9);
	/* The unrestricted search does better (Table 1: 10,000 regular). */
	struct analyze_hx_req q = {.N = N, .R = R, .B = 1.0};
	struct analyze_hx reg;
	struct nl_err e = {0};
	CHECK_OK(analyze_hyperx_design(&q, true, &reg, &e), &e);
	CHECK_UINT(reg.switches, <, best);

	struct topo *t = NULL;
	CHECK_OK(topo_new("hyperx:s=11x11x11x11,k=2,t=9,r=128", &t, &e), &e);
	if (t) {
		CHECK_EQ(t->n_routers, 14641);
		CHECK_UINT(t->n_endpoints, >=, N);
		CHECK_EQ(t->n_endpoints, 9 * 14641);
		CHECK_EQ(topo_max_radix(t), 9 + 4 * 2 * 10);
		const struct topo_hyperx *h = topo_hyperx_of(t);
		CHECK(h && (double)(h->K[0] * h->S[0]) / (2.0 * h->T) >= 1.0);
		topo_free(t);
	}
	/* T = S: the flattened 11-ary 5-fly with double-wide links. */
	CHECK_OK(topo_new("flatfly:m=11,n=5,k=2", &t, &e), &e);
	if (t) {
		CHECK_EQ(t->n_routers, 14641);
		CHECK_EQ(t->n_endpoints, 161051);
		CHECK_EQ(t->n_endpoints - N, 29979);
		CHECK_UINT(topo_max_radix(t), <=, R);
		topo_free(t);
	}
}

/* Brute force without the paper's pruning or the least-T/least-K
 * shortcuts: every S (nondecreasing), T and K vector that fits R. */
struct brute {
	uint64_t N;
	uint32_t R;
	double B;
	bool regular;
	uint32_t L, S[16], K[16];
	uint64_t best;
};

static void brute_k(struct brute *b, uint32_t j, uint64_t P, uint32_t T, uint32_t ports)
{
	if (j == b->L) {
		uint64_t minks = UINT64_MAX;
		for (uint32_t k = 0; k < b->L; k++)
			if ((uint64_t)b->K[k] * b->S[k] < minks)
				minks = (uint64_t)b->K[k] * b->S[k];
		if ((double)minks / (2.0 * T) >= b->B && P < b->best)
			b->best = P;
		return;
	}
	for (uint32_t K = 1; ports + K * (b->S[j] - 1) <= b->R; K++) {
		if (b->regular && j > 0 && K != b->K[0])
			continue;
		b->K[j] = K;
		brute_k(b, j + 1, P, T, ports + K * (b->S[j] - 1));
	}
}

static void brute_s(struct brute *b, uint32_t j, uint32_t lo, uint64_t P, uint32_t ports)
{
	if (j == b->L) {
		for (uint32_t T = 1; T + ports <= b->R; T++)
			if ((uint64_t)T * P >= b->N)
				brute_k(b, 0, P, T, T);
		return;
	}
	for (uint32_t s = lo; ports + (s - 1) + 1 <= b->R; s++) {
		if (b->regular && j > 0 && s != b->S[0])
			continue;
		b->S[j] = s;
		brute_s(b, j + 1, s, P * s, ports + (s - 1));
	}
}

static void test_hyperx_brute_force(void)
{
	static const uint64_t Ns[] = {10, 40, 100, 250, 700};
	static const double Bs[] = {0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 4.5};
	uint32_t feasible = 0, cases = 0;
	for (size_t a = 0; a < sizeof Ns / sizeof *Ns; a++)
		for (size_t c = 0; c < sizeof Bs / sizeof *Bs; c++)
			for (int regular = 0; regular < 2; regular++) {
				struct brute b = {.N = Ns[a], .R = 11, .B = Bs[c], .regular = regular, .best = UINT64_MAX};
				for (b.L = 1; b.L < b.R; b.L++)
					brute_s(&b, 0, 2, 1, 0);
				struct analyze_hx_req q = {.N = b.N, .R = b.R, .B = b.B};
				struct analyze_hx h;
				struct nl_err e = {0};
				CHECK_OK(analyze_hyperx_design(&q, regular, &h, &e), &e);
				cases++;
				feasible += b.best != UINT64_MAX;
				if (b.best == UINT64_MAX) {
					if (h.found)
						TEST_FAIL_("N=%llu B=%g regular=%d: search found %llu, brute force none",
							   (unsigned long long)b.N, b.B, regular,
							   (unsigned long long)h.switches);
				} else if (!h.found || h.switches != b.best) {
					TEST_FAIL_("N=%llu B=%g regular=%d: search %llu (found %d), brute force %llu",
						   (unsigned long long)b.N, b.B, regular, (unsigned long long)h.switches,
						   h.found, (unsigned long long)b.best);
				} else {
					check_hx_valid(&h, &q);
				}
			}
	/* Both outcomes occur, so the comparison means something. */
	CHECK_UINT(feasible, >, cases / 3);
	CHECK_UINT(feasible, <, cases);
}

static void test_hyperx_errors(void)
{
	struct analyze_hx h;
	struct nl_err e = {0};
	struct analyze_hx_req q = {.N = 100, .R = 1, .B = 0.5};
	CHECK_ERR(analyze_hyperx_design(&q, false, &h, &e), NL_EINVAL, &e, "--radix 1");
	q.R = 16;
	q.B = 0;
	CHECK_ERR(analyze_hyperx_design(&q, false, &h, &e), NL_EINVAL, &e, "--bisection");
	/* No HyperX of radix 4 reaches 10^6 terminals. */
	q.N = 1000000;
	q.R = 4;
	q.B = 0.5;
	CHECK_OK(analyze_hyperx_design(&q, false, &h, &e), &e);
	CHECK(!h.found);
}

/* A bisection no HyperX of the radix reaches ends the search at once
 * (it walked every partition of R - 1 before: 131072 terminals, radix
 * 128, B = 100 ran for minutes), and B > R - 1 is refused: beta = min(K S)
 * / 2T is at most R - 1 (one dimension of 2 switches with R - 1 trunked
 * links and T = 1, which the search finds for B = R - 1). */
static void test_hyperx_unreachable_bisection(void)
{
	struct analyze_hx h;
	struct nl_err e = {0};
	struct analyze_hx_req q = {.N = 131072, .R = 128, .B = 100};
	for (int regular = 0; regular < 2; regular++) {
		CHECK_OK(analyze_hyperx_design(&q, regular, &h, &e), &e);
		CHECK(!h.found);
		CHECK_UINT(h.visited, <, 1000);
	}
	q = (struct analyze_hx_req){.N = 100, .R = 128, .B = 100};
	CHECK_OK(analyze_hyperx_design(&q, false, &h, &e), &e);
	CHECK(!h.found);
	CHECK_UINT(h.visited, <, 1000);
	q = (struct analyze_hx_req){.N = 100, .R = 96, .B = 100};
	CHECK_ERR(analyze_hyperx_design(&q, false, &h, &e), NL_EINVAL, &e, "--bisection 100: expected at most 95");
	q = (struct analyze_hx_req){.N = 2, .R = 128, .B = 127};
	CHECK_OK(analyze_hyperx_design(&q, false, &h, &e), &e);
	CHECK(h.found);
	if (h.found) {
		CHECK_EQ(h.L, 1);
		CHECK_EQ(h.S[0], 2);
		CHECK_EQ(h.K[0], 127);
		CHECK_EQ(h.T, 1);
		CHECK_NEAR(h.beta, 127, 0);
	}
	q.B = 127.5;
	CHECK_ERR(analyze_hyperx_design(&q, false, &h, &e), NL_EINVAL, &e, "expected at most 127");
	/* Table 1's requests stay fast with the bisection prune. */
	q = (struct analyze_hx_req){.N = 131072, .R = 128, .B = 0.125};
	CHECK_OK(analyze_hyperx_design(&q, false, &h, &e), &e);
	CHECK_EQ(h.switches, 1805);
}

/* The search has a step budget (5x10^7, about 5 s): 2^63 - 1 terminals at
 * radix 128 ran for minutes with no output; then it was refused with one
 * line naming the request, and nothing is reported found. Within the 16
 * dimensions the hyperx family builds, 2^63 - 1 is out of reach at once
 * (none found) and 10^10 passes the budget at L = 10. 10^9 terminals
 * (~3x10^7 steps) still gets its answer. */
static void test_hyperx_work_limit(void)
{
	struct analyze_hx h;
	struct nl_err e = {0};
	struct analyze_hx_req q = {.N = 10000000000ull, .R = 128, .B = 0.5};
	CHECK_ERR(analyze_hyperx_design(&q, false, &h, &e), NL_ERANGE, &e,
		  "design hyperx: --terminals 10000000000 with --radix 128: the general search passed its "
		  "limit of 50000000 steps");
	CHECK(!h.found);
	q.N = 9223372036854775807ull;
	CHECK_OK(analyze_hyperx_design(&q, false, &h, &e), &e);
	CHECK(!h.found);
	q.N = 1000000000;
	CHECK_OK(analyze_hyperx_design(&q, false, &h, &e), &e);
	CHECK_EQ(h.switches, 59633994);
}

/* The search is analytical and goes past what the hyperx family builds:
 * a design says whether it builds (topo_hyperx_fits, the refusal 'topo
 * describe' gives), and one that does builds. */
static void test_hyperx_buildable(void)
{
	struct analyze_hx h;
	struct nl_err e = {0};
	struct analyze_hx_req q = {.N = 2000000000, .R = 128, .B = 0.5};

	/* L = 7, S = 15: 170,859,375 switches of 110 ports, 1.9x10^10 ports. */
	CHECK_OK(analyze_hyperx_design(&q, true, &h, &e), &e);
	CHECK_EQ(h.switches, 170859375);
	CHECK(!h.is_buildable);
	CHECK_STR(h.build_limit,
		  "topology 'hyperx': parameters 's', 't' give 170859375 switches (S = 15x15x15x15x15x15x15) of 110 "
		  "ports each (t = 12 of them for terminals): 18794531250 ports; expected fewer than 2^31 (2147483648)");
	/* Table 1's designs build: marked so, and the network has them. */
	q = (struct analyze_hx_req){.N = 131072, .R = 128, .B = 0.5};
	for (int regular = 0; regular < 2; regular++) {
		CHECK_OK(analyze_hyperx_design(&q, regular, &h, &e), &e);
		CHECK(h.is_buildable);
		CHECK_STR(h.build_limit, "");
		char spec[256] = "hyperx:s=", *p = spec + 9;
		for (uint32_t k = 0; k < h.L; k++)
			p += snprintf(p, 16, "%s%u", k ? "x" : "", h.S[k]);
		p += snprintf(p, 8, ",k=");
		for (uint32_t k = 0; k < h.L; k++)
			p += snprintf(p, 16, "%s%u", k ? "x" : "", h.K[k]);
		snprintf(p, 16, ",t=%u", h.T);
		struct topo *t = NULL;
		CHECK_OK(topo_new(spec, &t, &e), &e);
		if (t) {
			CHECK_UINT(t->n_routers, ==, h.switches);
			CHECK_UINT(t->n_endpoints, ==, h.switches * h.T);
		}
		topo_free(t);
	}
	/* Reach's answer is marked too: 16 dimensions of 4 and 5 switches. */
	q = (struct analyze_hx_req){.N = 100000000000000ull, .R = 64, .B = 0.5};
	CHECK_OK(analyze_hyperx_reach(&q, false, &h, &e), &e);
	CHECK(h.found && !h.is_buildable);
	CHECK(strstr(h.build_limit, "62500000000 switches; expected at most 2^30") != NULL);
	/* The family's other limits, each the spec's own refusal. */
	uint32_t S[17] = {4, 4}, K[17] = {1, 1};
	CHECK_OK(topo_hyperx_fits(2, S, K, 65536, &e), &e);
	CHECK_ERR(topo_hyperx_fits(2, S, K, 65537, &e), NL_ERANGE, &e,
		  "topology 'hyperx': parameter 't' value '65537' out of range: expected a value in 0..65536");
	K[0] = 1025;
	CHECK(topo_hyperx_fits(2, S, K, 1, &e) < 0 && strstr(e.msg, "parameter 'k'"));
	for (int d = 0; d < 17; d++)
		S[d] = 2, K[d] = 1;
	CHECK_ERR(topo_hyperx_fits(17, S, K, 1, &e), NL_ERANGE, &e, "1 to 16 dimensions, got 17");
}

/* Explicit Equality graph from the §3.1 rule, all-sources BFS: the
 * independent check of analyze_equality_eval (and of vertex transitivity). */
static void eq_explicit(uint32_t N, const int64_t *sa, uint32_t na, const int64_t *sb, uint32_t nb,
			uint32_t *diam, double *aspl, uint32_t *degree)
{
	uint8_t *adj = calloc((size_t)N * N, 1);
	const int64_t *sets[2] = {sa, sb};
	uint32_t ns[2] = {na, nb};
	for (int w = 0; w < 2; w++)
		for (uint32_t j = 0; j < ns[w]; j++)
			for (uint32_t i = 0; i < N; i++) {
				int64_t s = sets[w][j];
				uint32_t o = (uint32_t)(((i % 2 ? -s : s) % (int64_t)N + N) % N);
				uint32_t k = (i + o) % N;
				adj[(size_t)i * N + k] = adj[(size_t)k * N + i] = 1;
			}
	*degree = 0;
	for (uint32_t k = 0; k < N; k++)
		*degree += adj[k];
	uint32_t *dist = malloc(N * sizeof *dist), *q = malloc(N * sizeof *q);
	uint64_t sum = 0;
	*diam = 0;
	for (uint32_t src = 0; src < N; src++) {
		uint32_t h = 0, t = 0, deg = 0;
		for (uint32_t k = 0; k < N; k++) {
			dist[k] = UINT32_MAX;
			deg += adj[(size_t)src * N + k];
		}
		CHECK_EQ(deg, *degree); /* regular */
		dist[src] = 0;
		q[t++] = src;
		while (h < t) {
			uint32_t v = q[h++];
			for (uint32_t u = 0; u < N; u++)
				if (adj[(size_t)v * N + u] && dist[u] == UINT32_MAX) {
					dist[u] = dist[v] + 1;
					sum += dist[u];
					if (dist[u] > *diam)
						*diam = dist[u];
					q[t++] = u;
				}
		}
		CHECK_EQ(t, N);
	}
	*aspl = (double)sum / ((double)N * (N - 1));
	free(adj);
	free(dist);
	free(q);
}

/* N14K6[-1,1,3,9](4), seed 002 Fig. 1: 14 routers, radix 6. */
static void test_equality_eval(void)
{
	const int64_t sa[] = {-1, 1, 3, 9}, sb[] = {4};
	uint32_t d, d2, deg;
	double a, a2;
	struct nl_err e = {0};
	CHECK_OK(analyze_equality_eval(14, sa, 4, sb, 1, &d, &a, &e), &e);
	eq_explicit(14, sa, 4, sb, 1, &d2, &a2, &deg);
	CHECK_EQ(deg, 6);
	CHECK_EQ(d, d2);
	CHECK_NEAR(a, a2, 1e-12);
	/* N/2 as an even chord gives one link (eq. 1): N=16, S_B = {8}. */
	const int64_t sa2[] = {-1, 1, 5}, sb2[] = {8, 2};
	CHECK_OK(analyze_equality_eval(16, sa2, 3, sb2, 2, &d, &a, &e), &e);
	eq_explicit(16, sa2, 3, sb2, 2, &d2, &a2, &deg);
	CHECK_EQ(deg, 3 + 1 + 2);
	CHECK_EQ(d, d2);
	CHECK_NEAR(a, a2, 1e-12);
	const int64_t bad[] = {2};
	CHECK_ERR(analyze_equality_eval(14, bad, 1, sb, 1, &d, &a, &e), NL_EINVAL, &e, "not odd");
	CHECK_ERR(analyze_equality_eval(15, sa, 4, sb, 1, &d, &a, &e), NL_EINVAL, &e, "even number");
}

/* Radix of a design by eq. 1: odd chords 1 each, even 2 each, N/2 one. */
static uint32_t eq_radix(const struct analyze_eq *r)
{
	uint32_t k = r->n_sa;
	for (uint32_t i = 0; i < r->n_sb; i++)
		k += (uint64_t)r->sb[i] * 2 == r->N ? 1 : 2;
	return k;
}

static void test_equality_ga(void)
{
	struct analyze_eq_req q = {.N = 64, .K = 7, .seed = 42, .population = 24, .generations = 30, .mutation = -1};
	struct analyze_eq r1, r2, r3;
	struct nl_err e = {0};
	CHECK_OK(analyze_equality_design(&q, &r1, &e), &e);
	CHECK_OK(analyze_equality_design(&q, &r2, &e), &e);
	/* Same seed, same result. */
	CHECK_EQ(r1.n_sa, r2.n_sa);
	CHECK_EQ(r1.n_sb, r2.n_sb);
	CHECK(!memcmp(r1.sa, r2.sa, r1.n_sa * sizeof *r1.sa));
	CHECK(!memcmp(r1.sb, r2.sb, r1.n_sb * sizeof *r1.sb));
	CHECK(r1.score == r2.score);
	/* Constraints: radix K, the ring, odd S_A, even S_B <= N/2, distinct. */
	CHECK_EQ(eq_radix(&r1), 7);
	CHECK(r1.n_sa >= 2 && r1.sa[0] == -1 && r1.sa[1] == 1);
	for (uint32_t i = 2; i < r1.n_sa; i++) {
		CHECK(r1.sa[i] % 2 != 0 && r1.sa[i] >= 3 && r1.sa[i] <= 61);
		if (i > 2)
			CHECK(r1.sa[i] > r1.sa[i - 1]);
	}
	for (uint32_t i = 0; i < r1.n_sb; i++) {
		CHECK(r1.sb[i] % 2 == 0 && r1.sb[i] >= 2 && r1.sb[i] <= 32);
		if (i)
			CHECK(r1.sb[i] > r1.sb[i - 1]);
	}
	/* The reported metrics are the network's. */
	uint32_t d, deg;
	double a;
	eq_explicit(64, r1.sa, r1.n_sa, r1.sb, r1.n_sb, &d, &a, &deg);
	CHECK_EQ(deg, 7);
	CHECK_EQ(r1.diameter, d);
	CHECK_NEAR(r1.aspl, a, 1e-12);
	CHECK_NEAR(r1.score, a * d, 1e-12);
	CHECK_EQ(r1.evaluations, 24 + 30 * 22);
	/* Another seed is still a valid design. */
	q.seed = 43;
	CHECK_OK(analyze_equality_design(&q, &r3, &e), &e);
	CHECK_EQ(eq_radix(&r3), 7);
	analyze_eq_release(&r1);
	analyze_eq_release(&r2);
	analyze_eq_release(&r3);

	CHECK_ERR(analyze_equality_design(&(struct analyze_eq_req){.N = 15, .K = 6}, &r1, &e), NL_EINVAL, &e,
		  "--routers: expected an even integer of at least 6, got '15'");
	CHECK_ERR(analyze_equality_design(&(struct analyze_eq_req){.N = 14, .K = 14}, &r1, &e), NL_EINVAL, &e,
		  "--radix: expected an integer in 3..13 for 14 routers, got '14'");
}

/* N = 14, K = 6: every chord set (4 ports beyond the ring from the one-port
 * chords 3,5,7,9,11 and two-port chords 2,4,6) by brute force; the GA
 * must reach the minimum a x d. */
static void test_equality_ga_optimum(void)
{
	const int64_t one[] = {3, 5, 7, 9, 11}, two[] = {2, 4, 6};
	double best = 1e300;
	for (uint32_t m1 = 0; m1 < 32; m1++)
		for (uint32_t m2 = 0; m2 < 8; m2++) {
			int64_t sa[8] = {-1, 1}, sb[4];
			uint32_t na = 2, nb = 0;
			for (int i = 0; i < 5; i++)
				if (m1 >> i & 1)
					sa[na++] = one[i];
			for (int i = 0; i < 3; i++)
				if (m2 >> i & 1)
					sb[nb++] = two[i];
			if (na - 2 + 2 * nb != 4)
				continue;
			uint32_t d;
			double a;
			struct nl_err e = {0};
			CHECK_OK(analyze_equality_eval(14, sa, na, sb, nb, &d, &a, &e), &e);
			if (a * d < best)
				best = a * d;
		}
	struct analyze_eq r;
	struct nl_err e = {0};
	struct analyze_eq_req q = {.N = 14, .K = 6, .seed = 1, .mutation = -1};
	CHECK_OK(analyze_equality_design(&q, &r, &e), &e);
	CHECK_NEAR(r.score, best, 1e-12);
	CHECK_EQ(eq_radix(&r), 6);
	analyze_eq_release(&r);
}

/* The search returns a design of radix K for N routers, and the topology
 * its notation builds has K network ports on every router. */
static void eq_design_check(uint32_t N, uint32_t K)
{
	struct analyze_eq_req q = {.N = N, .K = K, .seed = 7, .population = 8, .generations = 4, .mutation = -1};
	struct analyze_eq r;
	struct nl_err e = {0};
	CHECK_OK(analyze_equality_design(&q, &r, &e), &e);
	CHECK_EQ(eq_radix(&r), K);
	char spec[512];
	int n = snprintf(spec, sizeof spec, "N%uK%u[", N, K);
	for (uint32_t i = 0; i < r.n_sa; i++)
		n += snprintf(spec + n, sizeof spec - (size_t)n, "%s%lld", i ? "," : "", (long long)r.sa[i]);
	n += snprintf(spec + n, sizeof spec - (size_t)n, "](");
	for (uint32_t i = 0; i < r.n_sb; i++)
		n += snprintf(spec + n, sizeof spec - (size_t)n, "%s%lld", i ? "," : "", (long long)r.sb[i]);
	snprintf(spec + n, sizeof spec - (size_t)n, ")");
	struct topo *t = NULL;
	CHECK_OK(topo_new(spec, &t, &e), &e);
	CHECK_EQ(t->n_routers, N);
	for (uint32_t v = 0; v < N; v++) {
		uint32_t deg = 0;
		for (uint32_t g = t->port_base[v]; g < t->port_base[v + 1]; g++)
			deg += t->peer[g] != TOPO_NONE && !(t->peer[g] & TOPO_EP_BIT);
		CHECK_EQ(deg, K);
	}
	topo_free(t);
	analyze_eq_release(&r);
}

/* The largest radix, K = N - 1 (eq. 1: every candidate chord, the complete
 * graph), for even N = 6 .. 40: the crossover copied both parents' items,
 * up to 2(K - 2), into scratch sized for the N - 3 items and overflowed
 * the heap (N=8 K=7: munmap_chunk(): invalid pointer). */
static void test_equality_ga_full_radix(void)
{
	for (uint32_t N = 6; N <= 40; N += 2)
		eq_design_check(N, N - 1);
}

/* Every radix K = 3 .. N - 1 that --radix accepts, for even N = 6 .. 40
 * (eq. 1 reaches each: u one-port and w two-port chords with u + 2w = K - 2
 * always exist). The fill's trade freed a one-port item, then re-picked it
 * (N=6 K=4: "assertion failed: left == 0"; release builds printed a design
 * of radix K - 1). */
static void test_equality_ga_every_radix(void)
{
	for (uint32_t N = 6; N <= 40; N += 2)
		for (uint32_t K = 3; K < N; K++)
			eq_design_check(N, K);
}

/* FleX §III-B full global bandwidth listings against Table 6 (N ~ 1,000):
 * FleX 6x6x3 p=10 (108 routers, radix 30, 1,080 links, diameter 2), Slim
 * Fly q=9 (162 routers, 1,053 links, k' = 13, p = 7, diameter 2), and the
 * dragonfly a = 2p = 2h = 8 (radix 15; 1,000 terminals need 32 groups).
 * Every entry meets the request and its family's bandwidth rule. */
static void test_fullbw_table6(void)
{
	struct analyze_cfg *c = NULL;
	size_t n = 0;
	struct nl_err e = {0};

	CHECK_OK(analyze_fullbw_configs("flex", 1000, 30, &c, &n, &e), &e);
	CHECK_UINT(n, >=, 2);
	if (n >= 1) {
		CHECK_STR(c[0].spec, "flex:nx=6,ny=6,nz=3,p=10");
		CHECK_EQ(c[0].routers, 108);
		CHECK_EQ(c[0].endpoints, 1080);
		CHECK_EQ(c[0].radix, 30);
		CHECK_EQ(c[0].links, 1080);
		CHECK_EQ(c[0].diameter, 2);
	}
	for (size_t i = 0; i < n; i++) {
		CHECK_UINT(c[i].radix, <=, 30);
		CHECK_UINT(c[i].endpoints, >=, 1000);
		CHECK_EQ(c[i].p, c[i].radix / 3); /* p = floor(k/3), exactly k/3 */
		if (i)
			CHECK_UINT(c[i - 1].routers, <=, c[i].routers);
	}
	free(c);

	CHECK_OK(analyze_fullbw_configs("slimfly", 1000, 20, &c, &n, &e), &e);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_STR(c[0].spec, "slimfly:q=9,p=7");
		CHECK_EQ(c[0].routers, 162);
		CHECK_EQ(c[0].links, 1053);
		CHECK_EQ(c[0].radix, 20);
		CHECK_EQ(c[0].diameter, 2);
	}
	free(c);

	CHECK_OK(analyze_fullbw_configs("dragonfly", 1000, 15, &c, &n, &e), &e);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_STR(c[0].spec, "dragonfly:a=8,p=4,h=4,g=32");
		CHECK_EQ(c[0].endpoints, 1024);
		CHECK_EQ(c[0].radix, 15);
		CHECK_EQ(c[0].diameter, 3);
	}
	free(c);

	CHECK_ERR(analyze_fullbw_configs("torus", 1000, 15, &c, &n, &e), NL_EINVAL, &e, "unknown family 'torus'");
	/* Nothing reaches a million terminals with radix 8. */
	CHECK_OK(analyze_fullbw_configs("slimfly", 1000000, 8, &c, &n, &e), &e);
	CHECK_EQ(n, 0);
	free(c);
}

/* The full-bandwidth listings build every configuration, so requests are
 * bounded by the router ports built (radix 400 to 2,000 took minutes and
 * GBs): refused before any is built, naming the total; a request within
 * it lists configurations with exact diameters (Slim Fly: 2, MMS graphs).
 * FleX layers beyond what the family builds (nz <= 65535) are skipped,
 * not an error: 10^6 terminals at radix 64 asked for nz = 125,000 at
 * n = 2. */
static void test_fullbw_limits(void)
{
	struct analyze_cfg *c = NULL;
	size_t n = 0;
	struct nl_err e = {0};
	static const char *fam[] = {"slimfly", "flex", "dragonfly"};
	for (size_t i = 0; i < 3; i++) {
		CHECK_ERR(analyze_fullbw_configs(fam[i], 1000, 2000, &c, &n, &e), NL_ERANGE, &e,
			  "--radix 2000 with --terminals 1000 builds");
		CHECK(strstr(e.msg, "expected at most 50000000") != NULL);
		CHECK(c == NULL && n == 0);
	}
	CHECK_ERR(analyze_fullbw_configs("slimfly", 1000, 400, &c, &n, &e), NL_ERANGE, &e, "router ports");
	CHECK_OK(analyze_fullbw_configs("slimfly", 1000, 40, &c, &n, &e), &e);
	CHECK_UINT(n, >=, 3);
	for (size_t i = 0; i < n; i++) {
		CHECK_EQ(c[i].diameter, 2);
		CHECK_UINT(c[i].radix, <=, 40);
	}
	free(c);
	CHECK_OK(analyze_fullbw_configs("flex", 1000000, 64, &c, &n, &e), &e);
	CHECK_UINT(n, >=, 1);
	for (size_t i = 0; i < n; i++) {
		CHECK_UINT(c[i].endpoints, >=, 1000000);
		CHECK(c[i].diameter != UINT32_MAX);
	}
	free(c);
}

int main(void)
{
	TEST_RUN(test_hyperx_table1);
	TEST_RUN(test_hyperx_flattened_butterfly);
	TEST_RUN(test_hyperx_brute_force);
	TEST_RUN(test_hyperx_errors);
	TEST_RUN(test_hyperx_unreachable_bisection);
	TEST_RUN(test_hyperx_work_limit);
	TEST_RUN(test_hyperx_buildable);
	TEST_RUN(test_equality_eval);
	TEST_RUN(test_equality_ga);
	TEST_RUN(test_equality_ga_optimum);
	TEST_RUN(test_equality_ga_full_radix);
	TEST_RUN(test_equality_ga_every_radix);
	TEST_RUN(test_fullbw_table6);
	TEST_RUN(test_fullbw_limits);
	return test_done();
}
