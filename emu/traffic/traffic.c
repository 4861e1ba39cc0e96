/* Traffic patterns: registry lookup, lifecycle, power-of-two trimming. */
#include "traffic/traffic.h"

#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "core/registry.h"
#include "topo/topo.h"

const struct traffic_ops *traffic_find(const char *name, struct nl_err *err)
{
	size_t n;
	const struct traffic_ops *const *all = traffic_list(&n);
	return registry_find_spec((const void *const *)all, n, name, "traffic pattern", err);
}

void traffic_free(struct traffic *tr)
{
	if (!tr)
		return;
	if (tr->ops && tr->ops->release && tr->state)
		tr->ops->release(tr);
	free(tr->params);
	free(tr->state);
	free(tr->spec);
	free(tr);
}

/* log2 of the endpoints a bit pattern uses: the largest power of two (of
 * four, an even bit count, with TRAFFIC_F_POW4) not above n_endpoints;
 * 0 when fewer than two (four) endpoints. */
static uint32_t traffic_pow_bits(unsigned flags, uint32_t n_endpoints)
{
	uint32_t bits = 0;
	while ((2ull << bits) <= n_endpoints)
		bits++;
	if ((flags & TRAFFIC_F_POW4) && (bits & 1))
		bits--;
	return bits;
}

uint32_t traffic_spec_active(const char *spec, uint32_t n_endpoints, const char **need)
{
	char name[64];
	struct nl_err ignored = {0};
	*need = NULL;
	const char *tail = param_split_name(spec, "traffic pattern", name, sizeof name, &ignored);
	const struct traffic_ops *ops = tail ? traffic_find(name, &ignored) : NULL;
	if (!ops || !(ops->flags & (TRAFFIC_F_POW2 | TRAFFIC_F_POW4)))
		return n_endpoints;
	uint32_t bits = traffic_pow_bits(ops->flags, n_endpoints);
	if (bits == 0 || (1u << bits) == n_endpoints)
		return n_endpoints;
	*need = (ops->flags & TRAFFIC_F_POW4) ? "a power of four" : "a power of two";
	return 1u << bits;
}

/* The pattern `spec` names and its parameters, parsed into *params
 * (malloc'd, ops->params_size); a negative code and a message when the
 * name does not split off, is unknown, or a parameter is refused. */
static int traffic_spec_parse(const char *spec, const struct traffic_ops **ops, void **params, struct nl_err *err)
{
	char name[64];
	*params = NULL;
	const char *tail = param_split_name(spec, "traffic pattern", name, sizeof name, err);
	if (!tail)
		return NL_EINVAL;
	if (!(*ops = traffic_find(name, err)))
		return NL_ENOTFOUND;
	return param_block_new((*ops)->params, (*ops)->params_size, "traffic", (*ops)->name, tail, params, err);
}

int traffic_spec_check(const char *spec, struct nl_err *err)
{
	const struct traffic_ops *ops;
	void *params;
	NL_CHECK(traffic_spec_parse(spec, &ops, &params, err));
	free(params);
	return 0;
}

int traffic_new(const char *spec, const struct topo *t, uint64_t seed, struct traffic **out,
		struct nl_err *err)
{
	const struct traffic_ops *ops;
	void *params;
	int rc;

	*out = NULL;
	NL_CHECK(traffic_spec_parse(spec, &ops, &params, err));
	struct traffic *tr = calloc(1, sizeof *tr);
	if (!tr) {
		free(params);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	tr->ops = ops;
	tr->topo = t;
	tr->seed = seed;
	tr->n_active = t->n_endpoints;
	tr->params = params;
	tr->state = ops->state_size ? calloc(1, ops->state_size) : NULL;
	if (ops->state_size && !tr->state) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto fail;
	}
	if (ops->flags & (TRAFFIC_F_POW2 | TRAFFIC_F_POW4)) {
		uint32_t bits = traffic_pow_bits(ops->flags, t->n_endpoints);
		if (bits == 0) {
			rc = nl_errf(err, NL_ECONFIG, "traffic '%s' needs at least %d endpoints", ops->name,
				     (ops->flags & TRAFFIC_F_POW4) ? 4 : 2);
			goto fail;
		}
		tr->bits = bits;
		tr->n_active = 1u << bits;
	}
	if (ops->init) {
		rc = ops->init(tr, err);
		if (rc < 0)
			goto fail;
	}
	tr->spec = param_spec_string(ops->name, ops->params, tr->params);
	if (!tr->spec) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto fail;
	}
	*out = tr;
	return 0;
fail:
	traffic_free(tr);
	return rc;
}

void traffic_print_help(FILE *f)
{
	size_t n;
	const struct traffic_ops *const *all = traffic_list(&n);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "  %-12s %s\n", all[i]->name, all[i]->help);
		param_print_help(f, all[i]->params, "      ");
	}
}

static const char *const traffic_process_names[] = {"bernoulli", NULL};
static const char *const traffic_class_names[] = {"source", "dest", NULL};

static const struct param_def traffic_keys[] = {
	{"traffic", PARAM_SPEC, offsetof(struct traffic_cfg, traffic), "uniform", 0, 0,
	 "traffic pattern spec (see 'netloom run --help')", NULL},
	{"injection_rate", PARAM_DOUBLE, offsetof(struct traffic_cfg, injection_rate), "0.1", 0, 1,
	 "offered load, flits/cycle per endpoint", NULL},
	{"injection_process", PARAM_CHOICE, offsetof(struct traffic_cfg, injection_process), "bernoulli", 0,
	 0, "arrival process of packets", traffic_process_names},
	{"packet_size", PARAM_RANGE, offsetof(struct traffic_cfg, packet_size), "1", 1, 65535,
	 "flits per packet: a number, or lo..hi for uniformly distributed sizes", NULL},
	{"traffic_class", PARAM_CHOICE, offsetof(struct traffic_cfg, traffic_class), "source", 0, 0,
	 "class of a packet when [router] traffic_classes > 1: source (source endpoint mod classes) or "
	 "dest (destination endpoint mod classes)", traffic_class_names},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

const struct config_table traffic_table = {
	"traffic", "synthetic traffic (BookSim2 names; rates in flits)", traffic_keys,
	sizeof(struct traffic_cfg)};
