/* The analytic backend's report (net_backend_ops.report): its settings,
 * messages and bytes, the cables' latencies (cable_latency), and the
 * busiest channels, or the bus. */
#include <inttypes.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/output.h"
#include "net/analytic_internal.h"
#include "net/net.h"
#include "topo/topo.h"

/* Describe channel c for the report: "ep 3 -> router 1", "router 1 -> router 2". */
static json_t *analytic_chan_json(const struct analytic *a, size_t c, double horizon_s)
{
	const struct analytic_chan *ch = &a->chan[c];
	const struct topo *t = a->t;
	json_t *o = json_object();
	char from[48], to[48];
	if (c < a->n_ep) {
		snprintf(from, sizeof from, "endpoint %zu", c);
		if (t)
			snprintf(to, sizeof to, "router %" PRIu32, topo_ep_router(t, (uint32_t)c));
		else
			snprintf(to, sizeof to, "network");
		json_object_set_new(o, "kind", json_string("injection"));
	} else if (c < 2 * a->n_ep) {
		size_t e = c - a->n_ep;
		if (t)
			snprintf(from, sizeof from, "router %" PRIu32, topo_ep_router(t, (uint32_t)e));
		else
			snprintf(from, sizeof from, "network");
		snprintf(to, sizeof to, "endpoint %zu", e);
		json_object_set_new(o, "kind", json_string("ejection"));
	} else {
		uint32_t gp = (uint32_t)(c - 2 * a->n_ep);
		snprintf(from, sizeof from, "router %" PRIu32, t->port_router[gp]);
		snprintf(to, sizeof to, "router %" PRIu32, t->port_router[t->peer[gp]]);
		json_object_set_new(o, "kind", json_string("link"));
		json_object_set_new(o, "port", json_integer(gp - t->port_base[t->port_router[gp]]));
	}
	json_object_set_new(o, "from", json_string(from));
	json_object_set_new(o, "to", json_string(to));
	json_object_set_new(o, "busy_s", json_real((double)ch->busy_ps * 1e-12));
	json_object_set_new(o, "utilisation",
			    json_real(horizon_s > 0 ? (double)ch->busy_ps * 1e-12 / horizon_s : 0.0));
	json_object_set_new(o, "messages", json_integer((json_int_t)ch->msgs));
	json_object_set_new(o, "bytes", json_integer((json_int_t)ch->bytes));
	return o;
}

int analytic_report(struct net_backend *b, json_t *out, struct nl_err *err)
{
	struct analytic *a = b->state;
	json_object_set_new(out, "backend", json_string("analytic"));
	if (a->t)
		json_object_set_new(out, "topology", out_json_utf8(a->t->spec)); /* a graph:file= path */
	json_object_set_new(out, "link_model", json_string(analytic_link_models[a->p.link_model]));
	json_object_set_new(out, "path_select", json_string(analytic_path_selects[a->p.path_select]));
	json_object_set_new(out, "ideal", json_boolean(a->p.ideal));
	json_object_set_new(out, "messages", json_integer((json_int_t)a->n_msgs));
	json_object_set_new(out, "bytes", json_integer((json_int_t)a->n_bytes));
	if (a->link_ps) {
		/* Per-channel latencies (cable_latency): over the router-to-router
		 * channels, and per message over the channels it crossed. */
		const struct topo *t = a->t;
		uint64_t sum = 0, max = 0, n = 0;
		for (uint32_t g = 0; g < t->n_ports; g++) {
			if (!topo_port_is_network(t, g))
				continue;
			sum += a->link_ps[g];
			max = a->link_ps[g] > max ? a->link_ps[g] : max;
			n++;
		}
		json_t *l = json_object();
		json_object_set_new(l, "channels", json_integer((json_int_t)n));
		json_object_set_new(l, "mean_ns", json_real(n ? (double)sum / (double)n * 1e-3 : 0.0));
		json_object_set_new(l, "max_ns", json_real((double)max * 1e-3));
		json_object_set_new(l, "per_message_ns",
				    json_real(a->n_msgs ? (double)a->cable_ps / (double)a->n_msgs * 1e-3 : 0.0));
		json_object_set_new(out, "link_latency", l);
	}
	if (a->p.link_model == ANALYTIC_LINK_BUS && !a->p.ideal) {
		double horizon = (double)a->reached_ps * 1e-12;
		json_t *l = json_object(), *arr = json_array();
		json_object_set_new(l, "kind", json_string("bus"));
		json_object_set_new(l, "from", json_string("all endpoints"));
		json_object_set_new(l, "to", json_string("all endpoints"));
		json_object_set_new(l, "busy_s", json_real((double)a->bus.busy_ps * 1e-12));
		json_object_set_new(l, "utilisation",
				    json_real(horizon > 0 ? (double)a->bus.busy_ps * 1e-12 / horizon : 0.0));
		json_object_set_new(l, "messages", json_integer((json_int_t)a->bus.msgs));
		json_object_set_new(l, "bytes", json_integer((json_int_t)a->bus.bytes));
		json_array_append_new(arr, l);
		json_object_set_new(out, "busiest_links", arr);
		return 0;
	}
	if (a->p.link_model == ANALYTIC_LINK_NONE || a->p.ideal || !a->chan)
		return 0;

	/* Busiest channels: a partial selection by busy time, ties by id. */
	size_t k = (size_t)a->p.report_links;
	if (k > a->n_chan)
		k = a->n_chan;
	size_t *top = malloc((k ? k : 1) * sizeof *top);
	if (!top)
		return nl_errf(err, NL_ENOMEM, "analytic backend: out of memory");
	size_t n_top = 0;
	for (size_t c = 0; c < a->n_chan && k; c++) {
		if (!a->chan[c].msgs)
			continue;
		size_t pos = n_top;
		while (pos > 0 && a->chan[top[pos - 1]].busy_ps < a->chan[c].busy_ps)
			pos--;
		if (pos >= k)
			continue;
		size_t end = n_top < k ? n_top : k - 1;
		memmove(top + pos + 1, top + pos, (end - pos) * sizeof *top);
		top[pos] = c;
		if (n_top < k)
			n_top++;
	}
	double horizon_s = (double)a->reached_ps * 1e-12;
	json_t *arr = json_array();
	for (size_t i = 0; i < n_top; i++)
		json_array_append_new(arr, analytic_chan_json(a, top[i], horizon_s));
	json_object_set_new(out, "busiest_links", arr);
	free(top);
	return 0;
}
