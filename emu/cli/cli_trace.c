/* `netloom trace`: inspect, check, convert and bundle trace archives.
 *
 *   info FILE [--json]       manifest and summary (calls, p2p messages, runtime)
 *   dump FILE [--rank R]     text form on stdout (docs/trace-format.md §8)
 *   encode TEXT OUT.nlt      text form back to an archive (byte-identical)
 *   verify FILE              hashes, op counts, communicator references
 *   convert IN OUT.nlt       DUMPI .meta, SimGrid time-independent trace or OTF2
 *   import IN -o OUT.nlt     the same (-o or --output)
 *   export FILE --otf2 DIR   the archive as OTF2
 *   pack OUT TRACE... [--config SYSTEM.ini]   reproducibility bundle
 *   unpack BUNDLE DIR        restore a bundle's files byte for byte
 *
 * Options are read by getopt_long, as every command's: '--rank=1', '--js'.
 *
 * This file: the dispatch, the subcommands' help and usage lines, their
 * option scanning, and the commands that write (encode, convert, import,
 * export, pack, unpack) with the checks of their outputs. info, dump and
 * verify, which read an archive and report on it, are in
 * cli_trace_inspect.c; what both use is declared in cli_trace.h.
 *
 * Exit status: 0 ok, 1 the work failed (verify found damage; an output
 * that could not be written after the work began: a full disk), 2 bad
 * usage or bad input (an output that cannot be written at all is refused
 * before the work).
 */
#include "cli/cli_trace.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "netloom/netloom.h"
#include "traces/trace.h"

static bool is_help(const char *s)
{
	return !strcmp(s, "-h") || !strcmp(s, "--help") || !strcmp(s, "help");
}

/* One option of a subcommand: its flags and what it does (continuation
 * lines after a '\n'), printed in one column with -h's (trace_sub_opts). */
struct trace_opt {
	const char *flags, *text;
};

static const struct trace_sub {
	const char *name;
	const char *usage;
	const char *help;
	struct trace_opt opts[2]; /* beside -h; a NULL flags ends them */
} trace_subs[] = {
	{"info", "info FILE [--json]",
	 "Print the manifest and a summary: ranks, communicators, calls per MPI operation,\n"
	 "point-to-point messages and bytes, recorded runtime, file and encoded sizes.",
	 {{"--json", "the same as a JSON document on stdout, with each rank's stream\n"
		     "(ops, encoded bytes, xxh64 hash)"}}},
	{"dump", "dump FILE [--rank R]",
	 "Print the archive as text (manifest, then one line per operation; format in\n"
	 "docs/trace-format.md section 8) on stdout. 'netloom trace encode' reads it back.",
	 {{"--rank R", "only rank R's operations (such a dump cannot be re-encoded)"}}},
	{"encode", "encode TEXT OUT.nlt",
	 "Write the archive a text dump describes. A dump of a whole archive encodes to\n"
	 "the identical bytes (same writer parameters, same netloom and libzstd).",
	 {{NULL, NULL}}},
	{"verify", "verify FILE",
	 "Decode every rank's stream and check it against the manifest: hashes, op\n"
	 "counts, frame index, communicator ids, peers and roots, and what replay\n"
	 "refuses (more than 65,535 communicators). Prints one line; exit 0 when\n"
	 "intact, 1 when damaged or refused, 2 when FILE cannot be read as an archive\n"
	 "(another format, or a format version newer than this netloom reads, which a\n"
	 "damaged header also shows: the message says both).",
	 {{NULL, NULL}}},
	{"convert", "convert IN OUT.nlt",
	 "Import a foreign trace: a DUMPI .meta file (its rank .bin files beside it, found\n"
	 "by basename when the recorded fileprefix path does not exist), a SimGrid\n"
	 "time-independent trace (an index file listing per-rank files, or an actions file\n"
	 "whose lines are by ranks 0 .. n-1; a per-rank file of a larger trace is converted\n"
	 "through its index file) or an OTF2 archive (Score-P or EZTrace: its anchor file\n"
	 "NAME.otf2, or a directory holding traces.otf2; needs a build with the OTF2\n"
	 "library). Calls that have no netloom operation are listed on stderr with their\n"
	 "counts.",
	 {{NULL, NULL}}},
	{"import", "import IN -o OUT.nlt",
	 "The same as 'convert IN OUT.nlt': a DUMPI .meta file, a SimGrid time-independent\n"
	 "trace or an OTF2 archive.",
	 {{"-o, --output OUT.nlt", "the archive to write (required; once)"}}},
	{"export", "export FILE --otf2 DIR",
	 "Write the archive as an OTF2 archive in DIR (which must not exist): per rank its\n"
	 "MPI calls as regions at their recorded times with their point-to-point and\n"
	 "collective records, compute as the region 'compute'; timer resolution 10^12/s.\n"
	 "otf2-print and Vampir read it; 'netloom replay DIR' reads it back.",
	 {{"--otf2 DIR", "the new directory to write the OTF2 archive to (required; once)"}}},
	{"pack", "pack OUT.bundle TRACE... [--config SYSTEM.ini]",
	 "Bundle traces (each verified first) and an optional system configuration into one\n"
	 "zstd-compressed file with a hash per entry, for reproducing a study elsewhere.",
	 {{"--config SYSTEM.ini", "the system configuration bundled with the traces (once)"}}},
	{"unpack", "unpack BUNDLE DIR",
	 "Restore a bundle's files into DIR (created if missing), byte for byte; each file is\n"
	 "checked against its hash and written atomically.",
	 {{NULL, NULL}}},
};

/* Every trace command's --help ends with it (docs/trace-format.md §12). */
static const char trace_exit_status[] =
	"Exit status: 0 done; 1 the work failed (verify: a damaged archive; an output not\n"
	"written once the work began); 2 a bad command line or input, or an output refused\n"
	"before the work (docs/trace-format.md, section 12).\n";

static void trace_usage(FILE *f)
{
	fprintf(f, "usage: netloom trace <subcommand> [options]\n\nsubcommands:\n");
	for (size_t i = 0; i < sizeof trace_subs / sizeof *trace_subs; i++)
		fprintf(f, "  %s\n", trace_subs[i].usage);
	fprintf(f, "\n'netloom trace <subcommand> --help' describes a subcommand.\n\n%s", trace_exit_status);
}

/* A subcommand's options and -h, their texts in one column past the
 * widest flags, as every other command's --help aligns them. */
static void trace_sub_opts(const struct trace_sub *t)
{
	static const struct trace_opt help = {"-h, --help", "this text"};
	int width = (int)strlen(help.flags);
	for (const struct trace_opt *o = t->opts; o < t->opts + 2 && o->flags; o++)
		if ((int)strlen(o->flags) > width)
			width = (int)strlen(o->flags);
	for (size_t k = 0; k < 3; k++) {
		const struct trace_opt *o = k < 2 ? &t->opts[k] : &help;
		if (!o->flags)
			continue;
		const char *p = o->text;
		printf("  %-*s   %.*s\n", width, o->flags, (int)strcspn(p, "\n"), p);
		while ((p = strchr(p, '\n')))
			p++, printf("  %-*s   %.*s\n", width, "", (int)strcspn(p, "\n"), p);
	}
}

int cli_trace_sub_help(const char *name)
{
	for (size_t i = 0; i < sizeof trace_subs / sizeof *trace_subs; i++)
		if (!strcmp(trace_subs[i].name, name)) {
			printf("usage: netloom trace %s\n\n%s\n\n", trace_subs[i].usage, trace_subs[i].help);
			trace_sub_opts(&trace_subs[i]);
			printf("\n%s", trace_exit_status);
			return CLI_OK;
		}
	return CLI_USAGE;
}

int cli_trace_sub_usage(const char *name, const char *fmt, const char *arg)
{
	/* arg is a word of the command line, which may hold a newline
	 * ('--rank $'1\n2'' printed two lines): escaped as the messages
	 * naming files are (nl_str_one_line), never cut. */
	char cmd[32], *shown = NULL;
	size_t cap = arg ? 4 * strlen(arg) + 1 : 0;
	if (arg && (shown = malloc(cap)))
		nl_str_one_line(shown, cap, arg);
	snprintf(cmd, sizeof cmd, "trace %s", name);
	int rc = CLI_USAGE;
	for (size_t i = 0; i < sizeof trace_subs / sizeof *trace_subs; i++)
		if (!strcmp(trace_subs[i].name, name))
			rc = cli_usage_error(cmd, fmt, shown ? shown : arg ? arg : "", trace_subs[i].usage);
	free(shown);
	return rc;
}

/* "unknown option '--jsn' (did you mean '--json'? usage: ...)": a typo
 * of one of the subcommand's long options is named, as the other
 * commands do (cli_option_near). */
static int sub_unknown_option(const char *name, const char *arg, const struct option *longopts)
{
	const char *near = cli_option_near(longopts, arg);
	if (!near)
		return cli_trace_sub_usage(name, "unknown option '%s' (usage: netloom trace %s)", arg);
	char fmt[128];
	snprintf(fmt, sizeof fmt, "unknown option '%%s' (did you mean '--%s'? usage: netloom trace %%s)", near);
	return cli_trace_sub_usage(name, fmt, arg);
}

/* The subcommands' options are read by getopt_long, as every other
 * command's are: '--rank=1', a unique abbreviation ('--js'), -oFILE and
 * '--' ending the options (each was an unknown option). Start a scan of
 * argv (argv[0] the subcommand). */
void cli_trace_getopt_start(void)
{
	opterr = 0;
	optind = 0;
}

/* getopt_long's complaint c as the subcommand says it: an unknown option
 * with a typo's nearest (sub_unknown_option), the others in the words of
 * the other commands (cli_getopt_message: "option '--rank' needs a
 * value", "option '--json' takes no value (got '--json=1')"), each
 * followed by the usage. */
int cli_trace_getopt_error(const char *name, char **argv, const struct option *longopts, int c)
{
	char cmd[32], msg[512];
	snprintf(cmd, sizeof cmd, "trace %s", name);
	cli_getopt_message(msg, sizeof msg, cmd, argv, longopts, c);
	if (!strncmp(msg, "unknown option ", 15)) {
		/* A long one leaves optind past its word; a short one is
		 * named from optopt (in a cluster, optind is still on it). */
		char shown[3] = {'-', (char)optopt, 0};
		return sub_unknown_option(name, optopt ? shown : argv[optind - 1], longopts);
	}
	return cli_trace_sub_usage(name, "%s (usage: netloom trace %s)", msg);
}

/* The option getopt_long just returned, which took the value optarg, as
 * the line gave it: "-o" or the full long name ("--output" for '--out X'
 * and '--output=X'), for a message about it. */
static const char *sub_opt_given(char **argv, const struct option *longopts, int c, char *buf, size_t n)
{
	/* A value in the next word leaves optind past it; an attached one
	 * ('-oX', '--output=X') on the option's own word. */
	const char *word = optind >= 2 && argv[optind - 1] == optarg ? argv[optind - 2] : argv[optind - 1];
	const struct option *o = longopts;
	while (o->name && o->val != c)
		o++;
	if (word[1] == '-' && o->name)
		snprintf(buf, n, "--%s", o->name);
	else
		snprintf(buf, n, "-%c", c);
	return buf;
}

/* Progress on stderr when it is a terminal (core/progress.h). */
void cli_trace_progress(void *ctx, double fraction)
{
	progress_update(ctx, fraction, NULL);
}

/* Exit status for a failed library call on user input. */
int cli_trace_report(const struct nl_err *e)
{
	return cli_report(e);
}

/* Before the work: can OUT (encode's, convert's, pack's) be written as an
 * archive? cli_check_output, and not a device or FIFO: an archive is read
 * back by offset (trace_afile_open refuses one too, but only once the work
 * is done). Refused in one line, status 2. */
static int check_archive_out(const char *opt, const char *out, struct nl_err *e)
{
	/* Not '' nor '-': cli_check_output lets '-' through as standard
	 * output, which an archive cannot be, so encode, convert, import and
	 * pack wrote a file named '-' in the working folder (and said "or '-'
	 * for standard output" of an empty name), as serve's --curve-keygen
	 * refuses both. */
	if (!*out)
		return cli_empty_name(opt, "file", "a file to write", e);
	if (!strcmp(out, "-"))
		return nl_errf(e, NL_EINVAL, "%s '-': not a file name (an archive cannot go to standard output); "
			       "expected a file to write", opt);
	NL_CHECK(cli_check_output(opt, out, e));
	char *real = NULL;
	int kind = nl_output_target(out, &real, e);
	free(real);
	if (kind == NL_OUT_STREAM)
		return nl_errf(e, NL_EIO, "%s: a device or FIFO; expected a file name for the archive", out);
	return kind < 0 ? kind : 0;
}

/* Exit status of a command that failed with e, its output checked
 * before the work began (check_archive_out; export's and unpack's DIR).
 * is_unwritten, set by the traces/ call (trace.h): the output failed
 * after the work began (a full disk), the work failing, status 1
 * (cli_report_unwritten), as for every command (docs/results.md);
 * anything else is the input's. */
static int report_out(const struct nl_err *e, bool is_unwritten)
{
	/* No option: OUT is an argument, and the line names it. */
	return is_unwritten ? cli_report_unwritten(NULL, NULL, e) : cli_trace_report(e);
}

/* Before the work: can unpack write into DIR? A file is tried in it (an
 * existing DIR) or DIR is made (a missing one), and removed at once, so
 * that a DIR no entry can be written into is refused before the bundle
 * is read, in one line naming DIR (status 2), not by the first entry's
 * write naming DIR/NAME, a file that is not there. Both registered while
 * they exist (out_staged_mkdir), so a SIGINT or SIGTERM leaves neither. */
static int check_unpack_dir(const char *dir, struct nl_err *e)
{
	static const char *const expected = "a directory to unpack the bundle into (made if missing)";
	struct stat st;
	bool made = false;
	if (!*dir)
		return cli_empty_name("DIR", "directory", expected, e);
	/* '-' is standard output to every other output: here it made a
	 * directory named '-' (./- still names one). */
	if (!strcmp(dir, "-"))
		return nl_errf(e, NL_EINVAL,
			       "DIR '-': not a directory name (files cannot unpack to standard output); expected %s",
			       expected);
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return nl_errf(e, NL_EINVAL, "%s: not a directory; expected %s", dir, expected);
	} else if (errno == ENOENT && lstat(dir, &st) == 0) {
		return nl_errf(e, NL_EIO, "%s: a symbolic link to a missing directory; expected %s", dir, expected);
	} else {
		int r = out_staged_mkdir(dir, e);
		if (r < 0)
			return r;
		if (r == 0) /* there now, not at the stat: as mkdir said before */
			return nl_errf(e, NL_EIO, "%s: cannot create directory: %s", dir, strerror(EEXIST));
		made = true;
	}
	size_t n = strlen(dir) + 32;
	char *probe = malloc(n);
	int rc = 0;
	if (!probe) {
		rc = nl_errf(e, NL_ENOMEM, "out of memory");
	} else {
		snprintf(probe, n, "%s/.netloom-unpack-XXXXXX", dir);
		/* A template that mkstemp fills in place (trace_afile_open). */
		if ((rc = out_staged_add(probe, e)) == 0) {
			int fd = mkstemp(probe);
			if (fd < 0) {
				rc = nl_errf(e, NL_EIO, "%s: cannot create files in the directory: %s", dir,
					     strerror(errno));
			} else {
				close(fd);
				unlink(probe);
			}
			out_staged_del(probe);
		}
		free(probe);
	}
	if (made) {
		rmdir(dir);
		out_staged_del(dir);
	}
	return rc;
}

/* --- encode ------------------------------------------------------------------------ */

/* The two arguments of encode, convert and unpack into *x and *y, each
 * named with what it takes (what[0], what[1]) when left out: "missing
 * arguments" said neither. CLI_OK, -1 after --help (the usage printed:
 * nothing else to do), or the status of a refusal said. */
static int two_args(const char *sub, const char *const what[2], int argc, char **argv, const char **x,
		    const char **y)
{
	static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int c;
	*x = *y = NULL;
	cli_trace_getopt_start();
	/* No option but --help: the first one met ends the reading. */
	bool help_scanned = false;
	if ((c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1)
		return c == 'h' ? (cli_trace_sub_help(sub), -1) : cli_trace_getopt_error(sub, argv, longopts, c);
	for (int i = optind; i < argc; i++) {
		if (!*x)
			*x = argv[i];
		else if (!*y)
			*y = argv[i];
		else
			return cli_trace_sub_usage(sub, "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
	}
	if (!*y) {
		char fmt[128];
		snprintf(fmt, sizeof fmt, "missing %s%%s (usage: netloom trace %%s)", what[*x ? 1 : 0]);
		return cli_trace_sub_usage(sub, fmt, NULL);
	}
	return CLI_OK;
}

static int cmd_encode(int argc, char **argv)
{
	const char *in, *out;
	static const char *const what[2] = {"TEXT, the text trace to encode", "OUT.nlt, the archive to write"};
	int rc = two_args("encode", what, argc, argv, &in, &out);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	/* The text would be replaced by the archive it describes. */
	if (out_same_file(in, out))
		return cli_trace_sub_usage("encode", "OUT.nlt '%s': the same file as TEXT; expected another file (usage: netloom trace %s)",
				 out);
	struct nl_err e = {0};
	/* An output that cannot be written is named as such, not as an
	 * error at the input line the writer was reached from. */
	if (check_archive_out("OUT.nlt", out, &e))
		return cli_trace_report(&e);
	bool is_unwritten = false;
	if (trace_encode_text(in, out, &is_unwritten, &e))
		return report_out(&e, is_unwritten);
	return CLI_OK;
}

/* --- convert -------------------------------------------------------------------- */

struct warn_ctx {
	const char *cmd; /* "convert" or "import": the command run, in warnings */
	uint64_t lines;
	struct progress *pr;
};

static void convert_warn(void *ctx, const char *line)
{
	struct warn_ctx *w = ctx;
	w->lines++;
	progress_done(w->pr); /* the conversion is over: clear the progress line */
	fprintf(stderr, "netloom trace %s: %s\n", w->cmd, line);
}

static int convert_run(const char *cmd, const char *in, const char *out);

static int cmd_convert(int argc, char **argv)
{
	const char *in, *out;
	static const char *const what[2] = {"IN, the trace to convert", "OUT.nlt, the archive to write"};
	int rc = two_args("convert", what, argc, argv, &in, &out);
	return rc < 0 ? CLI_OK : rc ? rc : convert_run("convert", in, out);
}

/* `import IN -o OUT`: convert's arguments in the order other tools use. */
static int cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *in = NULL, *out = NULL;
	char given[64];
	int c;
	cli_trace_getopt_start();
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":o:h", longopts, &help_scanned)) != -1) {
		if (c == 'h')
			return cli_trace_sub_help("import");
		if (c != 'o')
			return cli_trace_getopt_error("import", argv, longopts, c);
		/* Once, as every output option (docs/results.md): the last
		 * one won, and the first was never written. */
		if (out)
			return cli_trace_sub_usage("import", "option '%s' given twice (usage: netloom trace %s)",
					 sub_opt_given(argv, longopts, c, given, sizeof given));
		/* A value that is an option, refused as it is read (as
		 * convert_run would): in 'import IN -o --output X.nlt' the X.nlt
		 * left over was reported ("unexpected argument 'X.nlt'"). */
		struct nl_err e = {0};
		if (cli_value_not_option("OUT.nlt", optarg, "file", "a file to write", &e) < 0)
			return cli_trace_report(&e);
		out = optarg;
	}
	for (int i = optind; i < argc; i++) {
		if (in)
			return cli_trace_sub_usage("import", "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
		in = argv[i];
	}
	/* Each one named, as serve names its --ranks: "missing arguments"
	 * said neither which nor what it takes. */
	if (!in)
		return cli_trace_sub_usage("import", "missing IN, the trace to import%s (usage: netloom trace %s)", NULL);
	if (!out)
		return cli_trace_sub_usage("import",
					   "-o OUT.nlt is required, the archive to write%s (usage: netloom trace %s)", NULL);
	return convert_run("import", in, out);
}

static void export_warn(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "netloom trace export: %s\n", line);
}

static int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"otf2", required_argument, NULL, SUB_OPT_OTF2}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *file = NULL, *dir = NULL;
	int c;
	cli_trace_getopt_start();
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1) {
		if (c == 'h')
			return cli_trace_sub_help("export");
		if (c != SUB_OPT_OTF2)
			return cli_trace_getopt_error("export", argv, longopts, c);
		if (dir)
			return cli_trace_sub_usage("export", "option '--otf2' given twice%s (usage: netloom trace %s)", NULL);
		/* As replay's --otf2 (out_check_writable's line for an empty DIR
		 * named no option and offered '-' for standard output), and as
		 * it is read: in 'export T --otf2 --otf2 D' the D left over was
		 * reported ("unexpected argument 'D'"). */
		struct nl_err e = {0};
		if (cli_check_otf2_dir(optarg, &e))
			return cli_trace_report(&e);
		dir = optarg;
	}
	for (int i = optind; i < argc; i++) {
		if (file)
			return cli_trace_sub_usage("export", "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
		file = argv[i];
	}
	/* Each one named, as import's are. */
	if (!file)
		return cli_trace_sub_usage("export", "missing FILE, the archive to export%s (usage: netloom trace %s)", NULL);
	if (!dir)
		return cli_trace_sub_usage("export",
					   "--otf2 DIR is required, a new directory to write the OTF2 archive "
					   "to%s (usage: netloom trace %s)",
					   NULL);
	struct nl_err e = {0};
	struct trace_archive *a;
	/* DIR's folder must take the archive's temporary sibling (tried and
	 * removed, as for a file); a DIR that exists is refused by the
	 * export, before its work. */
	if (cli_check_otf2_writable(dir, &e))
		return cli_trace_report(&e);
	if (trace_archive_open(&a, file, &e))
		return cli_trace_report(&e);
	bool is_unwritten = false;
	int rc = trace_export_otf2(a, dir, export_warn, NULL, &is_unwritten, &e);
	trace_archive_close(a);
	if (rc)
		return report_out(&e, is_unwritten);
	printf("%s: OTF2 archive of %s (open %s/traces.otf2)\n", dir, file, dir);
	return CLI_OK;
}

static int convert_run(const char *cmd, const char *in, const char *out)
{
	int rc;
	struct nl_err e = {0};
	struct progress pr;
	struct warn_ctx wc = {cmd, 0, &pr};
	/* The input would be replaced by its conversion. */
	if (out_same_file(in, out))
		return cli_trace_sub_usage(cmd, "OUT.nlt '%s': the same file as the input; expected another file (usage: netloom trace %s)",
				 out);
	/* So would a file it reads besides IN (a DUMPI rank file). */
	const struct cli_file f = {"OUT.nlt", out};
	if (cli_check_trace_files("IN", in, &f, 1, &e))
		return cli_trace_sub_usage(cmd, "%s (usage: netloom trace %s)", e.msg);
	if (check_archive_out("OUT.nlt", out, &e)) /* not as an error at an input line */
		return cli_trace_report(&e);
	bool is_unwritten = false;
	progress_init(&pr, "converting");
	rc = trace_import_ex(in, out, convert_warn, &wc, cli_trace_progress, &pr, &is_unwritten, &e);
	progress_done(&pr);
	if (rc)
		return report_out(&e, is_unwritten);
	struct trace_archive *a;
	if (trace_archive_open(&a, out, &e))
		return cli_trace_report(&e);
	const struct trace_manifest *m = trace_archive_manifest(a);
	uint64_t ops = 0;
	for (uint32_t r = 0; r < m->n_ranks; r++)
		ops += m->rank_ops[r];
	printf("%s: %u rank%s, %" PRIu64 " op%s (from %s, %s)\n", out, m->n_ranks, m->n_ranks == 1 ? "" : "s", ops,
	       ops == 1 ? "" : "s", in, m->recorder);
	trace_archive_close(a);
	return CLI_OK;
}

/* --- pack / unpack ----------------------------------------------------------------- */

static int cmd_pack(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, SUB_OPT_CONFIG}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *out = NULL, *config = NULL;
	const char **traces = calloc((size_t)argc, sizeof *traces);
	size_t n = 0;
	int rc = CLI_OK, c;
	if (!traces)
		return CLI_FAIL;
	cli_trace_getopt_start();
	bool help_scanned = false;
	while (!rc && (c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1) {
		if (c == 'h') {
			free(traces);
			return cli_trace_sub_help("pack");
		}
		if (c != SUB_OPT_CONFIG)
			rc = cli_trace_getopt_error("pack", argv, longopts, c);
		else if (config)
			rc = cli_trace_sub_usage("pack", "--config given twice, '%s' after the first (a bundle holds one system configuration; usage: netloom trace %s)",
				       optarg);
		else
			config = optarg;
	}
	for (int i = optind; i < argc && !rc; i++) {
		if (!out)
			out = argv[i];
		else
			traces[n++] = argv[i];
	}
	if (!rc && !n)
		rc = cli_trace_sub_usage("pack", "missing OUT.bundle or TRACE%s (usage: netloom trace %s)", NULL);
	if (!rc) {
		struct nl_err e = {0};
		if (check_archive_out("OUT.bundle", out, &e))
			rc = cli_trace_report(&e);
	}
	/* The configuration would be replaced by the bundle holding it. */
	if (!rc && config && out_same_file(out, config))
		rc = cli_trace_sub_usage("pack", "--config '%s': the same file as OUT.bundle; expected another file (usage: netloom trace %s)",
			       config);
	/* The configuration is read twice, checked and then packed: a FIFO
	 * would give its text to the check only, and wait forever for a
	 * writer when it has none. A directory is the check's to name. */
	struct stat cst;
	if (!rc && config && !stat(config, &cst) && !S_ISREG(cst.st_mode) && !S_ISDIR(cst.st_mode)) {
		struct nl_err e = {0};
		nl_errf(&e, NL_EIO, "--config: %s: is not a regular file (%s); expected the system configuration's file",
			config, nl_file_kind(cst.st_mode));
		rc = cli_trace_report(&e);
	}
	if (!rc && config) {
		/* The system configuration must be one netloom runs: a bundle
		 * is for reproducing a run, and a wrong file found on unpack
		 * is found too late. The checks of `netloom run -c` (cli_run.c
		 * run_setup): the file loads, and the session it describes
		 * builds (topology, routing, traffic specs). */
		struct nl_err e = {0};
		nl_sim *sim = NULL;
		struct nl_sim_info info = {.size = sizeof info};
		int lrc = nl_sim_new(&sim, &e);
		if (!lrc) {
			lrc = nl_sim_load_file(sim, config, &e);
			cli_config_hint(config, lrc, &e);
		}
		if (!lrc)
			lrc = nl_sim_info(sim, &info, &e);
		if (lrc)
			rc = cli_trace_report(&e);
		nl_sim_free(sim);
	}
	if (!rc) {
		struct nl_err e = {0};
		bool is_unwritten = false;
		if (trace_bundle_pack(out, traces, n, config, &is_unwritten, &e))
			rc = report_out(&e, is_unwritten);
		else
			printf("%s: %zu trace%s%s\n", out, n, n == 1 ? "" : "s", config ? " + config" : "");
	}
	free(traces);
	return rc;
}

static int cmd_unpack(int argc, char **argv)
{
	const char *bundle, *dir;
	static const char *const what[2] = {"BUNDLE, the bundle to unpack", "DIR, the directory to unpack it into (made if missing)"};
	int rc = two_args("unpack", what, argc, argv, &bundle, &dir);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	struct nl_err e = {0};
	if (check_unpack_dir(dir, &e))
		return cli_trace_report(&e);
	char **names;
	size_t n;
	bool is_unwritten = false;
	if (trace_bundle_unpack(bundle, dir, &names, &n, &is_unwritten, &e))
		return report_out(&e, is_unwritten);
	/* DIR given as 'out/' lists 'out/a.nlt', as the errors name it
	 * (bundle.c), not 'out//a.nlt'. */
	const size_t dl = strlen(dir);
	const char *sep = dl && dir[dl - 1] == '/' ? "" : "/";
	for (size_t i = 0; i < n; i++) {
		printf("%s%s%s\n", dir, sep, names[i]);
		free(names[i]);
	}
	free(names);
	return CLI_OK;
}

int cli_trace_main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} subs[] = {
		{"info", cli_trace_info},       {"dump", cli_trace_dump},       {"encode", cmd_encode}, {"verify", cli_trace_verify},
		{"convert", cmd_convert}, {"pack", cmd_pack},       {"unpack", cmd_unpack}, {"import", cmd_import},
		{"export", cmd_export},
	};
	/* One line, as topo and design say it (the usage was 14 lines). */
	if (argc < 2) {
		fputs("netloom trace: missing subcommand (", stderr);
		for (size_t i = 0; i < sizeof subs / sizeof *subs; i++)
			fprintf(stderr, "%s%s", subs[i].name,
				i + 2 < sizeof subs / sizeof *subs ? ", " : i + 1 < sizeof subs / sizeof *subs ? " or " : "");
		fputs("; see --help)\n", stderr);
		return CLI_USAGE;
	}
	if (is_help(argv[1])) {
		trace_usage(stdout);
		return CLI_OK;
	}
	for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
		if (strcmp(argv[1], subs[i].name))
			continue;
		/* Its lines name the subcommand, as its usage errors do. */
		char cmd[32];
		snprintf(cmd, sizeof cmd, "trace %s", subs[i].name);
		cli_set_command(cmd);
		/* --help anywhere is the subcommand's to find, as getopt_long
		 * reads its line (cli_getopt_long): not a value ('import -o
		 * -h') nor a word after '--' ('info -- -h'), which a scan here
		 * took for it. */
		return subs[i].fn(argc - 1, argv + 1);
	}
	/* Said as topo says it ("unknown command" was netloom's word for
	 * its own commands): the subcommands listed, a typo's meaning named. */
	const char *names[sizeof subs / sizeof *subs];
	char valid[128] = "";
	size_t used = 0;
	for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
		names[i] = subs[i].name;
		used += (size_t)snprintf(valid + used, used < sizeof valid ? sizeof valid - used : 0, "%s%s",
					 i ? ", " : "", subs[i].name);
	}
	const char *near = config_name_near(argv[1], strlen(argv[1]), names, sizeof subs / sizeof *subs);
	return cli_usage_error("trace", "unknown subcommand '%s' (%s%s%svalid: %s)", argv[1], near ? "did you mean '" : "",
			       near ? near : "", near ? "'? " : "", valid);
}
