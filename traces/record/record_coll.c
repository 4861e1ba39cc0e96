/* netloom-record collectives: every MPI-3 collective on intracommunicators,
 * blocking and non-blocking (the I-variants set TRACE_F_NONBLOCKING and
 * create a request, completed by the Wait/Test families).
 *
 * Sizes (trace.h): `bytes` is what this rank contributes per destination
 * and `recv_bytes` what it receives per source; the v/w variants carry the
 * program's count arrays converted to bytes, n_counts = comm size. Only
 * arguments significant at this rank are read (a gather's receive type at
 * a non-root may be anything), so sizing never trips MPI's argument checks.
 * MPI_IN_PLACE sets TRACE_F_IN_PLACE and sizes the in-place block from the
 * receive side. Per kind, docs/recorder.md lists the exact fields.
 */
#include "traces/record/record_internal.h"

/* Check the call and the communicator; false when the call is not to be
 * recorded (the call is then already skipped). */
static bool rec_coll_prepare(struct rec_call *c, int rc, struct trace_op *op, MPI_Comm comm,
			     const struct rec_comm **info)
{
	op->comm = rec_comm_lookup(comm, info);
	if (rc != MPI_SUCCESS || op->comm == REC_COMM_NONE) {
		if (rc == MPI_SUCCESS)
			rec_unsupported(REC_UNSUP_COMM);
		rec_skip(c);
		return false;
	}
	return true;
}

static void rec_coll_end(struct rec_call *c, struct trace_op *op, bool is_ok, const MPI_Request *req)
{
	if (!is_ok) {
		rec_skip(c);
		return;
	}
	if (req) {
		op->flags |= TRACE_F_NONBLOCKING;
		op->req = rec_req_new(*req, NULL);
		if (op->req == REC_REQ_NONE) {
			rec_skip(c);
			return;
		}
	}
	rec_end(c, op);
}

/* The pattern of every wrapper: time the PMPI call, then describe it. */
#define REC_COLL(kind_, comm_, call_, req_, fill_)                                   \
	struct rec_call c;                                                           \
	struct trace_op op = {.kind = (kind_)};                                      \
	const struct rec_comm *info = NULL;                                          \
	int rc;                                                                      \
	rec_begin(&c);                                                               \
	rc = (call_);                                                                \
	if (c.is_on && rec_coll_prepare(&c, rc, &op, (comm_), &info))                \
		rec_coll_end(&c, &op, (fill_), (req_));                              \
	return rc

static uint64_t *rec_counts(int which, const struct rec_comm *info, const int *counts,
			    MPI_Datatype dt)
{
	uint64_t *v = rec_scratch_counts(which, info->size);
	MPI_Count sz = 0;

	if (!v)
		return NULL;
	if (dt != MPI_DATATYPE_NULL && PMPI_Type_size_x(dt, &sz) != MPI_SUCCESS)
		sz = 0;
	for (uint32_t i = 0; i < info->size; i++)
		v[i] = counts[i] > 0 && sz > 0 ? (uint64_t)counts[i] * (uint64_t)sz : 0;
	return v;
}

static uint64_t *rec_counts_w(int which, const struct rec_comm *info, const int *counts,
			      const MPI_Datatype *types)
{
	uint64_t *v = rec_scratch_counts(which, info->size);

	if (!v)
		return NULL;
	for (uint32_t i = 0; i < info->size; i++)
		v[i] = rec_bytes(counts[i], types[i]);
	return v;
}

static void rec_in_place(struct trace_op *op, const void *sendbuf)
{
	if (sendbuf == MPI_IN_PLACE)
		op->flags |= TRACE_F_IN_PLACE;
}

/* --- fillers: one per collective shape ------------------------------------- */

static bool rec_fill_root(struct trace_op *op, int count, MPI_Datatype dt, int root,
			  const void *sendbuf)
{
	op->peer = root;
	op->bytes = rec_bytes(count, dt);
	rec_in_place(op, sendbuf);
	return true;
}

static bool rec_fill_all(struct trace_op *op, int count, MPI_Datatype dt, const void *sendbuf)
{
	op->bytes = rec_bytes(count, dt);
	rec_in_place(op, sendbuf);
	return true;
}

static bool rec_fill_gather(struct trace_op *op, const struct rec_comm *info, const void *sendbuf,
			    int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype,
			    int root)
{
	bool is_root = info->my_rank == root;

	op->peer = root;
	rec_in_place(op, sendbuf);
	if (is_root)
		op->recv_bytes = rec_bytes(rcount, rtype);
	op->bytes = is_root && sendbuf == MPI_IN_PLACE ? op->recv_bytes : rec_bytes(scount, stype);
	return true;
}

static bool rec_fill_gatherv(struct trace_op *op, const struct rec_comm *info, const void *sendbuf,
			     int scount, MPI_Datatype stype, const int *rcounts, MPI_Datatype rtype,
			     int root)
{
	bool is_root = info->my_rank == root;

	op->peer = root;
	rec_in_place(op, sendbuf);
	if (is_root) {
		op->recv_counts = rec_counts(1, info, rcounts, rtype);
		if (!op->recv_counts)
			return false;
		op->n_counts = info->size;
	}
	op->bytes = is_root && sendbuf == MPI_IN_PLACE ? op->recv_counts[info->my_rank]
						       : rec_bytes(scount, stype);
	return true;
}

static bool rec_fill_scatter(struct trace_op *op, const struct rec_comm *info, int scount,
			     MPI_Datatype stype, const void *recvbuf, int rcount, MPI_Datatype rtype,
			     int root)
{
	bool is_root = info->my_rank == root;

	op->peer = root;
	if (is_root)
		op->bytes = rec_bytes(scount, stype);
	if (is_root && recvbuf == MPI_IN_PLACE) {
		op->flags |= TRACE_F_IN_PLACE;
		op->recv_bytes = op->bytes;
	} else {
		op->recv_bytes = rec_bytes(rcount, rtype);
	}
	return true;
}

static bool rec_fill_scatterv(struct trace_op *op, const struct rec_comm *info, const int *scounts,
			      MPI_Datatype stype, const void *recvbuf, int rcount,
			      MPI_Datatype rtype, int root)
{
	bool is_root = info->my_rank == root;

	op->peer = root;
	if (is_root) {
		op->send_counts = rec_counts(0, info, scounts, stype);
		if (!op->send_counts)
			return false;
		op->n_counts = info->size;
	}
	if (is_root && recvbuf == MPI_IN_PLACE) {
		op->flags |= TRACE_F_IN_PLACE;
		op->recv_bytes = op->send_counts[info->my_rank];
	} else {
		op->recv_bytes = rec_bytes(rcount, rtype);
	}
	return true;
}

/* Allgather and Alltoall: uniform blocks. */
static bool rec_fill_uniform(struct trace_op *op, const void *sendbuf, int scount,
			     MPI_Datatype stype, int rcount, MPI_Datatype rtype)
{
	rec_in_place(op, sendbuf);
	op->recv_bytes = rec_bytes(rcount, rtype);
	op->bytes = sendbuf == MPI_IN_PLACE ? op->recv_bytes : rec_bytes(scount, stype);
	return true;
}

static bool rec_fill_allgatherv(struct trace_op *op, const struct rec_comm *info,
				const void *sendbuf, int scount, MPI_Datatype stype,
				const int *rcounts, MPI_Datatype rtype)
{
	rec_in_place(op, sendbuf);
	op->recv_counts = rec_counts(1, info, rcounts, rtype);
	if (!op->recv_counts)
		return false;
	op->n_counts = info->size;
	op->bytes = sendbuf == MPI_IN_PLACE ? op->recv_counts[info->my_rank]
					    : rec_bytes(scount, stype);
	return true;
}

static bool rec_fill_alltoallv(struct trace_op *op, const struct rec_comm *info,
			       const void *sendbuf, const int *scounts, MPI_Datatype stype,
			       const int *rcounts, MPI_Datatype rtype)
{
	rec_in_place(op, sendbuf);
	op->recv_counts = rec_counts(1, info, rcounts, rtype);
	op->send_counts = sendbuf == MPI_IN_PLACE ? op->recv_counts
						  : rec_counts(0, info, scounts, stype);
	if (!op->recv_counts || !op->send_counts)
		return false;
	op->n_counts = info->size;
	return true;
}

static bool rec_fill_alltoallw(struct trace_op *op, const struct rec_comm *info,
			       const void *sendbuf, const int *scounts, const MPI_Datatype *stypes,
			       const int *rcounts, const MPI_Datatype *rtypes)
{
	rec_in_place(op, sendbuf);
	op->recv_counts = rec_counts_w(1, info, rcounts, rtypes);
	op->send_counts = sendbuf == MPI_IN_PLACE ? op->recv_counts
						  : rec_counts_w(0, info, scounts, stypes);
	if (!op->recv_counts || !op->send_counts)
		return false;
	op->n_counts = info->size;
	return true;
}

/* Reduce_scatter: recv_counts = the program's recvcounts (block i ends up
 * at rank i), bytes = the whole send buffer, recv_bytes = this rank's block. */
static bool rec_fill_reduce_scatter(struct trace_op *op, const struct rec_comm *info,
				    const void *sendbuf, const int *rcounts, MPI_Datatype dt)
{
	rec_in_place(op, sendbuf);
	op->recv_counts = rec_counts(1, info, rcounts, dt);
	if (!op->recv_counts)
		return false;
	op->n_counts = info->size;
	for (uint32_t i = 0; i < info->size; i++)
		op->bytes += op->recv_counts[i];
	op->recv_bytes = op->recv_counts[info->my_rank];
	return true;
}

static bool rec_fill_reduce_scatter_block(struct trace_op *op, const struct rec_comm *info,
					  const void *sendbuf, int rcount, MPI_Datatype dt)
{
	rec_in_place(op, sendbuf);
	op->recv_bytes = rec_bytes(rcount, dt);
	op->bytes = op->recv_bytes * info->size;
	return true;
}

/* --- wrappers ---------------------------------------------------------------- */

static int rec_barrier(MPI_Comm comm)
{
	REC_COLL(TOP_BARRIER, comm, PMPI_Barrier(comm), NULL, true);
}

int MPI_Barrier(MPI_Comm comm)
{
	int rc = rec_barrier(comm);

	if (rc == MPI_SUCCESS && comm == MPI_COMM_WORLD)
		rec_world_barrier_done();
	return rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_BARRIER, comm, PMPI_Ibarrier(comm, request), request, true);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
	REC_COLL(TOP_BCAST, comm, PMPI_Bcast(buffer, count, dt, root, comm), NULL,
		 rec_fill_root(&op, count, dt, root, NULL));
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm,
	       MPI_Request *request)
{
	REC_COLL(TOP_BCAST, comm, PMPI_Ibcast(buffer, count, dt, root, comm, request), request,
		 rec_fill_root(&op, count, dt, root, NULL));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op o, int root,
	       MPI_Comm comm)
{
	REC_COLL(TOP_REDUCE, comm, PMPI_Reduce(sendbuf, recvbuf, count, dt, o, root, comm), NULL,
		 rec_fill_root(&op, count, dt, root, sendbuf));
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op o, int root,
		MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_REDUCE, comm,
		 PMPI_Ireduce(sendbuf, recvbuf, count, dt, o, root, comm, request), request,
		 rec_fill_root(&op, count, dt, root, sendbuf));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op o,
		  MPI_Comm comm)
{
	REC_COLL(TOP_ALLREDUCE, comm, PMPI_Allreduce(sendbuf, recvbuf, count, dt, o, comm), NULL,
		 rec_fill_all(&op, count, dt, sendbuf));
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op o,
		   MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_ALLREDUCE, comm,
		 PMPI_Iallreduce(sendbuf, recvbuf, count, dt, o, comm, request), request,
		 rec_fill_all(&op, count, dt, sendbuf));
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op o,
	     MPI_Comm comm)
{
	REC_COLL(TOP_SCAN, comm, PMPI_Scan(sendbuf, recvbuf, count, dt, o, comm), NULL,
		 rec_fill_all(&op, count, dt, sendbuf));
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op o,
	      MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_SCAN, comm, PMPI_Iscan(sendbuf, recvbuf, count, dt, o, comm, request),
		 request, rec_fill_all(&op, count, dt, sendbuf));
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op o,
	       MPI_Comm comm)
{
	REC_COLL(TOP_EXSCAN, comm, PMPI_Exscan(sendbuf, recvbuf, count, dt, o, comm), NULL,
		 rec_fill_all(&op, count, dt, sendbuf));
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op o,
		MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_EXSCAN, comm, PMPI_Iexscan(sendbuf, recvbuf, count, dt, o, comm, request),
		 request, rec_fill_all(&op, count, dt, sendbuf));
}

int MPI_Gather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
	       MPI_Datatype rtype, int root, MPI_Comm comm)
{
	REC_COLL(TOP_GATHER, comm,
		 PMPI_Gather(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm), NULL,
		 rec_fill_gather(&op, info, sendbuf, scount, stype, rcount, rtype, root));
}

int MPI_Igather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
		MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_GATHER, comm,
		 PMPI_Igather(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm, request),
		 request, rec_fill_gather(&op, info, sendbuf, scount, stype, rcount, rtype, root));
}

int MPI_Gatherv(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
		const int rcounts[], const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
	REC_COLL(TOP_GATHERV, comm,
		 PMPI_Gatherv(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, root, comm),
		 NULL, rec_fill_gatherv(&op, info, sendbuf, scount, stype, rcounts, rtype, root));
}

int MPI_Igatherv(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
		 const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
		 MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_GATHERV, comm,
		 PMPI_Igatherv(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, root, comm,
			       request),
		 request, rec_fill_gatherv(&op, info, sendbuf, scount, stype, rcounts, rtype, root));
}

int MPI_Scatter(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
		MPI_Datatype rtype, int root, MPI_Comm comm)
{
	REC_COLL(TOP_SCATTER, comm,
		 PMPI_Scatter(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm), NULL,
		 rec_fill_scatter(&op, info, scount, stype, recvbuf, rcount, rtype, root));
}

int MPI_Iscatter(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
		 MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_SCATTER, comm,
		 PMPI_Iscatter(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm, request),
		 request, rec_fill_scatter(&op, info, scount, stype, recvbuf, rcount, rtype, root));
}

int MPI_Scatterv(const void *sendbuf, const int scounts[], const int displs[], MPI_Datatype stype,
		 void *recvbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	REC_COLL(TOP_SCATTERV, comm,
		 PMPI_Scatterv(sendbuf, scounts, displs, stype, recvbuf, rcount, rtype, root, comm),
		 NULL, rec_fill_scatterv(&op, info, scounts, stype, recvbuf, rcount, rtype, root));
}

int MPI_Iscatterv(const void *sendbuf, const int scounts[], const int displs[], MPI_Datatype stype,
		  void *recvbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
		  MPI_Request *request)
{
	REC_COLL(TOP_SCATTERV, comm,
		 PMPI_Iscatterv(sendbuf, scounts, displs, stype, recvbuf, rcount, rtype, root, comm,
				request),
		 request,
		 rec_fill_scatterv(&op, info, scounts, stype, recvbuf, rcount, rtype, root));
}

int MPI_Allgather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
		  MPI_Datatype rtype, MPI_Comm comm)
{
	REC_COLL(TOP_ALLGATHER, comm,
		 PMPI_Allgather(sendbuf, scount, stype, recvbuf, rcount, rtype, comm), NULL,
		 rec_fill_uniform(&op, sendbuf, scount, stype, rcount, rtype));
}

int MPI_Iallgather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
		   MPI_Datatype rtype, MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_ALLGATHER, comm,
		 PMPI_Iallgather(sendbuf, scount, stype, recvbuf, rcount, rtype, comm, request),
		 request, rec_fill_uniform(&op, sendbuf, scount, stype, rcount, rtype));
}

int MPI_Allgatherv(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
		   const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
	REC_COLL(TOP_ALLGATHERV, comm,
		 PMPI_Allgatherv(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, comm),
		 NULL, rec_fill_allgatherv(&op, info, sendbuf, scount, stype, rcounts, rtype));
}

int MPI_Iallgatherv(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
		    const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
		    MPI_Request *request)
{
	REC_COLL(TOP_ALLGATHERV, comm,
		 PMPI_Iallgatherv(sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, comm,
				  request),
		 request, rec_fill_allgatherv(&op, info, sendbuf, scount, stype, rcounts, rtype));
}

int MPI_Alltoall(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
		 MPI_Datatype rtype, MPI_Comm comm)
{
	REC_COLL(TOP_ALLTOALL, comm,
		 PMPI_Alltoall(sendbuf, scount, stype, recvbuf, rcount, rtype, comm), NULL,
		 rec_fill_uniform(&op, sendbuf, scount, stype, rcount, rtype));
}

int MPI_Ialltoall(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
		  MPI_Datatype rtype, MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_ALLTOALL, comm,
		 PMPI_Ialltoall(sendbuf, scount, stype, recvbuf, rcount, rtype, comm, request),
		 request, rec_fill_uniform(&op, sendbuf, scount, stype, rcount, rtype));
}

int MPI_Alltoallv(const void *sendbuf, const int scounts[], const int sdispls[],
		  MPI_Datatype stype, void *recvbuf, const int rcounts[], const int rdispls[],
		  MPI_Datatype rtype, MPI_Comm comm)
{
	REC_COLL(TOP_ALLTOALLV, comm,
		 PMPI_Alltoallv(sendbuf, scounts, sdispls, stype, recvbuf, rcounts, rdispls, rtype,
				comm),
		 NULL, rec_fill_alltoallv(&op, info, sendbuf, scounts, stype, rcounts, rtype));
}

int MPI_Ialltoallv(const void *sendbuf, const int scounts[], const int sdispls[],
		   MPI_Datatype stype, void *recvbuf, const int rcounts[], const int rdispls[],
		   MPI_Datatype rtype, MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_ALLTOALLV, comm,
		 PMPI_Ialltoallv(sendbuf, scounts, sdispls, stype, recvbuf, rcounts, rdispls, rtype,
				 comm, request),
		 request, rec_fill_alltoallv(&op, info, sendbuf, scounts, stype, rcounts, rtype));
}

int MPI_Alltoallw(const void *sendbuf, const int scounts[], const int sdispls[],
		  const MPI_Datatype stypes[], void *recvbuf, const int rcounts[],
		  const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm)
{
	REC_COLL(TOP_ALLTOALLW, comm,
		 PMPI_Alltoallw(sendbuf, scounts, sdispls, stypes, recvbuf, rcounts, rdispls,
				rtypes, comm),
		 NULL, rec_fill_alltoallw(&op, info, sendbuf, scounts, stypes, rcounts, rtypes));
}

int MPI_Ialltoallw(const void *sendbuf, const int scounts[], const int sdispls[],
		   const MPI_Datatype stypes[], void *recvbuf, const int rcounts[],
		   const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
		   MPI_Request *request)
{
	REC_COLL(TOP_ALLTOALLW, comm,
		 PMPI_Ialltoallw(sendbuf, scounts, sdispls, stypes, recvbuf, rcounts, rdispls,
				 rtypes, comm, request),
		 request, rec_fill_alltoallw(&op, info, sendbuf, scounts, stypes, rcounts, rtypes));
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int rcounts[], MPI_Datatype dt,
		       MPI_Op o, MPI_Comm comm)
{
	REC_COLL(TOP_REDUCE_SCATTER, comm,
		 PMPI_Reduce_scatter(sendbuf, recvbuf, rcounts, dt, o, comm), NULL,
		 rec_fill_reduce_scatter(&op, info, sendbuf, rcounts, dt));
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int rcounts[], MPI_Datatype dt,
			MPI_Op o, MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_REDUCE_SCATTER, comm,
		 PMPI_Ireduce_scatter(sendbuf, recvbuf, rcounts, dt, o, comm, request), request,
		 rec_fill_reduce_scatter(&op, info, sendbuf, rcounts, dt));
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int rcount, MPI_Datatype dt,
			     MPI_Op o, MPI_Comm comm)
{
	REC_COLL(TOP_REDUCE_SCATTER_BLOCK, comm,
		 PMPI_Reduce_scatter_block(sendbuf, recvbuf, rcount, dt, o, comm), NULL,
		 rec_fill_reduce_scatter_block(&op, info, sendbuf, rcount, dt));
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int rcount, MPI_Datatype dt,
			      MPI_Op o, MPI_Comm comm, MPI_Request *request)
{
	REC_COLL(TOP_REDUCE_SCATTER_BLOCK, comm,
		 PMPI_Ireduce_scatter_block(sendbuf, recvbuf, rcount, dt, o, comm, request),
		 request, rec_fill_reduce_scatter_block(&op, info, sendbuf, rcount, dt));
}
