/* OTF2 import, EZTrace dialect: the sender, tag, communicator and size of
 * each non-blocking receive, which EZTrace 2.0 does not record (it writes
 * MpiIrecvRequest and no MpiIrecv), inferred from the sends addressed to
 * the receiving rank.
 *
 * Matching order (MPI 4.0 §3.5, non-overtaking): the receives whose
 * source and tag are recorded (MPI_Recv) take, in posting order, the
 * first matching message still unmatched; then each irecv, in posting
 * order, takes the earliest remaining message. "Earliest" is by send
 * time, each rank's clock shifted so that the ends of the first
 * collective on MPI_COMM_WORLD line up (EZTrace's timestamps count from
 * each process's own start). An irecv is counted as ambiguous when, by
 * the end of the wait inferred to complete it, messages with another
 * (source, tag, size) were also waiting: MPI could have matched either,
 * the trace cannot say which; the import names the count on stderr.
 * A send that nothing receives, or an irecv with no message left, makes
 * the import fail: replay would change what completes.
 */
#include "traces/otf2_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

struct o2_msg {
	uint32_t dst;        /* world rank */
	uint32_t src;        /* world rank */
	int32_t src_in_comm; /* the sender's rank in comm */
	uint32_t comm;
	int32_t tag;
	uint64_t bytes;
	int64_t t_adj;       /* send time, ps, on rank 0's clock */
	uint64_t seq;        /* tie break: sender's op order */
	uint32_t epoch;      /* synchronising world collectives the sender had completed */
	bool used;
};

/* Collectives after which every rank has entered the call on every other
 * rank (each member's result depends on all): a message sent after the
 * k-th of them cannot match a receive completed before the receiver's
 * k-th. Clock-free, so it holds where timestamps do not line up. */
static bool is_sync(const struct trace_op *op)
{
	return op->comm == TRACE_COMM_WORLD && !(op->flags & TRACE_F_NONBLOCKING) &&
	       (op->kind == TOP_BARRIER || op->kind == TOP_ALLREDUCE || op->kind == TOP_ALLGATHER ||
		op->kind == TOP_ALLGATHERV || op->kind == TOP_ALLTOALL || op->kind == TOP_ALLTOALLV ||
		op->kind == TOP_REDUCE_SCATTER_BLOCK || op->kind == TOP_REDUCE_SCATTER);
}

static int cmp_msg(const void *a, const void *b)
{
	const struct o2_msg *x = a, *y = b;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->t_adj != y->t_adj)
		return x->t_adj < y->t_adj ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static const struct trace_comm *nl_comm(const struct otf2_defs *d, uint32_t id)
{
	return id >= 2 && id - 2 < d->n_nl_comms ? &d->nl_comms[id - 2] : NULL;
}

/* World rank of `peer` in comm as seen by rank `self`, or -1. */
static int64_t world_of(const struct otf2_defs *d, uint32_t comm, int32_t peer, uint32_t self)
{
	if (peer < 0)
		return -1;
	if (comm == TRACE_COMM_WORLD)
		return (uint32_t)peer < d->n_ranks ? peer : -1;
	if (comm == TRACE_COMM_SELF)
		return peer == 0 ? (int64_t)self : -1;
	const struct trace_comm *c = nl_comm(d, comm);
	return c && (uint32_t)peer < c->size ? (int64_t)c->world_ranks[peer] : -1;
}

static int32_t rank_in(const struct otf2_defs *d, uint32_t comm, uint32_t world)
{
	if (comm == TRACE_COMM_WORLD)
		return (int32_t)world;
	if (comm == TRACE_COMM_SELF)
		return 0;
	const struct trace_comm *c = nl_comm(d, comm);
	for (uint32_t i = 0; c && i < c->size; i++)
		if (c->world_ranks[i] == world)
			return (int32_t)i;
	return -1;
}

static bool is_send(uint16_t k)
{
	return k == TOP_SEND || k == TOP_SSEND || k == TOP_BSEND || k == TOP_RSEND || k == TOP_ISEND ||
	       k == TOP_ISSEND || k == TOP_SENDRECV;
}

/* Shift of each rank's clock: end of its first collective on world minus
 * rank 0's (0 when a rank has none). */
static void clock_shift(const struct o2_rank *ranks, uint32_t n, int64_t *shift)
{
	int64_t end0 = 0;
	for (uint32_t r = 0; r < n; r++) {
		shift[r] = 0;
		for (size_t i = 0; i < ranks[r].n_ops; i++) {
			const struct trace_op *op = &ranks[r].ops[i].op;
			if (op->kind >= TOP_BARRIER && op->kind <= TOP_EXSCAN && op->comm == TRACE_COMM_WORLD) {
				int64_t end = (int64_t)(op->t_ps + op->dur_ps);
				if (r == 0)
					end0 = end;
				shift[r] = end - end0;
				break;
			}
		}
	}
}

static bool match(const struct o2_msg *m, uint32_t comm, int32_t peer, int32_t tag)
{
	return m->comm == comm && (peer == TRACE_ANY_SOURCE || m->src_in_comm == peer) &&
	       (tag == TRACE_ANY_TAG || m->tag == tag);
}

/* Per (source, communicator): its messages to this rank in send order,
 * and the first not yet matched. MPI's non-overtaking rule orders a
 * sender's messages per tag; an irecv takes the sender's first unmatched
 * message whatever its tag, i.e. the program is assumed to post its
 * receives from one sender in the order that sender sends (SPMD phases). */
struct o2_key {
	uint32_t src, comm;
	size_t *ix, n, head;
};

static struct o2_msg *key_head(struct o2_key *k, struct o2_msg *m)
{
	while (k->head < k->n && m[k->ix[k->head]].used)
		k->head++;
	return k->head < k->n ? &m[k->ix[k->head]] : NULL;
}

/* Among the heads not sent after a synchronising collective the receiver
 * had not completed by the end of its wait (`epoch`): the one sent latest
 * no later than that end (`done`: a wait ends when its last message
 * arrives), else the earliest (clock skew); the earliest head of all when
 * none qualifies. *n_before counts the candidates. */
static struct o2_msg *pick(struct o2_key *keys, size_t n_keys, struct o2_msg *m, int64_t done, bool has_done,
			   uint32_t epoch, size_t *n_before)
{
	struct o2_msg *best = NULL, *first_ok = NULL, *first = NULL;
	*n_before = 0;
	for (size_t i = 0; i < n_keys; i++) {
		struct o2_msg *h = key_head(&keys[i], m);
		if (!h)
			continue;
		if (!first || h->t_adj < first->t_adj)
			first = h;
		if (has_done && h->epoch > epoch)
			continue;
		(*n_before)++;
		if (!first_ok || h->t_adj < first_ok->t_adj)
			first_ok = h;
		if (has_done && h->t_adj <= done && (!best || h->t_adj > best->t_adj))
			best = h;
	}
	return best ? best : first_ok ? first_ok : first;
}

static void take(struct o2_op *o, struct o2_msg *c)
{
	c->used = true;
	o->op.comm = c->comm;
	o->op.peer = c->src_in_comm;
	o->op.tag = c->tag;
	o->op.bytes = c->bytes;
	o->unresolved = false;
}

static int infer_rank(struct otf2_import *im, struct o2_rank *s, struct o2_msg *m, size_t n, int64_t shift,
		      uint64_t *n_inferred, uint64_t *n_ambiguous)
{
	int rc = 0;
	struct o2_key *keys = calloc(n ? n : 1, sizeof *keys);
	size_t *ix = calloc(n ? n : 1, sizeof *ix), n_keys = 0, used = 0;
	if (!keys || !ix) {
		rc = nl_errf(im->err, NL_ENOMEM, "out of memory");
		goto out;
	}
	/* Keys in first-message order; their index lists share ix[]. */
	for (size_t j = 0; j < n; j++) {
		size_t k = 0;
		while (k < n_keys && !(keys[k].src == m[j].src && keys[k].comm == m[j].comm))
			k++;
		if (k == n_keys)
			keys[n_keys++] = (struct o2_key){.src = m[j].src, .comm = m[j].comm};
		keys[k].n++;
	}
	for (size_t k = 0; k < n_keys; k++) {
		keys[k].ix = ix + used;
		used += keys[k].n;
		keys[k].n = 0;
	}
	for (size_t j = 0; j < n; j++)
		for (size_t k = 0; k < n_keys; k++)
			if (keys[k].src == m[j].src && keys[k].comm == m[j].comm) {
				keys[k].ix[keys[k].n++] = j;
				break;
			}
	/* Receives whose source and tag are known, in posting order. */
	for (size_t i = 0; i < s->n_ops; i++) {
		struct trace_op *op = &s->ops[i].op;
		int32_t peer = op->kind == TOP_SENDRECV ? op->recv_peer : op->peer;
		int32_t tag = op->kind == TOP_SENDRECV ? op->recv_tag : op->tag;
		if (!(op->kind == TOP_RECV || op->kind == TOP_SENDRECV || (op->kind == TOP_IRECV && !s->ops[i].unresolved)) ||
		    peer == TRACE_PROC_NULL)
			continue;
		for (size_t j = 0; j < n; j++)
			if (!m[j].used && match(&m[j], op->comm, peer, tag)) {
				m[j].used = true;
				break;
			}
	}
	/* Irecvs, grouped by the wait that completes them (waits in op
	 * order, then those with no inferred wait); each takes a head (pick),
	 * the first posted the latest sent. */
	size_t n_ir = 0;
	for (size_t i = 0; i < s->n_ops; i++)
		n_ir += s->ops[i].op.kind == TOP_IRECV && s->ops[i].unresolved;
	size_t *ir = malloc((n_ir ? n_ir : 1) * sizeof *ir);
	if (!ir) {
		rc = nl_errf(im->err, NL_ENOMEM, "out of memory");
		goto out;
	}
	n_ir = 0;
	for (size_t i = 0; i < s->n_ops; i++)
		if (s->ops[i].op.kind == TOP_IRECV && s->ops[i].unresolved)
			ir[n_ir++] = i;
	for (size_t a = 1; a < n_ir; a++) { /* insertion sort by wait: stable, usually sorted already */
		size_t v = ir[a], b = a;
		for (; b > 0 && s->ops[ir[b - 1]].wait_ix > s->ops[v].wait_ix; b--)
			ir[b] = ir[b - 1];
		ir[b] = v;
	}
	uint32_t epoch = 0;
	size_t at = 0; /* ops before `at` counted in epoch */
	for (size_t a = 0; a < n_ir && !rc; a++) {
		struct o2_op *o = &s->ops[ir[a]];
		bool has_done = o->wait_ix != SIZE_MAX;
		int64_t done = 0;
		if (has_done) {
			const struct trace_op *wo = &s->ops[o->wait_ix].op;
			done = (int64_t)(wo->t_ps + wo->dur_ps) - shift;
			for (; at < o->wait_ix; at++)
				epoch += is_sync(&s->ops[at].op);
		}
		size_t before;
		struct o2_msg *c = pick(keys, n_keys, m, done, has_done, epoch, &before);
		if (!c) {
			rc = nl_errf(im->err, NL_EFORMAT,
				     "%s: rank %u: an MPI_Irecv at %.9f s has no send addressed to this rank "
				     "left to match it (expected as many sends to the rank as receives)",
				     im->path, s->rank, (double)o->op.t_ps * 1e-12);
			break;
		}
		take(o, c);
		(*n_inferred)++;
		*n_ambiguous += before > 1 || !has_done;
	}
	free(ir);
	size_t left = 0;
	for (size_t j = 0; j < n; j++)
		left += !m[j].used;
	if (!rc && left)
		rc = nl_errf(im->err, NL_EFORMAT,
			     "%s: rank %u: %zu sends addressed to it match no receive in its events "
			     "(expected each send to be received)",
			     im->path, s->rank, left);
out:
	free(keys);
	free(ix);
	return rc;
}

int otf2_infer_irecvs(struct otf2_import *im, struct o2_rank *ranks, uint32_t n_ranks)
{
	const struct otf2_defs *d = &im->defs;
	size_t n = 0;
	int rc = 0;
	for (uint32_t r = 0; r < n_ranks; r++)
		for (size_t i = 0; i < ranks[r].n_ops; i++)
			n += is_send(ranks[r].ops[i].op.kind);
	int64_t *shift = calloc(n_ranks ? n_ranks : 1, sizeof *shift);
	struct o2_msg *m = calloc(n ? n : 1, sizeof *m);
	if (!shift || !m) {
		rc = nl_errf(im->err, NL_ENOMEM, "out of memory");
		goto out;
	}
	clock_shift(ranks, n_ranks, shift);
	n = 0;
	for (uint32_t r = 0; r < n_ranks; r++) {
		uint32_t epoch = 0;
		for (size_t i = 0; i < ranks[r].n_ops; i++) {
			const struct trace_op *op = &ranks[r].ops[i].op;
			epoch += is_sync(op);
			if (!is_send(op->kind) || op->peer == TRACE_PROC_NULL)
				continue;
			int64_t dst = world_of(d, op->comm, op->peer, r);
			if (dst < 0) {
				rc = nl_errf(im->err, NL_EFORMAT, "%s: rank %u: a send to rank %d of communicator %u, "
					     "which has no such rank", im->path, r, op->peer, op->comm);
				goto out;
			}
			m[n++] = (struct o2_msg){.dst = (uint32_t)dst, .src = r, .src_in_comm = rank_in(d, op->comm, r),
						 .comm = op->comm, .tag = op->tag, .bytes = op->bytes,
						 .t_adj = (int64_t)op->t_ps - shift[r], .seq = i, .epoch = epoch};
		}
	}
	qsort(m, n, sizeof *m, cmp_msg);
	uint64_t inferred = 0, ambiguous = 0;
	size_t lo = 0;
	for (uint32_t r = 0; !rc && r < n_ranks; r++) {
		size_t hi = lo;
		while (hi < n && m[hi].dst == r)
			hi++;
		rc = infer_rank(im, &ranks[r], m + lo, hi - lo, shift[r], &inferred, &ambiguous);
		lo = hi;
	}
	if (!rc && inferred &&
	    trace_skips_add(im->skips, "MPI_Irecv source/tag/size",
			    "EZTrace does not record them: inferred from the sends to the rank, in MPI matching order",
			    inferred))
		rc = nl_errf(im->err, NL_ENOMEM, "out of memory");
	if (!rc && ambiguous &&
	    trace_skips_add(im->skips, "MPI_Irecv ambiguous",
			    "messages from several senders had been sent by the end of its wait: the latest one was assumed", ambiguous))
		rc = nl_errf(im->err, NL_ENOMEM, "out of memory");
out:
	free(shift);
	free(m);
	return rc;
}
