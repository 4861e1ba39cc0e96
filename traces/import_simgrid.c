/* Importer "simgrid": SimGrid time-independent (TI) traces, the text format
 * SMPI's replay reads (simgrid/simgrid src/smpi/internals/smpi_replay.cpp,
 * src/xbt/xbt_replay.cpp; docs/source/app_smpi.rst "Offline SMPI").
 *
 * Input: an actions file ("<rank> <action> args..." lines, one or several
 * ranks) or an index file listing one actions file per rank (line i is
 * rank i). Blank lines and lines starting with '#' are skipped, fields are
 * separated by spaces or tabs, as in xbt_replay.
 *
 * Sizes in the trace are element counts of the datatype given as an
 * optional trailing id (SimGrid's Datatype ids, sized as on x86-64, where
 * SMPI runs) or, when absent, of the default type: MPI_BYTE, or MPI_DOUBLE
 * once the rank's `init` carries an argument (InitAction). Traces have no
 * times, so every op has t = dur = 0, and `compute F` becomes
 * TOP_COMPUTE_FLOPS.
 *
 * Two generations of the format exist: before SimGrid 3.20 (March 2018,
 * commit b55fc9b "Replay: Enable usage of tags") point-to-point actions had
 * no tag ("send dst size [dt]") and wait/test took no arguments and applied
 * to the last request; since then "send dst tag size [dt]" and "wait src dst
 * tag". The generation is decided once per trace from the argument counts;
 * a trace that shows both is refused.
 */
#include "traces/traces_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/error.h"

#define SG_MAX_RANKS (1u << 20)
#define SG_MAX_TOKENS 4096

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

struct sg_pending {
	uint32_t req;
	int32_t src, dst, tag;
};

struct sg_rank {
	uint32_t dt_default;        /* bytes of the default datatype */
	struct sg_pending *pend;    /* outstanding isend/irecv, oldest first */
	size_t n_pend, cap_pend;
	uint32_t *free_ids;         /* request ids to reuse */
	size_t n_free, cap_free;
	uint32_t next_req;
};

struct sg {
	const char *file;           /* current input, for messages */
	uint64_t line_no;
	struct nl_err *err;
	uint32_t n_ranks;
	int tagged;                 /* 1 tagged (>= 3.20), 0 untagged, -1 undecided */
	struct trace_builder *b;
	struct trace_skips *skips;
	struct sg_rank *ranks;
	uint64_t *sc, *rc;          /* count scratch [n_ranks] */
	uint32_t *reqs;
	size_t cap_reqs;
	const char *hint;           /* appended to out-of-range rank errors */
};

static int sg_err(struct sg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sg_err(struct sg *s, const char *fmt, ...)
{
	char what[NL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return nl_errf(s->err, NL_EFORMAT, "%s:%llu: %s", s->file, (unsigned long long)s->line_no, what);
}

/* Split a line in place on spaces and tabs. */
static int tokenize(char *line, char **tok, int max)
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

static bool parse_int(const char *t, long long lo, long long hi, long long *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(t, &end, 10);
	if (errno || !*t || *end || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

/* SimGrid parses sizes as doubles and truncates (parse_integer). */
static bool parse_size(const char *t, double *v)
{
	char *end;
	errno = 0;
	double x = strtod(t, &end);
	if (errno || !*t || *end || !isfinite(x) || fabs(x) > 9.2e18)
		return false;
	*v = trunc(x);
	return true;
}

static bool parse_flops(const char *t, double *v)
{
	char *end;
	errno = 0;
	double x = strtod(t, &end);
	if (errno || !*t || *end || !isfinite(x) || x < 0)
		return false;
	*v = x;
	return true;
}

static bool is_comment_or_blank(const char *line)
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
static int generation_hint(const char *act, int n_args)
{
	if (!strcmp(act, "send") || !strcmp(act, "isend") || !strcmp(act, "recv") || !strcmp(act, "irecv"))
		return n_args >= 4 ? 1 : n_args == 2 ? -1 : 0;
	if (!strcmp(act, "wait") || !strcmp(act, "test"))
		return n_args >= 3 ? 1 : n_args == 0 ? -1 : 0;
	return 0;
}

static int sg_dtype(struct sg *s, uint32_t rank, char **a, int n, int i, uint64_t *size)
{
	long long id;
	if (i >= n) {
		*size = s->ranks[rank].dt_default;
		return 0;
	}
	if (!parse_int(a[i], -1, (long long)sizeof sg_type_size - 1, &id))
		return sg_err(s, "datatype '%s': expected a SimGrid datatype id (-1 .. %zu)", a[i],
			      sizeof sg_type_size - 1);
	*size = id < 0 ? 0 : sg_type_size[id];
	return 0;
}

static int sg_rank_arg(struct sg *s, const char *t, const char *what, int32_t *v)
{
	long long x;
	if (!parse_int(t, 0, (long long)s->n_ranks - 1, &x))
		return sg_err(s, "%s '%s': expected a rank 0 .. %u%s", what, t, s->n_ranks - 1,
			      s->hint ? s->hint : "");
	*v = (int32_t)x;
	return 0;
}

static int sg_new_req(struct sg *s, struct sg_rank *r, int32_t src, int32_t dst, int32_t tag, uint32_t *id)
{
	if (r->n_pend == r->cap_pend) {
		size_t c = r->cap_pend ? 2 * r->cap_pend : 16;
		struct sg_pending *t = realloc(r->pend, c * sizeof *t);
		if (!t)
			return nl_errf(s->err, NL_ENOMEM, "out of memory");
		r->pend = t;
		r->cap_pend = c;
	}
	*id = r->n_free ? r->free_ids[--r->n_free] : ++r->next_req;
	r->pend[r->n_pend++] = (struct sg_pending){*id, src, dst, tag};
	return 0;
}

static int sg_release_req(struct sg *s, struct sg_rank *r, size_t i)
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

static int sg_emit(struct sg *s, uint32_t rank, struct trace_op *op)
{
	int rc = trace_builder_op(s->b, rank, op, s->err);
	if (rc)
		return nl_err_prefix(s->err, "%s:%llu", s->file, (unsigned long long)s->line_no);
	return 0;
}

static int sg_skip(struct sg *s, const char *name, const char *why)
{
	if (trace_skips_add(s->skips, name, why, 1))
		return nl_errf(s->err, NL_ENOMEM, "out of memory");
	return 0;
}

/* Need at least `min` arguments after the action. */
#define NEED(min)                                                                                   \
	do {                                                                                        \
		if (n < (min))                                                                      \
			return sg_err(s, "%s: expected at least %d arguments, got %d", act, (min), n); \
	} while (0)

/* Read `cnt` counts starting at a[i] into dst (scaled by elem bytes). */
static int sg_counts(struct sg *s, char **a, int i, uint64_t *dst, uint64_t elem)
{
	for (uint32_t k = 0; k < s->n_ranks; k++) {
		double v;
		if (!parse_size(a[i + (int)k], &v) || v < 0)
			return sg_err(s, "count '%s': expected a non-negative number", a[i + (int)k]);
		dst[k] = (uint64_t)v * elem;
	}
	return 0;
}

/* One action of `rank`; a[0..n) are its arguments (after rank and name). */
static int sg_action(struct sg *s, uint32_t rank, const char *act, char **a, int n)
{
	struct sg_rank *r = &s->ranks[rank];
	struct trace_op op;
	uint64_t e1, e2;
	double v;
	long long x;
	memset(&op, 0, sizeof op);

	if (!strcmp(act, "init")) {
		/* InitAction: an argument selects MPI_DOUBLE as the default type. */
		r->dt_default = n > 0 ? 8 : 1;
		op.kind = TOP_INIT;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "finalize")) {
		op.kind = TOP_FINALIZE;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "compute")) {
		NEED(1);
		if (!parse_flops(a[0], &op.flops))
			return sg_err(s, "compute '%s': expected a number of flops >= 0", a[0]);
		op.kind = TOP_COMPUTE_FLOPS;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "sleep")) {
		NEED(1);
		if (!parse_flops(a[0], &v) || v > 1.8e7)
			return sg_err(s, "sleep '%s': expected seconds >= 0", a[0]);
		op.kind = TOP_COMPUTE;
		op.dur_ps = (uint64_t)llround(v * 1e12);
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "send") || !strcmp(act, "isend") || !strcmp(act, "recv") || !strcmp(act, "irecv")) {
		bool is_send = act[0] == 's' || act[1] == 's';
		int i = 0;
		NEED(s->tagged ? 3 : 2);
		NL_CHECK(sg_rank_arg(s, a[i++], "partner", &op.peer));
		if (s->tagged) {
			if (!parse_int(a[i++], 0, INT32_MAX, &x))
				return sg_err(s, "tag '%s': expected an integer >= 0", a[i - 1]);
			op.tag = (int32_t)x;
		}
		if (!parse_size(a[i++], &v) || v < -1)
			return sg_err(s, "size '%s': expected a number of elements", a[i - 1]);
		NL_CHECK(sg_dtype(s, rank, a, n, i, &e1));
		if (v < 0) {
			/* RecvAction: -1 means the size was not recorded (probed at replay). */
			if (is_send)
				return sg_err(s, "%s size -1: only a receive may have an unknown size", act);
			NL_CHECK(sg_skip(s, "recv size -1", "receive size unknown in the trace; converted with 0 bytes"));
			v = 0;
		}
		op.bytes = (uint64_t)v * e1;
		if (act[0] == 'i') {
			int32_t src = is_send ? (int32_t)rank : op.peer, dst = is_send ? op.peer : (int32_t)rank;
			NL_CHECK(sg_new_req(s, r, src, dst, op.tag, &op.req));
			op.kind = is_send ? TOP_ISEND : TOP_IRECV;
		} else {
			op.kind = is_send ? TOP_SEND : TOP_RECV;
		}
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "wait") || !strcmp(act, "test")) {
		bool is_test = act[0] == 't';
		size_t i = r->n_pend;
		if (s->tagged) {
			int32_t src = 0, dst = 0;
			NEED(3);
			NL_CHECK(sg_rank_arg(s, a[0], "source", &src));
			NL_CHECK(sg_rank_arg(s, a[1], "destination", &dst));
			if (!parse_int(a[2], 0, INT32_MAX, &x))
				return sg_err(s, "tag '%s': expected an integer >= 0", a[2]);
			/* RequestStorage: FIFO per (src, dst, tag). */
			for (i = 0; i < r->n_pend; i++)
				if (r->pend[i].src == src && r->pend[i].dst == dst && r->pend[i].tag == (int32_t)x)
					break;
		} else if (r->n_pend) {
			i = r->n_pend - 1; /* the most recent request (reqq back) */
		}
		if (i == r->n_pend)
			return sg_skip(s, act, "no outstanding isend/irecv matches it (SimGrid ignores it too)");
		op.req = r->pend[i].req;
		if (is_test) {
			op.kind = TOP_TEST;
			op.flags = TRACE_F_NO_OUTCOME;
			return sg_emit(s, rank, &op);
		}
		op.kind = TOP_WAIT;
		NL_CHECK(sg_emit(s, rank, &op));
		return sg_release_req(s, r, i);
	}
	if (!strcmp(act, "waitall")) {
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
		op.kind = TOP_WAITALL;
		op.n_reqs = (uint32_t)r->n_pend;
		op.reqs = s->reqs;
		NL_CHECK(sg_emit(s, rank, &op));
		while (r->n_pend)
			NL_CHECK(sg_release_req(s, r, r->n_pend - 1));
		return 0;
	}
	if (!strcmp(act, "barrier")) {
		op.kind = TOP_BARRIER;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "bcast")) {
		NEED(1);
		if (!parse_size(a[0], &v) || v < 0)
			return sg_err(s, "bcast size '%s': expected a number of elements", a[0]);
		if (n > 1)
			NL_CHECK(sg_rank_arg(s, a[1], "root", &op.peer));
		NL_CHECK(sg_dtype(s, rank, a, n, 2, &e1));
		op.kind = TOP_BCAST;
		op.bytes = (uint64_t)v * e1;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "reduce") || !strcmp(act, "allreduce") || !strcmp(act, "scan") ||
	    !strcmp(act, "exscan")) {
		bool rooted = act[0] == 'r';
		NEED(2);
		if (!parse_size(a[0], &v) || v < 0)
			return sg_err(s, "%s count '%s': expected a number of elements", act, a[0]);
		if (!parse_flops(a[1], &op.flops))
			return sg_err(s, "%s computation '%s': expected flops >= 0", act, a[1]);
		if (rooted && n > 2)
			NL_CHECK(sg_rank_arg(s, a[2], "root", &op.peer));
		NL_CHECK(sg_dtype(s, rank, a, n, rooted ? 3 : 2, &e1));
		op.kind = rooted ? TOP_REDUCE : act[0] == 'a' ? TOP_ALLREDUCE : act[0] == 's' ? TOP_SCAN : TOP_EXSCAN;
		op.bytes = (uint64_t)v * e1;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "alltoall") || !strcmp(act, "allgather") || !strcmp(act, "gather") ||
	    !strcmp(act, "scatter")) {
		double v2;
		bool rooted = !strcmp(act, "gather") || !strcmp(act, "scatter");
		NEED(2);
		if (!parse_size(a[0], &v) || v < 0 || !parse_size(a[1], &v2) || v2 < 0)
			return sg_err(s, "%s sizes '%s %s': expected numbers of elements", act, a[0], a[1]);
		int i = 2;
		if (rooted) {
			if (n > 2)
				NL_CHECK(sg_rank_arg(s, a[2], "root", &op.peer));
			i = 3;
		}
		NL_CHECK(sg_dtype(s, rank, a, n, i, &e1));
		NL_CHECK(sg_dtype(s, rank, a, n, i + 1, &e2));
		op.kind = !strcmp(act, "alltoall") ? TOP_ALLTOALL : !strcmp(act, "allgather") ? TOP_ALLGATHER
			: !strcmp(act, "gather") ? TOP_GATHER : TOP_SCATTER;
		op.bytes = (uint64_t)v * e1;
		op.recv_bytes = (uint64_t)v2 * e2;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "gatherv") || !strcmp(act, "allgatherv")) {
		/* GatherVArgParser: send recvcounts[n] [root] [dt1 dt2] (gatherv);
		 * allgatherv: send recvcounts[n] [dt1 dt2] [disps[n]]. */
		int cs = (int)s->n_ranks;
		bool rooted = act[0] == 'g';
		NEED(cs + 1);
		if (!parse_size(a[0], &v) || v < 0)
			return sg_err(s, "%s send size '%s': expected a number of elements", act, a[0]);
		int ti = 1 + cs;
		if (rooted) {
			if (n > ti)
				NL_CHECK(sg_rank_arg(s, a[ti], "root", &op.peer));
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
		op.kind = rooted ? TOP_GATHERV : TOP_ALLGATHERV;
		op.bytes = (uint64_t)v * e1;
		op.n_counts = s->n_ranks;
		op.recv_counts = s->rc;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "scatterv")) {
		/* ScatterVArgParser: sendcounts[n] recv [root] [dt1 dt2]. */
		int cs = (int)s->n_ranks;
		NEED(cs + 1);
		if (!parse_size(a[cs], &v) || v < 0)
			return sg_err(s, "scatterv receive size '%s': expected a number of elements", a[cs]);
		if (n > cs + 1)
			NL_CHECK(sg_rank_arg(s, a[cs + 1], "root", &op.peer));
		NL_CHECK(sg_dtype(s, rank, a, n, cs + 2, &e1));
		NL_CHECK(sg_dtype(s, rank, a, n, cs + 3, &e2));
		NL_CHECK(sg_counts(s, a, 0, s->sc, e1));
		op.kind = TOP_SCATTERV;
		op.recv_bytes = (uint64_t)v * e2;
		op.n_counts = s->n_ranks;
		op.send_counts = s->sc;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "alltoallv")) {
		/* AllToAllVArgParser: sendbuf sendcounts[n] recvbuf recvcounts[n] [dt1 dt2]. */
		int cs = (int)s->n_ranks;
		NEED(2 * cs + 2);
		NL_CHECK(sg_dtype(s, rank, a, n, 2 * cs + 2, &e1));
		NL_CHECK(sg_dtype(s, rank, a, n, 2 * cs + 3, &e2));
		NL_CHECK(sg_counts(s, a, 1, s->sc, e1));
		NL_CHECK(sg_counts(s, a, cs + 2, s->rc, e2));
		op.kind = TOP_ALLTOALLV;
		op.n_counts = s->n_ranks;
		op.send_counts = s->sc;
		op.recv_counts = s->rc;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "reducescatter")) {
		/* ReduceScatterArgParser: recvcounts[n] comp [dt]. */
		int cs = (int)s->n_ranks;
		NEED(cs + 1);
		if (!parse_flops(a[cs], &op.flops))
			return sg_err(s, "reducescatter computation '%s': expected flops >= 0", a[cs]);
		NL_CHECK(sg_dtype(s, rank, a, n, cs + 1, &e1));
		NL_CHECK(sg_counts(s, a, 0, s->rc, e1));
		op.kind = TOP_REDUCE_SCATTER;
		op.n_counts = s->n_ranks;
		op.recv_counts = s->rc;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "sendrecv")) {
		/* SendRecvParser: sendcount dst recvcount src [dt1 [dt2]]; tags 0. */
		double v2;
		NEED(4);
		if (!parse_size(a[0], &v) || v < 0 || !parse_size(a[2], &v2) || v2 < 0)
			return sg_err(s, "sendRecv counts '%s %s': expected numbers of elements", a[0], a[2]);
		NL_CHECK(sg_rank_arg(s, a[1], "destination", &op.peer));
		NL_CHECK(sg_rank_arg(s, a[3], "source", &op.recv_peer));
		NL_CHECK(sg_dtype(s, rank, a, n, 4, &e1));
		NL_CHECK(sg_dtype(s, rank, a, n, 5, &e2));
		op.kind = TOP_SENDRECV;
		op.bytes = (uint64_t)v * e1;
		op.recv_bytes = (uint64_t)v2 * e2;
		return sg_emit(s, rank, &op);
	}
	if (!strcmp(act, "comm_size"))
		return sg_skip(s, act, "informational; SimGrid's replay ignores it");
	if (!strcmp(act, "comm_split") || !strcmp(act, "comm_dup"))
		return sg_skip(s, act, "the trace does not record the new communicator's members");
	if (!strcmp(act, "location"))
		return sg_skip(s, act, "source location marker");
	return sg_err(s, "unknown action '%s' (SimGrid's replay would stop here too)", act);
}

/* Canonical action name: lower case, with the older spellings mapped. */
static const char *canonical(const char *raw, char *buf, size_t cap)
{
	lower(buf, raw, cap);
	if (!strcmp(buf, "sendrecv"))
		return "sendrecv";
	return buf;
}

/* Parse one non-comment line; rank_filter >= 0 keeps only that rank's
 * lines (per-rank files), counting the others. */
static int sg_line(struct sg *s, char *line, int64_t rank_filter)
{
	char *tok[SG_MAX_TOKENS];
	char name[32];
	long long rk;
	int n = tokenize(line, tok, SG_MAX_TOKENS);
	if (n < 0)
		return sg_err(s, "more than %d fields on one line", SG_MAX_TOKENS);
	if (n == 0)
		return 0;
	if (n < 2 || !parse_int(tok[0], 0, (long long)s->n_ranks - 1, &rk))
		return sg_err(s, "expected '<rank> <action> ...' with a rank 0 .. %u", s->n_ranks - 1);
	if (rank_filter >= 0 && rk != rank_filter)
		return sg_skip(s, "line for another rank", "xbt_replay ignores lines not for the file's rank");
	return sg_action(s, (uint32_t)rk, canonical(tok[1], name, sizeof name), tok + 2, n - 2);
}

/* First pass over one file: max rank id and the generation evidence. */
static int sg_prescan(struct sg *s, FILE *f, long long *max_rank, int *hint_tag, int *hint_untag)
{
	char *line = NULL, *tok[8];
	size_t cap = 0;
	char name[32];
	s->line_no = 0;
	while (getline(&line, &cap, f) >= 0) {
		s->line_no++;
		if (is_comment_or_blank(line))
			continue;
		/* Only the first few fields matter here; the count of fields is
		 * taken from a second tokenisation limited to what is needed. */
		int n = 0;
		for (char *p = line; *p;) {
			while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
				p++;
			if (!*p)
				break;
			if (n < 8)
				tok[n] = p;
			n++;
			while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
				p++;
			if (*p)
				*p++ = '\0';
		}
		long long rk;
		if (n < 2 || !parse_int(tok[0], 0, SG_MAX_RANKS - 1, &rk)) {
			free(line);
			return sg_err(s, "expected '<rank> <action> ...' with a rank 0 .. %u", SG_MAX_RANKS - 1);
		}
		if (rk > *max_rank)
			*max_rank = rk;
		int h = generation_hint(canonical(tok[1], name, sizeof name), n - 2);
		if (h > 0 && !*hint_tag)
			*hint_tag = (int)s->line_no;
		if (h < 0 && !*hint_untag)
			*hint_untag = (int)s->line_no;
	}
	free(line);
	if (ferror(f))
		return nl_errf(s->err, NL_EIO, "%s: read failed", s->file);
	return 0;
}

static int sg_convert_file(struct sg *s, FILE *f, int64_t rank_filter)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	s->line_no = 0;
	while (!rc && getline(&line, &cap, f) >= 0) {
		s->line_no++;
		if (!is_comment_or_blank(line))
			rc = sg_line(s, line, rank_filter);
	}
	free(line);
	if (!rc && ferror(f))
		rc = nl_errf(s->err, NL_EIO, "%s: read failed", s->file);
	return rc;
}

static void sg_release(struct sg *s)
{
	for (uint32_t r = 0; s->ranks && r < s->n_ranks; r++) {
		free(s->ranks[r].pend);
		free(s->ranks[r].free_ids);
	}
	free(s->ranks);
	free(s->sc);
	free(s->rc);
	free(s->reqs);
	trace_builder_free(s->b);
}

static int sg_setup(struct sg *s, uint32_t n_ranks, const char *out_path, const struct trace_write_opts *opts)
{
	s->n_ranks = n_ranks;
	s->ranks = calloc(n_ranks, sizeof *s->ranks);
	s->sc = calloc(n_ranks, sizeof *s->sc);
	s->rc = calloc(n_ranks, sizeof *s->rc);
	if (!s->ranks || !s->sc || !s->rc)
		return nl_errf(s->err, NL_ENOMEM, "out of memory");
	for (uint32_t r = 0; r < n_ranks; r++)
		s->ranks[r].dt_default = 1;
	return trace_builder_new(&s->b, out_path, n_ranks, opts, s->err);
}

static int sg_decide(struct sg *s, const char *file, int hint_tag, int hint_untag)
{
	if (hint_tag && hint_untag)
		return nl_errf(s->err, NL_EFORMAT,
			       "%s: mixes the tagged form (line %d: 4 point-to-point arguments or wait/test with 3) "
			       "and the older untagged form (line %d)",
			       file, hint_tag, hint_untag);
	s->tagged = hint_untag ? 0 : 1;
	return 0;
}

static int sg_finish(struct sg *s, const char *in_path)
{
	const char *base = strrchr(in_path, '/');
	base = base ? base + 1 : in_path;
	char app[256];
	snprintf(app, sizeof app, "%s", base);
	char *dot = strrchr(app, '.');
	if (dot && dot != app)
		*dot = '\0';
	char rec[128];
	snprintf(rec, sizeof rec, "netloom-import-simgrid %s (SimGrid time-independent, %s form)", NETLOOM_VERSION,
		 s->tagged ? "tagged" : "untagged");
	struct trace_manifest m = {
		.n_ranks = s->n_ranks,
		.application = app,
		.command_line = "",
		.machine = "",
		.recorder = rec,
		.mpi_library = "",
	};
	return trace_builder_finish(s->b, &m, s->err);
}

/* Resolve a path listed in an index file: as given, beside the index, in
 * the index's ancestors (SMPI resolves against its working directory,
 * usually a parent), then by basename beside the index. */
static char *resolve_listed(const char *index, const char *p)
{
	struct stat st;
	size_t cap = strlen(index) + strlen(p) + 16;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	if (p[0] == '/') {
		snprintf(buf, cap, "%s", p);
		if (!stat(buf, &st) && S_ISREG(st.st_mode))
			return buf;
	}
	char *dir = trace_strdup(index);
	if (!dir) {
		free(buf);
		return NULL;
	}
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	for (int up = 0; up < 8; up++) {
		snprintf(buf, cap, "%s/%s", dir, p);
		if (!stat(buf, &st) && S_ISREG(st.st_mode)) {
			free(dir);
			return buf;
		}
		slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = '\0';
		if (!*dir)
			break;
	}
	free(dir);
	const char *bn = strrchr(p, '/');
	bn = bn ? bn + 1 : p;
	dir = trace_strdup(index);
	if (!dir) {
		free(buf);
		return NULL;
	}
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	snprintf(buf, cap, "%s/%s", dir, bn);
	free(dir);
	if (!stat(buf, &st) && S_ISREG(st.st_mode))
		return buf;
	free(buf);
	return NULL;
}

/* Is the first meaningful line a single field (an index file)? */
static int first_line_fields(FILE *f)
{
	char *line = NULL, *tok[4];
	size_t cap = 0;
	int n = -1;
	while (getline(&line, &cap, f) >= 0)
		if (!is_comment_or_blank(line)) {
			n = tokenize(line, tok, 4);
			if (n < 0)
				n = 4;
			break;
		}
	free(line);
	rewind(f);
	return n;
}

static int import_index(struct sg *s, FILE *idx, const char *in_path, const char *out_path,
			const struct trace_write_opts *opts)
{
	char **files = NULL, *line = NULL, *tok[2];
	size_t n = 0, cap = 0, lcap = 0;
	int rc = 0, hint_tag = 0, hint_untag = 0;
	uint64_t ln = 0;

	while (!rc && getline(&line, &lcap, idx) >= 0) {
		ln++;
		if (is_comment_or_blank(line))
			continue;
		if (tokenize(line, tok, 2) != 1) {
			rc = nl_errf(s->err, NL_EFORMAT, "%s:%llu: expected one trace file name per line", in_path,
				     (unsigned long long)ln);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **t = realloc(files, cap * sizeof *t);
			if (!t) {
				rc = nl_errf(s->err, NL_ENOMEM, "out of memory");
				break;
			}
			files = t;
		}
		files[n] = resolve_listed(in_path, tok[0]);
		if (!files[n]) {
			rc = nl_errf(s->err, NL_ENOTFOUND,
				     "%s:%llu: rank %zu trace '%s' not found (looked beside the index, in its parent "
				     "directories and by basename)",
				     in_path, (unsigned long long)ln, n, tok[0]);
			break;
		}
		n++;
		if (n > SG_MAX_RANKS)
			rc = nl_errf(s->err, NL_ERANGE, "%s: more than %u rank files", in_path, SG_MAX_RANKS);
	}
	free(line);
	if (!rc && !n)
		rc = nl_errf(s->err, NL_EFORMAT, "%s: the index lists no trace files", in_path);
	/* Pass 1: the format generation, over every rank file. */
	for (size_t r = 0; !rc && r < n; r++) {
		long long maxr = -1;
		FILE *f = fopen(files[r], "r");
		if (!f) {
			rc = nl_errf(s->err, NL_EIO, "%s: cannot open: %s", files[r], strerror(errno));
			break;
		}
		s->file = files[r];
		rc = sg_prescan(s, f, &maxr, &hint_tag, &hint_untag);
		fclose(f);
		if (!rc && (hint_tag && hint_untag))
			rc = sg_decide(s, files[r], hint_tag, hint_untag);
	}
	if (!rc)
		rc = sg_decide(s, in_path, hint_tag, hint_untag);
	if (!rc)
		rc = sg_setup(s, (uint32_t)n, out_path, opts);
	/* Pass 2: convert rank by rank. */
	for (size_t r = 0; !rc && r < n; r++) {
		FILE *f = fopen(files[r], "r");
		if (!f) {
			rc = nl_errf(s->err, NL_EIO, "%s: cannot open: %s", files[r], strerror(errno));
			break;
		}
		s->file = files[r];
		rc = sg_convert_file(s, f, (int64_t)r);
		fclose(f);
		if (!rc)
			rc = trace_builder_end_rank(s->b, (uint32_t)r, s->err);
	}
	if (!rc)
		rc = sg_finish(s, in_path);
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return rc;
}

static int import_actions(struct sg *s, FILE *f, const char *in_path, const char *out_path,
			  const struct trace_write_opts *opts, uint32_t max_ranks)
{
	long long maxr = -1;
	int hint_tag = 0, hint_untag = 0;
	s->file = in_path;
	NL_CHECK(sg_prescan(s, f, &maxr, &hint_tag, &hint_untag));
	if (maxr < 0)
		return nl_errf(s->err, NL_EFORMAT, "%s: no actions", in_path);
	if (maxr >= max_ranks)
		return nl_errf(s->err, NL_ERANGE, "%s: rank %lld: at most %u ranks in one actions file", in_path,
			       maxr, max_ranks);
	NL_CHECK(sg_decide(s, in_path, hint_tag, hint_untag));
	NL_CHECK(sg_setup(s, (uint32_t)maxr + 1, out_path, opts));
	s->hint = " (ranks are the ones this file has actions for; a per-rank file of a larger trace is "
		  "converted through the index file that lists every rank's file)";
	rewind(f);
	NL_CHECK(sg_convert_file(s, f, -1));
	uint64_t empty = 0;
	for (uint32_t r = 0; r < s->n_ranks; r++)
		empty += trace_builder_rank_ops(s->b, r) == 0;
	if (empty && trace_skips_add(s->skips, "ranks without actions", "their streams are empty", empty))
		return nl_errf(s->err, NL_ENOMEM, "out of memory");
	return sg_finish(s, in_path);
}

static int sg_import(const char *in_path, const char *out_path, const struct trace_write_opts *opts,
		     struct trace_skips *skips, struct nl_err *err)
{
	struct sg s = {.err = err, .skips = skips, .tagged = -1};
	FILE *f = fopen(in_path, "r");
	int rc;
	if (!f)
		return nl_errf(err, errno == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: cannot open: %s", in_path,
			       strerror(errno));
	if (first_line_fields(f) == 1)
		rc = import_index(&s, f, in_path, out_path, opts);
	else
		rc = import_actions(&s, f, in_path, out_path, opts, SG_MAX_RANKS);
	fclose(f);
	sg_release(&s);
	return rc;
}

int trace_simgrid_import_mem(const uint8_t *data, size_t len, struct nl_err *err)
{
	struct trace_skips skips = {0};
	struct sg s = {.err = err, .skips = &skips, .tagged = -1};
	if (!len)
		return nl_errf(err, NL_EFORMAT, "(memory): empty");
	FILE *f = fmemopen((void *)data, len, "r");
	if (!f)
		return nl_errf(err, NL_ENOMEM, "fmemopen failed");
	/* Bounded so a fuzzed rank id cannot demand a huge allocation. */
	int rc = import_actions(&s, f, "(memory)", NULL, NULL, 4096);
	fclose(f);
	sg_release(&s);
	trace_skips_release(&skips);
	return rc;
}

/* An actions file starts "<int> <word>"; an index file lists one path per
 * line. Neither contains '=' on its first line (DUMPI .meta does). */
static int sg_probe(const char *path, const uint8_t *head, size_t n)
{
	char buf[512], *tok[3];
	size_t i = 0, o = 0;
	(void)path;
	/* skip blank and comment lines */
	while (i < n) {
		size_t j = i;
		while (j < n && (head[j] == ' ' || head[j] == '\t' || head[j] == '\r'))
			j++;
		if (j < n && head[j] != '\n' && head[j] != '#')
			break;
		while (j < n && head[j] != '\n')
			j++;
		i = j + 1;
	}
	for (; i < n && head[i] != '\n' && o + 1 < sizeof buf; i++) {
		if (!head[i] || head[i] == '=')
			return 0;
		buf[o++] = (char)head[i];
	}
	buf[o] = '\0';
	int t = tokenize(buf, tok, 3);
	long long rk;
	if (t == 1)
		return 1;
	if (t >= 2 && parse_int(tok[0], 0, LLONG_MAX, &rk)) {
		for (const char *p = tok[1]; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
				return 0;
		return 1;
	}
	return 0;
}

const struct trace_importer_ops trace_import_simgrid_ops = {
	.name = "simgrid",
	.help = "SimGrid time-independent trace (actions file or index of per-rank files)",
	.probe = sg_probe,
	.import = sg_import,
};
