/* netloom-record communicators: handle -> trace id, and the constructors.
 *
 * Ids are the same on every member without any message: a communicator
 * made by a constructor that is collective over its parent P gets
 *   id = H(id(P), s, w)
 * where s counts the constructors this rank has called on P before (MPI
 * orders collectives on a communicator identically on all its members, so
 * s agrees), and w is the lowest world rank of the new communicator (it
 * separates the disjoint results of one split). H is a 64-bit mix cut to
 * 32 bits, avoiding 0 (world), 1 (self) and UINT32_MAX (null); a collision
 * is detected (here for one rank's communicators, at MPI_Finalize across
 * ranks) and stops the trace rather than writing a wrong one.
 * Invariant: every registered handle is an intracommunicator whose member
 * list (world ranks, in comm rank order) is kept until MPI_Finalize, also
 * after MPI_Comm_free, because the manifest lists every id a stream uses.
 */
#include "traces/record/record_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct {
	struct rec_comm *v; /* every communicator registered, in creation order */
	size_t n, cap;
	uint32_t *slots;    /* open addressing over live handles: index+1, 0 = empty */
	size_t n_slots;     /* power of two, > 2 x live handles */
	MPI_Comm last;      /* one-entry cache of the last non-world lookup */
	uint32_t last_idx;
} comms;

static size_t rec_comm_hash(MPI_Comm c, size_t n_slots)
{
	uint64_t x = (uint64_t)(uintptr_t)c;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x & (n_slots - 1);
}

static uint64_t rec_mix64(uint64_t x)
{
	/* splitmix64's finaliser: a bijection with full avalanche. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint32_t rec_comm_lowest(const struct rec_comm *e)
{
	uint32_t lowest = UINT32_MAX;

	for (uint32_t i = 0; i < e->size; i++)
		lowest = e->world_ranks[i] < lowest ? e->world_ranks[i] : lowest;
	return lowest;
}

static uint32_t rec_comm_derive_id(uint32_t parent, uint32_t seq, uint32_t lowest)
{
	uint64_t h = rec_mix64(0x6e65746c6f6f6d00ull ^ parent);
	uint32_t id;

	h = rec_mix64(h ^ ((uint64_t)seq << 32 | lowest));
	id = (uint32_t)(h >> 32);
	while (id <= TRACE_COMM_SELF || id == REC_COMM_NONE) {
		h = rec_mix64(h);
		id = (uint32_t)(h >> 32);
	}
	return id;
}

/* Rebuild the handle index over the live communicators (creation and free
 * are rare and collective; lookups are the hot path). */
static int rec_comm_reindex(void)
{
	size_t live = 0, want = 16;
	uint32_t *slots;

	for (size_t i = 0; i < comms.n; i++)
		live += comms.v[i].handle != MPI_COMM_NULL;
	while (want < 2 * live + 2)
		want *= 2;
	slots = calloc(want, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t i = 0; i < comms.n; i++) {
		size_t s;
		if (comms.v[i].handle == MPI_COMM_NULL)
			continue;
		s = rec_comm_hash(comms.v[i].handle, want);
		while (slots[s])
			s = (s + 1) & (want - 1);
		slots[s] = (uint32_t)i + 1;
	}
	free(comms.slots);
	comms.slots = slots;
	comms.n_slots = want;
	comms.last = MPI_COMM_NULL;
	return 0;
}

/* Add a communicator with a known id; members from its group. */
static int rec_comm_add(MPI_Comm c, uint32_t id)
{
	struct rec_comm *e;
	MPI_Group g = MPI_GROUP_NULL;
	int size = 0, rank = 0, *in = NULL, *out = NULL;
	int rc = -1;

	if (comms.n == comms.cap) {
		size_t cap = comms.cap ? comms.cap * 2 : 16;
		struct rec_comm *v = realloc(comms.v, cap * sizeof *v);
		if (!v)
			return -1;
		comms.v = v;
		comms.cap = cap;
	}
	if (PMPI_Comm_size(c, &size) != MPI_SUCCESS || PMPI_Comm_rank(c, &rank) != MPI_SUCCESS ||
	    PMPI_Comm_group(c, &g) != MPI_SUCCESS)
		return -1;
	in = malloc((size_t)size * sizeof *in);
	out = malloc((size_t)size * sizeof *out);
	e = &comms.v[comms.n];
	*e = (struct rec_comm){.handle = c, .id = id, .size = (uint32_t)size, .my_rank = rank};
	e->world_ranks = malloc((size_t)size * sizeof *e->world_ranks);
	if (!in || !out || !e->world_ranks)
		goto out;
	for (int i = 0; i < size; i++)
		in[i] = i;
	if (PMPI_Group_translate_ranks(g, size, in, rec_world_group(), out) != MPI_SUCCESS)
		goto out;
	for (int i = 0; i < size; i++)
		e->world_ranks[i] = (uint32_t)out[i];
	comms.n++;
	rc = rec_comm_reindex();
	if (rc < 0)
		comms.n--;
out:
	if (rc < 0)
		free(e->world_ranks);
	free(in);
	free(out);
	PMPI_Group_free(&g);
	return rc;
}

int rec_comm_setup(void)
{
	if (rec_comm_add(MPI_COMM_WORLD, TRACE_COMM_WORLD) < 0 ||
	    rec_comm_add(MPI_COMM_SELF, TRACE_COMM_SELF) < 0)
		return -1;
	return 0;
}

void rec_comm_teardown(void)
{
	for (size_t i = 0; i < comms.n; i++)
		free(comms.v[i].world_ranks);
	free(comms.v);
	free(comms.slots);
	memset(&comms, 0, sizeof comms);
}

uint32_t rec_comm_lookup(MPI_Comm c, const struct rec_comm **info)
{
	size_t s;

	if (comms.n == 0)
		return REC_COMM_NONE;
	if (c == MPI_COMM_WORLD) {
		if (info)
			*info = &comms.v[0];
		return TRACE_COMM_WORLD;
	}
	if (c != comms.last || c == MPI_COMM_NULL) {
		if (c == MPI_COMM_NULL)
			return REC_COMM_NONE;
		s = rec_comm_hash(c, comms.n_slots);
		while (comms.slots[s] && comms.v[comms.slots[s] - 1].handle != c)
			s = (s + 1) & (comms.n_slots - 1);
		if (!comms.slots[s])
			return REC_COMM_NONE;
		comms.last = c;
		comms.last_idx = comms.slots[s] - 1;
	}
	if (info)
		*info = &comms.v[comms.last_idx];
	return comms.v[comms.last_idx].id;
}

size_t rec_comm_count(void)
{
	return comms.n;
}

const struct rec_comm *rec_comm_at(size_t i)
{
	return i < comms.n ? &comms.v[i] : NULL;
}

/* The next constructor on `parent`: its sequence number there. Every
 * member counts, including those the constructor leaves out. */
static uint32_t rec_comm_next_seq(uint32_t parent)
{
	for (size_t i = 0; i < comms.n; i++)
		if (comms.v[i].id == parent && comms.v[i].handle != MPI_COMM_NULL)
			return comms.v[i].n_created++;
	return 0;
}

/* Register the result of a constructor collective over `parent`; returns
 * its id, or REC_COMM_NONE (null result, intercommunicator, unknown
 * parent, failure). */
static uint32_t rec_comm_register(uint32_t parent, uint32_t seq, MPI_Comm c)
{
	struct rec_comm *e;
	uint32_t lowest, id;
	int is_inter = 0;

	if (parent == REC_COMM_NONE || c == MPI_COMM_NULL)
		return REC_COMM_NONE;
	if (PMPI_Comm_test_inter(c, &is_inter) != MPI_SUCCESS || is_inter)
		return REC_COMM_NONE;
	if (rec_comm_add(c, REC_COMM_NONE) < 0) {
		rec_fail("out of memory registering a communicator");
		return REC_COMM_NONE;
	}
	e = &comms.v[comms.n - 1];
	lowest = rec_comm_lowest(e);
	id = rec_comm_derive_id(parent, seq, lowest);
	for (size_t i = 0; i + 1 < comms.n; i++) {
		if (comms.v[i].id == id) {
			rec_fail("communicator id collision (%u); the trace would be ambiguous", id);
			return REC_COMM_NONE;
		}
	}
	e->id = id;
	return id;
}

static void rec_comm_forget(MPI_Comm c)
{
	for (size_t i = 0; i < comms.n; i++) {
		if (comms.v[i].handle == c && c != MPI_COMM_NULL) {
			comms.v[i].handle = MPI_COMM_NULL;
			if (rec_comm_reindex() < 0)
				rec_fail("out of memory releasing a communicator");
			return;
		}
	}
}

/* --- constructors ----------------------------------------------------------
 * All follow one pattern: note the parent's id and sequence number before
 * the call (so ranks that get MPI_COMM_NULL count it too), call PMPI,
 * register the result, record one op. MPI_Comm_split records the
 * program's color and key; the other splitting constructors (split_type,
 * cart, graph) are recorded as the split that yields the same members in
 * the same order: color = the new communicator's lowest world rank, key =
 * the rank in it. */

struct rec_ctor {
	struct rec_call c;
	uint32_t parent;
	uint32_t seq;
};

static void rec_ctor_begin(struct rec_ctor *k, MPI_Comm parent)
{
	rec_begin(&k->c);
	if (!k->c.is_on)
		return;
	k->parent = rec_comm_lookup(parent, NULL);
	k->seq = k->parent == REC_COMM_NONE ? 0 : rec_comm_next_seq(k->parent);
}

/* Finish a constructor; `kind` one of the TOP_COMM_* kinds. When color is
 * NULL the canonical (lowest world rank, new rank) split is recorded. */
static void rec_ctor_end_req(struct rec_ctor *k, int rc, uint16_t kind, MPI_Comm *newcomm,
			     const int *color, const int *key, const MPI_Request *req)
{
	struct trace_op op = {.kind = kind};
	const struct rec_comm *info = NULL;

	if (!k->c.is_on)
		return;
	if (rc != MPI_SUCCESS || k->parent == REC_COMM_NONE) {
		if (rc == MPI_SUCCESS)
			rec_unsupported(REC_UNSUP_COMM);
		rec_skip(&k->c);
		return;
	}
	op.comm = k->parent;
	op.new_comm = rec_comm_register(k->parent, k->seq, *newcomm);
	if (op.new_comm == REC_COMM_NONE && *newcomm != MPI_COMM_NULL && rec_is_active())
		rec_unsupported(REC_UNSUP_COMM); /* an intercommunicator */
	if (kind == TOP_COMM_SPLIT) {
		if (color) {
			op.color = *color == MPI_UNDEFINED ? -1 : *color;
			op.key = *key;
		} else if (op.new_comm != REC_COMM_NONE) {
			rec_comm_lookup(*newcomm, &info);
			op.color = (int32_t)rec_comm_lowest(info);
			op.key = info->my_rank;
		} else {
			op.color = -1;
		}
	}
	if (req) { /* MPI_Comm_idup: nonblocking, completes with its request */
		op.flags = TRACE_F_NONBLOCKING;
		op.req = rec_req_new(*req, NULL);
		if (op.req == REC_REQ_NONE) {
			rec_skip(&k->c);
			return;
		}
	}
	rec_end(&k->c, &op);
}

static void rec_ctor_end(struct rec_ctor *k, int rc, uint16_t kind, MPI_Comm *newcomm,
			 const int *color, const int *key)
{
	rec_ctor_end_req(k, rc, kind, newcomm, color, key, NULL);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	struct rec_ctor k;
	int rc;

	rec_ctor_begin(&k, comm);
	rc = PMPI_Comm_dup(comm, newcomm);
	rec_ctor_end(&k, rc, TOP_COMM_DUP, newcomm, NULL, NULL);
	return rc;
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	struct rec_ctor k;
	int rc;

	rec_ctor_begin(&k, comm);
	rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
	rec_ctor_end(&k, rc, TOP_COMM_DUP, newcomm, NULL, NULL);
	return rc;
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	struct rec_ctor k;
	int rc;

	/* Open MPI returns the new handle at once; it is usable after the
	 * request completes, which is all the program may assume too. The
	 * op is a nonblocking comm_dup with that request: replay completes
	 * it like a nonblocking collective, so the ranks do not block where
	 * the program did not. */
	rec_ctor_begin(&k, comm);
	rc = PMPI_Comm_idup(comm, newcomm, request);
	rec_ctor_end_req(&k, rc, TOP_COMM_DUP, newcomm, NULL, NULL, request);
	return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	struct rec_ctor k;
	int rc;

	rec_ctor_begin(&k, comm);
	rc = PMPI_Comm_split(comm, color, key, newcomm);
	rec_ctor_end(&k, rc, TOP_COMM_SPLIT, newcomm, &color, &key);
	return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
	struct rec_ctor k;
	int rc;

	rec_ctor_begin(&k, comm);
	rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
	rec_ctor_end(&k, rc, TOP_COMM_SPLIT, newcomm, NULL, NULL);
	return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	struct rec_ctor k;
	int rc;

	rec_ctor_begin(&k, comm);
	rc = PMPI_Comm_create(comm, group, newcomm);
	rec_ctor_end(&k, rc, TOP_COMM_CREATE, newcomm, NULL, NULL);
	return rc;
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
		    MPI_Comm *newcomm)
{
	struct rec_ctor k;
	int rc;

	rec_ctor_begin(&k, comm);
	rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
	rec_ctor_end(&k, rc, TOP_COMM_SPLIT, newcomm, NULL, NULL);
	return rc;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
	struct rec_ctor k;
	int rc;

	rec_ctor_begin(&k, comm);
	rc = PMPI_Cart_sub(comm, remain_dims, newcomm);
	rec_ctor_end(&k, rc, TOP_COMM_SPLIT, newcomm, NULL, NULL);
	return rc;
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
		     MPI_Comm *newcomm)
{
	struct rec_ctor k;
	int rc;

	rec_ctor_begin(&k, comm);
	rc = PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm);
	rec_ctor_end(&k, rc, TOP_COMM_SPLIT, newcomm, NULL, NULL);
	return rc;
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
			  const int destinations[], const int weights[], MPI_Info info, int reorder,
			  MPI_Comm *newcomm)
{
	struct rec_ctor k;
	int rc;

	rec_ctor_begin(&k, comm);
	rc = PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder,
				    newcomm);
	rec_ctor_end(&k, rc, TOP_COMM_SPLIT, newcomm, NULL, NULL);
	return rc;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
				   const int sourceweights[], int outdegree, const int destinations[],
				   const int destweights[], MPI_Info info, int reorder,
				   MPI_Comm *newcomm)
{
	struct rec_ctor k;
	int rc;

	rec_ctor_begin(&k, comm);
	rc = PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
					     destinations, destweights, info, reorder, newcomm);
	rec_ctor_end(&k, rc, TOP_COMM_SPLIT, newcomm, NULL, NULL);
	return rc;
}

/* Free and disconnect: the handle may be reused by MPI for a new
 * communicator, so it leaves the index; the id stays in the table. */
static int rec_comm_release(MPI_Comm *comm, int (*pmpi)(MPI_Comm *))
{
	struct rec_call c;
	MPI_Comm old = *comm;
	uint32_t id;
	int rc;

	rec_begin(&c);
	id = c.is_on ? rec_comm_lookup(old, NULL) : REC_COMM_NONE;
	rc = pmpi(comm);
	if (!c.is_on)
		return rc;
	if (rc != MPI_SUCCESS || id == REC_COMM_NONE) {
		if (rc == MPI_SUCCESS && old != MPI_COMM_NULL)
			rec_unsupported(REC_UNSUP_COMM);
		rec_skip(&c);
		return rc;
	}
	rec_comm_forget(old);
	struct trace_op op = {.kind = TOP_COMM_FREE, .comm = id};
	rec_end(&c, &op);
	return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
	return rec_comm_release(comm, PMPI_Comm_free);
}

int MPI_Comm_disconnect(MPI_Comm *comm)
{
	return rec_comm_release(comm, PMPI_Comm_disconnect);
}
