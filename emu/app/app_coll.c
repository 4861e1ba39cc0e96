/* Collectives: choosing an algorithm (configuration or Open MPI's
 * decision rules), planning it as primitive parts (app_prim.c) and running
 * an instance: post one step's transfers, wait for them, post the next.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "app/app_internal.h"
#include "core/error.h"

/* --- planning: algorithm -> parts ------------------------------------------------ */

static struct app_coll_part *app_part(struct app_coll_inst *c, uint8_t prim)
{
	NL_ASSERT(c->n_parts < APP_COLL_MAX_PARTS);
	struct app_coll_part *pt = &c->parts[c->n_parts++];
	memset(pt, 0, sizeof *pt);
	pt->prim = prim;
	pt->radix = 2;
	return pt;
}

static void app_tree(struct app_coll_inst *c, bool down, uint8_t tree, uint32_t radix, uint8_t mode,
		     uint32_t root, uint64_t bytes, uint64_t block, const uint64_t *counts)
{
	struct app_coll_part *pt = app_part(c, down ? PRIM_TREE_DOWN : PRIM_TREE_UP);
	pt->tree = tree;
	pt->radix = radix < 2 ? 2 : radix;
	pt->size_mode = mode;
	pt->root = root;
	pt->bytes = bytes;
	pt->block = block;
	pt->counts = counts;
}

static void app_simple(struct app_coll_inst *c, uint8_t prim, uint64_t bytes, uint64_t block,
		       const uint64_t *counts, const uint64_t *rcounts)
{
	struct app_coll_part *pt = app_part(c, prim);
	pt->bytes = bytes;
	pt->block = block;
	pt->counts = counts;
	pt->rcounts = rcounts;
}

static bool app_is_pof2(uint32_t p)
{
	return p && !(p & (p - 1));
}

/* Open MPI's Rabenseifner reduce and allreduce (coll_base_reduce.c
 * redscat_gather, coll_base_allreduce.c redscat_allgather) need an element
 * count of at least the largest power of two <= p; below it they run basic
 * linear reduce / recursive doubling instead, also when forced. Elements
 * are taken as 8 bytes, as for libnbc's decisions. */
static bool app_rabenseifner_falls_back(uint32_t p, uint64_t bytes)
{
	uint64_t pof2 = 1;
	while (2 * pof2 <= p)
		pof2 *= 2;
	return bytes / 8 < pof2;
}

/* ceil(bytes / p): a rank's share of a message split over the p ranks. */
static uint64_t app_per_rank(uint32_t p, uint64_t bytes)
{
	return (bytes + (p ? p : 1) - 1) / (p ? p : 1);
}

/* Barrier: a fan-in and fan-out tree, or a round-based exchange. */
static int app_plan_barrier(struct app_coll_inst *c, enum app_alg alg)
{
	switch (alg) {
	case APP_ALG_LINEAR:
		app_tree(c, false, TREE_FLAT, 2, SZ_FULL, 0, 0, 0, NULL);
		app_tree(c, true, TREE_FLAT, 2, SZ_FULL, 0, 0, 0, NULL);
		return 0;
	case APP_ALG_BINOMIAL:
		app_tree(c, false, TREE_KNOMIAL, 2, SZ_FULL, 0, 0, 0, NULL);
		app_tree(c, true, TREE_KNOMIAL, 2, SZ_FULL, 0, 0, 0, NULL);
		return 0;
	case APP_ALG_RECURSIVE_DOUBLING:
		app_simple(c, PRIM_RDX, 0, 0, NULL, NULL);
		return 0;
	case APP_ALG_BRUCK:
		app_simple(c, PRIM_DISSEM, 0, 0, NULL, NULL);
		return 0;
	case APP_ALG_RING:
		app_simple(c, PRIM_RING_BARRIER, 0, 0, NULL, NULL);
		return 0;
	default:
		return NL_EINVAL;
	}
}

/* Bcast: a tree from the root, or scatter then allgather. */
static int app_plan_bcast(struct app_coll_inst *c, enum app_alg alg, const struct app_coll_sizes *z)
{
	uint32_t p = c->p;
	uint32_t root = z->root;
	uint64_t per = app_per_rank(c->p, z->bytes);
	switch (alg) {
	case APP_ALG_LINEAR:
		app_tree(c, true, TREE_FLAT, 2, SZ_FULL, root, z->bytes, 0, NULL);
		return 0;
	case APP_ALG_BINOMIAL:
		app_tree(c, true, TREE_KNOMIAL, 2, SZ_FULL, root, z->bytes, 0, NULL);
		return 0;
	case APP_ALG_KNOMIAL:
		app_tree(c, true, TREE_KNOMIAL, z->radix, SZ_FULL, root, z->bytes, 0, NULL);
		return 0;
	case APP_ALG_BINARY:
		app_tree(c, true, TREE_BINARY, 2, SZ_FULL, root, z->bytes, 0, NULL);
		return 0;
	case APP_ALG_CHAIN:
		app_tree(c, true, TREE_CHAIN, 2, SZ_FULL, root, z->bytes, 0, NULL);
		return 0;
	case APP_ALG_SCATTER_ALLGATHER:
	case APP_ALG_SCATTER_ALLGATHER_RING: {
		app_tree(c, true, TREE_KNOMIAL, 2, SZ_SUBTREE, root, 0, per, NULL);
		uint8_t ag = alg == APP_ALG_SCATTER_ALLGATHER_RING ? PRIM_AG_RING
			     : app_is_pof2(p)			 ? PRIM_AG_RD
								 : PRIM_AG_BRUCK;
		app_simple(c, ag, 0, per, NULL, NULL);
		return 0;
	}
	default:
		return NL_EINVAL;
	}
}

/* Reduce: a tree to the root, or Rabenseifner's reduce-scatter then
 * gather. */
static int app_plan_reduce(struct app_coll_inst *c, enum app_alg alg, const struct app_coll_sizes *z)
{
	uint32_t p = c->p;
	uint32_t root = z->root;
	uint64_t per = app_per_rank(c->p, z->bytes);
	switch (alg) {
	case APP_ALG_LINEAR:
		app_tree(c, false, TREE_FLAT, 2, SZ_FULL, root, z->bytes, 0, NULL);
		return 0;
	case APP_ALG_BINOMIAL:
		app_tree(c, false, TREE_KNOMIAL, 2, SZ_FULL, root, z->bytes, 0, NULL);
		return 0;
	case APP_ALG_BINARY:
		app_tree(c, false, TREE_BINARY, 2, SZ_FULL, root, z->bytes, 0, NULL);
		return 0;
	case APP_ALG_CHAIN:
		app_tree(c, false, TREE_CHAIN, 2, SZ_FULL, root, z->bytes, 0, NULL);
		return 0;
	case APP_ALG_RABENSEIFNER:
		if (app_rabenseifner_falls_back(p, z->bytes)) {
			app_tree(c, false, TREE_FLAT, 2, SZ_FULL, root, z->bytes, 0, NULL);
			c->alg = APP_ALG_RABENSEIFNER_LINEAR;
			return 0;
		}
		app_simple(c, PRIM_RS_HALVING, z->bytes, 0, NULL, NULL);
		app_tree(c, false, TREE_KNOMIAL, 2, SZ_SUBTREE, root, 0, per, NULL);
		return 0;
	default:
		return NL_EINVAL;
	}
}

/* Allreduce: reduce then bcast, recursive doubling, ring or
 * Rabenseifner, with Open MPI's fallbacks for small counts. */
static int app_plan_allreduce(struct app_coll_inst *c, enum app_alg alg, const struct app_coll_sizes *z)
{
	uint32_t p = c->p;
	switch (alg) {
	case APP_ALG_LINEAR:
		app_tree(c, false, TREE_FLAT, 2, SZ_FULL, 0, z->bytes, 0, NULL);
		app_tree(c, true, TREE_FLAT, 2, SZ_FULL, 0, z->bytes, 0, NULL);
		return 0;
	case APP_ALG_REDUCE_BCAST:
		app_tree(c, false, TREE_KNOMIAL, 2, SZ_FULL, 0, z->bytes, 0, NULL);
		app_tree(c, true, TREE_KNOMIAL, 2, SZ_FULL, 0, z->bytes, 0, NULL);
		return 0;
	case APP_ALG_RECURSIVE_DOUBLING:
		app_simple(c, PRIM_RDX, z->bytes, 0, NULL, NULL);
		return 0;
	case APP_ALG_RING:
		/* coll_base_allreduce.c, allreduce_intra_ring: "count less
		 * than size - use recursive doubling" (the segmented ring,
		 * modelled as this one, ends there too). libnbc's ring,
		 * which it picks exactly when the count is small, has no
		 * such case. */
		if (!z->nonblocking && z->bytes / 8 < p) {
			app_simple(c, PRIM_RDX, z->bytes, 0, NULL, NULL);
			c->alg = APP_ALG_RING_RD;
			return 0;
		}
		app_simple(c, PRIM_AR_RING, z->bytes, 0, NULL, NULL);
		return 0;
	case APP_ALG_RABENSEIFNER:
		/* coll_base_allreduce.c, redscat_allgather: "switching to
		 * basic linear allreduce" (linear reduce to 0, linear bcast). */
		if (app_rabenseifner_falls_back(p, z->bytes)) {
			app_tree(c, false, TREE_FLAT, 2, SZ_FULL, 0, z->bytes, 0, NULL);
			app_tree(c, true, TREE_FLAT, 2, SZ_FULL, 0, z->bytes, 0, NULL);
			c->alg = APP_ALG_RABENSEIFNER_LINEAR;
			return 0;
		}
		app_simple(c, PRIM_AR_RABENSEIFNER, z->bytes, 0, NULL, NULL);
		return 0;
	default:
		return NL_EINVAL;
	}
}

/* Gather, gatherv: to the root, flat or (gather) binomial. */
static int app_plan_gather(struct app_coll_inst *c, enum app_coll coll, enum app_alg alg, const struct app_coll_sizes *z)
{
	uint32_t root = z->root;
	/* Each rank sends its own block (gatherv: its own count), so
	 * only trees whose subtrees the sender can size apply. */
	if (alg == APP_ALG_LINEAR)
		app_tree(c, false, TREE_FLAT, 2, SZ_SUBTREE, root, 0, z->block, NULL);
	else if (alg == APP_ALG_BINOMIAL && coll == APP_COLL_GATHER)
		app_tree(c, false, TREE_KNOMIAL, 2, SZ_SUBTREE, root, 0, z->block, NULL);
	else
		return NL_EINVAL;
	return 0;
}

/* Scatter, scatterv: from the root, flat or (scatter) binomial. */
static int app_plan_scatter(struct app_coll_inst *c, enum app_coll coll, enum app_alg alg, const struct app_coll_sizes *z)
{
	uint32_t root = z->root;
	if (alg == APP_ALG_LINEAR)
		app_tree(c, true, TREE_FLAT, 2, z->counts ? SZ_COUNTS : SZ_SUBTREE, root, 0, z->block,
			 z->counts);
	else if (alg == APP_ALG_BINOMIAL && coll == APP_COLL_SCATTER)
		app_tree(c, true, TREE_KNOMIAL, 2, SZ_SUBTREE, root, 0, z->block, NULL);
	else
		return NL_EINVAL;
	return 0;
}

/* Allgather, allgatherv: direct, gather then bcast, ring, recursive
 * doubling, Bruck or neighbour exchange. */
static int app_plan_allgather(struct app_coll_inst *c, enum app_coll coll, enum app_alg alg, const struct app_coll_sizes *z)
{
	uint32_t p = c->p;
	const uint64_t *cnt = z->counts;
	switch (alg) {
	case APP_ALG_LINEAR:
		app_simple(c, PRIM_AG_DIRECT, 0, z->block, cnt, NULL);
		return 0;
	case APP_ALG_GATHER_BCAST:
		app_tree(c, false, TREE_FLAT, 2, SZ_SUBTREE, 0, 0, z->block, NULL);
		app_tree(c, true, TREE_KNOMIAL, 2, SZ_FULL, 0, z->total, 0, NULL);
		return 0;
	case APP_ALG_RING:
		app_simple(c, PRIM_AG_RING, 0, z->block, cnt, NULL);
		return 0;
	case APP_ALG_RECURSIVE_DOUBLING:
		if (coll == APP_COLL_ALLGATHERV)
			return NL_EINVAL;
		/* Open MPI falls back to Bruck when p is not a power of two. */
		app_simple(c, app_is_pof2(p) ? PRIM_AG_RD : PRIM_AG_BRUCK, 0, z->block, cnt, NULL);
		return 0;
	case APP_ALG_BRUCK:
		app_simple(c, PRIM_AG_BRUCK, 0, z->block, cnt, NULL);
		return 0;
	case APP_ALG_NEIGHBOR:
		/* Needs an even p; Open MPI falls back to the ring. */
		app_simple(c, p % 2 == 0 ? PRIM_AG_NEIGHBOR : PRIM_AG_RING, 0, z->block, cnt, NULL);
		return 0;
	default:
		return NL_EINVAL;
	}
}

/* Alltoall, alltoallv, alltoallw: direct, pairwise or (alltoall)
 * Bruck. */
static int app_plan_alltoall(struct app_coll_inst *c, enum app_coll coll, enum app_alg alg, const struct app_coll_sizes *z)
{
	switch (alg) {
	case APP_ALG_LINEAR:
		app_simple(c, PRIM_A2A_DIRECT, 0, z->block, z->counts, z->rcounts);
		return 0;
	case APP_ALG_PAIRWISE:
		app_simple(c, PRIM_A2A_PAIRWISE, 0, z->block, z->counts, z->rcounts);
		return 0;
	case APP_ALG_BRUCK:
		if (coll != APP_COLL_ALLTOALL)
			return NL_EINVAL;
		app_simple(c, PRIM_A2A_BRUCK, 0, z->block, NULL, NULL);
		return 0;
	default:
		return NL_EINVAL;
	}
}

/* Reduce_scatter, reduce_scatter_block: reduce then scatter, recursive
 * halving or ring. */
static int app_plan_reduce_scatter(struct app_coll_inst *c, enum app_alg alg, const struct app_coll_sizes *z)
{
	switch (alg) {
	case APP_ALG_LINEAR:
		/* Open MPI's "non-overlapping": reduce to 0, then scatter(v). */
		app_tree(c, false, TREE_KNOMIAL, 2, SZ_FULL, 0, z->total, 0, NULL);
		app_tree(c, true, TREE_FLAT, 2, z->counts ? SZ_COUNTS : SZ_SUBTREE, 0, 0, z->block,
			 z->counts);
		return 0;
	case APP_ALG_RECURSIVE_HALVING:
		app_simple(c, PRIM_RS_HALVING, z->total, z->block, z->counts, NULL);
		return 0;
	case APP_ALG_RING:
		app_simple(c, PRIM_RS_RING, z->total, z->block, z->counts, NULL);
		return 0;
	default:
		return NL_EINVAL;
	}
}

/* Scan, exscan: a chain or recursive doubling. */
static int app_plan_scan(struct app_coll_inst *c, enum app_alg alg, const struct app_coll_sizes *z)
{
	switch (alg) {
	case APP_ALG_LINEAR:
		app_simple(c, PRIM_SCAN_CHAIN, z->bytes, 0, NULL, NULL);
		return 0;
	case APP_ALG_RECURSIVE_DOUBLING:
		app_simple(c, PRIM_SCAN_RD, z->bytes, 0, NULL, NULL);
		return 0;
	default:
		return NL_EINVAL;
	}
}

int app_coll_plan(struct app_coll_inst *c, enum app_coll coll, enum app_alg alg, const struct app_coll_sizes *z)
{
	c->alg = (uint8_t)alg;
	switch (coll) {
	case APP_COLL_BARRIER:
		return app_plan_barrier(c, alg);
	case APP_COLL_BCAST:
		return app_plan_bcast(c, alg, z);
	case APP_COLL_REDUCE:
		return app_plan_reduce(c, alg, z);
	case APP_COLL_ALLREDUCE:
		return app_plan_allreduce(c, alg, z);
	case APP_COLL_GATHER:
	case APP_COLL_GATHERV:
		return app_plan_gather(c, coll, alg, z);
	case APP_COLL_SCATTER:
	case APP_COLL_SCATTERV:
		return app_plan_scatter(c, coll, alg, z);
	case APP_COLL_ALLGATHER:
	case APP_COLL_ALLGATHERV:
		return app_plan_allgather(c, coll, alg, z);
	case APP_COLL_ALLTOALL:
	case APP_COLL_ALLTOALLV:
	case APP_COLL_ALLTOALLW:
		return app_plan_alltoall(c, coll, alg, z);
	case APP_COLL_REDUCE_SCATTER:
	case APP_COLL_REDUCE_SCATTER_BLOCK:
		return app_plan_reduce_scatter(c, alg, z);
	case APP_COLL_SCAN:
	case APP_COLL_EXSCAN:
		return app_plan_scan(c, alg, z);
	case APP_COLL__COUNT:
		break;
	}
	return NL_EINVAL;
}

/* --- running a collective ---------------------------------------------------------- */

static inline struct app_coll_inst *app_coll_at(const struct app *a, uint32_t c)
{
	return app_pool_at(&a->colls, c);
}

void app_coll_free(struct app *a, uint32_t c)
{
	struct app_coll_inst *co = app_coll_at(a, c);
	free(co->counts);
	co->counts = NULL;
	app_pool_free(&a->colls, c);
}

/* Post steps until one is outstanding or the collective is complete. */
static int app_coll_advance(struct app *a, uint32_t c, struct nl_err *err)
{
	struct app_coll_inst *co = app_coll_at(a, c);
	for (;;) {
		if (co->part >= co->n_parts) {
			struct app_req *rq = app_req_at(a, co->req);
			rq->t_peer = co->t_peer;
			uint32_t q = co->req;
			return app_req_complete(a, q, err);
		}
		uint32_t n = app_prim_step(&co->parts[co->part], co->p, co->me, co->step, a->xfer);
		if (n == APP_STEP_DONE) {
			co->part++;
			co->step = 0;
			continue;
		}
		co->step++;
		co->outstanding = n + 1; /* +1 guards against completion while posting */
		co->posting = 1;
		/* Posting completes only this collective's own steps synchronously
		 * (deliveries go through the event loop), so the shared scratch
		 * is never refilled while we read it. */
		NL_ASSERT(!a->xfer_busy);
		a->xfer_busy = true;
		int32_t tag = co->tag_base - co->part;
		for (int pass = 0; pass < 2; pass++)
			for (uint32_t i = 0; i < n; i++) {
				const struct app_xfer *x = &a->xfer[i];
				if (x->is_send != pass)
					continue;
				int rc = x->is_send ? app_p2p_send(a, co->rank, co->comm, (int32_t)x->peer, tag,
								   x->bytes, 0, c, NULL, err)
						    : app_p2p_recv(a, co->rank, co->comm, (int32_t)x->peer, tag,
								   x->bytes, 0, c, NULL, err);
				if (rc < 0)
					return rc;
			}
		a->xfer_busy = false;
		co->posting = 0;
		if (--co->outstanding > 0)
			return 0;
	}
}

uint64_t app_coll_tell(const struct app *a, uint32_t c)
{
	const struct app_coll_inst *co = app_coll_at(a, c);
	return co->t_peer > co->t_entry ? co->t_peer : co->t_entry;
}

int app_coll_sub_done(struct app *a, uint32_t c, const struct app_req *sub, struct nl_err *err)
{
	struct app_coll_inst *co = app_coll_at(a, c);
	if (sub->t_peer > co->t_peer)
		co->t_peer = sub->t_peer;
	if (--co->outstanding > 0 || co->posting)
		return 0;
	return app_coll_advance(a, c, err);
}

/* The size Open MPI's decision looks at, per collective. */
static uint64_t app_decision_bytes(enum app_coll coll, const struct app_coll_sizes *z, uint32_t p)
{
	switch (coll) {
	case APP_COLL_REDUCE_SCATTER:
	case APP_COLL_ALLGATHERV:
		return coll == APP_COLL_ALLGATHERV ? z->total / (p ? p : 1) : z->total;
	case APP_COLL_GATHER:
	case APP_COLL_SCATTER:
	case APP_COLL_ALLGATHER:
	case APP_COLL_ALLTOALL:
	case APP_COLL_REDUCE_SCATTER_BLOCK:
		return z->block;
	default:
		return z->bytes;
	}
}

/* Sizes of a collective op as this rank sees them (traces/trace.h: bytes is
 * the per-rank send size, recv_bytes the per-rank receive size; the v kinds
 * carry per-rank counts). */
static void app_coll_sizes(const struct trace_op *op, enum app_coll coll, uint32_t p, uint32_t me,
			   const uint64_t *scounts, const uint64_t *rcounts, struct app_coll_sizes *z)
{
	memset(z, 0, sizeof *z);
	z->bytes = op->bytes ? op->bytes : op->recv_bytes;
	z->block = z->bytes;
	z->root = op->peer >= 0 ? (uint32_t)op->peer : 0;
	switch (coll) {
	case APP_COLL_GATHER:
		/* The root with MPI_IN_PLACE sends nothing but still knows the block. */
		z->block = op->bytes ? op->bytes : op->recv_bytes;
		break;
	case APP_COLL_SCATTER:
		z->block = me == z->root && op->bytes ? op->bytes : (op->recv_bytes ? op->recv_bytes : op->bytes);
		break;
	case APP_COLL_GATHERV:
		z->block = op->bytes;
		break;
	case APP_COLL_SCATTERV:
		z->counts = scounts;
		z->block = op->recv_bytes;
		break;
	case APP_COLL_ALLGATHER:
		z->block = op->bytes ? op->bytes : op->recv_bytes;
		z->total = z->block * p;
		break;
	case APP_COLL_ALLGATHERV:
		z->counts = rcounts;
		z->block = op->bytes ? op->bytes : (rcounts ? rcounts[me] : op->recv_bytes);
		z->total = 0;
		if (rcounts)
			for (uint32_t i = 0; i < p; i++)
				z->total += rcounts[i];
		else
			z->total = z->block * p;
		break;
	case APP_COLL_ALLTOALL:
		z->block = op->bytes ? op->bytes : op->recv_bytes;
		break;
	case APP_COLL_ALLTOALLV:
	case APP_COLL_ALLTOALLW:
		z->counts = scounts;
		z->rcounts = rcounts;
		z->block = op->bytes;
		break;
	case APP_COLL_REDUCE_SCATTER:
		z->counts = rcounts;
		z->total = 0;
		if (rcounts)
			for (uint32_t i = 0; i < p; i++)
				z->total += rcounts[i];
		else
			z->total = op->bytes;
		z->block = rcounts ? rcounts[me] : z->total / (p ? p : 1);
		break;
	case APP_COLL_REDUCE_SCATTER_BLOCK:
		z->block = op->recv_bytes ? op->recv_bytes : op->bytes / (p ? p : 1);
		z->total = z->block * p;
		break;
	default:
		break;
	}
}

/* Open MPI 4.1.4's C bindings return MPI_SUCCESS at once, before any
 * coll component runs, when this rank's own arguments leave nothing to
 * move: no messages, no synchronisation. Each rank tests its own counts
 * (on an intracommunicator a rooted one does not look at the root's), so
 * the tests below are per rank. A non-blocking form that returns hands
 * back a request already complete (ompi_request_empty); the others run
 * their libnbc schedule whatever the counts. alltoallv, alltoallw,
 * gatherv and scatterv have no such test in either form and run in full.
 * The trace's sizes are the call's counts x type size (trace.h): bytes 0
 * is count 0 unless the source says it may be an unknown size. */
static bool app_coll_zero_count(const struct app *a, enum app_coll coll, const struct trace_op *op, uint32_t me,
				const struct app_coll_sizes *z)
{
	if (a->src.zero_bytes_unknown)
		return false;
	bool in_place = op->flags & TRACE_F_IN_PLACE, root_in_place = in_place && me == z->root;
	switch (coll) {
	case APP_COLL_BCAST:
	case APP_COLL_REDUCE:
	case APP_COLL_ALLREDUCE:
		/* ompi/mpi/c/bcast.c, reduce.c, allreduce.c: count 0; the
		 * same test in ibcast.c, ireduce.c, iallreduce.c. */
		return !z->bytes;
	case APP_COLL_SCAN:
		/* scan.c: count 0. iscan.c has no test, but libnbc's
		 * nbc_iscan.c returns its no-op request for count 0. */
		return !z->bytes;
	case APP_COLL_EXSCAN:
		/* exscan.c: count 0; iexscan.c and nbc_iexscan.c run. */
		return !z->nonblocking && !z->bytes;
	case APP_COLL_REDUCE_SCATTER:
		/* reduce_scatter.c, ireduce_scatter.c: every recvcounts[i]
		 * 0 (their sum, or bytes without counts). */
		return !z->total;
	case APP_COLL_REDUCE_SCATTER_BLOCK:
		/* reduce_scatter_block.c, ireduce_scatter_block.c: recvcount 0. */
		return !op->recv_bytes;
	case APP_COLL_ALLGATHER:
		/* allgather.c: sendcount 0 (unless MPI_IN_PLACE) or recvcount
		 * 0; iallgather.c runs. */
		return !z->nonblocking && ((!in_place && !op->bytes) || !op->recv_bytes);
	case APP_COLL_ALLGATHERV:
		/* allgatherv.c: every recvcounts[i] 0; iallgatherv.c runs. */
		return !z->nonblocking && !z->total;
	case APP_COLL_ALLTOALL:
		/* alltoall.c: recvcount 0 or a receive type of size 0;
		 * ialltoall.c runs. */
		return !z->nonblocking && !op->recv_bytes;
	case APP_COLL_GATHER:
		/* gather.c: the rank's own sendcount 0, the root's recvcount
		 * when it passes MPI_IN_PLACE; igather.c runs. */
		return !z->nonblocking && !(root_in_place ? op->recv_bytes : op->bytes);
	case APP_COLL_SCATTER:
		/* scatter.c: the rank's own recvcount 0, the root's sendcount
		 * when it passes MPI_IN_PLACE; iscatter.c runs. */
		return !z->nonblocking && !(root_in_place ? op->bytes : op->recv_bytes);
	default:
		return false;
	}
}

static enum app_coll app_coll_of_kind(uint16_t kind)
{
	switch (kind) {
	case TOP_BARRIER: return APP_COLL_BARRIER;
	case TOP_BCAST: return APP_COLL_BCAST;
	case TOP_REDUCE: return APP_COLL_REDUCE;
	case TOP_ALLREDUCE: return APP_COLL_ALLREDUCE;
	case TOP_GATHER: return APP_COLL_GATHER;
	case TOP_GATHERV: return APP_COLL_GATHERV;
	case TOP_SCATTER: return APP_COLL_SCATTER;
	case TOP_SCATTERV: return APP_COLL_SCATTERV;
	case TOP_ALLGATHER: return APP_COLL_ALLGATHER;
	case TOP_ALLGATHERV: return APP_COLL_ALLGATHERV;
	case TOP_ALLTOALL: return APP_COLL_ALLTOALL;
	case TOP_ALLTOALLV: return APP_COLL_ALLTOALLV;
	case TOP_ALLTOALLW: return APP_COLL_ALLTOALLW;
	case TOP_REDUCE_SCATTER: return APP_COLL_REDUCE_SCATTER;
	case TOP_REDUCE_SCATTER_BLOCK: return APP_COLL_REDUCE_SCATTER_BLOCK;
	case TOP_SCAN: return APP_COLL_SCAN;
	case TOP_EXSCAN: return APP_COLL_EXSCAN;
	default: return APP_COLL__COUNT;
	}
}

int app_coll_start(struct app *a, uint32_t r, const struct trace_op *op, uint32_t comm,
		   enum app_coll coll, bool nonblocking, uint32_t *req_out, struct nl_err *err)
{
	struct app_comm *cm = &a->comms[comm];
	uint32_t p = cm->size;
	uint32_t me = app_comm_local(cm, r);
	if (coll == APP_COLL__COUNT)
		coll = app_coll_of_kind(op->kind);
	NL_ASSERT(coll < APP_COLL__COUNT);

	uint32_t c = app_pool_alloc(&a->colls);
	if (c == APP_NONE)
		return nl_errf(err, NL_ENOMEM, "replay: out of memory");
	struct app_coll_inst *co = app_coll_at(a, c);
	co->rank = r;
	co->comm = comm;
	co->p = p;
	co->me = me;
	co->ckind = (uint8_t)coll;
	co->t_entry = a->now;
	/* Tags below -1 never meet user tags or ANY_TAG; 4 per instance, one
	 * per part, so parts of one collective never cross-match. */
	uint32_t seq = cm->coll_seq[me]++;
	co->tag_base = -2 - (int32_t)((seq & 0x0fffffffu) * 4u);

	const uint64_t *sc = NULL, *rc = NULL;
	if (op->n_counts && (op->send_counts || op->recv_counts)) {
		if (op->n_counts != p) {
			app_coll_free(a, c);
			return app_bad_op(a, r, err, "%" PRIu32 " per-rank counts for a communicator of %" PRIu32
					  " ranks",
					  op->n_counts, p);
		}
		co->counts = malloc(2 * (size_t)p * sizeof *co->counts);
		if (!co->counts) {
			app_coll_free(a, c);
			return nl_errf(err, NL_ENOMEM, "replay: out of memory");
		}
		if (op->send_counts) {
			memcpy(co->counts, op->send_counts, p * sizeof *co->counts);
			sc = co->counts;
		}
		if (op->recv_counts) {
			memcpy(co->counts + p, op->recv_counts, p * sizeof *co->counts);
			rc = co->counts + p;
		}
	}
	struct app_coll_sizes z;
	app_coll_sizes(op, coll, p, me, sc, rc, &z);
	z.radix = (uint32_t)a->cfg.knomial_radix;
	z.nonblocking = nonblocking;
	if (op->peer < 0 || z.root >= p) {
		switch (coll) {
		case APP_COLL_BCAST:
		case APP_COLL_REDUCE:
		case APP_COLL_GATHER:
		case APP_COLL_GATHERV:
		case APP_COLL_SCATTER:
		case APP_COLL_SCATTERV:
			app_coll_free(a, c);
			return app_bad_op(a, r, err, "root %" PRId32 " outside communicator of %" PRIu32 " ranks",
					  op->peer, p);
		default:
			z.root = 0;
		}
	}
	if (app_coll_zero_count(a, coll, op, me, &z)) {
		co->alg = APP_ALG_ZERO_COUNT; /* no parts: completes at once */
	} else {
		enum app_alg alg = (enum app_alg)a->cfg.coll_alg[coll];
		if (alg == APP_ALG_AUTO)
			alg = app_tuned_choose(coll, p, app_decision_bytes(coll, &z, p), nonblocking,
					       op->flags & TRACE_F_IN_PLACE);
		if (app_coll_plan(co, coll, alg, &z) < 0) {
			app_coll_free(a, c);
			return app_bad_op(a, r, err, "algorithm '%s' does not apply to %s", app_alg_name(alg),
					  app_coll_name(coll));
		}
	}
	a->res.coll_alg_used[coll][co->alg]++;
	a->res.coll_calls[coll]++;

	uint32_t q = app_req_new(a, r, REQ_COLL, 0);
	if (q == APP_NONE) {
		app_coll_free(a, c);
		return nl_errf(err, NL_ENOMEM, "replay: out of memory");
	}
	struct app_req *rq = app_req_at(a, q);
	rq->coll = c;
	rq->comm = comm;
	rq->peer = (int32_t)z.root;
	rq->bytes = z.bytes;
	rq->state = RS_ACTIVE;
	rq->t_post = a->now;
	co->req = q;
	*req_out = q;
	return app_coll_advance(a, c, err);
}
