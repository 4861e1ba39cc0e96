/* The grid families' shared builder (torus, mesh, cmesh; the nD twin torus
 * reads its dimensions here): k-ary coordinates, wrap per dimension, p
 * endpoints per router, and the size checks and queries they share. */
#include "topo/topo.h"
#include "topo/topo_internal.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

/* Refuse a grid past the port table's limits with its radices and the
 * sizes they give (it said "parameter 'k': more than 2^30 routers" and
 * "too many endpoints", naming no value). `pname` is the family's
 * endpoints-per-router parameter. */
static int topo_grid_check_size(const struct topo *t, int n_dims, const uint32_t *k, uint32_t p,
				const char *pname, struct nl_err *err)
{
	char kv[TOPO_MAX_DIMS * 11];
	double n = 1;

	for (int d = 0; d < n_dims; d++)
		n *= k[d];
	topo_dims_text(kv, sizeof kv, k, n_dims);
	if (n > (1u << 30))
		return topo_errf(t, err, NL_ERANGE,
				 "parameter 'k' = %s: %.15g routers; expected at most 2^30 (1073741824)", kv, n);
	if (n * p >= TOPO_EP_BIT)
		return topo_errf(t, err, NL_ERANGE,
				 "parameter '%s' = %u on %.15g routers (k = %s): %.15g endpoints; expected fewer than "
				 "2^31 (2147483648)",
				 pname, p, n, kv, n * p);
	if (n * (2.0 * n_dims + p) >= TOPO_EP_BIT)
		return topo_errf(t, err, NL_ERANGE,
				 "parameters 'k', '%s' give %.15g routers (k = %s) of %u ports each: %.15g ports; "
				 "expected fewer than 2^31 (2147483648)",
				 pname, n, kv, 2u * (uint32_t)n_dims + p, n * (2.0 * n_dims + p));
	return 0;
}

int topo_grid_build(struct topo *t, int n_dims, const uint32_t *k, const bool *wrap, uint32_t p,
		    const char *pname, struct nl_err *err)
{
	struct topo_grid *gr = t->state;
	uint64_t n = 1;

	NL_ASSERT(gr && t->ops->state_size >= sizeof *gr);
	if (n_dims < 1 || n_dims > TOPO_MAX_DIMS)
		return nl_errf(err, NL_ERANGE, "topology '%s': parameter 'k': 1 to %d dimensions, got %d",
			       t->ops->name, TOPO_MAX_DIMS, n_dims);
	NL_CHECK(topo_grid_check_size(t, n_dims, k, p, pname, err));
	gr->n_dims = n_dims;
	gr->p = p;
	for (int d = 0; d < n_dims; d++) {
		gr->k[d] = k[d];
		gr->wrap[d] = wrap[d];
		gr->stride[d] = (uint32_t)n;
		n *= k[d];
	}
	NL_CHECK(topo_alloc(t, (uint32_t)n, NULL, 2u * (uint32_t)n_dims + p, (uint32_t)n * p, err));
	gr->coord = topo_coords_new((uint32_t)n, n_dims, gr->stride, gr->k);
	if (!gr->coord)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (uint32_t r = 0; r < n; r++) {
		for (int d = 0; d < n_dims; d++) {
			uint32_t c = topo_grid_coord(gr, r, d);
			if (c + 1 < k[d])
				topo_connect(t, r, 2u * (uint32_t)d, r + gr->stride[d], 2u * (uint32_t)d + 1);
			else if (wrap[d])
				topo_connect(t, r, 2u * (uint32_t)d, r - c * gr->stride[d], 2u * (uint32_t)d + 1);
		}
		for (uint32_t i = 0; i < p; i++)
			topo_attach(t, r * p + i, r, 2u * (uint32_t)n_dims + i);
	}
	t->grid = gr;
	return 0;
}

void topo_grid_release(struct topo *t)
{
	struct topo_grid *gr = t->state;
	free(gr->coord);
	gr->coord = NULL;
}

int topo_grid_dims(const struct topo *t, const struct param_vec *kv, int64_t n, uint32_t *k,
		   struct nl_err *err)
{
	int nd = kv->n;
	if (n != 0 && kv->n != 1 && n != kv->n)
		/* The hint uses the caller's own values: a fixed example
		 * (k=8,n=2) named a shape ndt refuses (it needs n >= 3). */
		return nl_errf(err, NL_EINVAL,
			       "topology '%s': parameter 'n' is %lld but 'k' has %d dimensions; expected n=%d or no "
			       "'n' (n= repeats one radix: k=%lld,n=%lld)",
			       t->ops->name, (long long)n, kv->n, kv->n, (long long)kv->v[0], (long long)n);
	if (n != 0)
		nd = (int)n;
	if (nd > TOPO_MAX_DIMS)
		return nl_errf(err, NL_ERANGE, "topology '%s': at most %d dimensions", t->ops->name,
			       TOPO_MAX_DIMS);
	for (int d = 0; d < nd; d++)
		k[d] = (uint32_t)kv->v[kv->n == 1 ? 0 : d];
	return nd;
}

const struct param_def topo_grid_params_def[] = {
	{"k", PARAM_DIMS, offsetof(struct topo_grid_params, k), NULL, 2, 65535,
	 "radix per dimension, e.g. 8x8x4 (or one radix with n=)", NULL},
	{"n", PARAM_INT, offsetof(struct topo_grid_params, n), "0", 0, TOPO_MAX_DIMS,
	 "number of dimensions when k is a single radix (BookSim style)", NULL},
	{"p", PARAM_INT, offsetof(struct topo_grid_params, p), "1", 1, 4096, "endpoints per router", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

int topo_grid_coords(const struct topo *t, uint32_t r, uint32_t *c)
{
	const struct topo_grid *g = t->grid;
	for (int d = 0; d < g->n_dims; d++)
		c[d] = topo_grid_coord(g, r, d);
	return g->n_dims;
}

int topo_grid_build_params(struct topo *t, bool wrap_all, struct nl_err *err)
{
	const struct topo_grid_params *pr = t->params;
	uint32_t k[TOPO_MAX_DIMS];
	bool wrap[TOPO_MAX_DIMS];
	int nd = topo_grid_dims(t, &pr->k, pr->n, k, err);

	if (nd < 0)
		return nd;
	for (int d = 0; d < nd; d++)
		wrap[d] = wrap_all;
	return topo_grid_build(t, nd, k, wrap, (uint32_t)pr->p, "p", err);
}

int topo_grid_format_spec(const struct topo *t, char *buf, size_t cap)
{
	const struct topo_grid *g = t->grid;
	size_t used = (size_t)snprintf(buf, cap, "%s:k=", t->ops->name);
	for (int d = 0; d < g->n_dims; d++)
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%" PRIu32, d ? "x" : "", g->k[d]);
	snprintf(buf + used, used < cap ? cap - used : 0, ",p=%" PRIu32, g->p);
	return 1;
}

uint32_t topo_grid_mesh_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	const struct topo_grid *g = t->grid;
	uint32_t h = 0;
	for (int d = 0; d < g->n_dims; d++) {
		uint32_t ca = topo_grid_coord(g, a, d), cb = topo_grid_coord(g, b, d);
		h += ca > cb ? ca - cb : cb - ca;
	}
	return h;
}

/* Corner to corner: sum over dimensions of k - 1. */
uint32_t topo_grid_mesh_diameter(const struct topo *t)
{
	const struct topo_grid *g = t->grid;
	uint32_t h = 0;
	for (int d = 0; d < g->n_dims; d++)
		h += g->k[d] - 1;
	return h;
}
