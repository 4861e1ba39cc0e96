/* The MPI engine's launch side (mpi.h): whether a launcher started this
 * process, MPI opened once per process (net_mpi_open, through mpi_port.h
 * for Open MPI), the collectives by which every rank of a command agrees
 * on a status, a hash or a gather, and closing with the exchange's
 * statistics (NETLOOM_MPI_STATS). Without MPI the same calls act as one
 * process would. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "net/mpi.h"
#include "net/mpi_internal.h"

static bool mpi_env_u32(const char *name, uint32_t *v)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return false;
	char *e;
	unsigned long x = strtoul(s, &e, 10);
	if (*e || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

bool net_mpi_launched(uint32_t *rank, uint32_t *size)
{
	/* Open MPI's mpirun, then PMI (MPICH, Slurm's srun --mpi=pmi2), then
	 * PMIx (srun --mpi=pmix, whose size Slurm gives). */
	static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
	static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"};
	bool launched = false;
	*rank = 0;
	*size = 0;
	for (size_t i = 0; i < sizeof ranks / sizeof *ranks && !launched; i++)
		launched = mpi_env_u32(ranks[i], rank);
	if (!launched)
		return false;
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		if (mpi_env_u32(sizes[i], size))
			break;
	return true;
}

uint32_t net_mpi_rank(const struct net_mpi *m)
{
	return m ? m->rank : 0;
}

uint32_t net_mpi_size(const struct net_mpi *m)
{
	return m ? m->size : 1;
}

/* net_mpi_allgather of one process: its own bytes. */
static int mpi_gather_self(const void *buf, size_t len, uint8_t **all, size_t *at, struct nl_err *err)
{
	*all = malloc(len ? len : 1);
	if (!*all)
		return nl_errf(err, NL_ENOMEM, "out of memory gathering %zu bytes of results", len);
	if (len)
		memcpy(*all, buf, len);
	at[0] = 0;
	at[1] = len;
	return 0;
}

#ifdef NETLOOM_HAVE_MPI

bool net_mpi_built(void)
{
	return true;
}

/* The agreement is two collectives: the lowest failing rank (a minimum),
 * then its status and line from it (a broadcast), only when one failed. */
int net_mpi_agree(const struct net_mpi *m, int rc, struct nl_err *err)
{
	if (!m || m->size <= 1)
		return rc;
	int mine = rc < 0 ? (int)m->rank : (int)m->size, first = mine;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, m->comm);
	if (first == (int)m->size)
		return 0;
	struct {
		int code;
		char msg[NL_ERR_MSG_MAX];
	} e = {0};
	if ((int)m->rank == first) {
		e.code = rc;
		snprintf(e.msg, sizeof e.msg, "%s", err ? err->msg : "");
	}
	MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, m->comm);
	if ((int)m->rank != first) {
		if (first == 0)
			nl_errf(err, e.code, "%s", e.msg);
		else
			nl_errf(err, e.code, "MPI rank %d of %u: %s", first, m->size, e.msg);
	}
	return e.code;
}

int net_mpi_agree_same(const struct net_mpi *m, uint64_t h, const char *what, struct nl_err *err)
{
	if (!m || m->size <= 1)
		return 0;
	uint64_t h0 = h;
	MPI_Bcast(&h0, 1, MPI_UINT64_T, 0, m->comm);
	int mine = h != h0 ? (int)m->rank : (int)m->size, first = mine;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, m->comm);
	if (first == (int)m->size)
		return 0;
	return nl_errf(err, NL_ECONFIG,
		       "MPI rank %d of %u: %s differs from rank 0's; expected the same on every rank (a file with "
		       "other contents under the same name on that node)",
		       first, m->size, what);
}

int net_mpi_agree_exit(const struct net_mpi *m, int code)
{
	if (!m || m->size <= 1)
		return code;
	/* Rank 0's status when it failed (it printed why: a report it could
	 * not write is not "some cells failed"), else the largest of all.
	 * Statuses are >= 0, so a maximum where the others give 0 is rank
	 * 0's. */
	int mine[2] = {m->rank == 0 ? code : 0, code}, g[2] = {0, 0};
	MPI_Allreduce(mine, g, 2, MPI_INT, MPI_MAX, m->comm);
	return g[0] ? g[0] : g[1];
}

_Static_assert(sizeof(size_t) == sizeof(uint64_t), "net_mpi_allgather gathers sizes as MPI_UINT64_T");

int net_mpi_allgather(const struct net_mpi *m, const void *buf, size_t len, uint8_t **all, size_t *at,
		      struct nl_err *err)
{
	if (!m || m->size <= 1)
		return mpi_gather_self(buf, len, all, at, err);
	const uint32_t N = m->size;
	uint64_t mine = len;
	MPI_Allgather(&mine, 1, MPI_UINT64_T, at + 1, 1, MPI_UINT64_T, m->comm);
	at[0] = 0;
	for (uint32_t r = 0; r < N; r++)
		at[r + 1] += at[r];
	const size_t total = at[N];
	/* Whether every rank can take the result is itself agreed: a rank
	 * short of memory must not leave the others in the gather. */
	int bad = total > (size_t)INT32_MAX ? 2 : 0;
	int *count = malloc(N * sizeof *count), *displ = malloc(N * sizeof *displ);
	*all = bad ? NULL : malloc(total ? total : 1);
	if (!bad && (!count || !displ || !*all))
		bad = 1;
	int gbad = bad;
	MPI_Allreduce(&bad, &gbad, 1, MPI_INT, MPI_MAX, m->comm);
	if (gbad) {
		free(count);
		free(displ);
		free(*all);
		*all = NULL;
		return gbad == 2 ? nl_errf(err, NL_ERANGE, "%zu bytes of results from %u MPI ranks: expected at most 2 GiB",
					   total, N)
				 : nl_errf(err, NL_ENOMEM, "out of memory gathering %zu bytes of results from %u MPI ranks",
					   total, N);
	}
	for (uint32_t r = 0; r < N; r++) {
		count[r] = (int)(at[r + 1] - at[r]);
		displ[r] = (int)at[r];
	}
	MPI_Allgatherv(buf, (int)len, MPI_BYTE, *all, count, displ, MPI_BYTE, m->comm);
	free(count);
	free(displ);
	return 0;
}

int net_mpi_open(const char *who, struct net_mpi **out, struct nl_err *err)
{
	NL_CHECK(nl_mpi_open(err));
	struct net_mpi *m = calloc(1, sizeof *m);
	if (!m)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	snprintf(m->who, sizeof m->who, "%s", who);
	/* Only the calling thread calls MPI; worker threads never do. */
	int provided = 0;
	if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		free(m);
		return nl_errf(err, NL_EIO, "MPI_Init_thread failed");
	}
	int r = 0, s = 1;
	MPI_Comm_dup(MPI_COMM_WORLD, &m->comm);
	MPI_Comm_rank(m->comm, &r);
	MPI_Comm_size(m->comm, &s);
	m->rank = (uint32_t)r;
	m->size = (uint32_t)s;
	*out = m;
	return 0;
}

/* NETLOOM_MPI_STATS=1: rank 0 prints the exchange's figures, summed over
 * the ranks, to stderr (benchmarks/engine/mpi.sh reads them). Rank 0's
 * environment decides; the sum is taken on every rank whatever its own
 * environment says, so that a rank without the variable does not leave
 * rank 0 alone in the reduction. */
static void mpi_print_stats(struct net_mpi *m)
{
	const char *e = getenv("NETLOOM_MPI_STATS");
	uint64_t mine[9] = {m->st.cycles, m->st.bytes, m->st.hdr_bytes, m->st.msgs, m->st.events, m->st.heads,
			    m->st.vcalls, m->st.wcycles, m->st.colls};
	uint64_t all[9];
	MPI_Reduce(mine, all, 9, MPI_UINT64_T, MPI_SUM, 0, m->comm);
	if (m->rank != 0 || !e || !*e || !strcmp(e, "0"))
		return;
	/* No network was cut over the ranks (fl_mpi_plan never ran: sweep
	 * --spread points, compare, a run that failed first): a line of
	 * zeros read as a lookahead and a window of 0 cycles. */
	if (!m->window) {
		fprintf(stderr,
			"netloom mpi: %u rank%s, no network spread over them (whole simulations per rank, or none "
			"built): no windows, nothing exchanged\n",
			m->size, m->size == 1 ? "" : "s");
		return;
	}
	/* No link joins two ranks' partitions (one rank): L is unbounded,
	 * printed as 2^64 - 1 cycles. */
	char lookahead[48];
	if (m->lookahead == UINT64_MAX)
		snprintf(lookahead, sizeof lookahead, "none (no link between ranks)");
	else
		snprintf(lookahead, sizeof lookahead, "%" PRIu64 " cycles", m->lookahead);
	const double w = m->st.cycles ? (double)m->st.cycles : 1.0;
	fprintf(stderr,
		"netloom mpi: %u rank%s, lookahead %s, window up to %" PRIu64 " cycles; %" PRIu64
		" windows of %.2f cycles on average (%" PRIu64 " cycles); per window, all ranks: %.1f payload bytes "
		"in %.2f messages (%.1f events, %.1f heads), %.1f bytes of window heads (%.0f per rank; on the "
		"messages with 2 ranks, else reduced); events exchanged in "
		"%.1f%% of windows; %.2f collective calls per window per rank\n",
		m->size, m->size == 1 ? "" : "s", lookahead, m->window, m->st.cycles, (double)m->st.wcycles / w, m->st.wcycles,
		(double)all[1] / w, (double)all[3] / w, (double)all[4] / w, (double)all[5] / w, (double)all[2] / w,
		(double)all[2] / w / m->size, 100.0 * (double)m->st.vcalls / w, (double)all[8] / w / m->size);
}

void net_mpi_close(struct net_mpi *m)
{
	if (!m)
		return;
	mpi_print_stats(m);
	MPI_Comm_free(&m->comm);
	MPI_Finalize();
	free(m);
}

#else /* !NETLOOM_HAVE_MPI: one process (net_mpi_open fails, sc.mpi stays NULL) */

bool net_mpi_built(void)
{
	return false;
}

int net_mpi_agree(const struct net_mpi *m, int rc, struct nl_err *err)
{
	(void)m;
	(void)err;
	return rc;
}

int net_mpi_agree_exit(const struct net_mpi *m, int code)
{
	(void)m;
	return code;
}

int net_mpi_agree_same(const struct net_mpi *m, uint64_t h, const char *what, struct nl_err *err)
{
	(void)m;
	(void)h;
	(void)what;
	(void)err;
	return 0;
}

int net_mpi_allgather(const struct net_mpi *m, const void *buf, size_t len, uint8_t **all, size_t *at,
		      struct nl_err *err)
{
	(void)m;
	return mpi_gather_self(buf, len, all, at, err);
}

int net_mpi_open(const char *who, struct net_mpi **out, struct nl_err *err)
{
	(void)who;
	*out = NULL;
	return nl_errf(err, NL_EUNSUPPORTED, "this netloom was built without MPI (Debian: libopenmpi-dev)");
}

void net_mpi_close(struct net_mpi *m)
{
	(void)m;
}

#endif
