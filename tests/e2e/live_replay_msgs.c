/* live_replay_msgs: replay an archive (a `netloom serve --record` session)
 * through the same engine the server uses, and write every matched
 * message's virtual times in the server's --messages format, so a test can
 * compare the live session with its replay byte for byte.
 *   live_replay_msgs TRACE.nlt OUT.txt [key=value ...]
 */
#include <stdio.h>
#include <stdlib.h>

#include "adapters/adapters.h"
#include "app/app.h"
#include "cli/cli.h"
#include "session/session.h"
#include "core/config.h"
#include "core/error.h"
#include "traces/trace.h"

static void on_match(void *ctx, const struct app_match_info *mi)
{
	live_match_line(ctx, mi);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: live_replay_msgs TRACE.nlt OUT.txt [key=value ...]\n");
		return 2;
	}
	struct nl_err err = {0};
	nl_sim *sim = NULL;
	struct trace_archive *a = NULL;
	struct app_archive_source *as = NULL;
	struct session_src *e = NULL;
	struct app_source src;
	FILE *out = NULL;
	int rc;
	if ((rc = nl_sim_new(&sim, &err)) < 0)
		goto fail;
	for (int i = 3; i < argc; i++)
		if ((rc = nl_sim_set(sim, argv[i], NULL, &err)) < 0)
			goto fail;
	if (!(out = fopen(argv[2], "w"))) {
		fprintf(stderr, "live_replay_msgs: cannot write %s\n", argv[2]);
		return 1;
	}
	/* The server's wiring: the session over the archive as its op source. */
	struct session_src_opts so = {.src = &src, .wall_compute = true, .on_match = on_match, .match_ctx = out};
	if ((rc = trace_archive_open(&a, argv[1], &err)) < 0 || (rc = app_archive_source_new(&as, a, &src, &err)) < 0 ||
	    (rc = session_src_new(&e, sim, &so, &err)) < 0)
		goto fail;
	if ((rc = session_src_run(e, &err)) < 0)
		goto fail;
	fprintf(stdout, "runtime_ps %llu\n", (unsigned long long)app_results(session_src_app(e))->runtime_ps);
	fclose(out);
	session_src_free(e);
	app_archive_source_free(as);
	trace_archive_close(a);
	nl_sim_free(sim);
	return 0;
fail:
	fprintf(stderr, "live_replay_msgs: %s\n", err.msg);
	return 1;
}
