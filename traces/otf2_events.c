/* OTF2 import, the events of one rank's location to ops.
 *
 * A "call" is the outermost region of paradigm MPI (or named MPI_*): the
 * records between its Enter and Leave become its ops, timed from Enter to
 * Leave; everything between two calls (user code, nested non-MPI regions,
 * MPI calls that produce no op) becomes TOP_COMPUTE. Times are ps since
 * the rank's first event (ProgramBegin or the first Enter). The rank's ops are
 * buffered until its last event, because Score-P names the sender and
 * tag of a non-blocking receive only in the MpiIrecv completion record,
 * which comes after the MpiIrecvRequest where the irecv op belongs.
 *
 * Requests: OTF2 request ids are 64-bit and per location; they are mapped
 * to small netloom ids, recycled once the completion record is seen (the
 * completing wait is emitted at the end of the same call, so a recycled
 * id cannot be confused). Waits and tests become the requests the records
 * inside them complete (MpiIsendComplete, MpiIrecv) or test
 * (MpiRequestTest): Score-P records no request list, only outcomes.
 *
 * netloom's own export adds NETLOOM:: attributes to a region's Enter for
 * what has no record (traces_internal.h): a probe's and a cancel's
 * fields, op flags, a compute interval's CPU time (summed into the gap before the next call).
 */
#include "traces/otf2_import.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * size);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

#define GROW(s, arr, n, cap) grow((void **)&(s)->arr, &(s)->cap, (s)->n + 1, sizeof *(s)->arr)

static OTF2_CallbackCode fail(struct o2_rank *s, int rc)
{
	s->failed = true;
	s->rc = rc;
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode nomem(struct o2_rank *s)
{
	return fail(s, nl_errf(s->im->err, NL_ENOMEM, "out of memory"));
}

static uint64_t to_ps(const struct o2_rank *s, uint64_t ticks)
{
	uint64_t t = ticks > s->origin ? ticks - s->origin : 0;
	unsigned __int128 ps = (unsigned __int128)t * 1000000000000ull / s->im->defs.ticks_per_s;
	return ps > UINT64_MAX ? UINT64_MAX : (uint64_t)ps;
}

static const char *region_name(const struct o2_rank *s, uint32_t region)
{
	const struct otf2_region *r = otf2_region_find(&s->im->defs, region);
	return r ? r->name_s : "(unknown region)";
}

static bool is_mpi_region(const struct o2_rank *s, uint32_t region)
{
	const struct otf2_region *r = otf2_region_find(&s->im->defs, region);
	return r && r->is_mpi;
}

static bool call_is(const struct o2_rank *s, const char *name)
{
	return s->call_region != OTF2_NO_REGION && !strcmp(region_name(s, s->call_region), name);
}

static bool call_prefix(const struct o2_rank *s, const char *prefix)
{
	return s->call_region != OTF2_NO_REGION && !strncmp(region_name(s, s->call_region), prefix, strlen(prefix));
}

/* Append an op of the current call; the first one is preceded by the
 * compute gap since the previous call. Times are set when the call ends. */
static struct o2_op *push_op(struct o2_rank *s, uint16_t kind)
{
	if (s->n_ops == s->call_first && s->any_op) {
		uint64_t t = to_ps(s, s->call_t0);
		if (t > s->prev_end_ps) {
			if (!GROW(s, ops, n_ops, cap_ops))
				return NULL;
			uint64_t dur = t - s->prev_end_ps;
			s->ops[s->n_ops++] = (struct o2_op){
				.op = {.kind = TOP_COMPUTE, .t_ps = s->prev_end_ps, .dur_ps = dur,
				       .cpu_ps = s->gap_cpu_ps < dur ? s->gap_cpu_ps : dur},
				.wait_ix = SIZE_MAX};
			s->call_first = s->n_ops;
		}
		s->gap_cpu_ps = 0;
	}
	if (!GROW(s, ops, n_ops, cap_ops))
		return NULL;
	struct o2_op *o = &s->ops[s->n_ops++];
	*o = (struct o2_op){.op = {.kind = kind}, .wait_ix = SIZE_MAX};
	return o;
}

/* push_op for a record handler that carries its status in *rc: nothing
 * when *rc already holds an error, NL_ENOMEM in *rc when the op cannot be
 * allocated. */
static struct o2_op *push_op_rc(struct o2_rank *s, uint16_t kind, int *rc)
{
	struct o2_op *o = *rc ? NULL : push_op(s, kind);
	if (!*rc && !o)
		*rc = nl_errf(s->im->err, NL_ENOMEM, "out of memory");
	return o;
}

/* Netloom communicator of a record's OTF2 communicator. */
static int comm_of(struct o2_rank *s, uint64_t ref, uint32_t *id, uint32_t *size)
{
	const struct otf2_comm *c = otf2_comm_find(&s->im->defs, ref);
	if (!c || c->nl_id == TRACE_COMM_NULL)
		return nl_errf(s->im->err, NL_EFORMAT,
			       "%s: rank %u: communicator %llu: no MPI communicator definition with that id "
			       "(expected a Comm definition whose group is an MPI COMM_GROUP or COMM_SELF)",
			       s->im->path, s->rank, (unsigned long long)ref);
	*id = c->nl_id;
	if (size)
		*size = c->size;
	return 0;
}

static int32_t peer_of(const struct o2_rank *s, uint32_t p)
{
	if (p == TRACE_OTF2_ANY_SOURCE && s->im->is_netloom)
		return TRACE_ANY_SOURCE;
	return p == OTF2_UNDEFINED_UINT32 ? TRACE_PROC_NULL : (int32_t)p;
}

/* The fields every point-to-point record gives. */
static void set_p2p(const struct o2_rank *s, struct o2_op *o, uint32_t comm, uint32_t peer, uint32_t tag, uint64_t len)
{
	o->op.comm = comm;
	o->op.peer = peer_of(s, peer);
	o->op.tag = (int32_t)tag;
	o->op.bytes = len;
}

/* --- requests ------------------------------------------------------------------ */

static int req_new(struct o2_rank *s, uint64_t id, size_t op_ix, bool is_irecv, uint32_t *nl)
{
	for (size_t i = 0; i < s->n_reqs; i++)
		if (s->reqs[i].id == id && s->im->defs.is_eztrace) {
			/* EZTrace ids are the address of the program's request
			 * variable: reused, the old request completed in a test
			 * whose outcome is not recorded. */
			s->reqs[i] = s->reqs[--s->n_reqs];
			break;
		} else if (s->reqs[i].id == id)
			return nl_errf(s->im->err, NL_EFORMAT,
				       "%s: rank %u: request %llu created again before it completed "
				       "(expected each request id to be completed before reuse)",
				       s->im->path, s->rank, (unsigned long long)id);
	if (!GROW(s, reqs, n_reqs, cap_reqs))
		return nl_errf(s->im->err, NL_ENOMEM, "out of memory");
	*nl = s->n_free ? s->free_ids[--s->n_free] : s->next_id++;
	s->reqs[s->n_reqs++] =
		(struct o2_req){.id = id, .nl = *nl, .op_ix = op_ix, .is_irecv = is_irecv, .seq = s->next_seq++};
	return 0;
}

static struct o2_req *req_find(struct o2_rank *s, uint64_t id)
{
	for (size_t i = 0; i < s->n_reqs; i++)
		if (s->reqs[i].id == id)
			return &s->reqs[i];
	return NULL;
}

static int req_done(struct o2_rank *s, struct o2_req *q)
{
	if (!grow((void **)&s->done, &s->cap_done, s->n_done + 1, sizeof *s->done) ||
	    !GROW(s, free_ids, n_free, cap_free))
		return nl_errf(s->im->err, NL_ENOMEM, "out of memory");
	s->done[s->n_done++] = q->nl;
	s->free_ids[s->n_free++] = q->nl;
	*q = s->reqs[--s->n_reqs];
	return 0;
}

/* --- calls ------------------------------------------------------------------------ */

static void call_start(struct o2_rank *s, uint32_t region, uint64_t t)
{
	if (!s->have_origin) {
		s->have_origin = true;
		s->origin = t;
	}
	s->call_region = region;
	s->call_t0 = t;
	s->call_first = s->n_ops;
	s->n_done = s->n_tested = s->n_pend = 0;
	s->new_comm = TRACE_COMM_NULL;
	s->call_probe = s->call_cancel = false;
	s->call_flags = 0;
}

static struct o2_req *req_oldest(struct o2_rank *s)
{
	struct o2_req *q = NULL;
	for (size_t i = 0; i < s->n_reqs; i++)
		if (!q || s->reqs[i].seq < q->seq)
			q = &s->reqs[i];
	return q;
}

/* EZTrace records nothing inside waits and tests: a wait for all or some
 * completes every outstanding request, a wait for one the oldest (named
 * when several are outstanding: which one is a guess); tests keep their
 * requests and leave the outcome to replay. */
static int infer_completion(struct o2_rank *s, bool *no_outcome)
{
	bool all = call_is(s, "MPI_Waitall") || call_is(s, "MPI_Waitsome") || call_is(s, "MPI_Testall") ||
		   call_is(s, "MPI_Testsome");
	bool test = call_prefix(s, "MPI_Test");
	if (!s->n_reqs)
		return 0;
	if (!all && s->n_reqs > 1)
		NL_CHECK(otf2_skip(s->im, region_name(s, s->call_region),
				   "EZTrace: which of several outstanding requests completed is not recorded; the oldest "
				   "assumed",
				   false));
	if (test) {
		*no_outcome = true;
		size_t n = all ? s->n_reqs : 1;
		if (!grow((void **)&s->tested, &s->cap_tested, n, sizeof *s->tested))
			return nl_errf(s->im->err, NL_ENOMEM, "out of memory");
		if (all)
			for (size_t i = 0; i < n; i++)
				s->tested[i] = s->reqs[i].nl;
		else
			s->tested[0] = req_oldest(s)->nl;
		s->n_tested = n;
		return 0;
	}
	do {
		struct o2_req *q = req_oldest(s);
		if (q->is_irecv) {
			if (!GROW(s, pend, n_pend, cap_pend))
				return nl_errf(s->im->err, NL_ENOMEM, "out of memory");
			s->pend[s->n_pend++] = q->op_ix;
		}
		NL_CHECK(req_done(s, q));
	} while (all && s->n_reqs);
	return 0;
}

/* The wait or test a call's completion records stand for. */
static int emit_completion(struct o2_rank *s)
{
	bool test = call_prefix(s, "MPI_Test"), no_outcome = false;
	if (s->im->defs.is_eztrace && !s->n_done && !s->n_tested && (test || call_prefix(s, "MPI_Wait")))
		NL_CHECK(infer_completion(s, &no_outcome));
	size_t n = s->n_done + (test ? s->n_tested : 0);
	if (!n)
		return 0;
	uint16_t kind = TOP_WAITALL;
	if (test)
		kind = call_is(s, "MPI_Test") ? TOP_TEST : call_is(s, "MPI_Testany") ? TOP_TESTANY
			: call_is(s, "MPI_Testsome") ? TOP_TESTSOME : TOP_TESTALL;
	else if (call_is(s, "MPI_Wait") && n == 1)
		kind = TOP_WAIT;
	else if (call_is(s, "MPI_Waitany") && n == 1)
		kind = TOP_WAITANY;
	else if (call_is(s, "MPI_Waitsome"))
		kind = TOP_WAITSOME;
	if (kind == TOP_TEST && n != 1)
		kind = TOP_TESTALL;
	if (!grow((void **)&s->reqv, &s->cap_reqv, s->n_reqv + n, sizeof *s->reqv))
		return nl_errf(s->im->err, NL_ENOMEM, "out of memory");
	size_t off = s->n_reqv;
	/* done and tested are NULL until their first request: memcpy from
	 * NULL is undefined even for 0 bytes (UBSan stopped hpcc-8's import). */
	if (s->n_done)
		memcpy(s->reqv + off, s->done, s->n_done * sizeof *s->done);
	if (test && s->n_tested)
		memcpy(s->reqv + off + s->n_done, s->tested, s->n_tested * sizeof *s->tested);
	s->n_reqv += n;
	struct o2_op *o = push_op(s, kind);
	if (!o)
		return nl_errf(s->im->err, NL_ENOMEM, "out of memory");
	o->reqs_off = off;
	o->op.n_reqs = (uint32_t)n;
	o->op.n_done = (uint32_t)s->n_done;
	if (kind == TOP_WAIT || kind == TOP_TEST) {
		o->op.req = s->reqv[off];
		o->op.n_reqs = 0;
	}
	if (kind == TOP_TESTALL && s->n_done != n)
		o->op.n_done = 0; /* testall completes all or none */
	for (size_t i = 0; i < s->n_pend; i++)
		s->ops[s->pend[i]].wait_ix = (size_t)(o - s->ops);
	s->n_pend = 0;
	if (no_outcome) {
		o->op.flags |= TRACE_F_NO_OUTCOME;
		o->op.n_done = 0;
	}
	return 0;
}

/* Calls that have no communication record: a few become ops, the rest
 * are named (their time stays in the compute gap). */
static int call_without_ops(struct o2_rank *s)
{
	const char *name = region_name(s, s->call_region);
	static const struct {
		const char *name;
		uint16_t kind;
	} plain[] = {{"MPI_Init", TOP_INIT}, {"MPI_Init_thread", TOP_INIT}, {"MPI_Finalize", TOP_FINALIZE},
		     {"MPI_Comm_free", TOP_COMM_FREE}};
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		if (!strcmp(name, plain[i].name))
			return push_op(s, plain[i].kind) ? 0 : nl_errf(s->im->err, NL_ENOMEM, "out of memory");
	bool probe = !strcmp(name, "MPI_Probe");
	if (s->call_probe && (probe || !strcmp(name, "MPI_Iprobe"))) { /* netloom's export: attributes */
		uint32_t c = 0;
		NL_CHECK(comm_of(s, s->probe_comm, &c, NULL));
		struct o2_op *o = push_op(s, probe ? TOP_PROBE : TOP_IPROBE);
		if (!o)
			return nl_errf(s->im->err, NL_ENOMEM, "out of memory");
		o->op.comm = c;
		o->op.peer = s->probe_peer;
		o->op.tag = s->probe_tag;
		o->op.bytes = s->probe_bytes;
		o->op.n_done = s->call_done;
		return 0;
	}
	struct o2_req *q = s->call_cancel && !strcmp(name, "MPI_Cancel") ? req_find(s, s->cancel_req) : NULL;
	if (q) { /* netloom's export: the request stays, its wait follows */
		struct o2_op *o = push_op(s, TOP_CANCEL);
		if (!o)
			return nl_errf(s->im->err, NL_ENOMEM, "out of memory");
		o->op.req = q->nl;
		o->op.n_done = s->call_done;
		return 0;
	}
	const char *why = "no communication record: its time counts as compute";
	if (!strncmp(name, "MPI_I", 5) && (strstr(name, "gather") || strstr(name, "reduce") ||
					       strstr(name, "alltoall") || strstr(name, "bcast") ||
					       strstr(name, "barrier") || strstr(name, "scatter") ||
					       strstr(name, "scan")))
		why = "non-blocking collective without event records (Score-P before 7): dropped on every "
		      "rank, with the wait that completes it";
	else if (!strncmp(name, "MPI_Wait", 8) || !strncmp(name, "MPI_Test", 8))
		why = "completes no recorded request (a null request or a dropped non-blocking collective)";
	else if (!strncmp(name, "MPI_Comm_", 9) && strcmp(name, "MPI_Comm_rank") && strcmp(name, "MPI_Comm_size"))
		why = "no CommCreate record: the communicator comes from the definitions, the call's "
		      "synchronisation is not replayed";
	else if (!strncmp(name, "MPI_Win_", 8) || !strcmp(name, "MPI_Put") || !strcmp(name, "MPI_Get") ||
		 !strcmp(name, "MPI_Accumulate") || !strncmp(name, "MPI_Rput", 8) || !strncmp(name, "MPI_Rget", 8))
		why = "one-sided (RMA) communication is not replayed";
	else if (!strncmp(name, "MPI_Sendrecv", 12) && s->im->defs.is_eztrace)
		why = "EZTrace 2.0 writes no record for it: both halves are lost on both sides";
	else if (!strcmp(name, "MPI_Cancel"))
		why = "cancel without a MpiRequestCancelled record";
	return otf2_skip(s->im, name, why, false);
}

/* Ops a rank gathers before those that are final go to the builder. */
#define O2_FLUSH_OPS 4096u

static int write_ops(struct otf2_import *im, struct o2_rank *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct trace_op *op = &s->ops[i].op;
		if (op->n_reqs)
			op->reqs = s->reqv + s->ops[i].reqs_off;
		if (trace_builder_op(im->b, s->rank, op, im->err))
			return nl_err_prefix(im->err, "%s: rank %u", im->path, s->rank);
	}
	return 0;
}

/* Score-P: write the final ops once O2_FLUSH_OPS have gathered and drop
 * them (and their request lists), so a rank's import holds the ops since
 * the oldest irecv still waiting for its MpiIrecv record, not all of the
 * rank's (168 bytes an op). The builder gets the same ops in the same
 * order as from one flush at the rank's end: the archive is the same.
 * Between calls only: a call's ops are final once it ends. */
static int flush_final(struct o2_rank *s)
{
	while (s->n_final < s->n_ops && !s->ops[s->n_final].unresolved)
		s->n_final++;
	size_t k = s->n_final;
	if (s->im->defs.is_eztrace || k < O2_FLUSH_OPS || s->n_pend)
		return 0;
	NL_CHECK(write_ops(s->im, s, k));
	size_t r0 = s->n_reqv;
	for (size_t i = k; i < s->n_ops; i++)
		if (s->ops[i].op.n_reqs) {
			r0 = s->ops[i].reqs_off;
			break;
		}
	memmove(s->ops, s->ops + k, (s->n_ops - k) * sizeof *s->ops);
	s->n_ops -= k;
	s->n_final = 0;
	s->call_first = s->call_first > k ? s->call_first - k : 0;
	for (size_t i = 0; i < s->n_ops; i++)
		if (s->ops[i].op.n_reqs)
			s->ops[i].reqs_off -= r0;
	memmove(s->reqv, s->reqv + r0, (s->n_reqv - r0) * sizeof *s->reqv);
	s->n_reqv -= r0;
	for (size_t i = 0; i < s->n_reqs; i++)
		s->reqs[i].op_ix = s->reqs[i].op_ix != SIZE_MAX && s->reqs[i].op_ix >= k ? s->reqs[i].op_ix - k
											  : SIZE_MAX;
	return 0;
}

static int call_end(struct o2_rank *s, uint64_t t)
{
	NL_CHECK(emit_completion(s));
	if (s->n_ops == s->call_first)
		NL_CHECK(call_without_ops(s));
	if (s->n_ops == s->call_first) {
		s->call_region = OTF2_NO_REGION;
		return 0;
	}
	uint64_t t0 = to_ps(s, s->call_t0), t1 = to_ps(s, t);
	for (size_t i = s->call_first; i < s->n_ops; i++) {
		struct trace_op *op = &s->ops[i].op;
		op->flags |= s->call_flags;
		/* Ops after the first (rare: one region with several records)
		 * take no time, at the call's end (as the DUMPI importer does). */
		op->t_ps = i == s->call_first ? t0 : t1;
		op->dur_ps = i == s->call_first && t1 > t0 ? t1 - t0 : 0;
	}
	s->any_op = true;
	s->prev_end_ps = t1 > t0 ? t1 : t0;
	s->call_region = OTF2_NO_REGION;
	return flush_final(s);
}

/* Records outside any MPI region (producers that record no regions) form
 * a call of their own, of zero length. */
static bool begin_record(struct o2_rank *s, uint64_t t, bool *implicit)
{
	s->last_ticks = t;
	*implicit = s->call_region == OTF2_NO_REGION;
	if (*implicit)
		call_start(s, OTF2_NO_REGION, t);
	return true;
}

static OTF2_CallbackCode end_record(struct o2_rank *s, bool implicit, uint64_t t, int rc)
{
	if (!rc && implicit)
		rc = call_end(s, t);
	return rc ? fail(s, rc) : OTF2_CALLBACK_SUCCESS;
}

/* --- callbacks ------------------------------------------------------------------ */

/* The NETLOOM:: attributes of an outermost region's Enter (netloom's
 * export; ignored elsewhere): a compute region's CPU time, a call's
 * probe fields and op flags. */
static void enter_attrs(struct o2_rank *s, const OTF2_AttributeList *al, bool is_call)
{
	const uint32_t *ref = s->im->defs.nl_attr;
	if (!s->im->is_netloom || !al)
		return;
	uint64_t cpu;
	if (!is_call) {
		if (OTF2_AttributeList_GetUint64(al, ref[O2_ATTR_CPU], &cpu) == OTF2_SUCCESS)
			s->gap_cpu_ps += cpu;
		return;
	}
	uint32_t flags;
	if (OTF2_AttributeList_GetUint32(al, ref[O2_ATTR_FLAGS], &flags) == OTF2_SUCCESS)
		s->call_flags = (uint16_t)(flags & (TRACE_F_IN_PLACE | TRACE_F_NO_OUTCOME));
	OTF2_CommRef comm = OTF2_UNDEFINED_COMM;
	bool done = OTF2_AttributeList_GetUint32(al, ref[O2_ATTR_DONE], &s->call_done) == OTF2_SUCCESS;
	s->call_probe = done && OTF2_AttributeList_GetInt32(al, ref[O2_ATTR_PEER], &s->probe_peer) == OTF2_SUCCESS &&
			OTF2_AttributeList_GetInt32(al, ref[O2_ATTR_TAG], &s->probe_tag) == OTF2_SUCCESS &&
			OTF2_AttributeList_GetCommRef(al, ref[O2_ATTR_COMM], &comm) == OTF2_SUCCESS &&
			OTF2_AttributeList_GetUint64(al, ref[O2_ATTR_BYTES], &s->probe_bytes) == OTF2_SUCCESS;
	s->probe_comm = comm;
	s->call_cancel = done && OTF2_AttributeList_GetUint64(al, ref[O2_ATTR_REQUEST], &s->cancel_req) == OTF2_SUCCESS;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
				  OTF2_AttributeList *al, OTF2_RegionRef region)
{
	(void)loc, (void)pos;
	struct o2_rank *s = ud;
	s->last_ticks = t;
	if (!s->have_origin) {
		s->have_origin = true;
		s->origin = t;
	}
	if (!is_mpi_region(s, region)) {
		if (s->depth == 0)
			enter_attrs(s, al, false);
		return OTF2_CALLBACK_SUCCESS;
	}
	if (s->depth++ == 0) {
		call_start(s, region, t);
		enter_attrs(s, al, true);
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
				  OTF2_AttributeList *al, OTF2_RegionRef region)
{
	(void)loc, (void)pos, (void)al;
	struct o2_rank *s = ud;
	s->last_ticks = t;
	if (!is_mpi_region(s, region) || s->depth == 0)
		return OTF2_CALLBACK_SUCCESS;
	if (--s->depth == 0) {
		int rc = call_end(s, t);
		if (rc)
			return fail(s, rc);
	}
	return OTF2_CALLBACK_SUCCESS;
}

static uint16_t send_kind(const struct o2_rank *s, bool nonblocking)
{
	if (nonblocking)
		return call_is(s, "MPI_Issend") ? TOP_ISSEND : TOP_ISEND;
	return call_is(s, "MPI_Ssend") ? TOP_SSEND : call_is(s, "MPI_Bsend") ? TOP_BSEND
		: call_is(s, "MPI_Rsend") ? TOP_RSEND : TOP_SEND;
}

static OTF2_CallbackCode on_send(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
				 OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
				 uint64_t len)
{
	(void)loc, (void)pos, (void)al;
	struct o2_rank *s = ud;
	bool implicit;
	begin_record(s, t, &implicit);
	uint32_t c = 0;
	int rc = comm_of(s, comm, &c, NULL);
	struct o2_op *o = push_op_rc(s, send_kind(s, false), &rc);
	if (o)
		set_p2p(s, o, c, receiver, tag, len);
	return end_record(s, implicit, t, rc);
}

static OTF2_CallbackCode on_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
				  OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
				  uint64_t len, uint64_t req)
{
	(void)loc, (void)pos, (void)al;
	struct o2_rank *s = ud;
	bool implicit;
	begin_record(s, t, &implicit);
	uint32_t c = 0, nl = 0;
	int rc = comm_of(s, comm, &c, NULL);
	if (!rc)
		rc = req_new(s, req, 0, false, &nl);
	struct o2_op *o = push_op_rc(s, send_kind(s, true), &rc);
	if (o) {
		set_p2p(s, o, c, receiver, tag, len);
		o->op.req = nl;
	}
	return end_record(s, implicit, t, rc);
}

static OTF2_CallbackCode on_isend_complete(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
					   OTF2_AttributeList *al, uint64_t req)
{
	(void)loc, (void)pos, (void)al;
	struct o2_rank *s = ud;
	bool implicit;
	begin_record(s, t, &implicit);
	struct o2_req *q = req_find(s, req);
	int rc = q ? req_done(s, q)
		   : nl_errf(s->im->err, NL_EFORMAT,
			     "%s: rank %u: MpiIsendComplete of request %llu, which no MpiIsend created",
			     s->im->path, s->rank, (unsigned long long)req);
	return end_record(s, implicit, t, rc);
}

static OTF2_CallbackCode on_irecv_request(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
					  OTF2_AttributeList *al, uint64_t req)
{
	(void)loc, (void)pos, (void)al;
	struct o2_rank *s = ud;
	bool implicit;
	begin_record(s, t, &implicit);
	uint32_t nl = 0;
	int rc = req_new(s, req, 0, true, &nl);
	struct o2_op *o = push_op_rc(s, TOP_IRECV, &rc);
	if (o) {
		o->op.req = nl;
		o->unresolved = true;
		req_find(s, req)->op_ix = (size_t)(o - s->ops);
	}
	return end_record(s, implicit, t, rc);
}

static OTF2_CallbackCode on_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
				  OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
				  uint64_t len, uint64_t req)
{
	(void)loc, (void)pos, (void)al;
	struct o2_rank *s = ud;
	bool implicit;
	begin_record(s, t, &implicit);
	uint32_t c = 0;
	int rc = comm_of(s, comm, &c, NULL);
	struct o2_req *q = rc ? NULL : req_find(s, req);
	if (!rc && (!q || !q->is_irecv))
		rc = nl_errf(s->im->err, NL_EFORMAT,
			     "%s: rank %u: MpiIrecv completes request %llu, which no MpiIrecvRequest created",
			     s->im->path, s->rank, (unsigned long long)req);
	if (!rc) {
		struct o2_op *o = &s->ops[q->op_ix];
		set_p2p(s, o, c, sender, tag, len);
		o->unresolved = false;
		rc = req_done(s, q);
	}
	return end_record(s, implicit, t, rc);
}

static OTF2_CallbackCode on_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
				 OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
				 uint64_t len)
{
	(void)loc, (void)pos, (void)al;
	struct o2_rank *s = ud;
	bool implicit;
	begin_record(s, t, &implicit);
	uint32_t c = 0;
	int rc = comm_of(s, comm, &c, NULL);
	if (rc)
		return end_record(s, implicit, t, rc);
	/* MPI_Sendrecv: Score-P writes MpiSend then MpiRecv in one region. */
	if (s->n_ops > s->call_first && call_prefix(s, "MPI_Sendrecv") &&
	    s->ops[s->n_ops - 1].op.kind == TOP_SEND && s->ops[s->n_ops - 1].op.comm == c) {
		struct trace_op *op = &s->ops[s->n_ops - 1].op;
		op->kind = TOP_SENDRECV;
		op->recv_peer = peer_of(s, sender);
		op->recv_tag = (int32_t)tag;
		op->recv_bytes = len;
		return end_record(s, implicit, t, 0);
	}
	struct o2_op *o = push_op_rc(s, TOP_RECV, &rc);
	if (o)
		set_p2p(s, o, c, sender, tag, len);
	return end_record(s, implicit, t, rc);
}

static OTF2_CallbackCode on_request_test(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
					 OTF2_AttributeList *al, uint64_t req)
{
	(void)loc, (void)pos, (void)al;
	struct o2_rank *s = ud;
	s->last_ticks = t;
	struct o2_req *q = req_find(s, req);
	if (!q || s->call_region == OTF2_NO_REGION)
		return OTF2_CALLBACK_SUCCESS;
	if (!grow((void **)&s->tested, &s->cap_tested, s->n_tested + 1, sizeof *s->tested))
		return nomem(s);
	s->tested[s->n_tested++] = q->nl;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_request_cancelled(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
					      void *ud, OTF2_AttributeList *al, uint64_t req)
{
	(void)loc, (void)pos, (void)al, (void)req;
	struct o2_rank *s = ud;
	s->last_ticks = t;
	int rc = otf2_skip(s->im, "MPI_Cancel", "MpiRequestCancelled: a cancelled request is not converted", true);
	return rc ? fail(s, rc) : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_program_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
					  OTF2_AttributeList *al, OTF2_StringRef name, uint32_t n_args,
					  const OTF2_StringRef *args)
{
	(void)loc, (void)pos, (void)al, (void)name, (void)n_args, (void)args;
	struct o2_rank *s = ud;
	s->last_ticks = t;
	if (!s->have_origin) {
		s->have_origin = true;
		s->origin = t;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_program_end(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
					OTF2_AttributeList *al, int64_t status)
{
	(void)loc, (void)pos, (void)al, (void)status;
	((struct o2_rank *)ud)->last_ticks = t;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm_create(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
					OTF2_AttributeList *al, OTF2_CommRef comm)
{
	(void)loc, (void)pos, (void)al;
	struct o2_rank *s = ud;
	s->last_ticks = t;
	const struct otf2_comm *c = otf2_comm_find(&s->im->defs, comm);
	if (c)
		s->new_comm = c->nl_id;
	return OTF2_CALLBACK_SUCCESS;
}

/* Score-P's byte totals (SCOREP_MpiCollectiveEnd in its MPI adapter) count
 * what a rank sends to and receives from all members, itself included:
 * bcast root sends N x size, allgather/alltoall/allreduce N x size both
 * ways, gather root receives N x size and scatter root sends N x size.
 * netloom's collectives take the per-rank size, so these are divided by
 * the communicator size N. */
static OTF2_CallbackCode on_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
				     OTF2_AttributeList *al, OTF2_CollectiveOp cop, OTF2_CommRef comm,
				     uint32_t root, uint64_t sent, uint64_t recvd)
{
	(void)loc, (void)pos, (void)al;
	struct o2_rank *s = ud;
	bool implicit;
	begin_record(s, t, &implicit);
	uint32_t c = 0, n = 0;
	int rc = comm_of(s, comm, &c, &n);
	if (rc)
		return end_record(s, implicit, t, rc);
	if (!n)
		n = 1;
	if (s->im->defs.is_eztrace) /* EZTrace writes per-rank sizes (count x type size) */
		n = 1;
	uint16_t kind;
	uint64_t bytes = 0, rbytes = 0;
	bool approx = false;
	switch (cop) {
	case OTF2_COLLECTIVE_OP_BARRIER: kind = TOP_BARRIER; break;
	case OTF2_COLLECTIVE_OP_BCAST: kind = TOP_BCAST; bytes = recvd ? recvd : sent / n; break;
	case OTF2_COLLECTIVE_OP_GATHER: kind = TOP_GATHER; bytes = sent; rbytes = recvd / n; break;
	case OTF2_COLLECTIVE_OP_SCATTER: kind = TOP_SCATTER; bytes = sent / n; rbytes = recvd; break;
	case OTF2_COLLECTIVE_OP_REDUCE: kind = TOP_REDUCE; bytes = sent; break;
	case OTF2_COLLECTIVE_OP_ALLREDUCE: kind = TOP_ALLREDUCE; bytes = sent / n; break;
	case OTF2_COLLECTIVE_OP_ALLGATHER: kind = TOP_ALLGATHER; bytes = sent / n; rbytes = recvd / n; break;
	case OTF2_COLLECTIVE_OP_ALLTOALL: kind = TOP_ALLTOALL; bytes = sent / n; rbytes = recvd / n; break;
	case OTF2_COLLECTIVE_OP_SCAN: kind = TOP_SCAN; bytes = sent; break;
	case OTF2_COLLECTIVE_OP_EXSCAN: kind = TOP_EXSCAN; bytes = sent; break;
	case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: kind = TOP_REDUCE_SCATTER_BLOCK; bytes = sent / n; break;
	/* The v-variants: per-peer sizes are lost; the totals are spread
	 * evenly over the members (docs/trace-format.md, OTF2). */
	case OTF2_COLLECTIVE_OP_GATHERV: kind = TOP_GATHER; bytes = sent; rbytes = recvd / n; approx = true; break;
	case OTF2_COLLECTIVE_OP_SCATTERV: kind = TOP_SCATTER; bytes = sent / n; rbytes = recvd; approx = true; break;
	case OTF2_COLLECTIVE_OP_ALLGATHERV: kind = TOP_ALLGATHER; bytes = sent / n; rbytes = recvd / n; approx = true; break;
	case OTF2_COLLECTIVE_OP_ALLTOALLV:
	case OTF2_COLLECTIVE_OP_ALLTOALLW: kind = TOP_ALLTOALL; bytes = sent / n; rbytes = recvd / n; approx = true; break;
	case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: kind = TOP_REDUCE_SCATTER_BLOCK; bytes = sent / n; approx = true; break;
	case OTF2_COLLECTIVE_OP_CREATE_HANDLE:
	case OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE:
		if (call_prefix(s, "MPI_Init") || s->call_region == OTF2_NO_REGION)
			return end_record(s, implicit, t, 0);
		kind = call_is(s, "MPI_Comm_split") ? TOP_COMM_SPLIT : call_is(s, "MPI_Comm_dup") ? TOP_COMM_DUP
			: call_is(s, "MPI_Comm_create") ? TOP_COMM_CREATE : UINT16_MAX;
		if (kind == UINT16_MAX)
			return end_record(s, implicit, t, otf2_skip(s->im, region_name(s, s->call_region),
						"creates a handle netloom does not replay", false));
		break;
	case OTF2_COLLECTIVE_OP_DESTROY_HANDLE:
	case OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE:
	case OTF2_COLLECTIVE_OP_ALLOCATE:
	case OTF2_COLLECTIVE_OP_DEALLOCATE:
		return end_record(s, implicit, t, 0); /* MPI_Finalize, Comm_free, windows */
	default:
		return end_record(s, implicit, t, otf2_skip(s->im, "MpiCollectiveEnd",
							    "collective operation of unknown type", true));
	}
	if (approx)
		rc = otf2_skip(s->im, region_name(s, s->call_region),
			       "v-variant converted with equal per-rank sizes (totals kept)", false);
	struct o2_op *o = push_op_rc(s, kind, &rc);
	if (o) {
		o->op.comm = c;
		o->op.bytes = bytes;
		o->op.recv_bytes = rbytes;
		if (kind == TOP_BCAST || kind == TOP_GATHER || kind == TOP_SCATTER || kind == TOP_REDUCE)
			o->op.peer = peer_of(s, root);
		if (kind == TOP_COMM_SPLIT || kind == TOP_COMM_DUP || kind == TOP_COMM_CREATE) {
			o->op.bytes = 0;
			o->op.new_comm = s->new_comm;
		}
	}
	return end_record(s, implicit, t, rc);
}

/* --- driver ------------------------------------------------------------------------ */

int otf2_flush_rank(struct otf2_import *im, struct o2_rank *s)
{
	size_t unresolved = 0;
	for (size_t i = 0; i < s->n_ops; i++)
		unresolved += s->ops[i].unresolved;
	if (unresolved)
		return nl_errf(im->err, NL_EFORMAT,
			       "%s: rank %u: %zu MPI_Irecv calls have no MpiIrecv record naming their sender "
			       "(expected Score-P's MpiIrecv completion records; a receive that never completes "
			       "cannot be replayed)",
			       im->path, s->rank, unresolved);
	NL_CHECK(write_ops(im, s, s->n_ops));
	double rt = (double)to_ps(s, s->last_ticks) * 1e-12;
	if (rt > im->runtime_s)
		im->runtime_s = rt;
	return trace_builder_end_rank(im->b, s->rank, im->err);
}

void otf2_rank_release(struct o2_rank *s)
{
	free(s->ops);
	free(s->reqv);
	free(s->done);
	free(s->tested);
	free(s->reqs);
	free(s->free_ids);
	free(s->pend);
}

int otf2_read_rank(struct otf2_import *im, struct OTF2_Reader_struct *reader, struct OTF2_EvtReader_struct *evt,
		   uint32_t rank, struct o2_rank *sp)
{
	struct o2_rank s = {.im = im, .rank = rank, .call_region = OTF2_NO_REGION};
	OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
	if (!cb)
		return nl_errf(im->err, NL_ENOMEM, "out of memory");
	OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
	OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
	OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
	OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_complete);
	OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_request);
	OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
	OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
	OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, on_request_test);
	OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_request_cancelled);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_coll_end);
	OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, on_comm_create);
	OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cb, on_program_begin);
	OTF2_EvtReaderCallbacks_SetProgramEndCallback(cb, on_program_end);
	OTF2_ErrorCode e = OTF2_Reader_RegisterEvtCallbacks(reader, evt, cb, &s);
	OTF2_EvtReaderCallbacks_Delete(cb);
	int rc = 0;
	uint64_t n;
	if (e == OTF2_SUCCESS)
		e = OTF2_Reader_ReadAllLocalEvents(reader, evt, &n);
	if (s.failed)
		rc = s.rc;
	else if (e != OTF2_SUCCESS)
		rc = nl_errf(im->err, NL_ECORRUPT, "%s: rank %u: cannot read events: %s (expected a complete .evt file)",
			     im->path, rank, OTF2_Error_GetDescription(e));
	else if (s.depth)
		rc = nl_errf(im->err, NL_ECORRUPT, "%s: rank %u: events end inside %s (truncated .evt file?)",
			     im->path, rank, region_name(&s, s.call_region));
	*sp = s;
	return rc;
}
