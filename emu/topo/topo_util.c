/* Helpers shared by topology families: prefixed errors, a link multiset
 * and all-pairs BFS statistics. */
#include "topo/topo_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

int topo_errf(const struct topo *t, struct nl_err *err, int code, const char *fmt, ...)
{
	char msg[NL_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return nl_errf(err, code, "topology '%s': %s", t->ops->name, msg);
}

int topo_size_check_named(const char *family, const char *given, double routers, double ports, double endpoints,
			  struct nl_err *err)
{
	if (routers <= (1u << 30) && ports < TOPO_EP_BIT && endpoints < TOPO_EP_BIT)
		return 0;
	return nl_errf(err, NL_ERANGE,
		       "topology '%s': %s give %.15g routers, %.15g ports and %.15g endpoints; expected at most 2^30 "
		       "(1073741824) routers and fewer than 2^31 (2147483648) ports and endpoints",
		       family, given, routers, ports, endpoints);
}

int topo_size_check(const struct topo *t, const char *given, double routers, double ports, double endpoints,
		    struct nl_err *err)
{
	return topo_size_check_named(t->ops->name, given, routers, ports, endpoints, err);
}

const char *topo_dims_text(char *buf, size_t cap, const uint32_t *v, int n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int d = 0; d < n && used < cap; d++)
		used += (size_t)snprintf(buf + used, cap - used, "%s%u", d ? "x" : "", v[d]);
	return buf;
}

/* --- edge multiset ------------------------------------------------------- */

uint16_t *topo_coords_new(uint32_t n, int dims, const uint32_t *stride, const uint32_t *k)
{
	uint16_t *c = malloc((size_t)n * (size_t)dims * sizeof *c);
	if (!c)
		return NULL;
	for (uint32_t u = 0; u < n; u++)
		for (int d = 0; d < dims; d++)
			c[(size_t)u * (size_t)dims + (size_t)d] = (uint16_t)((u / stride[d]) % k[d]);
	return c;
}

static uint64_t topo_edge_key(uint32_t a, uint32_t b)
{
	return a < b ? (((uint64_t)a << 32) | b) + 1 : (((uint64_t)b << 32) | a) + 1;
}

static size_t topo_edge_slot(const struct topo_edgeset *s, uint64_t key)
{
	size_t mask = s->cap - 1, i = (size_t)(key * 0x9e3779b97f4a7c15ULL >> 17) & mask;
	while (s->key[i] && s->key[i] != key)
		i = (i + 1) & mask;
	return i;
}

int topo_edgeset_init(struct topo_edgeset *s, size_t expected, struct nl_err *err)
{
	size_t cap = 64;
	while (cap < expected * 2 + 16)
		cap *= 2;
	s->key = calloc(cap, sizeof *s->key);
	s->count = calloc(cap, sizeof *s->count);
	s->cap = cap;
	s->used = 0;
	if (!s->key || !s->count) {
		topo_edgeset_release(s);
		return nl_errf(err, NL_ENOMEM, "out of memory for a set of %zu links", expected);
	}
	return 0;
}

void topo_edgeset_release(struct topo_edgeset *s)
{
	free(s->key);
	free(s->count);
	s->key = NULL;
	s->count = NULL;
	s->cap = s->used = 0;
}

uint32_t topo_edgeset_count(const struct topo_edgeset *s, uint32_t a, uint32_t b)
{
	size_t i = topo_edge_slot(s, topo_edge_key(a, b));
	return s->key[i] ? s->count[i] : 0;
}

/* Rebuild at twice the size, dropping pairs whose count fell to zero. */
static int topo_edgeset_grow(struct topo_edgeset *s, struct nl_err *err)
{
	struct topo_edgeset n;
	NL_CHECK(topo_edgeset_init(&n, s->cap, err));
	for (size_t i = 0; i < s->cap; i++)
		if (s->key[i] && s->count[i]) {
			size_t j = topo_edge_slot(&n, s->key[i]);
			n.key[j] = s->key[i];
			n.count[j] = s->count[i];
			n.used++;
		}
	topo_edgeset_release(s);
	*s = n;
	return 0;
}

int topo_edgeset_add(struct topo_edgeset *s, uint32_t a, uint32_t b, struct nl_err *err)
{
	uint64_t key = topo_edge_key(a, b);
	size_t i = topo_edge_slot(s, key);
	if (!s->key[i]) {
		if ((s->used + 1) * 10 > s->cap * 7) {
			NL_CHECK(topo_edgeset_grow(s, err));
			i = topo_edge_slot(s, key);
		}
		s->key[i] = key;
		s->used++;
	}
	s->count[i]++;
	return 0;
}

void topo_edgeset_remove(struct topo_edgeset *s, uint32_t a, uint32_t b)
{
	size_t i = topo_edge_slot(s, topo_edge_key(a, b));
	NL_ASSERT(s->key[i] && s->count[i] > 0);
	s->count[i]--;
}

int topo_edgeset_from_topo(struct topo_edgeset *s, const struct topo *t, struct nl_err *err)
{
	NL_CHECK(topo_edgeset_init(s, (size_t)topo_count_links(t), err));
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (topo_port_is_network(t, g) && t->peer[g] > g) {
			int rc = topo_edgeset_add(s, t->port_router[g], t->port_router[t->peer[g]], err);
			if (rc < 0) {
				topo_edgeset_release(s);
				return rc;
			}
		}
	return 0;
}

/* --- all-pairs statistics ------------------------------------------------ */

/* Bit-parallel BFS: 64 sources at a time, one bit per source in each
 * router's word, so a level costs one pass over the adjacency for all 64
 * (a few times fewer operations than 64 queue-based BFS on the
 * low-diameter graphs permutation produces). */
int topo_all_pairs(const struct topo *t, uint32_t cutoff, uint32_t *diameter, uint64_t *sum,
		   struct nl_err *err)
{
	uint32_t n = t->n_routers;
	uint32_t *base = malloc(((size_t)n + 1) * sizeof *base);
	uint32_t *nbr = malloc(((size_t)t->n_ports + 1) * sizeof *nbr);
	uint64_t *seen = malloc((size_t)n * sizeof *seen);
	uint64_t *front = malloc((size_t)n * sizeof *front);
	uint64_t *next = malloc((size_t)n * sizeof *next);
	int rc = 0;

	*diameter = 0;
	*sum = 0;
	if (!base || !nbr || !seen || !front || !next) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory for all-pairs BFS on %u routers", n);
		goto out;
	}
	/* Router-level adjacency (CSR). */
	uint32_t m = 0;
	for (uint32_t r = 0; r < n; r++) {
		base[r] = m;
		for (uint32_t g = t->port_base[r]; g < t->port_base[r + 1]; g++)
			if (topo_port_is_network(t, g))
				nbr[m++] = t->port_router[t->peer[g]];
	}
	base[n] = m;
	for (uint32_t s0 = 0; s0 < n && rc == 0; s0 += 64) {
		uint32_t batch = n - s0 < 64 ? n - s0 : 64;
		uint64_t all = batch == 64 ? ~0ULL : (1ULL << batch) - 1;
		memset(seen, 0, (size_t)n * sizeof *seen);
		memset(front, 0, (size_t)n * sizeof *front);
		for (uint32_t i = 0; i < batch; i++)
			seen[s0 + i] = front[s0 + i] = 1ULL << i;
		for (uint32_t level = 1;; level++) {
			uint64_t found = 0;
			for (uint32_t v = 0; v < n; v++) {
				uint64_t x = 0;
				for (uint32_t i = base[v]; i < base[v + 1]; i++)
					x |= front[nbr[i]];
				x &= ~seen[v];
				next[v] = x;
				if (x) {
					seen[v] |= x;
					found += (uint64_t)__builtin_popcountll(x);
				}
			}
			if (!found)
				break;
			if (level > cutoff) {
				rc = 1;
				break;
			}
			if (level > *diameter)
				*diameter = level;
			*sum += found * level;
			uint64_t *tmp = front;
			front = next;
			next = tmp;
		}
		for (uint32_t v = 0; v < n && rc == 0; v++)
			if (seen[v] != all)
				rc = 1; /* disconnected */
	}
out:
	free(base);
	free(nbr);
	free(seen);
	free(front);
	free(next);
	return rc;
}
