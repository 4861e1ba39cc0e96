/* The live server's one door into the emulator's internals: it builds the
 * network backend and the MPI replay engine (emu/app) over an op source,
 * exactly as `netloom replay` does, so a live session and the replay of its
 * recording run the same code. When the public session API (include/netloom)
 * lands, this file is what switches to it. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/adapters.h"
#include "app/app.h"
#include "core/config.h"
#include "core/error.h"
#include "net/net.h"
#include "route/route.h"
#include "topo/topo.h"

struct live_engine {
	struct app_config ac;
	struct topo *topo;
	struct net_backend net;
	struct app *app;
};

/* The first routing function that runs on the topology's family, as
 * `netloom replay --topology` picks it, when the config names none. */
static const char *live_pick_routing(const struct topo *t)
{
	size_t n;
	const struct route_ops *const *all = route_list(&n);
	for (size_t i = 0; i < n; i++) {
		if (!all[i]->families)
			return all[i]->name;
		for (size_t j = 0; all[i]->families[j]; j++)
			if (!strcmp(all[i]->families[j], t->ops->name))
				return all[i]->name;
	}
	return NULL;
}

int live_engine_new(struct live_engine **out, struct config *cfg, const struct app_source *src,
		    struct nl_err *err)
{
	struct live_engine *e = calloc(1, sizeof *e);
	struct net_cfg nc;
	int rc;
	if (!e)
		return nl_errf(err, NL_ENOMEM, "live: out of memory");
	if ((rc = app_config_bind(cfg, &e->ac, err)) < 0)
		goto fail;
	/* A live COMPUTE is a declared duration, as a recording's wall-clock gap. */
	if (e->ac.compute_time == APP_COMPUTE_AUTO)
		e->ac.compute_time = APP_COMPUTE_WALL;
	const struct net_backend_ops *ops = net_backend_find(e->ac.backend, err);
	if (!ops) {
		rc = nl_err_prefix(err, "key 'backend'");
		goto fail;
	}
	if ((rc = config_bind(cfg, &net_network_table, &nc, err)) < 0)
		goto fail;
	/* As replay: the analytic backend gets a topology only when one is set. */
	if (strcmp(ops->name, "analytic") || config_get(cfg, "topology")) {
		if ((rc = topo_new(nc.topology, &e->topo, err)) < 0) {
			rc = nl_err_prefix(err, "key 'topology'");
			goto fail;
		}
		if (e->topo->n_endpoints < src->n_ranks) {
			rc = nl_errf(err, NL_ECONFIG,
				     "key 'topology': '%s' has %" PRIu32 " endpoints, the session needs %" PRIu32
				     " (one per rank)",
				     nc.topology, e->topo->n_endpoints, src->n_ranks);
			goto fail;
		}
		if (!config_get(cfg, "routing_function")) {
			const char *r = live_pick_routing(e->topo);
			if (r && (rc = config_set(cfg, "routing_function", r, "serve", err)) < 0)
				goto fail;
		}
	}
	e->net.ops = ops;
	if ((rc = ops->create(&e->net, cfg, e->topo, err)) < 0) {
		e->net.ops = NULL;
		goto fail;
	}
	if ((rc = app_new(&e->app, &e->ac, src, &e->net, NULL, err)) < 0)
		goto fail;
	*out = e;
	return 0;
fail:
	live_engine_free(e);
	return rc;
}

void live_engine_on_match(struct live_engine *e, app_match_fn fn, void *ctx)
{
	app_set_match_hook(e->app, fn, ctx);
}

int live_engine_run(struct live_engine *e, struct nl_err *err)
{
	return app_run(e->app, NULL, err);
}

uint64_t live_engine_now(const struct live_engine *e)
{
	return app_now(e->app);
}

uint64_t live_engine_runtime(const struct live_engine *e)
{
	return app_results(e->app)->runtime_ps;
}

const struct app_results *live_engine_results(const struct live_engine *e)
{
	return app_results(e->app);
}

void live_engine_latency(const struct live_engine *e, struct app_latency *out)
{
	app_latency(e->app, -1, out);
}

struct json_t *live_engine_json(struct live_engine *e, struct nl_err *err)
{
	json_t *doc = json_object();
	json_t *net = json_object();
	if (!doc || !net) {
		json_decref(doc);
		json_decref(net);
		nl_errf(err, NL_ENOMEM, "live: out of memory");
		return NULL;
	}
	json_object_set_new(doc, "results", app_results_json(e->app));
	if (e->net.ops->report && e->net.ops->report(&e->net, net, err) < 0) {
		json_decref(net);
		json_decref(doc);
		return NULL;
	}
	json_object_set_new(doc, "network", net);
	json_object_set_new(doc, "backend", json_string(e->net.ops->name));
	return doc;
}

void live_engine_deadlock_report(const struct live_engine *e, void (*line)(void *ctx, const char *l), void *ctx)
{
	app_deadlock_report(e->app, line, ctx);
}

void live_engine_free(struct live_engine *e)
{
	if (!e)
		return;
	app_free(e->app);
	if (e->net.ops)
		e->net.ops->destroy(&e->net);
	topo_free(e->topo);
	free(e);
}
