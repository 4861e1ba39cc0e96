/* SimGrid time-independent actions to ops: one function per line's
 * action, arguments in SimGrid's order (smpi_replay.cpp *Parser::parse),
 * sizes from SimGrid's datatype ids. The format and its generations are
 * described in import_simgrid.c. */
#include "traces/traces_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/param.h"

/* SimGrid Datatype ids (smpi_datatype.cpp CREATE_MPI_DATATYPE) -> bytes on
 * LP64; -1 is MPI_DATATYPE_NULL (size 0). */
static const uint8_t sg_type_size[] = {
	8, 4, 1, 2, 8, 4, 1, 8, 1, 1,      /* double int char short long float byte llong schar uchar */
	2, 4, 8, 8, 16, 4, 1, 1, 2, 4,     /* ushort unsigned ulong ullong ldouble wchar bool int8 int16 int32 */
	8, 1, 2, 4, 8, 8, 16, 32, 8, 8,    /* int64 uint8..64 cfloat cdouble cldouble aint offset */
	8, 16, 16, 8, 8, 8, 16, 16, 4, 4,  /* float_int long_int double_int short_int 2int 2float 2double 2long real real4 */
	8, 16, 8, 16, 16, 4, 2, 4, 8, 16,  /* real8 real16 complex8 complex16 complex32 integer1 2 4 8 16 */
	32, 1, 8, 16, 32, 0, 0, 1, 8, 8,   /* ldouble_int cxxbool cxxcomplexes ub lb packed ptr count */
};

int simgrid_err(struct simgrid_import *s, const char *fmt, ...)
{
	char what[NL_ERR_MSG_MAX], esc[NL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	/* what quotes the trace's tokens: no raw control or non-UTF-8 bytes */
	return nl_errf(s->err, NL_EFORMAT, "%s:%llu: %s", s->file, (unsigned long long)s->line_no,
		       trace_escape(esc, sizeof esc, what));
}

/* Split a line in place on spaces and tabs. */
int simgrid_tokenize(char *line, char **tok, int max)
{
	int n = 0;
	for (char *p = line; *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			*p++ = '\0';
		if (!*p)
			break;
		if (n == max)
			return -1;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			p++;
	}
	return n;
}

bool simgrid_parse_int(const char *t, long long lo, long long hi, long long *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(t, &end, 10);
	if (errno || !*t || *end || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

/* SimGrid parses sizes as doubles and truncates (parse_integer). Decimal,
 * as the traces SimGrid writes: strtod read C99's hexadecimal floats
 * ('0x1p3' as 8), in sizes and in flops (param_strtod). Below 2^63, as
 * the messages refusing one say (SG_SIZES). */
#define SG_SIZES "0 .. 9.2e18"
static bool parse_size(const char *t, double *v)
{
	char *end;
	errno = 0;
	double x = param_strtod(t, &end);
	if (errno || !*t || *end || !isfinite(x) || fabs(x) > 9.2e18)
		return false;
	*v = trunc(x);
	return true;
}

static bool parse_flops(const char *t, double *v)
{
	char *end;
	errno = 0;
	double x = param_strtod(t, &end);
	if (errno || !*t || *end || !isfinite(x) || x < 0)
		return false;
	*v = x;
	return true;
}

bool simgrid_blank(const char *line)
{
	while (*line == ' ' || *line == '\t' || *line == '\r' || *line == '\n')
		line++;
	return !*line || *line == '#';
}

/* Lower-cased action name (older traces spell "Isend", "waitAll", ...). */
static void lower(char *d, const char *s, size_t cap)
{
	size_t i = 0;
	for (; s[i] && i + 1 < cap; i++)
		d[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	d[i] = '\0';
}

/* Evidence of the format generation from one line (args after rank and
 * action): +1 tagged, -1 untagged, 0 neither. */
int simgrid_generation_hint(const char *act, int n_args)
{
	if (!strcmp(act, "send") || !strcmp(act, "isend") || !strcmp(act, "recv") || !strcmp(act, "irecv"))
		return n_args >= 4 ? 1 : n_args == 2 ? -1 : 0;
	if (!strcmp(act, "wait") || !strcmp(act, "test"))
		return n_args >= 3 ? 1 : n_args == 0 ? -1 : 0;
	return 0;
}

static int sg_dtype(struct simgrid_import *s, uint32_t rank, char **a, int n, int i, uint64_t *size)
{
	long long id;
	if (i >= n) {
		*size = s->ranks[rank].dt_default;
		return 0;
	}
	if (!simgrid_parse_int(a[i], -1, (long long)sizeof sg_type_size - 1, &id))
		return simgrid_err(s, "datatype '%s': expected a SimGrid datatype id (-1 .. %zu)", a[i],
			      sizeof sg_type_size - 1);
	*size = id < 0 ? 0 : sg_type_size[id];
	return 0;
}

static int sg_rank_arg(struct simgrid_import *s, const char *t, const char *what, int32_t *v)
{
	long long x;
	if (!simgrid_parse_int(t, 0, (long long)s->n_ranks - 1, &x)) {
		s->is_rank_count_short = simgrid_parse_int(t, s->n_ranks, SIMGRID_MAX_RANKS - 1, &x);
		return simgrid_err(s, "%s '%s': expected a rank 0 .. %u%s", what, t, s->n_ranks - 1,
			      s->hint ? s->hint : "");
	}
	*v = (int32_t)x;
	return 0;
}

static int sg_new_req(struct simgrid_import *s, struct simgrid_rank *r, int32_t src, int32_t dst, int32_t tag, uint32_t *id)
{
	if (r->n_pend == r->cap_pend) {
		size_t c = r->cap_pend ? 2 * r->cap_pend : 16;
		struct simgrid_pending *t = realloc(r->pend, c * sizeof *t);
		if (!t)
			return nl_errf(s->err, NL_ENOMEM, "out of memory");
		r->pend = t;
		r->cap_pend = c;
	}
	*id = r->n_free ? r->free_ids[--r->n_free] : ++r->next_req;
	r->pend[r->n_pend++] = (struct simgrid_pending){*id, src, dst, tag};
	return 0;
}

static int sg_release_req(struct simgrid_import *s, struct simgrid_rank *r, size_t i)
{
	if (r->n_free == r->cap_free) {
		size_t c = r->cap_free ? 2 * r->cap_free : 16;
		uint32_t *t = realloc(r->free_ids, c * sizeof *t);
		if (!t)
			return nl_errf(s->err, NL_ENOMEM, "out of memory");
		r->free_ids = t;
		r->cap_free = c;
	}
	r->free_ids[r->n_free++] = r->pend[i].req;
	memmove(r->pend + i, r->pend + i + 1, (r->n_pend - i - 1) * sizeof *r->pend);
	r->n_pend--;
	return 0;
}

static int sg_emit(struct simgrid_import *s, uint32_t rank, struct trace_op *op)
{
	int rc = trace_builder_op(s->b, rank, op, s->err);
	if (rc)
		return nl_err_prefix(s->err, "%s:%llu", s->file, (unsigned long long)s->line_no);
	return 0;
}

int simgrid_skip(struct simgrid_import *s, const char *name, const char *why)
{
	if (trace_skips_add(s->skips, name, why, 1))
		return nl_errf(s->err, NL_ENOMEM, "out of memory");
	return 0;
}

/* Need at least `min` arguments after the action. */
#define NEED(min)                                                                                   \
	do {                                                                                        \
		if (n < (min))                                                                      \
			return simgrid_err(s, "%s: expected at least %d arguments, got %d", act, (min), n); \
	} while (0)

/* A count list of another length than n_ranks: more arguments than the
 * action has with n_ranks counts and every optional one. The trace has
 * more ranks than the import counts (an index listing too few files),
 * which the caller says; read on, the counts would be taken for
 * datatypes, roots or flops. */
static int sg_too_many(struct simgrid_import *s, const char *act, int n, int max, const char *what)
{
	s->is_rank_count_short = true;
	return simgrid_err(s, "%s: %d arguments, more than the %d it has with %u rank%s (%s)%s", act, n, max,
			   s->n_ranks, s->n_ranks == 1 ? "" : "s", what, s->hint ? s->hint : "");
}

#define AT_MOST(max, what)                                              \
	do {                                                            \
		if (n > (max))                                          \
			return sg_too_many(s, act, n, (max), (what));   \
	} while (0)

/* *out = v elements of elem bytes (v from parse_size: 0 .. 9.2e18), or
 * an error when the product overflows 64 bits. */
static int sg_bytes(struct simgrid_import *s, const char *what, double v, uint64_t elem, uint64_t *out)
{
	if (__builtin_mul_overflow((uint64_t)v, elem, out))
		return simgrid_err(s, "%s: %.0f elements of %llu bytes overflow 64 bits", what, v,
				   (unsigned long long)elem);
	return 0;
}

/* Read `cnt` counts starting at a[i] into dst (scaled by elem bytes). */
static int sg_counts(struct simgrid_import *s, char **a, int i, uint64_t *dst, uint64_t elem)
{
	for (uint32_t k = 0; k < s->n_ranks; k++) {
		double v;
		if (!parse_size(a[i + (int)k], &v) || v < 0)
			return simgrid_err(s, "count '%s': expected a number of elements " SG_SIZES, a[i + (int)k]);
		NL_CHECK(sg_bytes(s, a[i + (int)k], v, elem, &dst[k]));
	}
	return 0;
}

/* init [X]: MPI_Init; an argument makes MPI_DOUBLE the rank's default
 * datatype. */
static int sg_init(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	struct simgrid_rank *r = &s->ranks[rank];
	(void)act;
	(void)a;
	/* InitAction: an argument selects MPI_DOUBLE as the default type. */
	r->dt_default = n > 0 ? 8 : 1;
	op->kind = TOP_INIT;
	return sg_emit(s, rank, op);
}

/* finalize, barrier: calls without arguments (any given are ignored). */
static int sg_bare(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	(void)a;
	(void)n;
	op->kind = !strcmp(act, "barrier") ? TOP_BARRIER : TOP_FINALIZE;
	return sg_emit(s, rank, op);
}

/* compute FLOPS: work timed by the replay's cpu_flops. */
static int sg_compute(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	NEED(1);
	if (!parse_flops(a[0], &op->flops))
		return simgrid_err(s, "compute '%s': expected a number of flops >= 0", a[0]);
	op->kind = TOP_COMPUTE_FLOPS;
	return sg_emit(s, rank, op);
}

/* sleep SECONDS: a compute interval of that length. */
static int sg_sleep(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	double v;
	NEED(1);
	/* The duration is a u64 of ps: below 2^64 ps (about 213 days).
	 * llround stops at 2^63, and gave 2^63 ps for any longer sleep. */
	if (!parse_flops(a[0], &v) || !(v * 1e12 < 0x1p64))
		return simgrid_err(s, "sleep '%s': expected seconds >= 0 and below 18446744.0737 (2^64 ps)",
				   a[0]);
	op->kind = TOP_COMPUTE;
	op->dur_ps = (uint64_t)round(v * 1e12);
	return sg_emit(s, rank, op);
}

/* send|isend|recv|irecv PARTNER [TAG] SIZE [DATATYPE]: TAG in the traces
 * that carry tags (s->tagged); isend and irecv open a request for wait,
 * test and waitall to find. */
static int sg_point(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	struct simgrid_rank *r = &s->ranks[rank];
	uint64_t e1 = 0;
	double v;
	long long x;
	bool is_send = act[0] == 's' || act[1] == 's';
	int i = 0;
	NEED(s->tagged ? 3 : 2);
	NL_CHECK(sg_rank_arg(s, a[i++], "partner", &op->peer));
	if (s->tagged) {
		if (!simgrid_parse_int(a[i++], 0, INT32_MAX, &x))
			return simgrid_err(s, "tag '%s': expected an integer 0 .. 2147483647", a[i - 1]);
		op->tag = (int32_t)x;
	}
	if (!parse_size(a[i++], &v) || v < -1)
		return simgrid_err(s, "size '%s': expected a number of elements " SG_SIZES " (-1 on a receive: unknown)",
				   a[i - 1]);
	NL_CHECK(sg_dtype(s, rank, a, n, i, &e1));
	if (v < 0) {
		/* RecvAction: -1 means the size was not recorded (probed at replay). */
		if (is_send)
			return simgrid_err(s, "%s size -1: only a receive may have an unknown size", act);
		NL_CHECK(simgrid_skip(s, "recv size -1", "receive size unknown in the trace; converted with 0 bytes"));
		v = 0;
	}
	NL_CHECK(sg_bytes(s, act, v, e1, &op->bytes));
	if (act[0] == 'i') {
		int32_t src = is_send ? (int32_t)rank : op->peer, dst = is_send ? op->peer : (int32_t)rank;
		NL_CHECK(sg_new_req(s, r, src, dst, op->tag, &op->req));
		op->kind = is_send ? TOP_ISEND : TOP_IRECV;
	} else {
		op->kind = is_send ? TOP_SEND : TOP_RECV;
	}
	return sg_emit(s, rank, op);
}

/* wait|test [SRC DST TAG]: the outstanding request it completes (or
 * tests), by (source, destination, tag) when the trace has tags, else the
 * rank's most recent. */
static int sg_wait_test(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	struct simgrid_rank *r = &s->ranks[rank];
	long long x;
	bool is_test = act[0] == 't';
	size_t i = r->n_pend;
	if (s->tagged) {
		int32_t src = 0, dst = 0;
		NEED(3);
		NL_CHECK(sg_rank_arg(s, a[0], "source", &src));
		NL_CHECK(sg_rank_arg(s, a[1], "destination", &dst));
		if (!simgrid_parse_int(a[2], 0, INT32_MAX, &x))
			return simgrid_err(s, "tag '%s': expected an integer 0 .. 2147483647", a[2]);
		/* RequestStorage: FIFO per (src, dst, tag). */
		for (i = 0; i < r->n_pend; i++)
			if (r->pend[i].src == src && r->pend[i].dst == dst && r->pend[i].tag == (int32_t)x)
				break;
	} else if (r->n_pend) {
		i = r->n_pend - 1; /* the most recent request (reqq back) */
	}
	if (i == r->n_pend)
		return simgrid_skip(s, act, "no outstanding isend/irecv matches it (SimGrid ignores it too)");
	op->req = r->pend[i].req;
	if (is_test) {
		op->kind = TOP_TEST;
		op->flags = TRACE_F_NO_OUTCOME;
		return sg_emit(s, rank, op);
	}
	op->kind = TOP_WAIT;
	NL_CHECK(sg_emit(s, rank, op));
	return sg_release_req(s, r, i);
}

/* waitall: every outstanding request of the rank. */
static int sg_waitall(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	struct simgrid_rank *r = &s->ranks[rank];
	(void)act;
	(void)a;
	(void)n;
	/* WaitAllAction: every outstanding request of the rank. */
	if (r->n_pend > s->cap_reqs) {
		uint32_t *t = realloc(s->reqs, r->n_pend * sizeof *t);
		if (!t)
			return nl_errf(s->err, NL_ENOMEM, "out of memory");
		s->reqs = t;
		s->cap_reqs = r->n_pend;
	}
	for (size_t i = 0; i < r->n_pend; i++)
		s->reqs[i] = r->pend[i].req;
	op->kind = TOP_WAITALL;
	op->n_reqs = (uint32_t)r->n_pend;
	op->n_done = op->n_reqs; /* all of them completed (docs/trace-format.md §6) */
	op->reqs = s->reqs;
	NL_CHECK(sg_emit(s, rank, op));
	while (r->n_pend)
		NL_CHECK(sg_release_req(s, r, r->n_pend - 1));
	return 0;
}

/* bcast SIZE [ROOT [DATATYPE]]. */
static int sg_bcast(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	uint64_t e1 = 0;
	double v;
	NEED(1);
	if (!parse_size(a[0], &v) || v < 0)
		return simgrid_err(s, "bcast size '%s': expected a number of elements " SG_SIZES, a[0]);
	if (n > 1)
		NL_CHECK(sg_rank_arg(s, a[1], "root", &op->peer));
	NL_CHECK(sg_dtype(s, rank, a, n, 2, &e1));
	op->kind = TOP_BCAST;
	NL_CHECK(sg_bytes(s, act, v, e1, &op->bytes));
	return sg_emit(s, rank, op);
}

/* reduce|allreduce|scan|exscan COUNT FLOPS [ROOT (reduce)] [DATATYPE]. */
static int sg_reduce(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	uint64_t e1 = 0;
	double v;
	bool rooted = act[0] == 'r';
	NEED(2);
	if (!parse_size(a[0], &v) || v < 0)
		return simgrid_err(s, "%s count '%s': expected a number of elements " SG_SIZES, act, a[0]);
	if (!parse_flops(a[1], &op->flops))
		return simgrid_err(s, "%s computation '%s': expected flops >= 0", act, a[1]);
	if (rooted && n > 2)
		NL_CHECK(sg_rank_arg(s, a[2], "root", &op->peer));
	NL_CHECK(sg_dtype(s, rank, a, n, rooted ? 3 : 2, &e1));
	op->kind = rooted ? TOP_REDUCE : act[0] == 'a' ? TOP_ALLREDUCE : act[0] == 's' ? TOP_SCAN : TOP_EXSCAN;
	NL_CHECK(sg_bytes(s, act, v, e1, &op->bytes));
	return sg_emit(s, rank, op);
}

/* alltoall|allgather|gather|scatter SEND RECV [ROOT (gather, scatter)]
 * [DT1 DT2]: the same sizes on every rank. */
static int sg_fixed(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	uint64_t e1 = 0, e2 = 0;
	double v;
	double v2;
	bool rooted = !strcmp(act, "gather") || !strcmp(act, "scatter");
	NEED(2);
	if (!parse_size(a[0], &v) || v < 0 || !parse_size(a[1], &v2) || v2 < 0)
		return simgrid_err(s, "%s sizes '%s %s': expected numbers of elements", act, a[0], a[1]);
	int i = 2;
	if (rooted) {
		if (n > 2)
			NL_CHECK(sg_rank_arg(s, a[2], "root", &op->peer));
		i = 3;
	}
	NL_CHECK(sg_dtype(s, rank, a, n, i, &e1));
	NL_CHECK(sg_dtype(s, rank, a, n, i + 1, &e2));
	op->kind = !strcmp(act, "alltoall") ? TOP_ALLTOALL : !strcmp(act, "allgather") ? TOP_ALLGATHER
		: !strcmp(act, "gather") ? TOP_GATHER : TOP_SCATTER;
	NL_CHECK(sg_bytes(s, act, v, e1, &op->bytes));
	NL_CHECK(sg_bytes(s, act, v2, e2, &op->recv_bytes));
	return sg_emit(s, rank, op);
}

/* gatherv|allgatherv: a send size and every rank's receive count. */
static int sg_gatherv(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	uint64_t e1 = 0, e2 = 0;
	double v;
	/* GatherVArgParser: send recvcounts[n] [root] [dt1 dt2] (gatherv);
	 * allgatherv: send recvcounts[n] [dt1 dt2] [disps[n]]. */
	int cs = (int)s->n_ranks;
	bool rooted = act[0] == 'g';
	NEED(cs + 1);
	if (rooted)
		AT_MOST(cs + 4, "send, counts, root, 2 datatypes");
	else
		AT_MOST(2 * cs + 3, "send, counts, 2 datatypes, displacements");
	if (!parse_size(a[0], &v) || v < 0)
		return simgrid_err(s, "%s send size '%s': expected a number of elements " SG_SIZES, act, a[0]);
	int ti = 1 + cs;
	if (rooted) {
		if (n > ti)
			NL_CHECK(sg_rank_arg(s, a[ti], "root", &op->peer));
		ti++;
	} else if (n == 1 + cs + cs || n == 1 + cs + 1) {
		/* displacements without datatypes, or a lone datatype:
		 * SimGrid uses the default types in the first case */
		if (n == 1 + cs + cs)
			ti = n;
	}
	NL_CHECK(sg_dtype(s, rank, a, n, ti, &e1));
	NL_CHECK(sg_dtype(s, rank, a, n, ti + 1, &e2));
	NL_CHECK(sg_counts(s, a, 1, s->rc, e2));
	op->kind = rooted ? TOP_GATHERV : TOP_ALLGATHERV;
	NL_CHECK(sg_bytes(s, act, v, e1, &op->bytes));
	op->n_counts = s->n_ranks;
	op->recv_counts = s->rc;
	return sg_emit(s, rank, op);
}

/* scatterv: every rank's send count and a receive size. */
static int sg_scatterv(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	uint64_t e1 = 0, e2 = 0;
	double v;
	/* ScatterVArgParser: sendcounts[n] recv [root] [dt1 dt2]. */
	int cs = (int)s->n_ranks;
	NEED(cs + 1);
	AT_MOST(cs + 4, "counts, receive, root, 2 datatypes");
	if (!parse_size(a[cs], &v) || v < 0)
		return simgrid_err(s, "scatterv receive size '%s': expected a number of elements " SG_SIZES, a[cs]);
	if (n > cs + 1)
		NL_CHECK(sg_rank_arg(s, a[cs + 1], "root", &op->peer));
	NL_CHECK(sg_dtype(s, rank, a, n, cs + 2, &e1));
	NL_CHECK(sg_dtype(s, rank, a, n, cs + 3, &e2));
	NL_CHECK(sg_counts(s, a, 0, s->sc, e1));
	op->kind = TOP_SCATTERV;
	NL_CHECK(sg_bytes(s, act, v, e2, &op->recv_bytes));
	op->n_counts = s->n_ranks;
	op->send_counts = s->sc;
	return sg_emit(s, rank, op);
}

/* alltoallv: every rank's send and receive counts. */
static int sg_alltoallv(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	uint64_t e1 = 0, e2 = 0;
	/* AllToAllVArgParser: sendbuf sendcounts[n] recvbuf recvcounts[n] [dt1 dt2]. */
	int cs = (int)s->n_ranks;
	NEED(2 * cs + 2);
	AT_MOST(2 * cs + 4, "send buffer, counts, receive buffer, counts, 2 datatypes");
	NL_CHECK(sg_dtype(s, rank, a, n, 2 * cs + 2, &e1));
	NL_CHECK(sg_dtype(s, rank, a, n, 2 * cs + 3, &e2));
	NL_CHECK(sg_counts(s, a, 1, s->sc, e1));
	NL_CHECK(sg_counts(s, a, cs + 2, s->rc, e2));
	op->kind = TOP_ALLTOALLV;
	op->n_counts = s->n_ranks;
	op->send_counts = s->sc;
	op->recv_counts = s->rc;
	return sg_emit(s, rank, op);
}

/* reducescatter: every rank's receive count and the reduction's flops. */
static int sg_reducescatter(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	uint64_t e1 = 0;
	/* ReduceScatterArgParser: recvcounts[n] comp [dt]. */
	int cs = (int)s->n_ranks;
	NEED(cs + 1);
	AT_MOST(cs + 2, "counts, computation, datatype");
	if (!parse_flops(a[cs], &op->flops))
		return simgrid_err(s, "reducescatter computation '%s': expected flops >= 0", a[cs]);
	NL_CHECK(sg_dtype(s, rank, a, n, cs + 1, &e1));
	NL_CHECK(sg_counts(s, a, 0, s->rc, e1));
	op->kind = TOP_REDUCE_SCATTER;
	op->n_counts = s->n_ranks;
	op->recv_counts = s->rc;
	return sg_emit(s, rank, op);
}

/* sendrecv: a send and a receive, each with its own peer and size. */
static int sg_sendrecv(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op)
{
	uint64_t e1 = 0, e2 = 0;
	double v;
	/* SendRecvParser: sendcount dst recvcount src [dt1 [dt2]]; tags 0. */
	double v2;
	NEED(4);
	if (!parse_size(a[0], &v) || v < 0 || !parse_size(a[2], &v2) || v2 < 0)
		return simgrid_err(s, "sendRecv counts '%s %s': expected numbers of elements", a[0], a[2]);
	NL_CHECK(sg_rank_arg(s, a[1], "destination", &op->peer));
	NL_CHECK(sg_rank_arg(s, a[3], "source", &op->recv_peer));
	NL_CHECK(sg_dtype(s, rank, a, n, 4, &e1));
	NL_CHECK(sg_dtype(s, rank, a, n, 5, &e2));
	op->kind = TOP_SENDRECV;
	NL_CHECK(sg_bytes(s, act, v, e1, &op->bytes));
	NL_CHECK(sg_bytes(s, act, v2, e2, &op->recv_bytes));
	return sg_emit(s, rank, op);
}

/* The actions SimGrid's replay knows (src/smpi/internals/smpi_replay.cpp's
 * names, lower case): each converted by fn, or (fn NULL) skipped for the
 * reason given. */
static const struct sg_action {
	const char *name;
	int (*fn)(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n, struct trace_op *op);
	const char *skip;
} sg_actions[] = {
	{"init", sg_init, NULL},
	{"finalize", sg_bare, NULL},
	{"compute", sg_compute, NULL},
	{"sleep", sg_sleep, NULL},
	{"send", sg_point, NULL},
	{"isend", sg_point, NULL},
	{"recv", sg_point, NULL},
	{"irecv", sg_point, NULL},
	{"wait", sg_wait_test, NULL},
	{"test", sg_wait_test, NULL},
	{"waitall", sg_waitall, NULL},
	{"barrier", sg_bare, NULL},
	{"bcast", sg_bcast, NULL},
	{"reduce", sg_reduce, NULL},
	{"allreduce", sg_reduce, NULL},
	{"scan", sg_reduce, NULL},
	{"exscan", sg_reduce, NULL},
	{"alltoall", sg_fixed, NULL},
	{"allgather", sg_fixed, NULL},
	{"gather", sg_fixed, NULL},
	{"scatter", sg_fixed, NULL},
	{"gatherv", sg_gatherv, NULL},
	{"allgatherv", sg_gatherv, NULL},
	{"scatterv", sg_scatterv, NULL},
	{"alltoallv", sg_alltoallv, NULL},
	{"reducescatter", sg_reducescatter, NULL},
	{"sendrecv", sg_sendrecv, NULL},
	{"comm_size", NULL, "informational; SimGrid's replay ignores it"},
	{"comm_split", NULL, "the trace does not record the new communicator's members"},
	{"comm_dup", NULL, "the trace does not record the new communicator's members"},
	{"location", NULL, "source location marker"},
};

/* One action of `rank`; a[0..n) are its arguments (after rank and name). */
int simgrid_action(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n)
{
	struct trace_op op;
	memset(&op, 0, sizeof op);
	for (size_t i = 0; i < sizeof sg_actions / sizeof *sg_actions; i++)
		if (!strcmp(act, sg_actions[i].name))
			return sg_actions[i].fn ? sg_actions[i].fn(s, rank, act, a, n, &op) : simgrid_skip(s, act, sg_actions[i].skip);
	return simgrid_err(s, "unknown action '%s' (SimGrid's replay would stop here too)", act);
}

/* Canonical action name: lower case, which maps the older spellings
 * (Isend, waitAll, allToAllV, sendRecv, ...) onto today's. */
const char *simgrid_canonical(const char *raw, char *buf, size_t cap)
{
	lower(buf, raw, cap);
	return buf;
}

