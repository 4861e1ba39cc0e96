/* graph: "graph:file=PATH[,p=1][,labels=0]", an arbitrary router graph read
 * from an edge-list file.
 *
 * Format: one link per line, "a b" (two router ids separated by blanks);
 * '#' starts a comment to the end of the line; blank lines are ignored.
 * After the comment line "# router_a router_b parallel_links" (the column
 * line 'netloom topo export --format edgelist' writes, so its output reads
 * back) a line may also be "a b w", w parallel links (a positive integer),
 * or "a" alone, a router without links: the export writes "0" for a
 * one-router network (a crossbar), which has no link to name its router.
 * Without that line a third field is an error, as it always was: a stray
 * number is not silently taken for a link count.
 * With labels=0 (the default) ids are the integers 0..n-1, every one of
 * which must appear; with labels=1 ids are arbitrary words, numbered 0, 1,
 * ... in order of first appearance. A repeated pair is a parallel (trunked)
 * link; a self-loop is an error; the graph must be connected. Errors name
 * PATH:LINE.
 *
 * Ports: router r's network ports are numbered in the order its links
 * appear in the file, then its p terminal ports; endpoints router-major.
 * No closed-form distance (BFS) and no known symmetry.
 */
#include "topo/topo_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/text.h"

/* The export's column line: after it, "a b w" lines carry link counts. */
#define GRAPH_COUNT_HEADER "router_a router_b parallel_links"

struct graph_params {
	char file[PARAM_STR_MAX]; /* edge-list path */
	int64_t p;                /* endpoints per router */
	bool labels;              /* ids are words numbered by first appearance */
};

static const struct param_def graph_params_def[] = {
	{"file", PARAM_PATH, offsetof(struct graph_params, file), NULL, 0, 0,
	 "edge-list file: one 'a b' router pair per line ('a b links' after '# " GRAPH_COUNT_HEADER "'), '#' comments", NULL},
	{"p", PARAM_INT, offsetof(struct graph_params, p), "1", 0, 65536, "endpoints per router", NULL},
	{"labels", PARAM_BOOL, offsetof(struct graph_params, labels), "0", 0, 0,
	 "router ids are arbitrary words numbered in order of first appearance (default: integers 0..n-1)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

#define GRAPH_MAX_ROUTERS (1u << 30)
#define GRAPH_MAX_LINKS (1u << 28)
#define GRAPH_MAX_PARALLEL 65536u /* parallel links on one line, as many as a router's ports could be */

/* Word -> id map (open addressing); ids in order of first insertion. */
struct graph_names {
	char **word;  /* [cap] owned, NULL = empty */
	uint32_t *id; /* [cap] */
	size_t cap, n;
};

static uint64_t graph_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void graph_names_release(struct graph_names *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->word[i]);
	free(m->word);
	free(m->id);
}

static int graph_names_resize(struct graph_names *m, size_t cap)
{
	char **word = calloc(cap, sizeof *word);
	uint32_t *id = calloc(cap, sizeof *id);
	if (!word || !id) {
		free(word);
		free(id);
		return NL_ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->word[i])
			continue;
		size_t j = (size_t)graph_hash(m->word[i]) & (cap - 1);
		while (word[j])
			j = (j + 1) & (cap - 1);
		word[j] = m->word[i];
		id[j] = m->id[i];
	}
	free(m->word);
	free(m->id);
	m->word = word;
	m->id = id;
	m->cap = cap;
	return 0;
}

/* Id of `w`, inserting it with the next id when new; negative on OOM. */
static int64_t graph_names_get(struct graph_names *m, const char *w)
{
	if ((m->n + 1) * 2 > m->cap && graph_names_resize(m, m->cap ? m->cap * 2 : 64) < 0)
		return NL_ENOMEM;
	size_t j = (size_t)graph_hash(w) & (m->cap - 1);
	while (m->word[j] && strcmp(m->word[j], w))
		j = (j + 1) & (m->cap - 1);
	if (m->word[j])
		return m->id[j];
	m->word[j] = strdup(w);
	if (!m->word[j])
		return NL_ENOMEM;
	m->id[j] = (uint32_t)m->n++;
	return m->id[j];
}

/* The word numbered `id` (for messages). */
static const char *graph_names_word(const struct graph_names *m, uint32_t id)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->word[i] && m->id[i] == id)
			return m->word[i];
	return "?";
}

static int graph_parse_id(const struct topo *t, const char *path, unsigned line, const char *tok, bool labels,
			  struct graph_names *names, uint32_t *out, struct nl_err *err)
{
	if (labels) {
		int64_t id = graph_names_get(names, tok);
		if (id < 0)
			return nl_errf(err, NL_ENOMEM, "out of memory");
		if (id >= GRAPH_MAX_ROUTERS)
			return topo_errf(t, err, NL_ERANGE,
					 "%s:%u: router '%s' is router number 2^30 + 1; expected at most 2^30 routers", path,
					 line, tok);
		*out = (uint32_t)id;
		return 0;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(tok, &end, 10);
	if (tok[0] == '-' || tok[0] == '+' || *end || errno || end == tok)
		return topo_errf(t, err, NL_EFORMAT,
				 "%s:%u: router id '%s' is not an integer 0..n-1 (labels=1 reads arbitrary names)", path,
				 line, tok);
	if (v >= GRAPH_MAX_ROUTERS)
		return topo_errf(t, err, NL_ERANGE,
				 "%s:%u: router id '%s' is past the largest, %u; expected ids 0..n-1 of at most 2^30 "
				 "routers",
				 path, line, tok, GRAPH_MAX_ROUTERS - 1);
	*out = (uint32_t)v;
	return 0;
}

/* Is the comment text `c` (after its '#') the column line? */
static bool graph_is_count_header(const char *c)
{
	static const char *const words[] = {"router_a", "router_b", "parallel_links"};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		size_t n = strlen(words[i]);
		c += strspn(c, " \t");
		if (strncmp(c, words[i], n))
			return false;
		c += n;
	}
	return c[strspn(c, " \t\r\n")] == '\0';
}

/* The optional third field, the number of parallel links on the line. */
static int graph_parse_count(const struct topo *t, const char *path, unsigned line, const char *tok, uint32_t *out,
			     struct nl_err *err)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(tok, &end, 10);
	if (tok[0] == '-' || tok[0] == '+' || *end || errno || end == tok || v == 0 || v > GRAPH_MAX_PARALLEL)
		return topo_errf(t, err, NL_EFORMAT, "%s:%u: link count '%s' is not an integer 1..%u (the third field of 'a b links')",
				 path, line, tok, GRAPH_MAX_PARALLEL);
	*out = (uint32_t)v;
	return 0;
}

/* Appends w copies of the link a-b to ends[] (2 ids per link). */
static int graph_push_links(const struct topo *t, const char *path, unsigned line, uint32_t **ends, size_t *n_links,
			    size_t *cap_links, uint32_t a, uint32_t b, uint32_t w, struct nl_err *err)
{
	/* Link counts make a short file describe a huge graph: bound it before
	 * allocating (router ports are 32-bit). */
	if (*n_links + w > GRAPH_MAX_LINKS)
		return topo_errf(t, err, NL_ERANGE, "%s:%u: more than %u links in all", path, line, GRAPH_MAX_LINKS);
	while (*n_links + w > *cap_links) {
		size_t cap = *cap_links ? *cap_links * 2 : 1024;
		uint32_t *e2 = realloc(*ends, cap * 2 * sizeof **ends);
		if (!e2)
			return nl_errf(err, NL_ENOMEM, "out of memory reading '%s'", path);
		*ends = e2;
		*cap_links = cap;
	}
	for (uint32_t k = 0; k < w; k++) {
		(*ends)[2 * *n_links] = a;
		(*ends)[2 * *n_links + 1] = b;
		(*n_links)++;
	}
	return 0;
}

/* An edge list as read: its links and routers. */
struct graph_edges {
	const char *path;
	uint32_t *ends; /* a, b of each link */
	size_t n_links, cap_links;
	uint32_t n; /* routers: the largest id + 1 */
	struct graph_names names;
};

/* The edge list opened, '-' and a directory refused by name. */
static int graph_open(struct topo *t, const char *path, FILE **out, struct nl_err *err)
{
	/* '-' (standard input, as results' '-' is standard output) read as
	 * "cannot open '-': No such file or directory". */
	struct nl_err named;
	if (nl_input_named(path, "graph edge list", NL_EIO, &named) < 0)
		return topo_errf(t, err, NL_EIO, "parameter 'file': %s", named.msg);
	FILE *f = fopen(path, "r");
	if (!f)
		return topo_errf(t, err, NL_EIO, "parameter 'file': cannot open '%s': %s", path, strerror(errno));
	/* fopen opens a directory, whose first read fails: that said
	 * "d: read error: Is a directory", unlike a missing file. */
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return topo_errf(t, err, NL_EIO, "parameter 'file': '%s' is a directory; expected a graph edge list",
				 path);
	}
	*out = f;
	return 0;
}

/* One line's fields (nt of them, the first three in tok): 'a b', 'a b
 * links' after the count header, or a lone router 'a'. */
static int graph_take_line(struct topo *t, const struct graph_params *pr, struct graph_edges *g, unsigned line,
			   char **tok, int nt, bool has_counts, struct nl_err *err)
{
	const char *path = g->path;
	int rc;
	if (nt > 3 && has_counts)
		return topo_errf(t, err, NL_EFORMAT,
				 "%s:%u: expected 'a b' or 'a b links', got %d fields (two router ids, then "
				 "an optional count of parallel links; or one id, a router without links)",
				 path, line, nt);
	if (nt != 2 && !has_counts)
		return topo_errf(t, err, NL_EFORMAT,
				 "%s:%u: expected two router ids 'a b', got %d field%s (a link count as a third field "
				 "is read after the line '# %s', as netloom's edgelist export writes)",
				 path, line, nt, nt == 1 ? "" : "s", GRAPH_COUNT_HEADER);
	uint32_t a, b, w = 1;
	if (nt == 1) {
		NL_CHECK(graph_parse_id(t, path, line, tok[0], pr->labels, &g->names, &a, err));
		g->n = a + 1 > g->n ? a + 1 : g->n;
		return 0;
	}
	if ((rc = graph_parse_id(t, path, line, tok[0], pr->labels, &g->names, &a, err)) < 0 ||
	    (rc = graph_parse_id(t, path, line, tok[1], pr->labels, &g->names, &b, err)) < 0 ||
	    (nt == 3 && (rc = graph_parse_count(t, path, line, tok[2], &w, err)) < 0))
		return rc;
	if (a == b)
		return topo_errf(t, err, NL_EFORMAT, "%s:%u: self-loop on router '%s' (a link joins two different routers)",
				 path, line, tok[0]);
	NL_CHECK(graph_push_links(t, path, line, &g->ends, &g->n_links, &g->cap_links, a, b, w, err));
	if (a + 1 > g->n)
		g->n = a + 1;
	if (b + 1 > g->n)
		g->n = b + 1;
	return 0;
}

/* Every line of f into g. */
static int graph_read(struct topo *t, const struct graph_params *pr, FILE *f, struct graph_edges *g,
		      struct nl_err *err)
{
	char *buf = NULL;
	size_t bufcap = 0;
	unsigned line = 0;
	bool has_counts = false;
	int rc = 0;
	ssize_t len;
	while (rc == 0 && (len = text_getline(&buf, &bufcap, f)) >= 0) {
		char *tok[3], *save = NULL;
		int nt = 0;
		line++;
		/* The string functions below would stop at a NUL and drop the rest. */
		if (memchr(buf, '\0', (size_t)len)) {
			rc = topo_errf(t, err, NL_EFORMAT, "%s:%u: unexpected NUL byte; expected a text file", g->path, line);
			break;
		}
		/* A byte order mark was read into the first id ("router id
		 * '0' is not an integer"). */
		char *text = line == 1 ? buf + text_bom_len(buf, (size_t)len) : buf;
		char *hash = strchr(text, '#');
		if (hash) {
			has_counts = has_counts || graph_is_count_header(hash + 1);
			*hash = '\0';
		}
		for (char *w = strtok_r(text, " \t\r\n\v\f", &save); w; w = strtok_r(NULL, " \t\r\n\v\f", &save))
			if (nt < 3)
				tok[nt++] = w;
			else
				nt++;
		if (nt > 0)
			rc = graph_take_line(t, pr, g, line, tok, nt, has_counts, err);
	}
	free(buf);
	if (rc == 0 && ferror(f))
		rc = topo_errf(t, err, NL_EIO, "%s: read error: %s", g->path, strerror(errno));
	return rc;
}

/* Routers and links that make a network: some link (or one router with
 * endpoints), and no gap in the ids that would ask for arrays of a size
 * the file does not justify. */
static int graph_check_size(struct topo *t, const struct graph_params *pr, const struct graph_edges *g,
			    struct nl_err *err)
{
	const char *path = g->path;
	uint32_t n = g->n;
	if (n == 0)
		return topo_errf(t, err, NL_EFORMAT, "%s: no links (expected lines 'a b')", path);
	/* A router without links is a whole network (a crossbar) or a gap. */
	if (g->n_links == 0 && n > 1)
		return topo_errf(t, err, NL_EFORMAT,
				 "%s: no links, but router ids up to %u (a router without links must be the only one, id 0)",
				 path, n - 1);
	if (g->n_links == 0 && pr->p == 0)
		return topo_errf(t, err, NL_ECONFIG,
				 "parameter 'p': 0 leaves %s's one router, which has no links, without ports; expected p >= 1",
				 path);
	/* Past one router every router has a link, so n routers need at least
	 * n / 2 links: a larger id is a gap, refused before arrays of n are
	 * allocated (a 20-byte file naming router 700000001 asked for 5.6 GB).
	 * labels=1 numbers only the words it read, so it has no gaps. */
	if (!pr->labels && n > 1 && n > 2 * (uint64_t)g->n_links)
		return topo_errf(t, err, NL_EFORMAT,
				 "%s: largest router id is %u, but %zu link%s at most %llu routers (ids must run 0..n-1 "
				 "without gaps)",
				 path, n - 1, g->n_links, g->n_links == 1 ? " joins" : "s join",
				 2 * (unsigned long long)g->n_links);
	return 0;
}

/* The routers, their links in file order and p endpoints each; a router
 * without links (a gap), or too many endpoints, refused. */
static int graph_wire(struct topo *t, const struct graph_params *pr, const struct graph_edges *g, struct nl_err *err)
{
	uint32_t n = g->n;
	uint32_t *deg = calloc(n, sizeof *deg), *next = calloc(n, sizeof *next);
	int rc = 0;
	if (!deg || !next) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < 2 * g->n_links; i++)
		deg[g->ends[i]]++;
	for (uint32_t r = 0; n > 1 && r < n; r++)
		if (deg[r] == 0) {
			/* With labels=1 only a lone id makes a router without
			 * links: there are no gaps to blame. */
			if (pr->labels)
				rc = topo_errf(t, err, NL_EFORMAT,
					       "%s: router '%s' has no links (a router without links must be the only one)",
					       g->path, graph_names_word(&g->names, r));
			else
				rc = topo_errf(t, err, NL_EFORMAT,
					       "%s: router %u has no links (ids must run 0..n-1 without gaps; largest is %u)",
					       g->path, r, n - 1);
			goto out;
		}
	if ((uint64_t)n * (uint64_t)pr->p >= TOPO_EP_BIT) {
		rc = topo_errf(t, err, NL_ERANGE, "%s: %u routers x p=%lld endpoints is more than supported", g->path, n,
			       (long long)pr->p);
		goto out;
	}
	for (uint32_t r = 0; r < n; r++)
		deg[r] += (uint32_t)pr->p;
	if ((rc = topo_alloc(t, n, deg, 0, n * (uint32_t)pr->p, err)) < 0)
		goto out;
	for (size_t i = 0; i < g->n_links; i++) {
		uint32_t a = g->ends[2 * i], b = g->ends[2 * i + 1];
		topo_connect(t, a, next[a]++, b, next[b]++);
	}
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t i = 0; i < (uint32_t)pr->p; i++)
			topo_attach(t, r * (uint32_t)pr->p + i, r, next[r]++);
out:
	free(deg);
	free(next);
	return rc;
}

/* Every router reached from router 0. */
static int graph_check_connected(struct topo *t, const struct graph_params *pr, const struct graph_edges *g,
				 struct nl_err *err)
{
	uint32_t n = g->n, *dist = malloc((size_t)n * sizeof *dist), *queue = malloc((size_t)n * sizeof *queue);
	int rc = 0;
	if (!dist || !queue) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	topo_bfs(t, 0, dist, queue);
	for (uint32_t r = 0; r < n; r++)
		if (dist[r] == UINT32_MAX) {
			if (pr->labels)
				rc = topo_errf(t, err, NL_EFORMAT,
					       "%s: graph is not connected: router '%s' cannot be reached from router '%s'",
					       g->path, graph_names_word(&g->names, r), graph_names_word(&g->names, 0));
			else
				rc = topo_errf(t, err, NL_EFORMAT,
					       "%s: graph is not connected: router %u cannot be reached from router 0", g->path,
					       r);
			break;
		}
out:
	free(dist);
	free(queue);
	return rc;
}

static int graph_build(struct topo *t, struct nl_err *err)
{
	const struct graph_params *pr = t->params;
	struct graph_edges g = {.path = pr->file};
	FILE *f = NULL;
	int rc = graph_open(t, pr->file, &f, err);
	if (rc < 0)
		return rc;
	if ((rc = graph_read(t, pr, f, &g, err)) == 0 && (rc = graph_check_size(t, pr, &g, err)) == 0 &&
	    (rc = graph_wire(t, pr, &g, err)) == 0)
		rc = graph_check_connected(t, pr, &g, err);
	fclose(f);
	free(g.ends);
	graph_names_release(&g.names);
	return rc;
}

const struct topo_ops topo_graph_ops = {
	.name = "graph",
	.help = "arbitrary router graph from an edge-list file ('a b' per line, '#' comments; reads netloom's edgelist export)",
	.params = graph_params_def,
	.params_size = sizeof(struct graph_params),
	.build = graph_build,
};
