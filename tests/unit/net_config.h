/* Shared by the flit-model unit tests: the configuration tables a
 * synthetic run reads, a configuration from "key=value" strings, and one
 * operating point from them. */
#ifndef NETLOOM_TESTS_NET_CONFIG_H
#define NETLOOM_TESTS_NET_CONFIG_H

#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "net/net.h"
#include "traffic/traffic.h"

static const struct config_table *const all_tables[] = {
	&net_network_table,
	&net_router_table,
	&traffic_table,
	&net_sim_table,
};

/* A configuration from "key=value" strings (NULL-terminated). */
static inline int make_config(struct config *c, const char *const *kv, struct nl_err *e)
{
	config_init(c, all_tables, sizeof all_tables / sizeof *all_tables);
	for (int i = 0; kv[i]; i++)
		NL_CHECK(config_set(c, kv[i], NULL, "test", e));
	return 0;
}

/* One synthetic operating point of the configuration kv. */
static inline int run_point_kv(const char *const *kv, struct net_point *pt, struct nl_err *e)
{
	struct config cfg;
	memset(pt, 0, sizeof *pt);
	int rc = make_config(&cfg, kv, e);
	if (rc == 0)
		rc = net_run_point_cfg(&cfg, pt, e);
	config_release(&cfg);
	return rc;
}

#endif
