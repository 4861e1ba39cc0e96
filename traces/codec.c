/* The op codec: one struct trace_op <-> its compact encoding
 * (docs/trace-format.md §6). An op is kind, field mask, zigzag start-time
 * delta from the previous op's end, duration, then only the fields the mask
 * names, in mask-bit order. The mask is derived from which fields are
 * non-zero, so equal ops always encode to equal bytes. */
#include "traces/traces_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

static const char *const trace_op_names[] = {
#define TRACE_OP_NAME_(name, text) text,
	TRACE_OP_MAP(TRACE_OP_NAME_)
#undef TRACE_OP_NAME_
};

const char *trace_op_name(unsigned kind)
{
	return kind < TOP__COUNT ? trace_op_names[kind] : NULL;
}

unsigned trace_op_kinds_in_version(uint32_t version)
{
	/* Version 2 appended cancel; nothing was renumbered. */
	switch (version) {
	case 1:
		return TOP_CANCEL;
	case 2:
		return TOP__COUNT;
	default:
		return 0;
	}
}

static uint64_t double_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

static uint32_t op_mask(const struct trace_op *op)
{
	uint32_t m = 0;
	if (op->peer)
		m |= TRACE_M_PEER;
	if (op->tag)
		m |= TRACE_M_TAG;
	if (op->bytes)
		m |= TRACE_M_BYTES;
	if (op->req)
		m |= TRACE_M_REQ;
	if (op->comm)
		m |= TRACE_M_COMM;
	if (op->flags)
		m |= TRACE_M_FLAGS;
	if (op->n_reqs)
		m |= TRACE_M_REQS;
	if (op->n_done)
		m |= TRACE_M_NDONE;
	if (op->recv_peer)
		m |= TRACE_M_RPEER;
	if (op->recv_tag)
		m |= TRACE_M_RTAG;
	if (op->recv_bytes)
		m |= TRACE_M_RBYTES;
	if (double_bits(op->flops))
		m |= TRACE_M_FLOPS;
	if (op->n_counts) {
		m |= TRACE_M_NCOUNTS;
		if (op->send_counts)
			m |= TRACE_M_SCOUNTS;
		if (op->recv_counts)
			m |= TRACE_M_RCOUNTS;
	}
	if (op->new_comm)
		m |= TRACE_M_NEWCOMM;
	if (op->color)
		m |= TRACE_M_COLOR;
	if (op->key)
		m |= TRACE_M_KEY;
	if (op->cpu_ps)
		m |= TRACE_M_CPU;
	return m;
}

size_t trace_op_encoded_max(const struct trace_op *op)
{
	size_t n = 4 * TRACE_VARINT_MAX + 18 * TRACE_VARINT_MAX + 8;
	if (op->n_counts) {
		size_t arrays = (op->send_counts != NULL) + (op->recv_counts != NULL);
		n += arrays * (size_t)op->n_counts * TRACE_VARINT_MAX;
	}
	n += (size_t)op->n_reqs * 5;
	return n;
}

int trace_op_check(const struct trace_op *op, struct nl_err *err)
{
	if (op->kind >= TOP__COUNT)
		return nl_errf(err, NL_EINVAL, "op kind %u is not a trace_op_kind (0..%u)", op->kind,
			       TOP__COUNT - 1);
	if (op->n_reqs && !op->reqs)
		return nl_errf(err, NL_EINVAL, "%s: n_reqs is %u but reqs is NULL", trace_op_name(op->kind),
			       op->n_reqs);
	if (op->flags & ~TRACE_F_KNOWN)
		return nl_errf(err, NL_EINVAL,
			       "%s: flags 0x%x: unknown bits 0x%x; expected TRACE_F_NONBLOCKING (0x%x), "
			       "TRACE_F_IN_PLACE (0x%x) or TRACE_F_NO_OUTCOME (0x%x)",
			       trace_op_name(op->kind), op->flags, op->flags & ~TRACE_F_KNOWN,
			       TRACE_F_NONBLOCKING, TRACE_F_IN_PLACE, TRACE_F_NO_OUTCOME);
	if (!isfinite(op->flops) || op->flops < 0)
		return nl_errf(err, NL_EINVAL, "%s: flops %g: expected a finite value >= 0",
			       trace_op_name(op->kind), op->flops);
	if (op->cpu_ps && op->kind != TOP_COMPUTE)
		return nl_errf(err, NL_EINVAL, "%s: cpu_ps %llu: only compute ops carry CPU time",
			       trace_op_name(op->kind), (unsigned long long)op->cpu_ps);
	if (op->cpu_ps > op->dur_ps)
		return nl_errf(err, NL_EINVAL, "compute: cpu_ps %llu: expected at most dur_ps %llu (the CPU time "
			       "of the interval)", (unsigned long long)op->cpu_ps, (unsigned long long)op->dur_ps);
	return 0;
}

int trace_op_check_version(const struct trace_op *op, uint32_t version, struct nl_err *err)
{
	if (op->kind >= trace_op_kinds_in_version(version))
		return nl_errf(err, NL_EUNSUPPORTED, "a %s op needs format version %u or later "
			       "(this stream writes version %u)", trace_op_name(op->kind), TRACE_FORMAT_VERSION,
			       version);
	if (op->cpu_ps && version < 2)
		return nl_errf(err, NL_EUNSUPPORTED, "compute op with cpu time needs format version 2 "
			       "(this stream writes version %u)", version);
	return 0;
}

size_t trace_op_encode(uint8_t *p, const struct trace_op *op, uint64_t *prev_end_ps)
{
	uint8_t *q = p;
	uint32_t m = op_mask(op);

	q += trace_varint_put(q, op->kind);
	q += trace_varint_put(q, m);
	q += trace_varint_put(q, trace_zigzag((int64_t)(op->t_ps - *prev_end_ps)));
	q += trace_varint_put(q, op->dur_ps);
	*prev_end_ps = op->t_ps + op->dur_ps;

	if (m & TRACE_M_PEER)
		q += trace_varint_put(q, trace_zigzag(op->peer));
	if (m & TRACE_M_TAG)
		q += trace_varint_put(q, trace_zigzag(op->tag));
	if (m & TRACE_M_BYTES)
		q += trace_varint_put(q, op->bytes);
	if (m & TRACE_M_REQ)
		q += trace_varint_put(q, op->req);
	if (m & TRACE_M_COMM)
		q += trace_varint_put(q, op->comm);
	if (m & TRACE_M_FLAGS)
		q += trace_varint_put(q, op->flags);
	if (m & TRACE_M_REQS) {
		/* Request lists are mostly runs of consecutive ids: delta-code. */
		uint32_t prev = 0;
		q += trace_varint_put(q, op->n_reqs);
		for (uint32_t i = 0; i < op->n_reqs; i++) {
			q += trace_varint_put(q, trace_zigzag((int32_t)(op->reqs[i] - prev)));
			prev = op->reqs[i];
		}
	}
	if (m & TRACE_M_NDONE)
		q += trace_varint_put(q, op->n_done);
	if (m & TRACE_M_RPEER)
		q += trace_varint_put(q, trace_zigzag(op->recv_peer));
	if (m & TRACE_M_RTAG)
		q += trace_varint_put(q, trace_zigzag(op->recv_tag));
	if (m & TRACE_M_RBYTES)
		q += trace_varint_put(q, op->recv_bytes);
	if (m & TRACE_M_FLOPS) {
		trace_put_u64(q, double_bits(op->flops));
		q += 8;
	}
	if (m & TRACE_M_NCOUNTS)
		q += trace_varint_put(q, op->n_counts);
	if (m & TRACE_M_SCOUNTS)
		for (uint32_t i = 0; i < op->n_counts; i++)
			q += trace_varint_put(q, op->send_counts[i]);
	if (m & TRACE_M_RCOUNTS)
		for (uint32_t i = 0; i < op->n_counts; i++)
			q += trace_varint_put(q, op->recv_counts[i]);
	if (m & TRACE_M_NEWCOMM)
		q += trace_varint_put(q, op->new_comm);
	if (m & TRACE_M_COLOR)
		q += trace_varint_put(q, trace_zigzag(op->color));
	if (m & TRACE_M_KEY)
		q += trace_varint_put(q, trace_zigzag(op->key));
	if (m & TRACE_M_CPU)
		q += trace_varint_put(q, op->cpu_ps);
	return (size_t)(q - p);
}

void trace_op_arrays_release(struct trace_op_arrays *a)
{
	free(a->send_counts);
	free(a->recv_counts);
	free(a->reqs);
	memset(a, 0, sizeof *a);
}

/* Decoding: a cursor over the frame, failing with a reason (a static
 * string, or one written into buf naming the field and its value). */
struct dec {
	const uint8_t *p;
	size_t len, pos;
	const char *what;
	char *buf;
	size_t buf_size;
};

static void dec_fail(struct dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dec_fail(struct dec *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->buf, d->buf_size, fmt, ap);
	va_end(ap);
	d->what = d->buf;
}

/* The op fields by mask bit (format section 6), as the text form names them. */
static const char *const field_names[] = {
	"peer",	      "tag",	  "bytes",	 "req",	    "comm",	"flags",   "reqs",
	"n_done",     "recv_peer", "recv_tag",	 "recv_bytes", "flops", "n_counts", "send_counts",
	"recv_counts", "new_comm", "color",	 "key",	    "cpu",
};
_Static_assert(sizeof field_names / sizeof *field_names == 19 && TRACE_M_ALL == (1u << 19) - 1,
	       "a name for every mask bit");

static bool dec_u64(struct dec *d, uint64_t *v)
{
	size_t n = trace_varint_get(d->p + d->pos, d->len - d->pos, v);
	if (!n) {
		/* Running off the end with every byte continued is truncation;
		 * anything else is a malformed varint. */
		bool cont = d->len - d->pos < TRACE_VARINT_MAX;
		for (size_t i = d->pos; cont && i < d->len; i++)
			cont = d->p[i] & 0x80;
		d->what = cont ? "op truncated inside a varint" : "bad varint";
		return false;
	}
	d->pos += n;
	return true;
}

static bool dec_u32(struct dec *d, const char *field, uint32_t *v)
{
	uint64_t x;
	if (!dec_u64(d, &x))
		return false;
	if (x > UINT32_MAX) {
		dec_fail(d, "%s %llu: out of the u32 range", field, (unsigned long long)x);
		return false;
	}
	*v = (uint32_t)x;
	return true;
}

static bool dec_i32(struct dec *d, const char *field, int32_t *v)
{
	uint64_t x;
	if (!dec_u64(d, &x))
		return false;
	int64_t s = trace_unzigzag(x);
	if (s < INT32_MIN || s > INT32_MAX) {
		dec_fail(d, "%s %lld: out of the i32 range", field, (long long)s);
		return false;
	}
	*v = (int32_t)s;
	return true;
}

static bool grow_u64(uint64_t **a, uint32_t *cap, uint32_t n)
{
	if (n <= *cap)
		return true;
	uint64_t *t = realloc(*a, (size_t)n * sizeof **a);
	if (!t)
		return false;
	*a = t;
	*cap = n;
	return true;
}

static bool grow_u32(uint32_t **a, uint32_t *cap, uint32_t n)
{
	if (n <= *cap)
		return true;
	uint32_t *t = realloc(*a, (size_t)n * sizeof **a);
	if (!t)
		return false;
	*a = t;
	*cap = n;
	return true;
}

int trace_op_decode(const uint8_t *p, size_t len, struct trace_op *op, uint64_t *prev_end_ps,
		    struct trace_op_arrays *arr, const char **what)
{
	struct dec d = {p, len, 0, NULL, arr->what, sizeof arr->what};
	uint32_t m, kind;
	uint64_t dt, v;

	memset(op, 0, sizeof *op);
	if (!dec_u32(&d, "kind", &kind) || !dec_u32(&d, "mask", &m) || !dec_u64(&d, &dt) ||
	    !dec_u64(&d, &op->dur_ps))
		goto bad;
	if (kind >= TOP__COUNT) {
		dec_fail(&d, "unknown op kind %u (expected 0 .. %u)", kind, TOP__COUNT - 1);
		goto bad;
	}
	if (m & ~(uint32_t)TRACE_M_ALL) {
		dec_fail(&d, "unknown field bits 0x%x in op mask 0x%x (fields are bits 0 .. 18)",
			 m & ~(uint32_t)TRACE_M_ALL, m);
		goto bad;
	}
	if ((m & (TRACE_M_SCOUNTS | TRACE_M_RCOUNTS)) && !(m & TRACE_M_NCOUNTS)) {
		d.what = "count arrays without n_counts";
		goto bad;
	}
	op->kind = (uint16_t)kind;
	op->t_ps = *prev_end_ps + (uint64_t)trace_unzigzag(dt);

	if ((m & TRACE_M_PEER) && !dec_i32(&d, "peer", &op->peer))
		goto bad;
	if ((m & TRACE_M_TAG) && !dec_i32(&d, "tag", &op->tag))
		goto bad;
	if ((m & TRACE_M_BYTES) && !dec_u64(&d, &op->bytes))
		goto bad;
	if ((m & TRACE_M_REQ) && !dec_u32(&d, "req", &op->req))
		goto bad;
	if ((m & TRACE_M_COMM) && !dec_u32(&d, "comm", &op->comm))
		goto bad;
	if (m & TRACE_M_FLAGS) {
		uint32_t f;
		if (!dec_u32(&d, "flags", &f))
			goto bad;
		/* A u16 field: bits past it are unknown bits too. */
		_Static_assert(TRACE_F_KNOWN == 0x7, "the message below lists the flag bits");
		if (f & ~(uint32_t)TRACE_F_KNOWN) {
			dec_fail(&d, "flags 0x%x: unknown flag bits 0x%x (known: nonblocking 0x1, in_place 0x2, "
				     "no_outcome 0x4)",
				 f, f & ~(uint32_t)TRACE_F_KNOWN);
			goto bad;
		}
		op->flags = (uint16_t)f;
	}
	if (m & TRACE_M_REQS) {
		uint32_t n, prev = 0;
		if (!dec_u32(&d, "reqs' count", &n))
			goto bad;
		/* Each entry takes at least one byte: bounds the allocation. */
		if (n > d.len - d.pos) {
			d.what = "request list longer than the frame";
			goto bad;
		}
		if (!grow_u32(&arr->reqs, &arr->cap_reqs, n)) {
			*what = "out of memory";
			return NL_ENOMEM;
		}
		for (uint32_t i = 0; i < n; i++) {
			int32_t delta;
			if (!dec_i32(&d, "reqs' difference", &delta))
				goto bad;
			prev += (uint32_t)delta;
			arr->reqs[i] = prev;
		}
		op->n_reqs = n;
		op->reqs = arr->reqs;
	}
	if ((m & TRACE_M_NDONE) && !dec_u32(&d, "n_done", &op->n_done))
		goto bad;
	if ((m & TRACE_M_RPEER) && !dec_i32(&d, "recv_peer", &op->recv_peer))
		goto bad;
	if ((m & TRACE_M_RTAG) && !dec_i32(&d, "recv_tag", &op->recv_tag))
		goto bad;
	if ((m & TRACE_M_RBYTES) && !dec_u64(&d, &op->recv_bytes))
		goto bad;
	if (m & TRACE_M_FLOPS) {
		if (d.len - d.pos < 8) {
			d.what = "op truncated inside flops";
			goto bad;
		}
		v = trace_get_u64(d.p + d.pos);
		d.pos += 8;
		memcpy(&op->flops, &v, sizeof v);
		if (!isfinite(op->flops) || op->flops < 0 || v == 0) {
			d.what = "flops not a finite non-negative number";
			goto bad;
		}
	}
	if (m & TRACE_M_NCOUNTS) {
		uint32_t n;
		if (!dec_u32(&d, "n_counts", &n))
			goto bad;
		if (n == 0) {
			d.what = "n_counts present but zero";
			goto bad;
		}
		op->n_counts = n;
		for (int which = 0; which < 2; which++) {
			uint32_t bit = which ? TRACE_M_RCOUNTS : TRACE_M_SCOUNTS;
			if (!(m & bit))
				continue;
			if (n > d.len - d.pos) {
				d.what = "count array longer than the frame";
				goto bad;
			}
			uint64_t **a = which ? &arr->recv_counts : &arr->send_counts;
			if (!grow_u64(a, which ? &arr->cap_recv : &arr->cap_send, n)) {
				*what = "out of memory";
				return NL_ENOMEM;
			}
			for (uint32_t i = 0; i < n; i++)
				if (!dec_u64(&d, &(*a)[i]))
					goto bad;
			if (which)
				op->recv_counts = *a;
			else
				op->send_counts = *a;
		}
	}
	if ((m & TRACE_M_NEWCOMM) && !dec_u32(&d, "new_comm", &op->new_comm))
		goto bad;
	if ((m & TRACE_M_COLOR) && !dec_i32(&d, "color", &op->color))
		goto bad;
	if ((m & TRACE_M_KEY) && !dec_i32(&d, "key", &op->key))
		goto bad;
	if ((m & TRACE_M_CPU) && !dec_u64(&d, &op->cpu_ps))
		goto bad;
	if ((m & TRACE_M_CPU) && kind != TOP_COMPUTE) {
		d.what = "cpu time on an op other than compute";
		goto bad;
	}

	/* A present field holding zero would make the encoding non-canonical
	 * (the writer never emits it); reject so one op has one encoding. */
	if (op_mask(op) != m) {
		unsigned bit = (unsigned)__builtin_ctz(op_mask(op) ^ m);
		dec_fail(&d, "%s present in mask (bit %u) but zero", field_names[bit], bit);
		goto bad;
	}
	*prev_end_ps = op->t_ps + op->dur_ps;
	return (int)d.pos;
bad:
	*what = d.what ? d.what : "bad op";
	return NL_ECORRUPT;
}

bool trace_op_equal(const struct trace_op *a, const struct trace_op *b)
{
	if (a->kind != b->kind || a->flags != b->flags || a->t_ps != b->t_ps || a->dur_ps != b->dur_ps ||
	    a->comm != b->comm || a->peer != b->peer || a->tag != b->tag || a->bytes != b->bytes ||
	    double_bits(a->flops) != double_bits(b->flops) || a->recv_peer != b->recv_peer ||
	    a->recv_tag != b->recv_tag || a->recv_bytes != b->recv_bytes || a->n_counts != b->n_counts ||
	    a->req != b->req || a->n_reqs != b->n_reqs || a->n_done != b->n_done ||
	    a->new_comm != b->new_comm || a->color != b->color || a->key != b->key || a->cpu_ps != b->cpu_ps)
		return false;
	if (a->n_counts) {
		if (!a->send_counts != !b->send_counts || !a->recv_counts != !b->recv_counts)
			return false;
		if (a->send_counts && memcmp(a->send_counts, b->send_counts, a->n_counts * sizeof(uint64_t)))
			return false;
		if (a->recv_counts && memcmp(a->recv_counts, b->recv_counts, a->n_counts * sizeof(uint64_t)))
			return false;
	}
	if (a->n_reqs && memcmp(a->reqs, b->reqs, a->n_reqs * sizeof(uint32_t)))
		return false;
	return true;
}
