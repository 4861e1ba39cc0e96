/* Example: one synthetic operating point through the public API, its
 * results as JSON on stdout (docs/api.md). Build it against an installed
 * netloom:
 *
 *   cc example_run.c $(pkg-config --cflags --libs netloom) -o example_run
 *   ./example_run [CONFIG.ini] [key=value]...
 *
 * It prints what `netloom run [-c CONFIG.ini] [-s key=value]... --json -
 * --reproducible` prints. */
#include <netloom/netloom.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct nl_err err = {0};
	nl_sim *sim = NULL;
	char *json = NULL;
	int rc = nl_sim_new(&sim, &err);
	/* A first argument without '=' is an INI file, the rest key=value. */
	for (int i = 1; rc == 0 && i < argc; i++)
		rc = strchr(argv[i], '=') ? nl_sim_set(sim, argv[i], NULL, &err) : nl_sim_load_file(sim, argv[i], &err);
	struct nl_point pt;
	if (rc == 0)
		rc = nl_sim_run(sim, &pt, &err);
	/* A deadlock is a result: write it, then fail. */
	int deadlock = rc == NL_EDEADLOCK;
	if (rc == 0 || deadlock) {
		size_t len;
		int jrc = nl_sim_json(sim, NL_JSON_REPRODUCIBLE, &json, &len, &err);
		if (jrc == 0)
			fwrite(json, 1, len, stdout);
		else
			rc = jrc;
	}
	if (rc < 0)
		fprintf(stderr, "example_run: %s (%s)\n", err.msg, nl_err_name(rc));
	free(json);
	nl_sim_free(sim);
	return rc < 0 ? 1 : 0;
}
