/* Shared CLI helpers: error reporting and exit statuses. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "net/net.h"

int cli_mpi_open(const char *cmd, struct net_mpi **m)
{
	uint32_t rank, size;
	*m = NULL;
	if (!net_mpi_launched(&rank, &size))
		return 0;
	if (!net_mpi_built()) {
		if (size <= 1)
			return 0;
		if (rank == 0)
			fprintf(stderr,
				"netloom %s: started by an MPI launcher with %u ranks, but this netloom was built without "
				"MPI (Debian: libopenmpi-dev), so it would run %u copies of the same work; run it without "
				"mpirun\n",
				cmd, size, size);
		return CLI_FAIL;
	}
	struct nl_err err = {0};
	if (net_mpi_open(m, &err) < 0)
		return rank == 0 ? cli_report(&err) : CLI_FAIL;
	return 0;
}

int cli_report(const struct nl_err *err)
{
	fprintf(stderr, "netloom: %s\n", err->msg[0] ? err->msg : nl_strerror(err->code));
	return cli_exit_code(err);
}

int cli_exit_code(const struct nl_err *err)
{
	switch (err->code) {
	case NL_ENOMEM:
	case NL_EDEADLOCK:
	case NL_ETIMEOUT:
		return CLI_FAIL;
	default:
		return CLI_USAGE;
	}
}

int cli_stdout_finish(int rc, int early_errno)
{
	errno = 0;
	int flushed = fflush(stdout);
	int e = errno;
	/* ferror too: an earlier flush (a sweep flushes every point) may have
	 * failed with nothing left to write now. */
	if (flushed == 0 && !ferror(stdout))
		return rc;
	e = early_errno ? early_errno : e ? e : EIO;
	fprintf(stderr, "netloom: stdout: write failed: %s\n", strerror(e));
	return rc == CLI_FAIL ? rc : CLI_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "netloom %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_USAGE;
}

int cli_parse_u64(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+')
		goto bad;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		goto bad;
	*out = v;
	return 0;
bad:
	cli_usage_error(cmd, "%s: expected an integer in %llu..%llu, got '%s'", opt, (unsigned long long)lo,
			(unsigned long long)hi, s ? s : "");
	return -1;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = s && *s ? strtod(s, &end) : NAN;
	if (!s || !*s || errno || *end || !(v >= lo && v <= hi)) {
		cli_usage_error(cmd, "%s: expected a number in %.15g..%.15g, got '%s'", opt, lo, hi, s ? s : "");
		return -1;
	}
	*out = v;
	return 0;
}

int cli_getopt_error(const char *cmd, char **argv, int c)
{
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
	return cli_usage_error(cmd, "unknown option '%s' (see --help)", argv[optind - 1]);
}

int cli_cfg_opt(struct cli_cfg_opts *o, const char *cmd, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	bool is_c = !strcmp(a, "-c") || !strcmp(a, "--config");
	bool is_s = !strcmp(a, "-s") || !strcmp(a, "--set");
	const char *val = NULL;

	if (!strncmp(a, "--config=", 9)) {
		val = a + 9;
		is_c = true;
	} else if (!strncmp(a, "--set=", 6)) {
		val = a + 6;
		is_s = true;
	} else if (is_c || is_s) {
		if (*i + 1 >= argc)
			return -cli_usage_error(cmd, "option '%s' needs a value", a);
		val = argv[++*i];
	}
	if (is_c) {
		if (o->config_path)
			return -cli_usage_error(cmd, "only one -c FILE is allowed (got '%s' and '%s')",
						o->config_path, val);
		o->config_path = val;
		return 1;
	}
	if (is_s) {
		const char **s = realloc(o->sets, (size_t)(o->n_sets + 1) * sizeof *s);
		if (!s)
			return -cli_usage_error(cmd, "out of memory");
		o->sets = s;
		o->sets[o->n_sets++] = val;
		return 1;
	}
	return 0;
}

void cli_cfg_opts_release(struct cli_cfg_opts *o)
{
	free(o->sets);
	o->sets = NULL;
	o->n_sets = 0;
}

void cli_config_hint(const char *path, int rc, struct nl_err *err)
{
	static const char hint[] =
		" (this looks like a BookSim2 config: convert it with 'netloom config --from-booksim FILE')";
	if (rc != NL_ECONFIG || !cli_booksim_syntax(path))
		return;
	/* One line still: the error, shortened if both do not fit, then the hint. */
	size_t room = sizeof err->msg - sizeof hint;
	if (strlen(err->msg) > room)
		memcpy(err->msg + room - 3, "...", 4);
	strcat(err->msg, hint);
}

int cli_cfg_load(struct config *cfg, struct cli_cfg_opts *o, struct nl_err *err)
{
	size_t n;
	const struct config_table *const *tables = session_config_tables(&o->tables, &n);
	config_init(cfg, tables, n);
	if (o->config_path) {
		int rc = config_load_file(cfg, o->config_path, err);
		cli_config_hint(o->config_path, rc, err);
		NL_CHECK(rc);
	}
	for (int i = 0; i < o->n_sets; i++)
		NL_CHECK(config_set(cfg, o->sets[i], NULL, "-s", err));
	return 0;
}

void cli_xml_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*s, f); break;
		}
	}
}
