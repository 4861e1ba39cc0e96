/* A synthetic job as an op source (issue 13: background traffic beside
 * traced jobs in `netloom interfere`). Each rank runs `steps` times:
 * compute interval_ps, then one exchange of the pattern; MPI_Init first,
 * MPI_Finalize last. Closed loop: a step starts when the rank's previous
 * exchange has completed, so a rank offers at most bytes per interval.
 * Ops are generated as ranks pull them: memory is one small state per
 * rank whatever the step count.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "core/error.h"

static const char *const app_synth_names[] = {"alltoall", "shift", "ring", NULL};

struct app_synth_source {
	int pattern;               /* APP_SYNTH_* */
	uint32_t n_ranks;
	uint64_t bytes, interval_ps;
	uint64_t ops_per_rank;     /* init + steps x (compute?, exchange) + finalize */
	uint64_t *pos;             /* [n_ranks] ops handed out */
};

int app_synth_pattern_find(const char *name)
{
	for (int i = 0; app_synth_names[i]; i++)
		if (!strcmp(name, app_synth_names[i]))
			return i;
	return -1;
}

const char *app_synth_pattern_name(int pattern)
{
	return pattern >= 0 && pattern <= APP_SYNTH_RING ? app_synth_names[pattern] : NULL;
}

static int app_synth_next(void *ctx, uint32_t rank, struct trace_op *op, struct nl_err *err)
{
	struct app_synth_source *s = ctx;
	(void)err;
	uint64_t i = s->pos[rank];
	if (i >= s->ops_per_rank)
		return 0;
	s->pos[rank]++;
	memset(op, 0, sizeof *op);
	op->comm = TRACE_COMM_WORLD;
	if (i == 0) {
		op->kind = TOP_INIT;
		return 1;
	}
	if (i + 1 == s->ops_per_rank) {
		op->kind = TOP_FINALIZE;
		return 1;
	}
	if (s->interval_ps && (i - 1) % 2 == 0) {
		/* Both recorded times, so the job replays the same whatever
		 * compute_time the traced jobs beside it need. */
		op->kind = TOP_COMPUTE;
		op->dur_ps = op->cpu_ps = s->interval_ps;
		return 1;
	}
	uint32_t n = s->n_ranks;
	if (s->pattern == APP_SYNTH_ALLTOALL) {
		op->kind = TOP_ALLTOALL;
		op->bytes = op->recv_bytes = s->bytes;
		return 1;
	}
	uint32_t d = s->pattern == APP_SYNTH_SHIFT ? n / 2 : 1;
	op->kind = TOP_SENDRECV;
	op->peer = (int32_t)((rank + d) % n);
	op->recv_peer = (int32_t)((rank + n - d % n) % n);
	op->bytes = op->recv_bytes = s->bytes;
	return 1;
}

int app_synth_source_new(struct app_synth_source **out, int pattern, uint32_t n_ranks, uint64_t bytes,
			 uint64_t interval_ps, uint64_t steps, struct app_source *src, struct nl_err *err)
{
	*out = NULL;
	if (!app_synth_pattern_name(pattern) || n_ranks == 0 || n_ranks > APP_JOBS_MAX_RANKS || steps > UINT32_MAX)
		return nl_errf(err, NL_EINVAL, "synthetic job: pattern %d, %" PRIu32 " ranks, %" PRIu64 " steps: out of range",
			       pattern, n_ranks, steps);
	struct app_synth_source *s = calloc(1, sizeof *s);
	if (s)
		s->pos = calloc(n_ranks, sizeof *s->pos);
	if (!s || !s->pos) {
		app_synth_source_free(s);
		return nl_errf(err, NL_ENOMEM, "synthetic job: out of memory");
	}
	s->pattern = pattern;
	s->n_ranks = n_ranks;
	s->bytes = bytes;
	s->interval_ps = interval_ps;
	s->ops_per_rank = 2 + steps * (interval_ps ? 2 : 1);
	*src = (struct app_source){
		.n_ranks = n_ranks,
		.next = app_synth_next,
		.ctx = s,
		.total_ops = s->ops_per_rank * n_ranks,
	};
	*out = s;
	return 0;
}

void app_synth_source_free(struct app_synth_source *s)
{
	if (!s)
		return;
	free(s->pos);
	free(s);
}
