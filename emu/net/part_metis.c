/* partitioner = metis: the routers cut into partitions by METIS's k-way
 * partitioning of the router graph (issue 16 part 2), minimising the
 * links between partitions (their events are what the exchange carries,
 * between MPI ranks a message's bytes) with the partitions balanced by
 * weight, one per router plus one per endpoint attached to it, as the
 * router ranges are. A partition's routers need not be contiguous; the
 * engine does not care (part.c), and the results are the same bytes for
 * any partitioning. METIS is seeded with a constant, so a configuration
 * gives the same partitions on every MPI rank and every run. */
#include <metis.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "net/net_internal.h"
#include "topo/topo.h"

#define PART_METIS_SEED 16 /* any constant: the same cut on every rank */

static int part_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int fl_part_metis(const struct topo *t, uint32_t n_parts, const uint32_t *r_eps, const struct fl_port *ports,
		  uint16_t *r_part, struct nl_err *err)
{
	const uint32_t R = t->n_routers;
	idx_t *xadj = malloc(((size_t)R + 1) * sizeof *xadj);
	idx_t *adj = malloc(((size_t)t->n_ports + 1) * sizeof *adj);
	idx_t *wgt = malloc(((size_t)t->n_ports + 1) * sizeof *wgt);
	idx_t *vw = malloc((size_t)R * sizeof *vw);
	idx_t *part = malloc((size_t)R * sizeof *part);
	uint64_t *nb = malloc((size_t)(topo_max_radix(t) + 1) * sizeof *nb); /* router << 32 | weight */
	uint32_t *count = calloc(n_parts, sizeof *count);
	int rc = 0;
	if (!xadj || !adj || !wgt || !vw || !part || !nb || !count) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory partitioning %u routers with METIS", R);
		goto out;
	}
	/* The router graph: one edge per neighbour, weighted by its links
	 * (METIS wants no repeated edges and no loops). A link weighs the
	 * longest link's latency over its own (1 when all are equal): under
	 * MPI the shortest link between ranks bounds the window between
	 * exchanges (mpi.c), so a dragonfly's 1-cycle local links weigh 40
	 * against its 40-cycle global ones and METIS cuts whole groups when
	 * the balance allows, trading more crossing links for exchanges 40
	 * times rarer. */
	uint32_t max_lat = 1;
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (topo_port_is_network(t, g) && ports[g].link.lat > max_lat)
			max_lat = ports[g].link.lat;
	idx_t m = 0;
	for (uint32_t r = 0; r < R; r++) {
		xadj[r] = m;
		vw[r] = (idx_t)(1 + r_eps[r]);
		uint32_t k = 0, base = t->port_base[r], np = topo_router_ports(t, r);
		for (uint32_t p = 0; p < np; p++) {
			uint32_t g = base + p;
			if (!topo_port_is_network(t, g))
				continue;
			uint32_t q = t->port_router[t->peer[g]];
			uint32_t lat = ports[g].link.lat ? ports[g].link.lat : 1;
			if (q != r)
				nb[k++] = (uint64_t)q << 32 | (max_lat / lat);
		}
		qsort(nb, k, sizeof *nb, part_cmp_u64);
		for (uint32_t i = 0; i < k; i++) {
			const idx_t w = (idx_t)(nb[i] & 0xffffffffu);
			if (i && nb[i] >> 32 == nb[i - 1] >> 32) {
				wgt[m - 1] += w;
				continue;
			}
			adj[m] = (idx_t)(nb[i] >> 32);
			wgt[m++] = w;
		}
	}
	xadj[R] = m;
	idx_t nv = (idx_t)R, ncon = 1, np_ = (idx_t)n_parts, cut = 0;
	idx_t options[METIS_NOPTIONS];
	METIS_SetDefaultOptions(options);
	options[METIS_OPTION_SEED] = PART_METIS_SEED;
	options[METIS_OPTION_NUMBERING] = 0;
	options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
	int mr = METIS_PartGraphKway(&nv, &ncon, xadj, adj, vw, NULL, wgt, &np_, NULL, NULL, options, &cut, part);
	if (mr != METIS_OK) {
		rc = nl_errf(err, mr == METIS_ERROR_MEMORY ? NL_ENOMEM : NL_ECONFIG,
			     "[simulation] partitioner = metis: METIS could not cut %u routers into %u partitions (error %d)",
			     R, n_parts, mr);
		goto out;
	}
	for (uint32_t r = 0; r < R; r++) {
		r_part[r] = (uint16_t)part[r];
		count[part[r]]++;
	}
	/* Every partition needs a router (METIS may leave one empty on a
	 * small graph): the caller falls back to ranges. */
	for (uint32_t k = 0; k < n_parts && rc == 0; k++)
		if (!count[k])
			rc = 1;
out:
	free(xadj);
	free(adj);
	free(wgt);
	free(vw);
	free(part);
	free(nb);
	free(count);
	return rc;
}
