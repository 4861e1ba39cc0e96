/* netloom-record point-to-point: sends, receives, Sendrecv, probes,
 * persistent requests and the Wait/Test families.
 *
 * Peers and tags are recorded as the program passed them (wildcards stay
 * wildcards: replay does the matching); sizes are count x type size of the
 * buffer the program posted. A completion op lists the requests it
 * covered, completed ones first (trace.h); requests the recorder did not
 * create (file I/O, generalized requests, operations on unrecorded
 * communicators) are left out and counted, and so is an operation that a
 * persistent request started before the recorded window (record_req.c).
 * MPI_Cancel is a cancel op;
 * its outcome (MPI_Test_cancelled on the status of the request's
 * completion, which the recorder asks for even when the program ignores
 * statuses) is filled in when the request completes (record_sink.c).
 */
#include "traces/record/record_internal.h"

#include <stdlib.h>

/* Record a send/recv-like call. req: the request it created (NULL for
 * blocking calls). */
static void rec_p2p(struct rec_call *c, int rc, uint16_t kind, MPI_Comm comm, int peer, int tag,
		    int count, MPI_Datatype dt, const MPI_Request *req, bool is_persistent)
{
	struct trace_op op = {.kind = kind};

	if (!c->is_on)
		return;
	op.comm = rec_comm_lookup(comm, NULL);
	if (rc != MPI_SUCCESS || op.comm == REC_COMM_NONE) {
		if (rc == MPI_SUCCESS)
			rec_unsupported(REC_UNSUP_COMM);
		rec_skip(c);
		return;
	}
	op.peer = rec_peer(peer);
	op.tag = rec_tag(tag);
	op.bytes = rec_bytes(count, dt);
	if (req) {
		op.req = rec_req_new(*req, is_persistent ? &op : NULL);
		if (op.req == REC_REQ_NONE) {
			rec_skip(c);
			return;
		}
	}
	rec_end(c, &op);
}

#define REC_BLOCKING_SEND(name, kind)                                                         \
	int MPI_##name(const void *buf, int count, MPI_Datatype dt, int dest, int tag,        \
		       MPI_Comm comm)                                                         \
	{                                                                                     \
		struct rec_call c;                                                            \
		int rc;                                                                       \
		rec_begin(&c);                                                                \
		rc = PMPI_##name(buf, count, dt, dest, tag, comm);                            \
		rec_p2p(&c, rc, kind, comm, dest, tag, count, dt, NULL, false);               \
		return rc;                                                                    \
	}

#define REC_NONBLOCKING_SEND(name, kind, is_persistent)                                       \
	int MPI_##name(const void *buf, int count, MPI_Datatype dt, int dest, int tag,        \
		       MPI_Comm comm, MPI_Request *request)                                   \
	{                                                                                     \
		struct rec_call c;                                                            \
		int rc;                                                                       \
		rec_begin(&c);                                                                \
		rc = PMPI_##name(buf, count, dt, dest, tag, comm, request);                   \
		rec_p2p(&c, rc, kind, comm, dest, tag, count, dt, request, is_persistent);    \
		return rc;                                                                    \
	}

/* The trace model keeps the synchronous mode for blocking and immediate
 * sends; buffered and ready sends are recorded as standard sends, and the
 * persistent variants all as send_init (docs/recorder.md). */
REC_BLOCKING_SEND(Send, TOP_SEND)
REC_BLOCKING_SEND(Ssend, TOP_SSEND)
REC_BLOCKING_SEND(Bsend, TOP_BSEND)
REC_BLOCKING_SEND(Rsend, TOP_RSEND)
REC_NONBLOCKING_SEND(Isend, TOP_ISEND, false)
REC_NONBLOCKING_SEND(Issend, TOP_ISSEND, false)
REC_NONBLOCKING_SEND(Ibsend, TOP_ISEND, false)
REC_NONBLOCKING_SEND(Irsend, TOP_ISEND, false)
REC_NONBLOCKING_SEND(Send_init, TOP_SEND_INIT, true)
REC_NONBLOCKING_SEND(Ssend_init, TOP_SEND_INIT, true)
REC_NONBLOCKING_SEND(Bsend_init, TOP_SEND_INIT, true)
REC_NONBLOCKING_SEND(Rsend_init, TOP_SEND_INIT, true)

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
	     MPI_Status *status)
{
	struct rec_call c;
	int rc;

	rec_begin(&c);
	rc = PMPI_Recv(buf, count, dt, source, tag, comm, status);
	rec_p2p(&c, rc, TOP_RECV, comm, source, tag, count, dt, NULL, false);
	return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
	      MPI_Request *request)
{
	struct rec_call c;
	int rc;

	rec_begin(&c);
	rc = PMPI_Irecv(buf, count, dt, source, tag, comm, request);
	rec_p2p(&c, rc, TOP_IRECV, comm, source, tag, count, dt, request, false);
	return rc;
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
		  MPI_Request *request)
{
	struct rec_call c;
	int rc;

	rec_begin(&c);
	rc = PMPI_Recv_init(buf, count, dt, source, tag, comm, request);
	rec_p2p(&c, rc, TOP_RECV_INIT, comm, source, tag, count, dt, request, true);
	return rc;
}

static void rec_sendrecv(struct rec_call *c, int rc, MPI_Comm comm, int dest, int sendtag,
			 uint64_t send_bytes, int source, int recvtag, uint64_t recv_bytes)
{
	struct trace_op op = {.kind = TOP_SENDRECV};

	if (!c->is_on)
		return;
	op.comm = rec_comm_lookup(comm, NULL);
	if (rc != MPI_SUCCESS || op.comm == REC_COMM_NONE) {
		if (rc == MPI_SUCCESS)
			rec_unsupported(REC_UNSUP_COMM);
		rec_skip(c);
		return;
	}
	op.peer = rec_peer(dest);
	op.tag = rec_tag(sendtag);
	op.bytes = send_bytes;
	op.recv_peer = rec_peer(source);
	op.recv_tag = rec_tag(recvtag);
	op.recv_bytes = recv_bytes;
	rec_end(c, &op);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
		 MPI_Comm comm, MPI_Status *status)
{
	struct rec_call c;
	int rc;

	rec_begin(&c);
	rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
			   recvtype, source, recvtag, comm, status);
	if (c.is_on)
		rec_sendrecv(&c, rc, comm, dest, sendtag, rec_bytes(sendcount, sendtype), source,
			     recvtag, rec_bytes(recvcount, recvtype));
	return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
			 int recvtag, MPI_Comm comm, MPI_Status *status)
{
	struct rec_call c;
	int rc;

	rec_begin(&c);
	rc = PMPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm, status);
	if (c.is_on) {
		uint64_t bytes = rec_bytes(count, dt);
		rec_sendrecv(&c, rc, comm, dest, sendtag, bytes, source, recvtag, bytes);
	}
	return rc;
}

/* Probes record the source and tag asked for and the size of the message
 * found (0 when Iprobe found none); n_done is 1 when a message was found.
 * Matched probes (record_mprobe.c) are recorded the same way. A probe of
 * MPI_PROC_NULL finds an empty message (MPI 4.0 §3.8.1), so its size is
 * not asked for. */
void rec_probe_end(struct rec_call *c, int rc, uint16_t kind, MPI_Comm comm, int source, int tag, int flag,
		   const MPI_Status *st)
{
	struct trace_op op = {.kind = kind};
	int n = 0;

	if (!c->is_on)
		return;
	op.comm = rec_comm_lookup(comm, NULL);
	if (rc != MPI_SUCCESS || op.comm == REC_COMM_NONE) {
		if (rc == MPI_SUCCESS)
			rec_unsupported(REC_UNSUP_COMM);
		rec_skip(c);
		return;
	}
	op.peer = rec_peer(source);
	op.tag = rec_tag(tag);
	op.n_done = flag ? 1 : 0;
	if (flag && source != MPI_PROC_NULL && PMPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS && n > 0)
		op.bytes = (uint64_t)n;
	rec_end(c, &op);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	struct rec_call c;
	MPI_Status own;
	int rc;

	rec_begin(&c);
	if (c.is_on && status == MPI_STATUS_IGNORE)
		status = &own;
	rc = PMPI_Probe(source, tag, comm, status);
	rec_probe_end(&c, rc, TOP_PROBE, comm, source, tag, 1, status);
	return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
	struct rec_call c;
	MPI_Status own;
	int rc;

	rec_begin(&c);
	if (c.is_on && status == MPI_STATUS_IGNORE)
		status = &own;
	rc = PMPI_Iprobe(source, tag, comm, flag, status);
	rec_probe_end(&c, rc, TOP_IPROBE, comm, source, tag, rc == MPI_SUCCESS && *flag, status);
	return rc;
}

/* --- persistent requests, free, cancel ------------------------------------ */

/* The id of request h, which a call on it (start, free, cancel) returned
 * rc for; REC_REQ_NONE, with the call skipped, when it failed or the
 * recorder does not know h (counted as such a call, not a completion). */
static uint32_t rec_req_known(struct rec_call *c, int rc, MPI_Request h, bool *is_cancelled)
{
	uint32_t id = rec_req_find(h, NULL, is_cancelled);

	if (rc != MPI_SUCCESS || id == REC_REQ_NONE) {
		if (rc == MPI_SUCCESS)
			rec_unsupported(REC_UNSUP_REQ_CALL);
		rec_skip(c);
		return REC_REQ_NONE;
	}
	return id;
}

int MPI_Start(MPI_Request *request)
{
	struct rec_call c;
	uint32_t id;
	int rc;

	rec_begin(&c);
	rc = PMPI_Start(request);
	if (!c.is_on)
		return rc;
	id = rec_req_known(&c, rc, *request, NULL);
	if (id == REC_REQ_NONE)
		return rc;
	rec_req_started(*request);
	struct trace_op op = {.kind = TOP_START, .req = id};
	rec_end(&c, &op);
	return rc;
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
	struct trace_op *ops = NULL;
	struct rec_call c;
	size_t n = 0;
	int rc;

	rec_begin(&c);
	rc = PMPI_Startall(count, array_of_requests);
	if (!c.is_on)
		return rc;
	if (rc == MPI_SUCCESS && count > 0)
		ops = rec_scratch_ops((size_t)count);
	for (int i = 0; ops && i < count; i++) {
		uint32_t id = rec_req_find(array_of_requests[i], NULL, NULL);
		if (id == REC_REQ_NONE) {
			rec_unsupported(REC_UNSUP_REQ_CALL);
			continue;
		}
		rec_req_started(array_of_requests[i]);
		ops[n++] = (struct trace_op){.kind = TOP_START, .req = id};
	}
	if (!n) {
		rec_skip(&c);
		return rc;
	}
	rec_end_n(&c, ops, n);
	return rc;
}

int MPI_Request_free(MPI_Request *request)
{
	struct rec_call c;
	MPI_Request h = *request;
	bool is_cancelled = false;
	uint32_t id;
	int rc;

	rec_begin(&c);
	rc = PMPI_Request_free(request);
	if (!c.is_on)
		return rc;
	id = rec_req_known(&c, rc, h, &is_cancelled);
	if (id == REC_REQ_NONE)
		return rc;
	if (is_cancelled) /* freed before it completed: never known */
		rec_cancel_outcome(id, -1);
	rec_req_release(h);
	struct trace_op op = {.kind = TOP_REQUEST_FREE, .req = id};
	rec_end(&c, &op);
	return rc;
}

int MPI_Cancel(MPI_Request *request)
{
	struct rec_call c;
	uint32_t id;
	int rc;

	rec_begin(&c);
	rc = PMPI_Cancel(request);
	if (!c.is_on)
		return rc;
	id = rec_req_known(&c, rc, *request, NULL);
	if (id == REC_REQ_NONE)
		return rc;
	if (rec_req_is_early(*request)) { /* its operation is not in the trace */
		rec_unsupported(REC_UNSUP_REQ_EARLY);
		rec_skip(&c);
		return rc;
	}
	rec_req_mark_cancelled(*request);
	/* The outcome comes with the completion: held until then. */
	struct trace_op op = {.kind = TOP_CANCEL, .req = id, .flags = TRACE_F_NO_OUTCOME};
	rec_end(&c, &op);
	return rc;
}

/* --- completion ------------------------------------------------------------ */

/* One request seen by a completion call: its id, or REC_REQ_NONE when the
 * recorder does not know it or its operation started before the recorded
 * window (both counted when it completes) or it is to be left out.
 * Completed non-persistent requests are forgotten. */
static uint32_t rec_completed(MPI_Request h, bool is_done, const MPI_Status *st)
{
	bool is_persistent = false, is_cancelled = false;
	uint32_t id;

	if (h == MPI_REQUEST_NULL)
		return REC_REQ_NONE;
	id = rec_req_find(h, &is_persistent, &is_cancelled);
	if (id == REC_REQ_NONE) {
		if (is_done)
			rec_unsupported(REC_UNSUP_REQ);
		return REC_REQ_NONE;
	}
	if (is_persistent && rec_req_is_early(h)) {
		if (is_done) {
			rec_unsupported(REC_UNSUP_REQ_EARLY);
			if (is_cancelled)
				rec_req_unmark_cancelled(h);
			rec_req_persistent_done(h);
		}
		return REC_REQ_NONE;
	}
	if (is_done && is_cancelled) {
		int was_cancelled = 0;
		if (st != MPI_STATUS_IGNORE)
			PMPI_Test_cancelled(st, &was_cancelled);
		rec_cancel_outcome(id, st != MPI_STATUS_IGNORE ? was_cancelled != 0 : -1);
		if (is_persistent)
			rec_req_unmark_cancelled(h);
	}
	if (is_done && !is_persistent)
		rec_req_release(h);
	else if (is_done)
		rec_req_persistent_done(h);
	return id;
}

/* Statuses for a completion call: the program's, or ours when it ignores
 * them but a cancelled request needs its status checked. */
static MPI_Status *rec_statuses(MPI_Status *user, int n, MPI_Status **own)
{
	*own = NULL;
	if (user != MPI_STATUSES_IGNORE || !rec_req_n_cancelled() || n <= 0)
		return user;
	*own = malloc((size_t)n * sizeof **own);
	return *own ? *own : user;
}

static void rec_completion_end(struct rec_call *c, uint16_t kind, uint32_t *ids, uint32_t n,
			       uint32_t n_done)
{
	struct trace_op op = {.kind = kind, .reqs = ids, .n_reqs = n, .n_done = n_done};

	if (!n) {
		rec_skip(c);
		return;
	}
	if (kind == TOP_WAIT || kind == TOP_TEST) {
		op.req = ids[0];
		op.reqs = NULL;
		op.n_reqs = 0;
	}
	rec_end(c, &op);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	MPI_Request h = *request;
	struct rec_call c;
	MPI_Status own;
	uint32_t id;
	int rc;

	rec_begin(&c);
	if (c.is_on && status == MPI_STATUS_IGNORE && rec_req_n_cancelled())
		status = &own;
	rc = PMPI_Wait(request, status);
	if (!c.is_on)
		return rc;
	if (rc != MPI_SUCCESS) {
		rec_skip(&c);
		return rc;
	}
	id = rec_completed(h, true, status);
	rec_completion_end(&c, TOP_WAIT, &id, id != REC_REQ_NONE, 1);
	return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	MPI_Request h = *request;
	struct rec_call c;
	MPI_Status own;
	uint32_t id;
	int rc;

	rec_begin(&c);
	if (c.is_on && status == MPI_STATUS_IGNORE && rec_req_n_cancelled())
		status = &own;
	rc = PMPI_Test(request, flag, status);
	if (!c.is_on)
		return rc;
	if (rc != MPI_SUCCESS) {
		rec_skip(&c);
		return rc;
	}
	id = rec_completed(h, *flag, status);
	rec_completion_end(&c, TOP_TEST, &id, id != REC_REQ_NONE, *flag ? 1 : 0);
	return rc;
}

/* Copy the handles before the call: MPI sets completed ones to
 * MPI_REQUEST_NULL. */
static MPI_Request *rec_save_handles(struct rec_call *c, int n, const MPI_Request *reqs)
{
	MPI_Request *h;

	if (!c->is_on || n <= 0)
		return NULL;
	h = rec_scratch_handles((size_t)n);
	if (!h) {
		rec_skip(c);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		h[i] = reqs[i];
	return h;
}

static const MPI_Status *rec_status_at(const MPI_Status *sts, int i)
{
	return sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
}

/* Waitall / Testall: every request completes together (or none did). */
static int rec_all(struct rec_call *c, int rc, uint16_t kind, int n, const MPI_Request *h,
		   bool is_done, const MPI_Status *sts)
{
	uint32_t *ids, k = 0;

	if (!c->is_on)
		return rc;
	if (rc != MPI_SUCCESS || !h) {
		if (c->is_on)
			rec_skip(c);
		return rc;
	}
	ids = rec_scratch_reqs((size_t)n);
	if (!ids) {
		rec_skip(c);
		return rc;
	}
	for (int i = 0; i < n; i++) {
		uint32_t id = rec_completed(h[i], is_done, rec_status_at(sts, i));
		if (id != REC_REQ_NONE)
			ids[k++] = id;
	}
	rec_completion_end(c, kind, ids, k, is_done ? k : 0);
	return rc;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
	struct rec_call c;
	MPI_Request *h;
	MPI_Status *own = NULL, *sts;
	int rc;

	rec_begin(&c);
	h = rec_save_handles(&c, count, array_of_requests);
	sts = c.is_on ? rec_statuses(array_of_statuses, count, &own) : array_of_statuses;
	rc = PMPI_Waitall(count, array_of_requests, sts);
	rec_all(&c, rc, TOP_WAITALL, count, h, true, sts);
	free(own);
	return rc;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
		MPI_Status array_of_statuses[])
{
	struct rec_call c;
	MPI_Request *h;
	MPI_Status *own = NULL, *sts;
	int rc;

	rec_begin(&c);
	h = rec_save_handles(&c, count, array_of_requests);
	sts = c.is_on ? rec_statuses(array_of_statuses, count, &own) : array_of_statuses;
	rc = PMPI_Testall(count, array_of_requests, flag, sts);
	rec_all(&c, rc, TOP_TESTALL, count, h, rc == MPI_SUCCESS && *flag, sts);
	free(own);
	return rc;
}

/* Waitany / Testany / Waitsome / Testsome: done[0..n_done) completed (indices
 * into h), the other live requests follow in their original order. */
static int rec_some(struct rec_call *c, int rc, uint16_t kind, int n, const MPI_Request *h,
		    const int *done, int n_done, const MPI_Status *sts)
{
	uint32_t *ids, k = 0, k_done = 0;
	int *is_done;

	if (!c->is_on)
		return rc;
	if (rc != MPI_SUCCESS || !h || n_done == MPI_UNDEFINED) {
		rec_skip(c);
		return rc;
	}
	ids = rec_scratch_reqs((size_t)n);
	is_done = rec_scratch_ints((size_t)n);
	if (!ids || !is_done) {
		rec_skip(c);
		return rc;
	}
	for (int i = 0; i < n; i++)
		is_done[i] = 0;
	for (int j = 0; j < n_done; j++) {
		uint32_t id;
		is_done[done[j]] = 1;
		id = rec_completed(h[done[j]], true, rec_status_at(sts, j));
		if (id != REC_REQ_NONE)
			ids[k++] = id;
	}
	k_done = k;
	for (int i = 0; i < n; i++) {
		uint32_t id;
		if (is_done[i])
			continue;
		id = rec_completed(h[i], false, MPI_STATUS_IGNORE);
		if (id != REC_REQ_NONE)
			ids[k++] = id;
	}
	rec_completion_end(c, kind, ids, k, k_done);
	return rc;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
	struct rec_call c;
	MPI_Request *h;
	MPI_Status own;
	int rc;

	rec_begin(&c);
	h = rec_save_handles(&c, count, array_of_requests);
	if (c.is_on && status == MPI_STATUS_IGNORE && rec_req_n_cancelled())
		status = &own;
	rc = PMPI_Waitany(count, array_of_requests, index, status);
	rec_some(&c, rc, TOP_WAITANY, count, h, index, *index == MPI_UNDEFINED ? 0 : 1, status);
	return rc;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
		MPI_Status *status)
{
	struct rec_call c;
	MPI_Request *h;
	MPI_Status own;
	int rc, n_done;

	rec_begin(&c);
	h = rec_save_handles(&c, count, array_of_requests);
	if (c.is_on && status == MPI_STATUS_IGNORE && rec_req_n_cancelled())
		status = &own;
	rc = PMPI_Testany(count, array_of_requests, index, flag, status);
	/* flag with MPI_UNDEFINED: no active request at all, nothing to record. */
	n_done = rc != MPI_SUCCESS ? 0 : !*flag ? 0 : *index == MPI_UNDEFINED ? MPI_UNDEFINED : 1;
	rec_some(&c, rc, TOP_TESTANY, count, h, index, n_done, status);
	return rc;
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
		 int array_of_indices[], MPI_Status array_of_statuses[])
{
	struct rec_call c;
	MPI_Request *h;
	MPI_Status *own = NULL, *sts;
	int rc;

	rec_begin(&c);
	h = rec_save_handles(&c, incount, array_of_requests);
	sts = c.is_on ? rec_statuses(array_of_statuses, incount, &own) : array_of_statuses;
	rc = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, sts);
	rec_some(&c, rc, TOP_WAITSOME, incount, h, array_of_indices, *outcount, sts);
	free(own);
	return rc;
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
		 int array_of_indices[], MPI_Status array_of_statuses[])
{
	struct rec_call c;
	MPI_Request *h;
	MPI_Status *own = NULL, *sts;
	int rc;

	rec_begin(&c);
	h = rec_save_handles(&c, incount, array_of_requests);
	sts = c.is_on ? rec_statuses(array_of_statuses, incount, &own) : array_of_statuses;
	rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, sts);
	rec_some(&c, rc, TOP_TESTSOME, incount, h, array_of_indices, *outcount, sts);
	free(own);
	return rc;
}
