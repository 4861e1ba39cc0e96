/* Summaries for `netloom trace info`: per-kind counts and point-to-point
 * message totals, by streaming every rank once.
 *
 * A point-to-point message is one send of the send family (send, ssend,
 * bsend, rsend, isend, issend), one sendrecv (its send half), or one start
 * of a persistent send request; sends to TRACE_PROC_NULL carry nothing and
 * are not counted.
 */
#include "traces/traces_internal.h"

#include <stdlib.h>

#include "core/error.h"

/* Open-addressing map: persistent send request id -> (peer, bytes). */
struct psend {
	uint32_t req;
	int32_t peer;
	uint64_t bytes;
	uint8_t used;
};

struct psmap {
	struct psend *v;
	size_t cap, n;
};

static size_t ps_slot(const struct psmap *m, uint32_t req)
{
	size_t i = (req * 2654435761u) & (m->cap - 1);
	while (m->v[i].used && m->v[i].req != req)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int ps_put(struct psmap *m, uint32_t req, int32_t peer, uint64_t bytes)
{
	if (2 * (m->n + 1) > m->cap) {
		struct psmap g = {calloc(m->cap ? 2 * m->cap : 64, sizeof *g.v), m->cap ? 2 * m->cap : 64, 0};
		if (!g.v)
			return NL_ENOMEM;
		for (size_t i = 0; i < m->cap; i++)
			if (m->v[i].used) {
				g.v[ps_slot(&g, m->v[i].req)] = m->v[i];
				g.n++;
			}
		free(m->v);
		*m = g;
	}
	size_t i = ps_slot(m, req);
	if (!m->v[i].used)
		m->n++;
	m->v[i] = (struct psend){req, peer, bytes, 1};
	return 0;
}

static const struct psend *ps_get(const struct psmap *m, uint32_t req)
{
	if (!m->cap)
		return NULL;
	const struct psend *p = &m->v[ps_slot(m, req)];
	return p->used ? p : NULL;
}

/* Remove with backward-shift so probe chains stay intact. */
static void ps_del(struct psmap *m, uint32_t req)
{
	if (!m->cap)
		return;
	size_t i = ps_slot(m, req);
	if (!m->v[i].used)
		return;
	m->v[i].used = 0;
	m->n--;
	for (size_t j = (i + 1) & (m->cap - 1); m->v[j].used; j = (j + 1) & (m->cap - 1)) {
		struct psend e = m->v[j];
		m->v[j].used = 0;
		m->v[ps_slot(m, e.req)] = e;
	}
}

static bool creates_request(const struct trace_op *op)
{
	switch (op->kind) {
	case TOP_ISEND:
	case TOP_ISSEND:
	case TOP_IRECV:
	case TOP_RECV_INIT:
		return true;
	default:
		return (op->flags & TRACE_F_NONBLOCKING) && op->req;
	}
}

/* Byte and time fields are full u64 values (docs/trace-format.md
 * section 6): two sends of 2^63 bytes wrapped the sum to 0, and info
 * printed that. A sum past UINT64_MAX stays there instead. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int trace_archive_stats(struct trace_archive *a, struct trace_stats *s, struct nl_err *err)
{
	const struct trace_manifest *m = trace_archive_manifest(a);
	struct psmap ps = {0};
	int rc = 0;

	memset(s, 0, sizeof *s);
	for (uint32_t rank = 0; rank < m->n_ranks && !rc; rank++) {
		struct trace_rank_reader *r;
		struct trace_op op;
		s->encoded_bytes += m->rank_bytes[rank];
		rc = trace_rank_open(a, rank, &r, err);
		if (rc)
			break;
		free(ps.v);
		memset(&ps, 0, sizeof ps);
		while ((rc = trace_rank_next(r, &op, err)) == 1) {
			s->ops++;
			s->calls[op.kind]++;
			switch (op.kind) {
			case TOP_SEND:
			case TOP_SSEND:
			case TOP_BSEND:
			case TOP_RSEND:
			case TOP_ISEND:
			case TOP_ISSEND:
			case TOP_SENDRECV:
				if (op.peer != TRACE_PROC_NULL) {
					s->p2p_messages++;
					s->p2p_bytes = add_sat(s->p2p_bytes, op.bytes);
				}
				break;
			case TOP_SEND_INIT:
				if (ps_put(&ps, op.req, op.peer, op.bytes))
					rc = nl_errf(err, NL_ENOMEM, "out of memory");
				break;
			case TOP_START: {
				const struct psend *p = ps_get(&ps, op.req);
				if (p && p->peer != TRACE_PROC_NULL) {
					s->p2p_messages++;
					s->p2p_bytes = add_sat(s->p2p_bytes, p->bytes);
				}
				break;
			}
			case TOP_REQUEST_FREE:
				ps_del(&ps, op.req);
				break;
			case TOP_COMPUTE:
				s->compute_ps = add_sat(s->compute_ps, op.dur_ps);
				s->compute_cpu_ps = add_sat(s->compute_cpu_ps, op.cpu_ps);
				break;
			case TOP_COMPUTE_FLOPS:
				s->compute_flops += op.flops;
				break;
			default:
				break;
			}
			if (creates_request(&op))
				ps_del(&ps, op.req);
			if (rc < 0)
				break;
		}
		trace_rank_close(r);
	}
	free(ps.v);
	return rc < 0 ? rc : 0;
}
