/* Allocators for VC and switch allocation: iSLIP and separable
 * input-first / output-first with round-robin arbiters, as BookSim2
 * defines them (islip.cpp, separable_*_first.cpp), over a sparse request
 * list so a step costs O(requests), not O(inputs x outputs).
 *
 * Round-robin order: among candidates, the one whose index is next at or
 * after the arbiter's pointer wins, i.e. the smallest (index - pointer)
 * mod size; a pointer moves to one past the winner only when the winner is
 * matched (iSLIP: only in the first iteration, McKeown 1999). Separable
 * arbiters prefer higher priority before round-robin order.
 */
#include "core/error.h"
#include "net/net_internal.h"

static inline uint32_t fl_rr_key(int32_t idx, uint32_t ptr, uint32_t size)
{
	return (uint32_t)idx >= ptr ? (uint32_t)idx - ptr : (uint32_t)idx + size - ptr;
}

static inline uint16_t fl_rr_next(int32_t idx, uint32_t size)
{
	return (uint16_t)((uint32_t)idx + 1 == size ? 0 : (uint32_t)idx + 1);
}

/* iSLIP (McKeown, IEEE/ACM ToN 1999), BookSim's iSLIP_Sparse::Allocate.
 * An output's grant is its best_out entry itself: the accept pass reads it
 * and the commit pass clears it, three passes over the requests per
 * iteration. Every entry of the match and best arrays is -1 on entry (the
 * callers clear what they read), so the first iteration skips the
 * matched tests. */
static void alloc_islip_run(struct flitnet *n, uint32_t iters, const struct fl_areq *rq, uint32_t n_req,
		     uint32_t n_in, uint32_t n_out, uint16_t *aptr, uint16_t *gptr)
{
	int32_t *in_m = n->in_match, *out_m = n->out_match;
	int32_t *best_o = n->best_out, *best_i = n->best_in;

	for (uint32_t it = 0; it < iters; it++) {
		/* Grant: each unmatched output picks an unmatched requesting input. */
		for (uint32_t k = 0; k < n_req; k++) {
			int32_t o = rq[k].out, i = rq[k].in;
			if (it && (out_m[o] >= 0 || in_m[i] >= 0))
				continue;
			if (best_o[o] < 0 || fl_rr_key(i, gptr[o], n_in) < fl_rr_key(best_o[o], gptr[o], n_in))
				best_o[o] = i;
		}
		/* Accept: each input picks among the outputs that granted it. */
		for (uint32_t k = 0; k < n_req; k++) {
			int32_t o = rq[k].out, i = rq[k].in;
			if (best_o[o] != i)
				continue;
			if (best_i[i] < 0 || fl_rr_key(o, aptr[i], n_out) < fl_rr_key(best_i[i], aptr[i], n_out))
				best_i[i] = o;
		}
		bool any = false;
		for (uint32_t k = 0; k < n_req; k++) {
			int32_t i = rq[k].in;
			int32_t o = best_i[i];
			best_o[rq[k].out] = -1;
			if (o < 0)
				continue;
			best_i[i] = -1;
			in_m[i] = o;
			out_m[o] = i;
			any = true;
			if (it == 0) {
				gptr[o] = fl_rr_next(i, n_in);
				aptr[i] = fl_rr_next(o, n_out);
			}
		}
		if (!any)
			break;
	}
}

/* Is candidate (pri, key) better than the current best (bpri, bkey)? */
static inline bool fl_better(int32_t pri, uint32_t key, int32_t bpri, uint32_t bkey)
{
	return pri > bpri || (pri == bpri && key < bkey);
}

/* Separable allocation: first-stage arbiters on one side pick one request
 * each, second-stage arbiters on the other side pick among those. After
 * the first pass over the requests the rest walks only the first-stage
 * winners (a head asks for every VC of a port: about one in num_vcs
 * requests): a second-stage arbiter's candidates come from distinct
 * first-stage arbiters, so their round-robin keys differ and the order
 * they are compared in cannot change its choice. */
static void alloc_separable(struct flitnet *n, bool input_first, const struct fl_areq *rq, uint32_t n_req,
			 uint32_t n_in, uint32_t n_out, uint16_t *aptr, uint16_t *gptr)
{
	int32_t *first = input_first ? n->best_in : n->best_out;   /* winning request per first-stage arbiter */
	int32_t *second = input_first ? n->best_out : n->best_in;  /* winning request per second-stage arbiter */
	int32_t *used = n->arb_used;
	uint32_t n_used = 0;

	for (uint32_t k = 0; k < n_req; k++) {
		int32_t a = input_first ? rq[k].in : rq[k].out;
		int32_t cur = first[a];
		if (cur < 0) {
			first[a] = (int32_t)k;
			used[n_used++] = a;
			continue;
		}
		uint32_t key = input_first ? fl_rr_key(rq[k].out, aptr[a], n_out) : fl_rr_key(rq[k].in, gptr[a], n_in);
		int32_t pri = input_first ? rq[k].in_pri : rq[k].out_pri;
		uint32_t ckey = input_first ? fl_rr_key(rq[cur].out, aptr[a], n_out) : fl_rr_key(rq[cur].in, gptr[a], n_in);
		int32_t cpri = input_first ? rq[cur].in_pri : rq[cur].out_pri;
		if (fl_better(pri, key, cpri, ckey))
			first[a] = (int32_t)k;
	}
	for (uint32_t u = 0; u < n_used; u++) {
		int32_t k = first[used[u]];
		int32_t b = input_first ? rq[k].out : rq[k].in;
		int32_t cur = second[b];
		if (cur < 0) {
			second[b] = k;
			continue;
		}
		uint32_t key = input_first ? fl_rr_key(rq[k].in, gptr[b], n_in) : fl_rr_key(rq[k].out, aptr[b], n_out);
		int32_t pri = input_first ? rq[k].out_pri : rq[k].in_pri;
		uint32_t ckey = input_first ? fl_rr_key(rq[cur].in, gptr[b], n_in) : fl_rr_key(rq[cur].out, aptr[b], n_out);
		int32_t cpri = input_first ? rq[cur].out_pri : rq[cur].in_pri;
		if (fl_better(pri, key, cpri, ckey))
			second[b] = k;
	}
	for (uint32_t u = 0; u < n_used; u++) {
		int32_t k = first[used[u]];
		int32_t b = input_first ? rq[k].out : rq[k].in;
		if (second[b] != k)
			continue;
		int32_t i = rq[k].in, o = rq[k].out;
		n->in_match[i] = o;
		n->out_match[o] = i;
		aptr[i] = fl_rr_next(o, n_out);
		gptr[o] = fl_rr_next(i, n_in);
	}
	for (uint32_t u = 0; u < n_used; u++) {
		int32_t k = first[used[u]];
		second[input_first ? rq[k].out : rq[k].in] = -1;
		first[used[u]] = -1;
	}
}

/* Separable arbiters, first stage on the inputs (BookSim's
 * SeparableInputFirstAllocator). */
static void alloc_sep_in_run(struct flitnet *n, uint32_t iters, const struct fl_areq *rq, uint32_t n_req,
			     uint32_t n_in, uint32_t n_out, uint16_t *aptr, uint16_t *gptr)
{
	(void)iters;
	alloc_separable(n, true, rq, n_req, n_in, n_out, aptr, gptr);
}

/* First stage on the outputs (BookSim's SeparableOutputFirstAllocator). */
static void alloc_sep_out_run(struct flitnet *n, uint32_t iters, const struct fl_areq *rq, uint32_t n_req,
			      uint32_t n_in, uint32_t n_out, uint16_t *aptr, uint16_t *gptr)
{
	(void)iters;
	alloc_separable(n, false, rq, n_req, n_in, n_out, aptr, gptr);
}

const struct alloc_ops alloc_islip_ops = {
	.name = "islip",
	.help = "iSLIP: round-robin grant and accept pointers moved only in the first iteration (McKeown 1999)",
	.run = alloc_islip_run,
	.by_priority = false,
};

const struct alloc_ops alloc_sep_in_ops = {
	.name = "separable_input_first",
	.help = "separable allocator, input arbiters first, priority then round robin (Dally & Towles 19.3)",
	.run = alloc_sep_in_run,
	.by_priority = true,
	.input_top_priority = true,
	.input_single_request = true,
};

const struct alloc_ops alloc_sep_out_ops = {
	.name = "separable_output_first",
	.help = "separable allocator, output arbiters first, priority then round robin (Dally & Towles 19.3)",
	.run = alloc_sep_out_run,
	.by_priority = true,
};

/* In the order of the vc_allocator / sw_allocator choices (netcfg.c). */
const struct alloc_ops *const alloc_registry[] = {
	&alloc_islip_ops,
	&alloc_sep_in_ops,
	&alloc_sep_out_ops,
	NULL,
};

void fl_allocate(struct flitnet *n, const struct alloc_ops *ops, uint32_t iters, const struct fl_areq *reqs,
		 uint32_t n_req, uint32_t n_in, uint32_t n_out, uint16_t *aptr, uint16_t *gptr)
{
	/* All requests from one input (a head flit asking for several VCs):
	 * every output grants it and it accepts the best one; iSLIP by round
	 * robin alone, separable arbiters by priority first. */
	bool one_in = true, one_out = true;
	for (uint32_t k = 1; k < n_req && (one_in || one_out); k++) {
		one_in &= reqs[k].in == reqs[0].in;
		one_out &= reqs[k].out == reqs[0].out;
	}
	if (one_in || one_out) {
		int32_t i = reqs[0].in;
		uint32_t best = 0;
		for (uint32_t k = 1; k < n_req; k++) {
			const struct fl_areq *a = &reqs[k], *b = &reqs[best];
			int32_t pa = one_in ? a->in_pri : a->out_pri, pb = one_in ? b->in_pri : b->out_pri;
			uint32_t ka = one_in ? fl_rr_key(a->out, aptr[i], n_out) : fl_rr_key(a->in, gptr[a->out], n_in);
			uint32_t kb = one_in ? fl_rr_key(b->out, aptr[i], n_out) : fl_rr_key(b->in, gptr[b->out], n_in);
			if (ops->by_priority ? fl_better(pa, ka, pb, kb) : ka < kb)
				best = k;
		}
		int32_t bi = reqs[best].in, bo = reqs[best].out;
		n->in_match[bi] = bo;
		n->out_match[bo] = bi;
		aptr[bi] = fl_rr_next(bo, n_out);
		gptr[bo] = fl_rr_next(bi, n_in);
		return;
	}
	/* No two requests share an input or an output: every allocator grants
	 * them all, and moves every pointer past its match. */
	if (n_req <= 8) {
		bool disjoint = true;
		for (uint32_t a = 0; a < n_req && disjoint; a++)
			for (uint32_t b = a + 1; b < n_req; b++)
				if (reqs[a].in == reqs[b].in || reqs[a].out == reqs[b].out) {
					disjoint = false;
					break;
				}
		if (disjoint) {
			for (uint32_t k = 0; k < n_req; k++) {
				int32_t i = reqs[k].in, o = reqs[k].out;
				n->in_match[i] = o;
				n->out_match[o] = i;
				aptr[i] = fl_rr_next(o, n_out);
				gptr[o] = fl_rr_next(i, n_in);
			}
			return;
		}
	}
	ops->run(n, iters, reqs, n_req, n_in, n_out, aptr, gptr);
}

void fl_allocate_outputs(struct flitnet *n, const struct fl_areq *rq, uint32_t n_req, uint32_t n_in,
			 uint32_t n_out, uint16_t *aptr, uint16_t *gptr)
{
	int32_t *best = n->best_out;
	for (uint32_t k = 0; k < n_req; k++) {
		int32_t o = rq[k].out, cur = best[o];
		if (cur < 0 || fl_better(rq[k].out_pri, fl_rr_key(rq[k].in, gptr[o], n_in), rq[cur].out_pri,
					 fl_rr_key(rq[cur].in, gptr[o], n_in)))
			best[o] = (int32_t)k;
	}
	/* Each output's winner resets its entry: the requests after it for
	 * that output then find -1, not themselves, and every entry set
	 * above is reset by its winner. */
	for (uint32_t k = 0; k < n_req; k++) {
		int32_t o = rq[k].out;
		if (best[o] != (int32_t)k)
			continue;
		best[o] = -1;
		int32_t i = rq[k].in;
		n->in_match[i] = o;
		n->out_match[o] = i;
		aptr[i] = fl_rr_next(o, n_out);
		gptr[o] = fl_rr_next(i, n_in);
	}
}
