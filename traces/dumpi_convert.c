/* DUMPI import, pass 2: one rank's records to ops (times, compute gaps,
 * datatype sizes, peers, requests); see import_dumpi.c for the rules. */
#include "traces/traces_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

/* Sizes of DUMPI's predefined datatypes on LP64 (MPI_Type_size, so the
 * pair types have no padding): error, null, char, signed char, unsigned
 * char, byte, wchar, short, unsigned short, int, unsigned, long, unsigned
 * long, float, double, long double, long long int, unsigned long long, long
 * long, packed, lb, ub, float_int, double_int, long_int, short_int, 2int,
 * long_double_int. */
static const int8_t dumpi_builtin_size[DUMPI_DT_FIRST_USER] = {0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4,
							  8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20};

static int di_skip(struct dumpi_import *d, unsigned label, const char *why)
{
	const char *name = dumpi_label_name(label);
	if (trace_skips_add(d->skips, name ? name : "?", why, 1))
		return dumpi_nomem(d);
	return 0;
}

/* --- pass 2: records to ops ----------------------------------------------------- */

struct p2 {
	struct dumpi_import *d;
	uint32_t rank;
	struct dumpi_stream *st;
	int64_t *comm;
	uint32_t n_comm;
	int64_t *tsize;     /* derived datatype sizes by handle, -1 unset */
	uint32_t n_tsize;
	size_t res_i;
	bool have_t0, any_op;
	int64_t t0_ns;
	uint64_t prev_end_ps;
	const struct dumpi_rec *r;
};

static int64_t type_size(struct p2 *c, int64_t h)
{
	if (h < 0 || h > UINT16_MAX)
		return -1;
	if (h < c->n_tsize && c->tsize[h] >= 0)
		return c->tsize[h];
	if (h < c->st->n_type_sizes && c->st->type_sizes[h] > 0)
		return c->st->type_sizes[h];
	if (h < DUMPI_DT_FIRST_USER)
		return dumpi_builtin_size[h];
	return -1;
}

static int set_type(struct p2 *c, int64_t h, int64_t size)
{
	if (h < 0 || h > UINT16_MAX)
		return 0;
	if (!dumpi_grow((void **)&c->tsize, &c->n_tsize, (uint32_t)h + 1, sizeof *c->tsize, 0xff))
		return dumpi_nomem(c->d);
	c->tsize[h] = size;
	return 0;
}

/* count x size(type), reporting a type whose size nothing gives. A
 * derived type's size may reach INT64_MAX (define_type), so the product is
 * checked: more than 2^64 bytes is an error, not a wrapped size. */
static int bytes_of(struct p2 *c, int64_t count, int64_t type, uint64_t *out)
{
	int64_t s = type_size(c, type);
	if (s < 0) {
		NL_CHECK(di_skip(c->d, c->r->label, "datatype of unknown size: converted with 0 bytes"));
		s = 0;
	}
	if (count > 0 && __builtin_mul_overflow((uint64_t)count, (uint64_t)s, out))
		return dumpi_rec_err(c->d, c->rank, c->r->off, "%s: %lld elements of %lld bytes overflow 64 bits",
				     dumpi_label_name(c->r->label), (long long)count, (long long)s);
	if (count <= 0)
		*out = 0;
	return 0;
}

/* Type sizes from counts in the file, in checked arithmetic: *acc =
 * *acc * f (mul_size) or *acc + f (add_size); once a step overflows int64,
 * *ovf is set and the result is not used. */
static void mul_size(int64_t *acc, int64_t f, bool *ovf)
{
	*ovf |= __builtin_mul_overflow(*acc, f, acc);
}

static void add_size(int64_t *acc, int64_t f, bool *ovf)
{
	*ovf |= __builtin_add_overflow(*acc, f, acc);
}

/* Derived datatype constructors: remember the new type's size. */
static int define_type(struct p2 *c, const struct dumpi_rec *r)
{
	const struct dumpi_arg *a = r->a;
	const struct dumpi_stream *st = c->st;
	int64_t size = -1, newt = -1;
	bool ovf = false;
	switch (r->label) {
	case DL_Type_contiguous: { /* count old new */
		int64_t s = type_size(c, a[1].v);
		if (s >= 0 && a[0].v >= 0) {
			size = a[0].v;
			mul_size(&size, s, &ovf);
		}
		newt = a[2].v;
		break;
	}
	case DL_Type_vector:
	case DL_Type_hvector:
	case DL_Type_create_hvector: { /* count blocklen stride old new */
		int64_t s = type_size(c, a[3].v);
		if (s >= 0 && a[0].v >= 0 && a[1].v >= 0) {
			size = a[0].v;
			mul_size(&size, a[1].v, &ovf);
			mul_size(&size, s, &ovf);
		}
		newt = a[4].v;
		break;
	}
	case DL_Type_indexed:
	case DL_Type_hindexed:
	case DL_Type_create_hindexed: { /* count lengths[] displs[] old new */
		int64_t s = type_size(c, a[3].v), sum = 0;
		for (uint32_t i = 0; i < a[1].n; i++)
			add_size(&sum, dumpi_arr(st, &a[1], i) > 0 ? dumpi_arr(st, &a[1], i) : 0, &ovf);
		if (s >= 0) {
			size = sum;
			mul_size(&size, s, &ovf);
		}
		newt = a[4].v;
		break;
	}
	case DL_Type_create_indexed_block: { /* count blocklen displs[] old new */
		int64_t s = type_size(c, a[3].v);
		if (s >= 0 && a[0].v >= 0 && a[1].v >= 0) {
			size = a[0].v;
			mul_size(&size, a[1].v, &ovf);
			mul_size(&size, s, &ovf);
		}
		newt = a[4].v;
		break;
	}
	case DL_Type_struct:
	case DL_Type_create_struct: { /* count lengths[] displs types[] new */
		const struct dumpi_arg *types = &a[3];
		int64_t sum = 0;
		bool ok = types->n == a[1].n;
		for (uint32_t i = 0; ok && i < types->n; i++) {
			int64_t s = type_size(c, dumpi_arr(st, types, i)), l = dumpi_arr(st, &a[1], i);
			ok = s >= 0;
			if (ok && l > 0) {
				mul_size(&l, s, &ovf);
				add_size(&sum, l, &ovf);
			}
		}
		if (ok)
			size = sum;
		newt = a[4].v;
		break;
	}
	case DL_Type_dup: /* old new */
		size = type_size(c, a[0].v);
		newt = a[1].v;
		break;
	case DL_Type_create_resized: /* old lb extent new */
		size = type_size(c, a[0].v);
		newt = a[3].v;
		break;
	case DL_Type_create_subarray: { /* ndims sizes[] subsizes[] starts[] order old new */
		int64_t s = type_size(c, a[5].v), prod = 1;
		for (uint32_t i = 0; i < a[2].n && prod >= 0; i++) {
			int64_t v = dumpi_arr(st, &a[2], i);
			if (v < 0)
				prod = -1;
			else
				mul_size(&prod, v, &ovf);
		}
		if (s >= 0 && prod >= 0) {
			size = prod;
			mul_size(&size, s, &ovf);
		}
		newt = a[6].v;
		break;
	}
	case DL_Type_create_darray: /* size depends on the block distribution: table only */
		newt = a[9].v;
		break;
	case DL_Type_free:
		return set_type(c, a[0].v, -1);
	default:
		return 0;
	}
	if (ovf)
		return dumpi_rec_err(c->d, c->rank, r->off, "%s: the new datatype's size overflows 64 bits",
				     dumpi_label_name(r->label));
	return set_type(c, newt, size);
}

/* Emit op with the record's times, preceded by the compute gap. */
static int emit(struct p2 *c, struct trace_op *op, bool whole_record)
{
	const struct dumpi_rec *r = c->r;
	uint64_t t = c->prev_end_ps, dur = 0;
	if (r->has_time && c->have_t0) {
		int64_t s = r->start_ns - c->t0_ns, e = r->stop_ns - c->t0_ns;
		t = s > 0 ? (uint64_t)s * 1000 : 0;
		dur = e > s ? (uint64_t)(e - s) * 1000 : 0;
	}
	if (!whole_record) { /* 2nd.. op of one record (startall): zero length at its end */
		t = c->prev_end_ps;
		dur = 0;
	}
	if (c->any_op && t > c->prev_end_ps) {
		struct trace_op gap = {.kind = TOP_COMPUTE, .t_ps = c->prev_end_ps, .dur_ps = t - c->prev_end_ps};
		NL_CHECK(trace_builder_op(c->d->b, c->rank, &gap, c->d->err));
	}
	op->t_ps = t;
	op->dur_ps = dur;
	c->any_op = true;
	c->prev_end_ps = t + dur;
	if (trace_builder_op(c->d->b, c->rank, op, c->d->err))
		return nl_err_prefix(c->d->err, "%s: rank %u, offset %llu", c->d->paths[c->rank], c->rank,
				     (unsigned long long)r->off);
	return 0;
}

/* Communicator handle -> id; false (and counted) when it cannot be used. */
static int comm_of(struct p2 *c, int64_t h, uint32_t *gid, bool *ok)
{
	int64_t g = dumpi_comm_get(c->comm, c->n_comm, (uint16_t)h);
	*ok = g >= 0 && g != TRACE_COMM_NULL && g != DUMPI_GID_UNKNOWN;
	if (*ok) {
		*gid = (uint32_t)g;
		return 0;
	}
	return di_skip(c->d, c->r->label, "on a communicator netloom could not import");
}

static int32_t dest_of(int64_t v)
{
	return v < 0 ? TRACE_PROC_NULL : (int32_t)v;
}

static int32_t source_of(int64_t v)
{
	return v == -1 ? TRACE_ANY_SOURCE : v < 0 ? TRACE_PROC_NULL : (int32_t)v;
}

static int32_t tag_of(int64_t v)
{
	return v < 0 ? TRACE_ANY_TAG : (int32_t)v;
}

static bool req_null(int64_t v)
{
	return v == DH_REQUEST_NULL || v == 0;
}

static int check_peer(struct p2 *c, int32_t peer, uint32_t gid)
{
	uint32_t size = gid == TRACE_COMM_SELF ? 1 : dumpi_gc_size(c->d, gid);
	if (peer >= 0 && (uint32_t)peer >= size) {
		c->d->is_peer_outside = true;
		return dumpi_rec_err(c->d, c->rank, c->r->off, "%s: peer %d outside its communicator (size %u)",
			       dumpi_label_name(c->r->label), peer, size);
	}
	return 0;
}

static int need_scratch(struct p2 *c, uint32_t n)
{
	struct dumpi_import *d = c->d;
	if (n > d->cap_c) {
		uint64_t *a = realloc(d->c1, n * sizeof *a), *b;
		if (!a)
			return dumpi_nomem(d);
		d->c1 = a;
		b = realloc(d->c2, n * sizeof *b);
		if (!b)
			return dumpi_nomem(d);
		d->c2 = b;
		d->cap_c = n;
	}
	if (n > d->cap_reqs) {
		uint32_t *q = realloc(d->reqs, n * sizeof *q);
		if (!q)
			return dumpi_nomem(d);
		d->reqs = q;
		d->cap_reqs = n;
	}
	return 0;
}

/* Requests of a wait/test family record, completed ones first. Each of
 * the reqs->n slots is listed at most once, so the list fits d->reqs, which
 * need_scratch sized for reqs->n: an index the record gives twice is an
 * error, not a second entry. d->c1 (sized alike) marks the completed slots.
 * Indices outside the array (MPI_UNDEFINED) name no request. */
static int req_list(struct p2 *c, const struct dumpi_arg *reqs, const int64_t *done_idx, uint32_t n_done_idx,
		    struct trace_op *op)
{
	NL_CHECK(need_scratch(c, reqs->n));
	uint64_t *is_done = c->d->c1;
	uint32_t n = 0, done = 0;
	if (reqs->n)
		memset(is_done, 0, reqs->n * sizeof *is_done);
	for (uint32_t k = 0; k < n_done_idx; k++) {
		int64_t i = done_idx[k];
		if (i < 0 || i >= reqs->n)
			continue;
		if (is_done[i])
			return dumpi_rec_err(c->d, c->rank, c->r->off, "%s lists request index %lld twice",
					     dumpi_label_name(c->r->label), (long long)i);
		is_done[i] = 1;
		if (!req_null(dumpi_arr(c->st, reqs, (uint32_t)i)))
			c->d->reqs[n++] = (uint32_t)dumpi_arr(c->st, reqs, (uint32_t)i);
	}
	done = n;
	for (uint32_t i = 0; i < reqs->n; i++) {
		int64_t v = dumpi_arr(c->st, reqs, i);
		if (!req_null(v) && !is_done[i])
			c->d->reqs[n++] = (uint32_t)v;
	}
	op->n_reqs = n;
	op->reqs = c->d->reqs;
	op->n_done = done;
	return 0;
}

/* A v-collective's per-rank counts array, checked against the comm size. */
static int counts(struct p2 *c, const struct dumpi_arg *cnt, const struct dumpi_arg *types, int64_t type,
		  uint32_t gid, uint64_t *dst)
{
	uint32_t size = gid == TRACE_COMM_SELF ? 1 : dumpi_gc_size(c->d, gid);
	if (cnt->n != size || (types && types->n != size))
		return dumpi_rec_err(c->d, c->rank, c->r->off, "%s lists %u counts for a communicator of %u ranks",
			       dumpi_label_name(c->r->label), cnt->n, size);
	for (uint32_t i = 0; i < size; i++)
		NL_CHECK(bytes_of(c, dumpi_arr(c->st, cnt, i), types ? dumpi_arr(c->st, types, i) : type, &dst[i]));
	return 0;
}

/* How far cancel_outcome() looks for the cancelled request's completion. */
#define CANCEL_LOOKAHEAD (1u << 20)

/* The recorded outcome of MPI_Cancel on request `req`: 1 cancelled, 0
 * completed normally, -1 unknown. DUMPI records MPI_Cancel before anyone
 * knows; the outcome is the cancelled field of the status the request's
 * completion returned (or the flag of an MPI_Test_cancelled right after a
 * completion without status), found by reading ahead in the rank's
 * records. A request freed first, or not completed within
 * CANCEL_LOOKAHEAD records, has no outcome. */
static int cancel_outcome(const struct p2 *c, int64_t req)
{
	struct dumpi_stream look = *c->st; /* a cursor of our own: next() allocates nothing */
	struct dumpi_rec r;
	struct nl_err e = {0};
	for (uint32_t k = 0; k < CANCEL_LOOKAHEAD && dumpi_stream_next(&look, &r, &e) == 1; k++) {
		const struct dumpi_arg *a = r.a, *st = NULL;
		uint32_t si = 0;
		bool hit = false;
		switch (r.label) {
		case DL_Request_free:
			if (a[0].v == req)
				return -1;
			break;
		case DL_Wait: /* request status */
		case DL_Test: /* request flag status */
			hit = a[0].v == req && (r.label == DL_Wait || a[1].v);
			st = &a[r.label == DL_Wait ? 1 : 2];
			break;
		case DL_Waitany: /* count requests[] index status */
		case DL_Testany: { /* count requests[] index flag status */
			int64_t i = a[2].v;
			hit = (r.label == DL_Waitany || a[3].v) && i >= 0 && i < a[1].n &&
			      dumpi_arr(&look, &a[1], (uint32_t)i) == req;
			st = &a[r.label == DL_Waitany ? 3 : 4];
			break;
		}
		case DL_Waitall: /* count requests[] statuses */
		case DL_Testall: /* count requests[] flag statuses */
			if (r.label == DL_Testall && !a[2].v)
				break;
			for (uint32_t i = 0; i < a[1].n && !hit; i++)
				if (dumpi_arr(&look, &a[1], i) == req) {
					hit = true;
					si = i;
				}
			st = &a[r.label == DL_Waitall ? 2 : 3];
			break;
		case DL_Waitsome: /* count requests[] outcount indices[] statuses */
		case DL_Testsome:
			for (uint32_t j = 0; j < a[3].n && (int64_t)j < a[2].v && !hit; j++) {
				int64_t i = dumpi_arr(&look, &a[3], j);
				if (i >= 0 && i < a[1].n && dumpi_arr(&look, &a[1], (uint32_t)i) == req) {
					hit = true;
					si = j;
				}
			}
			st = &a[4];
			break;
		default:
			break;
		}
		if (!hit)
			continue;
		if (st->present && si < st->n)
			return dumpi_status_cancelled(&look, st, si);
		if (dumpi_stream_next(&look, &r, &e) == 1 && r.label == DL_Test_cancelled)
			return r.a[1].v != 0;
		return -1;
	}
	return -1;
}

/* Each p2_* below turns one family of records into ops; op arrives
 * zeroed. 0 also when the record is dropped (a communicator it cannot use,
 * counted by comm_of). */

/* Point-to-point sends and receives, blocking, nonblocking and
 * persistent: count datatype peer tag comm [request]. */
static int p2_send_recv(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	static const uint16_t kind[DL_Recv_init + 1] = {
		[DL_Send] = TOP_SEND, [DL_Bsend] = TOP_BSEND, [DL_Ssend] = TOP_SSEND, [DL_Rsend] = TOP_RSEND,
		[DL_Isend] = TOP_ISEND, [DL_Ibsend] = TOP_ISEND, [DL_Issend] = TOP_ISSEND,
		[DL_Irsend] = TOP_ISEND, [DL_Send_init] = TOP_SEND_INIT, [DL_Bsend_init] = TOP_SEND_INIT,
		[DL_Ssend_init] = TOP_SEND_INIT, [DL_Rsend_init] = TOP_SEND_INIT, [DL_Recv] = TOP_RECV,
		[DL_Irecv] = TOP_IRECV, [DL_Recv_init] = TOP_RECV_INIT,
	};
	const struct dumpi_arg *a = r->a;
	bool recv = r->label == DL_Recv || r->label == DL_Irecv || r->label == DL_Recv_init, ok;
	uint32_t gid = 0;
	NL_CHECK(comm_of(c, a[4].v, &gid, &ok));
	if (!ok)
		return 0;
	op->kind = kind[r->label];
	op->comm = gid;
	op->peer = recv ? source_of(a[2].v) : dest_of(a[2].v);
	op->tag = tag_of(a[3].v);
	NL_CHECK(check_peer(c, op->peer, gid));
	NL_CHECK(bytes_of(c, a[0].v, a[1].v, &op->bytes));
	if (r->n_args > 5 && a[5].type == 'i')
		op->req = (uint32_t)a[5].v;
	return emit(c, op, true);
}

/* Wait, Test, Request_free and Start on one request; Cancel, which also
 * carries the cancel's outcome (cancel_outcome). */
static int p2_one_request(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	const struct dumpi_arg *a = r->a;
	if (req_null(a[0].v))
		return di_skip(c->d, r->label, "on MPI_REQUEST_NULL (no effect)");
	op->req = (uint32_t)a[0].v;
	switch (r->label) {
	case DL_Cancel: {
		int outcome = cancel_outcome(c, a[0].v);
		op->kind = TOP_CANCEL;
		op->n_done = outcome > 0;
		op->flags = outcome < 0 ? TRACE_F_NO_OUTCOME : 0;
		break;
	}
	case DL_Test:
		op->kind = TOP_TEST;
		op->n_done = a[1].v != 0;
		break;
	default:
		op->kind = r->label == DL_Wait ? TOP_WAIT : r->label == DL_Start ? TOP_START : TOP_REQUEST_FREE;
		break;
	}
	return emit(c, op, true);
}

/* Startall: one start op per request it lists, the first with the
 * record's times, the others zero length at its end (emit). */
static int p2_startall(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	const struct dumpi_arg *a = r->a;
	bool first = true;
	for (uint32_t i = 0; i < a[1].n; i++) {
		int64_t v = dumpi_arr(c->st, &a[1], i);
		if (req_null(v))
			continue;
		memset(op, 0, sizeof *op);
		op->kind = TOP_START;
		op->req = (uint32_t)v;
		NL_CHECK(emit(c, op, first));
		first = false;
	}
	return 0;
}

/* Waitall, Testall, Waitany, Testany, Waitsome and Testsome: the request
 * list and which of its requests completed. */
static int p2_request_list(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	const struct dumpi_arg *a = r->a;
	switch (r->label) {
	case DL_Waitall: /* count requests[] statuses */
	case DL_Testall: /* count requests[] flag statuses */
		op->kind = r->label == DL_Waitall ? TOP_WAITALL : TOP_TESTALL;
		NL_CHECK(req_list(c, &a[1], NULL, 0, op));
		/* Waitall completed every request it lists (docs/trace-format.md
		 * §6), as the recorder and the OTF2 import write it. */
		if (r->label == DL_Testall)
			op->n_done = a[2].v ? op->n_reqs : 0;
		else
			op->n_done = op->n_reqs;
		break;
	case DL_Waitany: /* count requests[] index status */
	case DL_Testany: { /* count requests[] index flag status */
		int64_t idx = a[2].v;
		bool done = r->label == DL_Waitany || a[3].v;
		op->kind = r->label == DL_Waitany ? TOP_WAITANY : TOP_TESTANY;
		NL_CHECK(req_list(c, &a[1], &idx, done ? 1 : 0, op));
		break;
	}
	default: { /* Waitsome, Testsome: count requests[] outcount indices[] statuses */
		NL_CHECK(need_scratch(c, a[3].n));
		int64_t *idx = malloc((a[3].n ? a[3].n : 1) * sizeof *idx);
		if (!idx)
			return dumpi_nomem(c->d);
		for (uint32_t i = 0; i < a[3].n; i++)
			idx[i] = dumpi_arr(c->st, &a[3], i);
		op->kind = r->label == DL_Waitsome ? TOP_WAITSOME : TOP_TESTSOME;
		int rc = req_list(c, &a[1], idx, a[2].v > 0 ? a[3].n : 0, op);
		free(idx);
		NL_CHECK(rc);
		break;
	}
	}
	return emit(c, op, true);
}

/* Probe (source tag comm status) and Iprobe (source tag comm flag
 * status): the probed message's size from its status. */
static int p2_probe(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	const struct dumpi_arg *a = r->a;
	const struct dumpi_arg *st = &a[r->label == DL_Probe ? 3 : 4];
	uint32_t gid = 0;
	bool ok;
	NL_CHECK(comm_of(c, a[2].v, &gid, &ok));
	if (!ok)
		return 0;
	op->kind = r->label == DL_Probe ? TOP_PROBE : TOP_IPROBE;
	op->comm = gid;
	op->peer = source_of(a[0].v);
	op->tag = tag_of(a[1].v);
	NL_CHECK(check_peer(c, op->peer, gid));
	if (r->label == DL_Iprobe)
		op->n_done = a[3].v != 0;
	if (st->present && st->n && (r->label == DL_Probe || op->n_done)) {
		int32_t b, src;
		dumpi_status(c->st, st, 0, &b, &src);
		op->bytes = b > 0 ? (uint64_t)b : 0;
	}
	return emit(c, op, true);
}

/* Sendrecv (scount stype dest stag rcount rtype source rtag comm status)
 * and Sendrecv_replace (count type dest stag source rtag comm status). */
static int p2_sendrecv(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	const struct dumpi_arg *a = r->a;
	bool rep = r->label == DL_Sendrecv_replace, ok;
	uint32_t gid = 0;
	NL_CHECK(comm_of(c, a[rep ? 6 : 8].v, &gid, &ok));
	if (!ok)
		return 0;
	op->kind = TOP_SENDRECV;
	op->comm = gid;
	op->peer = dest_of(a[2].v);
	op->tag = tag_of(a[3].v);
	op->recv_peer = source_of(a[rep ? 4 : 6].v);
	op->recv_tag = tag_of(a[rep ? 5 : 7].v);
	NL_CHECK(check_peer(c, op->peer, gid));
	NL_CHECK(check_peer(c, op->recv_peer, gid));
	NL_CHECK(bytes_of(c, a[0].v, a[1].v, &op->bytes));
	if (rep)
		op->recv_bytes = op->bytes;
	else
		NL_CHECK(bytes_of(c, a[4].v, a[5].v, &op->recv_bytes));
	return emit(c, op, true);
}

/* Collectives with a root: Bcast (count type root comm), Reduce (count
 * type op root comm), Gather (commrank scount stype root comm [rcount
 * rtype]) and Scatter (commrank rcount rtype root comm [scount stype]). */
static int p2_rooted(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	const struct dumpi_arg *a = r->a;
	bool bcast = r->label == DL_Bcast, red = r->label == DL_Reduce, g = r->label == DL_Gather, ok;
	uint32_t gid = 0;
	NL_CHECK(comm_of(c, a[bcast ? 3 : 4].v, &gid, &ok));
	if (!ok)
		return 0;
	op->kind = bcast ? TOP_BCAST : red ? TOP_REDUCE : g ? TOP_GATHER : TOP_SCATTER;
	op->comm = gid;
	op->peer = (int32_t)a[bcast ? 2 : 3].v;
	NL_CHECK(check_peer(c, op->peer, gid));
	if (bcast || red) {
		NL_CHECK(bytes_of(c, a[0].v, a[1].v, &op->bytes));
		return emit(c, op, true);
	}
	uint64_t mine, root = 0;
	NL_CHECK(bytes_of(c, a[1].v, a[2].v, &mine));
	if (a[5].present)
		NL_CHECK(bytes_of(c, a[5].v, a[6].v, &root));
	op->bytes = g ? mine : root;
	op->recv_bytes = g ? root : mine;
	return emit(c, op, true);
}

/* Gatherv (commrank commsize scount stype root comm [rcounts[] displs[]]
 * rtype) and Scatterv (commrank commsize stype rcount rtype root comm
 * [scounts[] displs[]]): the root's per-rank counts when recorded. */
static int p2_rooted_v(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	const struct dumpi_arg *a = r->a;
	bool g = r->label == DL_Gatherv, ok;
	uint32_t gid = 0;
	NL_CHECK(comm_of(c, a[g ? 5 : 6].v, &gid, &ok));
	if (!ok)
		return 0;
	op->kind = g ? TOP_GATHERV : TOP_SCATTERV;
	op->comm = gid;
	op->peer = (int32_t)a[g ? 4 : 5].v;
	NL_CHECK(check_peer(c, op->peer, gid));
	if (g)
		NL_CHECK(bytes_of(c, a[2].v, a[3].v, &op->bytes));
	else
		NL_CHECK(bytes_of(c, a[3].v, a[4].v, &op->recv_bytes));
	const struct dumpi_arg *cnt = &a[g ? 6 : 7];
	if (cnt->present) {
		NL_CHECK(need_scratch(c, cnt->n));
		NL_CHECK(counts(c, cnt, NULL, g ? a[8].v : a[2].v, gid, c->d->c1));
		op->n_counts = cnt->n;
		if (g)
			op->recv_counts = c->d->c1;
		else
			op->send_counts = c->d->c1;
	}
	return emit(c, op, true);
}

/* Collectives without a root: Barrier (comm), Allreduce, Scan, Exscan
 * (count type op comm), Allgather and Alltoall (scount stype rcount
 * rtype comm). */
static int p2_symmetric(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	const struct dumpi_arg *a = r->a;
	bool ok;
	uint32_t gid = 0;
	NL_CHECK(comm_of(c, a[r->label == DL_Barrier ? 0 : r->label == DL_Allgather || r->label == DL_Alltoall ? 4 : 3].v,
			 &gid, &ok));
	if (!ok)
		return 0;
	op->comm = gid;
	switch (r->label) {
	case DL_Barrier:
		op->kind = TOP_BARRIER;
		break;
	case DL_Allgather:
	case DL_Alltoall:
		op->kind = r->label == DL_Allgather ? TOP_ALLGATHER : TOP_ALLTOALL;
		NL_CHECK(bytes_of(c, a[0].v, a[1].v, &op->bytes));
		NL_CHECK(bytes_of(c, a[2].v, a[3].v, &op->recv_bytes));
		break;
	default:
		op->kind = r->label == DL_Allreduce ? TOP_ALLREDUCE : r->label == DL_Scan ? TOP_SCAN : TOP_EXSCAN;
		NL_CHECK(bytes_of(c, a[0].v, a[1].v, &op->bytes));
		break;
	}
	return emit(c, op, true);
}

/* Collectives with per-rank counts: Allgatherv (commsize scount stype
 * rcounts[] displs[] rtype comm), Alltoallv (commsize scounts[] sdispls[]
 * stype rcounts[] rdispls[] rtype comm), Alltoallw (commsize scounts[]
 * sdispls[] stypes[] rcounts[] rdispls[] rtypes[] comm) and
 * Reduce_scatter (commsize rcounts[] type op comm). */
static int p2_vector(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	const struct dumpi_arg *a = r->a;
	bool ok;
	uint32_t gid = 0;
	NL_CHECK(comm_of(c, a[r->label == DL_Allgatherv ? 6 : r->label == DL_Reduce_scatter ? 4 : 7].v, &gid, &ok));
	if (!ok)
		return 0;
	op->comm = gid;
	switch (r->label) {
	case DL_Allgatherv:
		op->kind = TOP_ALLGATHERV;
		NL_CHECK(bytes_of(c, a[1].v, a[2].v, &op->bytes));
		NL_CHECK(need_scratch(c, a[3].n));
		NL_CHECK(counts(c, &a[3], NULL, a[5].v, gid, c->d->c1));
		op->n_counts = a[3].n;
		op->recv_counts = c->d->c1;
		break;
	case DL_Reduce_scatter:
		op->kind = TOP_REDUCE_SCATTER;
		NL_CHECK(need_scratch(c, a[1].n));
		NL_CHECK(counts(c, &a[1], NULL, a[2].v, gid, c->d->c1));
		op->n_counts = a[1].n;
		op->recv_counts = c->d->c1;
		break;
	default: { /* Alltoallv, Alltoallw */
		bool w = r->label == DL_Alltoallw;
		op->kind = w ? TOP_ALLTOALLW : TOP_ALLTOALLV;
		NL_CHECK(need_scratch(c, a[1].n > a[4].n ? a[1].n : a[4].n));
		NL_CHECK(counts(c, &a[1], w ? &a[3] : NULL, a[3].v, gid, c->d->c1));
		NL_CHECK(counts(c, &a[4], w ? &a[6] : NULL, a[6].v, gid, c->d->c2));
		op->n_counts = a[1].n;
		op->send_counts = c->d->c1;
		op->recv_counts = c->d->c2;
		break;
	}
	}
	return emit(c, op, true);
}

/* A communicator made (Comm_dup, _create, _split, Cart_create, _sub,
 * Graph_create): its id and members are pass 1's result for this call. */
static int p2_comm_create(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	uint16_t parent_h, newh;
	uint32_t gid = 0;
	bool ok;
	struct dumpi_p1_rank *p1 = &c->d->p1[c->rank];
	dumpi_creation(r, &parent_h, &newh);
	if (c->res_i >= p1->n_res)
		NL_BUG("dumpi pass 2 ran past pass 1's results on rank %u", c->rank);
	struct dumpi_cresult res = p1->res[c->res_i++];
	if (!dumpi_comm_set(&c->comm, &c->n_comm, newh, res.gid))
		return dumpi_nomem(c->d);
	NL_CHECK(comm_of(c, parent_h, &gid, &ok));
	if (!ok || res.gid == DUMPI_GID_UNKNOWN)
		return ok ? di_skip(c->d, r->label, "new communicator's members unknown") : 0;
	op->comm = gid;
	op->new_comm = res.gid;
	if (r->label == DL_Comm_split || r->label == DL_Cart_sub) {
		op->kind = TOP_COMM_SPLIT;
		op->color = res.color;
		op->key = res.key;
	} else {
		op->kind = r->label == DL_Comm_dup ? TOP_COMM_DUP : TOP_COMM_CREATE;
	}
	return emit(c, op, true);
}

static int p2_comm_free(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	uint32_t gid = 0;
	bool ok;
	NL_CHECK(comm_of(c, r->a[0].v, &gid, &ok));
	if (!dumpi_comm_set(&c->comm, &c->n_comm, (uint16_t)r->a[0].v, DUMPI_H_NONE))
		return dumpi_nomem(c->d);
	if (!ok)
		return 0;
	op->kind = TOP_COMM_FREE;
	op->comm = gid;
	return emit(c, op, true);
}

/* Init and Init_thread; rank 0's argv names the application (its
 * program's base name) and its command line in the archive's metadata. */
static int p2_init(struct p2 *c, const struct dumpi_rec *r, struct trace_op *op)
{
	const struct dumpi_arg *a = r->a;
	op->kind = TOP_INIT;
	if (c->rank == 0 && a[0].n && !c->d->app[0]) {
		uint32_t len;
		size_t o = 0;
		for (uint32_t i = 0; i < a[0].n; i++) {
			const char *s = dumpi_str(c->st, &a[0], i, &len);
			if (i == 0) {
				const char *b = memrchr(s, '/', len);
				uint32_t bl = b ? len - (uint32_t)(b + 1 - s) : len;
				snprintf(c->d->app, sizeof c->d->app, "%.*s", (int)bl, b ? b + 1 : s);
			}
			o += (size_t)snprintf(c->d->cmd + o, o < sizeof c->d->cmd ? sizeof c->d->cmd - o : 0, "%s%.*s",
					      i ? " " : "", (int)len, s);
			if (o >= sizeof c->d->cmd)
				break;
		}
	}
	return emit(c, op, true);
}

static int p2_record(struct p2 *c, const struct dumpi_rec *r)
{
	struct trace_op op;
	memset(&op, 0, sizeof op);
	c->r = r;

	switch (r->label) {
	case DL_Send: case DL_Bsend: case DL_Ssend: case DL_Rsend:
	case DL_Isend: case DL_Ibsend: case DL_Issend: case DL_Irsend:
	case DL_Send_init: case DL_Bsend_init: case DL_Ssend_init: case DL_Rsend_init:
	case DL_Recv: case DL_Irecv: case DL_Recv_init:
		return p2_send_recv(c, r, &op);
	case DL_Wait: case DL_Test: case DL_Request_free: case DL_Start: case DL_Cancel:
		return p2_one_request(c, r, &op);
	case DL_Test_cancelled:
		return di_skip(c->d, r->label, "a local query: its answer is the outcome of the cancel op");
	case DL_Startall:
		return p2_startall(c, r, &op);
	case DL_Waitall: case DL_Testall: case DL_Waitany: case DL_Testany: case DL_Waitsome: case DL_Testsome:
		return p2_request_list(c, r, &op);
	case DL_Probe: case DL_Iprobe:
		return p2_probe(c, r, &op);
	case DL_Sendrecv: case DL_Sendrecv_replace:
		return p2_sendrecv(c, r, &op);
	case DL_Bcast: case DL_Reduce: case DL_Gather: case DL_Scatter:
		return p2_rooted(c, r, &op);
	case DL_Gatherv: case DL_Scatterv:
		return p2_rooted_v(c, r, &op);
	case DL_Barrier: case DL_Allreduce: case DL_Scan: case DL_Exscan: case DL_Allgather: case DL_Alltoall:
		return p2_symmetric(c, r, &op);
	case DL_Allgatherv: case DL_Alltoallv: case DL_Alltoallw: case DL_Reduce_scatter:
		return p2_vector(c, r, &op);
	case DL_Comm_dup: case DL_Comm_create: case DL_Comm_split:
	case DL_Cart_create: case DL_Graph_create: case DL_Cart_sub:
		return p2_comm_create(c, r, &op);
	case DL_Comm_free:
		return p2_comm_free(c, r, &op);
	case DL_Init: case DL_Init_thread:
		return p2_init(c, r, &op);
	case DL_Finalize:
		op.kind = TOP_FINALIZE;
		return emit(c, &op, true);
	case DL_Type_contiguous: case DL_Type_vector: case DL_Type_hvector: case DL_Type_indexed:
	case DL_Type_hindexed: case DL_Type_struct: case DL_Type_dup: case DL_Type_create_hindexed:
	case DL_Type_create_hvector: case DL_Type_create_indexed_block: case DL_Type_create_resized:
	case DL_Type_create_struct: case DL_Type_create_subarray: case DL_Type_create_darray:
	case DL_Type_free:
		NL_CHECK(define_type(c, r));
		return di_skip(c->d, r->label, "datatype definition: sizes used for later calls");
	case DL_Comm_group: case DL_Group_union: case DL_Group_intersection: case DL_Group_difference:
	case DL_Group_incl: case DL_Group_excl: case DL_Group_range_incl: case DL_Group_range_excl:
	case DL_Group_free:
		return di_skip(c->d, r->label, "group bookkeeping: used for communicator members");
	default:
		return di_skip(c->d, r->label, "no netloom operation; its time counts as compute");
	}
}

int dumpi_pass2_rank(struct dumpi_import *d, uint32_t rank)
{
	struct dumpi_stream st;
	struct dumpi_rec r;
	struct p2 c = {.d = d, .rank = rank, .st = &st};
	int rc = dumpi_stream_open(&st, d->map[rank], d->len[rank], d->paths[rank], rank, d->err);
	if (rc)
		return rc;
	dumpi_init_comm_map(&c.comm, &c.n_comm);
	if (!c.comm) {
		dumpi_stream_release(&st);
		return dumpi_nomem(d);
	}
	while ((rc = dumpi_stream_next(&st, &r, d->err)) == 1) {
		if (r.has_time && !c.have_t0) {
			c.have_t0 = true;
			c.t0_ns = r.start_ns;
		}
		rc = p2_record(&c, &r);
		if (rc)
			break;
		if (r.has_time && r.stop_ns > c.t0_ns) {
			double rt = (double)(r.stop_ns - c.t0_ns) * 1e-9;
			if (rt > d->runtime_s)
				d->runtime_s = rt;
		}
	}
	if (rc == 0)
		rc = trace_builder_end_rank(d->b, rank, d->err);
	free(c.comm);
	free(c.tsize);
	dumpi_stream_release(&st);
	return rc;
}

