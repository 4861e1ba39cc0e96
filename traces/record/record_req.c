/* netloom-record requests: MPI_Request handle -> small per-rank id.
 *
 * Open MPI's handles are pointers into its request free lists, reused as
 * soon as a request completes, so a handle maps to an id only while the
 * request is live: from the call that creates it to its completion (or
 * MPI_Request_free; a persistent request lives until freed). Ids are
 * recycled last-freed-first, so they stay as small as the number of
 * requests in flight. One handle can stand for several live requests:
 * Open MPI returns one shared, already complete request object for every
 * operation on MPI_PROC_NULL. The index is therefore a multimap, and a
 * lookup returns the newest entry for the handle (a stale entry, left by a
 * completion the recorder did not see, never shadows a live one). Linear
 * probing with backward-shift deletion: O(1) expected per operation, no
 * tombstones, no allocation unless the number of live requests reaches a
 * new maximum.
 * Recording window (NETLOOM_TRACE_START_BARRIER): before it, only
 * persistent requests are tracked, with the parameters of the call that
 * created them, because a program sets them up once and starts them in
 * the timed loop. When the window opens, those still alive are written as
 * their send_init/recv_init ops (rec_req_window_open), so their starts,
 * completions and frees inside the window are recorded. An operation one
 * of them started before the window is left out, like a non-persistent
 * request created before it.
 */
#include "traces/record/record_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct rec_req_slot {
	MPI_Request handle;  /* MPI_REQUEST_NULL = empty */
	uint64_t seq;        /* creation order: the newest entry of a handle wins */
	uint32_t id;
	uint8_t is_persistent;
	uint8_t is_cancelled; /* MPI_Cancel was called on it */
	uint8_t is_started;   /* persistent: started and not completed yet */
	uint8_t is_early;     /* persistent: that operation started before the window */
	/* Persistent: the send_init/recv_init op that created it (kind, comm,
	 * peer, tag, bytes), written when the window opens. */
	uint16_t init_kind;
	uint32_t init_comm;
	int32_t init_peer, init_tag;
	uint64_t init_bytes;
};

static struct {
	struct rec_req_slot *slots;
	size_t n_slots;   /* power of two */
	size_t n_live;
	uint32_t *free_ids; /* stack of released ids */
	size_t n_free, cap_free;
	uint32_t next_id;   /* ids never handed out start here */
	uint64_t next_seq;
	size_t n_cancelled; /* live requests with is_cancelled set */
} reqs;

static size_t rec_req_hash(MPI_Request r, size_t n_slots)
{
	uint64_t x = (uint64_t)(uintptr_t)r;

	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (size_t)x & (n_slots - 1);
}

static int rec_req_alloc_slots(size_t n)
{
	struct rec_req_slot *s = malloc(n * sizeof *s);

	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++)
		s[i] = (struct rec_req_slot){.handle = MPI_REQUEST_NULL};
	reqs.slots = s;
	reqs.n_slots = n;
	return 0;
}

int rec_req_setup(void)
{
	memset(&reqs, 0, sizeof reqs);
	return rec_req_alloc_slots(256);
}

void rec_req_teardown(void)
{
	free(reqs.slots);
	free(reqs.free_ids);
	memset(&reqs, 0, sizeof reqs);
}

/* The slot of the newest entry for r, or the empty slot ending its probe
 * run when there is none. */
static size_t rec_req_find_slot(MPI_Request r)
{
	size_t s = rec_req_hash(r, reqs.n_slots), best = SIZE_MAX;

	for (; reqs.slots[s].handle != MPI_REQUEST_NULL; s = (s + 1) & (reqs.n_slots - 1))
		if (reqs.slots[s].handle == r && (best == SIZE_MAX || reqs.slots[s].seq > reqs.slots[best].seq))
			best = s;
	return best == SIZE_MAX ? s : best;
}

/* An empty slot for a new entry of r. */
static size_t rec_req_free_slot(MPI_Request r)
{
	size_t s = rec_req_hash(r, reqs.n_slots);

	while (reqs.slots[s].handle != MPI_REQUEST_NULL)
		s = (s + 1) & (reqs.n_slots - 1);
	return s;
}

static int rec_req_grow(void)
{
	struct rec_req_slot *old = reqs.slots;
	size_t n_old = reqs.n_slots;

	if (rec_req_alloc_slots(n_old * 2) < 0) {
		reqs.slots = old;
		return -1;
	}
	for (size_t i = 0; i < n_old; i++)
		if (old[i].handle != MPI_REQUEST_NULL)
			reqs.slots[rec_req_free_slot(old[i].handle)] = old[i];
	free(old);
	return 0;
}

uint32_t rec_req_new(MPI_Request r, const struct trace_op *init)
{
	size_t s;
	uint32_t id;

	/* Before the recorded window, non-persistent requests are not
	 * tracked: their completions inside it are left out (and counted). */
	if (!reqs.slots || r == MPI_REQUEST_NULL || (!init && !rec_is_writing()))
		return REC_REQ_NONE;
	if (2 * (reqs.n_live + 1) > reqs.n_slots && rec_req_grow() < 0) {
		rec_fail("out of memory (%zu live requests)", reqs.n_live);
		return REC_REQ_NONE;
	}
	s = rec_req_free_slot(r);
	id = reqs.n_free ? reqs.free_ids[--reqs.n_free] : reqs.next_id++;
	reqs.n_live++;
	reqs.slots[s] = (struct rec_req_slot){.handle = r, .seq = reqs.next_seq++, .id = id};
	if (init) {
		reqs.slots[s].is_persistent = 1;
		reqs.slots[s].init_kind = init->kind;
		reqs.slots[s].init_comm = init->comm;
		reqs.slots[s].init_peer = init->peer;
		reqs.slots[s].init_tag = init->tag;
		reqs.slots[s].init_bytes = init->bytes;
	}
	return id;
}

/* Persistent slots in creation order, for rec_req_window_open. */
static int rec_req_cmp_seq(const void *a, const void *b)
{
	const struct rec_req_slot *x = *(const struct rec_req_slot *const *)a;
	const struct rec_req_slot *y = *(const struct rec_req_slot *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct trace_op *rec_req_window_open(size_t *n)
{
	struct rec_req_slot **live;
	struct trace_op *ops = NULL;
	size_t k = 0;

	*n = 0;
	if (!reqs.slots || !reqs.n_live)
		return NULL;
	live = malloc(reqs.n_live * sizeof *live);
	if (!live) {
		rec_fail("out of memory (%zu live requests at the recorded window)", reqs.n_live);
		return NULL;
	}
	for (size_t i = 0; i < reqs.n_slots; i++)
		if (reqs.slots[i].handle != MPI_REQUEST_NULL && reqs.slots[i].is_persistent)
			live[k++] = &reqs.slots[i];
	if (k)
		ops = rec_scratch_ops(k);
	if (ops) {
		qsort(live, k, sizeof *live, rec_req_cmp_seq);
		for (size_t i = 0; i < k; i++) {
			struct rec_req_slot *e = live[i];
			e->is_early = e->is_started;
			ops[i] = (struct trace_op){.kind = e->init_kind, .comm = e->init_comm,
						   .peer = e->init_peer, .tag = e->init_tag,
						   .bytes = e->init_bytes, .req = e->id};
		}
		*n = k;
	}
	free(live);
	return ops;
}

/* The live entry of r, or NULL. */
static struct rec_req_slot *rec_req_slot_of(MPI_Request r)
{
	size_t s;

	if (!reqs.slots || r == MPI_REQUEST_NULL)
		return NULL;
	s = rec_req_find_slot(r);
	return reqs.slots[s].handle == r ? &reqs.slots[s] : NULL;
}

void rec_req_started(MPI_Request r)
{
	struct rec_req_slot *e = rec_req_slot_of(r);

	if (e && e->is_persistent)
		e->is_started = 1;
}

bool rec_req_is_early(MPI_Request r)
{
	struct rec_req_slot *e = rec_req_slot_of(r);

	return e && e->is_early;
}

void rec_req_persistent_done(MPI_Request r)
{
	struct rec_req_slot *e = rec_req_slot_of(r);

	if (e && e->is_persistent)
		e->is_started = e->is_early = 0;
}

uint32_t rec_req_find(MPI_Request r, bool *is_persistent, bool *is_cancelled)
{
	size_t s;

	if (!reqs.slots || r == MPI_REQUEST_NULL)
		return REC_REQ_NONE;
	s = rec_req_find_slot(r);
	if (reqs.slots[s].handle != r)
		return REC_REQ_NONE;
	if (is_persistent)
		*is_persistent = reqs.slots[s].is_persistent;
	if (is_cancelled)
		*is_cancelled = reqs.slots[s].is_cancelled;
	return reqs.slots[s].id;
}

void rec_req_mark_cancelled(MPI_Request r)
{
	size_t s;

	if (!reqs.slots || r == MPI_REQUEST_NULL)
		return;
	s = rec_req_find_slot(r);
	if (reqs.slots[s].handle == r && !reqs.slots[s].is_cancelled) {
		reqs.slots[s].is_cancelled = 1;
		reqs.n_cancelled++;
	}
}

void rec_req_unmark_cancelled(MPI_Request r)
{
	size_t s;

	if (!reqs.slots || r == MPI_REQUEST_NULL)
		return;
	s = rec_req_find_slot(r);
	if (reqs.slots[s].handle == r && reqs.slots[s].is_cancelled) {
		reqs.slots[s].is_cancelled = 0;
		reqs.n_cancelled--;
	}
}

size_t rec_req_n_cancelled(void)
{
	return reqs.n_cancelled;
}

void rec_req_release(MPI_Request r)
{
	size_t hole, s;

	if (!reqs.slots || r == MPI_REQUEST_NULL)
		return;
	hole = rec_req_find_slot(r);
	if (reqs.slots[hole].handle != r)
		return;
	if (reqs.n_free == reqs.cap_free) {
		size_t cap = reqs.cap_free ? reqs.cap_free * 2 : 64;
		uint32_t *v = realloc(reqs.free_ids, cap * sizeof *v);
		if (!v) {
			rec_fail("out of memory (%zu free request ids)", cap);
			return;
		}
		reqs.free_ids = v;
		reqs.cap_free = cap;
	}
	reqs.free_ids[reqs.n_free++] = reqs.slots[hole].id;
	reqs.n_live--;
	reqs.n_cancelled -= reqs.slots[hole].is_cancelled;
	/* Backward-shift deletion: pull later members of the probe run into
	 * the hole when their home slot does not lie in (hole, s]. */
	s = hole;
	for (;;) {
		size_t home;
		s = (s + 1) & (reqs.n_slots - 1);
		if (reqs.slots[s].handle == MPI_REQUEST_NULL)
			break;
		home = rec_req_hash(reqs.slots[s].handle, reqs.n_slots);
		if (((s - home) & (reqs.n_slots - 1)) >= ((s - hole) & (reqs.n_slots - 1))) {
			reqs.slots[hole] = reqs.slots[s];
			hole = s;
		}
	}
	reqs.slots[hole] = (struct rec_req_slot){.handle = MPI_REQUEST_NULL};
}
