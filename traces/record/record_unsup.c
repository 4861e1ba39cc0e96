/* netloom-record: calls the trace model cannot represent. They pass
 * straight through (their time shows as compute) and are counted, so
 * MPI_Finalize can say what the trace leaves out instead of dropping it
 * silently (docs/recorder.md, "What is not recorded").
 */
#include "traces/record/record_internal.h"

#define REC_COUNTED(what, call)              \
	do {                                 \
		int rc_ = (call);            \
		if (rc_ == MPI_SUCCESS)      \
			rec_unsupported(what); \
		return rc_;                  \
	} while (0)

/* --- neighborhood collectives --- */

int MPI_Neighbor_allgather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
			   int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	REC_COUNTED(REC_UNSUP_NEIGHBOR, PMPI_Neighbor_allgather(sendbuf, scount, stype, recvbuf,
								 rcount, rtype, comm));
}

int MPI_Ineighbor_allgather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
			    int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *request)
{
	REC_COUNTED(REC_UNSUP_NEIGHBOR, PMPI_Ineighbor_allgather(sendbuf, scount, stype, recvbuf,
								  rcount, rtype, comm, request));
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
			    const int rcounts[], const int displs[], MPI_Datatype rtype,
			    MPI_Comm comm)
{
	REC_COUNTED(REC_UNSUP_NEIGHBOR, PMPI_Neighbor_allgatherv(sendbuf, scount, stype, recvbuf,
								  rcounts, displs, rtype, comm));
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
			     const int rcounts[], const int displs[], MPI_Datatype rtype,
			     MPI_Comm comm, MPI_Request *request)
{
	REC_COUNTED(REC_UNSUP_NEIGHBOR,
		    PMPI_Ineighbor_allgatherv(sendbuf, scount, stype, recvbuf, rcounts, displs,
					      rtype, comm, request));
}

int MPI_Neighbor_alltoall(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
			  int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	REC_COUNTED(REC_UNSUP_NEIGHBOR, PMPI_Neighbor_alltoall(sendbuf, scount, stype, recvbuf,
								rcount, rtype, comm));
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf,
			   int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *request)
{
	REC_COUNTED(REC_UNSUP_NEIGHBOR, PMPI_Ineighbor_alltoall(sendbuf, scount, stype, recvbuf,
								 rcount, rtype, comm, request));
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int scounts[], const int sdispls[],
			   MPI_Datatype stype, void *recvbuf, const int rcounts[],
			   const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
	REC_COUNTED(REC_UNSUP_NEIGHBOR,
		    PMPI_Neighbor_alltoallv(sendbuf, scounts, sdispls, stype, recvbuf, rcounts,
					    rdispls, rtype, comm));
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int scounts[], const int sdispls[],
			    MPI_Datatype stype, void *recvbuf, const int rcounts[],
			    const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
			    MPI_Request *request)
{
	REC_COUNTED(REC_UNSUP_NEIGHBOR,
		    PMPI_Ineighbor_alltoallv(sendbuf, scounts, sdispls, stype, recvbuf, rcounts,
					     rdispls, rtype, comm, request));
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int scounts[], const MPI_Aint sdispls[],
			   const MPI_Datatype stypes[], void *recvbuf, const int rcounts[],
			   const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm)
{
	REC_COUNTED(REC_UNSUP_NEIGHBOR,
		    PMPI_Neighbor_alltoallw(sendbuf, scounts, sdispls, stypes, recvbuf, rcounts,
					    rdispls, rtypes, comm));
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int scounts[], const MPI_Aint sdispls[],
			    const MPI_Datatype stypes[], void *recvbuf, const int rcounts[],
			    const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
			    MPI_Request *request)
{
	REC_COUNTED(REC_UNSUP_NEIGHBOR,
		    PMPI_Ineighbor_alltoallw(sendbuf, scounts, sdispls, stypes, recvbuf, rcounts,
					     rdispls, rtypes, comm, request));
}

/* --- one-sided communication: the data-moving calls (their request-based
 * forms too) and fences --- */

int MPI_Put(const void *origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
	    int tcount, MPI_Datatype ttype, MPI_Win win)
{
	REC_COUNTED(REC_UNSUP_RMA,
		    PMPI_Put(origin, ocount, otype, target, tdisp, tcount, ttype, win));
}

int MPI_Get(void *origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
	    MPI_Datatype ttype, MPI_Win win)
{
	REC_COUNTED(REC_UNSUP_RMA,
		    PMPI_Get(origin, ocount, otype, target, tdisp, tcount, ttype, win));
}

int MPI_Accumulate(const void *origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
		   int tcount, MPI_Datatype ttype, MPI_Op o, MPI_Win win)
{
	REC_COUNTED(REC_UNSUP_RMA,
		    PMPI_Accumulate(origin, ocount, otype, target, tdisp, tcount, ttype, o, win));
}

int MPI_Get_accumulate(const void *origin, int ocount, MPI_Datatype otype, void *result,
		       int rcount, MPI_Datatype rtype, int target, MPI_Aint tdisp, int tcount,
		       MPI_Datatype ttype, MPI_Op o, MPI_Win win)
{
	REC_COUNTED(REC_UNSUP_RMA, PMPI_Get_accumulate(origin, ocount, otype, result, rcount,
							rtype, target, tdisp, tcount, ttype, o,
							win));
}

int MPI_Fetch_and_op(const void *origin, void *result, MPI_Datatype dt, int target,
		     MPI_Aint tdisp, MPI_Op o, MPI_Win win)
{
	REC_COUNTED(REC_UNSUP_RMA, PMPI_Fetch_and_op(origin, result, dt, target, tdisp, o, win));
}

int MPI_Compare_and_swap(const void *origin, const void *compare, void *result, MPI_Datatype dt,
			 int target, MPI_Aint tdisp, MPI_Win win)
{
	REC_COUNTED(REC_UNSUP_RMA,
		    PMPI_Compare_and_swap(origin, compare, result, dt, target, tdisp, win));
}

/* The request-based forms: the same traffic, so counted alike; the
 * requests they return are not the recorder's, and their completions are
 * counted as such (REC_UNSUP_REQ). */
int MPI_Rput(const void *origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
	     int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *request)
{
	REC_COUNTED(REC_UNSUP_RMA,
		    PMPI_Rput(origin, ocount, otype, target, tdisp, tcount, ttype, win, request));
}

int MPI_Rget(void *origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
	     MPI_Datatype ttype, MPI_Win win, MPI_Request *request)
{
	REC_COUNTED(REC_UNSUP_RMA,
		    PMPI_Rget(origin, ocount, otype, target, tdisp, tcount, ttype, win, request));
}

int MPI_Raccumulate(const void *origin, int ocount, MPI_Datatype otype, int target,
		    MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op o, MPI_Win win,
		    MPI_Request *request)
{
	REC_COUNTED(REC_UNSUP_RMA, PMPI_Raccumulate(origin, ocount, otype, target, tdisp, tcount,
						     ttype, o, win, request));
}

int MPI_Rget_accumulate(const void *origin, int ocount, MPI_Datatype otype, void *result,
			int rcount, MPI_Datatype rtype, int target, MPI_Aint tdisp, int tcount,
			MPI_Datatype ttype, MPI_Op o, MPI_Win win, MPI_Request *request)
{
	REC_COUNTED(REC_UNSUP_RMA, PMPI_Rget_accumulate(origin, ocount, otype, result, rcount,
							 rtype, target, tdisp, tcount, ttype, o,
							 win, request));
}

int MPI_Win_fence(int assert, MPI_Win win)
{
	REC_COUNTED(REC_UNSUP_RMA, PMPI_Win_fence(assert, win));
}
