/* The network below the message layer: the net_backend interface.
 *
 * Everything above the NIC speaks messages; everything below speaks packets
 * and flits. A backend takes messages (source endpoint, destination
 * endpoint, bytes, an id of the caller's) and reports when each one has
 * fully arrived. Two implementations: the flit-level model (the product)
 * and an analytical latency/bandwidth model. The app layer does not know
 * which one runs.
 *
 * Time contract (conservative co-simulation): the caller alternates
 * send() at its current time and advance() to its next event time. advance
 * stops early at the first instant at which some message completes, reports
 * every message completing at that instant, and says how far it got, so the
 * caller can react (send a reply) at that instant without the network
 * having run past it. Times are picoseconds.
 */
#ifndef NETLOOM_NET_NET_H
#define NETLOOM_NET_NET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct config;
struct config_table;
struct json_t;
struct nl_err;
struct topo;
struct net_backend;

/* Called for each delivered message: its id and the time its last byte
 * arrived at the destination endpoint. */
typedef void (*net_deliver_fn)(void *ctx, uint64_t msg_id, uint64_t t_ps);

struct net_backend_ops {
	const char *name; /* "flit", "analytic" */
	const char *help; /* one line */

	/* Configuration keys this backend reads (shown by config --keys and
	 * recorded in results); NULL for none. */
	const struct config_table *config;

	/* Set up over topology t (kept by pointer, caller owns it; the
	 * analytic backend accepts NULL) with the backend's keys from cfg.
	 * b->ops is set; the backend owns b->state. */
	int (*create)(struct net_backend *b, const struct config *cfg, const struct topo *t,
		      struct nl_err *err);
	void (*destroy)(struct net_backend *b);

	/* Hand a message to the network at now_ps, which is never earlier than
	 * the time the network has reached. bytes may be 0 (a control
	 * message still crosses the network as one minimal packet). */
	int (*send)(struct net_backend *b, uint64_t now_ps, uint32_t src_ep, uint32_t dst_ep,
		    uint64_t bytes, uint64_t msg_id, struct nl_err *err);

	/* Run the network towards until_ps; stop at the first instant t <=
	 * until_ps at which messages complete, calling deliver() for each of
	 * them (in a deterministic order). *reached_ps gets the time the
	 * network reached (t, or until_ps when nothing completed);
	 * *next_ps the earliest time anything can happen next (UINT64_MAX when
	 * the network is empty), so an idle caller can jump. Fails with
	 * NL_EDEADLOCK when the network stalls. */
	int (*advance)(struct net_backend *b, uint64_t until_ps, net_deliver_fn deliver, void *ctx,
		       uint64_t *reached_ps, uint64_t *next_ps, struct nl_err *err);

	/* Add the backend's own results (link utilisation, busiest links, ...)
	 * to the JSON object `out`. May be NULL. */
	int (*report)(struct net_backend *b, struct json_t *out, struct nl_err *err);
};

struct net_backend {
	const struct net_backend_ops *ops;
	void *state; /* the backend's own */
};

/* All backends, in registry order. */
const struct net_backend_ops *const *net_backend_list(size_t *n);

/* Backend by name, or NULL with *err listing the valid names. */
const struct net_backend_ops *net_backend_find(const char *name, struct nl_err *err);

#endif
