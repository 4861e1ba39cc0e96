/* Importer "otf2": OTF2 archives (Score-P, Scalasca, TAU, EZTrace), read
 * with the OTF2 library: the anchor file <name>.otf2, the global
 * definitions <name>.def and one <name>/<location>.evt (+ .def) per
 * location. otf2_events.c converts each rank's events.
 *
 * Ranks: the MPI paradigm's COMM_LOCATIONS group lists one location per
 * rank, in rank order (OTF2 docs, "MPI communicator definitions"); an
 * archive without it maps its PROCESS location groups in id order to
 * ranks, each through its first location. Other locations of a process
 * (threads) are not replayed: their events are counted on stderr.
 * Communicators: a Comm whose group is an MPI COMM_GROUP lists members as
 * positions in that COMM_LOCATIONS group, i.e. world ranks; the first one
 * that holds every rank in order (MPI_COMM_WORLD) is communicator 0, the
 * rest get ids from 2 in definition order; a COMM_SELF group (Score-P's
 * MPI_COMM_SELF and every size-1 communicator) is communicator 1.
 * netloom's own export (the NETLOOM::EXPORT property) is read more
 * closely: its size-1 groups are communicators of their own, as in the
 * archive it came from, its NETLOOM:: event attributes give back probes,
 * cancels, op flags and CPU times, and its recorder stays the original's, so
 * replay's count-0 rule (docs/replay.md) sees the same archive.
 * Details and what is inferred or refused: docs/trace-format.md, "OTF2".
 */
#include "traces/otf2_import.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"

static int cmp_string(const void *a, const void *b)
{
	uint32_t x = ((const struct otf2_string *)a)->ref, y = ((const struct otf2_string *)b)->ref;
	return (x > y) - (x < y);
}

static int cmp_region(const void *a, const void *b)
{
	uint32_t x = ((const struct otf2_region *)a)->ref, y = ((const struct otf2_region *)b)->ref;
	return (x > y) - (x < y);
}

const char *otf2_str(const struct otf2_defs *d, uint64_t ref)
{
	if (ref > UINT32_MAX)
		return "";
	struct otf2_string key = {.ref = (uint32_t)ref};
	const struct otf2_string *s = d->n_strings ? bsearch(&key, d->strings, d->n_strings, sizeof key, cmp_string) : NULL;
	return s ? s->s : "";
}

const struct otf2_region *otf2_region_find(const struct otf2_defs *d, uint32_t ref)
{
	struct otf2_region key = {.ref = ref};
	return d->n_regions ? bsearch(&key, d->regions, d->n_regions, sizeof key, cmp_region) : NULL;
}

static int cmp_comm_key(const void *a, const void *b)
{
	const struct otf2_comm_key *x = a, *y = b;
	if (x->ref != y->ref)
		return (x->ref > y->ref) - (x->ref < y->ref);
	return (x->i > y->i) - (x->i < y->i);
}

static int cmp_comm_ref(const void *a, const void *b)
{
	uint64_t x = ((const struct otf2_comm_key *)a)->ref, y = ((const struct otf2_comm_key *)b)->ref;
	return (x > y) - (x < y);
}

/* The first communicator defined with ref, as a scan in definition order
 * finds it, but by binary search over comm_keys (one key per ref, its
 * first definition's: map_comms): the events look one up for most MPI
 * records, and a scan cost O(communicators) each (a tiled trace has
 * thousands). */
const struct otf2_comm *otf2_comm_find(const struct otf2_defs *d, uint64_t ref)
{
	if (!d->comm_keys) {
		for (uint32_t i = 0; i < d->n_comms; i++)
			if (d->comms[i].ref == ref)
				return &d->comms[i];
		return NULL;
	}
	struct otf2_comm_key key = {.ref = ref};
	const struct otf2_comm_key *k = bsearch(&key, d->comm_keys, d->n_comm_keys, sizeof key, cmp_comm_ref);
	return k ? &d->comms[k->i] : NULL;
}

int otf2_skip(struct otf2_import *im, const char *name, const char *why, bool fatal)
{
	if (fatal && !im->fatal++)
		snprintf(im->fatal_what, sizeof im->fatal_what, "%s (%s)", name, why);
	return trace_skips_add(im->skips, name, why, 1) ? nl_errf(im->err, NL_ENOMEM, "out of memory") : 0;
}

/* --- global definitions ----------------------------------------------------------- */

struct defs_ctx {
	struct otf2_defs *d;
	bool nomem;
};

static bool grow_to(void **p, uint32_t *n, uint64_t need, size_t size)
{
	if (need <= *n)
		return true;
	if (need > (1u << 26))
		return false;
	void *q = realloc(*p, need * size);
	if (!q)
		return false;
	memset((char *)q + *n * size, 0, (need - *n) * size);
	*p = q;
	*n = (uint32_t)need;
	return true;
}

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
	(void)off, (void)len, (void)rt;
	((struct defs_ctx *)ud)->d->ticks_per_s = res;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
	struct defs_ctx *c = ud;
	struct otf2_defs *d = c->d;
	uint32_t cap = d->n_strings;
	char *copy = trace_strdup(s);
	if (!copy || !grow_to((void **)&d->strings, &cap, (uint64_t)d->n_strings + 1, sizeof *d->strings)) {
		free(copy);
		c->nomem = true;
		return OTF2_CALLBACK_INTERRUPT;
	}
	d->strings[d->n_strings++] = (struct otf2_string){.ref = self, .s = copy};
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef cn,
				    OTF2_StringRef desc, OTF2_RegionRole role, OTF2_Paradigm paradigm,
				    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t l0, uint32_t l1)
{
	(void)cn, (void)desc, (void)role, (void)flags, (void)file, (void)l0, (void)l1;
	struct defs_ctx *c = ud;
	struct otf2_defs *d = c->d;
	uint32_t cap = d->n_regions;
	if (!grow_to((void **)&d->regions, &cap, (uint64_t)d->n_regions + 1, sizeof *d->regions)) {
		c->nomem = true;
		return OTF2_CALLBACK_INTERRUPT;
	}
	d->regions[d->n_regions++] = (struct otf2_region){.ref = self, .name = name, .paradigm = paradigm};
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
				      OTF2_LocationType type, uint64_t n_events, OTF2_LocationGroupRef group)
{
	(void)name, (void)type;
	struct defs_ctx *c = ud;
	struct otf2_defs *d = c->d;
	uint32_t n = d->n_locs;
	if (!grow_to((void **)&d->locs, &n, (uint64_t)d->n_locs + 1, sizeof *d->locs)) {
		c->nomem = true;
		return OTF2_CALLBACK_INTERRUPT;
	}
	d->locs[d->n_locs++] = (struct otf2_loc){.ref = self, .group = group, .n_events = n_events, .rank = -1};
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
				   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
	(void)name, (void)flags;
	struct defs_ctx *c = ud;
	struct otf2_defs *d = c->d;
	uint32_t cap = d->n_groups;
	if (!grow_to((void **)&d->groups, &cap, (uint64_t)d->n_groups + 1, sizeof *d->groups))
		goto oom;
	struct otf2_group *g = &d->groups[d->n_groups];
	*g = (struct otf2_group){.ref = self, .type = type, .paradigm = paradigm, .n = n};
	if (n && !(g->members = malloc(n * sizeof *members)))
		goto oom;
	if (n)
		memcpy(g->members, members, n * sizeof *members);
	d->n_groups++;
	return OTF2_CALLBACK_SUCCESS;
oom:
	c->nomem = true;
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
				  OTF2_CommRef parent, OTF2_CommFlag flags)
{
	(void)flags;
	struct defs_ctx *c = ud;
	struct otf2_defs *d = c->d;
	uint32_t cap = d->n_comms;
	if (!grow_to((void **)&d->comms, &cap, (uint64_t)d->n_comms + 1, sizeof *d->comms)) {
		c->nomem = true;
		return OTF2_CALLBACK_INTERRUPT;
	}
	d->comms[d->n_comms++] = (struct otf2_comm){
		.ref = self, .name = name, .group = group, .parent = parent, .nl_id = TRACE_COMM_NULL};
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef desc,
				       OTF2_Type type)
{
	(void)desc;
	struct defs_ctx *c = ud;
	struct otf2_defs *d = c->d;
	uint32_t cap = d->n_attrs;
	if (!grow_to((void **)&d->attrs, &cap, (uint64_t)d->n_attrs + 1, sizeof *d->attrs)) {
		c->nomem = true;
		return OTF2_CALLBACK_INTERRUPT;
	}
	d->attrs[d->n_attrs++] = (struct otf2_attr){.ref = self, .name = name, .type = type};
	return OTF2_CALLBACK_SUCCESS;
}

/* The NETLOOM:: attributes (export_otf2.c) by name; one of another type
 * is not netloom's and stays unused. */
static void map_attrs(struct otf2_defs *d)
{
	static const struct {
		const char *name;
		OTF2_Type type;
	} want[O2_ATTR__COUNT] = {
		[O2_ATTR_PEER] = {TRACE_OTF2_ATTR_PEER, OTF2_TYPE_INT32},
		[O2_ATTR_TAG] = {TRACE_OTF2_ATTR_TAG, OTF2_TYPE_INT32},
		[O2_ATTR_COMM] = {TRACE_OTF2_ATTR_COMM, OTF2_TYPE_COMM},
		[O2_ATTR_BYTES] = {TRACE_OTF2_ATTR_BYTES, OTF2_TYPE_UINT64},
		[O2_ATTR_DONE] = {TRACE_OTF2_ATTR_DONE, OTF2_TYPE_UINT32},
		[O2_ATTR_FLAGS] = {TRACE_OTF2_ATTR_FLAGS, OTF2_TYPE_UINT32},
		[O2_ATTR_CPU] = {TRACE_OTF2_ATTR_CPU, OTF2_TYPE_UINT64},
		[O2_ATTR_REQUEST] = {TRACE_OTF2_ATTR_REQUEST, OTF2_TYPE_UINT64},
	};
	for (int a = 0; a < O2_ATTR__COUNT; a++) {
		d->nl_attr[a] = UINT32_MAX;
		for (uint32_t i = 0; i < d->n_attrs; i++)
			if (d->attrs[i].type == want[a].type && !strcmp(otf2_str(d, d->attrs[i].name), want[a].name))
				d->nl_attr[a] = d->attrs[i].ref;
	}
}

static void defs_release(struct otf2_defs *d)
{
	for (uint32_t i = 0; i < d->n_strings; i++)
		free(d->strings[i].s);
	free(d->strings);
	free(d->regions);
	free(d->attrs);
	free(d->locs);
	for (uint32_t i = 0; i < d->n_groups; i++)
		free(d->groups[i].members);
	free(d->groups);
	free(d->comms);
	free(d->comm_keys);
	for (uint32_t i = 0; i < d->n_nl_comms; i++)
		free(d->nl_comms[i].world_ranks);
	free(d->nl_comms);
	free(d->rank_loc);
	memset(d, 0, sizeof *d);
}

/* A communicator's group. EZTrace defines group 0 twice, as the
 * COMM_LOCATIONS group and as MPI_COMM_WORLD's COMM_GROUP: prefer the
 * communicator kinds. */
static const struct otf2_group *group_find(const struct otf2_defs *d, uint64_t ref)
{
	const struct otf2_group *any = NULL;
	for (uint32_t i = 0; i < d->n_groups; i++)
		if (d->groups[i].ref == ref) {
			if (d->groups[i].type == OTF2_GROUP_TYPE_COMM_GROUP || d->groups[i].type == OTF2_GROUP_TYPE_COMM_SELF)
				return &d->groups[i];
			any = &d->groups[i];
		}
	return any;
}

static struct otf2_loc *loc_find(struct otf2_defs *d, uint64_t ref)
{
	for (uint32_t i = 0; i < d->n_locs; i++)
		if (d->locs[i].ref == ref)
			return &d->locs[i];
	return NULL;
}

/* Ranks from the MPI COMM_LOCATIONS group, else one per location group. */
static int map_ranks(struct otf2_import *im)
{
	struct otf2_defs *d = &im->defs;
	const struct otf2_group *world = NULL;
	for (uint32_t i = 0; i < d->n_groups && !world; i++)
		if (d->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && d->groups[i].paradigm == OTF2_PARADIGM_MPI)
			world = &d->groups[i];
	uint32_t n = 0;
	if (world) {
		if (!(d->rank_loc = calloc(world->n ? world->n : 1, sizeof *d->rank_loc)))
			return nl_errf(im->err, NL_ENOMEM, "out of memory");
		for (uint32_t r = 0; r < world->n; r++) {
			struct otf2_loc *l = loc_find(d, world->members[r]);
			if (!l || l->rank >= 0)
				return nl_errf(im->err, NL_EFORMAT,
					       "%s: MPI location group: member %u is location %llu, %s "
					       "(expected one distinct defined location per rank)",
					       im->path, r, (unsigned long long)world->members[r],
					       l ? "listed twice" : "which is not defined");
			l->rank = r;
			d->rank_loc[n++] = l->ref;
		}
	} else {
		/* No MPI group (EZTrace): each location group is a process; its
		 * first location (lowest ref) is the rank. */
		if (!(d->rank_loc = calloc(d->n_locs ? d->n_locs : 1, sizeof *d->rank_loc)))
			return nl_errf(im->err, NL_ENOMEM, "out of memory");
		for (uint32_t i = 0; i < d->n_locs; i++) {
			bool first = true;
			for (uint32_t j = 0; j < d->n_locs; j++)
				if (d->locs[j].group == d->locs[i].group && d->locs[j].ref < d->locs[i].ref)
					first = false;
			if (first)
				d->locs[i].rank = 1;
		}
		for (uint32_t g = 0; n < d->n_locs; g++) { /* ranks in location-group order */
			uint32_t best = UINT32_MAX;
			for (uint32_t i = 0; i < d->n_locs; i++)
				if (d->locs[i].rank == 1 && (best == UINT32_MAX || d->locs[i].group < d->locs[best].group))
					best = i;
			if (best == UINT32_MAX)
				break;
			d->locs[best].rank = n;
			d->rank_loc[n++] = d->locs[best].ref;
			(void)g;
		}
	}
	if (!n)
		return nl_errf(im->err, NL_EFORMAT, "%s: no MPI rank locations defined (expected Location definitions)",
			       im->path);
	d->n_ranks = n;
	for (uint32_t i = 0; i < d->n_locs; i++)
		if (d->locs[i].rank < 0 && d->locs[i].n_events &&
		    otf2_skip(im, "events of non-rank locations (threads)", "only each rank's first location is replayed",
			      false))
			return NL_ENOMEM;
	return 0;
}

/* OTF2 communicators to netloom ids (see the file comment). */
static int map_comms(struct otf2_import *im)
{
	struct otf2_defs *d = &im->defs;
	bool have_world = false;
	if (!(d->nl_comms = calloc(d->n_comms ? d->n_comms : 1, sizeof *d->nl_comms)))
		return nl_errf(im->err, NL_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < d->n_comms; i++) {
		struct otf2_comm *c = &d->comms[i];
		const struct otf2_group *g = group_find(d, c->group);
		if (!g || g->paradigm != OTF2_PARADIGM_MPI)
			continue;
		if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
			c->nl_id = TRACE_COMM_SELF;
			c->size = 1;
			continue;
		}
		if (g->type != OTF2_GROUP_TYPE_COMM_GROUP)
			continue;
		for (uint32_t k = 0; k < g->n; k++)
			if (g->members[k] >= d->n_ranks)
				return nl_errf(im->err, NL_EFORMAT,
					       "%s: group %llu: member %llu is not a rank (expected < %u)", im->path,
					       (unsigned long long)g->ref, (unsigned long long)g->members[k], d->n_ranks);
		bool identity = g->n == d->n_ranks;
		for (uint32_t k = 0; identity && k < g->n; k++)
			identity = g->members[k] == k;
		c->size = g->n;
		if (identity && !have_world) {
			have_world = true;
			c->nl_id = TRACE_COMM_WORLD;
			continue;
		}
		if (g->n == 1 && !identity && !im->is_netloom) {
			/* Size 1 but a fixed member: still self for that rank.
			 * netloom's export writes self as a COMM_SELF group and
			 * each other communicator as it was: a size-1 one made by
			 * MPI_Comm_split is not MPI_COMM_SELF there. */
			c->nl_id = TRACE_COMM_SELF;
			continue;
		}
		struct trace_comm *t = &d->nl_comms[d->n_nl_comms];
		if (!(t->world_ranks = malloc(g->n * sizeof *t->world_ranks)))
			return nl_errf(im->err, NL_ENOMEM, "out of memory");
		for (uint32_t k = 0; k < g->n; k++)
			t->world_ranks[k] = (uint32_t)g->members[k];
		t->id = 2 + d->n_nl_comms++;
		t->size = g->n;
		c->nl_id = t->id;
	}
	if (d->n_comms) {
		if (!(d->comm_keys = malloc(d->n_comms * sizeof *d->comm_keys)))
			return nl_errf(im->err, NL_ENOMEM, "out of memory");
		for (uint32_t i = 0; i < d->n_comms; i++)
			d->comm_keys[i] = (struct otf2_comm_key){.ref = d->comms[i].ref, .i = i};
		/* By ref, then definition order; a ref defined twice keeps
		 * its first definition's key only. */
		qsort(d->comm_keys, d->n_comms, sizeof *d->comm_keys, cmp_comm_key);
		d->n_comm_keys = 1;
		for (uint32_t i = 1; i < d->n_comms; i++)
			if (d->comm_keys[i].ref != d->comm_keys[d->n_comm_keys - 1].ref)
				d->comm_keys[d->n_comm_keys++] = d->comm_keys[i];
	}
	return 0;
}

/* --- driver ------------------------------------------------------------------------ */

static OTF2_ErrorCode quiet_error(void *ud, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
				  const char *msg, va_list va)
{
	(void)ud, (void)file, (void)line, (void)fn, (void)msg, (void)va;
	return code;
}

/* OTF2's reason for e, or NULL when it gives none: the library describes
 * codes outside its table (OTF2_ERROR_INVALID among them) as "Unknown error
 * code", which says nothing about the file. */
static const char *otf2_reason(OTF2_ErrorCode e)
{
	const char *s = OTF2_Error_GetDescription(e);
	return s && *s && strcmp(s, "Unknown error code") ? s : NULL;
}

/* The archive's files, checked before the library opens them so that a
 * missing one is named. */
/* path is a regular file: the OTF2 library opens what it is given and
 * would wait forever on a FIFO for a writer. */
static int check_file(struct otf2_import *im, const char *path, const char *what)
{
	struct stat st;
	if (stat(path, &st))
		return nl_errf(im->err, NL_ENOTFOUND, "%s: %s missing (expected the %s of the OTF2 archive)", path,
			       "file", what);
	if (S_ISDIR(st.st_mode))
		return nl_errf(im->err, NL_EIO, "%s: is a directory, not the %s of the OTF2 archive", path, what);
	if (!S_ISREG(st.st_mode))
		return nl_errf(im->err, NL_EIO, "%s: is not a regular file (%s), not the %s of the OTF2 archive", path,
			       nl_file_kind(st.st_mode), what);
	return 0;
}

static int read_defs(struct otf2_import *im, OTF2_Reader *rd, const char *def_path)
{
	struct defs_ctx c = {.d = &im->defs};
	OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
	OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
	if (!gdr || !cb) {
		OTF2_GlobalDefReaderCallbacks_Delete(cb);
		return nl_errf(im->err, NL_ECORRUPT, "%s: cannot read the global definitions (expected an OTF2 .def file)",
			       def_path);
	}
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
	OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
	OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
	OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, def_attribute);
	OTF2_ErrorCode e = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, cb, &c);
	OTF2_GlobalDefReaderCallbacks_Delete(cb);
	uint64_t n = 0;
	if (e == OTF2_SUCCESS)
		e = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
	OTF2_Reader_CloseGlobalDefReader(rd, gdr);
	if (c.nomem)
		return nl_errf(im->err, NL_ENOMEM, "out of memory");
	if (e != OTF2_SUCCESS && otf2_reason(e))
		return nl_errf(im->err, NL_ECORRUPT, "%s: corrupt or truncated global definitions: %s", def_path,
			       otf2_reason(e));
	if (e != OTF2_SUCCESS)
		return nl_errf(im->err, NL_ECORRUPT,
			       "%s: corrupt or truncated global definitions (expected a complete OTF2 .def file)", def_path);
	struct otf2_defs *d = &im->defs;
	if (d->n_strings)
		qsort(d->strings, d->n_strings, sizeof *d->strings, cmp_string);
	if (d->n_regions)
		qsort(d->regions, d->n_regions, sizeof *d->regions, cmp_region);
	map_attrs(d);
	for (uint32_t i = 0; i < d->n_regions; i++) {
		struct otf2_region *r = &d->regions[i];
		r->name_s = otf2_str(d, r->name);
		r->is_mpi = r->paradigm == OTF2_PARADIGM_MPI || !strncmp(r->name_s, "MPI_", 4);
		/* EZTrace 2 writes no creator; its regions give it away. */
		if (!strcmp(r->name_s, "EZTrace finalize"))
			d->is_eztrace = true;
	}
	if (!im->defs.ticks_per_s)
		return nl_errf(im->err, NL_EFORMAT,
			       "%s: no clock properties (expected a ClockProperties definition with a timer resolution)",
			       def_path);
	return 0;
}

/* The longest anchor path read, and so NAME and NAME.def. */
enum { OTF2_PATH_MAX = 4096 };

static int read_rank(struct otf2_import *im, OTF2_Reader *rd, const char *dir, uint32_t rank, struct o2_rank *s)
{
	uint64_t loc = im->defs.rank_loc[rank];
	char path[4096];
	snprintf(path, sizeof path, "%s/%llu.evt", dir, (unsigned long long)loc);
	NL_CHECK(check_file(im, path, "event file of a rank's location"));
	/* Local definitions carry the id mappings of the location's events. */
	snprintf(path, sizeof path, "%s/%llu.def", dir, (unsigned long long)loc);
	struct stat st;
	if (!stat(path, &st)) {
		NL_CHECK(check_file(im, path, "local definitions of a rank's location"));
		OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, loc);
		if (!dr)
			return nl_errf(im->err, NL_ECORRUPT,
				       "%s: cannot read the local definitions (expected an OTF2 .def file of location %llu)",
				       path, (unsigned long long)loc);
		uint64_t n;
		OTF2_ErrorCode e = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
		OTF2_Reader_CloseDefReader(rd, dr);
		if (e != OTF2_SUCCESS && otf2_reason(e))
			return nl_errf(im->err, NL_ECORRUPT, "%s: corrupt or truncated local definitions: %s", path,
				       otf2_reason(e));
		if (e != OTF2_SUCCESS)
			return nl_errf(im->err, NL_ECORRUPT,
				       "%s: corrupt or truncated local definitions (expected a complete OTF2 .def file of "
				       "location %llu)",
				       path, (unsigned long long)loc);
	}
	OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, loc);
	snprintf(path, sizeof path, "%s/%llu.evt", dir, (unsigned long long)loc);
	if (!er)
		return nl_errf(im->err, NL_ECORRUPT, "%s: cannot open the event file", path);
	const char *saved = im->path;
	im->path = path;
	int rc = otf2_read_rank(im, (struct OTF2_Reader_struct *)rd, (struct OTF2_EvtReader_struct *)er, rank, s);
	if (!rc && !im->defs.is_eztrace)
		rc = otf2_flush_rank(im, s);
	im->path = saved;
	OTF2_Reader_CloseEvtReader(rd, er);
	return rc;
}

/* Local definitions files are optional in OTF2, but they hold the id
 * mappings and clock offsets of their location's events: when some ranks'
 * locations have one and another's is missing, that file was lost, and
 * reading its events unmapped gives wrong communicators or times (a
 * missing 2.def of the Ember archive was reported as an unknown
 * communicator in 2.evt). */
static int check_local_defs(struct otf2_import *im, const char *dir)
{
	char path[OTF2_PATH_MAX + 32];
	struct stat st;
	uint32_t n_have = 0, first_missing = UINT32_MAX;
	for (uint32_t r = 0; r < im->defs.n_ranks; r++) {
		snprintf(path, sizeof path, "%s/%llu.def", dir, (unsigned long long)im->defs.rank_loc[r]);
		if (!stat(path, &st))
			n_have++;
		else if (first_missing == UINT32_MAX)
			first_missing = r;
	}
	if (!n_have || first_missing == UINT32_MAX)
		return 0;
	uint64_t loc = im->defs.rank_loc[first_missing];
	snprintf(path, sizeof path, "%s/%llu.def", dir, (unsigned long long)loc);
	return nl_errf(im->err, NL_ENOTFOUND,
		       "%s: file missing (expected the local definitions of rank %u's location %llu, as %u other "
		       "ranks' locations have them: they map the ids of its event file)",
		       path, first_missing, (unsigned long long)loc, n_have);
}

/* Open the archive at in_path (its anchor NAME.otf2, or a directory
 * holding traces.otf2) and read what maps its ranks: anchor[] gets the
 * anchor's path, base[] NAME, *rdp the reader (NULL until opened; the
 * caller closes it), im->defs the global definitions with the ranks'
 * locations. `each`, when not NULL, is called with the anchor (for a
 * directory given) and NAME.def before they are read (otf2_files). */
static int archive_open(struct otf2_import *im, const char *in_path, char *anchor, char *base, OTF2_Reader **rdp,
			trace_input_file_fn each, void *ctx)
{
	char path[OTF2_PATH_MAX];
	struct stat st;
	*rdp = NULL;
	snprintf(anchor, OTF2_PATH_MAX, "%s", in_path);
	if (!stat(in_path, &st) && S_ISDIR(st.st_mode)) { /* DIR holding traces.otf2 */
		snprintf(anchor, OTF2_PATH_MAX, "%s/traces.otf2", in_path);
		if (each)
			NL_CHECK(each(ctx, &(struct trace_input_file){anchor, -1, "anchor file"}));
	}
	size_t len = strlen(anchor);
	if (len < 5 || strcmp(anchor + len - 5, ".otf2") || len >= OTF2_PATH_MAX - 1)
		return nl_errf(im->err, NL_EFORMAT, "%s: expected the anchor file of an OTF2 archive (NAME.otf2)", anchor);
	NL_CHECK(check_file(im, anchor, "anchor file"));
	memcpy(base, anchor, len - 5);
	base[len - 5] = '\0';
	snprintf(path, sizeof path, "%s.def", base);
	if (each)
		NL_CHECK(each(ctx, &(struct trace_input_file){path, -1, "global definitions"}));
	NL_CHECK(check_file(im, path, "global definitions"));

	OTF2_Error_RegisterCallback(quiet_error, NULL);
	OTF2_Reader *rd = *rdp = OTF2_Reader_Open(anchor);
	if (!rd)
		return nl_errf(im->err, NL_ECORRUPT, "%s: cannot open the OTF2 anchor file (corrupt or truncated?)",
			       anchor);
	/* OTF2 allocates buffers of the anchor's chunk sizes: refuse absurd
	 * ones (Score-P writes 1 MiB and 4 MiB; OTF2 allows up to 16 MiB). */
	uint64_t ch_evt = 0, ch_def = 0;
	if (OTF2_Reader_GetChunkSize(rd, &ch_evt, &ch_def) != OTF2_SUCCESS || ch_evt < 256 || ch_def < 256 ||
	    ch_evt > (64u << 20) || ch_def > (64u << 20))
		return nl_errf(im->err, NL_ECORRUPT,
			       "%s: chunk sizes %llu and %llu bytes (expected 256 B .. 64 MiB: corrupt anchor file?)", anchor,
			       (unsigned long long)ch_evt, (unsigned long long)ch_def);
	if (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS)
		return nl_errf(im->err, NL_ECORRUPT, "%s: cannot set up the OTF2 reader", anchor);
	char *mark = NULL;
	if (OTF2_Reader_GetProperty(rd, TRACE_OTF2_PROP_EXPORT, &mark) == OTF2_SUCCESS)
		im->is_netloom = mark && !strcmp(mark, "1");
	free(mark);
	NL_CHECK(read_defs(im, rd, path));
	return map_ranks(im);
}

static int import_run(struct otf2_import *im, const char *in_path, const char *out_path,
		      const struct trace_write_opts *opts, trace_progress_fn progress, void *progress_ctx)
{
	char base[OTF2_PATH_MAX], anchor[OTF2_PATH_MAX];
	OTF2_Reader *rd;
	int rc = archive_open(im, in_path, anchor, base, &rd, NULL, NULL);
	if (!rd)
		return rc;
	in_path = anchor;
	if (!rc)
		rc = map_comms(im);
	for (uint32_t r = 0; !rc && r < im->defs.n_ranks; r++)
		if (OTF2_Reader_SelectLocation(rd, im->defs.rank_loc[r]) != OTF2_SUCCESS)
			rc = nl_errf(im->err, NL_ECORRUPT, "%s: cannot select location %llu", in_path,
				     (unsigned long long)im->defs.rank_loc[r]);
	if (!rc)
		rc = check_local_defs(im, base);
	bool def_open = false, evt_open = false;
	if (!rc) {
		def_open = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
		evt_open = OTF2_Reader_OpenEvtFiles(rd) == OTF2_SUCCESS;
		if (!evt_open)
			rc = nl_errf(im->err, NL_ECORRUPT, "%s: cannot open the event files", base);
	}
	if (!rc)
		rc = trace_builder_new(&im->b, out_path, im->defs.n_ranks, opts, im->err);
	/* Score-P: one rank at a time. EZTrace: every rank first, since an
	 * irecv's sender is inferred from the other ranks' sends. */
	uint32_t n_keep = im->defs.is_eztrace ? im->defs.n_ranks : 1;
	struct o2_rank *ranks = rc ? NULL : calloc(n_keep, sizeof *ranks);
	if (!rc && !ranks)
		rc = nl_errf(im->err, NL_ENOMEM, "out of memory");
	for (uint32_t r = 0; !rc && r < im->defs.n_ranks; r++) {
		struct o2_rank *s = &ranks[im->defs.is_eztrace ? r : 0];
		rc = read_rank(im, rd, base, r, s);
		if (!im->defs.is_eztrace) {
			otf2_rank_release(s);
			memset(s, 0, sizeof *s);
		}
		if (!rc && progress)
			progress(progress_ctx, (double)(r + 1) / im->defs.n_ranks);
	}
	if (!rc && im->defs.is_eztrace)
		rc = otf2_infer_irecvs(im, ranks, im->defs.n_ranks);
	for (uint32_t r = 0; !rc && im->defs.is_eztrace && r < im->defs.n_ranks; r++)
		rc = otf2_flush_rank(im, &ranks[r]);
	for (uint32_t r = 0; ranks && r < n_keep; r++)
		otf2_rank_release(&ranks[r]);
	free(ranks);
	if (!rc && im->fatal)
		rc = nl_errf(im->err, NL_EUNSUPPORTED,
			     "%s: %llu calls cannot be converted and dropping them changes what matches or "
			     "completes, first: %s",
			     in_path, (unsigned long long)im->fatal, im->fatal_what);
	char *creator = NULL;
	/* What netloom's export wrote as trace file properties (absent in
	 * other writers' archives: then the file name, and empty strings). */
	enum { N_PROP = 9 };
	char *prop[N_PROP] = {NULL}, *rec = NULL;
	static const char *const prop_names[N_PROP] = {
		TRACE_OTF2_PROP_APPLICATION, TRACE_OTF2_PROP_COMMAND_LINE, TRACE_OTF2_PROP_MACHINE,
		TRACE_OTF2_PROP_MPI_LIBRARY, TRACE_OTF2_PROP_HOSTS,        TRACE_OTF2_PROP_START_UNIX,
		TRACE_OTF2_PROP_RUNTIME,     TRACE_OTF2_PROP_RECORDER,     TRACE_OTF2_PROP_COMPUTE_CPU};
	if (!rc) {
		OTF2_Reader_GetCreator(rd, &creator);
		for (int i = 0; i < N_PROP; i++)
			if (OTF2_Reader_GetProperty(rd, prop_names[i], &prop[i]) != OTF2_SUCCESS)
				prop[i] = NULL;
		/* netloom's export: the original recorder first, whose name
		 * replay's count-0 rule reads (docs/replay.md), then the way
		 * the archive came. */
		const char *orig = im->is_netloom && prop[7] ? prop[7] : "";
		size_t cap = strlen(orig) + (creator ? strlen(creator) : 0) + 96;
		if (!(rec = malloc(cap)))
			rc = nl_errf(im->err, NL_ENOMEM, "out of memory");
		else if (im->is_netloom)
			snprintf(rec, cap, "%s%svia OTF2 (netloom-import-otf2 %s)", orig, *orig ? " " : "", NETLOOM_VERSION);
		else
			snprintf(rec, cap, "netloom-import-otf2 %s (%s)", NETLOOM_VERSION,
				 creator && *creator ? creator : "unknown creator");
	}
	if (!rc) {
		const char *bn = strrchr(base, '/');
		struct trace_manifest m = {
			.n_ranks = im->defs.n_ranks,
			.application = prop[0] ? prop[0] : bn ? (char *)bn + 1 : base,
			.command_line = prop[1] ? prop[1] : "",
			.machine = prop[2] ? prop[2] : "",
			.recorder = rec,
			.mpi_library = prop[3] ? prop[3] : "",
			.recorded_runtime_s = im->runtime_s,
			.n_comms = im->defs.n_nl_comms,
			.comms = im->defs.nl_comms,
		};
		unsigned h, rph, cph;
		unsigned long long su;
		double rt;
		char end;
		if (prop[5] && sscanf(prop[5], "%llu%c", &su, &end) == 1)
			m.start_unix = su;
		if (prop[6] && sscanf(prop[6], "%lf%c", &rt, &end) == 1 && rt > 0 && rt < 1e9)
			m.recorded_runtime_s = rt;
		if (prop[4] && sscanf(prop[4], "%u %u %u%c", &h, &rph, &cph, &end) == 3 && h && rph && cph) {
			m.has_host_info = true;
			m.hosts = h;
			m.ranks_per_host = rph;
			m.cores_per_host = cph;
		}
		m.has_compute_cpu = im->is_netloom && m.has_host_info && prop[8] && !strcmp(prop[8], "1");
		rc = trace_builder_finish(im->b, &m, im->err);
	}
	for (int i = 0; i < N_PROP; i++)
		free(prop[i]);
	free(rec);
	free(creator);
	if (evt_open)
		OTF2_Reader_CloseEvtFiles(rd);
	if (def_open)
		OTF2_Reader_CloseDefFiles(rd);
	OTF2_Reader_Close(rd);
	return rc;
}

static int otf2_import(const char *in_path, const char *out_path, const struct trace_write_opts *opts,
		       struct trace_skips *skips, trace_progress_fn progress, void *progress_ctx, bool *is_unwritten,
		       struct nl_err *err)
{
	struct otf2_import im = {.path = in_path, .skips = skips, .err = err};
	int rc = import_run(&im, in_path, out_path, opts, progress, progress_ctx);
	if (rc && is_unwritten && trace_builder_is_unwritten(im.b))
		*is_unwritten = true;
	trace_builder_free(im.b);
	defs_release(&im.defs);
	return rc;
}

/* The files import_run reads: the anchor (a directory given), NAME.def,
 * then each rank's location's events and its local definitions when
 * there are (read_rank). Reading the global definitions maps the ranks
 * to locations, as the import does; no events are read. */
static int otf2_files(const char *in_path, trace_input_file_fn each, void *ctx, struct nl_err *err)
{
	struct trace_skips skips = {0};
	struct otf2_import im = {.path = in_path, .skips = &skips, .err = err};
	char anchor[OTF2_PATH_MAX], base[OTF2_PATH_MAX], path[OTF2_PATH_MAX + 32];
	OTF2_Reader *rd;
	int rc = archive_open(&im, in_path, anchor, base, &rd, each, ctx);
	for (uint32_t r = 0; !rc && r < im.defs.n_ranks; r++) {
		unsigned long long loc = im.defs.rank_loc[r];
		snprintf(path, sizeof path, "%s/%llu.evt", base, loc);
		rc = each(ctx, &(struct trace_input_file){path, r, "events"});
		snprintf(path, sizeof path, "%s/%llu.def", base, loc);
		struct stat st;
		if (!rc && !stat(path, &st))
			rc = each(ctx, &(struct trace_input_file){path, r, "definitions"});
	}
	if (rd)
		OTF2_Reader_Close(rd);
	defs_release(&im.defs);
	trace_skips_release(&skips);
	return rc;
}

const struct trace_importer_ops trace_import_otf2_ops = {
	.name = "otf2",
	.help = "OTF2 archive (Score-P, EZTrace): the anchor file NAME.otf2, NAME.def and NAME/ beside it",
	.probe = trace_otf2_probe,
	.import = otf2_import,
	.files = otf2_files,
};
