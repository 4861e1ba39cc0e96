/* Unit tests: collective algorithms (emu/app). Every algorithm of every
 * collective runs to completion on communicators of 1..17 ranks, and its
 * message count and bytes match the algorithm's closed form; the default
 * (auto) choices follow Open MPI 4.1.4's decision table. */
#include "app/app.h"
#include "app/app_internal.h"
#include "app_synth.h"
#include "core/error.h"
#include "test.h"

static uint32_t log2_ceil(uint32_t p)
{
	uint32_t l = 0;
	while ((1u << l) < p)
		l++;
	return l;
}

static uint32_t pof2_floor(uint32_t p)
{
	uint32_t x = 1;
	while (2 * x <= p)
		x *= 2;
	return x;
}

static bool is_pof2(uint32_t p)
{
	return (p & (p - 1)) == 0;
}

/* Binomial-tree subtree sizes of the non-root ranks, summed (gather and
 * scatter move block x subtree on each edge). */
static uint64_t binomial_subtree_sum(uint32_t p)
{
	uint64_t s = 0;
	for (uint32_t v = 1; v < p; v++) {
		uint32_t m = v & -v; /* lowest set bit: v's subtree spans [v, v + m) */
		s += m < p - v ? m : p - v;
	}
	return s;
}

struct expect {
	uint64_t msgs, bytes;
};

/* Replay one collective on p ranks and return (messages, bytes). */
static int run_one(uint32_t p, uint16_t kind, const char *key, const char *alg, uint64_t bytes,
		   uint64_t recv_bytes, struct expect *got, struct nl_err *err)
{
	*got = (struct expect){0};
	struct syn s;
	struct syn_run run;
	char setting[96];
	snprintf(setting, sizeof setting, "%s=%s", key, alg);
	const char *const set[] = {"latency_ns=1000", "bandwidth_gbps=8", setting, NULL};
	syn_init(&s, p);
	for (uint32_t r = 0; r < p; r++)
		syn_coll(&s, r, kind, 0, (int32_t)(p / 2), bytes, recv_bytes);
	int rc = syn_replay(&s, set, &run);
	if (rc < 0)
		*err = run.err;
	if (rc == 0) {
		got->msgs = app_results(run.app)->coll_msgs;
		got->bytes = app_results(run.app)->coll_bytes;
	}
	syn_run_free(&run);
	syn_free(&s);
	return rc;
}

struct alg_case {
	uint16_t kind;
	const char *key, *alg;
	/* Expected (messages, bytes) on p ranks with block/vector b. */
	struct expect (*f)(uint32_t p, uint64_t b);
	bool pof2_only;  /* closed form only for powers of two */
	bool even_bytes; /* b must be divisible by p for the byte count */
};

static struct expect e_tree(uint32_t p, uint64_t b) { return (struct expect){p - 1, (p - 1) * b}; }
static struct expect e_tree2(uint32_t p, uint64_t b) { return (struct expect){2 * (p - 1), 2 * (p - 1) * b}; }
static struct expect e_barrier_rd(uint32_t p, uint64_t b)
{
	(void)b;
	uint32_t q = pof2_floor(p);
	return (struct expect){(uint64_t)q * log2_ceil(q) + 2 * (p - q), 0};
}
static struct expect e_dissem(uint32_t p, uint64_t b)
{
	(void)b;
	return (struct expect){(uint64_t)p * log2_ceil(p), 0};
}
static struct expect e_ring_barrier(uint32_t p, uint64_t b)
{
	(void)b;
	return (struct expect){p > 1 ? 2 * p : 0, 0};
}
static struct expect e_zero_tree2(uint32_t p, uint64_t b)
{
	(void)b;
	return (struct expect){2 * (p - 1), 0};
}
static struct expect e_rdx(uint32_t p, uint64_t b)
{
	uint32_t q = pof2_floor(p);
	uint64_t m = (uint64_t)q * log2_ceil(q) + 2 * (p - q);
	return (struct expect){m, m * b};
}
static struct expect e_ar_ring(uint32_t p, uint64_t b)
{
	return (struct expect){p > 1 ? 2ull * p * (p - 1) : 0, p > 1 ? 2ull * (p - 1) * b : 0};
}
static struct expect e_rabenseifner(uint32_t p, uint64_t b) /* p a power of two */
{
	return (struct expect){2ull * p * log2_ceil(p), 2ull * (p - 1) * b};
}
static struct expect e_gather_linear(uint32_t p, uint64_t b) { return (struct expect){p - 1, (p - 1) * b}; }
static struct expect e_gather_binomial(uint32_t p, uint64_t b)
{
	return (struct expect){p - 1, binomial_subtree_sum(p) * b};
}
static struct expect e_all2all(uint32_t p, uint64_t b) { return (struct expect){(uint64_t)p * (p - 1), (uint64_t)p * (p - 1) * b}; }
static struct expect e_ag_log(uint32_t p, uint64_t b) /* Bruck, recursive doubling */
{
	return (struct expect){(uint64_t)p * log2_ceil(p), (uint64_t)p * (p - 1) * b};
}
static struct expect e_ag_neighbor(uint32_t p, uint64_t b) /* p even */
{
	return (struct expect){(uint64_t)p * (p / 2), (uint64_t)p * (p - 1) * b};
}
static struct expect e_gather_bcast(uint32_t p, uint64_t b)
{
	return (struct expect){2ull * (p - 1), (p - 1) * b + (uint64_t)(p - 1) * p * b};
}
static struct expect e_a2a_bruck(uint32_t p, uint64_t b)
{
	uint64_t blocks = 0;
	for (uint32_t k = 0; (1u << k) < p; k++)
		for (uint32_t i = 0; i < p; i++)
			blocks += (i >> k) & 1;
	return (struct expect){(uint64_t)p * log2_ceil(p), (uint64_t)p * blocks * b};
}
static struct expect e_rs_ring(uint32_t p, uint64_t b) /* b = block */
{
	return (struct expect){(uint64_t)p * (p - 1), (uint64_t)p * (p - 1) * b};
}
static struct expect e_rs_halving(uint32_t p, uint64_t b) /* p a power of two, b = block */
{
	return (struct expect){(uint64_t)p * log2_ceil(p), (uint64_t)p * (p - 1) * b};
}
static struct expect e_rs_linear(uint32_t p, uint64_t b) /* binomial reduce of p*b, scatter of b */
{
	return (struct expect){2ull * (p - 1), (p - 1) * (uint64_t)p * b + (p - 1) * b};
}
static struct expect e_scan_chain(uint32_t p, uint64_t b) { return (struct expect){p - 1, (p - 1) * b}; }
static struct expect e_scan_rd(uint32_t p, uint64_t b)
{
	uint64_t m = 0;
	for (uint32_t d = 1; d < p; d *= 2)
		m += p - d;
	return (struct expect){m, m * b};
}
static struct expect e_bcast_sag(uint32_t p, uint64_t b) /* p a power of two, b divisible by p */
{
	uint64_t blk = b / p;
	return (struct expect){(p - 1) + (uint64_t)p * log2_ceil(p),
			       binomial_subtree_sum(p) * blk + (uint64_t)p * (p - 1) * blk};
}
static struct expect e_bcast_sag_ring(uint32_t p, uint64_t b) /* b divisible by p */
{
	uint64_t blk = b / p;
	return (struct expect){(p - 1) + (uint64_t)p * (p - 1),
			       binomial_subtree_sum(p) * blk + (uint64_t)p * (p - 1) * blk};
}

static const struct alg_case cases[] = {
	{TOP_BARRIER, "coll_barrier_algorithm", "linear", e_zero_tree2, false, false},
	{TOP_BARRIER, "coll_barrier_algorithm", "binomial", e_zero_tree2, false, false},
	{TOP_BARRIER, "coll_barrier_algorithm", "recursive_doubling", e_barrier_rd, false, false},
	{TOP_BARRIER, "coll_barrier_algorithm", "bruck", e_dissem, false, false},
	{TOP_BARRIER, "coll_barrier_algorithm", "ring", e_ring_barrier, false, false},
	{TOP_BCAST, "coll_bcast_algorithm", "linear", e_tree, false, false},
	{TOP_BCAST, "coll_bcast_algorithm", "binomial", e_tree, false, false},
	{TOP_BCAST, "coll_bcast_algorithm", "knomial", e_tree, false, false},
	{TOP_BCAST, "coll_bcast_algorithm", "binary", e_tree, false, false},
	{TOP_BCAST, "coll_bcast_algorithm", "chain", e_tree, false, false},
	{TOP_BCAST, "coll_bcast_algorithm", "scatter_allgather", e_bcast_sag, true, true},
	{TOP_BCAST, "coll_bcast_algorithm", "scatter_allgather_ring", e_bcast_sag_ring, false, true},
	{TOP_REDUCE, "coll_reduce_algorithm", "linear", e_tree, false, false},
	{TOP_REDUCE, "coll_reduce_algorithm", "binomial", e_tree, false, false},
	{TOP_REDUCE, "coll_reduce_algorithm", "binary", e_tree, false, false},
	{TOP_REDUCE, "coll_reduce_algorithm", "chain", e_tree, false, false},
	{TOP_ALLREDUCE, "coll_allreduce_algorithm", "linear", e_tree2, false, false},
	{TOP_ALLREDUCE, "coll_allreduce_algorithm", "reduce_bcast", e_tree2, false, false},
	{TOP_ALLREDUCE, "coll_allreduce_algorithm", "recursive_doubling", e_rdx, false, false},
	{TOP_ALLREDUCE, "coll_allreduce_algorithm", "ring", e_ar_ring, false, true},
	{TOP_ALLREDUCE, "coll_allreduce_algorithm", "rabenseifner", e_rabenseifner, true, true},
	{TOP_GATHER, "coll_gather_algorithm", "linear", e_gather_linear, false, false},
	{TOP_GATHER, "coll_gather_algorithm", "binomial", e_gather_binomial, false, false},
	{TOP_SCATTER, "coll_scatter_algorithm", "linear", e_gather_linear, false, false},
	{TOP_SCATTER, "coll_scatter_algorithm", "binomial", e_gather_binomial, false, false},
	{TOP_ALLGATHER, "coll_allgather_algorithm", "linear", e_all2all, false, false},
	{TOP_ALLGATHER, "coll_allgather_algorithm", "ring", e_all2all, false, false},
	{TOP_ALLGATHER, "coll_allgather_algorithm", "bruck", e_ag_log, false, false},
	{TOP_ALLGATHER, "coll_allgather_algorithm", "recursive_doubling", e_ag_log, false, false},
	{TOP_ALLGATHER, "coll_allgather_algorithm", "gather_bcast", e_gather_bcast, false, false},
	{TOP_ALLTOALL, "coll_alltoall_algorithm", "linear", e_all2all, false, false},
	{TOP_ALLTOALL, "coll_alltoall_algorithm", "pairwise", e_all2all, false, false},
	{TOP_ALLTOALL, "coll_alltoall_algorithm", "bruck", e_a2a_bruck, false, false},
	{TOP_REDUCE_SCATTER_BLOCK, "coll_reduce_scatter_block_algorithm", "ring", e_rs_ring, false, false},
	{TOP_REDUCE_SCATTER_BLOCK, "coll_reduce_scatter_block_algorithm", "recursive_halving", e_rs_halving,
	 true, false},
	{TOP_REDUCE_SCATTER_BLOCK, "coll_reduce_scatter_block_algorithm", "linear", e_rs_linear, false, false},
	{TOP_SCAN, "coll_scan_algorithm", "linear", e_scan_chain, false, false},
	{TOP_SCAN, "coll_scan_algorithm", "recursive_doubling", e_scan_rd, false, false},
	{TOP_EXSCAN, "coll_exscan_algorithm", "linear", e_scan_chain, false, false},
};

static void test_algorithms_closed_forms(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct alg_case *c = &cases[i];
		for (uint32_t p = 1; p <= 17; p++) {
			if (c->pof2_only && !is_pof2(p))
				continue;
			uint64_t b = c->even_bytes ? 720720 : 1000; /* 720720 = lcm(1..16) */
			if (c->even_bytes && b % p)
				continue;
			/* reduce_scatter_block: bytes is the whole vector, recv_bytes the block. */
			uint64_t rb = b;
			uint64_t sb = c->kind == TOP_REDUCE_SCATTER_BLOCK ? b * p : b;
			struct expect got = {0, 0}, want = c->f(p, b);
			struct nl_err err = {0};
			int rc = run_one(p, c->kind, c->key, c->alg, sb, rb, &got, &err);
			if (rc != 0) {
				TEST_FAIL_("%s %s p=%u: replay failed: %s", trace_op_name(c->kind), c->alg, p, err.msg);
				continue;
			}
			if (got.msgs != want.msgs || got.bytes != want.bytes)
				TEST_FAIL_("%s %s p=%u: %llu messages / %llu bytes, expected %llu / %llu",
					   trace_op_name(c->kind), c->alg, p, (unsigned long long)got.msgs,
					   (unsigned long long)got.bytes, (unsigned long long)want.msgs,
					   (unsigned long long)want.bytes);
		}
	}
}

static void test_neighbor_allgather(void)
{
	for (uint32_t p = 2; p <= 16; p += 2) {
		struct expect got, want = e_ag_neighbor(p, 1000);
		struct nl_err err = {0};
		CHECK_OK(run_one(p, TOP_ALLGATHER, "coll_allgather_algorithm", "neighbor", 1000, 1000, &got, &err),
			 &err);
		CHECK_UINT(got.msgs, ==, want.msgs);
		CHECK_UINT(got.bytes, ==, want.bytes);
	}
	/* Odd p falls back to the ring, as Open MPI does. */
	struct expect got, want = e_all2all(7, 1000);
	struct nl_err err = {0};
	CHECK_OK(run_one(7, TOP_ALLGATHER, "coll_allgather_algorithm", "neighbor", 1000, 1000, &got, &err), &err);
	CHECK_UINT(got.msgs, ==, want.msgs);
}

/* The neighbour exchange delivers every block exactly once: simulate the
 * block flow the step formulas describe and check each rank ends with all
 * p blocks (Chen et al., Cluster 2005). */
static void test_neighbor_block_flow(void)
{
	struct app_xfer out[64];
	for (uint32_t p = 2; p <= 16; p += 2) {
		struct app_coll_part pt = {.prim = PRIM_AG_NEIGHBOR, .block = 1};
		/* With counts[i] = 1 << i, the bytes of a transfer name its blocks. */
		uint64_t counts[16], have[16] = {0};
		for (uint32_t i = 0; i < p; i++) {
			counts[i] = 1ull << i;
			have[i] = counts[i];
		}
		pt.counts = counts;
		for (uint32_t step = 0;; step++) {
			uint64_t next[16];
			memcpy(next, have, sizeof next);
			uint32_t done = 0;
			for (uint32_t me = 0; me < p; me++) {
				uint32_t n = app_prim_step(&pt, p, me, step, out);
				if (n == APP_STEP_DONE) {
					done++;
					continue;
				}
				for (uint32_t k = 0; k < n; k++) {
					if (!out[k].is_send)
						continue;
					/* The sender must own what it sends, and blocks arrive once. */
					CHECK_UINT(have[me] & out[k].bytes, ==, out[k].bytes);
					CHECK_UINT(next[out[k].peer] & out[k].bytes, ==, 0);
					next[out[k].peer] |= out[k].bytes;
				}
			}
			memcpy(have, next, sizeof have);
			if (done == p)
				break;
		}
		for (uint32_t me = 0; me < p; me++)
			CHECK_UINT(have[me], ==, (1ull << p) - 1);
	}
}

/* Bruck allgather and recursive doubling also deliver every block once. */
static void test_allgather_block_flow(void)
{
	struct app_xfer out[64];
	static const uint8_t prims[] = {PRIM_AG_BRUCK, PRIM_AG_RD, PRIM_AG_RING};
	for (size_t k = 0; k < sizeof prims; k++)
		for (uint32_t p = 2; p <= 16; p++) {
			if (prims[k] == PRIM_AG_RD && !is_pof2(p))
				continue;
			uint64_t counts[16], have[16];
			for (uint32_t i = 0; i < p; i++)
				have[i] = counts[i] = 1ull << i;
			struct app_coll_part pt = {.prim = prims[k], .block = 1, .counts = counts};
			uint32_t steps = 0;
			for (uint32_t step = 0;; step++) {
				uint64_t next[16];
				memcpy(next, have, sizeof next);
				bool any = false;
				for (uint32_t me = 0; me < p; me++) {
					uint32_t n = app_prim_step(&pt, p, me, step, out);
					if (n == APP_STEP_DONE)
						continue;
					any = true;
					for (uint32_t j = 0; j < n; j++)
						if (out[j].is_send) {
							CHECK_UINT(have[me] & out[j].bytes, ==, out[j].bytes);
							next[out[j].peer] |= out[j].bytes;
						}
				}
				if (!any)
					break;
				steps++;
				memcpy(have, next, sizeof have);
			}
			for (uint32_t me = 0; me < p; me++)
				CHECK_UINT(have[me], ==, (1ull << p) - 1);
		}
}

/* Every send of a step has a matching receive at its peer in the same
 * step (so steps line up and collectives cannot deadlock), for every
 * primitive that exchanges in lock step. */
static void test_step_symmetry(void)
{
	struct app_xfer out[64];
	static const uint8_t prims[] = {PRIM_RDX, PRIM_DISSEM, PRIM_AG_RING, PRIM_AG_BRUCK, PRIM_A2A_PAIRWISE,
					PRIM_A2A_BRUCK, PRIM_AR_RING, PRIM_AR_RABENSEIFNER, PRIM_RS_HALVING,
					PRIM_RS_RING, PRIM_SCAN_RD};
	for (size_t k = 0; k < sizeof prims; k++)
		for (uint32_t p = 2; p <= 17; p++) {
			struct app_coll_part pt = {.prim = prims[k], .bytes = 4096, .block = 256};
			for (uint32_t step = 0; step < 64; step++) {
				int64_t bal[17][17] = {{0}}; /* sends minus receives, [from][to] */
				bool any = false;
				for (uint32_t me = 0; me < p; me++) {
					uint32_t n = app_prim_step(&pt, p, me, step, out);
					if (n == APP_STEP_DONE)
						continue;
					any = true;
					for (uint32_t j = 0; j < n; j++) {
						CHECK(out[j].peer < p && out[j].peer != me);
						if (out[j].is_send)
							bal[me][out[j].peer]++;
						else
							bal[out[j].peer][me]--;
					}
				}
				for (uint32_t x = 0; x < p; x++)
					for (uint32_t y = 0; y < p; y++)
						if (bal[x][y])
							TEST_FAIL_("primitive %u p=%u step %u: %u->%u unbalanced by %lld",
								   prims[k], p, step, x, y, (long long)bal[x][y]);
				if (!any)
					break;
			}
		}
}

static void test_open_mpi_decisions(void)
{
	/* Spot checks against coll_tuned_decision_fixed.c (v4.1.4). */
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLREDUCE, 8, 8, false, false), APP_ALG_RECURSIVE_DOUBLING);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLREDUCE, 8, 8192, false, false), APP_ALG_RABENSEIFNER);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLREDUCE, 2, 4, false, false), APP_ALG_RING);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLREDUCE, 16, 100, false, false), APP_ALG_RECURSIVE_DOUBLING);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLREDUCE, 200, 1000, false, false), APP_ALG_REDUCE_BCAST);
	CHECK_EQ(app_tuned_choose(APP_COLL_BCAST, 16, 4, false, false), APP_ALG_KNOMIAL);
	CHECK_EQ(app_tuned_choose(APP_COLL_BCAST, 16, 100000, false, false), APP_ALG_BINOMIAL);
	CHECK_EQ(app_tuned_choose(APP_COLL_BCAST, 8, 4, false, false), APP_ALG_KNOMIAL);
	CHECK_EQ(app_tuned_choose(APP_COLL_BCAST, 8, 1 << 20, false, false), APP_ALG_LINEAR);
	CHECK_EQ(app_tuned_choose(APP_COLL_BCAST, 16, 2 << 20, false, false), APP_ALG_SCATTER_ALLGATHER);
	CHECK_EQ(app_tuned_choose(APP_COLL_BARRIER, 8, 0, false, false), APP_ALG_RECURSIVE_DOUBLING);
	CHECK_EQ(app_tuned_choose(APP_COLL_BARRIER, 4, 0, false, false), APP_ALG_LINEAR);
	CHECK_EQ(app_tuned_choose(APP_COLL_BARRIER, 100, 0, false, false), APP_ALG_BRUCK);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLTOALL, 16, 100, false, false), APP_ALG_BRUCK);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLTOALL, 16, 1 << 20, false, false), APP_ALG_LINEAR);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLTOALL, 2, 1 << 21, false, false), APP_ALG_PAIRWISE);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLGATHER, 16, 8, false, false), APP_ALG_RECURSIVE_DOUBLING);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLGATHER, 40, 8192, false, false), APP_ALG_NEIGHBOR);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLGATHERV, 8, 100, false, false), APP_ALG_GATHER_BCAST);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLGATHERV, 8, 2000, false, false), APP_ALG_BRUCK);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLGATHERV, 4, 300, false, false), APP_ALG_NEIGHBOR);
	CHECK_EQ(app_tuned_choose(APP_COLL_REDUCE, 8, 100, false, false), APP_ALG_BINARY);
	CHECK_EQ(app_tuned_choose(APP_COLL_REDUCE, 16, 100000, false, false), APP_ALG_BINOMIAL);
	CHECK_EQ(app_tuned_choose(APP_COLL_GATHER, 16, 100, false, false), APP_ALG_BINOMIAL);
	CHECK_EQ(app_tuned_choose(APP_COLL_SCATTER, 8, 100, false, false), APP_ALG_BINOMIAL);
	CHECK_EQ(app_tuned_choose(APP_COLL_SCAN, 8, 100, false, false), APP_ALG_LINEAR);
	CHECK_EQ(app_tuned_choose(APP_COLL_GATHERV, 8, 100, false, false), APP_ALG_LINEAR);
	/* libnbc */
	CHECK_EQ(app_tuned_choose(APP_COLL_BCAST, 4, 100, true, false), APP_ALG_LINEAR);
	CHECK_EQ(app_tuned_choose(APP_COLL_BCAST, 8, 100, true, false), APP_ALG_BINOMIAL);
	CHECK_EQ(app_tuned_choose(APP_COLL_BCAST, 8, 1 << 20, true, false), APP_ALG_CHAIN);
	CHECK_EQ(app_tuned_choose(APP_COLL_BARRIER, 8, 0, true, false), APP_ALG_BRUCK);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLREDUCE, 8, 8, true, false), APP_ALG_REDUCE_BCAST);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLREDUCE, 8, 1 << 20, true, false), APP_ALG_RABENSEIFNER);
}

static void test_auto_every_collective(void)
{
	/* Every collective, blocking and not, with the default (auto)
	 * algorithms and v-variant counts, on 1..12 ranks, completes. */
	static const uint16_t kinds[] = {TOP_BARRIER, TOP_BCAST, TOP_REDUCE, TOP_ALLREDUCE, TOP_GATHER,
					 TOP_GATHERV, TOP_SCATTER, TOP_SCATTERV, TOP_ALLGATHER, TOP_ALLGATHERV,
					 TOP_ALLTOALL, TOP_ALLTOALLV, TOP_ALLTOALLW, TOP_REDUCE_SCATTER,
					 TOP_REDUCE_SCATTER_BLOCK, TOP_SCAN, TOP_EXSCAN};
	static uint64_t counts[12] = {1, 100, 5000, 70000, 0, 3, 8, 9, 4096, 4097, 16, 1};
	static const uint64_t sizes[] = {8, 3000, 200000};
	for (uint32_t p = 1; p <= 12; p++)
		for (int nb = 0; nb < 2; nb++)
			for (size_t z = 0; z < 3; z++) {
				struct syn s;
				struct syn_run run;
				syn_init(&s, p);
				for (uint32_t r = 0; r < p; r++)
					for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
						struct trace_op *op =
							syn_coll(&s, r, kinds[k], 0, (int32_t)(k % p), sizes[z], sizes[z]);
						if (kinds[k] == TOP_GATHERV || kinds[k] == TOP_SCATTERV ||
						    kinds[k] == TOP_ALLGATHERV || kinds[k] == TOP_ALLTOALLV ||
						    kinds[k] == TOP_ALLTOALLW || kinds[k] == TOP_REDUCE_SCATTER) {
							op->n_counts = p;
							op->send_counts = counts;
							op->recv_counts = counts;
							if (kinds[k] == TOP_GATHERV || kinds[k] == TOP_ALLGATHERV)
								op->bytes = counts[r];
						}
						if (nb) {
							op->flags = TRACE_F_NONBLOCKING;
							op->req = (uint32_t)k;
							syn_wait(&s, r, (uint32_t)k);
						}
					}
				int rc = syn_replay(&s, NULL, &run);
				if (rc != 0)
					TEST_FAIL_("p=%u nb=%d size=%llu: %s", p, nb, (unsigned long long)sizes[z],
						   run.err.msg);
				else
					CHECK_UINT(app_results(run.app)->unmatched_msgs, ==, 0);
				syn_run_free(&run);
				syn_free(&s);
			}
}

static void test_bcast_binomial_timing(void)
{
	/* Binomial bcast of 1000 bytes on 8 ranks, 1 us + 1 ns/byte per hop:
	 * the deepest leaf (rank 7) is 3 hops down, so it finishes at 3 x 2 us;
	 * the root returns at once (eager sends). */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 8);
	for (uint32_t r = 0; r < 8; r++)
		syn_coll(&s, r, TOP_BCAST, 0, 0, 1000, 1000);
	const char *const set[] = {"latency_ns=1000", "bandwidth_gbps=8", "coll_bcast_algorithm=binomial", NULL};
	CHECK_OK(syn_replay(&s, set, &run), &run.err);
	const struct app_results *res = app_results(run.app);
	CHECK_UINT(res->ranks[0].finish_ps, ==, 0);
	CHECK_UINT(res->ranks[7].finish_ps, ==, 6000000);
	CHECK_UINT(res->ranks[4].finish_ps, ==, 2000000);
	CHECK_UINT(res->runtime_ps, ==, 6000000);
	syn_run_free(&run);
	syn_free(&s);
}

static void test_collective_wait_accounting(void)
{
	/* Rank r enters a barrier after 10 r us: every rank waits until the
	 * last member (rank 3, at 30 us) has entered, the rest is the
	 * barrier's own messages; the last one does not wait. */
	static const char *const algs[] = {"recursive_doubling", "bruck", "linear"};
	for (int k = 0; k < 3; k++) {
		struct syn s;
		struct syn_run run;
		char a[64];
		snprintf(a, sizeof a, "coll_barrier_algorithm=%s", algs[k]);
		const char *const set[] = {"latency_ns=1000", a, NULL};
		syn_init(&s, 4);
		for (uint32_t r = 0; r < 4; r++) {
			syn_compute(&s, r, 10000000ull * r);
			syn_coll(&s, r, TOP_BARRIER, 0, 0, 0, 0);
		}
		CHECK_OK(syn_replay(&s, set, &run), &run.err);
		const struct app_results *res = app_results(run.app);
		for (uint32_t r = 0; r < 4; r++) {
			CHECK_UINT(res->ranks[r].wait_ps, ==, 10000000ull * (3 - r));
			CHECK_UINT(res->ranks[r].compute_ps + res->ranks[r].comm_ps + res->ranks[r].wait_ps, ==,
				   res->ranks[r].finish_ps);
		}
		syn_run_free(&run);
		syn_free(&s);
	}
}

/* One collective (op kind, app_coll) on every rank of p: the run's
 * messages and bytes, and how often each algorithm ran. setting may be
 * NULL (auto); flags are the op's TRACE_F_*; zero_unknown marks the
 * source's 0 bytes as possibly an unknown size. */
static int run_coll(uint32_t p, uint16_t kind, enum app_coll coll, const char *setting, uint64_t bytes,
		    uint16_t flags, bool zero_unknown, struct expect *got, uint32_t *used, struct nl_err *err)
{
	struct syn s;
	struct syn_run run;
	const char *const set[] = {"latency_ns=1000", "bandwidth_gbps=8", setting, NULL};
	syn_init(&s, p);
	for (uint32_t r = 0; r < p; r++) {
		struct trace_op *op = syn_coll(&s, r, kind, 0, (int32_t)(p / 2), bytes, 0);
		op->flags = flags;
		if (flags & TRACE_F_NONBLOCKING) {
			op->req = 1;
			syn_wait(&s, r, 1);
		}
	}
	struct app_source src = {.n_ranks = s.n_ranks, .next = syn_next, .ctx = &s,
				 .zero_bytes_unknown = zero_unknown};
	memset(&run, 0, sizeof run);
	int rc = syn_replay_src(&src, set, &run);
	if (rc < 0)
		*err = run.err;
	if (rc == 0) {
		const struct app_results *res = app_results(run.app);
		got->msgs = res->coll_msgs;
		got->bytes = res->coll_bytes;
		for (unsigned g = 0; g < APP_ALG__COUNT; g++)
			used[g] = res->coll_alg_used[coll][g];
	}
	syn_run_free(&run);
	syn_free(&s);
	return rc;
}

/* Open MPI's Rabenseifner reduce / allreduce run basic linear / recursive
 * doubling when the element count (8-byte elements) is below the largest
 * power of two <= p, whether auto chose them or they were forced; the
 * results name the fallback. */
static void test_rabenseifner_fallback(void)
{
	struct nl_err err = {0};
	struct expect got;
	uint32_t used[APP_ALG__COUNT];
	/* auto on 2 and 3 ranks, 4 bytes: tuned's rule picks Rabenseifner
	 * (coll_tuned_decision_fixed.c), which falls back to linear. */
	for (uint32_t p = 2; p <= 3; p++) {
		CHECK_OK(run_coll(p, TOP_REDUCE, APP_COLL_REDUCE, NULL, 4, 0, false, &got, used, &err), &err);
		CHECK_UINT(got.msgs, ==, p - 1);
		CHECK_UINT(got.bytes, ==, 4 * (p - 1));
		CHECK_UINT(used[APP_ALG_RABENSEIFNER_LINEAR], ==, p);
		CHECK_UINT(used[APP_ALG_RABENSEIFNER], ==, 0);
	}
	/* Forced, 4 ranks: 24 bytes (3 elements < 4) fall back, 32 do not. */
	static const char *const red = "coll_reduce_algorithm=rabenseifner";
	static const char *const allred = "coll_allreduce_algorithm=rabenseifner";
	CHECK_OK(run_coll(4, TOP_REDUCE, APP_COLL_REDUCE, red, 24, 0, false, &got, used, &err), &err);
	CHECK_UINT(got.msgs, ==, 3);
	CHECK_UINT(got.bytes, ==, 3 * 24);
	CHECK_UINT(used[APP_ALG_RABENSEIFNER_LINEAR], ==, 4);
	CHECK_OK(run_coll(4, TOP_REDUCE, APP_COLL_REDUCE, red, 32, 0, false, &got, used, &err), &err);
	CHECK_UINT(got.msgs, ==, 4 * 2 + 3); /* recursive halving, then the binomial gather */
	CHECK_UINT(used[APP_ALG_RABENSEIFNER], ==, 4);
	CHECK_UINT(used[APP_ALG_RABENSEIFNER_LINEAR], ==, 0);
	/* Allreduce, 8 ranks: 56 bytes (7 elements < 8) run Open MPI's basic
	 * linear allreduce (linear reduce to 0 and linear bcast), not
	 * recursive doubling. */
	struct expect want = e_tree2(8, 56);
	CHECK_OK(run_coll(8, TOP_ALLREDUCE, APP_COLL_ALLREDUCE, allred, 56, 0, false, &got, used, &err), &err);
	CHECK_UINT(got.msgs, ==, want.msgs);
	CHECK_UINT(got.bytes, ==, want.bytes);
	CHECK_UINT(used[APP_ALG_RABENSEIFNER_LINEAR], ==, 8);
	want = e_rabenseifner(8, 64);
	CHECK_OK(run_coll(8, TOP_ALLREDUCE, APP_COLL_ALLREDUCE, allred, 64, 0, false, &got, used, &err), &err);
	CHECK_UINT(got.msgs, ==, want.msgs);
	CHECK_UINT(got.bytes, ==, want.bytes);
	CHECK_UINT(used[APP_ALG_RABENSEIFNER], ==, 8);
	/* Ring allreduce (coll_base_allreduce.c): fewer elements than ranks
	 * run recursive doubling; 5 ranks, 32 bytes = 4 elements. libnbc's
	 * ring (non-blocking) has no such case. */
	static const char *const ring = "coll_allreduce_algorithm=ring";
	want = e_rdx(5, 32);
	CHECK_OK(run_coll(5, TOP_ALLREDUCE, APP_COLL_ALLREDUCE, ring, 32, 0, false, &got, used, &err), &err);
	CHECK_UINT(got.msgs, ==, want.msgs);
	CHECK_UINT(got.bytes, ==, want.bytes);
	CHECK_UINT(used[APP_ALG_RING_RD], ==, 5);
	CHECK_UINT(used[APP_ALG_RING], ==, 0);
	want = e_ar_ring(5, 40);
	CHECK_OK(run_coll(5, TOP_ALLREDUCE, APP_COLL_ALLREDUCE, ring, 40, 0, false, &got, used, &err), &err);
	CHECK_UINT(got.msgs, ==, want.msgs);
	CHECK_UINT(used[APP_ALG_RING], ==, 5);
	CHECK_OK(run_coll(5, TOP_ALLREDUCE, APP_COLL_ALLREDUCE, ring, 32, TRACE_F_NONBLOCKING, false, &got, used,
			  &err),
		 &err);
	CHECK_UINT(used[APP_ALG_RING], ==, 5);
	CHECK_UINT(used[APP_ALG_RING_RD], ==, 0);
}

/* libnbc's iallreduce (nbc_iallreduce.c): binomial reduce + bcast with
 * MPI_IN_PLACE whatever the size, the ring when the count is below the
 * largest power of two <= p. */
static void test_nbc_allreduce(void)
{
	struct nl_err err = {0};
	struct expect got, want = e_tree2(8, 1 << 20);
	uint32_t used[APP_ALG__COUNT];
	CHECK_OK(run_coll(8, TOP_ALLREDUCE, APP_COLL_ALLREDUCE, NULL, 1 << 20, TRACE_F_NONBLOCKING | TRACE_F_IN_PLACE,
			  false, &got, used, &err),
		 &err);
	CHECK_UINT(got.msgs, ==, want.msgs);
	CHECK_UINT(got.bytes, ==, want.bytes);
	CHECK_UINT(used[APP_ALG_REDUCE_BCAST], ==, 8);
	CHECK_OK(run_coll(8, TOP_ALLREDUCE, APP_COLL_ALLREDUCE, NULL, 1 << 20, TRACE_F_NONBLOCKING, false, &got, used,
			  &err),
		 &err);
	CHECK_UINT(used[APP_ALG_RABENSEIFNER], ==, 8);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLREDUCE, 8, 1 << 20, true, true), APP_ALG_REDUCE_BCAST);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLREDUCE, 16384, 65536, true, false), APP_ALG_RING);
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLREDUCE, 16384, 131072, true, false), APP_ALG_RABENSEIFNER);
	/* Blocking: coll/tuned does not look at MPI_IN_PLACE. */
	CHECK_EQ(app_tuned_choose(APP_COLL_ALLREDUCE, 8, 1 << 20, false, true), APP_ALG_RABENSEIFNER);
}

/* Blocking bcast, reduce and allreduce of count 0 return at once, as Open
 * MPI's C bindings do: no messages, no waiting for the other members. */
static void test_zero_count(void)
{
	static const uint16_t kinds[] = {TOP_BCAST, TOP_REDUCE, TOP_ALLREDUCE};
	static const enum app_coll colls[] = {APP_COLL_BCAST, APP_COLL_REDUCE, APP_COLL_ALLREDUCE};
	struct nl_err err = {0};
	struct expect got;
	uint32_t used[APP_ALG__COUNT];
	for (size_t k = 0; k < 3; k++) {
		CHECK_OK(run_coll(8, kinds[k], colls[k], NULL, 0, 0, false, &got, used, &err), &err);
		CHECK_UINT(got.msgs, ==, 0);
		CHECK_UINT(used[APP_ALG_ZERO_COUNT], ==, 8);
		/* A source whose 0 bytes may be an unknown size: replayed in full. */
		CHECK_OK(run_coll(8, kinds[k], colls[k], NULL, 0, 0, true, &got, used, &err), &err);
		CHECK_UINT(got.msgs, >, 0);
		CHECK_UINT(used[APP_ALG_ZERO_COUNT], ==, 0);
		/* The non-blocking forms too (ompi_request_empty). */
		CHECK_OK(run_coll(8, kinds[k], colls[k], NULL, 0, TRACE_F_NONBLOCKING, false, &got, used, &err), &err);
		CHECK_UINT(got.msgs, ==, 0);
		CHECK_UINT(used[APP_ALG_ZERO_COUNT], ==, 8);
	}
	/* No synchronisation: the root computes 10 us first, the others do
	 * not wait for it. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 8);
	for (uint32_t r = 0; r < 8; r++) {
		if (r == 2)
			syn_compute(&s, r, 10000000);
		syn_coll(&s, r, TOP_BCAST, 0, 2, 0, 0);
	}
	CHECK_OK(syn_replay(&s, NULL, &run), &run.err);
	const struct app_results *res = app_results(run.app);
	CHECK_UINT(res->ranks[0].finish_ps, ==, 0);
	CHECK_UINT(res->ranks[0].wait_ps, ==, 0);
	CHECK_UINT(res->runtime_ps, ==, 10000000);
	syn_run_free(&run);
	syn_free(&s);

	/* Archives: the DUMPI and OTF2 importers' 0 bytes may be an unknown
	 * size (docs/trace-format.md); the others' are count 0. */
	static const char *const recorders[] = {"", "netloom-record 1", "netloom-import-simgrid x",
						"netloom-import-dumpi x", "netloom-import-otf2 x"};
	for (size_t i = 0; i < 5; i++) {
		const char *txt = test_tmppath("zero.txt"), *nlt = test_tmppath("zero.nlt");
		FILE *f = fopen(txt, "w");
		CHECK(f != NULL);
		if (!f)
			return;
		fprintf(f, "netloom-trace 2\nranks 4\nrecorder \"%s\"\n", recorders[i]);
		for (int r = 0; r < 4; r++)
			fprintf(f, "rank %d\ninit t=0 dur=0\nbcast t=0 dur=0 comm=0\nfinalize t=0 dur=0\n", r);
		fclose(f);
		CHECK_OK(trace_encode_text(txt, nlt, NULL, &err), &err);
		CHECK_OK(syn_replay_archive(nlt, NULL, &run), &run.err);
		res = app_results(run.app);
		bool zero = i < 3;
		CHECK_UINT(res->coll_alg_used[APP_COLL_BCAST][APP_ALG_ZERO_COUNT], ==, zero ? 4 : 0);
		CHECK_UINT(res->coll_msgs, ==, zero ? 0 : 3);
		syn_run_free(&run);
	}
}

/* One collective of zero counts on every rank of 8 (root 2; rank 2
 * first computes 10 us): sizes 0, per-rank counts all 0 for the v kinds.
 * Returns the messages, how often zero-count ran, and rank 0's finish and
 * wait times. */
struct zero_run {
	uint64_t msgs, zero, finish_ps, wait_ps, runtime_ps;
};

static int run_zero(uint16_t kind, enum app_coll coll, uint16_t flags, struct zero_run *got, struct nl_err *err)
{
	static const uint64_t zeros[8] = {0};
	struct syn s;
	struct syn_run run;
	syn_init(&s, 8);
	for (uint32_t r = 0; r < 8; r++) {
		if (r == 2)
			syn_compute(&s, r, 10000000);
		struct trace_op *op = syn_coll(&s, r, kind, 0, 2, 0, 0);
		op->flags = flags;
		if (kind == TOP_GATHERV || kind == TOP_ALLGATHERV || kind == TOP_REDUCE_SCATTER ||
		    kind == TOP_ALLTOALLV || kind == TOP_ALLTOALLW || kind == TOP_SCATTERV) {
			op->n_counts = 8;
			op->send_counts = zeros;
			op->recv_counts = zeros;
		}
		if (flags & TRACE_F_NONBLOCKING) {
			op->req = 1;
			syn_wait(&s, r, 1);
		}
	}
	int rc = syn_replay(&s, NULL, &run);
	if (rc < 0)
		*err = run.err;
	if (rc == 0) {
		const struct app_results *res = app_results(run.app);
		*got = (struct zero_run){res->coll_msgs, res->coll_alg_used[coll][APP_ALG_ZERO_COUNT],
					 res->ranks[0].finish_ps, res->ranks[0].wait_ps, res->runtime_ps};
	}
	syn_run_free(&run);
	syn_free(&s);
	return rc;
}

/* The other collectives of zero counts follow Open MPI 4.1.4's C bindings
 * (ompi/mpi/c/<name>.c; non-blocking: i<name>.c, and libnbc's
 * nbc_iscan.c): where they return at once, replay sends nothing and no
 * rank waits for the root's 10 us; where they do not (alltoallv, gatherv,
 * scatterv, most non-blocking forms), the algorithm runs with empty
 * messages. */
static void test_zero_count_others(void)
{
	static const struct {
		uint16_t kind;
		enum app_coll coll;
		bool is_zero, is_zero_nb; /* blocking, non-blocking form returns at once */
	} cases[] = {
		{TOP_ALLGATHER, APP_COLL_ALLGATHER, true, false},
		{TOP_ALLGATHERV, APP_COLL_ALLGATHERV, true, false},
		{TOP_ALLTOALL, APP_COLL_ALLTOALL, true, false},
		{TOP_GATHER, APP_COLL_GATHER, true, false},
		{TOP_SCATTER, APP_COLL_SCATTER, true, false},
		{TOP_SCAN, APP_COLL_SCAN, true, true},
		{TOP_EXSCAN, APP_COLL_EXSCAN, true, false},
		{TOP_REDUCE_SCATTER_BLOCK, APP_COLL_REDUCE_SCATTER_BLOCK, true, true},
		{TOP_REDUCE_SCATTER, APP_COLL_REDUCE_SCATTER, true, true},
		{TOP_ALLTOALLV, APP_COLL_ALLTOALLV, false, false},
		{TOP_GATHERV, APP_COLL_GATHERV, false, false},
		{TOP_SCATTERV, APP_COLL_SCATTERV, false, false},
	};
	struct nl_err err = {0};
	struct zero_run got = {0};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		for (int nb = 0; nb < 2; nb++) {
			const char *name = trace_op_name(cases[i].kind);
			bool want = nb ? cases[i].is_zero_nb : cases[i].is_zero;
			if (run_zero(cases[i].kind, cases[i].coll, nb ? TRACE_F_NONBLOCKING : 0, &got, &err) < 0) {
				TEST_FAIL_("%s nb=%d: replay failed: %s", name, nb, err.msg);
				continue;
			}
			if (want && (got.msgs || got.zero != 8 || got.finish_ps || got.wait_ps ||
				     got.runtime_ps != 10000000))
				TEST_FAIL_("%s nb=%d: %llu messages, zero-count on %llu ranks, rank 0 finished "
					   "at %llu ps (waited %llu), runtime %llu ps; expected 0, 8, 0 (0), 10000000",
					   name, nb, (unsigned long long)got.msgs, (unsigned long long)got.zero,
					   (unsigned long long)got.finish_ps, (unsigned long long)got.wait_ps,
					   (unsigned long long)got.runtime_ps);
			if (!want && (!got.msgs || got.zero))
				TEST_FAIL_("%s nb=%d: %llu messages, zero-count on %llu ranks; expected it to run",
					   name, nb, (unsigned long long)got.msgs, (unsigned long long)got.zero);
		}

	/* Each rank tests its own counts: a gather's non-root its send size
	 * (the recorder leaves its recv_bytes 0), the root passing
	 * MPI_IN_PLACE its receive size; a scatter the other way round. */
	static const struct {
		uint16_t kind;
		uint64_t root_bytes, root_recv, bytes, recv;
		uint64_t msgs; /* 0: zero-count on every rank */
	} per_rank[] = {
		{TOP_GATHER, 0, 8, 8, 0, 3},   /* in place: the root receives 8 from each */
		{TOP_GATHER, 8, 0, 0, 0, 0},   /* in place, recvcount 0: all return */
		{TOP_SCATTER, 8, 0, 0, 8, 3},  /* in place: the root sends 8 to each */
		{TOP_SCATTER, 0, 8, 8, 0, 0},  /* in place, sendcount 0: all return */
	};
	for (size_t i = 0; i < sizeof per_rank / sizeof *per_rank; i++) {
		struct syn s;
		struct syn_run run;
		syn_init(&s, 4);
		for (uint32_t r = 0; r < 4; r++) {
			struct trace_op *op = r == 1 ? syn_coll(&s, r, per_rank[i].kind, 0, 1, per_rank[i].root_bytes,
								per_rank[i].root_recv)
						     : syn_coll(&s, r, per_rank[i].kind, 0, 1, per_rank[i].bytes,
								per_rank[i].recv);
			if (r == 1)
				op->flags = TRACE_F_IN_PLACE;
		}
		CHECK_OK(syn_replay(&s, NULL, &run), &run.err);
		if (run.app) {
			const struct app_results *res = app_results(run.app);
			enum app_coll coll = per_rank[i].kind == TOP_GATHER ? APP_COLL_GATHER : APP_COLL_SCATTER;
			CHECK_UINT(res->coll_msgs, ==, per_rank[i].msgs);
			CHECK_UINT(res->coll_alg_used[coll][APP_ALG_ZERO_COUNT], ==, per_rank[i].msgs ? 0 : 4);
		}
		syn_run_free(&run);
		syn_free(&s);
	}
}

int main(void)
{
	TEST_RUN(test_algorithms_closed_forms);
	TEST_RUN(test_neighbor_allgather);
	TEST_RUN(test_neighbor_block_flow);
	TEST_RUN(test_allgather_block_flow);
	TEST_RUN(test_step_symmetry);
	TEST_RUN(test_open_mpi_decisions);
	TEST_RUN(test_auto_every_collective);
	TEST_RUN(test_bcast_binomial_timing);
	TEST_RUN(test_collective_wait_accounting);
	TEST_RUN(test_rabenseifner_fallback);
	TEST_RUN(test_nbc_allreduce);
	test_tmpdir_make("app_coll");
	TEST_RUN(test_zero_count);
	TEST_RUN(test_zero_count_others);
	test_tmpdir_remove();
	return test_done();
}
