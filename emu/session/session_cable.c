/* cable_latency (issue 13): cable lengths become link latencies. The
 * session lays the topology out (emu/layout), turns every router-router
 * cable's length into a propagation delay and hands the per-port array to
 * the network backend (net.h set_link_latency), so net never sees layout.
 * The flit backend rounds each channel's delay up to whole cycles
 * (issue 11 part 1). Synthetic runs build their flit model inside the
 * experiment driver, which takes no per-link array yet: refused there.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "core/config.h"
#include "core/error.h"
#include "layout/layout.h"
#include "net/net.h"
#include "session/session_internal.h"
#include "topo/topo.h"

/* Propagation of a cable of len_m metres at ns_per_m, to the nearest
 * picosecond: the latency a channel gets from its cable. */
static uint64_t session_cable_ps(double len_m, double ns_per_m)
{
	double ps = len_m * ns_per_m * 1000.0;
	return ps > 0 ? (uint64_t)llround(ps) : 0;
}

int session_cable_refuse_synthetic(nl_sim *s, struct nl_err *err)
{
	struct layout_cfg lc;
	NL_CHECK(config_bind(&s->cfg, &layout_config_table, &lc, err));
	if (!lc.cable_latency)
		return 0;
	nl_errf(err, NL_EUNSUPPORTED,
		"key 'cable_latency': value '1': synthetic runs take no cable lengths yet (replays do, on the analytic "
		"and flit backends); expected 0");
	return config_err_file_line(&s->cfg, "cable_latency", err);
}

/* What the replay's report says about the layout behind the latencies:
 * the totals `netloom cost` gives (layout_summarise sums lengths in whole
 * micrometres, docs/layout.md), not a sum of doubles in port order
 * (259.19999999999976 m for cost's 259.2 on torus:k=8x8). */
static json_t *session_cable_json(const struct layout *lo, const struct layout_model *m, const struct layout_cfg *lc,
				  const struct layout_summary *ls)
{
	json_t *o = json_object();
	json_object_set_new(o, "preset", json_string(m->name));
	json_object_set_new(o, "rule", json_string(lo->rule->name));
	json_object_set_new(o, "placement", json_string(lo->is_annealed ? "anneal" : "rule"));
	/* Whether the annealing had cabinets to move: not in one, where the
	 * text says "nothing to anneal" as `netloom cost` does. */
	json_object_set_new(o, "annealed", json_boolean(layout_anneal_moved(lo)));
	json_object_set_new(o, "cabinets", json_integer(lo->n_cabinets));
	json_object_set_new(o, "links", json_integer((json_int_t)ls->links));
	json_object_set_new(o, "length_m", json_real(ls->length_m));
	json_object_set_new(o, "mean_length_m", json_real(ls->mean_m));
	json_object_set_new(o, "max_length_m", json_real(ls->max_m));
	json_object_set_new(o, "propagation_ns_per_m", json_real(lc->propagation_ns_per_m));
	return o;
}

int session_cable_plan(nl_sim *s, const struct net_backend_ops *ops, const struct topo *t, uint64_t **lat_ps,
		       json_t **info, struct nl_err *err)
{
	struct layout_cfg lc;
	*lat_ps = NULL;
	*info = NULL;
	NL_CHECK(config_bind(&s->cfg, &layout_config_table, &lc, err));
	if (!lc.cable_latency)
		return 0;
	if (!ops->set_link_latency) {
		nl_errf(err, NL_EUNSUPPORTED,
			"key 'cable_latency': value '1': network backend '%s' has no per-link latency; expected 0, or "
			"backend = analytic or flit",
			ops->name);
		return config_err_file_line(&s->cfg, "cable_latency", err);
	}
	if (!t) {
		nl_errf(err, NL_ECONFIG, "key 'cable_latency': value '1': needs a topology to lay out; set key 'topology'");
		return config_err_file_line(&s->cfg, "cable_latency", err);
	}

	struct layout lo;
	const struct layout_model *m;
	NL_CHECK(layout_cfg_build(&lo, t, &lc, &s->cfg, &m, err));
	int rc = 0;
	double *len = malloc((size_t)(t->n_ports ? t->n_ports : 1) * sizeof *len);
	uint64_t *lat = malloc((size_t)(t->n_ports ? t->n_ports : 1) * sizeof *lat);
	if (!len || !lat) {
		rc = nl_errf(err, NL_ENOMEM, "cable_latency: out of memory for %" PRIu32 " ports", t->n_ports);
		goto out;
	}
	layout_port_lengths(&lo, m, len);
	for (uint32_t g = 0; g < t->n_ports; g++)
		lat[g] = topo_port_is_network(t, g) ? session_cable_ps(len[g], lc.propagation_ns_per_m) : 0;
	struct layout_summary ls;
	rc = layout_summarise(&lo, m, 0, &ls, err);
	if (rc < 0) {
		nl_err_prefix(err, "key 'cable_latency'");
		config_err_file_line(&s->cfg, "cable_latency", err);
		goto out;
	}
	*info = session_cable_json(&lo, m, &lc, &ls);
	if (!*info) {
		rc = nl_errf(err, NL_ENOMEM, "cable_latency: out of memory");
		goto out;
	}
	*lat_ps = lat;
	lat = NULL;
out:
	free(lat);
	free(len);
	layout_release(&lo);
	return rc;
}

int session_cable_set(const nl_sim *s, struct net_backend *b, const uint64_t *lat_ps, struct nl_err *err)
{
	if (!lat_ps)
		return 0;
	if (b->ops->set_link_latency(b, lat_ps, err) == 0)
		return 0;
	nl_err_prefix(err, "key 'cable_latency'");
	return config_err_file_line(&s->cfg, "cable_latency", err);
}

int session_cable_apply(nl_sim *s, struct net_backend *b, const struct topo *t, json_t **info, struct nl_err *err)
{
	uint64_t *lat;
	NL_CHECK(session_cable_plan(s, b->ops, t, &lat, info, err));
	int rc = session_cable_set(s, b, lat, err);
	free(lat);
	if (rc < 0) {
		json_decref(*info);
		*info = NULL;
	}
	return rc;
}
