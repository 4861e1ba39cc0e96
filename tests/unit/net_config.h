/* Shared by the flit-model unit tests: the configuration tables a
 * synthetic run reads, a configuration from "key=value" strings, and one
 * operating point from them. */
#ifndef NETLOOM_TESTS_NET_CONFIG_H
#define NETLOOM_TESTS_NET_CONFIG_H

#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "net/net.h"
#include "net/net_internal.h"
#include "topo/topo.h"
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

/* A flit network under synthetic traffic, built from key=value strings
 * (test_flit.c, test_tclass.c): per-channel counts on, the traffic-class
 * rule of the configuration applied. */
struct fx {
	struct config cfg;
	struct topo *t;
	struct traffic *tr;
	struct flitnet *n;
};

static inline int fx_open(struct fx *f, const char *const *kv, struct nl_err *e)
{
	struct net_cfg nc;
	struct router_cfg rc;
	struct sim_cfg sc = {0}; /* mpi is not a key: config_bind leaves it */
	struct traffic_cfg tc;

	memset(f, 0, sizeof *f);
	NL_CHECK(make_config(&f->cfg, kv, e));
	NL_CHECK(config_bind(&f->cfg, &net_network_table, &nc, e));
	NL_CHECK(config_bind(&f->cfg, &net_router_table, &rc, e));
	NL_CHECK(config_bind(&f->cfg, &net_sim_table, &sc, e));
	NL_CHECK(config_bind(&f->cfg, &traffic_table, &tc, e));
	NL_CHECK(topo_new(nc.topology, &f->t, e));
	NL_CHECK(flitnet_new(&nc, &rc, &sc, f->t, &f->n, e));
	NL_CHECK(traffic_new(tc.traffic, f->t, (uint64_t)sc.seed, &f->tr, e));
	f->n->obs.count_channels = true;
	flitnet_set_class_rule(f->n, tc.traffic_class);
	return flitnet_set_traffic(f->n, f->tr, tc.injection_rate, (uint32_t)tc.packet_size.lo,
				   (uint32_t)tc.packet_size.hi, e);
}

static inline void fx_close(struct fx *f)
{
	flitnet_free(f->n);
	traffic_free(f->tr);
	topo_free(f->t);
	config_release(&f->cfg);
}

#endif
