/* anynet: "anynet:file=PATH", BookSim2's arbitrary network read from its
 * own network_file format (networks/anynet.cpp; examples/anynet/README).
 *
 * Format: one line per router (or node), tokens separated by blanks:
 *   router R  [node N [LAT]]...  [router S [LAT]]...   (any order, mixed)
 *   node N router R
 "router R ... node N" attaches endpoint N to router R; "router R ...
 * router S LAT" is the channel R -> S of LAT cycles (default 1) and
 * implies S -> R of 1 cycle unless that direction is given too. As in
 * BookSim, each mention sets the latency anew (the last one wins, 1 when
 * it has no LAT), an implied reverse channel never overrides a given one,
 * and the head id of a line is a router id even on a "node N" line. Node
 * channels (injection, ejection) are always 1 cycle: BookSim files a LAT
 * after "node N" on router R's line under the router-to-router entry
 * R -> N, so it sets the latency of R's channel to *router* N (its source
 * comment says otherwise; its code, and its printed channel list, do
 * this), which netloom repeats, and refuses when R and N are not linked
 * (BookSim would build a one-way channel). '#' starts a comment (an
 * extension; BookSim has none).
 *
 * Numbering is BookSim's, so traffic patterns and routes are the same:
 * router ids are 0..R-1 (BookSim indexes its routers by id) and node ids
 * 0..N-1 (its traffic manager assumes it); endpoint e is BookSim's node e.
 * Router R's ports are its nodes in increasing id, then its neighbour
 * routers in increasing id (BookSim's _BuildNet adds its channels in
 * that order). Every channel's latency is published through link_latency
 * (TOPO_F_LINK_LATENCY: always applied, not only with noc_latency).
 *
 * Refused, with PATH:LINE and what was expected (BookSim asserts, crashes
 * or hangs on them): unknown words, non-integer ids or latencies, a
 * latency outside 1..65535, after "node N router R" (BookSim files it
 * under a bogus entry) or after "node N" on a router's line whose router
 * N is not its neighbour, node-to-node links, self-links, a node on two
 * routers, gaps in the ids, and a disconnected router graph.
 */
#include "topo/topo_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/text.h"

struct anynet_params {
	char file[PARAM_STR_MAX]; /* BookSim network_file */
};

static const struct param_def anynet_params_def[] = {
	{"file", PARAM_PATH, offsetof(struct anynet_params, file), NULL, 0, 0,
	 "BookSim2 anynet network_file: 'router R node N ... router S [LAT] ...' per line", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

#define ANYNET_MAX_ID (1u << 24)

struct anynet_state {
	uint16_t *lat; /* [n_ports] cycles of the channel leaving each port */
};

/* How a mention names a directed channel a -> b. */
enum {
	ANYNET_ROUTER,  /* "router a ... router b [LAT]": creates it, latency LAT or 1 */
	ANYNET_IMPLIED, /* the reverse of one: creates it (1 cycle) only when absent */
	ANYNET_NODE_LAT /* "router a ... node b LAT": BookSim sets the latency of router
			 * a's channel to *router* b, creating nothing */
};

/* One mention of a directed channel a -> b, in file order (seq). */
struct anynet_link {
	uint32_t a, b;
	uint32_t lat;  /* cycles (ANYNET_IMPLIED: unused) */
	uint32_t seq;
	uint32_t kind; /* ANYNET_* */
	unsigned line;
};

/* Growable arrays indexed by id. */
struct anynet_parse {
	const char *path;
	uint32_t *node_router; /* [cap_nodes] router of node, UINT32_MAX = none */
	unsigned *node_line;   /* [cap_nodes] line of the node's last mention */
	uint32_t cap_nodes, n_nodes;
	unsigned *router_line; /* [cap_routers] first line naming the router, 0 = none */
	uint32_t cap_routers, n_routers;
	struct anynet_link *links;
	size_t n_links, cap_links;
	/* Ids 0..n-1 must each be a word of the file, and a file of S bytes
	 * holds at most (S + 1) / 2 words: a larger id is a gap, refused
	 * before the arrays above grow to it (a one-line file naming router
	 * 16777215 filled 128 MB first). UINT64_MAX when the size is not
	 * known (not a regular file). */
	uint64_t id_bound, file_bytes;
};

static int anynet_grow(void **p, uint32_t *cap, uint32_t need, size_t elem, int fill)
{
	if (need <= *cap)
		return 0;
	uint32_t nc = *cap ? *cap : 64;
	while (nc < need)
		nc *= 2;
	void *q = realloc(*p, (size_t)nc * elem);
	if (!q)
		return NL_ENOMEM;
	memset((char *)q + (size_t)*cap * elem, fill, (size_t)(nc - *cap) * elem);
	*p = q;
	*cap = nc;
	return 0;
}

static int anynet_router_seen(struct anynet_parse *ps, uint32_t r, unsigned line)
{
	uint32_t cap = ps->cap_routers;
	if (anynet_grow((void **)&ps->router_line, &cap, r + 1, sizeof *ps->router_line, 0) < 0)
		return NL_ENOMEM;
	ps->cap_routers = cap;
	if (!ps->router_line[r])
		ps->router_line[r] = line;
	if (r + 1 > ps->n_routers)
		ps->n_routers = r + 1;
	return 0;
}

static int anynet_node_attach(const struct topo *t, struct anynet_parse *ps, uint32_t node, uint32_t r,
			      unsigned line, struct nl_err *err)
{
	uint32_t cap = ps->cap_nodes, c2 = cap;
	if (anynet_grow((void **)&ps->node_router, &cap, node + 1, sizeof *ps->node_router, 0xff) < 0 ||
	    anynet_grow((void **)&ps->node_line, &c2, node + 1, sizeof *ps->node_line, 0) < 0)
		return nl_errf(err, NL_ENOMEM, "out of memory reading '%s'", ps->path);
	ps->cap_nodes = cap;
	if (ps->node_router[node] != UINT32_MAX && ps->node_router[node] != r)
		return topo_errf(t, err, NL_EFORMAT,
				 "%s:%u: node %u attached to router %u, but line %u attached it to router %u; expected "
				 "each node on one router",
				 ps->path, line, node, r, ps->node_line[node], ps->node_router[node]);
	ps->node_router[node] = r;
	ps->node_line[node] = line;
	if (node + 1 > ps->n_nodes)
		ps->n_nodes = node + 1;
	return 0;
}

static int anynet_link_add(struct anynet_parse *ps, uint32_t a, uint32_t b, uint32_t lat, uint32_t kind,
			   unsigned line)
{
	if (ps->n_links == ps->cap_links) {
		size_t nc = ps->cap_links ? ps->cap_links * 2 : 256;
		struct anynet_link *l = realloc(ps->links, nc * sizeof *l);
		if (!l)
			return NL_ENOMEM;
		ps->links = l;
		ps->cap_links = nc;
	}
	ps->links[ps->n_links] = (struct anynet_link){a, b, lat, (uint32_t)ps->n_links, kind, line};
	ps->n_links++;
	return 0;
}

/* A non-negative decimal integer below `limit`, or -1. */
static int64_t anynet_int(const char *tok, uint64_t limit)
{
	char *end;
	if (tok[0] < '0' || tok[0] > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(tok, &end, 10);
	if (*end || errno || v >= limit)
		return -1;
	return (int64_t)v;
}

static int anynet_cmp_link(const void *x, const void *y)
{
	const struct anynet_link *a = x, *b = y;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The id after the word `what` ("router" or "node"), or an error code. */
static int64_t anynet_id(const struct topo *t, const struct anynet_parse *ps, unsigned line, const char *what,
			 const char *tok, struct nl_err *err)
{
	int64_t id = anynet_int(tok, ANYNET_MAX_ID);
	if (id < 0)
		return topo_errf(t, err, NL_EFORMAT, "%s:%u: %s id '%s'; expected an integer 0..%u", ps->path, line, what,
				 tok, ANYNET_MAX_ID - 1);
	if ((uint64_t)id >= ps->id_bound)
		return topo_errf(t, err, NL_EFORMAT,
				 "%s:%u: %s id %lld, but the file's %llu bytes can name at most %llu ids; expected %s ids "
				 "0..n-1 without gaps",
				 ps->path, line, what, (long long)id, (unsigned long long)ps->file_bytes,
				 (unsigned long long)ps->id_bound, what);
	return id;
}

/* Parse one line's tokens (tok[0..nt-1]). */
static int anynet_line(const struct topo *t, struct anynet_parse *ps, unsigned line, char **tok, int nt,
		       struct nl_err *err)
{
	const char *path = ps->path;
	bool head_router;
	if (!strcmp(tok[0], "router"))
		head_router = true;
	else if (!strcmp(tok[0], "node"))
		head_router = false;
	else
		return topo_errf(t, err, NL_EFORMAT, "%s:%u: unknown word '%s'; expected a line starting 'router' or 'node'",
				 path, line, tok[0]);
	if (nt < 2)
		return topo_errf(t, err, NL_EFORMAT, "%s:%u: '%s' without an id; expected '%s ID'", path, line, tok[0],
				 tok[0]);
	int64_t head = anynet_id(t, ps, line, tok[0], tok[1], err);
	if (head < 0)
		return (int)head;
	/* BookSim makes the head id of every line a router, "node N" too. */
	if (anynet_router_seen(ps, (uint32_t)head, line) < 0)
		return nl_errf(err, NL_ENOMEM, "out of memory reading '%s'", path);
	bool body_router = false, have_body = false, lat_set = false;
	int64_t body = -1;
	for (int i = 2; i < nt; i++) {
		const char *w = tok[i];
		if (!strcmp(w, "router") || !strcmp(w, "node")) {
			body_router = w[0] == 'r';
			if (i + 1 >= nt)
				return topo_errf(t, err, NL_EFORMAT, "%s:%u: '%s' without an id at the end of the line; expected '%s ID'",
						 path, line, w, w);
			body = anynet_id(t, ps, line, w, tok[++i], err);
			if (body < 0)
				return (int)body;
			have_body = true;
			lat_set = false;
			uint32_t b = (uint32_t)body, h = (uint32_t)head;
			int rc = 0;
			if (!head_router && !body_router)
				return topo_errf(t, err, NL_EFORMAT, "%s:%u: node %u linked to node %u; expected a node on a router",
						 path, line, h, b);
			if (head_router && body_router) {
				if (h == b)
					return topo_errf(t, err, NL_EFORMAT, "%s:%u: router %u linked to itself; expected another router",
							 path, line, h);
				if (anynet_router_seen(ps, b, line) < 0 || anynet_link_add(ps, h, b, 1, ANYNET_ROUTER, line) < 0 ||
				    anynet_link_add(ps, b, h, 0, ANYNET_IMPLIED, line) < 0)
					return nl_errf(err, NL_ENOMEM, "out of memory reading '%s'", path);
			} else if (head_router) {
				rc = anynet_node_attach(t, ps, b, h, line, err);
			} else {
				if (anynet_router_seen(ps, b, line) < 0)
					return nl_errf(err, NL_ENOMEM, "out of memory reading '%s'", path);
				rc = anynet_node_attach(t, ps, h, b, line, err);
			}
			if (rc < 0)
				return rc;
			continue;
		}
		int64_t lat = anynet_int(w, 65536);
		if (lat < 0 && w[0] >= '0' && w[0] <= '9')
			return topo_errf(t, err, NL_EFORMAT, "%s:%u: latency '%s'; expected 1..65535 cycles", path, line, w);
		if (lat < 0)
			return topo_errf(t, err, NL_EFORMAT, "%s:%u: unknown word '%s'; expected 'router ID', 'node ID' or a latency",
					 path, line, w);
		if (!have_body)
			return topo_errf(t, err, NL_EFORMAT, "%s:%u: latency '%s' before any link; expected 'router ID' or 'node ID'",
					 path, line, w);
		if (lat_set)
			return topo_errf(t, err, NL_EFORMAT, "%s:%u: second latency '%s' for one link; expected 'router ID' or 'node ID'",
					 path, line, w);
		if (lat == 0)
			return topo_errf(t, err, NL_EFORMAT, "%s:%u: latency '0'; expected 1..65535 cycles", path, line);
		if (!head_router)
			return topo_errf(t, err, NL_EFORMAT,
					 "%s:%u: latency '%s' after 'node %lld router %lld' (BookSim files it under a bogus entry); "
					 "expected it on the router's line: 'router %lld node %lld %s'",
					 path, line, w, (long long)head, (long long)body, (long long)body, (long long)head, w);
		lat_set = true;
		if (body_router)
			ps->links[ps->n_links - 2].lat = (uint32_t)lat;
		else if (anynet_link_add(ps, (uint32_t)head, (uint32_t)body, (uint32_t)lat, ANYNET_NODE_LAT, line) < 0)
			return nl_errf(err, NL_ENOMEM, "out of memory reading '%s'", path);
	}
	return 0;
}

static void anynet_release(struct topo *t)
{
	struct anynet_state *s = t->state;
	if (s) {
		free(s->lat);
		s->lat = NULL;
	}
}

/* The network_file opened, '-' and a directory refused by name (as
 * graph's); ps->id_bound from its size. */
static int anynet_open(struct topo *t, struct anynet_parse *ps, FILE **out, struct nl_err *err)
{
	const char *path = ps->path;
	struct nl_err named;
	if (nl_input_named(path, "BookSim anynet network_file", NL_EIO, &named) < 0)
		return topo_errf(t, err, NL_EIO, "parameter 'file': %s", named.msg);
	FILE *f = fopen(path, "r");
	if (!f)
		return topo_errf(t, err, NL_EIO, "parameter 'file': cannot open '%s': %s; expected a BookSim anynet network_file",
				 path, strerror(errno));
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fclose(f);
		return topo_errf(t, err, NL_EIO, "parameter 'file': '%s' is a directory; expected a BookSim anynet "
				 "network_file", path);
	}
	ps->id_bound = UINT64_MAX;
	if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode))
		ps->id_bound = ((ps->file_bytes = (uint64_t)sb.st_size) + 1) / 2;
	*out = f;
	return 0;
}

/* Every line of f into ps (anynet_line). */
static int anynet_read(struct topo *t, struct anynet_parse *ps, FILE *f, struct nl_err *err)
{
	char *buf = NULL, **tok = NULL;
	size_t bufcap = 0, tokcap = 0;
	unsigned line = 0;
	int rc = 0;
	ssize_t len;
	while (rc == 0 && (len = text_getline(&buf, &bufcap, f)) >= 0) {
		char *save = NULL;
		int nt = 0;
		line++;
		/* A line of len bytes has at most len / 2 + 1 words. */
		if ((size_t)len / 2 + 1 > tokcap) {
			char **nt2 = realloc(tok, ((size_t)len / 2 + 1) * sizeof *tok);
			if (!nt2) {
				rc = nl_errf(err, NL_ENOMEM, "out of memory reading '%s'", ps->path);
				break;
			}
			tok = nt2;
			tokcap = (size_t)len / 2 + 1;
		}
		/* The string functions below would stop at a NUL and drop the rest. */
		if (memchr(buf, '\0', (size_t)len)) {
			rc = topo_errf(t, err, NL_EFORMAT, "%s:%u: unexpected NUL byte; expected a text file", ps->path, line);
			break;
		}
		/* A byte order mark made the first word "unknown word
		 * 'router'". */
		char *text = line == 1 ? buf + text_bom_len(buf, (size_t)len) : buf;
		char *hash = strchr(text, '#');
		if (hash)
			*hash = '\0';
		for (char *w = strtok_r(text, " \t\r\n\v\f", &save); w; w = strtok_r(NULL, " \t\r\n\v\f", &save))
			tok[nt++] = w;
		if (nt)
			rc = anynet_line(t, ps, line, tok, nt, err);
	}
	free(buf);
	free(tok);
	if (rc == 0 && ferror(f))
		rc = topo_errf(t, err, NL_EIO, "%s: read error: %s", ps->path, strerror(errno));
	return rc;
}

/* Some router and node, and their ids without gaps. */
static int anynet_check_ids(struct topo *t, const struct anynet_parse *ps, struct nl_err *err)
{
	uint32_t R = ps->n_routers, N = ps->n_nodes;
	if (R == 0 || N == 0)
		return topo_errf(t, err, NL_EFORMAT, "%s: %s; expected lines 'router R node N ... router S ...'", ps->path,
				 R ? "no nodes" : "no routers");
	for (uint32_t r = 0; r < R; r++)
		if (!ps->router_line[r])
			return topo_errf(t, err, NL_EFORMAT,
					 "%s: router %u is missing; expected router ids 0..%u without gaps (largest %u, line %u)",
					 ps->path, r, R - 1, R - 1, ps->router_line[R - 1]);
	for (uint32_t e = 0; e < N; e++)
		if (ps->node_router[e] == UINT32_MAX)
			return topo_errf(t, err, NL_EFORMAT,
					 "%s: node %u is missing; expected node ids 0..%u without gaps (largest %u, line %u)",
					 ps->path, e, N - 1, N - 1, ps->node_line[N - 1]);
	return 0;
}

/* Directed channels into dl[0..*n_dl), sorted by (a, b): the last
 * explicit mention of a -> b sets its latency; an implied reverse (lat 0)
 * only creates it, 1 cycle. A latency after 'node N' on a router's line
 * belongs to a channel to router N, which must exist. */
static int anynet_channels(struct topo *t, struct anynet_parse *ps, struct anynet_link *dl, size_t *n_dl,
			   struct nl_err *err)
{
	if (ps->n_links) /* a lone router has none: qsort's array must not be NULL */
		qsort(ps->links, ps->n_links, sizeof *ps->links, anynet_cmp_link);
	*n_dl = 0;
	for (size_t i = 0; i < ps->n_links;) {
		size_t j = i;
		uint32_t lat = 1;
		bool exists = false;
		const struct anynet_link *nl = NULL;
		for (; j < ps->n_links && ps->links[j].a == ps->links[i].a && ps->links[j].b == ps->links[i].b; j++) {
			const struct anynet_link *l = &ps->links[j];
			exists |= l->kind != ANYNET_NODE_LAT;
			if (l->kind != ANYNET_IMPLIED)
				lat = l->lat;
			if (l->kind == ANYNET_NODE_LAT && !nl)
				nl = l;
		}
		if (!exists)
			return topo_errf(t, err, NL_EFORMAT,
					 "%s:%u: latency %u after 'node %u' on router %u's line: BookSim gives it to the "
					 "channel router %u -> router %u (node channels are always 1 cycle), and the two are "
					 "not linked; expected a latency after 'router ID'",
					 ps->path, nl->line, nl->lat, nl->b, nl->a, nl->a, nl->b);
		dl[*n_dl] = ps->links[i];
		dl[(*n_dl)++].lat = lat;
		i = j;
	}
	return 0;
}

/* The routers with their nodes (in increasing id) and channels, and each
 * port's latency. Every a -> b has b -> a (the reverse is implied), so
 * dl, sorted by (a, b), gives each router its neighbours in increasing
 * id, and its port toward each. */
static int anynet_wire(struct topo *t, const struct anynet_parse *ps, const struct anynet_link *dl, size_t n_dl,
		       struct nl_err *err)
{
	struct anynet_state *st = t->state;
	uint32_t R = ps->n_routers, N = ps->n_nodes;
	uint32_t *deg = calloc(R, sizeof *deg), *next = calloc(R, sizeof *next);
	uint32_t *nbr_base = calloc((size_t)R + 1, sizeof *nbr_base);
	int rc = 0;
	if (!deg || !next || !nbr_base) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory reading '%s'", ps->path);
		goto out;
	}
	for (size_t i = 0; i < n_dl; i++)
		nbr_base[dl[i].a + 1]++;
	for (uint32_t r = 0; r < R; r++)
		nbr_base[r + 1] += nbr_base[r];
	for (uint32_t e = 0; e < N; e++)
		deg[ps->node_router[e]]++;
	for (uint32_t r = 0; r < R; r++)
		deg[r] += nbr_base[r + 1] - nbr_base[r];
	for (uint32_t r = 0; r < R; r++)
		if (deg[r] > 65535) {
			rc = topo_errf(t, err, NL_ERANGE, "%s: router %u has %u ports; expected at most 65535", ps->path, r,
				       deg[r]);
			goto out;
		}
	if ((rc = topo_alloc(t, R, deg, 0, N, err)) < 0)
		goto out;
	st->lat = calloc(t->n_ports, sizeof *st->lat);
	if (!st->lat) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory reading '%s'", ps->path);
		goto out;
	}
	for (uint32_t e = 0; e < N; e++) { /* nodes in increasing id per router */
		uint32_t r = ps->node_router[e], p = next[r]++;
		topo_attach(t, e, r, p);
		st->lat[t->port_base[r] + p] = 1; /* BookSim's node channels: always 1 */
	}
	for (size_t i = 0; i < n_dl; i++) {
		uint32_t a = dl[i].a, b = dl[i].b;
		uint32_t pa = next[a] + (uint32_t)(i - nbr_base[a]);
		st->lat[t->port_base[a] + pa] = (uint16_t)dl[i].lat;
		if (a > b)
			continue;
		/* b's entry for a: binary search in b's sorted neighbours. */
		uint32_t lo = nbr_base[b], hi = nbr_base[b + 1];
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (dl[mid].b < a)
				lo = mid + 1;
			else
				hi = mid;
		}
		NL_ASSERT(lo < nbr_base[b + 1] && dl[lo].b == a);
		topo_connect(t, a, pa, b, next[b] + (lo - nbr_base[b]));
	}
out:
	free(deg);
	free(next);
	free(nbr_base);
	return rc;
}

/* Every router reached from router 0: BookSim's routing table needs a
 * connected network. */
static int anynet_check_connected(struct topo *t, const struct anynet_parse *ps, struct nl_err *err)
{
	uint32_t R = ps->n_routers, *dist = malloc((size_t)R * sizeof *dist), *queue = malloc((size_t)R * sizeof *queue);
	int rc = 0;
	if (!dist || !queue) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory reading '%s'", ps->path);
		goto out;
	}
	topo_bfs(t, 0, dist, queue);
	for (uint32_t r = 0; r < R; r++)
		if (dist[r] == UINT32_MAX) {
			rc = topo_errf(t, err, NL_EFORMAT,
				       "%s:%u: router %u cannot be reached from router 0; expected a connected network "
				       "(BookSim's routing table needs one)",
				       ps->path, ps->router_line[r], r);
			break;
		}
out:
	free(dist);
	free(queue);
	return rc;
}

static int anynet_build(struct topo *t, struct nl_err *err)
{
	const struct anynet_params *pr = t->params;
	struct anynet_parse ps = {.path = pr->file};
	struct anynet_link *dl = NULL;
	size_t n_dl = 0;
	FILE *f = NULL;
	int rc = anynet_open(t, &ps, &f, err);
	if (rc < 0)
		return rc;
	if ((rc = anynet_read(t, &ps, f, err)) == 0 && (rc = anynet_check_ids(t, &ps, err)) == 0) {
		dl = malloc((ps.n_links ? ps.n_links : 1) * sizeof *dl);
		if (!dl)
			rc = nl_errf(err, NL_ENOMEM, "out of memory reading '%s'", pr->file);
		else if ((rc = anynet_channels(t, &ps, dl, &n_dl, err)) == 0 &&
			 (rc = anynet_wire(t, &ps, dl, n_dl, err)) == 0)
			rc = anynet_check_connected(t, &ps, err);
	}
	fclose(f);
	free(ps.node_router);
	free(ps.node_line);
	free(ps.router_line);
	free(ps.links);
	free(dl);
	if (rc < 0)
		anynet_release(t);
	return rc;
}

static int anynet_link_latency(const struct topo *t, uint16_t *lat, struct nl_err *err)
{
	const struct anynet_state *s = t->state;
	(void)err;
	memcpy(lat, s->lat, (size_t)t->n_ports * sizeof *lat);
	return 0;
}

const struct topo_ops topo_anynet_ops = {
	.name = "anynet",
	.help = "BookSim2's anynet: routers, nodes and per-direction channel latencies from its network_file",
	.params = anynet_params_def,
	.params_size = sizeof(struct anynet_params),
	.state_size = sizeof(struct anynet_state),
	.flags = TOPO_F_LINK_LATENCY,
	.build = anynet_build,
	.release = anynet_release,
	.link_latency = anynet_link_latency,
};
