/* DUMPI import, pass 1: who belongs to every communicator the program
 * created. DUMPI records each rank's view with local handles (split
 * color/key, the group given to create, cartesian dims), so all ranks are
 * walked in lock step and the k-th creating call on a communicator is
 * matched across its members, then resolved as MPI defines it (MPI-3.1
 * §6.4.2): split by color, ordered by key then old rank; create: the
 * group's members in group order (groups are rebuilt from Comm_group and
 * the Group_* calls, §6.3); cart_create: the first prod(dims) ranks (reorder
 * ignored); cart_sub: row-major coordinates (§7.5.1); graph_create: the
 * first nnodes ranks. Pass 2 (import_dumpi.c) replays the results. */
#include "traces/traces_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

int dumpi_nomem(struct dumpi_import *d)
{
	return nl_errf(d->err, NL_ENOMEM, "out of memory");
}

int dumpi_rec_err(struct dumpi_import *d, uint32_t rank, uint64_t off, const char *fmt, ...)
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

bool dumpi_grow(void **p, uint32_t *n, uint32_t want, size_t elem, int fill)
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

int64_t  dumpi_comm_get(int64_t *m, uint32_t n, uint16_t h)
{
	return h < n ? m[h] : DUMPI_H_NONE;
}

bool  dumpi_comm_set(int64_t **m, uint32_t *n, uint16_t h, int64_t gid)
{
	if (!dumpi_grow((void **)m, n, (uint32_t)h + 1, sizeof **m, 0xff)) /* 0xff.. = -1 = DUMPI_H_NONE */
		return false;
	(*m)[h] = gid;
	return true;
}

void  dumpi_init_comm_map(int64_t **m, uint32_t *n)
{
	dumpi_comm_set(m, n, DH_COMM_WORLD, TRACE_COMM_WORLD);
	dumpi_comm_set(m, n, DH_COMM_SELF, TRACE_COMM_SELF);
	dumpi_comm_set(m, n, DH_COMM_NULL, TRACE_COMM_NULL);
}

int  dumpi_new_gcomm(struct dumpi_import *d, uint32_t size, const uint32_t *members, uint32_t *gid)
{
	if (d->n_gc == d->cap_gc) {
		uint32_t c = d->cap_gc ? 2 * d->cap_gc : 16;
		struct dumpi_gcomm *t = realloc(d->gc, c * sizeof *t);
		if (!t)
			return dumpi_nomem(d);
		d->gc = t;
		d->cap_gc = c;
	}
	if (d->n_gc >= TRACE_COMM_NULL - 2)
		return nl_errf(d->err, NL_ERANGE, "%s: too many communicators", d->in);
	struct dumpi_gcomm *g = &d->gc[d->n_gc];
	memset(g, 0, sizeof *g);
	g->size = size;
	if (members) {
		g->members = malloc((size ? size : 1) * sizeof *g->members);
		if (!g->members)
			return dumpi_nomem(d);
		if (size)
			memcpy(g->members, members, size * sizeof *g->members);
	}
	*gid = d->n_gc++;
	return 0;
}

uint32_t  dumpi_gc_size(const struct dumpi_import *d, uint32_t gid)
{
	return gid < d->n_gc ? d->gc[gid].size : 0;
}

/* --- pass 1: groups and communicator membership ------------------------------ */

void  dumpi_group_free(struct dumpi_group *g)
{
	free(g->wr);
	memset(g, 0, sizeof *g);
}

static struct dumpi_group *grp_at(struct dumpi_p1_rank *p, uint16_t h)
{
	if (!dumpi_grow((void **)&p->grp, &p->n_grp, (uint32_t)h + 1, sizeof *p->grp, 0))
		return NULL;
	return &p->grp[h];
}

/* The group handle h as a list (empty group and unknown handled). */
static bool grp_get(struct dumpi_p1_rank *p, uint16_t h, struct dumpi_group *out)
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

/* MPI_Comm_group: the communicator's members (self: this rank alone);
 * *ok false when the communicator is unknown. */
static int p1_group_of_comm(struct dumpi_import *d, uint32_t rank, struct dumpi_p1_rank *p, const struct dumpi_rec *r,
			    struct dumpi_group *g, bool *ok)
{
	int64_t gid = dumpi_comm_get(p->comm, p->n_comm, (uint16_t)r->a[0].v);
	if (gid == TRACE_COMM_SELF) {
		g->n = 1;
		g->wr = malloc(sizeof *g->wr);
		if (!g->wr)
			return dumpi_nomem(d);
		g->wr[0] = rank;
	} else if (gid >= 0 && gid < d->n_gc && gid != TRACE_COMM_NULL) {
		g->n = d->gc[gid].size;
		g->wr = malloc((g->n ? g->n : 1) * sizeof *g->wr);
		if (!g->wr)
			return dumpi_nomem(d);
		if (g->n) /* an empty list may be NULL, which memcpy must not get */
			memcpy(g->wr, d->gc[gid].members, g->n * sizeof *g->wr);
	} else {
		*ok = false;
	}
	return 0;
}

/* The ranks of old group g1 that a Group_(range_)incl/excl record lists
 * (a[2]), in the order given, into *sel (malloc'd, *ns of them). MPI
 * requires them distinct (MPI-3.1 §6.3.2): a repeat makes the group
 * unknown (*ok false), which also bounds the list by g1->n. Each must
 * also be a rank of the old group (§6.3.2), whose size is known here: one
 * outside it means the rank files do not belong to a job of this size (a
 * .meta with too few numprocs), so the input is refused rather than the
 * communicator and all its traffic dropped. */
static int p1_group_selected(struct dumpi_import *d, uint32_t rank, struct dumpi_p1_rank *p,
			     const struct dumpi_rec *r, const struct dumpi_group *g1, uint32_t **selp, uint32_t *nsp,
			     bool *ok)
{
	const struct dumpi_arg *a = r->a;
	bool range = r->label == DL_Group_range_incl || r->label == DL_Group_range_excl;
	uint32_t *sel = NULL, ns = 0, cap = 0, n = a[2].n;
	size_t off = a[2].off;
	bool *seen = calloc(g1->n ? g1->n : 1, sizeof *seen);
	int rc = 0;
	if (!seen)
		return dumpi_nomem(d);
	for (uint32_t i = 0; i < n && *ok && rc == 0; i++) {
		int64_t first, last, stride;
		if (range) {
			uint32_t m = be32_at(p->st.p + off);
			if (m != 3) {
				*ok = false;
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
		if (!stride) {
			*ok = false;
			break;
		}
		for (int64_t x = first; stride > 0 ? x <= last : x >= last; x += stride) {
			if (x < 0 || x >= g1->n) {
				rc = dumpi_rec_err(d, rank, r->off, "%s: member %lld outside its group (size %u)",
						   dumpi_label_name(r->label), (long long)x, g1->n);
				break;
			}
			if (seen[x]) {
				*ok = false;
				break;
			}
			seen[x] = true;
			if (ns == cap) {
				cap = cap ? 2 * cap : 16;
				uint32_t *t = realloc(sel, cap * sizeof *t);
				if (!t) {
					rc = dumpi_nomem(d);
					break;
				}
				sel = t;
			}
			sel[ns++] = (uint32_t)x;
		}
	}
	free(seen);
	if (rc < 0 || !*ok) {
		free(sel);
		return rc;
	}
	*selp = sel;
	*nsp = ns;
	return 0;
}

/* Group_incl, _excl, _range_incl, _range_excl of the group a[0]. */
static int p1_group_select(struct dumpi_import *d, uint32_t rank, struct dumpi_p1_rank *p, const struct dumpi_rec *r,
			   struct dumpi_group *g, bool *ok)
{
	struct dumpi_group g1;
	uint32_t *sel = NULL, ns = 0;
	bool incl = r->label == DL_Group_incl || r->label == DL_Group_range_incl;
	if (!grp_get(p, (uint16_t)r->a[0].v, &g1)) {
		*ok = false;
		return 0;
	}
	NL_CHECK(p1_group_selected(d, rank, p, r, &g1, &sel, &ns, ok));
	if (!*ok)
		return 0;
	g->wr = malloc((g1.n ? g1.n : 1) * sizeof *g->wr);
	if (!g->wr) {
		free(sel);
		return dumpi_nomem(d);
	}
	if (incl) {
		for (uint32_t i = 0; i < ns; i++)
			g->wr[g->n++] = g1.wr[sel[i]];
	} else {
		for (uint32_t i = 0; i < g1.n; i++)
			if (!in_list(sel, ns, i))
				g->wr[g->n++] = g1.wr[i];
	}
	free(sel);
	return 0;
}

/* Group_union, _intersection, _difference of groups a[0] and a[1]. */
static int p1_group_setop(struct dumpi_import *d, struct dumpi_p1_rank *p, const struct dumpi_rec *r,
			  struct dumpi_group *g, bool *ok)
{
	struct dumpi_group g1, g2;
	if (!grp_get(p, (uint16_t)r->a[0].v, &g1) || !grp_get(p, (uint16_t)r->a[1].v, &g2)) {
		*ok = false;
		return 0;
	}
	g->wr = malloc(((size_t)g1.n + g2.n + 1) * sizeof *g->wr);
	if (!g->wr)
		return dumpi_nomem(d);
	for (uint32_t i = 0; i < g1.n; i++) {
		bool in2 = in_list(g2.wr, g2.n, g1.wr[i]);
		if (r->label == DL_Group_union || (r->label == DL_Group_intersection) == in2)
			g->wr[g->n++] = g1.wr[i];
	}
	if (r->label == DL_Group_union)
		for (uint32_t i = 0; i < g2.n; i++)
			if (!in_list(g1.wr, g1.n, g2.wr[i]))
				g->wr[g->n++] = g2.wr[i];
	return 0;
}

/* Group constructors: set p->grp[new] from the record, or mark it unknown. */
static int p1_group(struct dumpi_import *d, uint32_t rank, struct dumpi_p1_rank *p, const struct dumpi_rec *r)
{
	const struct dumpi_arg *a = r->a;
	struct dumpi_group g = {0};
	uint16_t newh;
	bool ok = true;
	int rc;

	switch (r->label) {
	case DL_Comm_group:
		newh = (uint16_t)a[1].v;
		rc = p1_group_of_comm(d, rank, p, r, &g, &ok);
		break;
	case DL_Group_incl:
	case DL_Group_excl:
	case DL_Group_range_incl:
	case DL_Group_range_excl:
		newh = (uint16_t)a[3].v;
		rc = p1_group_select(d, rank, p, r, &g, &ok);
		break;
	case DL_Group_union:
	case DL_Group_intersection:
	case DL_Group_difference:
		newh = (uint16_t)a[2].v;
		rc = p1_group_setop(d, p, r, &g, &ok);
		break;
	case DL_Group_free: {
		struct dumpi_group *gg = grp_at(p, (uint16_t)a[0].v);
		if (!gg)
			return dumpi_nomem(d);
		dumpi_group_free(gg);
		return 0;
	}
	default:
		return 0;
	}
	if (rc < 0)
		return rc;
	struct dumpi_group *dst = grp_at(p, newh);
	if (!dst) {
		free(g.wr);
		return dumpi_nomem(d);
	}
	dumpi_group_free(dst);
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
bool  dumpi_creation(const struct dumpi_rec *r, uint16_t *parent, uint16_t *newh)
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

static int push_result(struct dumpi_import *d, struct dumpi_p1_rank *p, uint32_t gid, int32_t color, int32_t key)
{
	if (p->n_res == p->cap_res) {
		size_t c = p->cap_res ? 2 * p->cap_res : 8;
		struct dumpi_cresult *t = realloc(p->res, c * sizeof *t);
		if (!t)
			return dumpi_nomem(d);
		p->res = t;
		p->cap_res = c;
	}
	p->res[p->n_res++] = (struct dumpi_cresult){gid, color, key};
	if (gid != DUMPI_GID_UNKNOWN && !dumpi_comm_set(&p->comm, &p->n_comm, p->new_handle, gid))
		return dumpi_nomem(d);
	if (gid == DUMPI_GID_UNKNOWN && !dumpi_comm_set(&p->comm, &p->n_comm, p->new_handle, DUMPI_GID_UNKNOWN))
		return dumpi_nomem(d);
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

void  dumpi_part_free(struct dumpi_part *pt)
{
	dumpi_group_free(&pt->g);
	free(pt->dims);
	memset(pt, 0, sizeof *pt);
}

/* A complete bucket being resolved: its n participants (in parent rank
 * order) and what each gets. */
struct resolve_ctx {
	struct dumpi_import *d;
	const struct dumpi_bucket *bk;
	uint32_t n;
	struct dumpi_part *pt;
	/* A copy, not a pointer into d->gc: dumpi_new_gcomm grows d->gc,
	 * which moves it, and a split into more communicators than the table
	 * had room for read its parent's members from freed memory (a crash).
	 * The copy's members and dims are arrays of their own, not moved. */
	struct dumpi_gcomm par;
	uint32_t *tmp;    /* [n] scratch */
	uint32_t *gid_of; /* [n] each participant's new communicator */
	int32_t *color, *key;
};

/* MPI_Cart_sub's color and key of each participant: the coordinates
 * along the dropped dims and along the kept ones (row-major, as MPI). 1
 * when the parent is no grid netloom knows (every result unknown). */
static int resolve_cart_sub_keys(struct resolve_ctx *x)
{
	const struct dumpi_gcomm *par = &x->par;
	if (!par->ndims) {
		for (uint32_t i = 0; i < x->n; i++)
			x->gid_of[i] = DUMPI_GID_UNKNOWN;
		return 1;
	}
	for (uint32_t i = 0; i < x->n; i++) {
		const struct dumpi_part *pt = &x->pt[i];
		if (pt->ndims != par->ndims)
			return nl_errf(x->d->err, NL_EFORMAT,
				       "%s: MPI_Cart_sub on communicator %u: rank %u gives %u dims, the grid has %u", x->d->in,
				       x->bk->parent, pt->rank, pt->ndims, par->ndims);
		int64_t c = 0, k = 0, pos = i, coord[32];
		for (int64_t dd = (int64_t)par->ndims - 1; dd >= 0; dd--) {
			coord[dd] = pos % par->dims[dd];
			pos /= par->dims[dd];
		}
		for (uint32_t dd = 0; dd < par->ndims; dd++) {
			if (pt->dims[dd])
				k = k * par->dims[dd] + coord[dd];
			else
				c = c * par->dims[dd] + coord[dd];
		}
		x->color[i] = (int32_t)c;
		x->key[i] = (int32_t)k;
	}
	return 0;
}

/* Comm_split and Cart_sub: new communicators by ascending color, members
 * by (key, old rank); a Cart_sub's keeps the kept dims. */
static int resolve_split(struct resolve_ctx *x, uint16_t label)
{
	struct dumpi_import *d = x->d;
	uint32_t n = x->n, *tmp = x->tmp;
	if (label == DL_Cart_sub) {
		int rc = resolve_cart_sub_keys(x);
		if (rc)
			return rc > 0 ? 0 : rc;
	}
	for (;;) {
		int64_t best = INT64_MAX;
		for (uint32_t i = 0; i < n; i++)
			if (x->color[i] >= 0 && x->gid_of[i] == TRACE_COMM_NULL && x->color[i] < best)
				best = x->color[i];
		if (best == INT64_MAX)
			return 0;
		uint32_t m = 0;
		for (uint32_t i = 0; i < n; i++)
			if (x->color[i] == best)
				tmp[m++] = i;
		for (uint32_t a = 1; a < m; a++) /* insertion sort by key, stable on old rank */
			for (uint32_t y = a; y > 0 && x->key[tmp[y]] < x->key[tmp[y - 1]]; y--) {
				uint32_t t = tmp[y];
				tmp[y] = tmp[y - 1];
				tmp[y - 1] = t;
			}
		uint32_t g;
		for (uint32_t a = 0; a < m; a++)
			tmp[a] = x->par.members[tmp[a]];
		NL_CHECK(dumpi_new_gcomm(d, m, tmp, &g));
		for (uint32_t i = 0; i < n; i++)
			if (x->color[i] == best)
				x->gid_of[i] = g;
		if (label == DL_Cart_sub) {
			struct dumpi_gcomm *ng = &d->gc[g];
			uint32_t nd = 0;
			ng->dims = malloc(x->par.ndims * sizeof *ng->dims);
			if (!ng->dims)
				return dumpi_nomem(d);
			for (uint32_t dd = 0; dd < x->par.ndims; dd++)
				if (x->pt[0].dims[dd])
					ng->dims[nd++] = x->par.dims[dd];
			ng->ndims = nd;
		}
	}
}

/* Comm_create: each member's group, one communicator per distinct group
 * (members not in their group get none; an unknown group, unknown). */
static int resolve_create(struct resolve_ctx *x)
{
	struct dumpi_import *d = x->d;
	uint32_t first = d->n_gc;
	for (uint32_t i = 0; i < x->n; i++) {
		const struct dumpi_part *pt = &x->pt[i];
		if (!pt->g.known) {
			x->gid_of[i] = DUMPI_GID_UNKNOWN;
			continue;
		}
		if (!in_list(pt->g.wr, pt->g.n, pt->rank))
			continue;
		for (uint32_t g = first; g < d->n_gc; g++)
			if (d->gc[g].size == pt->g.n && !memcmp(d->gc[g].members, pt->g.wr, pt->g.n * sizeof(uint32_t)))
				x->gid_of[i] = g;
		if (x->gid_of[i] == TRACE_COMM_NULL)
			NL_CHECK(dumpi_new_gcomm(d, pt->g.n, pt->g.wr, &x->gid_of[i]));
	}
	return 0;
}

/* Cart_create, Graph_create: the first prod(dims) / nnodes ranks; a
 * Cart_create's keeps the dims. */
static int resolve_topology(struct resolve_ctx *x, uint16_t label)
{
	struct dumpi_import *d = x->d;
	const struct dumpi_part *pt = x->pt;
	int64_t m = label == DL_Cart_create ? dims_product(pt[0].dims, pt[0].ndims) : pt[0].nodes;
	if (m < 0 || m > x->n)
		return nl_errf(d->err, NL_EFORMAT, "%s: %s on communicator %u of size %u asks for %lld ranks", d->in,
			       dumpi_label_name(label), x->bk->parent, x->n, (long long)m);
	uint32_t g = TRACE_COMM_NULL;
	if (m > 0) {
		NL_CHECK(dumpi_new_gcomm(d, (uint32_t)m, x->par.members, &g));
		if (label == DL_Cart_create) {
			d->gc[g].ndims = pt[0].ndims;
			d->gc[g].dims = malloc((pt[0].ndims ? pt[0].ndims : 1) * sizeof(int32_t));
			if (!d->gc[g].dims)
				return dumpi_nomem(d);
			memcpy(d->gc[g].dims, pt[0].dims, pt[0].ndims * sizeof(int32_t));
		}
	}
	for (uint32_t i = 0; i < x->n; i++)
		x->gid_of[i] = i < m ? g : TRACE_COMM_NULL;
	return 0;
}

/* Resolve a complete bucket: create the new communicators and give each
 * participant its result. */
static int resolve(struct dumpi_import *d, struct dumpi_bucket *bk)
{
	uint32_t n = dumpi_gc_size(d, bk->parent);
	struct dumpi_part *pt = bk->parts;
	uint16_t label = pt[0].label;
	struct resolve_ctx x = {.d = d, .bk = bk, .n = n, .pt = pt, .par = d->gc[bk->parent]};
	int rc = 0;

	for (uint32_t i = 1; i < n; i++)
		if (pt[i].label != label)
			return nl_errf(d->err, NL_EFORMAT,
				       "%s: collective call #%llu on communicator %u: rank %u calls %s, rank %u calls %s",
				       d->in, (unsigned long long)bk->seq, bk->parent, pt[0].rank,
				       dumpi_label_name(label), pt[i].rank, dumpi_label_name(pt[i].label));
	x.tmp = malloc((n ? n : 1) * sizeof *x.tmp);
	x.gid_of = malloc((n ? n : 1) * sizeof *x.gid_of);
	x.color = calloc(n ? n : 1, sizeof *x.color);
	x.key = calloc(n ? n : 1, sizeof *x.key);
	if (!x.tmp || !x.gid_of || !x.color || !x.key) {
		rc = dumpi_nomem(d);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		x.gid_of[i] = TRACE_COMM_NULL;
		x.color[i] = pt[i].color;
		x.key[i] = pt[i].key;
	}
	if (label == DL_Comm_dup) {
		uint32_t g;
		rc = dumpi_new_gcomm(d, n, x.par.members, &g);
		for (uint32_t i = 0; i < n; i++)
			x.gid_of[i] = g;
	} else if (label == DL_Comm_split || label == DL_Cart_sub) {
		rc = resolve_split(&x, label);
	} else if (label == DL_Comm_create) {
		rc = resolve_create(&x);
	} else {
		rc = resolve_topology(&x, label);
	}
	for (uint32_t i = 0; i < n && !rc; i++) {
		struct dumpi_p1_rank *p = &d->p1[pt[i].rank];
		rc = push_result(d, p, x.gid_of[i], x.color[i], x.key[i]);
		p->bucket = -1;
	}
out:
	for (uint32_t i = 0; i < n; i++)
		dumpi_part_free(&pt[i]);
	free(bk->parts);
	bk->parts = NULL;
	bk->open = false;
	free(x.tmp);
	free(x.gid_of);
	free(x.color);
	free(x.key);
	return rc;
}

/* Record rank's part of a creating call; returns the bucket index. */
static int submit(struct dumpi_import *d, uint32_t rank, struct dumpi_p1_rank *p, const struct dumpi_rec *r, uint32_t parent,
		  int64_t *bucket)
{
	const struct dumpi_arg *a = r->a;
	if (!dumpi_grow((void **)&p->seq, &p->n_seq, parent + 1, sizeof *p->seq, 0))
		return dumpi_nomem(d);
	uint64_t seq = p->seq[parent]++;
	struct dumpi_gcomm *par = &d->gc[parent];
	uint32_t pos = 0;
	while (pos < par->size && par->members[pos] != rank)
		pos++;
	if (pos == par->size)
		return dumpi_rec_err(d, rank, r->off, "%s on communicator %u, which this rank is not a member of",
			       dumpi_label_name(r->label), parent);
	size_t bi = 0;
	while (bi < d->n_bk && !(d->bk[bi].open && d->bk[bi].parent == parent && d->bk[bi].seq == seq))
		bi++;
	if (bi == d->n_bk) {
		if (d->n_bk == d->cap_bk) {
			size_t c = d->cap_bk ? 2 * d->cap_bk : 8;
			struct dumpi_bucket *t = realloc(d->bk, c * sizeof *t);
			if (!t)
				return dumpi_nomem(d);
			d->bk = t;
			d->cap_bk = c;
		}
		/* reuse a closed slot when there is one */
		for (bi = 0; bi < d->n_bk && d->bk[bi].open; bi++)
			;
		if (bi == d->n_bk)
			d->n_bk++;
		struct dumpi_bucket *nb = &d->bk[bi];
		memset(nb, 0, sizeof *nb);
		nb->parent = parent;
		nb->seq = seq;
		nb->open = true;
		nb->parts = calloc(par->size, sizeof *nb->parts);
		if (!nb->parts)
			return dumpi_nomem(d);
	}
	struct dumpi_bucket *bk = &d->bk[bi];
	struct dumpi_part *pt = &bk->parts[pos];
	pt->in = true;
	pt->rank = rank;
	pt->label = r->label;
	switch (r->label) {
	case DL_Comm_split:
		pt->color = (int32_t)a[1].v;
		pt->key = (int32_t)a[2].v;
		break;
	case DL_Comm_create: {
		struct dumpi_group g;
		if (grp_get(p, (uint16_t)a[1].v, &g)) {
			pt->g.known = true;
			pt->g.n = g.n;
			pt->g.wr = malloc((g.n ? g.n : 1) * sizeof *g.wr);
			if (!pt->g.wr)
				return dumpi_nomem(d);
			if (g.n) /* the empty group's list is NULL, which memcpy must not get */
				memcpy(pt->g.wr, g.wr, g.n * sizeof *g.wr);
		}
		break;
	}
	case DL_Cart_create:
	case DL_Cart_sub: {
		const struct dumpi_arg *dims = &a[2];
		if (dims->n > 32)
			return dumpi_rec_err(d, rank, r->off, "%s with %u dimensions (at most 32)", dumpi_label_name(r->label),
				       dims->n);
		pt->ndims = dims->n;
		pt->dims = malloc((dims->n ? dims->n : 1) * sizeof *pt->dims);
		if (!pt->dims)
			return dumpi_nomem(d);
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

/* The rank file read as world rank `rank` records MPI_Comm_rank on
 * MPI_COMM_WORLD returning another rank: it is that rank's file, renamed
 * or copied over (its peers would be read from the wrong rank, and the
 * replay deadlock or give another runtime). A negative value is no rank
 * and is left alone. */
static int p1_check_world_rank(struct dumpi_import *d, uint32_t rank, const struct dumpi_rec *r)
{
	if (r->label != DL_Comm_rank || r->n_args < 2 || r->a[0].v != DH_COMM_WORLD || r->a[1].v < 0 ||
	    r->a[1].v == (int64_t)rank)
		return 0;
	long long got = (long long)r->a[1].v;
	if (got >= (long long)d->n_ranks)
		return dumpi_rec_err(d, rank, r->off,
				     "MPI_Comm_rank on MPI_COMM_WORLD gave %lld: the file of world rank %lld, past "
				     "the .meta's numprocs=%u; expected rank %u's",
				     got, got, d->n_ranks, rank);
	return dumpi_rec_err(d, rank, r->off,
			     "MPI_Comm_rank on MPI_COMM_WORLD gave %lld: the file of world rank %lld, found as "
			     "rank %u's; expected rank %u's (a rank file renamed or copied over?)",
			     got, got, rank, rank);
}

/* Advance one rank until it blocks on a creating call or ends. */
static int p1_advance(struct dumpi_import *d, uint32_t rank, bool *progress)
{
	struct dumpi_p1_rank *p = &d->p1[rank];
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
		if (dumpi_creation(&r, &parent_h, &newh)) {
			int64_t parent = dumpi_comm_get(p->comm, p->n_comm, parent_h);
			p->new_handle = newh;
			if (parent == TRACE_COMM_SELF) {
				/* A rank's own MPI_COMM_SELF: resolved alone. */
				uint32_t g = TRACE_COMM_NULL;
				bool member = true;
				if (r.label == DL_Comm_split)
					member = r.a[1].v >= 0;
				if (r.label == DL_Comm_create) {
					struct dumpi_group gg;
					member = grp_get(p, (uint16_t)r.a[1].v, &gg) && in_list(gg.wr, gg.n, rank);
				}
				if (member) {
					NL_CHECK(dumpi_new_gcomm(d, 1, &rank, &g));
				}
				NL_CHECK(push_result(d, p, g, r.label == DL_Comm_split ? (int32_t)r.a[1].v : 0,
						     r.label == DL_Comm_split ? (int32_t)r.a[2].v : 0));
			} else if (parent < 0 || parent == TRACE_COMM_NULL || parent == DUMPI_GID_UNKNOWN) {
				NL_CHECK(push_result(d, p, DUMPI_GID_UNKNOWN, 0, 0));
			} else {
				NL_CHECK(submit(d, rank, p, &r, (uint32_t)parent, &p->bucket));
				struct dumpi_bucket *bk = &d->bk[p->bucket];
				if (bk->n_in == dumpi_gc_size(d, bk->parent))
					NL_CHECK(resolve(d, bk));
			}
			continue;
		}
		NL_CHECK(p1_check_world_rank(d, rank, &r));
		if (r.label == DL_Comm_free) {
			if (!dumpi_comm_set(&p->comm, &p->n_comm, (uint16_t)r.a[0].v, DUMPI_H_NONE))
				return dumpi_nomem(d);
			continue;
		}
		NL_CHECK(p1_group(d, rank, p, &r));
	}
	return 0;
}

int dumpi_pass1(struct dumpi_import *d)
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
				struct dumpi_p1_rank *p = &d->p1[r];
				if (p->bucket >= 0) {
					struct dumpi_bucket *bk = &d->bk[p->bucket];
					return nl_errf(d->err, NL_EFORMAT,
						       "%s: rank %u waits in collective call #%llu on communicator %u, which %u "
						       "of its %u members never make",
						       d->in, r, (unsigned long long)bk->seq, bk->parent,
						       dumpi_gc_size(d, bk->parent) - bk->n_in, dumpi_gc_size(d, bk->parent));
				}
			}
			NL_BUG("dumpi pass 1 stalled without a waiting rank");
		}
	}
}

