/* The MPI engine (mpi.h): a network's state over the ranks (fl_mpi_setup),
 * its plan (neighbours, lookahead, window: fl_mpi_plan) and the
 * reductions that begin and end a step; the exchange at each window's end
 * is mpi_exchange.c, whose wire format and two-rank swap fl_mpi_plan
 * chooses between. With mpi_launch.c (opening, agreement, closing),
 * mpi_reduce.c (the reductions the driver's decisions need) and
 * mpi_upstream.c (lookahead_decide = upstream), the only files with MPI
 * calls. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "net/mpi.h"
#include "net/mpi_internal.h"
#include "net/net_internal.h"
#include "topo/topo.h"

#ifdef NETLOOM_HAVE_MPI

/* The longest window when no link joins two ranks (one rank): the
 * decisions' cycles cut it anyway. */
#define MX_WINDOW_MAX 65536u

/* The window's reduction: integers, so the order MPI combines the ranks
 * in cannot change a bit. */
void mx_fold(void *in, void *inout, int *len, MPI_Datatype *type)
{
	(void)type;
	const uint64_t *a = in;
	uint64_t *b = inout;
	for (int k = 0; k < *len; k++, a += MH_WORDS, b += MH_WORDS) {
		for (int i = 0; i < MH_N_SUMS; i++)
			b[i] += a[i];
		for (int i = MH_N_SUMS; i < MH_WORDS; i++)
			if (a[i] > b[i])
				b[i] = a[i];
	}
}

/* NETLOOM_MPI_WINDOW (docs/scaling.md, "Windows"): a cap on the window
 * in cycles, 1 to 4294967295, or unset (UINT64_MAX). Read by each rank
 * from its own environment at build time: a bad value fails the build
 * there, which the build's agreement turns into every rank's failure,
 * named with the rank; ranks whose values differ take the smallest
 * (fl_mpi_begin), since the results do not depend on the window. */
static int mx_env_cap(uint64_t *cap, struct nl_err *err)
{
	const char *s = getenv("NETLOOM_MPI_WINDOW");
	*cap = UINT64_MAX;
	if (!s || !*s)
		return 0;
	char *e;
	errno = 0;
	unsigned long long v = s[0] >= '0' && s[0] <= '9' ? strtoull(s, &e, 10) : 0;
	if (s[0] < '0' || s[0] > '9' || errno || *e || v < 1 || v > UINT32_MAX)
		return nl_errf(err, NL_ECONFIG,
			       "environment variable NETLOOM_MPI_WINDOW '%s': expected a whole number of cycles from 1 "
			       "to 4294967295 (the longest window between two exchanges), or the variable unset",
			       s);
	*cap = v;
	return 0;
}

int fl_mpi_setup(struct flitnet *n, struct nl_err *err)
{
	struct net_mpi *m = n->sc.mpi;
	const uint32_t N = m->size;
	uint64_t cap;
	NL_CHECK(mx_env_cap(&cap, err));
	struct fl_mx *x = calloc(1, sizeof *x);
	if (!x)
		goto nomem;
	n->mx = x;
	x->m = m;
	x->env_cap = cap;
	x->scount = calloc(N, sizeof(int));
	x->sdispl = calloc(N, sizeof(int));
	x->rcount = calloc(N, sizeof(int));
	x->rdispl = calloc(N, sizeof(int));
	x->cursor = calloc(N, sizeof *x->cursor);
	x->nbr = calloc(N, sizeof *x->nbr);
	x->req = calloc(N, sizeof *x->req);
	if (!x->scount || !x->sdispl || !x->rcount || !x->rdispl || !x->cursor || !x->nbr || !x->req)
		goto nomem;
	if (n->la_upstream && N > 1) {
		const uint64_t IV = (uint64_t)n->topo->n_ports * n->V;
		x->xs = calloc(IV, sizeof *x->xs);
		x->park_head = malloc(IV * sizeof *x->park_head);
		x->park_tail = malloc(IV * sizeof *x->park_tail);
		if (!x->xs || !x->park_head || !x->park_tail)
			goto nomem;
		for (uint64_t iv = 0; iv < IV; iv++)
			x->park_head[iv] = x->park_tail[iv] = FL_NONE;
		x->free_park = FL_NONE;
	}
	if (m->rank != 0)
		for (int i = 0; i < 3; i++)
			if (stats_hist_init(&x->loc[i]) < 0)
				goto nomem;
	MPI_Type_contiguous(MH_WORDS, MPI_UINT64_T, &x->words);
	MPI_Type_commit(&x->words);
	MPI_Op_create(mx_fold, 1, &x->fold);
	x->has_type = true;
	return 0;
nomem:
	return nl_errf(err, NL_ENOMEM, "out of memory for the MPI exchange of %u ranks", N);
}

void fl_mpi_release(struct flitnet *n)
{
	struct fl_mx *x = n->mx;
	if (!x)
		return;
	if (x->has_type) {
		MPI_Op_free(&x->fold);
		MPI_Type_free(&x->words);
	}
	free(x->scount);
	free(x->sdispl);
	free(x->rcount);
	free(x->rdispl);
	free(x->sbuf);
	free(x->rbuf);
	free(x->cursor);
	free(x->nbr);
	free(x->req);
	free(x->xs);
	free(x->lreq);
	free(x->dec);
	free(x->park_head);
	free(x->park_tail);
	free(x->park);
	free(x->box);
	for (int i = 0; i < 3; i++)
		stats_hist_release(&x->loc[i]);
	free(x);
	n->mx = NULL;
}

/* The root's summed counters, in header order. */
void mx_counters(struct flitnet *n, uint64_t **c)
{
	c[MH_FLITS_IN_NET] = &n->flits_in_net;
	c[MH_FLIT_HOPS] = &n->flit_hops;
	c[MH_FLITS_ALIVE] = &n->obs.flits_alive;
	c[MH_CTIME_ALIVE] = &n->obs.ctime_sum_alive;
	c[MH_MEAS_ALIVE] = &n->obs.measured_alive;
	c[MH_ACCEPTED] = &n->obs.accepted_flits;
	c[MH_SENT] = &n->obs.sent_flits;
}

void mx_base(struct flitnet *n)
{
	uint64_t *c[MH_N_COUNTERS] = {0};
	mx_counters(n, c);
	for (int i = 0; i < MH_N_COUNTERS; i++)
		n->mx->base[i] = i == MH_UNDRAINED ? n->obs.n_undrained : *c[i];
}

/* The latest cycle of an event pending in this rank's partitions or
 * outboxes (those with events are in their source's xdst, fl_xsend). */
uint64_t mx_last_event(const struct flitnet *n)
{
	uint64_t last = 0;
	for (uint32_t i = 0; i < n->n_own; i++) {
		const struct flitnet *s = n->part[n->own[i]];
		uint64_t c = fl_part_last_event(s);
		if (c > last)
			last = c;
		for (uint32_t j = 0; j < s->n_xdst; j++) {
			const struct fl_xbox *x = &s->xbox[s->xdst[j]];
			for (uint32_t k = 0; k < x->n; k++)
				if (x->ev[k].cycle > last)
					last = x->ev[k].cycle;
		}
	}
	return last;
}

void fl_mpi_plan(struct flitnet *n)
{
	struct fl_mx *x = n->mx;
	const struct topo *t = n->topo;
	const uint32_t N = n->x_size;
	/* A flit leaves its output queue at cycle c >= now and is due at
	 * c + lat + 1 (router.c, fl_output); a credit at c + lat + 1 +
	 * credit_delay, over the same link the other way (fl_return_credit).
	 * Endpoints talk to their own router only, so these are all that
	 * crosses. */
	uint64_t L = UINT64_MAX;
	for (uint32_t g = 0; g < t->n_ports; g++) {
		const struct fl_link *l = &n->ports[g].link;
		if (!l->network || l->target == FL_NONE)
			continue;
		const uint32_t from = n->n_parts > 1 ? n->r_part[t->port_router[g]] : 0;
		if (from % N != l->part % N && (uint64_t)l->lat + 1 < L)
			L = (uint64_t)l->lat + 1;
	}
	x->lookahead = L;
	/* The ranks sharing a link with this one (flits go one way, their
	 * credits the other): the only ones it exchanges events with. */
	for (uint32_t q = 0; q < N; q++)
		x->cursor[q] = 0;
	for (uint32_t g = 0; g < t->n_ports && n->n_parts > 1; g++) {
		const struct fl_link *l = &n->ports[g].link;
		if (!l->network || l->target == FL_NONE)
			continue;
		const uint32_t a = n->r_part[t->port_router[g]] % N, b = l->part % N;
		if (a != b && (a == n->x_rank || b == n->x_rank))
			x->cursor[a == n->x_rank ? b : a] = 1;
	}
	x->n_nbr = 0;
	for (uint32_t q = 0; q < N; q++)
		if (x->cursor[q])
			x->nbr[x->n_nbr++] = q;
	/* Two ranks sharing a link: each is the other's only neighbour, so
	 * the window's head goes in front of the payload message, which is
	 * then sent every window (empty or not), and each rank folds the two
	 * heads itself (integers: the same on both): one MPI_Sendrecv
	 * (mx_pair_swap) instead of an allreduce, then, when anything
	 * crossed, the messages, and in a replay the completions' gathers.
	 * More ranks keep the allreduce: its cost grows with the log of the
	 * ranks, a message to each neighbour with their number, and an idle
	 * window sends no message there. */
	x->head_on_msgs = N == 2 && x->n_nbr == 1;
	uint64_t w = L < MX_WINDOW_MAX ? L : MX_WINDOW_MAX;
	/* A rank skips its own idle cycles inside a window (flitnet_run.c): the
	 * same state as running them only while a jump's speedup arithmetic
	 * is exact, i.e. with a whole internal_speedup. */
	if (n->rc.internal_speedup != floor(n->rc.internal_speedup))
		w = 1;
	/* A trace replay's application reacts to each cycle's deliveries
	 * (backend_flit.c): every cycle with work ends an exchange. */
	if (n->msg_driven)
		w = 1;
	/* lookahead_decide = upstream: a head that wins a switch at cycle c is
	 * decided with its next router's state at c's end, which that
	 * router's rank has only then (mx_la_*): every cycle with work ends
	 * an exchange. */
	if (n->la_upstream)
		w = 1;
	/* NETLOOM_MPI_WINDOW=k caps the window (1: an exchange every cycle,
	 * as before windows; benchmarks and debugging): fl_mpi_begin applies
	 * the ranks' smallest, since a rank's environment is its own (a
	 * window of another length on one rank is another sequence of
	 * collectives). */
	x->planned = w;
	n->x_window = w < x->env_cap ? w : x->env_cap;
	x->m->lookahead = L;
	x->m->window = n->x_window;
}

/* A step's first collective: every step the driver takes into the
 * network (flitnet_run_until's fl_mpi_begin, a replay advance's, whose
 * later windows follow on from their exchanges as a run's windows do,
 * fl_mpi_next_work) starts with this one reduction, and so does
 * fl_mpi_step_end. A rank that failed between two steps (a replay's
 * trace it could not decode) ends with fl_mpi_step_end while the others
 * are in their next step's first collective: the same reduction, which
 * tells them (MS_FAILED), where a collective of another shape met them
 * and MPI aborted the launch (MPI_ERR_TRUNCATE). Maxima of uint64: the
 * words a call does not use are 0. */
enum { MS_NOT_NEXT, MS_LAST_EVENT, MS_NOT_CAP, MS_FAILED, MS_WORDS };

static void mx_step(const struct flitnet *n, const uint64_t v[MS_WORDS], uint64_t g[MS_WORDS])
{
	n->mx->m->st.colls++;
	MPI_Allreduce(v, g, MS_WORDS, MPI_UINT64_T, MPI_MAX, n->mx->m->comm);
	if (g[MS_FAILED])
		n->mx->peer_failed = true;
}

void fl_mpi_begin(struct flitnet *n)
{
	struct fl_mx *x = n->mx;
	mx_base(n);
	uint64_t v[MS_WORDS] = {UINT64_MAX - fl_next_work(n), mx_last_event(n), UINT64_MAX - x->env_cap, 0};
	uint64_t g[MS_WORDS];
	mx_step(n, v, g);
	n->x_next = UINT64_MAX - g[MS_NOT_NEXT];
	n->x_clast = g[MS_LAST_EVENT];
	const uint64_t cap = UINT64_MAX - g[MS_NOT_CAP];
	n->x_window = x->planned < cap ? x->planned : cap;
	x->m->window = n->x_window;
}

uint64_t fl_mpi_next_work(const struct flitnet *n)
{
	uint64_t v[MS_WORDS] = {UINT64_MAX - fl_next_work(n), 0, 0, 0}, g[MS_WORDS];
	mx_step(n, v, g);
	return UINT64_MAX - g[MS_NOT_NEXT];
}

int fl_mpi_peer_check(const struct flitnet *n, struct nl_err *err)
{
	if (!n->mx->peer_failed)
		return 0;
	return nl_errf(err, NL_ESTATE, "another of the %u MPI ranks failed", n->x_size);
}

bool fl_mpi_step_end(struct flitnet *n, bool failed)
{
	if (n->mx->peer_failed)
		return true;
	uint64_t v[MS_WORDS] = {0, 0, 0, failed}, g[MS_WORDS];
	mx_step(n, v, g);
	return g[MS_FAILED] != 0;
}

#else /* !NETLOOM_HAVE_MPI: never reached (net_mpi_open fails, sc.mpi stays NULL) */
int fl_mpi_setup(struct flitnet *n, struct nl_err *err)
{
	(void)n;
	return nl_errf(err, NL_EUNSUPPORTED, "this netloom was built without MPI");
}

void fl_mpi_release(struct flitnet *n)
{
	(void)n;
}

void fl_mpi_begin(struct flitnet *n)
{
	(void)n;
	NL_BUG("MPI engine without MPI");
}

void fl_mpi_plan(struct flitnet *n)
{
	(void)n;
}

void fl_mpi_exchange(struct flitnet *n)
{
	(void)n;
	NL_BUG("MPI engine without MPI");
}

uint64_t fl_mpi_next_work(const struct flitnet *n)
{
	return fl_next_work(n);
}

int fl_mpi_peer_check(const struct flitnet *n, struct nl_err *err)
{
	(void)n;
	(void)err;
	return 0;
}

bool fl_mpi_step_end(struct flitnet *n, bool failed)
{
	(void)n;
	return failed;
}

#endif
