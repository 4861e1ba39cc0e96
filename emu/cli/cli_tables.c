/* The configuration tables every command accepts, in the order
 * `netloom config --dump` prints them. A module with run-time keys adds its
 * table here (one line). */
#include "app/app.h"
#include "cli/cli.h"
#include "core/config.h"
#include "net/net.h"
#include "traffic/traffic.h"

extern const struct config_table net_analytic_config; /* emu/net/backend_analytic.c */

static const struct config_table *const cli_tables[] = {
	&net_network_table,
	&net_router_table,
	&traffic_table,
	&net_sim_table,
	&app_config_table,
	&net_analytic_config,
};

const struct config_table *const *cli_config_tables(size_t *n)
{
	*n = 0;
	while (*n < sizeof cli_tables / sizeof *cli_tables && cli_tables[*n])
		(*n)++;
	return cli_tables;
}
