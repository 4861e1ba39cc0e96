/* Command-line options: getopt_long with netloom's rules (a value option
 * given once, an abbreviation that is one option's, a typo's nearest
 * name), numeric values with their ranges, and the -c/-s pairs of the
 * commands that read a configuration. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/param.h"
#include "net/net.h"

int cli_output_once(const char *cmd, const char *opt, const char **slot, const char *value)
{
	if (*slot)
		return cli_usage_error(cmd, "option '%s' given twice", opt);
	*slot = value;
	return 0;
}

int cli_output_file_once(const char *cmd, const char *opt, const char **slot, const char *value)
{
	struct nl_err err = {0};
	if (cli_value_not_option(opt, value, "file", "a file to write", &err) < 0)
		return cli_usage_error(cmd, "%s", err.msg);
	return cli_output_once(cmd, opt, slot, value);
}

int cli_plot_file_once(const char *cmd, const char *opt, const char **slot, const char *value)
{
	/* Image formats other than SVG: gnuplot's svg terminal wrote SVG
	 * text into 'x.png', status 0, which viewers refuse as a PNG. */
	static const char *const other[] = {"png", "pdf", "jpg", "jpeg", "gif", "eps",
					    "ps",  "tif", "tiff", "bmp", "webp"};
	const char *slash = strrchr(value, '/'), *dot = strrchr(value, '.');
	if (dot && (!slash || dot > slash))
		for (size_t i = 0; i < sizeof other / sizeof *other; i++)
			if (!strcasecmp(dot + 1, other[i]))
				return cli_usage_error(cmd,
						       "%s '%s': a %s name, but the plot is SVG; expected a .svg name "
						       "(or one with no image extension)",
						       opt, value, dot);
	return cli_output_file_once(cmd, opt, slot, value);
}

int cli_value_once(const char *cmd, const struct option *longopts, struct cli_seen *seen, int c)
{
	const struct option *o = longopts;
	while (o->name && (o->flag || o->val != c))
		o++;
	if (!o->name || o->has_arg != required_argument)
		return 0;
	/* A long option's code (past a char) is in no such list; strchr
	 * would find the terminating NUL for 0. */
	if (seen->repeatable && c > 0 && c <= 0x7f && strchr(seen->repeatable, c))
		return 0;
	for (unsigned i = 0; i < seen->n; i++)
		if (seen->code[i] == c)
			return cli_usage_error(cmd, "option '--%s' given twice", o->name);
	if (seen->n < sizeof seen->code / sizeof *seen->code)
		seen->code[seen->n++] = c;
	return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	/* Under a launcher of several ranks every rank parses the same line
	 * and fails the same check: rank 0 alone says it, as it says every
	 * agreed error; a rank whose line differs is named by the ranks'
	 * comparison of their command lines that follows (cli_mpi_stop). */
	uint32_t rank, size;
	if (net_mpi_launched(&rank, &size) && size > 1 && rank != 0)
		return CLI_USAGE;
	/* One line, whatever the words it quotes hold: a newline in an
	 * argument ('unexpected argument $'a\nb'') made the refusal two
	 * lines. Escaped as error messages are (nl_fputs_one_line). */
	va_list ap;
	char *msg = NULL;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "netloom %s: ", cmd);
	if (n >= 0) {
		nl_fputs_one_line(msg, stderr);
		free(msg);
	} else {
		/* Out of memory: as it was. */
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
	return CLI_USAGE;
}

const char *cli_option_near(const struct option *longopts, const char *arg)
{
	const char *names[64];
	size_t n = 0;
	if (!longopts || strncmp(arg, "--", 2) || !arg[2])
		return NULL;
	for (const struct option *o = longopts; o->name && n < 64; o++)
		names[n++] = o->name;
	return config_name_near(arg + 2, strcspn(arg + 2, "="), names, n);
}

/* "unknown option '--jsn' (did you mean '--json'? see 'netloom run
 * --help')", without the suggestion when near is NULL. */
static void cli_unknown_option_line(char *buf, size_t n, const char *cmd, const char *arg, const char *near)
{
	if (near)
		snprintf(buf, n, "unknown option '%s' (did you mean '--%s'? see 'netloom %s --help')", arg, near, cmd);
	else
		snprintf(buf, n, "unknown option '%s' (see 'netloom %s --help')", arg, cmd);
}

int cli_unknown_arg(const char *cmd, const char *arg, const struct option *longopts, bool from_booksim)
{
	/* BookSim2's command line is 'booksim FILE KEY=VALUE...': its users
	 * type that form here, and "unknown option" did not say what to
	 * type instead. */
	size_t name = strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	struct stat st;
	if (arg[0] != '-' && name > 0 && arg[name] == '=')
		return cli_usage_error(cmd, "argument '%s' is not an option; expected -s %s to set a key", arg, arg);
	if (arg[0] != '-' && stat(arg, &st) == 0 && S_ISREG(st.st_mode))
		return cli_usage_error(cmd, "argument '%s' is not an option; expected -c %s to read a configuration "
					    "file%s%s%s",
				       arg, arg, from_booksim ? " (or --from-booksim " : "", from_booksim ? arg : "",
				       from_booksim ? " to convert a BookSim2 one)" : "");
	char line[512];
	cli_unknown_option_line(line, sizeof line, cmd, arg, cli_option_near(longopts, arg));
	return cli_usage_error(cmd, "%s", line);
}

/* Is name one of list's (NULL-terminated)? */
static bool cli_listed(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

int cli_split_long_value(const char *cmd, const char *arg, const char *const *flags, const char *const *valued,
			 char *name, size_t cap, const char **value)
{
	const char *eq = strchr(arg, '=');
	if (strncmp(arg, "--", 2) || !eq || (size_t)(eq - arg) >= cap)
		return 0;
	snprintf(name, cap, "%.*s", (int)(eq - arg), arg);
	if (cli_listed(name, flags))
		return cli_usage_error(cmd, "option '%s' takes no value (got '%s')", name, arg);
	if (!cli_listed(name, valued)) {
		const char *names[64];
		size_t n = 0;
		for (const char *const *l = flags; *l && n < 64; l++)
			names[n++] = *l + 2;
		for (const char *const *l = valued; *l && n < 64; l++)
			names[n++] = *l + 2;
		char line[512];
		cli_unknown_option_line(line, sizeof line, cmd, arg,
					config_name_near(name + 2, strlen(name + 2), names, n));
		return cli_usage_error(cmd, "%s", line);
	}
	*value = eq + 1;
	return 1;
}

unsigned long long cli_strtou(const char *s, char **end)
{
	/* A digit first: strtoull also takes a sign, and reads '-1' as
	 * 2^64 - 1. */
	if (*s < '0' || *s > '9') {
		*end = (char *)s;
		return 0;
	}
	return strtoull(s, end, 10);
}

int cli_parse_u64(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	return cli_parse_u64_for(cmd, opt, s, lo, hi, "", out);
}

int cli_parse_u64_for(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi, const char *why,
		      uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s)
		goto bad;
	unsigned long long v = cli_strtou(s, &end);
	if (end == s || errno || *end || v < lo || v > hi)
		goto bad;
	*out = v;
	return 0;
bad:
	cli_usage_error(cmd, "%s: expected an integer in %llu..%llu%s, got '%s'", opt, (unsigned long long)lo,
			(unsigned long long)hi, why, s ? s : "");
	return -1;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end = NULL;
	errno = 0;
	double v = s ? param_strtod(s, &end) : NAN;
	if (!s || end == s || errno || *end || !(v >= lo && v <= hi)) {
		cli_usage_error(cmd, "%s: expected a number in %.15g..%.15g, got '%s'", opt, lo, hi, s ? s : "");
		return -1;
	}
	*out = v;
	return 0;
}

/* The options of longopts that arg ("--na" or "--na=value") names: the
 * one whose name it is (getopt_long takes an exact name), else every one
 * its name starts. Returns their count (1 for an exact name), the first
 * in *first, and "--name, --next" in list (n bytes) when list is not NULL. */
static unsigned cli_long_matches(const struct option *longopts, const char *arg, const struct option **first,
				 char *list, size_t n)
{
	const char *name = arg + 2;
	size_t len = strcspn(name, "=");
	unsigned count = 0;
	size_t used = 0;
	*first = NULL;
	if (list)
		list[0] = '\0';
	for (const struct option *o = longopts; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		if (strlen(o->name) == len) {
			*first = o;
			return 1;
		}
		if (!count)
			*first = o;
		if (list) {
			int w = snprintf(list + used, n - used, "%s--%s", count ? ", " : "", o->name);
			if (w > 0 && (size_t)w < n - used)
				used += (size_t)w;
		}
		count++;
	}
	return count;
}

/* When the long option arg abbreviates several of longopts, and only
 * then, its one line in buf: "option '--s' is ambiguous (--set, --svg)". */
static bool cli_ambiguous_option(char *buf, size_t n, const struct option *longopts, const char *arg)
{
	char list[256];
	const struct option *first;
	if (strncmp(arg, "--", 2) || !arg[2] || cli_long_matches(longopts, arg, &first, list, sizeof list) < 2)
		return false;
	snprintf(buf, n, "option '%.*s' is ambiguous (%s)", (int)strcspn(arg, "="), arg, list);
	return true;
}

/* The one line for a long option `arg` ("--xy" or "--xy=v") that is not
 * in longopts: ambiguous (naming the options it abbreviates) or unknown. */
static void cli_unknown_option(char *buf, size_t n, const char *cmd, const struct option *longopts, const char *arg)
{
	if (cli_ambiguous_option(buf, n, longopts, arg))
		return;
	cli_unknown_option_line(buf, n, cmd, arg, cli_option_near(longopts, arg));
}

/* The long option of longopts whose val is c and whose has_arg is
 * has_arg, or NULL. */
static const struct option *cli_option_of(const struct option *longopts, int c, int has_arg)
{
	for (const struct option *o = longopts; o->name; o++)
		if (!o->flag && o->val == c && o->has_arg == has_arg)
			return o;
	return NULL;
}

/* getopt_long leaves optind past a long option it refuses, but on a short
 * one only when it was the last of its cluster ('-xq' stops at x with
 * optind on that word still): the short one is named from optopt. A long
 * option given a value it does not take sets optopt to its val; an
 * unknown or ambiguous one sets 0. */
void cli_getopt_message(char *buf, size_t n, const char *cmd, char **argv, const struct option *longopts, int c)
{
	const char *arg = argv[optind - 1];
	bool is_long = !strncmp(arg, "--", 2) && arg[2];
	if (c == ':') {
		const struct option *o = cli_option_of(longopts, optopt, required_argument);
		if (is_long && o)
			snprintf(buf, n, "option '--%s' needs a value", o->name);
		else if (is_long)
			snprintf(buf, n, "option '%s' needs a value", arg);
		else
			snprintf(buf, n, "option '-%c' needs a value", optopt);
		return;
	}
	if (is_long && !optopt) {
		cli_unknown_option(buf, n, cmd, longopts, arg);
		return;
	}
	const struct option *flag = cli_option_of(longopts, optopt, no_argument);
	if (is_long && strchr(arg, '=') && flag)
		snprintf(buf, n, "option '--%s' takes no value (got '%s')", flag->name, arg);
	else
		snprintf(buf, n, "unknown option '-%c' (see 'netloom %s --help')", optopt, cmd);
}

int cli_getopt_error(const char *cmd, char **argv, const struct option *longopts, int c)
{
	char msg[512];
	cli_getopt_message(msg, sizeof msg, cmd, argv, longopts, c);
	return cli_usage_error(cmd, "%s", msg);
}

/* getopt_long itself reads the line, so the words it takes as options (a
 * value after -s or --topology, a cluster '-Ch', an abbreviation '--he',
 * nothing after '--', POSIXLY_CORRECT) are the ones the command's own
 * parse will take. It runs on a copy of argv, as it reorders the words it
 * reads, and leaves optind and opterr as it found them: the command then
 * reads the line as if this had not run. */
bool cli_help_asked(int argc, char **argv, const char *optstring, const struct option *longopts)
{
	char **copy = malloc(((size_t)argc + 1) * sizeof *copy);
	if (!copy)
		return false;
	memcpy(copy, argv, (size_t)argc * sizeof *copy);
	copy[argc] = NULL;
	int saved_optind = optind, saved_opterr = opterr, c;
	bool help = false;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, copy, optstring, longopts, NULL)) != -1)
		help = help || c == 'h';
	optind = saved_optind;
	opterr = saved_opterr;
	free(copy);
	return help;
}

int cli_getopt_long(int argc, char **argv, const char *optstring, const struct option *longopts, bool *help_scanned)
{
	if (!*help_scanned) {
		*help_scanned = true;
		if (cli_help_asked(argc, argv, optstring, longopts))
			return 'h';
	}
	return getopt_long(argc, argv, optstring, longopts, NULL);
}

int cli_cfg_opt(struct cli_cfg_opts *o, const char *cmd, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	bool is_c = !strcmp(a, "-c") || !strcmp(a, "--config");
	bool is_s = !strcmp(a, "-s") || !strcmp(a, "--set");
	const char *val = NULL;

	/* The end of the options, as getopt_long reads it for the other
	 * commands (replay, cost, ...): these take no arguments, so nothing
	 * may follow. It was refused as an unknown option '--'. */
	if (!strcmp(a, "--")) {
		if (*i + 1 < argc)
			return -cli_usage_error(cmd, "unexpected argument '%s' after '--'", argv[*i + 1]);
		return 1;
	}
	if (!strncmp(a, "--config=", 9)) {
		val = a + 9;
		is_c = true;
	} else if (!strncmp(a, "--set=", 6)) {
		val = a + 6;
		is_s = true;
	} else if (a[0] == '-' && (a[1] == 'c' || a[1] == 's') && a[2]) {
		/* -cFILE, -sKEY=VAL: getopt's attached short values, which the
		 * other commands take. */
		val = a + 2;
		is_c = a[1] == 'c';
		is_s = a[1] == 's';
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
	for (int k = 0; k < o->n_expanded; k++)
		free(o->expanded[k]);
	free(o->expanded);
	o->expanded = NULL;
	o->n_expanded = 0;
}

/* The option of longopts that arg ("--na" or "--na=v") names or
 * abbreviates, or NULL (unknown or ambiguous: not one). */
static const struct option *cli_long_match(const struct option *longopts, const char *arg)
{
	const struct option *first;
	return cli_long_matches(longopts, arg, &first, NULL, 0) == 1 ? first : NULL;
}

/* argv[i], an abbreviation of `full`, replaced by "--full[=value]" that
 * o owns. */
static int cli_long_rewrite(struct cli_cfg_opts *o, const char *cmd, char **argv, int i, const struct option *full)
{
	const char *eq = strchr(argv[i], '=');
	size_t n = strlen(full->name) + (eq ? strlen(eq) : 0) + 3;
	char *s = malloc(n);
	char **grown = realloc(o->expanded, (size_t)(o->n_expanded + 1) * sizeof *grown);
	if (grown)
		o->expanded = grown;
	if (!s || !grown) {
		free(s);
		return cli_usage_error(cmd, "out of memory");
	}
	snprintf(s, n, "--%s%s", full->name, eq ? eq : "");
	o->expanded[o->n_expanded++] = s;
	argv[i] = s;
	return 0;
}

int cli_long_expand(struct cli_cfg_opts *o, const char *cmd, const struct option *longopts, const char *optstring,
		    int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if (a[0] == '-' && a[1] && a[1] != '-' && !a[2]) {
			const char *spec = strchr(optstring, a[1]);
			i += spec && spec[1] == ':';
			continue;
		}
		if (strncmp(a, "--", 2))
			continue;
		const struct option *m = cli_long_match(longopts, a);
		if (!m) {
			char msg[512];
			if (cli_ambiguous_option(msg, sizeof msg, longopts, a))
				return cli_usage_error(cmd, "%s", msg);
			continue; /* unknown: the command's parser names it */
		}
		bool abbreviated = strlen(m->name) != strcspn(a + 2, "=");
		if (abbreviated && cli_long_rewrite(o, cmd, argv, i, m))
			return CLI_USAGE;
		i += m->has_arg == required_argument && !strchr(a, '=');
	}
	return 0;
}
