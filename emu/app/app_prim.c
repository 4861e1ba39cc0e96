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
#include <stdbool.h>
#include <stdint.h>

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
