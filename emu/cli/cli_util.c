/* Shared CLI helpers: error lines, exit statuses, checks of the files a
 * command reads and writes, and -c/-s loading with its BookSim2 hints.
 * The warnings for settings a command does not read are cli_unread.c's. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/path.h"
#include "core/thread.h"
#include "place/place.h"
#include "session/session.h"
#include "topo/topo.h"
#include "traffic/traffic.h"
#include "traces/trace.h"

/* The command being run, for the lines said without one passed
 * (cli_set_command): a copy, since a subcommand's name ("trace convert")
 * may be built on the stack. Empty: none yet. */
static char cli_command_name[64];

void cli_set_command(const char *name)
{
	snprintf(cli_command_name, sizeof cli_command_name, "%s", name ? name : "");
}

/* One line on stderr in one write: stderr is unbuffered, so a prefix,
 * message and newline written apart went out as three writes, and under
 * mpirun two ranks' lines interleaved mid-line ("netloom run: netloom
 * run: warning: MPI rank 1 of 2: ..."). glibc's fprintf to an unbuffered
 * stream formats into a buffer of its own and writes it once. The prefix
 * is the command's; text's n bytes are escaped to one line
 * (nl_fputs_one_line) when escape is set, else written as they are. */
static void cli_say_line(const char *text, size_t n, bool escape)
{
	const char *cmd = cli_command_name, *sp = cmd[0] ? " " : "";
	char *line = NULL, *one = escape ? strndup(text, n) : NULL;
	size_t len = 0;
	FILE *m = one ? open_memstream(&line, &len) : NULL;
	if (m) {
		nl_fputs_one_line(one, m);
		if (fclose(m) == 0) {
			text = line;
			n = len;
		}
	}
	fprintf(stderr, "netloom%s%s: %.*s\n", sp, cmd, (int)n, text);
	free(line);
	free(one);
}

void cli_say(const char *fmt, ...)
{
	va_list ap;
	char buf[1024], *text = buf;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof buf && (text = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(text, (size_t)n + 1, fmt, ap);
		va_end(ap);
	} else if ((size_t)n >= sizeof buf) {
		text = buf; /* out of memory: the line cut */
		n = (int)strlen(buf);
	}
	cli_say_line(text, (size_t)n, false);
	if (text != buf)
		free(text);
}

void cli_say_lines(const char *text)
{
	for (const char *l = text; l && *l;) {
		size_t n = strcspn(l, "\n");
		cli_say_line(l, n, true);
		l += n + (l[n] == '\n');
	}
}

void cli_say_threads_short(uint32_t rank, uint32_t size)
{
	struct nl_thread_short t[NL_THREAD_N_PLACES];
	char who[48] = "";
	if (size > 1)
		snprintf(who, sizeof who, "MPI rank %" PRIu32 " of %" PRIu32 ": ", rank, size);
	size_t n = nl_thread_short_take(t);
	for (size_t i = 0; i < n; i++)
		cli_say("warning: %s%" PRIu32 " of %" PRIu32 " threads started for %s (%s: %s); running on %" PRIu32, who,
			t[i].running, t[i].asked, t[i].what, t[i].call, strerror(t[i].errnum), t[i].running);
}

int cli_report(const struct nl_err *err)
{
	/* One line whatever user text the message quotes (a -s key holding a
	 * newline, a path with a carriage return). */
	struct nl_err line = *err;
	nl_err_one_line(&line, line.code < 0 ? line.code : -1);
	/* A library's message that names the command already ("replay: out
	 * of memory", the app library's) is said with the command once. Not
	 * a file's error, whose message starts with the file's path:
	 * 'netloom run -c run' says "netloom run: run: cannot open config
	 * file: ...". */
	const char *msg = line.msg[0] ? line.msg : nl_strerror(err->code);
	size_t n = strlen(cli_command_name);
	bool is_file_error = err->code == NL_EIO || err->code == NL_ENOTFOUND || err->code == NL_EFORMAT;
	if (n && !is_file_error && !strncmp(msg, cli_command_name, n) && msg[n] == ':' && msg[n + 1] == ' ')
		msg += n + 2;
	cli_say("%s", msg);
	int rc = cli_exit_code(err);
	/* Said: the dispatcher's cli_stdout_finish must not say it again. */
	if (err->code == NL_EIO && ferror(stdout))
		clearerr(stdout);
	return rc;
}

int cli_exit_code(const struct nl_err *err)
{
	switch (err->code) {
	case NL_ENOMEM:
	case NL_EDEADLOCK:
	case NL_ETIMEOUT:
		return CLI_FAIL;
	case NL_EIO:
		/* With stdout's error flag set, the failed write is the result's
		 * on standard output ('-': "stdout: write failed"): a full disk,
		 * the work failing, not bad input (1, as cli_stdout_finish).
		 * Other input/output errors here name a file given that cannot
		 * be read, or an output refused before the work
		 * (cli_check_output): bad input. A result that could not be
		 * written after the work is cli_report_unwritten's. */
		return ferror(stdout) ? CLI_FAIL : CLI_USAGE;
	default:
		return CLI_USAGE;
	}
}

int cli_probe_staging(const char *path, struct nl_err *err)
{
	char *probe = NULL;
	NL_CHECK(out_tmp_for(path, &probe, err));
	out_unstage(&probe);
	return 0;
}

int cli_empty_name(const char *opt, const char *kind, const char *expected, struct nl_err *err)
{
	return nl_errf(err, NL_EINVAL, "%s '': empty %s name; expected %s", opt, kind, expected);
}

int cli_check_output(const char *opt, const char *path, struct nl_err *err)
{
	/* Said here, not by out_check_writable ("empty file name (expected
	 * ...)", which names no option): quoted as every other refusal of a
	 * value, in the words run's and sweep's --json gave it. */
	if (!*path)
		return cli_empty_name(opt, "file", CLI_EXPECT_OUTPUT, err);
	NL_CHECK(cli_value_not_option(opt, path, "file", "a file to write", err));
	int rc = out_check_writable(path, err);
	if (rc < 0 && opt[0] == '-')
		nl_err_prefix(err, "%s", opt);
	return rc;
}

int cli_value_not_option(const char *opt, const char *value, const char *kind, const char *expected,
			 struct nl_err *err)
{
	/* A value that is an option: the output's own value was left out,
	 * and the next option taken for it ('run --json --csv' wrote the JSON
	 * to a file named '--csv' and printed the table, exit 0). A file of
	 * such a name is still written as ./--csv. */
	/* '-o=t.dot': getopt keeps the '=' in a short option's value, and
	 * the output went to a file named '=t.dot', exit 0. The outputs
	 * that have a short -o (--output; compare's -o; trace import's
	 * OUT.nlt); ./=t.dot still writes a file of that name. */
	const char *meta = strcmp(kind, "directory") ? "FILE" : "DIR";
	if (value[0] == '=' && value[1] && (!strcmp(opt, "--output") || !strcmp(opt, "-o") || !strcmp(opt, "OUT.nlt")))
		return nl_errf(err, NL_EINVAL, "%s '%s': a %s name starting with '=' (-o=%s keeps the '=' in the value); "
			       "expected -o %s or --output=%s (./%s for a %s of that name)", opt, value, kind, meta, meta,
			       meta, value, kind);
	if (value[0] != '-' || !value[1])
		return 0;
	return nl_errf(err, NL_EINVAL, "%s '%s': an option, not a %s name (a value left out?); expected %s (./%s for a "
		       "%s of that name)", opt, value, kind, expected, value, kind);
}

int cli_check_otf2_dir(const char *dir, struct nl_err *err)
{
	static const char *const expected = CLI_EXPECT_OTF2_DIR;
	if (!*dir)
		return cli_empty_name("--otf2", "directory", expected, err);
	/* Not standard output, as other outputs take '-': an archive is a
	 * directory of files ('-' made a directory of that name). */
	if (!strcmp(dir, "-"))
		return nl_errf(err, NL_EINVAL,
			       "--otf2 '-': not a directory name (an OTF2 archive is a directory of files, it cannot go "
			       "to standard output); expected %s",
			       expected);
	return cli_value_not_option("--otf2", dir, "directory", expected, err);
}

int cli_check_otf2_writable(const char *dir, struct nl_err *err)
{
	struct stat st;
	if (stat(dir, &st) == 0)
		return 0;
	/* Said here, not by out_check_writable: its "a symbolic link to a
	 * missing file ...; expected a file to write" is a file output's
	 * line, where --otf2 expects a directory. */
	int stat_errno = errno;
	if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
		return nl_errf(err, NL_EIO, "--otf2: %s: a symbolic link to a missing directory (%s); expected %s", dir,
			       strerror(stat_errno), CLI_EXPECT_OTF2_DIR);
	if (out_check_writable(dir, err) < 0)
		return nl_err_prefix(err, "--otf2");
	return 0;
}

int cli_check_files(const struct cli_file *in, size_t n_in, const struct cli_file *out, size_t n_out,
		    struct nl_err *err)
{
	for (size_t i = 0; i < n_out; i++) {
		const struct cli_file *o = &out[i];
		if (!o->path)
			continue;
		for (size_t k = 0; k < n_in; k++)
			if (in[k].path && strcmp(in[k].path, "-") && out_same_file(o->path, in[k].path))
				return nl_errf(err, NL_EINVAL,
					       "%s '%s': the same file as %s '%s', an input; expected another file",
					       o->opt, o->path, in[k].opt, in[k].path);
		/* Against the outputs given before it: the later option named. */
		for (size_t k = 0; k < i; k++) {
			if (!out[k].path || !out_same_file(o->path, out[k].path))
				continue;
			if (!strcmp(o->path, "-"))
				return nl_errf(err, NL_EINVAL,
					       "%s - and %s -: both on standard output; expected a file for one of them",
					       o->opt, out[k].opt);
			return nl_errf(err, NL_EINVAL, "%s '%s': the same file as %s; expected another file", o->opt,
				       o->path, out[k].opt);
		}
	}
	return 0;
}

/* At most this many files a spec (and a configuration) reads are
 * compared: more file= in one spec than any family takes. */
#define CLI_SPEC_MAX_FILES 16

/* The files a command reads, gathered with the names the line gives them. */
struct cli_inputs {
	struct cli_file in[CLI_SPEC_MAX_FILES];
	char paths[CLI_SPEC_MAX_FILES][PATH_MAX];
	char opts[CLI_SPEC_MAX_FILES][256];
	/* A name a spec file's text wrote relative, read from its folder
	 * (topo_spec_file's given): as written, and the spec file ("" when
	 * the name is the one read). */
	char given[CLI_SPEC_MAX_FILES][PATH_MAX];
	char spec_file[CLI_SPEC_MAX_FILES][PATH_MAX];
	size_t n;
};

/* One more input, named `opt` (printf-style), at path[0..len). */
static void cli_inputs_add(struct cli_inputs *x, const char *path, size_t len, const char *fmt, ...)
{
	if (x->n == CLI_SPEC_MAX_FILES || len == 0 || len >= PATH_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->opts[x->n], sizeof x->opts[x->n], fmt, ap);
	va_end(ap);
	snprintf(x->paths[x->n], sizeof x->paths[x->n], "%.*s", (int)len, path);
	x->in[x->n] = (struct cli_file){x->opts[x->n], x->paths[x->n]};
	x->n++;
}

/* Where a spec was given and what gathers its files (cli_inputs_spec). */
struct cli_spec_inputs {
	struct cli_inputs *x;
	const char *by;
};

/* One file topology SPEC reads, named after where it was given: "SPEC" or
 * "<by>@FILE" for the spec's own @FILE, "<by>graph:file=" for a
 * family's file parameter, "<by>p2:base=@FILE" for a nested spec's
 * @FILE, with " in @spec.txt" when an @FILE's text names it. */
static int cli_inputs_spec_file(void *ctx, const struct topo_spec_file *f)
{
	const struct cli_spec_inputs *s = ctx;
	char in[96] = "";
	if (f->in)
		snprintf(in, sizeof in, " in @%.80s", f->in);
	if (!f->family && s->by[0])
		cli_inputs_add(s->x, f->path, strlen(f->path), "%s@FILE", s->by);
	else if (!f->family)
		cli_inputs_add(s->x, f->path, strlen(f->path), "SPEC");
	else
		cli_inputs_add(s->x, f->path, strlen(f->path), "%s%.40s:%.40s=%s%s", s->by, f->family, f->key,
			       f->is_spec_file ? "@FILE" : "", in);
	struct cli_inputs *x = s->x;
	/* The last input is this file's unless the list was full. */
	if (x->n && f->in && !strcmp(x->paths[x->n - 1], f->path) && strcmp(f->given, f->path)) {
		snprintf(x->given[x->n - 1], sizeof x->given[x->n - 1], "%s", f->given);
		snprintf(x->spec_file[x->n - 1], sizeof x->spec_file[x->n - 1], "%s", f->in);
	}
	return 0;
}

/* A refusal of cli_check_files names the inputs a spec file wrote
 * relative as written and where they were looked for (path_err_rename). */
static void cli_inputs_err_names(const struct cli_inputs *x, struct nl_err *err)
{
	char where[PATH_MAX + 32];
	for (size_t k = 0; k < x->n; k++)
		if (x->given[k][0]) {
			snprintf(where, sizeof where, "the spec file %s", x->spec_file[k]);
			path_err_rename(err->msg, sizeof err->msg, x->given[k], x->paths[k], where);
		}
}

/* The files topology SPEC reads, as the topology layer resolves it
 * (topo_spec_files). `by` names where the spec was given ("" on the
 * line; "-s topology " in a configuration). A spec that does not parse
 * keeps the files found before its error: the command says what is
 * wrong with it. */
static void cli_inputs_spec(struct cli_inputs *x, const char *spec, const char *by)
{
	struct cli_spec_inputs s = {x, by};
	struct nl_err ignored = {0};
	topo_spec_files(spec, cli_inputs_spec_file, &s, &ignored);
}

int cli_check_spec_files(const char *spec, const struct cli_file *out, size_t n_out, struct nl_err *err)
{
	struct cli_inputs *x = calloc(1, sizeof *x);
	if (!x)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	cli_inputs_spec(x, spec, "");
	int rc = cli_check_files(x->in, x->n, out, n_out, err);
	if (rc < 0 && err)
		cli_inputs_err_names(x, err);
	free(x);
	return rc;
}

/* A configuration's file key into the inputs (config_each_path). */
struct cli_inputs_key {
	struct cli_inputs *x;
	const struct config *cfg;
};

static int cli_inputs_add_key(void *ctx, const char *key, const char *value)
{
	const struct cli_inputs_key *k = ctx;
	cli_inputs_add(k->x, value, strlen(value), "%.120s %s", config_origin(k->cfg, key), key);
	return 0;
}

int cli_check_config_files(const struct config *cfg, const struct cli_file *out, size_t n_out, struct nl_err *err)
{
	struct cli_inputs *x = calloc(1, sizeof *x);
	if (!x)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	const char *topo = config_get(cfg, "topology");
	char by[160];
	if (topo) {
		snprintf(by, sizeof by, "%.120s topology ", config_origin(cfg, "topology"));
		cli_inputs_spec(x, topo, by);
	}
	/* Every other key naming a file the work reads (docs/configuration.md). */
	config_each_path(cfg, cli_inputs_add_key, &(struct cli_inputs_key){x, cfg});
	int rc = cli_check_files(x->in, x->n, out, n_out, err);
	if (rc < 0 && err)
		cli_inputs_err_names(x, err);
	free(x);
	/* Names a -c file wrote relative, as written and where they were read. */
	for (size_t t = 0; rc < 0 && t < cfg->n_tables; t++)
		for (const struct param_def *d = cfg->tables[t]->keys; d->name; d++)
			if (d->type == PARAM_PATH || d->type == PARAM_SPEC)
				config_err_files(cfg, d->name, err);
	return rc;
}

int cli_check_placement_map(const struct config *cfg, struct nl_err *err)
{
	const char *map = config_get(cfg, "placement_map");
	const char *policy = config_get(cfg, "placement");
	if (!map || !map[0])
		return 0; /* placement = map without one: session_place, once the policy is resolved */
	if (place_check_map(policy ? policy : "linear", policy != NULL, map, err) < 0) {
		nl_err_prefix(err, "key 'placement_map'");
		return config_err_file_line(cfg, "placement_map", err);
	}
	return 0;
}

/* A trace's files against the outputs that exist (cli_check_trace_files). */
struct cli_trace_check {
	const char *opt, *trace;
	const struct cli_file *out;
	struct stat *st; /* out[i]'s; st_nlink 0 when it is not there */
	size_t n_out;
	struct nl_err *err;
	bool is_refused;
};

static int cli_trace_file(void *ctx, const struct trace_input_file *f)
{
	struct cli_trace_check *c = ctx;
	struct stat st;
	if (stat(f->path, &st) != 0)
		return 0;
	for (size_t i = 0; i < c->n_out; i++) {
		if (!c->st[i].st_nlink || c->st[i].st_dev != st.st_dev || c->st[i].st_ino != st.st_ino)
			continue;
		char rank[32] = "";
		if (f->rank >= 0)
			snprintf(rank, sizeof rank, "rank %lld ", (long long)f->rank);
		c->is_refused = true;
		return nl_errf(c->err, NL_EINVAL,
			       "%s '%s': the same file as %s %s's %s%s '%s', an input; expected another file", c->out[i].opt,
			       c->out[i].path, c->opt, c->trace, rank, f->what, f->path);
	}
	return 0;
}

int cli_check_trace_files(const char *opt, const char *trace, const struct cli_file *out, size_t n_out,
			  struct nl_err *err)
{
	if (!trace || !strcmp(trace, "-"))
		return 0;
	struct cli_trace_check c = {opt, trace, out, calloc(n_out ? n_out : 1, sizeof *c.st), n_out, err, false};
	if (!c.st)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	/* Outputs not there yet are no file the trace reads: the walk (an
	 * OTF2 archive's definitions read) is skipped when none is. */
	bool any = false;
	for (size_t i = 0; i < n_out; i++)
		if (out[i].path && strcmp(out[i].path, "-") && stat(out[i].path, &c.st[i]) == 0 && c.st[i].st_nlink)
			any = true;
		else
			c.st[i].st_nlink = 0;
	struct nl_err ignored = {0};
	if (any)
		trace_input_files(trace, cli_trace_file, &c, &ignored);
	free(c.st);
	return c.is_refused ? NL_EINVAL : 0;
}

int cli_report_unwritten(const char *opt, const char *path, const struct nl_err *err)
{
	struct nl_err line = *err;
	if (opt && strcmp(path, "-"))
		nl_err_prefix(&line, "%s", opt);
	cli_report(&line);
	return CLI_FAIL;
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
	cli_say("stdout: write failed: %s", strerror(e));
	/* Said once: a second call (a command's own, then the dispatcher's)
	 * finds the flag clear. */
	clearerr(stdout);
	return rc == CLI_USAGE ? rc : CLI_FAIL;
}

static void cli_config_hint_add(const char *path, struct nl_err *err)
{
	static const char hint[] =
		" (this looks like a BookSim2 config: convert it with 'netloom config --from-booksim FILE')";
	/* Once: a caller may try each of its -c files on one line. */
	if (!strstr(err->msg, hint) && cli_booksim_syntax(path))
		nl_err_suffix(err, hint);
}

void cli_config_hint(const char *path, int rc, struct nl_err *err)
{
	if (rc == NL_ECONFIG && cli_booksim_syntax(path))
		cli_config_hint_add(path, err);
	else if (rc == NL_ECONFIG)
		cli_booksim_key_hint(err);
	else if (rc < 0)
		cli_config_spec_hint(path, err);
}

void cli_booksim_key_hint(struct nl_err *err)
{
	/* The key as config_set_checked quotes it ("unknown key 'k' ("):
	 * BookSim's keys are plain ASCII, never escaped there. */
	static const char tag[] = "unknown key '";
	const char *k = strstr(err->msg, tag);
	if (err->code != NL_ECONFIG || !k)
		return;
	k += sizeof tag - 1;
	const char *end = strchr(k, '\'');
	char key[64];
	if (!end || (size_t)(end - k) >= sizeof key)
		return;
	memcpy(key, k, (size_t)(end - k));
	key[end - k] = '\0';
	if (!cli_booksim_is_key(key))
		return;
	char hint[256];
	snprintf(hint, sizeof hint,
		 "; '%s' is a BookSim2 key, not netloom's: docs/configuration.md ('netloom config "
		 "--from-booksim') says what it becomes, and that command converts a BookSim2 file",
		 key);
	nl_err_suffix(err, hint);
}

int cli_session_set(nl_sim *s, const char *set, struct nl_err *err)
{
	int rc = session_set(s, set, NULL, "-s", err);
	if (rc < 0)
		cli_booksim_key_hint(err);
	return rc;
}

void cli_config_spec_hint(const char *path, struct nl_err *err)
{
	/* Whatever its code (a spec's is NL_ENOTFOUND or NL_EINVAL); a -s's
	 * refusal ("-s: unknown topology ...") is not the file's. */
	size_t n = path ? strlen(path) : 0;
	if (path && !strncmp(err->msg, path, n) && err->msg[n] == ':')
		cli_config_hint_add(path, err);
}

void cli_warn_config_empty(const char *cmd, const struct config *cfg, const char *path)
{
	if (cfg && config_keys_from(cfg, path))
		return;
	fprintf(stderr, "netloom %s: warning: -c ", cmd);
	nl_fputs_one_line(path, stderr);
	fputs(" sets no key (empty, or only comments and section headers): the defaults run ('netloom config "
	      "--keys' lists them)\n",
	      stderr);
}

int cli_sim_load(nl_sim *s, const struct cli_cfg_opts *o, const char *warn_cmd, struct nl_err *err)
{
	int rc = o->config_path ? nl_sim_load_file(s, o->config_path, err) : 0;
	if (o->config_path)
		cli_config_hint(o->config_path, rc, err);
	if (rc == 0 && o->config_path && warn_cmd)
		cli_warn_config_empty(warn_cmd, session_config(s), o->config_path);
	for (int i = 0; rc == 0 && i < o->n_sets; i++)
		rc = cli_session_set(s, o->sets[i], err);
	return rc;
}

int cli_cfg_load(struct config *cfg, struct cli_cfg_opts *o, struct nl_err *err)
{
	session_config_init(cfg, &o->tables);
	if (o->config_path) {
		int rc = config_load_file(cfg, o->config_path, err);
		cli_config_hint(o->config_path, rc, err);
		NL_CHECK(rc);
		if (o->empty_warn_cmd)
			cli_warn_config_empty(o->empty_warn_cmd, cfg, o->config_path);
	}
	for (int i = 0; i < o->n_sets; i++) {
		int rc = config_set(cfg, o->sets[i], NULL, "-s", err);
		if (rc < 0)
			cli_booksim_key_hint(err);
		NL_CHECK(rc);
	}
	return 0;
}

void cli_traffic_active_note(char *buf, size_t n, const struct nl_sim_info *info)
{
	const char *need;
	uint32_t n_active = traffic_spec_active(info->traffic, info->n_endpoints, &need);
	if (need)
		snprintf(buf, n, " (%u active: %s needs %s)", n_active, info->traffic, need);
	else if (n)
		buf[0] = '\0';
}

/* ", 3.76 GiB" after a byte count of a KiB or more (binary units, three
 * significant digits), else "": 16538854468 bytes
 * was left to count (trace info, replay's report). */
void cli_bytes_human(char *buf, size_t n, uint64_t bytes)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v = (double)bytes;
	int u = -1;
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, n, "%s", "");
	else if (v >= 999.5) /* %.3g would print 1.02e+03 */
		snprintf(buf, n, ", %.0f %s", v, units[u]);
	else
		snprintf(buf, n, ", %.3g %s", v, units[u]);
}
