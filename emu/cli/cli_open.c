/* Opening a trace for replay: a netloom archive as is, or a foreign trace
 * (DUMPI, SimGrid, OTF2) converted first into an unlinked temporary
 * archive, its dropped calls named on stderr as `trace convert` does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/error.h"
#include "traces/trace.h"

static void cli_open_warn(void *ctx, const char *line)
{
	fprintf(stderr, "netloom %s: %s\n", (const char *)ctx, line);
}

int cli_open_trace(const char *cmd, const char *path, struct trace_archive **a, struct nl_err *err)
{
	FILE *f = fopen(path, "rb");
	char magic[4] = {0};
	bool native = f && fread(magic, 1, sizeof magic, f) == sizeof magic && !memcmp(magic, "\x89NLT", 4);
	if (f)
		fclose(f);
	if (native || !trace_import_detect(path))
		return trace_archive_open(a, path, err);
	const char *dir = getenv("TMPDIR");
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s/netloom-import-XXXXXX.nlt", dir && *dir ? dir : "/tmp");
	int fd = mkstemps(tmp, 4);
	if (fd < 0)
		return nl_errf(err, NL_EIO, "%s: cannot create a temporary archive to convert %s into", tmp, path);
	close(fd);
	int rc = trace_import(path, tmp, cli_open_warn, (void *)cmd, err);
	if (!rc)
		rc = trace_archive_open(a, tmp, err);
	unlink(tmp); /* the open archive keeps its descriptor */
	return rc;
}
