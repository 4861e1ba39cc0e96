/* The message-level backends, by name. A new backend is one file, one line
 * here and one line in meson.build. */
#include "net/net.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "core/registry.h"

extern const struct net_backend_ops net_backend_flit_ops;
extern const struct net_backend_ops net_analytic_ops; /* backend_analytic.c */

static const struct net_backend_ops *const net_backends[] = {
	&net_analytic_ops,
	&net_backend_flit_ops,
};

int net_time_check(const char *what, bool send, uint64_t at_ps, uint64_t reached_ps, struct nl_err *err)
{
	if (at_ps < reached_ps)
		return nl_errf(err, NL_ESTATE, "%s: %s %" PRIu64 " ps, before the reached time %" PRIu64 " ps", what,
			       send ? "send at" : "advance to", at_ps, reached_ps);
	if (send && at_ps > NET_TIME_MAX_PS)
		return nl_errf(err, NL_ERANGE,
			       "%s: send at %" PRIu64 " ps: expected at most %" PRIu64
			       " ps (2^62 ps, about 53 days; later times would overflow)",
			       what, at_ps, NET_TIME_MAX_PS);
	return 0;
}

const struct net_backend_ops *const *net_backend_list(size_t *n)
{
	*n = 0;
	while (*n < sizeof net_backends / sizeof *net_backends && net_backends[*n])
		(*n)++;
	return net_backends;
}

const struct net_backend_ops *net_backend_find(const char *name, struct nl_err *err)
{
	size_t n;
	const struct net_backend_ops *const *all = net_backend_list(&n);
	return registry_find((const void *const *)all, n, name, "network backend", err);
}

int net_backend_new(const struct net_backend_ops *ops, const struct config *cfg, const struct topo *t,
		    struct net_backend **out, struct nl_err *err)
{
	return net_backend_new_mpi(ops, cfg, t, NULL, out, err);
}

/* A backend that cannot run over MPI ranks, named where it was set (the
 * file:line or -s), or as the default when nobody set it: the user who
 * left backend unset never wrote 'analytic'. */
static int net_backend_refuse_mpi(const struct net_backend_ops *ops, const struct config *cfg, struct nl_err *err)
{
	bool is_set = cfg && config_get(cfg, "backend");
	int rc = nl_errf(err, NL_EUNSUPPORTED,
			 "key 'backend': value '%s'%s does not spread over MPI ranks; expected flit, or run without "
			 "mpirun",
			 ops->name, is_set ? "" : " (the default)");
	return cfg && err ? config_err_file_line(cfg, "backend", err) : rc;
}

int net_backend_new_mpi(const struct net_backend_ops *ops, const struct config *cfg, const struct topo *t,
			struct net_mpi *mpi, struct net_backend **out, struct nl_err *err)
{
	if (!t && !ops->topology_optional)
		return nl_errf(err, NL_EINVAL, "network backend '%s' needs a topology", ops->name);
	if (mpi && !ops->spreads_over_ranks)
		return net_backend_refuse_mpi(ops, cfg, err);
	struct net_backend *b = calloc(1, sizeof *b);
	if (!b)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	b->ops = ops;
	b->mpi = mpi;
	int rc = ops->create(b, cfg, t, err);
	if (rc < 0) {
		free(b);
		return rc;
	}
	*out = b;
	return 0;
}

void net_backend_free(struct net_backend *b)
{
	if (!b)
		return;
	b->ops->destroy(b);
	free(b);
}

int net_backend_count_jobs(struct net_backend *b, const uint32_t *ep_job, uint32_t n_jobs, struct nl_err *err)
{
	if (!b->ops->count_jobs)
		return nl_errf(err, NL_EUNSUPPORTED, "network backend '%s' cannot count link use per job", b->ops->name);
	return b->ops->count_jobs(b, ep_job, n_jobs, err);
}

int net_backend_job_links(struct net_backend *b, const struct net_job_use **use, size_t *n, const char **unit,
			  struct nl_err *err)
{
	if (!b->ops->job_links)
		return nl_errf(err, NL_EUNSUPPORTED, "network backend '%s' cannot count link use per job", b->ops->name);
	return b->ops->job_links(b, use, n, unit, err);
}
