/* Synthetic traces for the replay tests: per-rank op lists built in code
 * and fed through the app_source callback, plus a one-call replay on the
 * analytic backend with "key=value" settings. */
#ifndef NETLOOM_TESTS_APP_SYNTH_H
#define NETLOOM_TESTS_APP_SYNTH_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "core/config.h"
#include "core/error.h"
#include "net/net.h"
#include "traces/trace.h"

#define SYN_MAX_RANKS 64

struct syn {
	uint32_t n_ranks;
	struct trace_op *ops[SYN_MAX_RANKS];
	size_t n[SYN_MAX_RANKS], cap[SYN_MAX_RANKS], pos[SYN_MAX_RANKS];
	struct trace_comm comms[8];
	uint32_t n_comms;
};

static inline void syn_init(struct syn *s, uint32_t n_ranks)
{
	memset(s, 0, sizeof *s);
	s->n_ranks = n_ranks;
}

static inline void syn_free(struct syn *s)
{
	for (uint32_t r = 0; r < SYN_MAX_RANKS; r++)
		free(s->ops[r]);
	for (uint32_t i = 0; i < s->n_comms; i++)
		free(s->comms[i].world_ranks);
	memset(s, 0, sizeof *s);
}

static inline struct trace_op *syn_add(struct syn *s, uint32_t r, uint16_t kind)
{
	if (s->n[r] == s->cap[r]) {
		s->cap[r] = s->cap[r] ? 2 * s->cap[r] : 16;
		s->ops[r] = realloc(s->ops[r], s->cap[r] * sizeof *s->ops[r]);
	}
	struct trace_op *op = &s->ops[r][s->n[r]++];
	memset(op, 0, sizeof *op);
	op->kind = kind;
	return op;
}

static inline void syn_compute(struct syn *s, uint32_t r, uint64_t ps)
{
	syn_add(s, r, TOP_COMPUTE)->dur_ps = ps;
}

static inline struct trace_op *syn_p2p(struct syn *s, uint32_t r, uint16_t kind, int32_t peer, int32_t tag,
				       uint64_t bytes)
{
	struct trace_op *op = syn_add(s, r, kind);
	op->peer = peer;
	op->tag = tag;
	op->bytes = bytes;
	return op;
}

static inline void syn_send(struct syn *s, uint32_t r, int32_t peer, int32_t tag, uint64_t bytes)
{
	syn_p2p(s, r, TOP_SEND, peer, tag, bytes);
}

static inline void syn_recv(struct syn *s, uint32_t r, int32_t peer, int32_t tag, uint64_t bytes)
{
	syn_p2p(s, r, TOP_RECV, peer, tag, bytes);
}

static inline void syn_isend(struct syn *s, uint32_t r, int32_t peer, int32_t tag, uint64_t bytes, uint32_t req)
{
	syn_p2p(s, r, TOP_ISEND, peer, tag, bytes)->req = req;
}

static inline void syn_irecv(struct syn *s, uint32_t r, int32_t peer, int32_t tag, uint64_t bytes, uint32_t req)
{
	syn_p2p(s, r, TOP_IRECV, peer, tag, bytes)->req = req;
}

static inline void syn_wait(struct syn *s, uint32_t r, uint32_t req)
{
	syn_add(s, r, TOP_WAIT)->req = req;
}

/* reqs must outlive the replay (static arrays in the tests). */
static inline void syn_waitlist(struct syn *s, uint32_t r, uint16_t kind, const uint32_t *reqs, uint32_t n,
				uint32_t n_done)
{
	struct trace_op *op = syn_add(s, r, kind);
	op->reqs = reqs;
	op->n_reqs = n;
	op->n_done = n_done;
}

static inline struct trace_op *syn_coll(struct syn *s, uint32_t r, uint16_t kind, uint32_t comm, int32_t root,
					uint64_t bytes, uint64_t recv_bytes)
{
	struct trace_op *op = syn_add(s, r, kind);
	op->comm = comm;
	op->peer = root;
	op->bytes = bytes;
	op->recv_bytes = recv_bytes;
	return op;
}

static inline void syn_comm(struct syn *s, uint32_t id, uint32_t size, const uint32_t *world)
{
	struct trace_comm *c = &s->comms[s->n_comms++];
	c->id = id;
	c->size = size;
	c->world_ranks = malloc(size * sizeof *c->world_ranks);
	memcpy(c->world_ranks, world, size * sizeof *c->world_ranks);
}

static inline int syn_next(void *ctx, uint32_t rank, struct trace_op *op, struct nl_err *err)
{
	struct syn *s = ctx;
	(void)err;
	if (s->pos[rank] >= s->n[rank])
		return 0;
	*op = s->ops[rank][s->pos[rank]++];
	return 1;
}

/* A finished replay and what it ran on. */
struct syn_run {
	struct config cfg;
	struct net_backend net;
	struct app *app;
	int rc;
	struct nl_err err;
	struct trace_archive *arch;         /* syn_replay_archive only */
	struct app_archive_source *arch_src;
};

/* Replay s on the analytic backend with settings ("key=value", NULL-ended)
 * and, if on_match is not NULL, that match observer (app_set_match_hook);
 * fills run (release with syn_run_free). Returns app_run's result. */
static inline int syn_replay_src_hook(const struct app_source *src, const char *const *settings,
				      app_match_fn on_match, void *match_ctx, struct syn_run *run)
{
	static const struct config_table *tables[2];
	tables[0] = &app_config_table;
	tables[1] = net_backend_find("analytic", NULL)->config;
	config_init(&run->cfg, tables, 2);
	for (size_t i = 0; settings && settings[i]; i++)
		if ((run->rc = config_set(&run->cfg, settings[i], NULL, "-s", &run->err)) < 0)
			return run->rc;
	struct app_config ac;
	if ((run->rc = app_config_bind(&run->cfg, &ac, &run->err)) < 0)
		return run->rc;
	run->net.ops = net_backend_find("analytic", &run->err);
	if ((run->rc = run->net.ops->create(&run->net, &run->cfg, NULL, &run->err)) < 0) {
		run->net.ops = NULL;
		return run->rc;
	}
	if ((run->rc = app_new(&run->app, &ac, src, &run->net, NULL, &run->err)) < 0)
		return run->rc;
	if (on_match)
		app_set_match_hook(run->app, on_match, match_ctx);
	run->rc = app_run(run->app, NULL, &run->err);
	return run->rc;
}

static inline int syn_replay_src(const struct app_source *src, const char *const *settings,
				 struct syn_run *run)
{
	return syn_replay_src_hook(src, settings, NULL, NULL, run);
}

/* syn_replay with a match observer (NULL: none). */
static inline int syn_replay_hook(struct syn *s, const char *const *settings, app_match_fn on_match,
				  void *match_ctx, struct syn_run *run)
{
	memset(run, 0, sizeof *run);
	for (uint32_t r = 0; r < SYN_MAX_RANKS; r++)
		s->pos[r] = 0;
	struct app_source src = {.n_ranks = s->n_ranks, .n_comms = s->n_comms, .comms = s->comms,
				 .next = syn_next, .ctx = s};
	return syn_replay_src_hook(&src, settings, on_match, match_ctx, run);
}

static inline int syn_replay(struct syn *s, const char *const *settings, struct syn_run *run)
{
	return syn_replay_hook(s, settings, NULL, NULL, run);
}

/* The same for an archive file. */
static inline int syn_replay_archive(const char *nlt, const char *const *settings, struct syn_run *run)
{
	struct app_source src;
	memset(run, 0, sizeof *run);
	if ((run->rc = trace_archive_open(&run->arch, nlt, &run->err)) < 0 ||
	    (run->rc = app_archive_source_new(&run->arch_src, run->arch, &src, &run->err)) < 0)
		return run->rc;
	return syn_replay_src(&src, settings, run);
}

static inline void syn_run_free(struct syn_run *run)
{
	app_free(run->app);
	if (run->net.ops)
		run->net.ops->destroy(&run->net);
	config_release(&run->cfg);
	app_archive_source_free(run->arch_src);
	trace_archive_close(run->arch);
	memset(run, 0, sizeof *run);
}

#endif
