/* Internals of `netloom compare` (emu/session/session_compare*.c): the
 * study as read and validated, its runs, and the report built from them. */
#ifndef NETLOOM_SESSION_COMPARE_INTERNAL_H
#define NETLOOM_SESSION_COMPARE_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>

#include "core/error.h"
#include "layout/layout.h"
#include "session/session.h"

#define CMP_MAX_SYS 32
#define CMP_MAX_WL 32
#define CMP_MAX_KEYS 32
#define CMP_MAX_SEEDS 64

struct cmp_kv {
	char *key, *value;
	int line;
};

struct cmp_sys {
	char *name;
	char *config;              /* resolved path, or NULL */
	int config_line;
	struct cmp_kv kv[CMP_MAX_KEYS];
	uint32_t n_kv;
	/* After validation. */
	uint32_t endpoints;
	char *topology;
	struct layout_summary cost;
	bool cost_ok;
	char cost_err[NL_ERR_MSG_MAX];
};

struct cmp_wl {
	char *name;
	char *trace;               /* resolved path */
	int trace_line;
	uint32_t ranks;            /* 0: as the trace */
	double weight;
	char *placement;
	/* After validation. */
	uint64_t trace_hash;       /* XXH64 of the archive's bytes */
	uint32_t trace_ranks;
};

/* One replay: system s, workload w, seed index k. */
struct cmp_run {
	uint32_t s, w, k;
	int status;                /* 0 ok, 1 deadlock, 2 error */
	double runtime_s;
	bool cached;
	char key[20];
	char err[NL_ERR_MSG_MAX];
};

struct cmp {
	const char *path;
	char dir[1024];            /* of the study file: relative paths start here */
	char *backend, *preset, *reference;
	uint32_t n_seeds;
	struct cmp_sys sys[CMP_MAX_SYS];
	uint32_t n_sys;
	struct cmp_wl wl[CMP_MAX_WL];
	uint32_t n_wl;
	char section[128];         /* the section being read */
	FILE *f;                   /* the study file while it is read */
	int line;                  /* its line being read (1-based) */
	bool at_start;             /* the next read starts a line */
	char *problems;            /* one line each */
	size_t n_problems, len_problems;
	/* Runs. */
	struct cmp_run *runs;
	uint32_t n_runs;
	const struct session_compare_opts *o;
	atomic_uint next;
	pthread_mutex_t mu;
	uint32_t done;
};

static inline uint64_t cmp_seed(uint32_t k)
{
	return (uint64_t)k + 1;
}

/* The report: report.json's document and report.md's text (NULL when
 * out of memory). */
json_t *cmp_doc(const struct cmp *c);
char *cmp_md(const struct cmp *c);

#endif
