/* Collectives decomposed into point-to-point by named algorithms.
 *
 * An algorithm is a sequence of parts (e.g. reduce then bcast), each a
 * primitive schedule; a primitive is, for each rank, a list of steps, and a
 * step a set of sends and receives posted together (receives first) that
 * must all complete before the next step starts, as libnbc schedules are.
 * Steps are computed on demand from (p, rank, step) in closed form, so a
 * collective holds no per-step state and no memory grows with p beyond one
 * step's transfers. Message sizes are the sender's: a rank sends what its
 * own trace op says, and receive sizes only document.
 *
 * The algorithms are the textbook ones, as Open MPI 4.1 implements them in
 * ompi/mca/coll/base (names in parentheses):
 *  - k-nomial / binomial / binary / chain / flat trees for bcast, reduce,
 *    gather, scatter (ompi_coll_base_topo_build_{kmtree,bmtree,tree,chain});
 *  - recursive doubling exchange with the MPICH non-power-of-two fold
 *    (Thakur, Rabenseifner & Gropp, IJHPCA 19(1), 2005, §4.4);
 *  - Rabenseifner's reduce-scatter + allgather allreduce (same paper, §4.5);
 *  - ring allreduce / allgather / reduce-scatter; Bruck's allgather and
 *    alltoall (Bruck et al., IEEE TPDS 8(11), 1997); pairwise alltoall;
 *    neighbour-exchange allgather (Chen et al., Cluster 2005);
 *    dissemination barrier (Hensgen, Finkel & Manber, 1988);
 *  - van de Geijn's scatter + allgather bcast (Barnett et al., 1994).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "app/app_internal.h"
#include "core/error.h"

/* --- trees (relative ranks: root is 0) ---------------------------------------- */

/* The level mask at which v's lowest non-zero base-k digit sits (the size
 * of v's subtree span); for the root the first power of k >= p. */
static uint64_t app_kn_level(uint64_t v, uint32_t p, uint32_t k)
{
	uint64_t m = 1;
	if (v == 0) {
		while (m < p)
			m *= k;
		return m;
	}
	while ((v / m) % k == 0)
		m *= k;
	return m;
}

static uint32_t app_tree_parent(const struct app_coll_part *pt, uint32_t p, uint32_t v)
{
	switch (pt->tree) {
	case TREE_FLAT:
		return 0;
	case TREE_KNOMIAL: {
		uint64_t m = app_kn_level(v, p, pt->radix);
		return (uint32_t)(v - ((v / m) % pt->radix) * m);
	}
	case TREE_BINARY:
		return (v - 1) / 2;
	case TREE_CHAIN:
		return v - 1;
	}
	NL_BUG("replay: tree %d", pt->tree);
}

/* Children of v, largest subtree first; returns the count. */
static uint32_t app_tree_children(const struct app_coll_part *pt, uint32_t p, uint32_t v, uint32_t *out)
{
	uint32_t n = 0;
	switch (pt->tree) {
	case TREE_FLAT:
		if (v == 0)
			for (uint32_t c = 1; c < p; c++)
				out[n++] = c;
		return n;
	case TREE_KNOMIAL: {
		uint32_t k = pt->radix;
		for (uint64_t m = app_kn_level(v, p, k) / k; m >= 1; m /= k) {
			for (uint32_t j = 1; j < k; j++) {
				uint64_t c = v + j * m;
				if (c < p)
					out[n++] = (uint32_t)c;
			}
			if (m == 1)
				break;
		}
		return n;
	}
	case TREE_BINARY:
		for (uint64_t c = 2 * (uint64_t)v + 1; c <= 2 * (uint64_t)v + 2; c++)
			if (c < p)
				out[n++] = (uint32_t)c;
		return n;
	case TREE_CHAIN:
		if (v + 1 < p)
			out[n++] = v + 1;
		return n;
	}
	NL_BUG("replay: tree %d", pt->tree);
}

/* Ranks in v's subtree (flat and k-nomial trees, the ones gather and
 * scatter use). */
static uint64_t app_tree_subtree(const struct app_coll_part *pt, uint32_t p, uint32_t v)
{
	if (v == 0)
		return p;
	switch (pt->tree) {
	case TREE_FLAT:
		return 1;
	case TREE_KNOMIAL: {
		uint64_t m = app_kn_level(v, p, pt->radix);
		return m < p - v ? m : p - v;
	}
	case TREE_CHAIN:
		return p - v;
	default:
		NL_BUG("replay: subtree sizes for tree %d", pt->tree);
	}
}

static uint64_t app_tree_msg_bytes(const struct app_coll_part *pt, uint32_t p, uint32_t child_v)
{
	switch (pt->size_mode) {
	case SZ_FULL:
		return pt->bytes;
	case SZ_SUBTREE:
		return pt->block * app_tree_subtree(pt, p, child_v);
	case SZ_COUNTS:
		return pt->counts ? pt->counts[(child_v + pt->root) % p] : pt->block;
	}
	NL_BUG("replay: size mode %d", pt->size_mode);
}

/* --- helpers ---------------------------------------------------------------- */

static inline uint32_t app_pof2_floor(uint32_t p)
{
	uint32_t x = 1;
	while (2 * (uint64_t)x <= p)
		x *= 2;
	return x;
}

static inline uint32_t app_log2_ceil(uint32_t p)
{
	uint32_t l = 0;
	while ((1ull << l) < p)
		l++;
	return l;
}

static inline uint32_t app_mod(int64_t x, uint32_t p)
{
	int64_t r = x % (int64_t)p;
	return (uint32_t)(r < 0 ? r + p : r);
}

/* Block i of a vector of `total` bytes cut into p near-equal blocks. */
static inline uint64_t app_even_block(uint64_t total, uint32_t p, uint32_t i)
{
	return total / p + (i < total % p ? 1 : 0);
}

static inline uint64_t app_blk(const struct app_coll_part *pt, uint32_t i)
{
	return pt->counts ? pt->counts[i] : pt->block;
}

static inline uint32_t app_put(struct app_xfer *out, uint32_t n, uint32_t peer, uint8_t is_send, uint64_t bytes)
{
	out[n].peer = peer;
	out[n].is_send = is_send;
	out[n].bytes = bytes;
	return n + 1;
}

static inline uint32_t app_swap(struct app_xfer *out, uint32_t peer, uint64_t send, uint64_t recv)
{
	app_put(out, 0, peer, 0, recv);
	return app_put(out, 1, peer, 1, send);
}

/* Recursive-doubling exchange over the "new ranks" of the non-power-of-two
 * fold; shared by RDX, Rabenseifner and recursive halving. Step layout:
 * 0 = fold, 1..L = exchanges, L+1 = unfold. Returns the partner's real rank
 * for exchange step s (1-based), or APP_NONE when me sits out. */
static uint32_t app_fold_partner(uint32_t p, uint32_t me, uint32_t s)
{
	uint32_t pof2 = app_pof2_floor(p), rem = p - pof2;
	if (me < 2 * rem && me % 2 == 0)
		return APP_NONE;
	uint32_t newrank = me < 2 * rem ? me / 2 : me - rem;
	uint32_t newdst = newrank ^ (1u << (s - 1));
	return newdst < rem ? newdst * 2 + 1 : newdst + rem;
}

/* Sizes of the exchange steps: whole vector (RDX), halving then doubling
 * (Rabenseifner), halving only (recursive halving). */
static uint32_t app_fold_step(const struct app_coll_part *pt, uint32_t p, uint32_t me, uint32_t step,
			      struct app_xfer *out)
{
	uint32_t pof2 = app_pof2_floor(p), rem = p - pof2, L = app_log2_ceil(pof2);
	uint32_t ex = pt->prim == PRIM_AR_RABENSEIFNER ? 2 * L : L;
	uint64_t total = pt->bytes;
	if (step == 0) { /* fold: even ranks below 2 rem give their vector to the odd one above */
		if (me >= 2 * rem)
			return 0;
		return me % 2 == 0 ? app_put(out, 0, me + 1, 1, total) : app_put(out, 0, me - 1, 0, total);
	}
	if (step <= ex) {
		uint32_t s = step <= L ? step : 2 * L + 1 - step; /* allgather retraces the halving */
		uint32_t partner = app_fold_partner(p, me, s);
		if (partner == APP_NONE)
			return 0;
		uint64_t sz = total;
		if (pt->prim != PRIM_RDX)
			sz = (total + (1ull << s) - 1) >> s;
		return app_swap(out, partner, sz, sz);
	}
	if (step == ex + 1) { /* unfold: the odd ranks give the result back */
		if (me >= 2 * rem)
			return 0;
		uint64_t sz = total;
		if (pt->prim == PRIM_RS_HALVING)
			sz = pt->counts ? pt->counts[me - me % 2] : app_even_block(total, p, me - me % 2);
		return me % 2 == 1 ? app_put(out, 0, me - 1, 1, sz) : app_put(out, 0, me + 1, 0, sz);
	}
	return APP_STEP_DONE;
}

/* --- primitives ---------------------------------------------------------------- */

uint32_t app_prim_step(const struct app_coll_part *pt, uint32_t p, uint32_t me, uint32_t step,
		       struct app_xfer *out)
{
	if (p <= 1)
		return APP_STEP_DONE;
	switch (pt->prim) {
	case PRIM_TREE_DOWN:
	case PRIM_TREE_UP: {
		uint32_t v = app_mod((int64_t)me - pt->root, p);
		bool down = pt->prim == PRIM_TREE_DOWN;
		if (step >= 2)
			return APP_STEP_DONE;
		if ((step == 0) == down) { /* the parent step */
			if (v == 0)
				return 0;
			uint32_t par = (app_tree_parent(pt, p, v) + pt->root) % p;
			return app_put(out, 0, par, down ? 0 : 1, app_tree_msg_bytes(pt, p, v));
		}
		/* The children step: at most p - 1 transfers, so the second
		 * half of out[] (room for 2p) holds the child ids meanwhile. */
		uint32_t *kids = (uint32_t *)(void *)(out + p);
		uint32_t n = app_tree_children(pt, p, v, kids), k = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t c = kids[i];
			k = app_put(out, k, (c + pt->root) % p, down ? 1 : 0, app_tree_msg_bytes(pt, p, c));
		}
		return k;
	}
	case PRIM_RDX:
	case PRIM_AR_RABENSEIFNER:
	case PRIM_RS_HALVING:
		return app_fold_step(pt, p, me, step, out);
	case PRIM_DISSEM: {
		uint32_t L = app_log2_ceil(p);
		if (step >= L)
			return APP_STEP_DONE;
		uint64_t d = 1ull << step;
		app_put(out, 0, app_mod((int64_t)me - (int64_t)d, p), 0, 0);
		return app_put(out, 1, (uint32_t)((me + d) % p), 1, 0);
	}
	case PRIM_RING_BARRIER: {
		/* Two laps: rank 0 sends then receives, the others receive then
		 * forward. */
		if (step >= 4)
			return APP_STEP_DONE;
		bool first = (step % 2 == 0) == (me != 0); /* receive step for me? */
		return first ? app_put(out, 0, app_mod((int64_t)me - 1, p), 0, 0)
			     : app_put(out, 0, (me + 1) % p, 1, 0);
	}
	case PRIM_AG_DIRECT:
	case PRIM_A2A_DIRECT: {
		if (step >= 1)
			return APP_STEP_DONE;
		uint32_t n = 0;
		bool a2a = pt->prim == PRIM_A2A_DIRECT;
		for (uint32_t i = 1; i < p; i++) {
			uint32_t src = app_mod((int64_t)me - i, p);
			n = app_put(out, n, src, 0, a2a ? (pt->rcounts ? pt->rcounts[src] : pt->block) : app_blk(pt, src));
		}
		for (uint32_t i = 1; i < p; i++) {
			uint32_t dst = (me + i) % p;
			n = app_put(out, n, dst, 1, a2a ? app_blk(pt, dst) : app_blk(pt, me));
		}
		return n;
	}
	case PRIM_AG_RING: {
		if (step >= p - 1)
			return APP_STEP_DONE;
		uint32_t sb = app_mod((int64_t)me - step, p), rb = app_mod((int64_t)me - step - 1, p);
		app_put(out, 0, app_mod((int64_t)me - 1, p), 0, app_blk(pt, rb));
		return app_put(out, 1, (me + 1) % p, 1, app_blk(pt, sb));
	}
	case PRIM_AG_RD: { /* p a power of two (the plan falls back to Bruck) */
		uint32_t L = app_log2_ceil(p);
		if (step >= L)
			return APP_STEP_DONE;
		uint32_t d = 1u << step, partner = me ^ d;
		uint64_t mine = 0, theirs = 0;
		for (uint32_t i = 0; i < d; i++) {
			mine += app_blk(pt, (me & ~(d - 1)) + i);
			theirs += app_blk(pt, (partner & ~(d - 1)) + i);
		}
		return app_swap(out, partner, mine, theirs);
	}
	case PRIM_AG_BRUCK: {
		uint32_t L = app_log2_ceil(p);
		if (step >= L)
			return APP_STEP_DONE;
		uint32_t d = 1u << step, cnt = d < p - d ? d : p - d;
		uint64_t s = 0, r = 0;
		for (uint32_t i = 0; i < cnt; i++) {
			s += app_blk(pt, (me + i) % p);
			r += app_blk(pt, (uint32_t)((me + d + i) % p));
		}
		app_put(out, 0, (me + d) % p, 0, r);
		return app_put(out, 1, app_mod((int64_t)me - d, p), 1, s);
	}
	case PRIM_AG_NEIGHBOR: { /* p even (the plan falls back to the ring) */
		uint32_t P = p / 2, j = me / 2;
		bool even = me % 2 == 0;
		if (step >= P)
			return APP_STEP_DONE;
		if (step == 0) {
			uint32_t nb = even ? me + 1 : me - 1;
			return app_swap(out, nb, app_blk(pt, me), app_blk(pt, nb));
		}
		/* Pairs of blocks travel; see Chen et al. §3. Received at step s:
		 * even ranks j - (s+1)/2 (s odd) or j + s/2 (s even), odd ranks
		 * the mirror; sent at s >= 2 what arrived at s - 1. */
		uint32_t s = step;
		uint32_t nb = even ? (s % 2 ? app_mod((int64_t)me - 1, p) : me + 1)
				   : (s % 2 ? (me + 1) % p : me - 1);
		int64_t rp = even ? (s % 2 ? (int64_t)j - (s + 1) / 2 : (int64_t)j + s / 2)
				  : (s % 2 ? (int64_t)j + (s + 1) / 2 : (int64_t)j - s / 2);
		int64_t sp = j;
		if (s >= 2) {
			uint32_t t = s - 1;
			sp = even ? (t % 2 ? (int64_t)j - (t + 1) / 2 : (int64_t)j + t / 2)
				  : (t % 2 ? (int64_t)j + (t + 1) / 2 : (int64_t)j - t / 2);
		}
		uint32_t rq = app_mod(rp, P), sq = app_mod(sp, P);
		return app_swap(out, nb, app_blk(pt, 2 * sq) + app_blk(pt, 2 * sq + 1),
				app_blk(pt, 2 * rq) + app_blk(pt, 2 * rq + 1));
	}
	case PRIM_A2A_PAIRWISE: {
		if (step >= p - 1)
			return APP_STEP_DONE;
		uint32_t dst = (me + step + 1) % p, src = app_mod((int64_t)me - step - 1, p);
		app_put(out, 0, src, 0, pt->rcounts ? pt->rcounts[src] : pt->block);
		return app_put(out, 1, dst, 1, app_blk(pt, dst));
	}
	case PRIM_A2A_BRUCK: {
		uint32_t L = app_log2_ceil(p);
		if (step >= L)
			return APP_STEP_DONE;
		uint32_t d = 1u << step, nblk = 0;
		for (uint32_t i = 0; i < p; i++)
			nblk += (i & d) != 0;
		app_put(out, 0, app_mod((int64_t)me - d, p), 0, nblk * pt->block);
		return app_put(out, 1, (me + d) % p, 1, nblk * pt->block);
	}
	case PRIM_AR_RING: {
		if (step >= 2 * (p - 1))
			return APP_STEP_DONE;
		uint32_t sb, rb;
		if (step < p - 1) { /* reduce-scatter lap */
			sb = app_mod((int64_t)me - step, p);
			rb = app_mod((int64_t)me - step - 1, p);
		} else { /* allgather lap */
			uint32_t s = step - (p - 1);
			sb = app_mod((int64_t)me + 1 - s, p);
			rb = app_mod((int64_t)me - s, p);
		}
		app_put(out, 0, app_mod((int64_t)me - 1, p), 0, app_even_block(pt->bytes, p, rb));
		return app_put(out, 1, (me + 1) % p, 1, app_even_block(pt->bytes, p, sb));
	}
	case PRIM_RS_RING: {
		if (step >= p - 1)
			return APP_STEP_DONE;
		uint32_t sb = app_mod((int64_t)me - step - 1, p), rb = app_mod((int64_t)me - step - 2, p);
		uint64_t ss = pt->counts ? pt->counts[sb] : app_even_block(pt->bytes, p, sb);
		uint64_t rs = pt->counts ? pt->counts[rb] : app_even_block(pt->bytes, p, rb);
		app_put(out, 0, app_mod((int64_t)me - 1, p), 0, rs);
		return app_put(out, 1, (me + 1) % p, 1, ss);
	}
	case PRIM_SCAN_CHAIN:
		if (step >= 2)
			return APP_STEP_DONE;
		if (step == 0)
			return me > 0 ? app_put(out, 0, me - 1, 0, pt->bytes) : 0;
		return me + 1 < p ? app_put(out, 0, me + 1, 1, pt->bytes) : 0;
	case PRIM_SCAN_RD: {
		uint32_t L = app_log2_ceil(p);
		if (step >= L)
			return APP_STEP_DONE;
		uint64_t d = 1ull << step;
		uint32_t n = 0;
		if (me >= d)
			n = app_put(out, n, (uint32_t)(me - d), 0, pt->bytes);
		if (me + d < p)
			n = app_put(out, n, (uint32_t)(me + d), 1, pt->bytes);
		return n;
	}
	}
	NL_BUG("replay: primitive %d", pt->prim);
}

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

int app_coll_plan(struct app_coll_inst *c, enum app_coll coll, enum app_alg alg, const struct app_coll_sizes *z)
{
	uint32_t p = c->p, root = z->root;
	uint64_t per = (z->bytes + (p ? p : 1) - 1) / (p ? p : 1); /* ceil(bytes / p) */
	c->alg = (uint8_t)alg;
	switch (coll) {
	case APP_COLL_BARRIER:
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
	case APP_COLL_BCAST:
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
	case APP_COLL_REDUCE:
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
			app_simple(c, PRIM_RS_HALVING, z->bytes, 0, NULL, NULL);
			app_tree(c, false, TREE_KNOMIAL, 2, SZ_SUBTREE, root, 0, per, NULL);
			return 0;
		default:
			return NL_EINVAL;
		}
	case APP_COLL_ALLREDUCE:
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
			app_simple(c, PRIM_AR_RING, z->bytes, 0, NULL, NULL);
			return 0;
		case APP_ALG_RABENSEIFNER:
			app_simple(c, PRIM_AR_RABENSEIFNER, z->bytes, 0, NULL, NULL);
			return 0;
		default:
			return NL_EINVAL;
		}
	case APP_COLL_GATHER:
	case APP_COLL_GATHERV:
		/* Each rank sends its own block (gatherv: its own count), so
		 * only trees whose subtrees the sender can size apply. */
		if (alg == APP_ALG_LINEAR)
			app_tree(c, false, TREE_FLAT, 2, SZ_SUBTREE, root, 0, z->block, NULL);
		else if (alg == APP_ALG_BINOMIAL && coll == APP_COLL_GATHER)
			app_tree(c, false, TREE_KNOMIAL, 2, SZ_SUBTREE, root, 0, z->block, NULL);
		else
			return NL_EINVAL;
		return 0;
	case APP_COLL_SCATTER:
	case APP_COLL_SCATTERV:
		if (alg == APP_ALG_LINEAR)
			app_tree(c, true, TREE_FLAT, 2, z->counts ? SZ_COUNTS : SZ_SUBTREE, root, 0, z->block,
				 z->counts);
		else if (alg == APP_ALG_BINOMIAL && coll == APP_COLL_SCATTER)
			app_tree(c, true, TREE_KNOMIAL, 2, SZ_SUBTREE, root, 0, z->block, NULL);
		else
			return NL_EINVAL;
		return 0;
	case APP_COLL_ALLGATHER:
	case APP_COLL_ALLGATHERV: {
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
	case APP_COLL_ALLTOALL:
	case APP_COLL_ALLTOALLV:
	case APP_COLL_ALLTOALLW:
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
	case APP_COLL_REDUCE_SCATTER:
	case APP_COLL_REDUCE_SCATTER_BLOCK:
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
	case APP_COLL_SCAN:
	case APP_COLL_EXSCAN:
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
	enum app_alg alg = (enum app_alg)a->cfg.coll_alg[coll];
	if (alg == APP_ALG_AUTO)
		alg = app_tuned_choose(coll, p, app_decision_bytes(coll, &z, p), nonblocking);
	if (app_coll_plan(co, coll, alg, &z) < 0) {
		app_coll_free(a, c);
		return app_bad_op(a, r, err, "algorithm '%s' does not apply to %s", app_alg_name(alg),
				  app_coll_name(coll));
	}
	a->res.coll_alg_used[coll][alg]++;
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
