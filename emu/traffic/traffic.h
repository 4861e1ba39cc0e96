/* Synthetic traffic patterns: who sends to whom.
 *
 * A pattern is a `const struct traffic_ops` registered by name; each is
 * defined as in the paper that uses it or in Dally & Towles ch. 3 /
 * BookSim2. Patterns that need a power-of-two endpoint count use the
 * largest power of two (of four, for transpose) not above the endpoint
 * count and leave the rest of the endpoints idle: they neither send nor
 * receive, as the FleX paper does (seed 000 §IV-B).
 */
#ifndef NETLOOM_TRAFFIC_TRAFFIC_H
#define NETLOOM_TRAFFIC_TRAFFIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/param.h"

struct nl_err;
struct rng;
struct topo;
struct config_table;

/* [traffic]: synthetic traffic (BookSim2's key names). */
struct traffic_cfg {
	char traffic[PARAM_STR_MAX];   /* pattern spec, "uniform" */
	double injection_rate;         /* flits/cycle per active endpoint */
	int injection_process;         /* 0 bernoulli */
	struct param_range packet_size; /* flits, fixed or uniform in lo..hi */
	int traffic_class;             /* TRAFFIC_CLASS_*: a packet's class from its endpoints */
};

/* [traffic] traffic_class: the class of a packet, modulo [router]
 * traffic_classes (so any rule is class 0 when classes are off). */
enum { TRAFFIC_CLASS_SOURCE, TRAFFIC_CLASS_DEST };

extern const struct config_table traffic_table;

#define TRAFFIC_NONE UINT32_MAX

enum {
	TRAFFIC_F_POW2 = 1u << 0, /* needs a power-of-two number of endpoints */
	TRAFFIC_F_POW4 = 1u << 1, /* needs a power of four (even bit count) */
};

struct traffic {
	const struct traffic_ops *ops;
	const struct topo *topo; /* not owned */
	void *params;            /* owned */
	void *state;             /* owned, ops->state_size bytes */
	char *spec;              /* canonical spec (owned) */
	uint64_t seed;
	uint32_t n_active;       /* endpoints 0..n_active-1 take part */
	uint32_t bits;           /* log2(n_active) for bit patterns */
};

struct traffic_ops {
	const char *name;
	const char *help;
	const struct param_def *params;
	size_t params_size;
	size_t state_size;
	unsigned flags;
	/* Optional: precompute (random permutations, hot-spot tables, ...). */
	int (*init)(struct traffic *tr, struct nl_err *err);
	void (*release)(struct traffic *tr);
	/* Destination endpoint of the next packet from src (< n_active), or
	 * TRAFFIC_NONE when src sends nothing. rng is src's stream. */
	uint32_t (*dest)(const struct traffic *tr, uint32_t src, struct rng *rng);
};

const struct traffic_ops *const *traffic_list(size_t *n);
const struct traffic_ops *traffic_find(const char *name, struct nl_err *err);

/* Parse and set up a pattern over t's endpoints. */
/* Whether spec names a pattern with parameters that parse: traffic_new's
 * refusals of the spec itself, same messages, without a network (what
 * needs the network, its endpoint count, is left to traffic_new). */
int traffic_spec_check(const char *spec, struct nl_err *err);

int traffic_new(const char *spec, const struct topo *t, uint64_t seed, struct traffic **out,
		struct nl_err *err);
void traffic_free(struct traffic *tr);

/* How many of n_endpoints the pattern spec would use, without building it:
 * n_endpoints, or fewer for a bit pattern, which takes the largest power of
 * two (four) that fits. *need is then "a power of two" ("a power of four"),
 * else NULL. A spec traffic_new refuses gives n_endpoints (the run reports
 * the error). */
uint32_t traffic_spec_active(const char *spec, uint32_t n_endpoints, const char **need);
void traffic_print_help(FILE *f);

/* Whether endpoint e takes part (sends and receives). */
static inline bool traffic_is_active(const struct traffic *tr, uint32_t e)
{
	return e < tr->n_active;
}

#endif
