/* Importer "dumpi": DUMPI traces (sst-dumpi; SST, CODES and the DOE
 * mini-app trace collections): a .meta text file plus one binary file per
 * rank, <fileprefix>-NNNN.bin (dumpi_format.c reads the records).
 *
 * Two passes. Pass 1 walks all ranks in lock step to learn who belongs to
 * every communicator the program created: DUMPI records each rank's view
 * (split color/key, the group given to create, cartesian dims) with local
 * handle numbers, so the k-th creating call on a communicator is matched
 * across its members and resolved as MPI defines it (split: by color, then
 * key, then old rank; create: the group's order; cart_create: the first
 * prod(dims) ranks, reorder ignored; cart_sub: row-major coordinates).
 * Pass 2 converts each rank's records to ops, one rank at a time.
 *
 * Times: wall clock when recorded (else CPU), relative to the rank's first
 * record; the gap between two converted calls becomes TOP_COMPUTE, so the
 * time of calls that have no op (MPI_Comm_rank, MPI_Wtime, ...) counts as
 * computation.
 *
 * Message sizes are count x datatype size. A datatype's size is, in order:
 * what its constructor in the trace gives (contiguous, vector, indexed,
 * struct, dup, resized, subarray, ... from the sizes of the types it was
 * built from, as defined at that point of the trace); else the trace's own
 * size table (MPI_Type_size taken when libdumpi first saw the handle);
 * else, for predefined types, their LP64 size. Peers: a negative
 * destination is MPI_PROC_NULL; a source of -1 is MPI_ANY_SOURCE (DUMPI's
 * mapping) and other negative sources are MPI_PROC_NULL. Ibsend and Irsend
 * become isend, Bsend_init/Ssend_init/Rsend_init become send_init.
 */
#include "traces/traces_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

/* Labels used here (sst-dumpi funclabels.h order). */
enum {
	DL_Send = 0, DL_Recv = 1, DL_Bsend = 3, DL_Ssend = 4, DL_Rsend = 5, DL_Isend = 8, DL_Ibsend = 9,
	DL_Issend = 10, DL_Irsend = 11, DL_Irecv = 12, DL_Wait = 13, DL_Test = 14, DL_Request_free = 15,
	DL_Waitany = 16, DL_Testany = 17, DL_Waitall = 18, DL_Testall = 19, DL_Waitsome = 20,
	DL_Testsome = 21, DL_Iprobe = 22, DL_Probe = 23, DL_Send_init = 26, DL_Bsend_init = 27,
	DL_Ssend_init = 28, DL_Rsend_init = 29, DL_Recv_init = 30, DL_Start = 31, DL_Startall = 32,
	DL_Sendrecv = 33, DL_Sendrecv_replace = 34, DL_Type_contiguous = 35, DL_Type_vector = 36,
	DL_Type_hvector = 37, DL_Type_indexed = 38, DL_Type_hindexed = 39, DL_Type_struct = 40,
	DL_Type_free = 47, DL_Barrier = 52, DL_Bcast = 53, DL_Gather = 54, DL_Gatherv = 55,
	DL_Scatter = 56, DL_Scatterv = 57, DL_Allgather = 58, DL_Allgatherv = 59, DL_Alltoall = 60,
	DL_Alltoallv = 61, DL_Reduce = 62, DL_Allreduce = 65, DL_Reduce_scatter = 66, DL_Scan = 67,
	DL_Comm_group = 72, DL_Group_union = 73, DL_Group_intersection = 74, DL_Group_difference = 75,
	DL_Group_incl = 76, DL_Group_excl = 77, DL_Group_range_incl = 78, DL_Group_range_excl = 79,
	DL_Group_free = 80, DL_Comm_dup = 84, DL_Comm_create = 85, DL_Comm_split = 86,
	DL_Comm_free = 87, DL_Cart_create = 99, DL_Graph_create = 101, DL_Cart_sub = 111,
	DL_Init = 124, DL_Finalize = 125, DL_Alltoallw = 155, DL_Exscan = 156, DL_Init_thread = 171,
	DL_Type_dup = 178, DL_Type_create_darray = 217, DL_Type_create_hindexed = 218,
	DL_Type_create_hvector = 219, DL_Type_create_indexed_block = 220, DL_Type_create_resized = 221,
	DL_Type_create_struct = 222, DL_Type_create_subarray = 223,
};

/* DUMPI constants (constants.h). */
enum { DH_COMM_NULL = 1, DH_COMM_WORLD = 2, DH_COMM_SELF = 3 };
enum { DH_GROUP_NULL = 1, DH_GROUP_EMPTY = 2 };
enum { DH_REQUEST_NULL = 1 };
#define DT_FIRST_USER 28

/* Sizes of DUMPI's predefined datatypes on LP64 (MPI_Type_size, so the
 * pair types have no padding): error, null, char, signed char, unsigned
 * char, byte, wchar, short, unsigned short, int, unsigned, long, unsigned
 * long, float, double, long double, long long int, unsigned long long, long
 * long, packed, lb, ub, float_int, double_int, long_int, short_int, 2int,
 * long_double_int. */
static const int8_t dumpi_builtin_size[DT_FIRST_USER] = {0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4,
							  8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20};

#define GID_UNKNOWN (UINT32_MAX - 1)
#define H_NONE (-1)

/* A communicator of the whole job. */
struct gcomm {
	uint32_t size;
	uint32_t *members;  /* world ranks in rank order; NULL for self */
	uint32_t ndims;     /* cartesian dims (cart_create / cart_sub), 0 otherwise */
	int32_t *dims;
};

struct group {
	bool known;
	uint32_t n;
	uint32_t *wr;
};

/* What pass 1 decided for one creating call of a rank. */
struct cresult {
	uint32_t gid;       /* new communicator, TRACE_COMM_NULL or GID_UNKNOWN */
	int32_t color, key; /* for the op (cart_sub: computed) */
};

struct p1_rank {
	struct dumpi_stream st;
	int64_t *comm;      /* handle -> gid, H_NONE */
	uint32_t n_comm;
	struct group *grp;
	uint32_t n_grp;
	uint64_t *seq;      /* per parent gid: creating calls so far */
	uint32_t n_seq;
	struct cresult *res;
	size_t n_res, cap_res;
	int64_t bucket;     /* waiting on this bucket, or -1 */
	uint16_t new_handle;
	bool done;
};

struct part {
	bool in;
	uint32_t rank;
	uint16_t label;
	int32_t color, key;
	struct group g;     /* create: the group given */
	uint32_t ndims;     /* cart_create dims / cart_sub remain_dims */
	int32_t *dims;
	int64_t nodes;      /* graph_create */
};

struct bucket {
	uint32_t parent;
	uint64_t seq;
	uint32_t n_in;
	bool open;
	struct part *parts; /* [parent size], by rank in parent */
};

struct dimp {
	const char *in;      /* the .meta path (messages) */
	uint32_t n_ranks;
	char **paths;        /* rank files */
	uint8_t **map;
	size_t *len;
	struct gcomm *gc;
	uint32_t n_gc, cap_gc;
	struct p1_rank *p1;
	struct bucket *bk;
	size_t n_bk, cap_bk;
	struct trace_skips *skips;
	struct nl_err *err;
	struct trace_builder *b;
	double runtime_s;
	char app[256], cmd[1024];
	uint8_t ver[3];
	/* pass-2 scratch */
	uint64_t *c1, *c2;
	uint32_t *reqs;
	size_t cap_c, cap_reqs;
};

static int di_nomem(struct dimp *d)
{
	return nl_errf(d->err, NL_ENOMEM, "out of memory");
}

static int di_skip(struct dimp *d, unsigned label, const char *why)
{
	const char *name = dumpi_label_name(label);
	if (trace_skips_add(d->skips, name ? name : "?", why, 1))
		return di_nomem(d);
	return 0;
}

static int rec_err(struct dimp *d, uint32_t rank, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int rec_err(struct dimp *d, uint32_t rank, uint64_t off, const char *fmt, ...)
{
	char what[NL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return nl_errf(d->err, NL_EFORMAT, "%s: rank %u, offset %llu: %s", d->paths[rank], rank,
		       (unsigned long long)off, what);
}

/* --- small maps ------------------------------------------------------------- */

static bool grow(void **p, uint32_t *n, uint32_t want, size_t elem, int fill)
{
	if (want <= *n)
		return true;
	uint32_t c = *n ? *n : 8;
	while (c < want)
		c *= 2;
	void *t = realloc(*p, (size_t)c * elem);
	if (!t)
		return false;
	memset((char *)t + (size_t)*n * elem, fill, (size_t)(c - *n) * elem);
	*p = t;
	*n = c;
	return true;
}

static int64_t comm_get(int64_t *m, uint32_t n, uint16_t h)
{
	return h < n ? m[h] : H_NONE;
}

static bool comm_set(int64_t **m, uint32_t *n, uint16_t h, int64_t gid)
{
	if (!grow((void **)m, n, (uint32_t)h + 1, sizeof **m, 0xff)) /* 0xff.. = -1 = H_NONE */
		return false;
	(*m)[h] = gid;
	return true;
}

static void init_comm_map(int64_t **m, uint32_t *n)
{
	comm_set(m, n, DH_COMM_WORLD, TRACE_COMM_WORLD);
	comm_set(m, n, DH_COMM_SELF, TRACE_COMM_SELF);
	comm_set(m, n, DH_COMM_NULL, TRACE_COMM_NULL);
}

static int new_gcomm(struct dimp *d, uint32_t size, const uint32_t *members, uint32_t *gid)
{
	if (d->n_gc == d->cap_gc) {
		uint32_t c = d->cap_gc ? 2 * d->cap_gc : 16;
		struct gcomm *t = realloc(d->gc, c * sizeof *t);
		if (!t)
			return di_nomem(d);
		d->gc = t;
		d->cap_gc = c;
	}
	if (d->n_gc >= TRACE_COMM_NULL - 2)
		return nl_errf(d->err, NL_ERANGE, "%s: too many communicators", d->in);
	struct gcomm *g = &d->gc[d->n_gc];
	memset(g, 0, sizeof *g);
	g->size = size;
	if (members) {
		g->members = malloc(size * sizeof *g->members);
		if (!g->members)
			return di_nomem(d);
		memcpy(g->members, members, size * sizeof *g->members);
	}
	*gid = d->n_gc++;
	return 0;
}

static uint32_t gc_size(const struct dimp *d, uint32_t gid)
{
	return gid < d->n_gc ? d->gc[gid].size : 0;
}

/* --- pass 1: groups and communicator membership ------------------------------ */

static void group_free(struct group *g)
{
	free(g->wr);
	memset(g, 0, sizeof *g);
}

static struct group *grp_at(struct p1_rank *p, uint16_t h)
{
	if (!grow((void **)&p->grp, &p->n_grp, (uint32_t)h + 1, sizeof *p->grp, 0))
		return NULL;
	return &p->grp[h];
}

/* The group handle h as a list (empty group and unknown handled). */
static bool grp_get(struct p1_rank *p, uint16_t h, struct group *out)
{
	memset(out, 0, sizeof *out);
	if (h == DH_GROUP_EMPTY) {
		out->known = true;
		return true;
	}
	if (h >= p->n_grp || !p->grp[h].known)
		return false;
	*out = p->grp[h];
	return true;
}

static bool in_list(const uint32_t *v, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Group constructors: set p->grp[new] from the record, or mark it unknown. */
static int p1_group(struct dimp *d, uint32_t rank, struct p1_rank *p, const struct dumpi_rec *r)
{
	const struct dumpi_arg *a = r->a;
	struct group g = {0}, g1, g2;
	uint16_t newh;
	bool ok = true;

	switch (r->label) {
	case DL_Comm_group: {
		int64_t gid = comm_get(p->comm, p->n_comm, (uint16_t)a[0].v);
		newh = (uint16_t)a[1].v;
		if (gid == TRACE_COMM_SELF) {
			g.n = 1;
			g.wr = malloc(sizeof *g.wr);
			if (!g.wr)
				return di_nomem(d);
			g.wr[0] = rank;
		} else if (gid >= 0 && gid < d->n_gc && gid != TRACE_COMM_NULL) {
			g.n = d->gc[gid].size;
			g.wr = malloc((g.n ? g.n : 1) * sizeof *g.wr);
			if (!g.wr)
				return di_nomem(d);
			memcpy(g.wr, d->gc[gid].members, g.n * sizeof *g.wr);
		} else {
			ok = false;
		}
		break;
	}
	case DL_Group_incl:
	case DL_Group_excl:
	case DL_Group_range_incl:
	case DL_Group_range_excl: {
		newh = (uint16_t)a[3].v;
		if (!grp_get(p, (uint16_t)a[0].v, &g1)) {
			ok = false;
			break;
		}
		/* The selected ranks of the old group, in the order given. */
		uint32_t *sel = NULL, ns = 0, cap = 0;
		bool incl = r->label == DL_Group_incl || r->label == DL_Group_range_incl;
		bool range = r->label == DL_Group_range_incl || r->label == DL_Group_range_excl;
		uint32_t n = a[2].n;
		size_t off = a[2].off;
		for (uint32_t i = 0; i < n && ok; i++) {
			int64_t first, last, stride;
			if (range) {
				uint32_t m = be32_at(p->st.p + off);
				if (m != 3) {
					ok = false;
					break;
				}
				first = (int32_t)be32_at(p->st.p + off + 4);
				last = (int32_t)be32_at(p->st.p + off + 8);
				stride = (int32_t)be32_at(p->st.p + off + 12);
				off += 16;
			} else {
				first = last = dumpi_arr(&p->st, &a[2], i);
				stride = 1;
			}
			if (!stride || first < 0 || last < 0 || first >= g1.n || last >= g1.n) {
				ok = false;
				break;
			}
			for (int64_t x = first; stride > 0 ? x <= last : x >= last; x += stride) {
				if (ns == cap) {
					cap = cap ? 2 * cap : 16;
					uint32_t *t = realloc(sel, cap * sizeof *t);
					if (!t) {
						free(sel);
						return di_nomem(d);
					}
					sel = t;
				}
				sel[ns++] = (uint32_t)x;
			}
		}
		if (!ok) {
			free(sel);
			break;
		}
		g.wr = malloc((g1.n ? g1.n : 1) * sizeof *g.wr);
		if (!g.wr) {
			free(sel);
			return di_nomem(d);
		}
		if (incl) {
			for (uint32_t i = 0; i < ns; i++)
				g.wr[g.n++] = g1.wr[sel[i]];
		} else {
			for (uint32_t i = 0; i < g1.n; i++)
				if (!in_list(sel, ns, i))
					g.wr[g.n++] = g1.wr[i];
		}
		free(sel);
		break;
	}
	case DL_Group_union:
	case DL_Group_intersection:
	case DL_Group_difference:
		newh = (uint16_t)a[2].v;
		if (!grp_get(p, (uint16_t)a[0].v, &g1) || !grp_get(p, (uint16_t)a[1].v, &g2)) {
			ok = false;
			break;
		}
		g.wr = malloc((g1.n + g2.n + 1) * sizeof *g.wr);
		if (!g.wr)
			return di_nomem(d);
		for (uint32_t i = 0; i < g1.n; i++) {
			bool in2 = in_list(g2.wr, g2.n, g1.wr[i]);
			if (r->label == DL_Group_union || (r->label == DL_Group_intersection) == in2)
				g.wr[g.n++] = g1.wr[i];
		}
		if (r->label == DL_Group_union)
			for (uint32_t i = 0; i < g2.n; i++)
				if (!in_list(g1.wr, g1.n, g2.wr[i]))
					g.wr[g.n++] = g2.wr[i];
		break;
	case DL_Group_free: {
		struct group *gg = grp_at(p, (uint16_t)a[0].v);
		if (!gg)
			return di_nomem(d);
		group_free(gg);
		return 0;
	}
	default:
		return 0;
	}
	struct group *dst = grp_at(p, newh);
	if (!dst) {
		free(g.wr);
		return di_nomem(d);
	}
	group_free(dst);
	if (ok) {
		g.known = true;
		*dst = g;
	} else {
		free(g.wr);
	}
	return 0;
}

/* Is r a communicator-creating call netloom resolves? Gives the parent
 * and new handles. */
static bool creation(const struct dumpi_rec *r, uint16_t *parent, uint16_t *newh)
{
	const struct dumpi_arg *a = r->a;
	switch (r->label) {
	case DL_Comm_dup: *parent = (uint16_t)a[0].v; *newh = (uint16_t)a[1].v; return true;
	case DL_Comm_create: *parent = (uint16_t)a[0].v; *newh = (uint16_t)a[2].v; return true;
	case DL_Comm_split: *parent = (uint16_t)a[0].v; *newh = (uint16_t)a[3].v; return true;
	case DL_Cart_create: *parent = (uint16_t)a[0].v; *newh = (uint16_t)a[5].v; return true;
	case DL_Graph_create: *parent = (uint16_t)a[1].v; *newh = (uint16_t)a[6].v; return true;
	case DL_Cart_sub: *parent = (uint16_t)a[1].v; *newh = (uint16_t)a[3].v; return true;
	default: return false;
	}
}

static int push_result(struct dimp *d, struct p1_rank *p, uint32_t gid, int32_t color, int32_t key)
{
	if (p->n_res == p->cap_res) {
		size_t c = p->cap_res ? 2 * p->cap_res : 8;
		struct cresult *t = realloc(p->res, c * sizeof *t);
		if (!t)
			return di_nomem(d);
		p->res = t;
		p->cap_res = c;
	}
	p->res[p->n_res++] = (struct cresult){gid, color, key};
	if (gid != GID_UNKNOWN && !comm_set(&p->comm, &p->n_comm, p->new_handle, gid))
		return di_nomem(d);
	if (gid == GID_UNKNOWN && !comm_set(&p->comm, &p->n_comm, p->new_handle, GID_UNKNOWN))
		return di_nomem(d);
	return 0;
}

static int64_t dims_product(const int32_t *dims, uint32_t n)
{
	int64_t prod = 1;
	for (uint32_t i = 0; i < n; i++) {
		if (dims[i] <= 0 || prod > (1ll << 31))
			return -1;
		prod *= dims[i];
	}
	return prod;
}

static void part_free(struct part *pt)
{
	group_free(&pt->g);
	free(pt->dims);
	memset(pt, 0, sizeof *pt);
}

/* Resolve a complete bucket: create the new communicators and give each
 * participant its result. */
static int resolve(struct dimp *d, struct bucket *bk)
{
	uint32_t n = gc_size(d, bk->parent);
	struct part *pt = bk->parts;
	uint16_t label = pt[0].label;
	int rc = 0;

	for (uint32_t i = 1; i < n; i++)
		if (pt[i].label != label)
			return nl_errf(d->err, NL_EFORMAT,
				       "%s: collective call #%llu on communicator %u: rank %u calls %s, rank %u calls %s",
				       d->in, (unsigned long long)bk->seq, bk->parent, pt[0].rank,
				       dumpi_label_name(label), pt[i].rank, dumpi_label_name(pt[i].label));
	uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
	uint32_t *gid_of = malloc((n ? n : 1) * sizeof *gid_of);
	int32_t *color = calloc(n ? n : 1, sizeof *color), *key = calloc(n ? n : 1, sizeof *key);
	if (!tmp || !gid_of || !color || !key) {
		rc = di_nomem(d);
		goto out;
	}
	const struct gcomm *par = &d->gc[bk->parent];
	for (uint32_t i = 0; i < n; i++) {
		gid_of[i] = TRACE_COMM_NULL;
		color[i] = pt[i].color;
		key[i] = pt[i].key;
	}

	if (label == DL_Comm_dup) {
		uint32_t g;
		rc = new_gcomm(d, n, d->gc[bk->parent].members, &g);
		for (uint32_t i = 0; i < n; i++)
			gid_of[i] = g;
	} else if (label == DL_Comm_split || label == DL_Cart_sub) {
		if (label == DL_Cart_sub) {
			/* color: the coordinates along dropped dims; key: along kept dims (row-major, as MPI). */
			if (!par->ndims) {
				for (uint32_t i = 0; i < n; i++)
					gid_of[i] = GID_UNKNOWN;
				goto give;
			}
			for (uint32_t i = 0; i < n; i++) {
				if (pt[i].ndims != par->ndims) {
					rc = nl_errf(d->err, NL_EFORMAT, "%s: MPI_Cart_sub on communicator %u: rank %u gives %u dims, the grid has %u",
						     d->in, bk->parent, pt[i].rank, pt[i].ndims, par->ndims);
					goto out;
				}
				int64_t c = 0, k = 0, pos = i, coord[32];
				for (int64_t dd = (int64_t)par->ndims - 1; dd >= 0; dd--) {
					coord[dd] = pos % par->dims[dd];
					pos /= par->dims[dd];
				}
				for (uint32_t dd = 0; dd < par->ndims; dd++) {
					if (pt[i].dims[dd])
						k = k * par->dims[dd] + coord[dd];
					else
						c = c * par->dims[dd] + coord[dd];
				}
				color[i] = (int32_t)c;
				key[i] = (int32_t)k;
			}
		}
		/* New communicators by ascending color; members by (key, old rank). */
		for (;;) {
			int64_t best = INT64_MAX;
			for (uint32_t i = 0; i < n; i++)
				if (color[i] >= 0 && gid_of[i] == TRACE_COMM_NULL && color[i] < best)
					best = color[i];
			if (best == INT64_MAX)
				break;
			uint32_t m = 0;
			for (uint32_t i = 0; i < n; i++)
				if (color[i] == best)
					tmp[m++] = i;
			for (uint32_t x = 1; x < m; x++) /* insertion sort by key, stable on old rank */
				for (uint32_t y = x; y > 0 && key[tmp[y]] < key[tmp[y - 1]]; y--) {
					uint32_t t = tmp[y];
					tmp[y] = tmp[y - 1];
					tmp[y - 1] = t;
				}
			uint32_t g;
			for (uint32_t x = 0; x < m; x++)
				tmp[x] = par->members[tmp[x]];
			rc = new_gcomm(d, m, tmp, &g);
			if (rc)
				goto out;
			for (uint32_t i = 0; i < n; i++)
				if (color[i] == best)
					gid_of[i] = g;
			if (label == DL_Cart_sub) {
				struct gcomm *ng = &d->gc[g];
				uint32_t nd = 0;
				ng->dims = malloc(par->ndims * sizeof *ng->dims);
				if (!ng->dims) {
					rc = di_nomem(d);
					goto out;
				}
				for (uint32_t dd = 0; dd < par->ndims; dd++)
					if (pt[0].dims[dd])
						ng->dims[nd++] = par->dims[dd];
				ng->ndims = nd;
			}
		}
	} else if (label == DL_Comm_create) {
		uint32_t first = d->n_gc;
		for (uint32_t i = 0; i < n; i++) {
			if (!pt[i].g.known) {
				gid_of[i] = GID_UNKNOWN;
				continue;
			}
			if (!in_list(pt[i].g.wr, pt[i].g.n, pt[i].rank))
				continue;
			for (uint32_t g = first; g < d->n_gc; g++)
				if (d->gc[g].size == pt[i].g.n &&
				    !memcmp(d->gc[g].members, pt[i].g.wr, pt[i].g.n * sizeof(uint32_t)))
					gid_of[i] = g;
			if (gid_of[i] == TRACE_COMM_NULL) {
				rc = new_gcomm(d, pt[i].g.n, pt[i].g.wr, &gid_of[i]);
				if (rc)
					goto out;
			}
		}
	} else { /* cart_create, graph_create: the first prod(dims) / nnodes ranks */
		int64_t m = label == DL_Cart_create ? dims_product(pt[0].dims, pt[0].ndims) : pt[0].nodes;
		if (m < 0 || m > n) {
			rc = nl_errf(d->err, NL_EFORMAT, "%s: %s on communicator %u of size %u asks for %lld ranks",
				     d->in, dumpi_label_name(label), bk->parent, n, (long long)m);
			goto out;
		}
		uint32_t g = TRACE_COMM_NULL;
		if (m > 0) {
			rc = new_gcomm(d, (uint32_t)m, par->members, &g);
			if (rc)
				goto out;
			if (label == DL_Cart_create) {
				d->gc[g].ndims = pt[0].ndims;
				d->gc[g].dims = malloc((pt[0].ndims ? pt[0].ndims : 1) * sizeof(int32_t));
				if (!d->gc[g].dims) {
					rc = di_nomem(d);
					goto out;
				}
				memcpy(d->gc[g].dims, pt[0].dims, pt[0].ndims * sizeof(int32_t));
			}
		}
		for (uint32_t i = 0; i < n; i++)
			gid_of[i] = i < m ? g : TRACE_COMM_NULL;
	}
give:
	for (uint32_t i = 0; i < n && !rc; i++) {
		struct p1_rank *p = &d->p1[pt[i].rank];
		rc = push_result(d, p, gid_of[i], color[i], key[i]);
		p->bucket = -1;
	}
out:
	for (uint32_t i = 0; i < n; i++)
		part_free(&pt[i]);
	free(bk->parts);
	bk->parts = NULL;
	bk->open = false;
	free(tmp);
	free(gid_of);
	free(color);
	free(key);
	return rc;
}

/* Record rank's part of a creating call; returns the bucket index. */
static int submit(struct dimp *d, uint32_t rank, struct p1_rank *p, const struct dumpi_rec *r, uint32_t parent,
		  int64_t *bucket)
{
	const struct dumpi_arg *a = r->a;
	if (!grow((void **)&p->seq, &p->n_seq, parent + 1, sizeof *p->seq, 0))
		return di_nomem(d);
	uint64_t seq = p->seq[parent]++;
	struct gcomm *par = &d->gc[parent];
	uint32_t pos = 0;
	while (pos < par->size && par->members[pos] != rank)
		pos++;
	if (pos == par->size)
		return rec_err(d, rank, r->off, "%s on communicator %u, which this rank is not a member of",
			       dumpi_label_name(r->label), parent);
	size_t bi = 0;
	while (bi < d->n_bk && !(d->bk[bi].open && d->bk[bi].parent == parent && d->bk[bi].seq == seq))
		bi++;
	if (bi == d->n_bk) {
		if (d->n_bk == d->cap_bk) {
			size_t c = d->cap_bk ? 2 * d->cap_bk : 8;
			struct bucket *t = realloc(d->bk, c * sizeof *t);
			if (!t)
				return di_nomem(d);
			d->bk = t;
			d->cap_bk = c;
		}
		/* reuse a closed slot when there is one */
		for (bi = 0; bi < d->n_bk && d->bk[bi].open; bi++)
			;
		if (bi == d->n_bk)
			d->n_bk++;
		struct bucket *nb = &d->bk[bi];
		memset(nb, 0, sizeof *nb);
		nb->parent = parent;
		nb->seq = seq;
		nb->open = true;
		nb->parts = calloc(par->size, sizeof *nb->parts);
		if (!nb->parts)
			return di_nomem(d);
	}
	struct bucket *bk = &d->bk[bi];
	struct part *pt = &bk->parts[pos];
	pt->in = true;
	pt->rank = rank;
	pt->label = r->label;
	switch (r->label) {
	case DL_Comm_split:
		pt->color = (int32_t)a[1].v;
		pt->key = (int32_t)a[2].v;
		break;
	case DL_Comm_create: {
		struct group g;
		if (grp_get(p, (uint16_t)a[1].v, &g)) {
			pt->g.known = true;
			pt->g.n = g.n;
			pt->g.wr = malloc((g.n ? g.n : 1) * sizeof *g.wr);
			if (!pt->g.wr)
				return di_nomem(d);
			memcpy(pt->g.wr, g.wr, g.n * sizeof *g.wr);
		}
		break;
	}
	case DL_Cart_create:
	case DL_Cart_sub: {
		const struct dumpi_arg *dims = &a[2];
		if (dims->n > 32)
			return rec_err(d, rank, r->off, "%s with %u dimensions (at most 32)", dumpi_label_name(r->label),
				       dims->n);
		pt->ndims = dims->n;
		pt->dims = malloc((dims->n ? dims->n : 1) * sizeof *pt->dims);
		if (!pt->dims)
			return di_nomem(d);
		for (uint32_t i = 0; i < dims->n; i++)
			pt->dims[i] = (int32_t)dumpi_arr(&p->st, dims, i);
		break;
	}
	case DL_Graph_create:
		pt->nodes = a[2].v;
		break;
	}
	bk->n_in++;
	*bucket = (int64_t)bi;
	return 0;
}

/* Advance one rank until it blocks on a creating call or ends. */
static int p1_advance(struct dimp *d, uint32_t rank, bool *progress)
{
	struct p1_rank *p = &d->p1[rank];
	struct dumpi_rec r;
	int rc;
	while (!p->done && p->bucket < 0) {
		rc = dumpi_stream_next(&p->st, &r, d->err);
		if (rc < 0)
			return rc;
		*progress = true;
		if (rc == 0) {
			p->done = true;
			break;
		}
		uint16_t parent_h, newh;
		if (creation(&r, &parent_h, &newh)) {
			int64_t parent = comm_get(p->comm, p->n_comm, parent_h);
			p->new_handle = newh;
			if (parent == TRACE_COMM_SELF) {
				/* A rank's own MPI_COMM_SELF: resolved alone. */
				uint32_t g = TRACE_COMM_NULL;
				bool member = true;
				if (r.label == DL_Comm_split)
					member = r.a[1].v >= 0;
				if (r.label == DL_Comm_create) {
					struct group gg;
					member = grp_get(p, (uint16_t)r.a[1].v, &gg) && in_list(gg.wr, gg.n, rank);
				}
				if (member) {
					NL_CHECK(new_gcomm(d, 1, &rank, &g));
				}
				NL_CHECK(push_result(d, p, g, r.label == DL_Comm_split ? (int32_t)r.a[1].v : 0,
						     r.label == DL_Comm_split ? (int32_t)r.a[2].v : 0));
			} else if (parent < 0 || parent == TRACE_COMM_NULL || parent == GID_UNKNOWN) {
				NL_CHECK(push_result(d, p, GID_UNKNOWN, 0, 0));
			} else {
				NL_CHECK(submit(d, rank, p, &r, (uint32_t)parent, &p->bucket));
				struct bucket *bk = &d->bk[p->bucket];
				if (bk->n_in == gc_size(d, bk->parent))
					NL_CHECK(resolve(d, bk));
			}
			continue;
		}
		if (r.label == DL_Comm_free) {
			if (!comm_set(&p->comm, &p->n_comm, (uint16_t)r.a[0].v, H_NONE))
				return di_nomem(d);
			continue;
		}
		NL_CHECK(p1_group(d, rank, p, &r));
	}
	return 0;
}

static int pass1(struct dimp *d)
{
	for (;;) {
		bool progress = false, all_done = true;
		for (uint32_t r = 0; r < d->n_ranks; r++) {
			NL_CHECK(p1_advance(d, r, &progress));
			all_done &= d->p1[r].done;
		}
		if (all_done)
			return 0;
		if (!progress) {
			/* Some ranks wait in a creating call others never make. */
			for (uint32_t r = 0; r < d->n_ranks; r++) {
				struct p1_rank *p = &d->p1[r];
				if (p->bucket >= 0) {
					struct bucket *bk = &d->bk[p->bucket];
					return nl_errf(d->err, NL_EFORMAT,
						       "%s: rank %u waits in collective call #%llu on communicator %u, which %u "
						       "of its %u members never make",
						       d->in, r, (unsigned long long)bk->seq, bk->parent,
						       gc_size(d, bk->parent) - bk->n_in, gc_size(d, bk->parent));
				}
			}
			NL_BUG("dumpi pass 1 stalled without a waiting rank");
		}
	}
}

/* --- pass 2: records to ops ----------------------------------------------------- */

struct p2 {
	struct dimp *d;
	uint32_t rank;
	struct dumpi_stream *st;
	int64_t *comm;
	uint32_t n_comm;
	int64_t *tsize;     /* derived datatype sizes by handle, -1 unset */
	uint32_t n_tsize;
	size_t res_i;
	bool have_t0, any_op;
	int64_t t0_ns;
	uint64_t prev_end_ps;
	const struct dumpi_rec *r;
};

static int64_t type_size(struct p2 *c, int64_t h)
{
	if (h < 0 || h > UINT16_MAX)
		return -1;
	if (h < c->n_tsize && c->tsize[h] >= 0)
		return c->tsize[h];
	if (h < c->st->n_type_sizes && c->st->type_sizes[h] > 0)
		return c->st->type_sizes[h];
	if (h < DT_FIRST_USER)
		return dumpi_builtin_size[h];
	return -1;
}

static int set_type(struct p2 *c, int64_t h, int64_t size)
{
	if (h < 0 || h > UINT16_MAX)
		return 0;
	if (!grow((void **)&c->tsize, &c->n_tsize, (uint32_t)h + 1, sizeof *c->tsize, 0xff))
		return di_nomem(c->d);
	c->tsize[h] = size;
	return 0;
}

/* count x size(type), reporting a type whose size nothing gives. */
static int bytes_of(struct p2 *c, int64_t count, int64_t type, uint64_t *out)
{
	int64_t s = type_size(c, type);
	if (s < 0) {
		NL_CHECK(di_skip(c->d, c->r->label, "datatype of unknown size: converted with 0 bytes"));
		s = 0;
	}
	*out = count > 0 ? (uint64_t)count * (uint64_t)s : 0;
	return 0;
}

/* Derived datatype constructors: remember the new type's size. */
static int define_type(struct p2 *c, const struct dumpi_rec *r)
{
	const struct dumpi_arg *a = r->a;
	const struct dumpi_stream *st = c->st;
	int64_t size = -1, newt = -1;
	switch (r->label) {
	case DL_Type_contiguous: { /* count old new */
		int64_t s = type_size(c, a[1].v);
		if (s >= 0 && a[0].v >= 0)
			size = a[0].v * s;
		newt = a[2].v;
		break;
	}
	case DL_Type_vector:
	case DL_Type_hvector:
	case DL_Type_create_hvector: { /* count blocklen stride old new */
		int64_t s = type_size(c, a[3].v);
		if (s >= 0 && a[0].v >= 0 && a[1].v >= 0)
			size = a[0].v * a[1].v * s;
		newt = a[4].v;
		break;
	}
	case DL_Type_indexed:
	case DL_Type_hindexed:
	case DL_Type_create_hindexed: { /* count lengths[] displs[] old new */
		int64_t s = type_size(c, a[3].v), sum = 0;
		for (uint32_t i = 0; i < a[1].n; i++)
			sum += dumpi_arr(st, &a[1], i) > 0 ? dumpi_arr(st, &a[1], i) : 0;
		if (s >= 0)
			size = sum * s;
		newt = a[4].v;
		break;
	}
	case DL_Type_create_indexed_block: { /* count blocklen displs[] old new */
		int64_t s = type_size(c, a[3].v);
		if (s >= 0 && a[0].v >= 0 && a[1].v >= 0)
			size = a[0].v * a[1].v * s;
		newt = a[4].v;
		break;
	}
	case DL_Type_struct:
	case DL_Type_create_struct: { /* count lengths[] displs types[] new */
		const struct dumpi_arg *types = &a[3];
		int64_t sum = 0;
		bool ok = types->n == a[1].n;
		for (uint32_t i = 0; ok && i < types->n; i++) {
			int64_t s = type_size(c, dumpi_arr(st, types, i)), l = dumpi_arr(st, &a[1], i);
			ok = s >= 0;
			sum += l > 0 ? l * s : 0;
		}
		if (ok)
			size = sum;
		newt = a[4].v;
		break;
	}
	case DL_Type_dup: /* old new */
		size = type_size(c, a[0].v);
		newt = a[1].v;
		break;
	case DL_Type_create_resized: /* old lb extent new */
		size = type_size(c, a[0].v);
		newt = a[3].v;
		break;
	case DL_Type_create_subarray: { /* ndims sizes[] subsizes[] starts[] order old new */
		int64_t s = type_size(c, a[5].v), prod = 1;
		for (uint32_t i = 0; i < a[2].n && prod >= 0; i++) {
			int64_t v = dumpi_arr(st, &a[2], i);
			prod = v >= 0 && prod < (1ll << 40) ? prod * v : -1;
		}
		if (s >= 0 && prod >= 0)
			size = prod * s;
		newt = a[6].v;
		break;
	}
	case DL_Type_create_darray: /* size depends on the block distribution: table only */
		newt = a[9].v;
		break;
	case DL_Type_free:
		return set_type(c, a[0].v, -1);
	default:
		return 0;
	}
	return set_type(c, newt, size);
}

/* Emit op with the record's times, preceded by the compute gap. */
static int emit(struct p2 *c, struct trace_op *op, bool whole_record)
{
	const struct dumpi_rec *r = c->r;
	uint64_t t = c->prev_end_ps, dur = 0;
	if (r->has_time && c->have_t0) {
		int64_t s = r->start_ns - c->t0_ns, e = r->stop_ns - c->t0_ns;
		t = s > 0 ? (uint64_t)s * 1000 : 0;
		dur = e > s ? (uint64_t)(e - s) * 1000 : 0;
	}
	if (!whole_record) { /* 2nd.. op of one record (startall): zero length at its end */
		t = c->prev_end_ps;
		dur = 0;
	}
	if (c->any_op && t > c->prev_end_ps) {
		struct trace_op gap = {.kind = TOP_COMPUTE, .t_ps = c->prev_end_ps, .dur_ps = t - c->prev_end_ps};
		NL_CHECK(trace_builder_op(c->d->b, c->rank, &gap, c->d->err));
	}
	op->t_ps = t;
	op->dur_ps = dur;
	c->any_op = true;
	c->prev_end_ps = t + dur;
	if (trace_builder_op(c->d->b, c->rank, op, c->d->err))
		return nl_err_prefix(c->d->err, "%s: rank %u, offset %llu", c->d->paths[c->rank], c->rank,
				     (unsigned long long)r->off);
	return 0;
}

/* Communicator handle -> id; false (and counted) when it cannot be used. */
static int comm_of(struct p2 *c, int64_t h, uint32_t *gid, bool *ok)
{
	int64_t g = comm_get(c->comm, c->n_comm, (uint16_t)h);
	*ok = g >= 0 && g != TRACE_COMM_NULL && g != GID_UNKNOWN;
	if (*ok) {
		*gid = (uint32_t)g;
		return 0;
	}
	return di_skip(c->d, c->r->label, "on a communicator netloom could not import");
}

static int32_t dest_of(int64_t v)
{
	return v < 0 ? TRACE_PROC_NULL : (int32_t)v;
}

static int32_t source_of(int64_t v)
{
	return v == -1 ? TRACE_ANY_SOURCE : v < 0 ? TRACE_PROC_NULL : (int32_t)v;
}

static int32_t tag_of(int64_t v)
{
	return v < 0 ? TRACE_ANY_TAG : (int32_t)v;
}

static bool req_null(int64_t v)
{
	return v == DH_REQUEST_NULL || v == 0;
}

static int check_peer(struct p2 *c, int32_t peer, uint32_t gid)
{
	uint32_t size = gid == TRACE_COMM_SELF ? 1 : gc_size(c->d, gid);
	if (peer >= 0 && (uint32_t)peer >= size)
		return rec_err(c->d, c->rank, c->r->off, "%s: peer %d outside its communicator (size %u)",
			       dumpi_label_name(c->r->label), peer, size);
	return 0;
}

static int need_scratch(struct p2 *c, uint32_t n)
{
	struct dimp *d = c->d;
	if (n > d->cap_c) {
		uint64_t *a = realloc(d->c1, n * sizeof *a), *b;
		if (!a)
			return di_nomem(d);
		d->c1 = a;
		b = realloc(d->c2, n * sizeof *b);
		if (!b)
			return di_nomem(d);
		d->c2 = b;
		d->cap_c = n;
	}
	if (n > d->cap_reqs) {
		uint32_t *q = realloc(d->reqs, n * sizeof *q);
		if (!q)
			return di_nomem(d);
		d->reqs = q;
		d->cap_reqs = n;
	}
	return 0;
}

/* Requests of a wait/test family record, completed ones first. */
static int req_list(struct p2 *c, const struct dumpi_arg *reqs, const int64_t *done_idx, uint32_t n_done_idx,
		    struct trace_op *op)
{
	NL_CHECK(need_scratch(c, reqs->n));
	uint32_t n = 0, done = 0;
	for (uint32_t k = 0; k < n_done_idx; k++) {
		int64_t i = done_idx[k];
		if (i >= 0 && i < reqs->n && !req_null(dumpi_arr(c->st, reqs, (uint32_t)i)))
			c->d->reqs[n++] = (uint32_t)dumpi_arr(c->st, reqs, (uint32_t)i);
	}
	done = n;
	for (uint32_t i = 0; i < reqs->n; i++) {
		int64_t v = dumpi_arr(c->st, reqs, i);
		bool was_done = false;
		for (uint32_t k = 0; k < n_done_idx; k++)
			was_done |= done_idx[k] == i;
		if (!req_null(v) && !was_done)
			c->d->reqs[n++] = (uint32_t)v;
	}
	op->n_reqs = n;
	op->reqs = c->d->reqs;
	op->n_done = done;
	return 0;
}

/* A v-collective's per-rank counts array, checked against the comm size. */
static int counts(struct p2 *c, const struct dumpi_arg *cnt, const struct dumpi_arg *types, int64_t type,
		  uint32_t gid, uint64_t *dst)
{
	uint32_t size = gid == TRACE_COMM_SELF ? 1 : gc_size(c->d, gid);
	if (cnt->n != size || (types && types->n != size))
		return rec_err(c->d, c->rank, c->r->off, "%s lists %u counts for a communicator of %u ranks",
			       dumpi_label_name(c->r->label), cnt->n, size);
	for (uint32_t i = 0; i < size; i++)
		NL_CHECK(bytes_of(c, dumpi_arr(c->st, cnt, i), types ? dumpi_arr(c->st, types, i) : type, &dst[i]));
	return 0;
}

static int p2_record(struct p2 *c, const struct dumpi_rec *r)
{
	const struct dumpi_arg *a = r->a;
	struct trace_op op;
	bool ok;
	uint32_t gid = 0;
	memset(&op, 0, sizeof op);
	c->r = r;

	switch (r->label) {
	case DL_Send: case DL_Bsend: case DL_Ssend: case DL_Rsend:
	case DL_Isend: case DL_Ibsend: case DL_Issend: case DL_Irsend:
	case DL_Send_init: case DL_Bsend_init: case DL_Ssend_init: case DL_Rsend_init:
	case DL_Recv: case DL_Irecv: case DL_Recv_init: {
		/* count datatype peer tag comm [request] */
		bool recv = r->label == DL_Recv || r->label == DL_Irecv || r->label == DL_Recv_init;
		NL_CHECK(comm_of(c, a[4].v, &gid, &ok));
		if (!ok)
			return 0;
		static const uint16_t kind[DL_Recv_init + 1] = {
			[DL_Send] = TOP_SEND, [DL_Bsend] = TOP_BSEND, [DL_Ssend] = TOP_SSEND, [DL_Rsend] = TOP_RSEND,
			[DL_Isend] = TOP_ISEND, [DL_Ibsend] = TOP_ISEND, [DL_Issend] = TOP_ISSEND,
			[DL_Irsend] = TOP_ISEND, [DL_Send_init] = TOP_SEND_INIT, [DL_Bsend_init] = TOP_SEND_INIT,
			[DL_Ssend_init] = TOP_SEND_INIT, [DL_Rsend_init] = TOP_SEND_INIT, [DL_Recv] = TOP_RECV,
			[DL_Irecv] = TOP_IRECV, [DL_Recv_init] = TOP_RECV_INIT,
		};
		op.kind = kind[r->label];
		op.comm = gid;
		op.peer = recv ? source_of(a[2].v) : dest_of(a[2].v);
		op.tag = tag_of(a[3].v);
		NL_CHECK(check_peer(c, op.peer, gid));
		NL_CHECK(bytes_of(c, a[0].v, a[1].v, &op.bytes));
		if (r->n_args > 5 && a[5].type == 'i')
			op.req = (uint32_t)a[5].v;
		return emit(c, &op, true);
	}
	case DL_Wait:
	case DL_Test:
	case DL_Request_free:
	case DL_Start:
		if (req_null(a[0].v))
			return di_skip(c->d, r->label, "on MPI_REQUEST_NULL (no effect)");
		op.kind = r->label == DL_Wait ? TOP_WAIT : r->label == DL_Test ? TOP_TEST
			: r->label == DL_Start ? TOP_START : TOP_REQUEST_FREE;
		op.req = (uint32_t)a[0].v;
		if (r->label == DL_Test)
			op.n_done = a[1].v != 0;
		return emit(c, &op, true);
	case DL_Startall: {
		bool first = true;
		for (uint32_t i = 0; i < a[1].n; i++) {
			int64_t v = dumpi_arr(c->st, &a[1], i);
			if (req_null(v))
				continue;
			memset(&op, 0, sizeof op);
			op.kind = TOP_START;
			op.req = (uint32_t)v;
			NL_CHECK(emit(c, &op, first));
			first = false;
		}
		return 0;
	}
	case DL_Waitall: /* count requests[] statuses */
	case DL_Testall: { /* count requests[] flag statuses */
		op.kind = r->label == DL_Waitall ? TOP_WAITALL : TOP_TESTALL;
		NL_CHECK(req_list(c, &a[1], NULL, 0, &op));
		if (r->label == DL_Testall)
			op.n_done = a[2].v ? op.n_reqs : 0;
		return emit(c, &op, true);
	}
	case DL_Waitany: /* count requests[] index status */
	case DL_Testany: { /* count requests[] index flag status */
		int64_t idx = a[2].v;
		bool done = r->label == DL_Waitany || a[3].v;
		op.kind = r->label == DL_Waitany ? TOP_WAITANY : TOP_TESTANY;
		NL_CHECK(req_list(c, &a[1], &idx, done ? 1 : 0, &op));
		return emit(c, &op, true);
	}
	case DL_Waitsome: /* count requests[] outcount indices[] statuses */
	case DL_Testsome: {
		NL_CHECK(need_scratch(c, a[3].n));
		int64_t *idx = malloc((a[3].n ? a[3].n : 1) * sizeof *idx);
		if (!idx)
			return di_nomem(c->d);
		for (uint32_t i = 0; i < a[3].n; i++)
			idx[i] = dumpi_arr(c->st, &a[3], i);
		op.kind = r->label == DL_Waitsome ? TOP_WAITSOME : TOP_TESTSOME;
		int rc = req_list(c, &a[1], idx, a[2].v > 0 ? a[3].n : 0, &op);
		free(idx);
		NL_CHECK(rc);
		return emit(c, &op, true);
	}
	case DL_Probe: /* source tag comm status */
	case DL_Iprobe: { /* source tag comm flag status */
		const struct dumpi_arg *st = &a[r->label == DL_Probe ? 3 : 4];
		NL_CHECK(comm_of(c, a[2].v, &gid, &ok));
		if (!ok)
			return 0;
		op.kind = r->label == DL_Probe ? TOP_PROBE : TOP_IPROBE;
		op.comm = gid;
		op.peer = source_of(a[0].v);
		op.tag = tag_of(a[1].v);
		NL_CHECK(check_peer(c, op.peer, gid));
		if (r->label == DL_Iprobe)
			op.n_done = a[3].v != 0;
		if (st->present && st->n && (r->label == DL_Probe || op.n_done)) {
			int32_t b, src;
			dumpi_status(c->st, st, 0, &b, &src);
			op.bytes = b > 0 ? (uint64_t)b : 0;
		}
		return emit(c, &op, true);
	}
	case DL_Sendrecv: /* scount stype dest stag rcount rtype source rtag comm status */
	case DL_Sendrecv_replace: { /* count type dest stag source rtag comm status */
		bool rep = r->label == DL_Sendrecv_replace;
		NL_CHECK(comm_of(c, a[rep ? 6 : 8].v, &gid, &ok));
		if (!ok)
			return 0;
		op.kind = TOP_SENDRECV;
		op.comm = gid;
		op.peer = dest_of(a[2].v);
		op.tag = tag_of(a[3].v);
		op.recv_peer = source_of(a[rep ? 4 : 6].v);
		op.recv_tag = tag_of(a[rep ? 5 : 7].v);
		NL_CHECK(check_peer(c, op.peer, gid));
		NL_CHECK(check_peer(c, op.recv_peer, gid));
		NL_CHECK(bytes_of(c, a[0].v, a[1].v, &op.bytes));
		if (rep)
			op.recv_bytes = op.bytes;
		else
			NL_CHECK(bytes_of(c, a[4].v, a[5].v, &op.recv_bytes));
		return emit(c, &op, true);
	}
	case DL_Barrier:
		NL_CHECK(comm_of(c, a[0].v, &gid, &ok));
		if (!ok)
			return 0;
		op.kind = TOP_BARRIER;
		op.comm = gid;
		return emit(c, &op, true);
	case DL_Bcast: /* count type root comm */
	case DL_Reduce: { /* count type op root comm */
		bool red = r->label == DL_Reduce;
		NL_CHECK(comm_of(c, a[red ? 4 : 3].v, &gid, &ok));
		if (!ok)
			return 0;
		op.kind = red ? TOP_REDUCE : TOP_BCAST;
		op.comm = gid;
		op.peer = (int32_t)a[red ? 3 : 2].v;
		NL_CHECK(check_peer(c, op.peer, gid));
		NL_CHECK(bytes_of(c, a[0].v, a[1].v, &op.bytes));
		return emit(c, &op, true);
	}
	case DL_Allreduce: /* count type op comm */
	case DL_Scan:
	case DL_Exscan:
		NL_CHECK(comm_of(c, a[3].v, &gid, &ok));
		if (!ok)
			return 0;
		op.kind = r->label == DL_Allreduce ? TOP_ALLREDUCE : r->label == DL_Scan ? TOP_SCAN : TOP_EXSCAN;
		op.comm = gid;
		NL_CHECK(bytes_of(c, a[0].v, a[1].v, &op.bytes));
		return emit(c, &op, true);
	case DL_Gather: /* commrank scount stype root comm [rcount rtype] */
	case DL_Scatter: { /* commrank rcount rtype root comm [scount stype] */
		bool g = r->label == DL_Gather;
		NL_CHECK(comm_of(c, a[4].v, &gid, &ok));
		if (!ok)
			return 0;
		op.kind = g ? TOP_GATHER : TOP_SCATTER;
		op.comm = gid;
		op.peer = (int32_t)a[3].v;
		NL_CHECK(check_peer(c, op.peer, gid));
		uint64_t mine, root = 0;
		NL_CHECK(bytes_of(c, a[1].v, a[2].v, &mine));
		if (a[5].present)
			NL_CHECK(bytes_of(c, a[5].v, a[6].v, &root));
		op.bytes = g ? mine : root;
		op.recv_bytes = g ? root : mine;
		return emit(c, &op, true);
	}
	case DL_Gatherv: /* commrank commsize scount stype root comm [rcounts[] displs[]] rtype */
	case DL_Scatterv: { /* commrank commsize stype rcount rtype root comm [scounts[] displs[]] */
		bool g = r->label == DL_Gatherv;
		NL_CHECK(comm_of(c, a[g ? 5 : 6].v, &gid, &ok));
		if (!ok)
			return 0;
		op.kind = g ? TOP_GATHERV : TOP_SCATTERV;
		op.comm = gid;
		op.peer = (int32_t)a[g ? 4 : 5].v;
		NL_CHECK(check_peer(c, op.peer, gid));
		if (g)
			NL_CHECK(bytes_of(c, a[2].v, a[3].v, &op.bytes));
		else
			NL_CHECK(bytes_of(c, a[3].v, a[4].v, &op.recv_bytes));
		const struct dumpi_arg *cnt = &a[g ? 6 : 7];
		if (cnt->present) {
			NL_CHECK(need_scratch(c, cnt->n));
			NL_CHECK(counts(c, cnt, NULL, g ? a[8].v : a[2].v, gid, c->d->c1));
			op.n_counts = cnt->n;
			if (g)
				op.recv_counts = c->d->c1;
			else
				op.send_counts = c->d->c1;
		}
		return emit(c, &op, true);
	}
	case DL_Allgather: /* scount stype rcount rtype comm */
	case DL_Alltoall:
		NL_CHECK(comm_of(c, a[4].v, &gid, &ok));
		if (!ok)
			return 0;
		op.kind = r->label == DL_Allgather ? TOP_ALLGATHER : TOP_ALLTOALL;
		op.comm = gid;
		NL_CHECK(bytes_of(c, a[0].v, a[1].v, &op.bytes));
		NL_CHECK(bytes_of(c, a[2].v, a[3].v, &op.recv_bytes));
		return emit(c, &op, true);
	case DL_Allgatherv: /* commsize scount stype rcounts[] displs[] rtype comm */
		NL_CHECK(comm_of(c, a[6].v, &gid, &ok));
		if (!ok)
			return 0;
		op.kind = TOP_ALLGATHERV;
		op.comm = gid;
		NL_CHECK(bytes_of(c, a[1].v, a[2].v, &op.bytes));
		NL_CHECK(need_scratch(c, a[3].n));
		NL_CHECK(counts(c, &a[3], NULL, a[5].v, gid, c->d->c1));
		op.n_counts = a[3].n;
		op.recv_counts = c->d->c1;
		return emit(c, &op, true);
	case DL_Alltoallv: /* commsize scounts[] sdispls[] stype rcounts[] rdispls[] rtype comm */
	case DL_Alltoallw: { /* commsize scounts[] sdispls[] stypes[] rcounts[] rdispls[] rtypes[] comm */
		bool w = r->label == DL_Alltoallw;
		NL_CHECK(comm_of(c, a[7].v, &gid, &ok));
		if (!ok)
			return 0;
		op.kind = w ? TOP_ALLTOALLW : TOP_ALLTOALLV;
		op.comm = gid;
		NL_CHECK(need_scratch(c, a[1].n > a[4].n ? a[1].n : a[4].n));
		NL_CHECK(counts(c, &a[1], w ? &a[3] : NULL, a[3].v, gid, c->d->c1));
		NL_CHECK(counts(c, &a[4], w ? &a[6] : NULL, a[6].v, gid, c->d->c2));
		op.n_counts = a[1].n;
		op.send_counts = c->d->c1;
		op.recv_counts = c->d->c2;
		return emit(c, &op, true);
	}
	case DL_Reduce_scatter: /* commsize rcounts[] type op comm */
		NL_CHECK(comm_of(c, a[4].v, &gid, &ok));
		if (!ok)
			return 0;
		op.kind = TOP_REDUCE_SCATTER;
		op.comm = gid;
		NL_CHECK(need_scratch(c, a[1].n));
		NL_CHECK(counts(c, &a[1], NULL, a[2].v, gid, c->d->c1));
		op.n_counts = a[1].n;
		op.recv_counts = c->d->c1;
		return emit(c, &op, true);
	case DL_Comm_dup: case DL_Comm_create: case DL_Comm_split:
	case DL_Cart_create: case DL_Graph_create: case DL_Cart_sub: {
		uint16_t parent_h, newh;
		struct p1_rank *p1 = &c->d->p1[c->rank];
		creation(r, &parent_h, &newh);
		if (c->res_i >= p1->n_res)
			NL_BUG("dumpi pass 2 ran past pass 1's results on rank %u", c->rank);
		struct cresult res = p1->res[c->res_i++];
		if (!comm_set(&c->comm, &c->n_comm, newh, res.gid))
			return di_nomem(c->d);
		NL_CHECK(comm_of(c, parent_h, &gid, &ok));
		if (!ok || res.gid == GID_UNKNOWN)
			return ok ? di_skip(c->d, r->label, "new communicator's members unknown") : 0;
		op.comm = gid;
		op.new_comm = res.gid;
		if (r->label == DL_Comm_split || r->label == DL_Cart_sub) {
			op.kind = TOP_COMM_SPLIT;
			op.color = res.color;
			op.key = res.key;
		} else {
			op.kind = r->label == DL_Comm_dup ? TOP_COMM_DUP : TOP_COMM_CREATE;
		}
		return emit(c, &op, true);
	}
	case DL_Comm_free: {
		NL_CHECK(comm_of(c, a[0].v, &gid, &ok));
		if (!comm_set(&c->comm, &c->n_comm, (uint16_t)a[0].v, H_NONE))
			return di_nomem(c->d);
		if (!ok)
			return 0;
		op.kind = TOP_COMM_FREE;
		op.comm = gid;
		return emit(c, &op, true);
	}
	case DL_Init:
	case DL_Init_thread:
		op.kind = TOP_INIT;
		if (c->rank == 0 && a[0].n && !c->d->app[0]) {
			uint32_t len;
			size_t o = 0;
			for (uint32_t i = 0; i < a[0].n; i++) {
				const char *s = dumpi_str(c->st, &a[0], i, &len);
				if (i == 0) {
					const char *b = memrchr(s, '/', len);
					uint32_t bl = b ? len - (uint32_t)(b + 1 - s) : len;
					snprintf(c->d->app, sizeof c->d->app, "%.*s", (int)bl, b ? b + 1 : s);
				}
				o += (size_t)snprintf(c->d->cmd + o, o < sizeof c->d->cmd ? sizeof c->d->cmd - o : 0, "%s%.*s",
						      i ? " " : "", (int)len, s);
				if (o >= sizeof c->d->cmd)
					break;
			}
		}
		return emit(c, &op, true);
	case DL_Finalize:
		op.kind = TOP_FINALIZE;
		return emit(c, &op, true);
	case DL_Type_contiguous: case DL_Type_vector: case DL_Type_hvector: case DL_Type_indexed:
	case DL_Type_hindexed: case DL_Type_struct: case DL_Type_dup: case DL_Type_create_hindexed:
	case DL_Type_create_hvector: case DL_Type_create_indexed_block: case DL_Type_create_resized:
	case DL_Type_create_struct: case DL_Type_create_subarray: case DL_Type_create_darray:
	case DL_Type_free:
		NL_CHECK(define_type(c, r));
		return di_skip(c->d, r->label, "datatype definition: sizes used for later calls");
	case DL_Comm_group: case DL_Group_union: case DL_Group_intersection: case DL_Group_difference:
	case DL_Group_incl: case DL_Group_excl: case DL_Group_range_incl: case DL_Group_range_excl:
	case DL_Group_free:
		return di_skip(c->d, r->label, "group bookkeeping: used for communicator members");
	default:
		return di_skip(c->d, r->label, "no netloom operation; its time counts as compute");
	}
}

static int pass2_rank(struct dimp *d, uint32_t rank)
{
	struct dumpi_stream st;
	struct dumpi_rec r;
	struct p2 c = {.d = d, .rank = rank, .st = &st};
	int rc = dumpi_stream_open(&st, d->map[rank], d->len[rank], d->paths[rank], rank, d->err);
	if (rc)
		return rc;
	init_comm_map(&c.comm, &c.n_comm);
	if (!c.comm) {
		dumpi_stream_release(&st);
		return di_nomem(d);
	}
	while ((rc = dumpi_stream_next(&st, &r, d->err)) == 1) {
		if (r.has_time && !c.have_t0) {
			c.have_t0 = true;
			c.t0_ns = r.start_ns;
		}
		rc = p2_record(&c, &r);
		if (rc)
			break;
		if (r.has_time && r.stop_ns > c.t0_ns) {
			double rt = (double)(r.stop_ns - c.t0_ns) * 1e-9;
			if (rt > d->runtime_s)
				d->runtime_s = rt;
		}
	}
	if (rc == 0)
		rc = trace_builder_end_rank(d->b, rank, d->err);
	free(c.comm);
	free(c.tsize);
	dumpi_stream_release(&st);
	return rc;
}

/* --- driver ------------------------------------------------------------------------ */

static void dimp_release(struct dimp *d)
{
	for (uint32_t r = 0; d->p1 && r < d->n_ranks; r++) {
		struct p1_rank *p = &d->p1[r];
		dumpi_stream_release(&p->st);
		free(p->comm);
		for (uint32_t i = 0; i < p->n_grp; i++)
			group_free(&p->grp[i]);
		free(p->grp);
		free(p->seq);
		free(p->res);
	}
	free(d->p1);
	for (size_t i = 0; i < d->n_bk; i++) {
		if (d->bk[i].parts) {
			uint32_t n = gc_size(d, d->bk[i].parent);
			for (uint32_t j = 0; j < n; j++)
				part_free(&d->bk[i].parts[j]);
			free(d->bk[i].parts);
		}
	}
	free(d->bk);
	for (uint32_t i = 0; i < d->n_gc; i++) {
		free(d->gc[i].members);
		free(d->gc[i].dims);
	}
	free(d->gc);
	free(d->c1);
	free(d->c2);
	free(d->reqs);
	trace_builder_free(d->b);
}

/* Run both passes over n_ranks mapped files; out_path NULL = check mode. */
static int dimp_run(struct dimp *d, const char *out_path, const struct trace_write_opts *opts,
		    const char *machine, uint64_t start_unix, const char *default_app)
{
	uint32_t g;
	uint32_t *world = malloc(d->n_ranks * sizeof *world);
	if (!world)
		return di_nomem(d);
	for (uint32_t r = 0; r < d->n_ranks; r++)
		world[r] = r;
	int rc = new_gcomm(d, d->n_ranks, world, &g); /* 0: world */
	free(world);
	if (!rc)
		rc = new_gcomm(d, 1, NULL, &g); /* 1: self (per rank) */
	if (rc)
		return rc;
	d->p1 = calloc(d->n_ranks, sizeof *d->p1);
	if (!d->p1)
		return di_nomem(d);
	for (uint32_t r = 0; r < d->n_ranks; r++) {
		struct p1_rank *p = &d->p1[r];
		p->bucket = -1;
		NL_CHECK(dumpi_stream_open(&p->st, d->map[r], d->len[r], d->paths[r], r, d->err));
		init_comm_map(&p->comm, &p->n_comm);
		if (!p->comm)
			return di_nomem(d);
		if (r == 0)
			memcpy(d->ver, p->st.ver, 3);
	}
	NL_CHECK(pass1(d));
	NL_CHECK(trace_builder_new(&d->b, out_path, d->n_ranks, opts, d->err));
	for (uint32_t r = 0; r < d->n_ranks; r++)
		NL_CHECK(pass2_rank(d, r));

	struct trace_comm *comms = calloc(d->n_gc, sizeof *comms);
	if (!comms)
		return di_nomem(d);
	uint32_t nc = 0;
	for (uint32_t i = 2; i < d->n_gc; i++)
		comms[nc++] = (struct trace_comm){i, d->gc[i].size, d->gc[i].members};
	char rec[128];
	snprintf(rec, sizeof rec, "netloom-import-dumpi %s (DUMPI %u.%u.%u)", NETLOOM_VERSION, d->ver[0], d->ver[1],
		 d->ver[2]);
	struct trace_manifest m = {
		.n_ranks = d->n_ranks,
		.application = d->app[0] ? d->app : (char *)default_app,
		.command_line = d->cmd,
		.machine = (char *)machine,
		.recorder = rec,
		.mpi_library = "",
		.start_unix = start_unix,
		.recorded_runtime_s = d->runtime_s,
		.n_comms = nc,
		.comms = comms,
	};
	rc = trace_builder_finish(d->b, &m, d->err);
	free(comms);
	return rc;
}

/* The .meta file's keys (dumpi/libdumpi/init.c create_meta_file). */
struct meta {
	char *hostname, *fileprefix;
	long long numprocs;
	uint64_t startime;
};

static int read_meta(const char *path, struct meta *m, struct nl_err *err)
{
	char *line = NULL;
	size_t cap = 0;
	uint64_t ln = 0;
	int rc = 0;
	FILE *f = fopen(path, "r");
	memset(m, 0, sizeof *m);
	m->numprocs = -1;
	if (!f)
		return nl_errf(err, errno == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: cannot open: %s", path,
			       strerror(errno));
	while (!rc && getline(&line, &cap, f) >= 0) {
		ln++;
		line[strcspn(line, "\r\n")] = '\0';
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *v = eq + 1;
		char *end;
		if (!strcmp(line, "numprocs")) {
			errno = 0;
			m->numprocs = strtoll(v, &end, 10);
			if (errno || *end || m->numprocs <= 0 || m->numprocs > (1 << 24))
				rc = nl_errf(err, NL_EFORMAT, "%s:%llu: numprocs '%s': expected 1 .. %d", path,
					     (unsigned long long)ln, v, 1 << 24);
		} else if (!strcmp(line, "fileprefix")) {
			free(m->fileprefix);
			m->fileprefix = trace_strdup(v);
		} else if (!strcmp(line, "hostname")) {
			free(m->hostname);
			m->hostname = trace_strdup(v);
		} else if (!strcmp(line, "startime")) {
			m->startime = strtoull(v, &end, 10);
		}
	}
	free(line);
	fclose(f);
	if (!rc && (m->numprocs <= 0 || !m->fileprefix || !m->fileprefix[0]))
		rc = nl_errf(err, NL_EFORMAT, "%s: expected 'numprocs=' and 'fileprefix=' lines (a DUMPI .meta file)",
			     path);
	return rc;
}

/* Rank r's file for a prefix and zero-padding width (metadata.cc: widths 4
 * .. 9 then none). */
static char *rank_file(const char *prefix, int width, uint32_t r)
{
	size_t n = strlen(prefix) + 32;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s-%0*u.bin", prefix, width, r);
	return p;
}

static bool all_exist(const char *prefix, int width, uint32_t n)
{
	struct stat st;
	for (uint32_t r = 0; r < n; r++) {
		char *p = rank_file(prefix, width, r);
		bool ok = p && !stat(p, &st) && S_ISREG(st.st_mode);
		free(p);
		if (!ok)
			return false;
	}
	return true;
}

/* Find the rank files: the recorded prefix (absolute, or relative to the
 * .meta's directory, as sst-dumpi's metadata.cc does), else the prefix's
 * basename beside the .meta (archives moved from the recording machine). */
static int find_rank_files(const char *meta_path, const struct meta *m, char ***paths, struct nl_err *err)
{
	char *dir = trace_strdup(meta_path);
	if (!dir)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	const char *bn = strrchr(m->fileprefix, '/');
	bn = bn ? bn + 1 : m->fileprefix;
	size_t cap = strlen(dir) + strlen(m->fileprefix) + 2;
	char *cand[3] = {NULL, NULL, NULL};
	int nc = 0;
	if (m->fileprefix[0] == '/')
		cand[nc++] = trace_strdup(m->fileprefix);
	cand[nc] = malloc(cap);
	if (cand[nc])
		snprintf(cand[nc], cap, "%s/%s", dir, m->fileprefix);
	nc++;
	cand[nc] = malloc(cap);
	if (cand[nc])
		snprintf(cand[nc], cap, "%s/%s", dir, bn);
	nc++;
	free(dir);
	int rc = 0;
	char *found = NULL;
	int width = 4;
	for (int i = 0; i < nc && !found; i++) {
		if (!cand[i]) {
			rc = nl_errf(err, NL_ENOMEM, "out of memory");
			break;
		}
		for (int k = 0; k < 10 && !found; k++) {
			int w = (4 + k) % 10;
			if (all_exist(cand[i], w, (uint32_t)m->numprocs)) {
				found = cand[i];
				width = w;
			}
		}
	}
	if (!rc && !found) {
		char *p = rank_file(cand[nc - 1], 4, 0);
		rc = nl_errf(err, NL_ENOTFOUND,
			     "%s: the %lld rank files of fileprefix '%s' were not found (tried the recorded path and "
			     "'%s' beside the .meta)",
			     meta_path, m->numprocs, m->fileprefix, p ? p : bn);
		free(p);
	}
	if (!rc) {
		*paths = calloc((size_t)m->numprocs, sizeof **paths);
		if (!*paths)
			rc = nl_errf(err, NL_ENOMEM, "out of memory");
		for (uint32_t r = 0; !rc && r < (uint32_t)m->numprocs; r++)
			if (!((*paths)[r] = rank_file(found, width, r)))
				rc = nl_errf(err, NL_ENOMEM, "out of memory");
	}
	for (int i = 0; i < nc; i++)
		free(cand[i]);
	return rc;
}

static int map_file(const char *path, uint8_t **map, size_t *len, struct nl_err *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return nl_errf(err, NL_EIO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || st.st_size == 0) {
		close(fd);
		return nl_errf(err, NL_EFORMAT, "%s: empty or unreadable", path);
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return nl_errf(err, NL_EIO, "%s: cannot map: %s", path, strerror(errno));
	*map = p;
	*len = (size_t)st.st_size;
	return 0;
}

static int dumpi_import(const char *in_path, const char *out_path, const struct trace_write_opts *opts,
			struct trace_skips *skips, struct nl_err *err)
{
	struct meta m;
	struct dimp d = {.in = in_path, .skips = skips, .err = err};
	int rc = read_meta(in_path, &m, err);
	if (!rc)
		rc = find_rank_files(in_path, &m, &d.paths, err);
	if (!rc) {
		d.n_ranks = (uint32_t)m.numprocs;
		d.map = calloc(d.n_ranks, sizeof *d.map);
		d.len = calloc(d.n_ranks, sizeof *d.len);
		if (!d.map || !d.len)
			rc = nl_errf(err, NL_ENOMEM, "out of memory");
	}
	for (uint32_t r = 0; !rc && r < d.n_ranks; r++)
		rc = map_file(d.paths[r], &d.map[r], &d.len[r], err);
	if (!rc) {
		char app[256];
		const char *bn = strrchr(in_path, '/');
		snprintf(app, sizeof app, "%s", bn ? bn + 1 : in_path);
		char *dot = strrchr(app, '.');
		if (dot && dot != app)
			*dot = '\0';
		rc = dimp_run(&d, out_path, opts, m.hostname ? m.hostname : "", m.startime, app);
	}
	dimp_release(&d);
	for (uint32_t r = 0; d.paths && r < d.n_ranks; r++) {
		if (d.map && d.map[r])
			munmap(d.map[r], d.len[r]);
		free(d.paths[r]);
	}
	free(d.paths);
	free(d.map);
	free(d.len);
	free(m.hostname);
	free(m.fileprefix);
	return rc;
}

int trace_dumpi_import_mem(const uint8_t *data, size_t len, struct nl_err *err)
{
	struct trace_skips skips = {0};
	char *path = "(memory)";
	uint8_t *map = (uint8_t *)data;
	struct dimp d = {.in = "(memory)", .skips = &skips, .err = err, .n_ranks = 1, .paths = &path,
			 .map = &map, .len = &len};
	int rc = dimp_run(&d, NULL, NULL, "", 0, "memory");
	dimp_release(&d);
	trace_skips_release(&skips);
	return rc;
}

/* A .meta file: text key=value lines naming numprocs and fileprefix. */
static int dumpi_probe(const char *path, const uint8_t *head, size_t n)
{
	(void)path;
	bool procs = false, prefix = false;
	for (size_t i = 0; i < n; i++) {
		if (!head[i])
			return 0;
		if (i == 0 || head[i - 1] == '\n') {
			if (n - i >= 9 && !memcmp(head + i, "numprocs=", 9))
				procs = true;
			if (n - i >= 11 && !memcmp(head + i, "fileprefix=", 11))
				prefix = true;
		}
	}
	return procs && prefix;
}

const struct trace_importer_ops trace_import_dumpi_ops = {
	.name = "dumpi",
	.help = "DUMPI trace: the .meta file, rank files <fileprefix>-NNNN.bin beside it",
	.probe = dumpi_probe,
	.import = dumpi_import,
};
