/* Routing: parsing, lifecycle and shared helpers. */
#include "route/route.h"
#include "route/route_internal.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "core/registry.h"
#include "topo/topo.h"

const char *const route_queue_names[] = {"credit", "output", "both", "routed", NULL};

const struct route_ops *route_find(const char *name, struct nl_err *err)
{
	size_t n;
	const struct route_ops *const *all = route_list(&n);
	const struct route_ops *ops = registry_find_spec((const void *const *)all, n, name, "routing function", err);
	/* A BookSim user's '-s routing_function=dim_order' got only the list
	 * of netloom's names. Names netloom also has (valiant, min, ugal,
	 * nca, ...) run as netloom's and never get here. */
	const char *booksim = ops ? NULL : route_booksim_any(name);
	const char *unmodelled = ops || booksim ? NULL : route_booksim_unmodelled(name);
	if (booksim)
		nl_errf(err, NL_ENOTFOUND,
			"unknown routing function '%s': BookSim2's name; netloom's is '%s' ('netloom config "
			"--from-booksim FILE' converts a BookSim2 configuration)",
			name, booksim);
	else if (unmodelled)
		nl_errf(err, NL_ENOTFOUND, "unknown routing function '%s': " ROUTE_BOOKSIM_UNMODELLED_FMT, name,
			unmodelled);
	return ops;
}

void route_free(struct route *r)
{
	if (!r)
		return;
	if (r->ops && r->ops->release && r->state)
		r->ops->release(r);
	free(r->params);
	free(r->state);
	free(r->spec);
	free(r);
}

/* The TOPO_VIEW_* of the family named `family`; 0 for a name no family has. */
static unsigned route_family_views(const char *family)
{
	size_t n;
	const struct topo_ops *const *all = topo_list(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i]->name, family))
			return topo_family_views(all[i]);
	return 0;
}

static bool route_names_family(const struct route_ops *ops, const char *family)
{
	for (size_t i = 0; ops->families && ops->families[i]; i++)
		if (!strcmp(ops->families[i], family))
			return true;
	return false;
}

/* Whether ops runs on the family named `family`: named in ops->families,
 * publishing one of ops->topo_views, or any family when ops declares
 * neither. */
static bool route_runs_on(const struct route_ops *ops, const char *family)
{
	if (!ops->families && !ops->topo_views)
		return true;
	return route_names_family(ops, family) || (ops->topo_views & route_family_views(family));
}

/* Append `name` to a `sep`-separated list in buf[cap]. */
static void route_list_append(char *buf, size_t cap, size_t *used, const char *sep, const char *name)
{
	if (*used < cap)
		*used += (size_t)snprintf(buf + *used, cap - *used, "%s%s", *used ? sep : "", name);
}

/* The families ops runs on (not "any"), joined by sep into buf[cap]: those
 * it names and those publishing one of its views, in one order, the
 * topology registry's (`netloom topo list`). */
static void route_families_join(const struct route_ops *ops, const char *sep, char *buf, size_t cap)
{
	size_t used = 0, n;
	buf[0] = '\0';
	const struct topo_ops *const *all = topo_list(&n);
	for (size_t i = 0; i < n; i++)
		if (route_names_family(ops, all[i]->name) || (topo_family_views(all[i]) & ops->topo_views))
			route_list_append(buf, cap, &used, sep, all[i]->name);
}

void route_names_on(const char *family, const char *except, char *buf, size_t cap)
{
	size_t used = 0, n;
	const struct route_ops *const *all = route_list(&n);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (route_runs_on(all[i], family) && strcmp(all[i]->name, except))
			route_list_append(buf, cap, &used, ", ", all[i]->name);
}

static int route_check_family(const struct route_ops *ops, const char *family, struct nl_err *err)
{
	char names[256] = "", others[256] = "";
	size_t used_o = 0, n;

	if (route_runs_on(ops, family))
		return 0;
	route_families_join(ops, ", ", names, sizeof names);
	const struct route_ops *const *all = route_list(&n);
	for (size_t i = 0; i < n; i++)
		if (route_runs_on(all[i], family))
			route_list_append(others, sizeof others, &used_o, ", ", all[i]->name);
	return nl_errf(err, NL_EUNSUPPORTED,
		       "routing function '%s' does not run on topology '%s' (it supports: %s); set "
		       "routing_function to one that does: %s",
		       ops->name, family, names, others);
}

/* The function named by spec ("name:k=v,..."), and where its parameters
 * begin. */
static const struct route_ops *route_lookup(const char *spec, const char **tail, struct nl_err *err)
{
	char name[64];
	*tail = param_split_name(spec, "routing function", name, sizeof name, err);
	return *tail ? route_find(name, err) : NULL;
}

/* ops's parameters parsed from tail into *params, a new block (freed
 * with free: no parameter owns memory); NULL on failure. */
static int route_params_parse(const struct route_ops *ops, const char *tail, void **params, struct nl_err *err)
{
	return param_block_new(ops->params, ops->params_size, "routing function", ops->name, tail, params, err);
}

/* ops's canonical spec of params on topology family `family` (NULL: any),
 * without the parameters that mean nothing there (ops->ignores);
 * malloc'd, NULL when out of memory. */
static char *route_spec_string(const struct route_ops *ops, const void *params, const char *family)
{
	if (!ops->ignores || !family || !ops->params)
		return param_spec_string(ops->name, ops->params, params);
	size_t n = 0, kept = 0;
	while (ops->params[n].name)
		n++;
	struct param_def *defs = malloc((n + 1) * sizeof *defs);
	if (!defs)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!ops->ignores(ops->params[i].name, family))
			defs[kept++] = ops->params[i];
	defs[kept] = ops->params[n]; /* the table's end */
	char *out = param_spec_string(ops->name, defs, params);
	free(defs);
	return out;
}

int route_spec_canonical(const char *spec, const char *family, char **out, struct nl_err *err)
{
	const char *tail;
	*out = NULL;
	void *params;
	const struct route_ops *ops = route_lookup(spec, &tail, err);
	if (!ops)
		return tail ? NL_ENOTFOUND : NL_EINVAL;
	int rc = route_params_parse(ops, tail, &params, err);
	if (rc == 0 && !(*out = route_spec_string(ops, params, family)))
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
	free(params);
	return rc;
}

int route_spec_check(const char *spec, const char *family, struct nl_err *err)
{
	const char *tail;
	void *params;
	const struct route_ops *ops = route_lookup(spec, &tail, err);
	if (!ops)
		return tail ? NL_ENOTFOUND : NL_EINVAL;
	NL_CHECK(route_check_family(ops, family, err));
	NL_CHECK(route_params_parse(ops, tail, &params, err));
	free(params);
	return 0;
}

bool route_spec_noop(const char *spec, const char *family, char *line, size_t cap)
{
	const char *tail;
	void *params;
	struct nl_err ignored = {0};
	const struct route_ops *ops = route_lookup(spec, &tail, &ignored);
	if (!ops || !ops->noop || route_params_parse(ops, tail, &params, &ignored) < 0)
		return false;
	const char *why = ops->noop(params, family);
	if (why)
		snprintf(line, cap, "routing function '%s' on topology '%s': %s", spec, family, why);
	free(params);
	return why != NULL;
}

int route_vcs_errf(struct route *r, struct nl_err *err, const char *fmt, ...)
{
	r->vcs_refused = true;
	char msg[NL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (r->vcs_origin)
		return nl_errf(err, NL_ECONFIG, "%s: %s", r->vcs_origin, msg);
	return nl_errf(err, NL_ECONFIG, "%s", msg);
}

int route_new(const char *spec, const struct topo *t, uint32_t n_vcs, struct route **out,
	      struct nl_err *err)
{
	return route_new_origin(spec, t, n_vcs, NULL, out, err);
}

/* A refusal of the spec itself (its name, family, parameters, or what
 * init found wrong with them) starts with where routing_function was
 * set, when a file set it; a VC count's with where num_vcs was. */
static int route_spec_refused(const struct route_origin *at, int rc, struct nl_err *err)
{
	if (at && at->spec_cfg)
		return config_err_file_line(at->spec_cfg, "routing_function", err);
	return rc;
}

int route_new_origin(const char *spec, const struct topo *t, uint32_t n_vcs, const struct route_origin *at,
		     struct route **out, struct nl_err *err)
{
	const char *tail;
	struct route *r;
	int rc;

	*out = NULL;
	const struct route_ops *ops = route_lookup(spec, &tail, err);
	if (!ops)
		return route_spec_refused(at, tail ? NL_ENOTFOUND : NL_EINVAL, err);
	rc = route_check_family(ops, t->ops->name, err);
	if (rc < 0)
		return route_spec_refused(at, rc, err);
	r = calloc(1, sizeof *r);
	if (!r)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	r->ops = ops;
	r->topo = t;
	r->n_vcs = n_vcs;
	r->state = ops->state_size ? calloc(1, ops->state_size) : NULL;
	if (ops->state_size && !r->state) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto fail;
	}
	rc = route_params_parse(ops, tail, &r->params, err);
	if (rc < 0) {
		rc = route_spec_refused(at, rc, err);
		goto fail;
	}
	r->max_cands = ROUTE_MAX_CANDS;
	r->hop_pure = ops->is_deterministic;
	r->vcs_origin = at ? at->vcs : NULL;
	r->is_check = at && at->is_check;
	rc = ops->init(r, err);
	r->vcs_origin = NULL; /* the caller's string may not outlive the call */
	if (rc < 0 && !r->vcs_refused && rc != NL_ENOMEM)
		rc = route_spec_refused(at, rc, err);
	if (rc < 0)
		goto fail;
	if (r->max_cands < 1 || r->max_cands > ROUTE_MAX_CANDS)
		NL_BUG("routing function '%s' set max_cands %u", ops->name, r->max_cands);
	r->spec = route_spec_string(ops, r->params, t->ops->name);
	if (!r->spec) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto fail;
	}
	*out = r;
	return 0;
fail:
	route_free(r);
	return rc;
}

void route_print_help(FILE *f)
{
	size_t n;
	const struct route_ops *const *all = route_list(&n);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "  %-12s %s\n", all[i]->name, all[i]->help);
		if (all[i]->families || all[i]->topo_views) {
			char names[256];
			route_families_join(all[i], " ", names, sizeof names);
			fprintf(f, "      topologies: %s\n", names);
		} else {
			fprintf(f, "      topologies: any\n");
		}
		param_print_help(f, all[i]->params, "      ");
	}
}

int route_eject(const struct route *r, const struct route_pkt *p, struct route_cand *out)
{
	out->port = (uint16_t)topo_ep_local_port(r->topo, p->dst_ep);
	out->vc_lo = 0;
	out->vc_hi = (uint8_t)(r->n_vcs - 1);
	out->prio = 0;
	return 1;
}
