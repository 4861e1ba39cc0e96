/* OTF2 export: a trace's ops, with their recorded times (`trace export
 * --otf2`) or a replay's predicted ones (`replay --otf2`), as an OTF2
 * archive that otf2-print, Vampir and netloom's own importer read.
 *
 * Layout: DIR/traces.otf2 (anchor), DIR/traces.def, DIR/traces/<rank>.evt;
 * written into a temporary sibling directory and renamed at the end, so
 * DIR appears complete or not at all; the temporary directory is a staged
 * output (core/output.h), removed when SIGINT or SIGTERM ends the work,
 * and each op polls for that signal. Timer resolution 10^12 ticks/s:
 * timestamps are netloom's picoseconds, offset 0. Location r is rank r.
 * Each op is its MPI region (compute: region "compute", paradigm user)
 * from start to end, with the records Score-P writes for the call, sizes
 * in Score-P's convention so that the importer's Score-P rules read back
 * the op's own sizes (docs/trace-format.md, OTF2). What OTF2 has no record
 * for goes into NETLOOM:: attributes of the region's Enter (probes,
 * cancels, op flags, compute CPU times: TRACE_OTF2_ATTR_*), which
 * netloom's import reads back; ops no attribute describes (persistent
 * requests, non-blocking collectives, other cancels) keep their region,
 * and they and the v-variants (byte totals only) are counted on stderr.
 */
#include "traces/traces_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/output.h"

enum { REGION_COMPUTE = TOP__COUNT, N_REGIONS, STR_REGION0 = 16 };

/* The NETLOOM:: event attributes (traces_internal.h), by OTF2 reference. */
enum { ATTR_PEER, ATTR_TAG, ATTR_COMM, ATTR_BYTES, ATTR_DONE, ATTR_FLAGS, ATTR_CPU, ATTR_REQUEST, N_ATTRS };
static const struct {
	const char *name, *desc;
	OTF2_Type type;
} attr_defs[N_ATTRS] = {
	[ATTR_PEER] = {TRACE_OTF2_ATTR_PEER, "netloom probe: source rank in the communicator", OTF2_TYPE_INT32},
	[ATTR_TAG] = {TRACE_OTF2_ATTR_TAG, "netloom probe: tag", OTF2_TYPE_INT32},
	[ATTR_COMM] = {TRACE_OTF2_ATTR_COMM, "netloom probe: communicator", OTF2_TYPE_COMM},
	[ATTR_BYTES] = {TRACE_OTF2_ATTR_BYTES, "netloom probe: bytes of the message found", OTF2_TYPE_UINT64},
	[ATTR_DONE] = {TRACE_OTF2_ATTR_DONE, "netloom probe, cancel: 1 when a message was found, the cancel succeeded",
		       OTF2_TYPE_UINT32},
	[ATTR_FLAGS] = {TRACE_OTF2_ATTR_FLAGS, "netloom op flags (2 MPI_IN_PLACE, 4 outcome unknown)", OTF2_TYPE_UINT32},
	[ATTR_CPU] = {TRACE_OTF2_ATTR_CPU, "netloom compute: thread CPU time of the interval, ps", OTF2_TYPE_UINT64},
	[ATTR_REQUEST] = {TRACE_OTF2_ATTR_REQUEST, "netloom cancel: the request cancelled", OTF2_TYPE_UINT64},
};
/* The op flags an attribute carries: the others follow from the records. */
#define EXPORT_FLAGS (TRACE_F_IN_PLACE | TRACE_F_NO_OUTCOME)

struct ex_req {
	uint64_t id;        /* OTF2 request id */
	bool live, is_recv;
	int32_t peer, tag;
	uint32_t comm;
	uint64_t bytes;
};

struct ex_rank {
	OTF2_EvtWriter *w;   /* open from the rank's first event to its ProgramEnd */
	bool is_ended;       /* ProgramEnd written, the writer closed */
	uint64_t n_events;
	uint64_t last_ps;
	struct ex_req *reqs; /* by netloom request id */
	uint32_t n_reqs;
	uint64_t next_id;
};

struct trace_otf2_writer {
	char *dir, *tmp;
	bool staged;              /* tmp registered with out_staged_add */
	OTF2_Archive *ar;
	OTF2_AttributeList *al;   /* the next Enter's attributes (emptied by each write) */
	uint32_t n_ranks;
	struct ex_rank *ranks;
	struct trace_comm *comms; /* copy of the manifest's, ids >= 2 */
	uint32_t n_comms;
	uint64_t skipped[TOP__COUNT];
	uint64_t totals_only[TOP__COUNT]; /* v-variants: byte totals, no per-rank sizes */
	uint64_t length_ps;
	OTF2_ErrorCode otf2_err;  /* the first error OTF2 raised (otf2_error), or OTF2_SUCCESS */
	bool has_cb;              /* otf2_error registered with this writer */
	int rc;                   /* first error */
	struct nl_err err;
};

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *caller, bool final)
{
	(void)ud, (void)ft, (void)loc, (void)caller, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)ud, (void)ft, (void)loc;
	return 0;
}

/* OTF2's error callback, ud the writer: the first error is kept, to be
 * reported by the caller as one line. OTF2 drops some errors it raises:
 * a buffer whose write to its file fails (a full disk) is noticed only when
 * the file is closed, and OTF2_Archive_CloseEvtWriter and
 * OTF2_Archive_Close still return OTF2_SUCCESS (OTF2 3.0: "Write of
 * buffered data failed!" raised, not returned), so each step checks this
 * too (otf2_check). */
static OTF2_ErrorCode otf2_error(void *ud, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
				 const char *msg, va_list va)
{
	(void)file, (void)line, (void)fn, (void)msg, (void)va;
	struct trace_otf2_writer *w = ud;
	if (w && code > OTF2_SUCCESS && w->otf2_err == OTF2_SUCCESS)
		w->otf2_err = code;
	return code;
}

static const OTF2_FlushCallbacks flush_cbs = {.otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush};

/* Communicator `comm` (id >= 2) of w, or NULL: a binary search, as the
 * manifest's communicators are sorted by id (trace_otf2_writer_new checks
 * it). Looked up for most ops: a scan cost O(communicators) per op, which
 * a tiled trace's thousands of communicators made the export's largest
 * cost (16,384 ranks, 2,048 communicators). */
static const struct trace_comm *ex_comm(const struct trace_otf2_writer *w, uint32_t comm)
{
	return trace_comms_find(w->comms, w->n_comms, comm);
}

static uint32_t comm_size(const struct trace_otf2_writer *w, uint32_t comm)
{
	if (comm == TRACE_COMM_WORLD)
		return w->n_ranks;
	if (comm == TRACE_COMM_SELF)
		return 1;
	const struct trace_comm *c = ex_comm(w, comm);
	return c ? c->size : 1;
}

/* The OTF2 reference of netloom communicator `comm`: world 0, self 1,
 * the others 2, 3, ... in the manifest's order. The ids themselves (the
 * recorder's are 32-bit hashes) as references made otf2-print warn of
 * "out of order Comm definitions". */
static uint32_t comm_ref(const struct trace_otf2_writer *w, uint32_t comm)
{
	if (comm == TRACE_COMM_WORLD)
		return 0;
	if (comm == TRACE_COMM_SELF)
		return 1;
	const struct trace_comm *c = ex_comm(w, comm);
	return c ? 2 + (uint32_t)(c - w->comms) : OTF2_UNDEFINED_COMM;
}

/* The first error, as one line naming DIR, the step and OTF2's text;
 * the first error OTF2 raised is the cause (a full disk: "File is too
 * large", "No space left on device"), a step's own code its consequence
 * ("An error appeared when data was processed"). */
static int fail(struct trace_otf2_writer *w, OTF2_ErrorCode e, const char *what)
{
	if (w->otf2_err != OTF2_SUCCESS)
		e = w->otf2_err;
	if (!w->rc)
		w->rc = nl_errf(&w->err, NL_EIO, "%s: cannot write the OTF2 archive (%s): %s", w->dir, what,
				OTF2_Error_GetDescription(e));
	return w->rc;
}

/* A step that returned e: its error, or one OTF2 raised and did not
 * return (otf2_error). */
static int otf2_check(struct trace_otf2_writer *w, OTF2_ErrorCode e, const char *what)
{
	if (e != OTF2_SUCCESS || w->otf2_err != OTF2_SUCCESS)
		return fail(w, e, what);
	return 0;
}

#define OK(w, call, what)                                  \
	do {                                               \
		OTF2_ErrorCode e_ = (call);                \
		if (e_ != OTF2_SUCCESS)                    \
			return fail((w), e_, (what));      \
	} while (0)

/* The manifest fields OTF2 has no definition for, as trace file
 * properties (NETLOOM::..., TRACE_OTF2_PROP_*), which netloom's import
 * reads back (import_otf2.c): the program, its command line, machine,
 * MPI library and recorder (whose name says whether a collective's 0 bytes
 * is count 0: docs/replay.md, "Count 0"), the host layout that says
 * whether a recorded runtime is comparable, and the mark of netloom's own
 * export. An empty string is not written (OTF2 reads it as removal). */
static OTF2_ErrorCode otf2_set_manifest(OTF2_Archive *ar, const struct trace_manifest *m)
{
	const char *const str[][2] = {{TRACE_OTF2_PROP_APPLICATION, m->application},
				      {TRACE_OTF2_PROP_COMMAND_LINE, m->command_line},
				      {TRACE_OTF2_PROP_MACHINE, m->machine},
				      {TRACE_OTF2_PROP_MPI_LIBRARY, m->mpi_library}};
	OTF2_ErrorCode e = OTF2_SUCCESS;
	for (size_t i = 0; e == OTF2_SUCCESS && i < sizeof str / sizeof *str; i++)
		if (str[i][1] && str[i][1][0])
			e = OTF2_Archive_SetProperty(ar, str[i][0], str[i][1], true);
	if (e == OTF2_SUCCESS)
		e = OTF2_Archive_SetProperty(ar, TRACE_OTF2_PROP_EXPORT, "1", true);
	if (e == OTF2_SUCCESS && m->recorder && m->recorder[0])
		e = OTF2_Archive_SetProperty(ar, TRACE_OTF2_PROP_RECORDER, m->recorder, true);
	if (e == OTF2_SUCCESS && m->has_compute_cpu)
		e = OTF2_Archive_SetProperty(ar, TRACE_OTF2_PROP_COMPUTE_CPU, "1", true);
	char v[64];
	if (e == OTF2_SUCCESS && m->has_host_info) {
		snprintf(v, sizeof v, "%u %u %u", m->hosts, m->ranks_per_host, m->cores_per_host);
		e = OTF2_Archive_SetProperty(ar, TRACE_OTF2_PROP_HOSTS, v, true);
	}
	if (e == OTF2_SUCCESS && m->start_unix) {
		snprintf(v, sizeof v, "%llu", (unsigned long long)m->start_unix);
		e = OTF2_Archive_SetProperty(ar, TRACE_OTF2_PROP_START_UNIX, v, true);
	}
	if (e == OTF2_SUCCESS && m->recorded_runtime_s > 0) {
		snprintf(v, sizeof v, "%.17g", m->recorded_runtime_s);
		e = OTF2_Archive_SetProperty(ar, TRACE_OTF2_PROP_RUNTIME, v, true);
	}
	return e;
}

int trace_otf2_writer_new(struct trace_otf2_writer **wp, const char *dir, const struct trace_manifest *m,
			  struct nl_err *err)
{
	struct stat st;
	*wp = NULL;
	if (!*dir)
		return nl_errf(err, NL_EINVAL, "empty directory name (expected a new directory for the OTF2 archive)");
	if (!stat(dir, &st))
		return nl_errf(err, NL_ECONFIG, "%s: already exists (expected a new directory for the OTF2 archive)", dir);
	for (uint32_t i = 1; i < m->n_comms; i++)
		if (m->comms[i - 1].id >= m->comms[i].id) /* ex_comm's binary search */
			return nl_errf(err, NL_EINVAL, "%s: communicator %u after %u: expected ids in increasing order",
				       dir, m->comms[i].id, m->comms[i - 1].id);
	struct trace_otf2_writer *w = calloc(1, sizeof *w);
	size_t len = strlen(dir);
	/* tmp zeroed: until its template is written it is "", which the
	 * out-of-memory path's trace_otf2_writer_free (out_remove_tree)
	 * leaves alone; malloc's bytes were a path it would remove. */
	if (!w || !(w->dir = trace_strdup(dir)) || !(w->tmp = calloc(1, len + 16)) ||
	    !(w->ranks = calloc(m->n_ranks ? m->n_ranks : 1, sizeof *w->ranks)) ||
	    !(w->comms = calloc(m->n_comms ? m->n_comms : 1, sizeof *w->comms)))
		goto oom;
	w->n_ranks = m->n_ranks;
	for (uint32_t i = 0; i < m->n_comms; i++) {
		if (m->comms[i].id < 2)
			continue;
		struct trace_comm *c = &w->comms[w->n_comms];
		*c = m->comms[i];
		if (!(c->world_ranks = malloc((c->size ? c->size : 1) * sizeof *c->world_ranks)))
			goto oom;
		memcpy(c->world_ranks, m->comms[i].world_ranks, c->size * sizeof *c->world_ranks);
		w->n_comms++;
	}
	snprintf(w->tmp, len + 16, "%s.tmp-XXXXXX", dir);
	/* Registered before it exists: no moment when a signal leaves it. */
	int rc = out_staged_add(w->tmp, err);
	if (rc) {
		free(w->tmp);
		w->tmp = NULL;
		trace_otf2_writer_free(w);
		return rc;
	}
	w->staged = true;
	if (!mkdtemp(w->tmp)) {
		int e = errno;
		out_staged_del(w->tmp);
		w->staged = false;
		free(w->tmp);
		w->tmp = NULL;
		trace_otf2_writer_free(w);
		return nl_errf(err, NL_EIO, "%s: cannot create a directory beside it: %s", dir, strerror(e));
	}
	rmdir(w->tmp); /* OTF2 creates it */
	OTF2_Error_RegisterCallback(otf2_error, w);
	w->has_cb = true;
	w->ar = OTF2_Archive_Open(w->tmp, "traces", OTF2_FILEMODE_WRITE, 256 * 1024, 4 * 1024 * 1024,
				  OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!w->ar || !(w->al = OTF2_AttributeList_New()))
		rc = nl_errf(err, NL_EIO, "%s: cannot create the OTF2 archive", dir);
	if (!rc && (OTF2_Archive_SetFlushCallbacks(w->ar, &flush_cbs, NULL) != OTF2_SUCCESS ||
		    OTF2_Archive_SetSerialCollectiveCallbacks(w->ar) != OTF2_SUCCESS ||
		    OTF2_Archive_SetCreator(w->ar, "netloom " NETLOOM_VERSION) != OTF2_SUCCESS ||
		    OTF2_Archive_OpenEvtFiles(w->ar) != OTF2_SUCCESS))
		rc = nl_errf(err, NL_EIO, "%s: cannot set up the OTF2 archive", dir);
	if (!rc && otf2_set_manifest(w->ar, m) != OTF2_SUCCESS)
		rc = nl_errf(err, NL_EIO, "%s: cannot write the trace's description into the OTF2 archive", dir);
	if (rc) {
		trace_otf2_writer_free(w);
		return rc;
	}
	*wp = w;
	return 0;
oom:
	trace_otf2_writer_free(w);
	return nl_errf(err, NL_ENOMEM, "out of memory");
}

/* --- events ------------------------------------------------------------------------ */

static uint32_t peer_u(int32_t p)
{
	return p == TRACE_ANY_SOURCE ? TRACE_OTF2_ANY_SOURCE : p < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)p;
}

static struct ex_req *req_slot(struct trace_otf2_writer *w, struct ex_rank *rk, uint32_t req)
{
	if (req >= rk->n_reqs) {
		uint32_t n = rk->n_reqs ? rk->n_reqs : 16;
		while (n <= req)
			n *= 2;
		struct ex_req *q = realloc(rk->reqs, n * sizeof *q);
		if (!q) {
			if (!w->rc)
				w->rc = nl_errf(&w->err, NL_ENOMEM, "out of memory");
			return NULL;
		}
		memset(q + rk->n_reqs, 0, (n - rk->n_reqs) * sizeof *q);
		rk->reqs = q;
		rk->n_reqs = n;
	}
	return &rk->reqs[req];
}

/* The live request req of rk (created by an isend or irecv written as
 * such), or NULL. */
static const struct ex_req *live_req(const struct ex_rank *rk, uint32_t req)
{
	return req < rk->n_reqs && rk->reqs[req].live ? &rk->reqs[req] : NULL;
}

static int complete(struct trace_otf2_writer *w, struct ex_rank *rk, uint32_t req, uint64_t t)
{
	struct ex_req *q = req < rk->n_reqs ? &rk->reqs[req] : NULL;
	if (!q || !q->live)
		return 0;
	q->live = false;
	rk->n_events++;
	if (q->is_recv)
		OK(w, OTF2_EvtWriter_MpiIrecv(rk->w, NULL, t, peer_u(q->peer), comm_ref(w, q->comm), (uint32_t)q->tag, q->bytes, q->id),
		   "MpiIrecv");
	else
		OK(w, OTF2_EvtWriter_MpiIsendComplete(rk->w, NULL, t, q->id), "MpiIsendComplete");
	return 0;
}

static int tested(struct trace_otf2_writer *w, struct ex_rank *rk, uint32_t req, uint64_t t)
{
	struct ex_req *q = req < rk->n_reqs ? &rk->reqs[req] : NULL;
	if (!q || !q->live)
		return 0;
	rk->n_events++;
	OK(w, OTF2_EvtWriter_MpiRequestTest(rk->w, NULL, t, q->id), "MpiRequestTest");
	return 0;
}

/* The collective record: operation and the Score-P byte totals whose
 * import (otf2_events.c) gives back the op's per-rank sizes. */
static int collective(struct trace_otf2_writer *w, struct ex_rank *rk, const struct trace_op *op, uint32_t rank,
		      uint64_t t0, uint64_t t1)
{
	uint64_t n = comm_size(w, op->comm), sent = 0, recvd = 0, sum_s = 0, sum_r = 0;
	bool root = false;
	if (op->kind == TOP_BCAST || op->kind == TOP_GATHER || op->kind == TOP_SCATTER || op->kind == TOP_REDUCE ||
	    op->kind == TOP_GATHERV || op->kind == TOP_SCATTERV) {
		const struct trace_comm *c = ex_comm(w, op->comm);
		uint32_t me = op->comm == TRACE_COMM_SELF ? 0 : rank;
		if (c)
			for (uint32_t i = 0; i < c->size; i++)
				if (c->world_ranks[i] == rank)
					me = i;
		root = op->peer >= 0 && (uint32_t)op->peer == me;
	}
	for (uint32_t i = 0; i < op->n_counts; i++) {
		sum_s += op->send_counts ? op->send_counts[i] : 0;
		sum_r += op->recv_counts ? op->recv_counts[i] : 0;
	}
	OTF2_CollectiveOp cop;
	switch (op->kind) {
	case TOP_BARRIER: cop = OTF2_COLLECTIVE_OP_BARRIER; break;
	case TOP_BCAST: cop = OTF2_COLLECTIVE_OP_BCAST; sent = root ? n * op->bytes : 0; recvd = op->bytes; break;
	case TOP_GATHER: cop = OTF2_COLLECTIVE_OP_GATHER; sent = op->bytes; recvd = n * op->recv_bytes; break;
	case TOP_SCATTER: cop = OTF2_COLLECTIVE_OP_SCATTER; sent = n * op->bytes; recvd = op->recv_bytes; break;
	case TOP_REDUCE: cop = OTF2_COLLECTIVE_OP_REDUCE; sent = op->bytes; recvd = root ? n * op->bytes : 0; break;
	case TOP_ALLREDUCE: cop = OTF2_COLLECTIVE_OP_ALLREDUCE; sent = recvd = n * op->bytes; break;
	case TOP_ALLGATHER: cop = OTF2_COLLECTIVE_OP_ALLGATHER; sent = n * op->bytes; recvd = n * op->recv_bytes; break;
	case TOP_ALLTOALL: cop = OTF2_COLLECTIVE_OP_ALLTOALL; sent = n * op->bytes; recvd = n * op->recv_bytes; break;
	case TOP_SCAN: cop = OTF2_COLLECTIVE_OP_SCAN; sent = op->bytes; break;
	case TOP_EXSCAN: cop = OTF2_COLLECTIVE_OP_EXSCAN; sent = op->bytes; break;
	case TOP_REDUCE_SCATTER_BLOCK: cop = OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK; sent = n * op->bytes; break;
	case TOP_REDUCE_SCATTER: cop = OTF2_COLLECTIVE_OP_REDUCE_SCATTER; sent = sum_r ? sum_r : n * op->bytes; break;
	case TOP_GATHERV: cop = OTF2_COLLECTIVE_OP_GATHERV; sent = op->bytes; recvd = sum_r; break;
	case TOP_SCATTERV: cop = OTF2_COLLECTIVE_OP_SCATTERV; sent = sum_s; recvd = op->recv_bytes; break;
	case TOP_ALLGATHERV: cop = OTF2_COLLECTIVE_OP_ALLGATHERV; sent = n * op->bytes; recvd = sum_r; break;
	case TOP_ALLTOALLV: cop = OTF2_COLLECTIVE_OP_ALLTOALLV; sent = sum_s; recvd = sum_r; break;
	default: cop = OTF2_COLLECTIVE_OP_ALLTOALLW; sent = sum_s; recvd = sum_r; break;
	}
	if (op->kind == TOP_GATHERV || op->kind == TOP_SCATTERV || op->kind == TOP_ALLGATHERV ||
	    op->kind == TOP_ALLTOALLV || op->kind == TOP_ALLTOALLW || op->kind == TOP_REDUCE_SCATTER)
		w->totals_only[op->kind]++;
	uint32_t r = op->kind == TOP_BCAST || op->kind == TOP_GATHER || op->kind == TOP_SCATTER || op->kind == TOP_REDUCE ||
			     op->kind == TOP_GATHERV || op->kind == TOP_SCATTERV
		? peer_u(op->peer) : OTF2_UNDEFINED_UINT32;
	rk->n_events += 2;
	OK(w, OTF2_EvtWriter_MpiCollectiveBegin(rk->w, NULL, t0), "MpiCollectiveBegin");
	OK(w, OTF2_EvtWriter_MpiCollectiveEnd(rk->w, NULL, t1, cop, comm_ref(w, op->comm), r, sent, recvd), "MpiCollectiveEnd");
	return 0;
}

static int records(struct trace_otf2_writer *w, struct ex_rank *rk, const struct trace_op *op, uint32_t rank,
		   uint64_t t0, uint64_t t1)
{
	struct ex_req *q;
	switch (op->kind) {
	case TOP_COMPUTE:
	case TOP_COMPUTE_FLOPS:
	case TOP_INIT:
	case TOP_FINALIZE:
	case TOP_COMM_FREE:
	case TOP_PROBE:  /* no record: attributes (enter_attrs) */
	case TOP_IPROBE:
		return 0;
	case TOP_CANCEL: /* the same, for a request the records name */
		if (live_req(rk, op->req))
			return 0;
		break;
	case TOP_SEND:
	case TOP_SSEND:
	case TOP_BSEND:
	case TOP_RSEND:
	case TOP_SENDRECV:
		rk->n_events++;
		OK(w, OTF2_EvtWriter_MpiSend(rk->w, NULL, t0, peer_u(op->peer), comm_ref(w, op->comm), (uint32_t)op->tag, op->bytes),
		   "MpiSend");
		if (op->kind != TOP_SENDRECV)
			return 0;
		rk->n_events++;
		OK(w, OTF2_EvtWriter_MpiRecv(rk->w, NULL, t1, peer_u(op->recv_peer), comm_ref(w, op->comm), (uint32_t)op->recv_tag,
					     op->recv_bytes), "MpiRecv");
		return 0;
	case TOP_RECV:
		rk->n_events++;
		OK(w, OTF2_EvtWriter_MpiRecv(rk->w, NULL, t1, peer_u(op->peer), comm_ref(w, op->comm), (uint32_t)op->tag, op->bytes),
		   "MpiRecv");
		return 0;
	case TOP_ISEND:
	case TOP_ISSEND:
	case TOP_IRECV:
		if (!(q = req_slot(w, rk, op->req)))
			return w->rc;
		*q = (struct ex_req){.id = rk->next_id++, .live = true, .is_recv = op->kind == TOP_IRECV,
				     .peer = op->peer, .tag = op->tag, .comm = op->comm, .bytes = op->bytes};
		rk->n_events++;
		if (q->is_recv)
			OK(w, OTF2_EvtWriter_MpiIrecvRequest(rk->w, NULL, t0, q->id), "MpiIrecvRequest");
		else
			OK(w, OTF2_EvtWriter_MpiIsend(rk->w, NULL, t0, peer_u(op->peer), comm_ref(w, op->comm), (uint32_t)op->tag,
						      op->bytes, q->id), "MpiIsend");
		return 0;
	case TOP_WAIT:
		return complete(w, rk, op->req, t1);
	case TOP_TEST:
		return op->n_done ? complete(w, rk, op->req, t1) : tested(w, rk, op->req, t1);
	case TOP_WAITALL:
	case TOP_WAITANY:
	case TOP_WAITSOME:
	case TOP_TESTALL:
	case TOP_TESTANY:
	case TOP_TESTSOME: {
		uint32_t done = op->kind == TOP_WAITALL ? op->n_reqs : op->kind == TOP_TESTALL ? (op->n_done ? op->n_reqs : 0)
			: op->n_done;
		for (uint32_t i = 0; i < op->n_reqs; i++)
			NL_CHECK(i < done ? complete(w, rk, op->reqs[i], t1) : tested(w, rk, op->reqs[i], t1));
		return 0;
	}
	case TOP_COMM_SPLIT:
	case TOP_COMM_DUP:
	case TOP_COMM_CREATE:
		rk->n_events += 2;
		OK(w, OTF2_EvtWriter_MpiCollectiveBegin(rk->w, NULL, t0), "MpiCollectiveBegin");
		if (op->new_comm != TRACE_COMM_NULL) {
			rk->n_events++;
			OK(w, OTF2_EvtWriter_CommCreate(rk->w, NULL, t1, comm_ref(w, op->new_comm)), "CommCreate");
		}
		OK(w, OTF2_EvtWriter_MpiCollectiveEnd(rk->w, NULL, t1, OTF2_COLLECTIVE_OP_CREATE_HANDLE, comm_ref(w, op->comm),
						      OTF2_UNDEFINED_UINT32, 0, 0), "MpiCollectiveEnd");
		return 0;
	default:
		break;
	}
	if (op->kind >= TOP_BARRIER && op->kind <= TOP_EXSCAN && !(op->flags & TRACE_F_NONBLOCKING))
		return collective(w, rk, op, rank, t0, t1);
	w->skipped[op->kind]++;
	return 0;
}

/* The attributes of op's Enter (TRACE_OTF2_ATTR_*): what its records do
 * not say. */
static OTF2_ErrorCode enter_attrs(struct trace_otf2_writer *w, const struct ex_rank *rk, const struct trace_op *op)
{
	OTF2_ErrorCode e = OTF2_SUCCESS;
	const struct ex_req *q = op->kind == TOP_CANCEL ? live_req(rk, op->req) : NULL;
	if (q) {
		e = OTF2_AttributeList_AddUint64(w->al, ATTR_REQUEST, q->id);
		if (e == OTF2_SUCCESS)
			e = OTF2_AttributeList_AddUint32(w->al, ATTR_DONE, op->n_done);
	}
	if (op->kind == TOP_PROBE || op->kind == TOP_IPROBE) {
		e = OTF2_AttributeList_AddInt32(w->al, ATTR_PEER, op->peer);
		if (e == OTF2_SUCCESS)
			e = OTF2_AttributeList_AddInt32(w->al, ATTR_TAG, op->tag);
		if (e == OTF2_SUCCESS)
			e = OTF2_AttributeList_AddCommRef(w->al, ATTR_COMM, comm_ref(w, op->comm));
		if (e == OTF2_SUCCESS)
			e = OTF2_AttributeList_AddUint64(w->al, ATTR_BYTES, op->bytes);
		if (e == OTF2_SUCCESS)
			e = OTF2_AttributeList_AddUint32(w->al, ATTR_DONE, op->n_done);
	}
	if (e == OTF2_SUCCESS && (op->flags & EXPORT_FLAGS))
		e = OTF2_AttributeList_AddUint32(w->al, ATTR_FLAGS, op->flags & EXPORT_FLAGS);
	if (e == OTF2_SUCCESS && op->kind == TOP_COMPUTE && op->cpu_ps)
		e = OTF2_AttributeList_AddUint64(w->al, ATTR_CPU, op->cpu_ps);
	return e;
}

/* Rank r's event writer, opened at its first event with ProgramBegin at 0
 * (the importer's time origin, otf2_events.c). Opened then, not all at
 * the start: OTF2 gives each writer its first chunk as it opens, so a
 * rank-by-rank export that opened every rank's at once touched a chunk
 * per rank, which the heap kept after the rank's close (16,384 ranks:
 * 4.2 GB); opened in turn, each rank reuses the chunk the last one freed. */
static int ex_rank_begin(struct trace_otf2_writer *w, uint32_t r)
{
	if (w->ranks[r].w)
		return 0;
	if (!(w->ranks[r].w = OTF2_Archive_GetEvtWriter(w->ar, r)) ||
	    OTF2_EvtWriter_ProgramBegin(w->ranks[r].w, NULL, 0, 1, 0, NULL) != OTF2_SUCCESS) {
		if (!w->rc)
			w->rc = nl_errf(&w->err, NL_EIO, "%s: cannot open the event writer of rank %u", w->dir, r);
		return w->rc;
	}
	w->ranks[r].n_events = 1;
	return 0;
}

int trace_otf2_writer_op(struct trace_otf2_writer *w, uint32_t rank, const struct trace_op *op, uint64_t start_ps,
			 uint64_t end_ps, struct nl_err *err)
{
	out_staged_poll(); /* SIGINT/SIGTERM: the archive removed, the process ended */
	if (w->rc)
		return nl_errf(err, w->rc, "%s", w->err.msg);
	if (rank >= w->n_ranks || op->kind >= TOP__COUNT)
		return nl_errf(err, NL_EINVAL, "%s: rank %u or op kind %u out of range", w->dir, rank, op->kind);
	struct ex_rank *rk = &w->ranks[rank];
	if (rk->is_ended)
		return nl_errf(err, NL_EINVAL, "%s: rank %u: an op after its end", w->dir, rank);
	if (ex_rank_begin(w, rank))
		return nl_errf(err, w->rc, "%s", w->err.msg);
	if (start_ps < rk->last_ps)
		start_ps = rk->last_ps; /* OTF2 needs non-decreasing times per location */
	if (end_ps < start_ps)
		end_ps = start_ps;
	uint32_t region = op->kind == TOP_COMPUTE || op->kind == TOP_COMPUTE_FLOPS ? REGION_COMPUTE : op->kind;
	rk->n_events += 2;
	OTF2_ErrorCode e = enter_attrs(w, rk, op);
	if (e == OTF2_SUCCESS)
		e = OTF2_EvtWriter_Enter(rk->w, w->al, start_ps, region);
	if (e == OTF2_SUCCESS && !records(w, rk, op, rank, start_ps, end_ps))
		e = OTF2_EvtWriter_Leave(rk->w, NULL, end_ps, region);
	otf2_check(w, e, "events"); /* a buffer flushed to its file may have failed */
	rk->last_ps = end_ps;
	if (end_ps > w->length_ps)
		w->length_ps = end_ps;
	return w->rc ? nl_errf(err, w->rc, "%s", w->err.msg) : 0;
}

/* --- definitions and closing ----------------------------------------------------------- */

/* "MPI_" + the op name with its first letter upper case: "MPI_Waitall". */
static void region_name(unsigned kind, char *buf, size_t cap)
{
	const char *n = trace_op_name(kind);
	snprintf(buf, cap, "MPI_%s", n ? n : "unknown");
	if (buf[4] >= 'a' && buf[4] <= 'z')
		buf[4] = (char)(buf[4] - 'a' + 'A');
}

static int write_defs(struct trace_otf2_writer *w)
{
	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(w->ar);
	if (!g)
		return fail(w, OTF2_ERROR_INVALID, "global definitions");
	char buf[64];
	OK(w, OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000000ull, 0, w->length_ps, OTF2_UNDEFINED_TIMESTAMP),
	   "clock");
	static const char *const fixed[] = {"", "netloom", "machine", "MPI_COMM_WORLD", "MPI_COMM_SELF", "compute",
					    "netloom compute interval", "MPI"};
	for (uint32_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		OK(w, OTF2_GlobalDefWriter_WriteString(g, i, fixed[i]), "string");
	for (unsigned k = 0; k < TOP__COUNT; k++) {
		region_name(k, buf, sizeof buf);
		OK(w, OTF2_GlobalDefWriter_WriteString(g, STR_REGION0 + k, buf), "string");
	}
	uint32_t s = STR_REGION0 + TOP__COUNT;
	for (uint32_t r = 0; r < w->n_ranks; r++) {
		snprintf(buf, sizeof buf, "MPI Rank %u", r);
		OK(w, OTF2_GlobalDefWriter_WriteString(g, s + 2 * r, buf), "string");
		snprintf(buf, sizeof buf, "rank %u", r);
		OK(w, OTF2_GlobalDefWriter_WriteString(g, s + 2 * r + 1, buf), "string");
	}
	uint32_t s_comm = s + 2 * w->n_ranks;
	for (uint32_t i = 0; i < w->n_comms; i++) {
		snprintf(buf, sizeof buf, "comm %u", w->comms[i].id);
		OK(w, OTF2_GlobalDefWriter_WriteString(g, s_comm + i, buf), "string");
	}
	uint32_t s_attr = s_comm + w->n_comms;
	for (uint32_t a = 0; a < N_ATTRS; a++) {
		OK(w, OTF2_GlobalDefWriter_WriteString(g, s_attr + 2 * a, attr_defs[a].name), "string");
		OK(w, OTF2_GlobalDefWriter_WriteString(g, s_attr + 2 * a + 1, attr_defs[a].desc), "string");
		OK(w, OTF2_GlobalDefWriter_WriteAttribute(g, a, s_attr + 2 * a, s_attr + 2 * a + 1, attr_defs[a].type),
		   "attribute");
	}
	OK(w, OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, 7, OTF2_PARADIGM_CLASS_PROCESS), "paradigm");
	OK(w, OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE), "system tree");
	for (uint32_t r = 0; r < w->n_ranks; r++)
		OK(w, OTF2_GlobalDefWriter_WriteLocationGroup(g, r, s + 2 * r, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
							      OTF2_UNDEFINED_LOCATION_GROUP), "location group");
	for (uint32_t r = 0; r < w->n_ranks; r++)
		OK(w, OTF2_GlobalDefWriter_WriteLocation(g, r, s + 2 * r + 1, OTF2_LOCATION_TYPE_CPU_THREAD,
							 w->ranks[r].n_events, r), "location");
	for (unsigned k = 0; k < TOP__COUNT; k++)
		OK(w, OTF2_GlobalDefWriter_WriteRegion(g, k, STR_REGION0 + k, STR_REGION0 + k, 0, OTF2_REGION_ROLE_FUNCTION,
						       OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0), "region");
	OK(w, OTF2_GlobalDefWriter_WriteRegion(g, REGION_COMPUTE, 5, 5, 6, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
					       OTF2_REGION_FLAG_NONE, 0, 0, 0), "region");
	uint64_t *mem = malloc((w->n_ranks ? w->n_ranks : 1) * sizeof *mem);
	if (!mem)
		return fail(w, OTF2_ERROR_MEM_ALLOC_FAILED, "memory");
	for (uint32_t r = 0; r < w->n_ranks; r++)
		mem[r] = r;
	OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
							   OTF2_GROUP_FLAG_NONE, w->n_ranks, mem);
	if (e == OTF2_SUCCESS)
		e = OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
						    OTF2_GROUP_FLAG_NONE, w->n_ranks, mem);
	if (e == OTF2_SUCCESS)
		e = OTF2_GlobalDefWriter_WriteGroup(g, 2, 0, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
						    OTF2_GROUP_FLAG_NONE, 0, NULL);
	for (uint32_t i = 0; e == OTF2_SUCCESS && i < w->n_comms; i++) {
		uint64_t *gm = realloc(mem, (w->comms[i].size ? w->comms[i].size : 1) * sizeof *mem);
		if (!gm)
			break;
		mem = gm;
		for (uint32_t k = 0; k < w->comms[i].size; k++)
			mem[k] = w->comms[i].world_ranks[k];
		e = OTF2_GlobalDefWriter_WriteGroup(g, 3 + i, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
						    OTF2_GROUP_FLAG_NONE, w->comms[i].size, mem);
	}
	free(mem);
	if (e != OTF2_SUCCESS)
		return fail(w, e, "group");
	OK(w, OTF2_GlobalDefWriter_WriteComm(g, 0, 3, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "comm");
	OK(w, OTF2_GlobalDefWriter_WriteComm(g, 1, 4, 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "comm");
	for (uint32_t i = 0; i < w->n_comms; i++)
		OK(w, OTF2_GlobalDefWriter_WriteComm(g, 2 + i, s_comm + i, 3 + i, 0, OTF2_COMM_FLAG_NONE), "comm");
	return 0;
}

/* OTF2 stamps the anchor file with a random trace id; replace it with one
 * derived from the content so that the same run writes the same bytes.
 * An anchor that cannot be opened keeps OTF2's id; one whose rewrite
 * fails is an error (w->rc). */
static void fix_trace_id(struct trace_otf2_writer *w, uint64_t id)
{
	char path[4096];
	bool ok = true;
	snprintf(path, sizeof path, "%s/traces.otf2", w->tmp);
	FILE *f = fopen(path, "r+b");
	if (!f)
		return;
	uint8_t buf[4096], le[8], be[8], nle[8], nbe[8];
	size_t n = fread(buf, 1, sizeof buf, f);
	uint64_t h = 1469598103934665603ull; /* FNV-1a of the run's shape */
	uint64_t v[3] = {w->n_ranks, w->length_ps, 0};
	for (uint32_t r = 0; r < w->n_ranks; r++)
		v[2] += w->ranks[r].n_events;
	for (int i = 0; i < 3; i++)
		for (int b = 0; b < 8; b++)
			h = (h ^ ((v[i] >> (8 * b)) & 0xff)) * 1099511628211ull;
	for (int b = 0; b < 8; b++) {
		le[b] = (uint8_t)(id >> (8 * b));
		be[7 - b] = le[b];
		nle[b] = (uint8_t)(h >> (8 * b));
		nbe[7 - b] = nle[b];
	}
	for (size_t i = 0; i + 8 <= n; i++) {
		const uint8_t *rep = !memcmp(buf + i, le, 8) ? nle : !memcmp(buf + i, be, 8) ? nbe : NULL;
		if (rep && !fseek(f, (long)i, SEEK_SET)) {
			ok = fwrite(rep, 1, 8, f) == 8;
			break;
		}
	}
	if ((fclose(f) != 0 || !ok) && !w->rc)
		w->rc = nl_errf(&w->err, NL_EIO, "%s: cannot write the OTF2 archive (anchor file): %s", w->dir,
				strerror(errno));
}

/* The ops of each kind counted in n[] (skipped, totals_only) through
 * `warn`, one line a kind: how they were written, and what an import of
 * the archive makes of them. */
static void warn_kinds(const uint64_t *n, const char *how, const char *import, trace_warn_fn warn, void *warn_ctx)
{
	char line[240];
	for (unsigned k = 0; warn && k < TOP__COUNT; k++)
		if (n[k]) {
			snprintf(line, sizeof line,
				 "OTF2: %s x%llu written %s: an import of the archive %s, and a replay of it differs",
				 trace_op_name(k), (unsigned long long)n[k], how, import);
			warn(warn_ctx, line);
		}
}

/* Rank r's ProgramEnd at its last time, and its event writer closed:
 * OTF2 writes the location's buffered events to its file then. */
static void ex_rank_end(struct trace_otf2_writer *w, uint32_t r)
{
	out_staged_poll();
	if (ex_rank_begin(w, r))
		return;
	w->ranks[r].is_ended = true;
	OTF2_ErrorCode e = OTF2_EvtWriter_ProgramEnd(w->ranks[r].w, NULL, w->ranks[r].last_ps, 0);
	w->ranks[r].n_events++;
	if (e == OTF2_SUCCESS)
		e = OTF2_Archive_CloseEvtWriter(w->ar, w->ranks[r].w);
	w->ranks[r].w = NULL;
	otf2_check(w, e, "events");
}

/* Every file is checked as it is closed: OTF2 writes its buffers then,
 * and a write that fails there (a full disk) must not leave a cut archive
 * renamed into place with status 0. Whatever fails, DIR is not made:
 * trace_otf2_writer_free removes the temporary directory. */
int trace_otf2_writer_finish(struct trace_otf2_writer *w, trace_warn_fn warn, void *warn_ctx, struct nl_err *err)
{
	for (uint32_t r = 0; !w->rc && r < w->n_ranks; r++)
		if (!w->ranks[r].is_ended)
			ex_rank_end(w, r);
	if (!w->rc)
		otf2_check(w, OTF2_Archive_CloseEvtFiles(w->ar), "events");
	if (!w->rc)
		otf2_check(w, OTF2_Archive_OpenDefFiles(w->ar), "local definitions");
	for (uint32_t r = 0; !w->rc && r < w->n_ranks; r++) {
		OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(w->ar, r);
		otf2_check(w, d ? OTF2_Archive_CloseDefWriter(w->ar, d) : OTF2_ERROR_INVALID, "local definitions");
	}
	if (!w->rc)
		otf2_check(w, OTF2_Archive_CloseDefFiles(w->ar), "local definitions");
	if (!w->rc)
		write_defs(w);
	OTF2_ErrorCode e = OTF2_Archive_Close(w->ar);
	w->ar = NULL;
	if (!w->rc)
		otf2_check(w, e, "global definitions");
	if (!w->rc) {
		char anchor[4096];
		uint64_t id = 0;
		snprintf(anchor, sizeof anchor, "%s/traces.otf2", w->tmp);
		OTF2_Reader *rd = OTF2_Reader_Open(anchor);
		if (rd && OTF2_Reader_GetTraceId(rd, &id) == OTF2_SUCCESS && id) {
			OTF2_Reader_Close(rd);
			rd = NULL;
			fix_trace_id(w, id);
		}
		if (rd)
			OTF2_Reader_Close(rd);
	}
	if (!w->rc && rename(w->tmp, w->dir))
		w->rc = nl_errf(&w->err, NL_EIO, "%s: cannot move the archive into place: %s", w->dir, strerror(errno));
	if (w->rc)
		return nl_errf(err, w->rc, "%s", w->err.msg);
	/* Renamed: nothing to remove (a signal recorded meanwhile ends the
	 * process here, the archive complete). */
	out_staged_del(w->tmp);
	w->staged = false;
	free(w->tmp);
	w->tmp = NULL;
	warn_kinds(w->skipped, "as its region only (OTF2 has no record for it)", "counts its time as compute", warn,
		   warn_ctx);
	warn_kinds(w->totals_only, "with its byte totals (OTF2 has no per-rank sizes)",
		   "spreads them evenly over the members (the non-v kind)", warn, warn_ctx);
	return 0;
}

void trace_otf2_writer_free(struct trace_otf2_writer *w)
{
	if (!w)
		return;
	if (w->ar) {
		for (uint32_t r = 0; r < w->n_ranks; r++)
			if (w->ranks[r].w)
				OTF2_Archive_CloseEvtWriter(w->ar, w->ranks[r].w);
		OTF2_Archive_Close(w->ar);
	}
	if (w->al)
		OTF2_AttributeList_Delete(w->al);
	if (w->has_cb)
		OTF2_Error_RegisterCallback(otf2_error, NULL); /* quiet, w no longer there */
	if (w->tmp)
		out_remove_tree(w->tmp);
	if (w->staged)
		out_staged_del(w->tmp);
	for (uint32_t r = 0; w->ranks && r < w->n_ranks; r++)
		free(w->ranks[r].reqs);
	for (uint32_t i = 0; i < w->n_comms; i++)
		free(w->comms[i].world_ranks);
	free(w->comms);
	free(w->ranks);
	free(w->tmp);
	free(w->dir);
	free(w);
}

int trace_export_otf2(struct trace_archive *a, const char *dir, trace_warn_fn warn, void *warn_ctx,
		      bool *is_unwritten, struct nl_err *err)
{
	const struct trace_manifest *m = trace_archive_manifest(a);
	struct trace_otf2_writer *w;
	/* The writer reads nothing: its input/output errors are DIR's. */
	NL_CHECK(trace_out_rc(is_unwritten, trace_otf2_writer_new(&w, dir, m, err)));
	int rc = 0;
	uint64_t n_flops = 0; /* ops whose work is a flop count (SimGrid's) */
	for (uint32_t r = 0; !rc && r < m->n_ranks; r++) {
		struct trace_rank_reader *rd = NULL;
		rc = trace_rank_open(a, r, &rd, err);
		struct trace_op op;
		int got = 0;
		while (!rc && (got = trace_rank_next(rd, &op, err)) == 1) {
			n_flops += op.flops > 0;
			rc = trace_out_rc(is_unwritten, trace_otf2_writer_op(w, r, &op, op.t_ps, op.t_ps + op.dur_ps, err));
		}
		if (!rc && got < 0)
			rc = got;
		if (rd)
			trace_rank_close(rd);
		/* ProgramEnd at the recorded runtime, which the importer reads
		 * back (the slowest rank's last event). */
		uint64_t end = (uint64_t)llround(m->recorded_runtime_s * 1e12);
		if (!rc && m->recorded_runtime_s > 0 && m->recorded_runtime_s < 1e6 && end > w->ranks[r].last_ps)
			w->ranks[r].last_ps = end;
		/* The rank is complete: closed now, so that OTF2 (which keeps a
		 * location's events in memory until its writer closes) holds one
		 * rank's events at a time, not the whole trace's. */
		if (!rc) {
			ex_rank_end(w, r);
			rc = trace_out_rc(is_unwritten, w->rc ? nl_errf(err, w->rc, "%s", w->err.msg) : 0);
		}
	}
	if (!rc)
		rc = trace_out_rc(is_unwritten, trace_otf2_writer_finish(w, warn, warn_ctx, err));
	trace_otf2_writer_free(w);
	/* What an import of the archive cannot get back, and what a replay
	 * of it then does differently (docs/trace-format.md 10.3). */
	if (!rc && warn && n_flops) {
		char line[200];
		snprintf(line, sizeof line,
			 "OTF2: %llu %s given in flops (SimGrid) %s of %s recorded length, "
			 "not %s flops (OTF2 has no flop count): a replay of the imported archive differs",
			 (unsigned long long)n_flops, n_flops == 1 ? "op" : "ops",
			 n_flops == 1 ? "is written as a region" : "are written as regions", n_flops == 1 ? "its" : "their",
			 n_flops == 1 ? "its" : "their");
		warn(warn_ctx, line);
	}
	return rc;
}
