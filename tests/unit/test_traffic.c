/* Unit tests: synthetic traffic patterns (emu/traffic), each against its
 * definition (Dally & Towles ch. 3, BookSim2, seeds 000-002). */
#include <stdint.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/rng.h"
#include "topo/topo.h"
#include "traffic/traffic.h"
#include "test.h"

struct fixture {
	struct topo *t;
	struct traffic *tr;
	struct rng rng;
};

static int fx_open(struct fixture *f, const char *topo, const char *pattern)
{
	struct nl_err e = {0};
	f->t = NULL;
	f->tr = NULL;
	rng_init(&f->rng, 5, RNG_CLASS_TRAFFIC, 1);
	if (topo_new(topo, &f->t, &e) < 0 || traffic_new(pattern, f->t, 9, &f->tr, &e) < 0) {
		TEST_FAIL_("%s on %s: %s", pattern, topo, e.msg);
		return -1;
	}
	return 0;
}

static void fx_close(struct fixture *f)
{
	traffic_free(f->tr);
	topo_free(f->t);
}

static uint32_t dest(struct fixture *f, uint32_t s)
{
	return f->tr->ops->dest(f->tr, s, &f->rng);
}

/* Bit permutations on 16 endpoints (b = 4): source 0b0110 = 6. */
static void test_bit_permutations(void)
{
	struct fixture f;
	static const struct {
		const char *name;
		uint32_t src, dst;
	} cases[] = {
		{"bitcomp", 6, 9},    /* ~0110 = 1001 */
		{"bitrev", 6, 6},     /* 0110 reversed */
		{"bitrev", 1, 8},     /* 0001 -> 1000 */
		{"shuffle", 6, 12},   /* rotate left: 1100 */
		{"shuffle", 9, 3},    /* 1001 -> 0011 */
		{"bitrot", 6, 3},     /* rotate right: 0011 (d_i = s_(i+1)) */
		{"bitrot", 1, 8},     /* 0001 -> 1000 */
		{"transpose", 6, 9},  /* swap halves 01|10 -> 10|01 */
		{"transpose", 1, 4},  /* 00|01 -> 01|00 */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		if (fx_open(&f, "torus:k=4x4", cases[i].name) < 0)
			continue;
		uint32_t d = dest(&f, cases[i].src);
		if (d != cases[i].dst)
			TEST_FAIL_("%s(%u) = %u, expected %u", cases[i].name, cases[i].src, d, cases[i].dst);
		/* Each is a permutation. */
		uint8_t seen[16] = {0};
		for (uint32_t s = 0; s < 16; s++)
			seen[dest(&f, s)]++;
		for (uint32_t s = 0; s < 16; s++)
			CHECK_EQ(seen[s], 1);
		fx_close(&f);
	}
}

/* Seed 000 §IV-B: patterns that need 2^b endpoints use the largest power
 * of two (of four for transpose) and leave the others idle. */
static void test_power_of_two_trimming(void)
{
	struct fixture f;
	if (fx_open(&f, "flex:nx=6,ny=6,nz=3,p=10", "bitcomp") == 0) {
		CHECK_EQ(f.t->n_endpoints, 1080);
		CHECK_EQ(f.tr->n_active, 1024);
		CHECK(traffic_is_active(f.tr, 1023) && !traffic_is_active(f.tr, 1024));
		CHECK_EQ(dest(&f, 0), 1023);
		fx_close(&f);
	}
	if (fx_open(&f, "torus:k=8x4", "transpose") == 0) {
		CHECK_EQ(f.tr->n_active, 16); /* 32 has an odd bit count */
		fx_close(&f);
	}
	if (fx_open(&f, "torus:k=8x4", "uniform") == 0) {
		CHECK_EQ(f.tr->n_active, 32);
		fx_close(&f);
	}
}

/* Tornado: (ceil(k/2) - 1) steps in every dimension; neighbor: one step. */
static void test_grid_patterns(void)
{
	struct fixture f;
	if (fx_open(&f, "torus:k=8x5,p=2", "tornado") == 0) {
		/* router (1, 2) = 17, terminal 1 = endpoint 35: +3 of 8, +2 of 5 -> (4, 4) = 36. */
		CHECK_EQ(dest(&f, 35), 36 * 2 + 1);
		fx_close(&f);
	}
	if (fx_open(&f, "torus:k=8x5", "neighbor") == 0) {
		CHECK_EQ(dest(&f, 7), 8);   /* (7,0) -> (0,1) */
		CHECK_EQ(dest(&f, 39), 0);  /* (7,4) -> (0,0) */
		fx_close(&f);
	}
	/* Swap2 (seed 001 §4): even endpoints across dimension 0's bisection,
	 * odd ones across dimension 1's. */
	if (fx_open(&f, "torus:k=8x8", "swap2") == 0) {
		CHECK_EQ(dest(&f, 2), 6);       /* (2,0) -> (6,0) */
		CHECK_EQ(dest(&f, 3), 35);      /* (3,0) -> (3,4) */
		CHECK_EQ(dest(&f, dest(&f, 2)), 2);
		fx_close(&f);
	}
	/* On the cmesh (BookSim's endpoint numbering, not router-major) the
	 * grid patterns move between routers and keep the terminal port:
	 * endpoint 9 is router 0's port 3; neighbor -> router (1, 1) = 5,
	 * port 3 = endpoint 8 * 3 + 3 = 27; tornado on k = 4 is one step too. */
	if (fx_open(&f, "cmesh:k=4,c=4", "neighbor") == 0) {
		CHECK_EQ(dest(&f, 9), 27);
		CHECK_EQ(dest(&f, 63), 9); /* router (3, 3) port 3 -> router (0, 0) port 3 */
		fx_close(&f);
	}
	if (fx_open(&f, "cmesh:k=4,c=4", "tornado") == 0) {
		CHECK_EQ(dest(&f, 9), 27);
		fx_close(&f);
	}
}

static void test_random_patterns(void)
{
	struct fixture f;
	if (fx_open(&f, "torus:k=4x4", "uniform:self=0") == 0) {
		uint32_t counts[16] = {0};
		for (int i = 0; i < 15000; i++) {
			uint32_t d = dest(&f, 3);
			CHECK(d != 3);
			counts[d]++;
		}
		for (uint32_t d = 0; d < 16; d++)
			if (d != 3)
				CHECK_NEAR(counts[d], 1000, 150);
		fx_close(&f);
	}
	if (fx_open(&f, "torus:k=4x4", "randperm:perm_seed=3") == 0) {
		uint8_t seen[16] = {0};
		for (uint32_t s = 0; s < 16; s++)
			seen[dest(&f, s)]++;
		for (uint32_t s = 0; s < 16; s++)
			CHECK_EQ(seen[s], 1);
		fx_close(&f);
	}
	/* Hot spots with weights 1:3, and a uniform background. */
	if (fx_open(&f, "torus:k=4x4", "hotspot:nodes=2/9,rates=1/3") == 0) {
		int n2 = 0, n9 = 0;
		for (int i = 0; i < 8000; i++) {
			uint32_t d = dest(&f, 0);
			n2 += d == 2;
			n9 += d == 9;
		}
		CHECK_EQ(n2 + n9, 8000);
		CHECK_NEAR(n9, 6000, 250);
		fx_close(&f);
	}
	if (fx_open(&f, "torus:k=4x4", "hotspot:nodes=5,frac=0.5") == 0) {
		int hot = 0;
		for (int i = 0; i < 8000; i++)
			hot += dest(&f, 0) == 5;
		CHECK_NEAR(hot, 4000 + 4000 / 16, 250);
		fx_close(&f);
	}
	/* BookSim's asymmetric: (s mod N/2) + either 0 or N/2. */
	if (fx_open(&f, "torus:k=4x4", "asymmetric") == 0) {
		for (int i = 0; i < 100; i++) {
			uint32_t d = dest(&f, 13);
			CHECK(d == 5 || d == 13);
		}
		fx_close(&f);
	}
}

/* Seed 000 Fig. 12: each router sends to the next group (dragonfly) or
 * layer (FleX), the last to the first. */
static void test_nextgroup(void)
{
	struct fixture f;
	if (fx_open(&f, "dragonfly:a=4,p=2,h=2", "nextgroup") == 0) {
		/* g = 9 groups of 4 routers, 8 endpoints per group. */
		for (int i = 0; i < 200; i++) {
			uint32_t d = dest(&f, 3); /* group 0 */
			CHECK(d >= 8 && d < 16);
			d = dest(&f, 8 * 8 + 1); /* group 8 -> group 0 */
			CHECK(d < 8);
		}
		fx_close(&f);
	}
	if (fx_open(&f, "flex:nx=4,ny=4,nz=3,p=2", "nextgroup") == 0) {
		for (int i = 0; i < 200; i++) {
			uint32_t d = dest(&f, 40); /* router 20, layer 1 */
			CHECK(d >= 64 && d < 96);
		}
		fx_close(&f);
	}
}

static void test_errors(void)
{
	struct topo *t = NULL;
	struct traffic *tr = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("torus:k=4x4", &t, &e), &e);
	CHECK_ERR(traffic_new("zigzag", t, 0, &tr, &e), NL_ENOTFOUND, &e, "unknown traffic pattern 'zigzag' (valid: uniform");
	CHECK_ERR(traffic_new("unifrom", t, 0, &tr, &e), NL_ENOTFOUND, &e,
		  "unknown traffic pattern 'unifrom' (did you mean 'uniform'? valid: uniform, bitcomp,");
	CHECK_ERR(traffic_new("uniform,self=0", t, 0, &tr, &e), NL_ENOTFOUND, &e,
		  "unknown traffic pattern 'uniform,self=0': expected 'uniform:self=0' (parameters follow the name after a ':')");
	CHECK_ERR(traffic_new("tornado ", t, 0, &tr, &e), NL_ENOTFOUND, &e,
		  "unknown traffic pattern 'tornado ': expected 'tornado' (nothing after the name but ':' and its parameters)");
	CHECK_ERR(traffic_new("nextgroup", t, 0, &tr, &e), NL_EUNSUPPORTED, &e, "needs a topology with groups");
	CHECK_ERR(traffic_new("hotspot:nodes=99", t, 0, &tr, &e), NL_ERANGE, &e, "value 99 is not an endpoint");
	CHECK_ERR(traffic_new("hotspot:nodes=1/2,rates=1/2/3", t, 0, &tr, &e), NL_EINVAL, &e,
		  "has 3 values for 2 nodes");
	CHECK_ERR(traffic_new("hotspot:nodes=0/0", t, 0, &tr, &e), NL_EINVAL, &e,
		  "parameter 'nodes' value '0/0': endpoint 0 given twice; expected each endpoint once");
	CHECK(tr == NULL);
	topo_free(t);
}

int main(void)
{
	TEST_RUN(test_bit_permutations);
	TEST_RUN(test_power_of_two_trimming);
	TEST_RUN(test_grid_patterns);
	TEST_RUN(test_random_patterns);
	TEST_RUN(test_nextgroup);
	TEST_RUN(test_errors);
	return test_done();
}
