/* Default collective algorithms: Open MPI 4.1.4's fixed decision rules.
 *
 * Source of the thresholds: open-mpi/ompi tag v4.1.4,
 * ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (the rules "generated
 * from results gathered with the ompi-collectives-tuning package"), for
 * the collectives coll/tuned implements, with commutative reduction
 * operations (traces do not say; MPI_SUM and friends are the common case).
 * Open MPI 4.1.4 is Debian 12's openmpi, which records our samples. Where
 * tuned has no rule (gatherv, scatterv, alltoallw, scan, exscan) coll/basic
 * runs its linear algorithm. Non-blocking collectives follow coll/libnbc's
 * selection in the same release (nbc_ibcast.c, nbc_iallreduce.c,
 * nbc_ireduce.c, ...), which uses far fewer algorithms.
 *
 * The tables are data: per collective, bands of communicator size, each a
 * list of (message size upper bound, Open MPI algorithm number); then a map
 * from Open MPI's numbering to ours. Algorithms we do not model separately
 * map to the closest one with the same message pattern: segmented ring ->
 * ring, pipeline -> chain, split/in-order binary tree -> binary tree,
 * linear_sync / linear_nb -> linear, two_proc -> pairwise or recursive
 * doubling (identical for 2 ranks), butterfly -> recursive halving,
 * "nonoverlapping" allreduce -> reduce_bcast.
 */
#include <stddef.h>

#include "app/app_internal.h"

#define TUNED_MAX_RULES 10
#define TUNED_INF UINT64_MAX

struct tuned_rule {
	uint64_t below; /* message size < below -> alg */
	uint8_t alg;    /* Open MPI algorithm number */
};

struct tuned_band {
	uint32_t p_below; /* communicator size < p_below (UINT32_MAX: the rest) */
	struct tuned_rule r[TUNED_MAX_RULES];
};

#define PINF UINT32_MAX

/* allreduce, commutative. Open MPI: 1 basic_linear, 2 nonoverlapping,
 * 3 recursive_doubling, 4 ring, 5 segmented_ring, 6 rabenseifner. */
static const struct tuned_band tuned_allreduce[] = {
	{4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}, {TUNED_INF, 6}}},
	{8, {{16, 4}, {8192, 3}, {TUNED_INF, 6}}},
	{16, {{8192, 3}, {TUNED_INF, 6}}},
	{32, {{64, 5}, {4096, 3}, {TUNED_INF, 6}}},
	{64, {{128, 5}, {TUNED_INF, 6}}},
	{128, {{262144, 3}, {TUNED_INF, 6}}},
	{256, {{131072, 2}, {262144, 3}, {TUNED_INF, 6}}},
	{512, {{4096, 2}, {TUNED_INF, 6}}},
	{2048, {{2048, 2}, {16384, 3}, {TUNED_INF, 6}}},
	{4096, {{2048, 2}, {4096, 5}, {16384, 3}, {TUNED_INF, 6}}},
	{PINF, {{2048, 2}, {16384, 5}, {32768, 3}, {TUNED_INF, 6}}},
};
static const uint8_t tuned_allreduce_map[] = {
	[1] = APP_ALG_LINEAR, [2] = APP_ALG_REDUCE_BCAST, [3] = APP_ALG_RECURSIVE_DOUBLING,
	[4] = APP_ALG_RING, [5] = APP_ALG_RING, [6] = APP_ALG_RABENSEIFNER,
};

/* alltoall. Open MPI: 1 linear, 2 pairwise, 3 modified_bruck,
 * 4 linear_sync, 5 two_proc. The first band is "communicator_size == 2". */
static const struct tuned_band tuned_alltoall[] = {
	{3, {{2, 2}, {4, 5}, {16, 2}, {64, 5}, {256, 2}, {4096, 5}, {32768, 2}, {262144, 4}, {1048576, 5}, {TUNED_INF, 2}}},
	{8, {{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}, {TUNED_INF, 1}}},
	{16, {{262144, 4}, {TUNED_INF, 1}}},
	{32, {{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}, {TUNED_INF, 4}}},
	{64, {{512, 3}, {524288, 1}, {TUNED_INF, 4}}},
	{128, {{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}, {TUNED_INF, 2}}},
	{256, {{1024, 3}, {2048, 4}, {262144, 1}, {TUNED_INF, 2}}},
	{512, {{1024, 3}, {8192, 4}, {32768, 1}, {TUNED_INF, 2}}},
	{1024, {{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}, {TUNED_INF, 2}}},
	{2048, {{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}, {TUNED_INF, 4}}},
	{4096, {{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}, {TUNED_INF, 1}}},
	{PINF, {{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}, {TUNED_INF, 4}}},
};
static const uint8_t tuned_alltoall_map[] = {
	[1] = APP_ALG_LINEAR, [2] = APP_ALG_PAIRWISE, [3] = APP_ALG_BRUCK,
	[4] = APP_ALG_LINEAR, [5] = APP_ALG_PAIRWISE,
};

/* alltoallv (size-independent). Open MPI: 1 basic_linear, 2 pairwise. */
static const struct tuned_band tuned_alltoallv[] = {
	{4, {{TUNED_INF, 2}}},    {64, {{TUNED_INF, 1}}},   {128, {{TUNED_INF, 2}}},
	{256, {{TUNED_INF, 1}}},  {1024, {{TUNED_INF, 2}}}, {PINF, {{TUNED_INF, 1}}},
};
static const uint8_t tuned_alltoallv_map[] = {[1] = APP_ALG_LINEAR, [2] = APP_ALG_PAIRWISE};

/* barrier (size-independent). Open MPI: 1 linear, 2 double_ring,
 * 3 recursive_doubling, 4 bruck, 5 two_proc, 6 tree. */
static const struct tuned_band tuned_barrier[] = {
	{4, {{TUNED_INF, 3}}},   {8, {{TUNED_INF, 1}}},    {64, {{TUNED_INF, 3}}},
	{256, {{TUNED_INF, 4}}}, {512, {{TUNED_INF, 6}}},  {1024, {{TUNED_INF, 4}}},
	{4096, {{TUNED_INF, 6}}}, {PINF, {{TUNED_INF, 4}}},
};
static const uint8_t tuned_barrier_map[] = {
	[1] = APP_ALG_LINEAR, [2] = APP_ALG_RING, [3] = APP_ALG_RECURSIVE_DOUBLING,
	[4] = APP_ALG_BRUCK, [5] = APP_ALG_RECURSIVE_DOUBLING, [6] = APP_ALG_BINOMIAL,
};

/* bcast. Open MPI: 1 basic_linear, 2 chain, 3 pipeline, 4 split_binary_tree,
 * 5 binary_tree, 6 binomial, 7 knomial, 8 scatter_allgather,
 * 9 scatter_allgather_ring. */
static const struct tuned_band tuned_bcast[] = {
	{4, {{32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5}, {262144, 2}, {524288, 1}, {1048576, 6}, {TUNED_INF, 5}}},
	{8, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}, {TUNED_INF, 2}}},
	{16, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}, {TUNED_INF, 1}}},
	{32, {{4096, 7}, {1048576, 6}, {TUNED_INF, 8}}},
	{64, {{2048, 6}, {TUNED_INF, 7}}},
	{128, {{TUNED_INF, 7}}},
	{256, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}, {TUNED_INF, 7}}},
	{1024, {{16384, 7}, {32768, 4}, {TUNED_INF, 7}}},
	{2048, {{524288, 7}, {TUNED_INF, 8}}},
	{4096, {{262144, 7}, {TUNED_INF, 8}}},
	{PINF, {{8192, 7}, {16384, 5}, {262144, 7}, {TUNED_INF, 8}}},
};
static const uint8_t tuned_bcast_map[] = {
	[1] = APP_ALG_LINEAR, [2] = APP_ALG_CHAIN, [3] = APP_ALG_CHAIN, [4] = APP_ALG_BINARY,
	[5] = APP_ALG_BINARY, [6] = APP_ALG_BINOMIAL, [7] = APP_ALG_KNOMIAL,
	[8] = APP_ALG_SCATTER_ALLGATHER, [9] = APP_ALG_SCATTER_ALLGATHER_RING,
};

/* reduce, commutative. Open MPI: 1 linear, 2 chain, 3 pipeline, 4 binary,
 * 5 binomial, 6 in-order_binary, 7 rabenseifner. Rule {8, 7} picks
 * Rabenseifner for fewer than 8 bytes on 2-3 ranks, where its element
 * count is below 2: Open MPI's redscat_gather then runs basic linear, and
 * so does app_coll_plan. */
static const struct tuned_band tuned_reduce[] = {
	{4, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}, {TUNED_INF, 3}}},
	{8, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}, {TUNED_INF, 1}}},
	{16, {{8192, 4}, {TUNED_INF, 5}}},
	{32, {{4096, 4}, {TUNED_INF, 5}}},
	{256, {{TUNED_INF, 5}}},
	{512, {{8192, 5}, {16384, 6}, {TUNED_INF, 5}}},
	{2048, {{TUNED_INF, 5}}},
	{4096, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}, {TUNED_INF, 5}}},
	{PINF, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}, {TUNED_INF, 5}}},
};
static const uint8_t tuned_reduce_map[] = {
	[1] = APP_ALG_LINEAR, [2] = APP_ALG_CHAIN, [3] = APP_ALG_CHAIN, [4] = APP_ALG_BINARY,
	[5] = APP_ALG_BINOMIAL, [6] = APP_ALG_BINARY, [7] = APP_ALG_RABENSEIFNER,
};

/* reduce_scatter, commutative (size = sum of the receive counts).
 * Open MPI: 1 non-overlapping, 2 recursive_halving, 3 ring, 4 butterfly. */
static const struct tuned_band tuned_reduce_scatter[] = {
	{4, {{65536, 3}, {131072, 4}, {TUNED_INF, 3}}},
	{8, {{8, 1}, {262144, 2}, {TUNED_INF, 3}}},
	{32, {{262144, 2}, {TUNED_INF, 3}}},
	{64, {{64, 1}, {2048, 2}, {524288, 4}, {TUNED_INF, 3}}},
	{128, {{256, 1}, {512, 2}, {2048, 4}, {4096, 2}, {TUNED_INF, 4}}},
	{256, {{256, 1}, {512, 2}, {TUNED_INF, 4}}},
	{512, {{256, 1}, {1024, 2}, {TUNED_INF, 4}}},
	{1024, {{512, 1}, {2048, 2}, {8192, 4}, {16384, 2}, {TUNED_INF, 4}}},
	{2048, {{512, 1}, {4096, 2}, {16384, 4}, {32768, 2}, {TUNED_INF, 4}}},
	{4096, {{512, 1}, {4096, 2}, {TUNED_INF, 4}}},
	{PINF, {{1024, 1}, {8192, 2}, {TUNED_INF, 4}}},
};
static const uint8_t tuned_reduce_scatter_map[] = {
	[1] = APP_ALG_LINEAR, [2] = APP_ALG_RECURSIVE_HALVING, [3] = APP_ALG_RING,
	[4] = APP_ALG_RECURSIVE_HALVING,
};

/* reduce_scatter_block, commutative (size = the per-rank block).
 * Open MPI: 1 basic_linear, 2 recursive_doubling, 3 recursive_halving,
 * 4 butterfly. */
static const struct tuned_band tuned_reduce_scatter_block[] = {
	{4, {{4, 2}, {8, 4}, {16, 3}, {128, 4}, {256, 3}, {4096, 4}, {8192, 3}, {131072, 4}, {TUNED_INF, 1}}},
	{8, {{8, 3}, {32, 2}, {256, 4}, {8192, 3}, {16384, 4}, {1048576, 3}, {TUNED_INF, 1}}},
	{16, {{4, 1}, {32, 3}, {128, 4}, {524288, 3}, {4194304, 1}, {TUNED_INF, 4}}},
	{32, {{32, 1}, {524288, 3}, {2097152, 1}, {4194304, 3}, {TUNED_INF, 4}}},
	{PINF, {{4, 3}, {16, 1}, {65536, 4}, {262144, 1}, {TUNED_INF, 4}}},
};
static const uint8_t tuned_reduce_scatter_block_map[] = {
	[1] = APP_ALG_LINEAR, [2] = APP_ALG_RECURSIVE_HALVING, [3] = APP_ALG_RECURSIVE_HALVING,
	[4] = APP_ALG_RECURSIVE_HALVING,
};

/* allgather (size = the per-rank block). Open MPI: 1 linear, 2 bruck,
 * 3 recursive_doubling, 4 ring, 5 neighbor, 6 two_proc. The first band is
 * "communicator_size == 2". */
static const struct tuned_band tuned_allgather[] = {
	{3, {{TUNED_INF, 6}}},
	{32, {{TUNED_INF, 3}}},
	{64, {{1024, 3}, {65536, 5}, {TUNED_INF, 4}}},
	{128, {{512, 3}, {65536, 5}, {TUNED_INF, 4}}},
	{256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {TUNED_INF, 4}}},
	{512, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {TUNED_INF, 4}}},
	{1024, {{64, 3}, {256, 2}, {2048, 3}, {TUNED_INF, 5}}},
	{2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}, {TUNED_INF, 5}}},
	{4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}, {TUNED_INF, 5}}},
	{PINF, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}, {TUNED_INF, 5}}},
};
static const uint8_t tuned_allgather_map[] = {
	[1] = APP_ALG_GATHER_BCAST, [2] = APP_ALG_BRUCK, [3] = APP_ALG_RECURSIVE_DOUBLING,
	[4] = APP_ALG_RING, [5] = APP_ALG_NEIGHBOR, [6] = APP_ALG_RECURSIVE_DOUBLING,
};

/* allgatherv (size = total / p). Open MPI: 1 default (gatherv + bcast),
 * 2 bruck, 3 ring, 4 neighbor, 5 two_proc. First band: size == 2. */
static const struct tuned_band tuned_allgatherv[] = {
	{3, {{2048, 3}, {4096, 5}, {8192, 3}, {TUNED_INF, 5}}},
	{8, {{256, 1}, {4096, 4}, {8192, 3}, {16384, 4}, {262144, 2}, {TUNED_INF, 4}}},
	{16, {{1024, 1}, {TUNED_INF, 2}}},
	{32, {{128, 1}, {262144, 2}, {TUNED_INF, 3}}},
	{64, {{256, 1}, {8192, 2}, {TUNED_INF, 3}}},
	{128, {{256, 1}, {4096, 2}, {TUNED_INF, 3}}},
	{256, {{1024, 2}, {65536, 4}, {TUNED_INF, 3}}},
	{512, {{1024, 2}, {TUNED_INF, 3}}},
	{1024, {{512, 2}, {1024, 1}, {4096, 2}, {1048576, 4}, {TUNED_INF, 3}}},
	{PINF, {{4096, 2}, {TUNED_INF, 4}}},
};
static const uint8_t tuned_allgatherv_map[] = {
	[1] = APP_ALG_GATHER_BCAST, [2] = APP_ALG_BRUCK, [3] = APP_ALG_RING,
	[4] = APP_ALG_NEIGHBOR, [5] = APP_ALG_RING,
};

/* gather (size = the per-rank block). Open MPI: 1 basic_linear, 2 binomial,
 * 3 linear_sync. */
static const struct tuned_band tuned_gather[] = {
	{4, {{2, 3}, {4, 1}, {32768, 2}, {65536, 1}, {131072, 2}, {TUNED_INF, 3}}},
	{8, {{1024, 2}, {8192, 1}, {32768, 2}, {262144, 1}, {TUNED_INF, 3}}},
	{256, {{TUNED_INF, 2}}},
	{512, {{2048, 2}, {8192, 1}, {TUNED_INF, 2}}},
	{PINF, {{TUNED_INF, 2}}},
};
static const uint8_t tuned_gather_map[] = {[1] = APP_ALG_LINEAR, [2] = APP_ALG_BINOMIAL, [3] = APP_ALG_LINEAR};

/* scatter (size = the per-rank block). Open MPI: 1 basic_linear,
 * 2 binomial, 3 linear_nb. */
static const struct tuned_band tuned_scatter[] = {
	{4, {{2, 3}, {131072, 1}, {262144, 3}, {TUNED_INF, 1}}},
	{8, {{2048, 2}, {4096, 1}, {8192, 2}, {32768, 1}, {1048576, 3}, {TUNED_INF, 1}}},
	{16, {{16384, 2}, {1048576, 3}, {TUNED_INF, 1}}},
	{32, {{16384, 2}, {32768, 1}, {TUNED_INF, 3}}},
	{64, {{512, 2}, {8192, 3}, {16384, 2}, {TUNED_INF, 3}}},
	{PINF, {{512, 2}, {TUNED_INF, 3}}},
};
static const uint8_t tuned_scatter_map[] = {[1] = APP_ALG_LINEAR, [2] = APP_ALG_BINOMIAL, [3] = APP_ALG_LINEAR};

struct tuned_table {
	const struct tuned_band *bands;
	size_t n_bands;
	const uint8_t *map;
	size_t n_map;
};

#define TUNED_TABLE(b, m) {b, sizeof b / sizeof *b, m, sizeof m / sizeof *m}

static enum app_alg tuned_lookup(const struct tuned_table *t, uint32_t p, uint64_t bytes)
{
	const struct tuned_band *b = &t->bands[t->n_bands - 1];
	for (size_t i = 0; i < t->n_bands; i++)
		if (p < t->bands[i].p_below) {
			b = &t->bands[i];
			break;
		}
	uint8_t alg = 0;
	for (size_t i = 0; i < TUNED_MAX_RULES; i++) {
		alg = b->r[i].alg;
		if (bytes < b->r[i].below || b->r[i].below == TUNED_INF)
			break;
	}
	return alg < t->n_map && t->map[alg] ? (enum app_alg)t->map[alg] : APP_ALG_LINEAR;
}

/* libnbc (non-blocking) selection, Open MPI 4.1.4. Where libnbc looks at
 * the element count (count >= the largest power of two <= p), we assume
 * 8-byte elements, since traces carry bytes. */
static enum app_alg tuned_nbc(enum app_coll coll, uint32_t p, uint64_t bytes, bool in_place)
{
	uint64_t pof2 = 1;
	while (2 * pof2 <= p)
		pof2 *= 2;
	switch (coll) {
	case APP_COLL_BARRIER:
		return APP_ALG_BRUCK; /* nbc_ibarrier.c: dissemination */
	case APP_COLL_BCAST:  /* nbc_ibcast.c */
		if (p <= 4)
			return APP_ALG_LINEAR;
		return bytes < 65536 ? APP_ALG_BINOMIAL : APP_ALG_CHAIN;
	case APP_COLL_ALLREDUCE: /* nbc_iallreduce.c: binomial reduce + bcast, redscat_allgather or ring */
		if (p < 4 || bytes < 65536 || in_place)
			return APP_ALG_REDUCE_BCAST;
		return bytes / 8 >= pof2 ? APP_ALG_RABENSEIFNER : APP_ALG_RING;
	case APP_COLL_REDUCE: /* nbc_ireduce.c */
		if (p > 2 && bytes / 8 >= pof2)
			return APP_ALG_RABENSEIFNER;
		return p > 4 || bytes < 65536 ? APP_ALG_BINOMIAL : APP_ALG_CHAIN;
	case APP_COLL_SCAN:
	case APP_COLL_EXSCAN:
		return APP_ALG_LINEAR;
	default:
		return APP_ALG_LINEAR; /* gather(v), scatter(v), allgather(v), alltoall(v,w), reduce_scatter */
	}
}

enum app_alg app_tuned_choose(enum app_coll coll, uint32_t p, uint64_t bytes, bool nonblocking, bool in_place)
{
	static const struct tuned_table allreduce = TUNED_TABLE(tuned_allreduce, tuned_allreduce_map);
	static const struct tuned_table alltoall = TUNED_TABLE(tuned_alltoall, tuned_alltoall_map);
	static const struct tuned_table alltoallv = TUNED_TABLE(tuned_alltoallv, tuned_alltoallv_map);
	static const struct tuned_table barrier = TUNED_TABLE(tuned_barrier, tuned_barrier_map);
	static const struct tuned_table bcast = TUNED_TABLE(tuned_bcast, tuned_bcast_map);
	static const struct tuned_table reduce = TUNED_TABLE(tuned_reduce, tuned_reduce_map);
	static const struct tuned_table rs = TUNED_TABLE(tuned_reduce_scatter, tuned_reduce_scatter_map);
	static const struct tuned_table rsb =
		TUNED_TABLE(tuned_reduce_scatter_block, tuned_reduce_scatter_block_map);
	static const struct tuned_table allgather = TUNED_TABLE(tuned_allgather, tuned_allgather_map);
	static const struct tuned_table allgatherv = TUNED_TABLE(tuned_allgatherv, tuned_allgatherv_map);
	static const struct tuned_table gather = TUNED_TABLE(tuned_gather, tuned_gather_map);
	static const struct tuned_table scatter = TUNED_TABLE(tuned_scatter, tuned_scatter_map);

	if (nonblocking)
		return tuned_nbc(coll, p, bytes, in_place);
	switch (coll) {
	case APP_COLL_ALLREDUCE: return tuned_lookup(&allreduce, p, bytes);
	case APP_COLL_ALLTOALL: return tuned_lookup(&alltoall, p, bytes);
	case APP_COLL_ALLTOALLV: return tuned_lookup(&alltoallv, p, bytes);
	case APP_COLL_BARRIER: return tuned_lookup(&barrier, p, bytes);
	case APP_COLL_BCAST: return tuned_lookup(&bcast, p, bytes);
	case APP_COLL_REDUCE: return tuned_lookup(&reduce, p, bytes);
	case APP_COLL_REDUCE_SCATTER: return tuned_lookup(&rs, p, bytes);
	case APP_COLL_REDUCE_SCATTER_BLOCK: return tuned_lookup(&rsb, p, bytes);
	case APP_COLL_ALLGATHER: return tuned_lookup(&allgather, p, bytes);
	case APP_COLL_ALLGATHERV: return tuned_lookup(&allgatherv, p, bytes);
	case APP_COLL_GATHER: return tuned_lookup(&gather, p, bytes);
	case APP_COLL_SCATTER: return tuned_lookup(&scatter, p, bytes);
	default: return APP_ALG_LINEAR; /* coll/basic: gatherv, scatterv, alltoallw, scan, exscan */
	}
}
