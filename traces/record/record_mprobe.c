/* netloom-record matched probes: MPI_Mprobe/Improbe and MPI_Mrecv/Imrecv.
 *
 * A matched probe removes the message it found from matching, and the
 * MPI_Message handle receives exactly that message. The trace model has
 * no message handles; it has what they amount to: the probe is a probe
 * (iprobe) op, and the matched receive is a recv (irecv) op naming the
 * found message's source and tag. Because messages of one source match in
 * order (non-overtaking, MPI 4.0 §3.5), a receive from that source with
 * that tag takes the oldest such message, which is the one the probe found
 * (any older one would have matched the probe first). The exception, said
 * in docs/recorder.md: a receive the program posts between the probe and
 * the matched receive could take the message in replay.
 * Probes on MPI_PROC_NULL give MPI_MESSAGE_NO_PROC: a receive from it.
 */
#include "traces/record/record_internal.h"

#include <stdlib.h>

/* Messages found and not yet received: handle -> what the receive names. */
struct rec_msg {
	MPI_Message handle;
	MPI_Comm comm;
	int source, tag;
};

static struct {
	struct rec_msg *v;
	size_t n, cap;
} msgs;

static void rec_msg_put(MPI_Message m, MPI_Comm comm, const MPI_Status *st)
{
	if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
		return;
	if (msgs.n == msgs.cap) {
		size_t cap = msgs.cap ? 2 * msgs.cap : 16;
		struct rec_msg *v = realloc(msgs.v, cap * sizeof *v);
		if (!v) {
			rec_fail("out of memory (%zu matched messages)", msgs.n);
			return;
		}
		msgs.v = v;
		msgs.cap = cap;
	}
	msgs.v[msgs.n++] = (struct rec_msg){m, comm, st->MPI_SOURCE, st->MPI_TAG};
}

/* Take the entry of m (false when the recorder did not see its probe). */
static bool rec_msg_take(MPI_Message m, struct rec_msg *out)
{
	if (m == MPI_MESSAGE_NO_PROC) {
		*out = (struct rec_msg){m, MPI_COMM_NULL, MPI_PROC_NULL, MPI_ANY_TAG};
		return true;
	}
	for (size_t i = msgs.n; i-- > 0;)
		if (msgs.v[i].handle == m) {
			*out = msgs.v[i];
			msgs.v[i] = msgs.v[--msgs.n];
			return true;
		}
	return false;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
	struct rec_call c;
	MPI_Status own;
	int rc;

	rec_begin(&c);
	if (c.is_on && status == MPI_STATUS_IGNORE)
		status = &own;
	rc = PMPI_Mprobe(source, tag, comm, message, status);
	if (!c.is_on)
		return rc;
	if (rc == MPI_SUCCESS)
		rec_msg_put(*message, comm, status);
	rec_probe_end(&c, rc, TOP_PROBE, comm, source, tag, 1, status);
	return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
		MPI_Status *status)
{
	struct rec_call c;
	MPI_Status own;
	int rc;

	rec_begin(&c);
	if (c.is_on && status == MPI_STATUS_IGNORE)
		status = &own;
	rc = PMPI_Improbe(source, tag, comm, flag, message, status);
	if (!c.is_on)
		return rc;
	if (rc == MPI_SUCCESS && *flag)
		rec_msg_put(*message, comm, status);
	rec_probe_end(&c, rc, TOP_IPROBE, comm, source, tag, rc == MPI_SUCCESS && *flag, status);
	return rc;
}

/* The matched receive: a recv/irecv naming the found message's source
 * and tag. A message whose probe the recorder did not see (before the
 * recorded window) is counted instead. */
static void rec_mrecv_end(struct rec_call *c, int rc, uint16_t kind, bool seen, const struct rec_msg *m,
			  int count, MPI_Datatype dt, const MPI_Request *req)
{
	struct trace_op op = {.kind = kind};

	if (rc != MPI_SUCCESS || !seen) {
		if (rc == MPI_SUCCESS)
			rec_unsupported(REC_UNSUP_MPROBE);
		rec_skip(c);
		return;
	}
	op.comm = m->handle == MPI_MESSAGE_NO_PROC ? TRACE_COMM_WORLD : rec_comm_lookup(m->comm, NULL);
	if (op.comm == REC_COMM_NONE) {
		rec_unsupported(REC_UNSUP_COMM);
		rec_skip(c);
		return;
	}
	op.peer = rec_peer(m->source);
	op.tag = m->source == MPI_PROC_NULL ? TRACE_ANY_TAG : rec_tag(m->tag);
	op.bytes = rec_bytes(count, dt);
	if (req) {
		op.req = rec_req_new(*req, NULL);
		if (op.req == REC_REQ_NONE) {
			rec_skip(c);
			return;
		}
	}
	rec_end(c, &op);
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
	struct rec_call c;
	struct rec_msg m;
	bool seen = false;
	int rc;

	rec_begin(&c);
	if (c.is_on)
		seen = rec_msg_take(*message, &m);
	rc = PMPI_Mrecv(buf, count, dt, message, status);
	if (c.is_on)
		rec_mrecv_end(&c, rc, TOP_RECV, seen, &m, count, dt, NULL);
	return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *request)
{
	struct rec_call c;
	struct rec_msg m;
	bool seen = false;
	int rc;

	rec_begin(&c);
	if (c.is_on)
		seen = rec_msg_take(*message, &m);
	rc = PMPI_Imrecv(buf, count, dt, message, request);
	if (c.is_on)
		rec_mrecv_end(&c, rc, TOP_IRECV, seen, &m, count, dt, request);
	return rc;
}

void rec_mprobe_teardown(void)
{
	free(msgs.v);
	msgs.v = NULL;
	msgs.n = msgs.cap = 0;
}
