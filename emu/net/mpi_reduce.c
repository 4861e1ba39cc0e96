/* The MPI engine's reductions over the ranks (mpi.h): the sums, maxima and
 * minima the driver's decisions and totals need, the histograms and the
 * channels' flit counts made totals over the ranks. Without MPI the one
 * process's values stay as they are. */
#include <stdint.h>

#include "net/mpi.h"
#include "net/mpi_internal.h"
#include "net/net_internal.h"
#include "topo/topo.h"

#ifdef NETLOOM_HAVE_MPI

uint64_t fl_mpi_sum(const struct flitnet *n, uint64_t v)
{
	uint64_t g = v;
	n->mx->m->st.colls++;
	MPI_Allreduce(&v, &g, 1, MPI_UINT64_T, MPI_SUM, n->mx->m->comm);
	return g;
}

uint64_t fl_mpi_max(const struct flitnet *n, uint64_t v)
{
	uint64_t g = v;
	n->mx->m->st.colls++;
	MPI_Allreduce(&v, &g, 1, MPI_UINT64_T, MPI_MAX, n->mx->m->comm);
	return g;
}

/* MPI counts are ints: large arrays go in pieces. */
#define MX_CHUNK (1u << 28)

void fl_mpi_sum_i64(const struct flitnet *n, int64_t *a, uint64_t count)
{
	for (uint64_t i = 0; i < count; i += MX_CHUNK) {
		uint64_t k = count - i < MX_CHUNK ? count - i : MX_CHUNK;
		n->mx->m->st.colls++;
		MPI_Allreduce(MPI_IN_PLACE, a + i, (int)k, MPI_INT64_T, MPI_SUM, n->mx->m->comm);
	}
}

void fl_mpi_sum_u16(const struct flitnet *n, uint16_t *a, uint64_t count)
{
	for (uint64_t i = 0; i < count; i += MX_CHUNK) {
		uint64_t k = count - i < MX_CHUNK ? count - i : MX_CHUNK;
		n->mx->m->st.colls++;
		MPI_Allreduce(MPI_IN_PLACE, a + i, (int)k, MPI_UINT16_T, MPI_SUM, n->mx->m->comm);
	}
}

void fl_mpi_min_u8(const struct flitnet *n, uint8_t *a, uint64_t count)
{
	for (uint64_t i = 0; i < count; i += MX_CHUNK) {
		uint64_t k = count - i < MX_CHUNK ? count - i : MX_CHUNK;
		n->mx->m->st.colls++;
		MPI_Allreduce(MPI_IN_PLACE, a + i, (int)k, MPI_UINT8_T, MPI_MIN, n->mx->m->comm);
	}
}

static void mx_sum_u64(const struct flitnet *n, uint64_t *a, uint64_t count)
{
	for (uint64_t i = 0; i < count; i += MX_CHUNK) {
		uint64_t k = count - i < MX_CHUNK ? count - i : MX_CHUNK;
		n->mx->m->st.colls++;
		MPI_Allreduce(MPI_IN_PLACE, a + i, (int)k, MPI_UINT64_T, MPI_SUM, n->mx->m->comm);
	}
}

void fl_mpi_fold_hist(const struct flitnet *n, struct stats_hist *h, const struct stats_hist *local)
{
	struct fl_mx *mx = n->mx;
	/* Rank 0 gives its root (the last total and its records since);
	 * the others their partitions' records alone. Bins and counts are
	 * integers and the sum an integer below 2^53, so the order of the
	 * additions cannot change a bit. */
	const struct stats_hist *mine = local ? local : h;
	mx->m->st.colls += 4; /* the four allreduces below */
	MPI_Allreduce(local ? mine->bins : MPI_IN_PLACE, h->bins, (int)STATS_HIST_NBINS, MPI_UINT64_T, MPI_SUM,
		      mx->m->comm);
	uint64_t ext[3] = {mine->n, mine->max, UINT64_MAX - mine->min}, gn = 0, gext[2];
	MPI_Allreduce(&ext[0], &gn, 1, MPI_UINT64_T, MPI_SUM, mx->m->comm);
	MPI_Allreduce(&ext[1], gext, 2, MPI_UINT64_T, MPI_MAX, mx->m->comm);
	double sum = mine->sum, gsum = 0;
	MPI_Allreduce(&sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, mx->m->comm);
	h->n = gn;
	h->max = gext[0];
	h->min = UINT64_MAX - gext[1];
	h->sum = gsum;
}

void fl_mpi_sum_channels(struct flitnet *n)
{
	/* In pieces through the stack: an allocation that failed here, on one
	 * rank, would leave the others in the reduction. */
	enum { PIECE = 2048 };
	uint64_t a[PIECE];
	const uint32_t P = n->topo->n_ports;
	for (uint32_t g0 = 0; g0 < P; g0 += PIECE) {
		const uint32_t k = P - g0 < PIECE ? P - g0 : PIECE;
		for (uint32_t i = 0; i < k; i++)
			a[i] = n->ports[g0 + i].chan_flits;
		mx_sum_u64(n, a, k);
		for (uint32_t i = 0; i < k; i++)
			n->ports[g0 + i].chan_flits = a[i];
	}
}

struct stats_hist *fl_mpi_local_hists(struct flitnet *n)
{
	return n->mx && n->x_rank != 0 ? n->mx->loc : NULL;
}

#else /* !NETLOOM_HAVE_MPI: never reached (net_mpi_open fails, sc.mpi stays NULL) */
uint64_t fl_mpi_sum(const struct flitnet *n, uint64_t v)
{
	(void)n;
	return v;
}

uint64_t fl_mpi_max(const struct flitnet *n, uint64_t v)
{
	(void)n;
	return v;
}

void fl_mpi_sum_i64(const struct flitnet *n, int64_t *a, uint64_t count)
{
	(void)n;
	(void)a;
	(void)count;
}

void fl_mpi_fold_hist(const struct flitnet *n, struct stats_hist *h, const struct stats_hist *local)
{
	(void)n;
	(void)h;
	(void)local;
}

void fl_mpi_sum_channels(struct flitnet *n)
{
	(void)n;
}

void fl_mpi_sum_u16(const struct flitnet *n, uint16_t *a, uint64_t count)
{
	(void)n;
	(void)a;
	(void)count;
}

void fl_mpi_min_u8(const struct flitnet *n, uint8_t *a, uint64_t count)
{
	(void)n;
	(void)a;
	(void)count;
}

struct stats_hist *fl_mpi_local_hists(struct flitnet *n)
{
	(void)n;
	return NULL;
}

#endif
