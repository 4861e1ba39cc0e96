/* The message-level backends, by name. A new backend is one file, one line
 * here and one line in meson.build. */
#include "net/net.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"

extern const struct net_backend_ops net_backend_flit_ops;
extern const struct net_backend_ops net_analytic_ops; /* backend_analytic.c */

static const struct net_backend_ops *const net_backends[] = {
	&net_analytic_ops,
	&net_backend_flit_ops,
};

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
	char names[256] = "";
	size_t used = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(names + used, used < sizeof names ? sizeof names - used : 0,
					 "%s%s", i ? ", " : "", all[i]->name);
	nl_errf(err, NL_ENOTFOUND, "unknown network backend '%s' (valid: %s)", name, names);
	return NULL;
}
