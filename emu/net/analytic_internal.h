/* The analytic backend, private to emu/net: its state, shared by
 * backend_analytic.c (the model: keys, sends, deliveries), analytic_route.c
 * (minimal routes) and analytic_report.c (the report). */
#ifndef NETLOOM_NET_ANALYTIC_INTERNAL_H
#define NETLOOM_NET_ANALYTIC_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/evheap.h"
#include "core/param.h"
#include "net/analytic_jobs.h"
#include "net/calibration.h"
#include "net/net.h"

struct nl_err;
struct topo;

enum { ANALYTIC_LINK_NONE, ANALYTIC_LINK_ENDPOINT, ANALYTIC_LINK_LINKS, ANALYTIC_LINK_BUS };
enum { ANALYTIC_PATH_SPREAD, ANALYTIC_PATH_FIRST };

struct analytic_params {
	double latency_ns;     /* fixed per-message latency */
	double bandwidth_gbps; /* per message (none) or per channel */
	double hop_latency_ns; /* per router hop of the route */
	int link_model;        /* ANALYTIC_LINK_* */
	int path_select;       /* ANALYTIC_PATH_*: choice among equal-cost next hops */
	bool ideal;            /* zero latency, infinite bandwidth */
	int64_t report_links;  /* busiest channels listed in the report */
	char calibration[PARAM_STR_MAX]; /* measured one-way times (JSON), "" = none */
	int64_t calibration_ranks;       /* which ping-pong run of the file */
};

/* The keys' choices, by value: link_model's and path_select's names. */
extern const char *const analytic_link_models[];
extern const char *const analytic_path_selects[];

/* Channel accounting for the report. */
struct analytic_chan {
	uint64_t free_ps; /* when the channel can take the next message */
	uint64_t busy_ps; /* total time reserved */
	uint64_t bytes;   /* payload carried */
	uint64_t msgs;
};

struct analytic {
	struct analytic_params p;
	const struct topo *t;
	double ps_per_byte;   /* 8000 / Gbit/s */
	uint64_t latency_ps;
	uint64_t hop_ps;

	struct evheap done;   /* message completions, data = message id */
	uint64_t reached_ps;

	/* Channels: [0, n_inj) injection of endpoint e, [n_inj, 2 n_inj)
	 * ejection, then (links) one per global router port. Without a
	 * topology the endpoint arrays grow with the largest endpoint seen. */
	struct analytic_chan *chan;
	size_t n_ep;          /* endpoints covered by the injection/ejection arrays */
	size_t n_chan;
	uint32_t *route;      /* scratch: global ports of one route's router channels */
	uint64_t *off;        /* scratch: when the message enters each, ps after leaving its source router */
	size_t cap_route;
	uint64_t *link_ps;    /* [n_ports] per-channel latency (cable_latency), NULL: none */
	uint64_t cable_ps;    /* per-channel latency summed over every message's route */
	uint16_t *dist;       /* all-pairs router distances, irregular topologies only */

	struct analytic_chan bus; /* link_model = bus */
	uint64_t n_msgs, n_bytes;

	/* count_jobs (issue 13): payload bytes per (router channel, job of the
	 * source endpoint), for the pairs messages used only (analytic_jobs.c) */
	struct analytic_jobs jobs;

	/* calibration: one-way time (ps) measured at sizes, increasing; the
	 * ping-pong's and (optional, n = 0 when absent) the exchange's */
	struct net_cal cal, cal_x;
};

/* analytic_route.c. */
/* The all-pairs router distance table (a->dist) of a topology that needs
 * one for routes and hop counts without a BFS per message: neither a grid
 * nor a family with minimal next hops (graph files, random networks); 0
 * and nothing built for the others or when built already. NL_EUNSUPPORTED
 * past ANALYTIC_DIST_MAX_ROUTERS routers, NL_ENOMEM. */
int analytic_build_dist(struct analytic *a, struct nl_err *err);
/* Router hops from router x to router y: the table's, else the topology's. */
uint32_t analytic_router_distance(const struct analytic *a, uint32_t x, uint32_t y);
/* The minimal route's router-to-router channels from src_ep to dst_ep:
 * their global ports in a->route[0, *h), the time from leaving the
 * source's router to entering each in a->off[] (one hop latency per
 * router plus the cables crossed before it), and *path_ps, the time to
 * the destination's router (h hop latencies plus every cable). */
int analytic_path(struct analytic *a, uint32_t src_ep, uint32_t dst_ep, size_t *h, uint64_t *path_ps);

/* analytic_report.c: the report into out (net_backend_ops.report). */
int analytic_report(struct net_backend *b, json_t *out, struct nl_err *err);

#endif
