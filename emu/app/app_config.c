/* The [replay] configuration table and algorithm names.
 *
 * Defaults: eager_threshold = 4040 bytes is the largest payload Open MPI
 * 4.1 sends eagerly over shared memory, the transport our samples were
 * recorded on: btl/vader's eager limit is 4096 bytes per fragment
 * (btl_vader_component.c, without xpmem) and ob1 takes the largest PML
 * header, 56 bytes (mca_pml_ob1_rdma_hdr_t), off it (pml_ob1_sendreq.h);
 * its TCP limit, btl_tcp_eager_limit, is 65536; coll_knomial_radix = 4 is
 * Open MPI's coll_tuned_bcast_knomial_radix default. The network's keys
 * (topology, packet_bytes, ...) are the [network] table's.
 */
#include <stddef.h>
#include <string.h>

#include "app/app.h"
#include "core/config.h"
#include "core/error.h"
#include "core/param.h"

static const char *const app_alg_names[APP_ALG__COUNT] = {
#define APP_ALG_NAME_(name, text) text,
	APP_ALG_MAP(APP_ALG_NAME_)
#undef APP_ALG_NAME_
};

static const char *const app_coll_names[APP_COLL__COUNT] = {
#define APP_COLL_NAME_(name, text) text,
	APP_COLL_MAP(APP_COLL_NAME_)
#undef APP_COLL_NAME_
};

const char *app_alg_name(unsigned alg)
{
	return alg < APP_ALG__COUNT ? app_alg_names[alg] : NULL;
}

const char *app_coll_name(unsigned coll)
{
	return coll < APP_COLL__COUNT ? app_coll_names[coll] : NULL;
}

/* Which algorithms each collective accepts (app_coll_plan implements
 * exactly these). */
static const char *const alg_barrier[] = {"auto", "linear", "binomial", "recursive_doubling", "bruck",
					  "ring", NULL};
static const char *const alg_bcast[] = {"auto", "linear", "binomial", "knomial", "binary", "chain",
					"scatter_allgather", "scatter_allgather_ring", NULL};
static const char *const alg_reduce[] = {"auto", "linear", "binomial", "binary", "chain", "rabenseifner",
					 NULL};
static const char *const alg_allreduce[] = {"auto", "linear", "reduce_bcast", "recursive_doubling", "ring",
					    "rabenseifner", NULL};
static const char *const alg_gather[] = {"auto", "linear", "binomial", NULL};
static const char *const alg_linear[] = {"auto", "linear", NULL};
static const char *const alg_allgather[] = {"auto", "linear", "gather_bcast", "recursive_doubling", "ring",
					    "bruck", "neighbor", NULL};
static const char *const alg_allgatherv[] = {"auto", "linear", "gather_bcast", "ring", "bruck", "neighbor",
					     NULL};
static const char *const alg_alltoall[] = {"auto", "linear", "pairwise", "bruck", NULL};
static const char *const alg_alltoallv[] = {"auto", "linear", "pairwise", NULL};
static const char *const alg_reduce_scatter[] = {"auto", "linear", "recursive_halving", "ring", NULL};
static const char *const alg_scan[] = {"auto", "linear", "recursive_doubling", NULL};

#define APP_KEY_ALG(coll, text, list)                                                                  \
	{"coll_" text "_algorithm", PARAM_CHOICE, offsetof(struct app_config, coll_alg) + (coll) * sizeof(int), \
	 "auto", 0, 0, "algorithm of the " text " collective and its non-blocking form (auto: as Open MPI 4.1.4 chooses)", list}

static const char *const app_rndv_names[] = {"rts_cts", "get", NULL};

static const struct param_def app_keys[] = {
	{"backend", PARAM_STRING, offsetof(struct app_config, backend), "analytic", 0, 0,
	 "network model under the replay (see 'netloom replay --help')", NULL},
	{"eager_threshold", PARAM_INT, offsetof(struct app_config, eager_threshold), "4040", 0, 1099511627776.0,
	 "largest message sent eagerly, bytes; larger ones use rendezvous (RTS, CTS, data)", NULL},
	{"rndv_protocol", PARAM_CHOICE, offsetof(struct app_config, rndv_protocol), "rts_cts", 0, 0,
	 "rendezvous: rts_cts (RTS, CTS, then the sender pushes the data) or get (RTS, the receiver "
	 "pulls the data, then FIN; Open MPI's shared memory with CMA, RDMA-read transports)",
	 app_rndv_names},
	{"cpu_factor", PARAM_DOUBLE, offsetof(struct app_config, cpu_factor), "1", 1e-6, 1e6,
	 "multiplier of recorded compute intervals (0.5 = a CPU twice as fast)", NULL},
	{"cpu_flops", PARAM_DOUBLE, offsetof(struct app_config, cpu_flops), "1e9", 1, 1e18,
	 "flop/s of a rank, for traces that give compute as flop counts", NULL},
	{"coll_knomial_radix", PARAM_INT, offsetof(struct app_config, knomial_radix), "4", 2, 64,
	 "radix of the k-nomial bcast tree", NULL},
	APP_KEY_ALG(APP_COLL_BARRIER, "barrier", alg_barrier),
	APP_KEY_ALG(APP_COLL_BCAST, "bcast", alg_bcast),
	APP_KEY_ALG(APP_COLL_REDUCE, "reduce", alg_reduce),
	APP_KEY_ALG(APP_COLL_ALLREDUCE, "allreduce", alg_allreduce),
	APP_KEY_ALG(APP_COLL_GATHER, "gather", alg_gather),
	APP_KEY_ALG(APP_COLL_GATHERV, "gatherv", alg_linear),
	APP_KEY_ALG(APP_COLL_SCATTER, "scatter", alg_gather),
	APP_KEY_ALG(APP_COLL_SCATTERV, "scatterv", alg_linear),
	APP_KEY_ALG(APP_COLL_ALLGATHER, "allgather", alg_allgather),
	APP_KEY_ALG(APP_COLL_ALLGATHERV, "allgatherv", alg_allgatherv),
	APP_KEY_ALG(APP_COLL_ALLTOALL, "alltoall", alg_alltoall),
	APP_KEY_ALG(APP_COLL_ALLTOALLV, "alltoallv", alg_alltoallv),
	APP_KEY_ALG(APP_COLL_ALLTOALLW, "alltoallw", alg_alltoallv),
	APP_KEY_ALG(APP_COLL_REDUCE_SCATTER, "reduce_scatter", alg_reduce_scatter),
	APP_KEY_ALG(APP_COLL_REDUCE_SCATTER_BLOCK, "reduce_scatter_block", alg_reduce_scatter),
	APP_KEY_ALG(APP_COLL_SCAN, "scan", alg_scan),
	APP_KEY_ALG(APP_COLL_EXSCAN, "exscan", alg_scan),
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

const struct config_table app_config_table = {
	.section = "replay",
	.help = "MPI trace replay: protocols, CPU scaling, collective algorithms",
	.keys = app_keys,
	.struct_size = sizeof(struct app_config),
};

int app_config_bind(const struct config *cfg, struct app_config *out, struct nl_err *err)
{
	memset(out, 0, sizeof *out);
	NL_CHECK(cfg ? config_bind(cfg, &app_config_table, out, err)
		     : param_defaults(app_keys, out, "[replay] defaults", err));
	/* The choice index is into each key's own list; turn it into the
	 * algorithm enum. */
	for (const struct param_def *d = app_keys; d->name; d++) {
		if (d->type != PARAM_CHOICE || strncmp(d->name, "coll_", 5))
			continue;
		int *slot = (int *)(void *)((char *)out + d->offset);
		const char *name = d->choices[*slot];
		int alg = -1;
		for (int i = 0; i < APP_ALG__COUNT; i++)
			if (!strcmp(app_alg_names[i], name))
				alg = i;
		if (alg < 0)
			NL_BUG("replay: algorithm '%s' of %s has no enum", name, d->name);
		*slot = alg;
	}
	return 0;
}
