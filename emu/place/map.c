/* map: the ranks' endpoints from a file, "rank endpoint" per line (blank
 * lines and '#' comments allowed). Every rank 0..n-1 appears once;
 * several ranks may share an endpoint (ranks per node); every endpoint
 * must exist and be free. */
#include "place/place_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/text.h"
#include "topo/topo.h"

/* Longest line read, newline not counted (quoted in errors). */
#define MAP_LINE_MAX 510

/* A number of the line at *s: its value and its digits as written (for
 * errors). */
struct map_num {
	unsigned long long v;
	const char *digits;
	int len;
};

static int map_number(const char **s, struct map_num *n)
{
	char *end;
	while (**s == ' ' || **s == '\t')
		(*s)++;
	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	n->v = strtoull(*s, &end, 10);
	/* The number ends at a blank, the line's end or a comment: "0x3"
	 * and "2.5" are no numbers, not 0 and 2 with text after them. */
	if (*end && !strchr(" \t\r\n#", *end))
		return -1;
	/* Past 2^64 (ERANGE, ULLONG_MAX) it is still a number, refused as
	 * out of range below with its digits, not as "no number". */
	n->digits = *s;
	n->len = (int)(end - *s);
	*s = end;
	return 0;
}

int place_read_map(const char *path, uint32_t n_ranks, uint32_t n_endpoints, uint32_t *endpoint,
		   struct nl_err *err)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint32_t lineno = 0, seen = 0;
	int rc = 0;
	NL_CHECK(nl_open_input(path, "map file", &f, err));
	for (uint32_t i = 0; i < n_ranks; i++)
		endpoint[i] = UINT32_MAX;
	while ((len = text_getline(&line, &cap, f)) >= 0) {
		struct map_num rank, ep;
		lineno++;
		/* The string functions below would stop at a NUL and drop the rest. */
		if (memchr(line, '\0', (size_t)len)) {
			rc = nl_errf(err, NL_EFORMAT, "%s:%u: unexpected NUL byte; expected a text file", path, lineno);
			goto out;
		}
		/* A byte order mark was read into the first rank, and quoted,
		 * invisible, in the error ("'0 1': expected 'rank endpoint'"). */
		char *text = lineno == 1 ? line + text_bom_len(line, (size_t)len) : line;
		const char *s = text;
		size_t chars = (size_t)len - (line[len - 1] == '\n');
		if (chars > MAP_LINE_MAX) {
			rc = nl_errf(err, NL_EFORMAT,
				     "%s:%u: line of %zu characters; expected at most %d ('rank endpoint' and an optional "
				     "'# comment')",
				     path, lineno, chars, MAP_LINE_MAX);
			goto out;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\n' || *s == '\r' || !*s)
			continue;
		if (map_number(&s, &rank) || map_number(&s, &ep)) {
			text[strcspn(text, "\r\n")] = 0;
			rc = nl_errf(err, NL_EFORMAT, "%s:%u: '%s': expected 'rank endpoint' (two unsigned integers)", path,
				     lineno, text);
			goto out;
		}
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s && *s != '\n' && *s != '#') {
			line[strcspn(line, "\r\n")] = 0; /* the message is one line */
			rc = nl_errf(err, NL_EFORMAT, "%s:%u: unexpected text after 'rank endpoint': '%.40s'", path, lineno, s);
			goto out;
		}
		if (rank.v >= n_ranks) {
			rc = nl_errf(err, NL_ERANGE, "%s:%u: rank %.*s: expected a rank below %u (the job's ranks)", path,
				     lineno, rank.len, rank.digits, n_ranks);
			goto out;
		}
		if (ep.v >= n_endpoints) {
			rc = nl_errf(err, NL_ERANGE, "%s:%u: endpoint %.*s: expected an endpoint below %u", path, lineno,
				     ep.len, ep.digits, n_endpoints);
			goto out;
		}
		if (endpoint[rank.v] != UINT32_MAX) {
			rc = nl_errf(err, NL_ECONFIG, "%s:%u: rank %llu: mapped twice (first to endpoint %u)", path, lineno,
				     rank.v, endpoint[rank.v]);
			goto out;
		}
		endpoint[rank.v] = (uint32_t)ep.v;
		seen++;
	}
	if (ferror(f)) {
		rc = nl_errf(err, NL_EIO, "%s: read error", path);
		goto out;
	}
	if (seen < n_ranks) {
		uint32_t missing = 0;
		while (endpoint[missing] != UINT32_MAX)
			missing++;
		rc = nl_errf(err, NL_ECONFIG, "%s: rank %u: not mapped (the file maps %u of %u ranks)", path, missing, seen,
			     n_ranks);
	}
out:
	free(line);
	fclose(f);
	return rc;
}

static int place_map(const struct place_req *req, uint32_t n_nodes, uint32_t *nodes, struct nl_err *err)
{
	if (!req->map_path)
		return nl_errf(err, NL_ECONFIG, "placement 'map': no map file given");
	NL_CHECK(place_read_map(req->map_path, n_nodes, req->t->n_endpoints, nodes, err));
	for (uint32_t i = 0; i < n_nodes; i++)
		if (!place_is_free(req, nodes[i]))
			return nl_errf(err, NL_ECONFIG, "%s: rank %u: endpoint %u is taken by another job", req->map_path, i,
				       nodes[i]);
	return 0;
}

const struct place_ops place_map_ops = {
	.name = "map",
	.help = "ranks to endpoints from a file: 'rank endpoint' per line",
	.place = place_map,
};
