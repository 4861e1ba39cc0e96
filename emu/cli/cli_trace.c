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
 * Exit status: 0 ok, 1 the work failed (verify found damage; an output
 * that could not be written after the work began: a full disk), 2 bad
 * usage or bad input (an output that cannot be written at all is refused
 * before the work).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
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
#include "core/text.h"
#include "netloom/netloom.h"
#include "traces/trace.h"

static bool is_help(const char *s)
{
	return !strcmp(s, "-h") || !strcmp(s, "--help") || !strcmp(s, "help");
}

static const struct trace_sub {
	const char *name;
	const char *usage;
	const char *help;
} trace_subs[] = {
	{"info", "info FILE [--json]",
	 "Print the manifest and a summary: ranks, communicators, calls per MPI operation,\n"
	 "point-to-point messages and bytes, recorded runtime, stream sizes and hashes.\n"
	 "  --json   the same as a JSON document on stdout"},
	{"dump", "dump FILE [--rank R]",
	 "Print the archive as text (manifest, then one line per operation; format in\n"
	 "docs/trace-format.md section 8) on stdout. 'netloom trace encode' reads it back.\n"
	 "  --rank R   only rank R's operations (such a dump cannot be re-encoded)"},
	{"encode", "encode TEXT OUT.nlt",
	 "Write the archive a text dump describes. A dump of a whole archive encodes to\n"
	 "the identical bytes (same writer parameters, same netloom and libzstd)."},
	{"verify", "verify FILE",
	 "Decode every rank's stream and check it against the manifest: hashes, op\n"
	 "counts, frame index, communicator ids, peers and roots, and what replay\n"
	 "refuses (more than 65,535 communicators). Prints one line; exit 0 when\n"
	 "intact, 1 when damaged or refused, 2 when FILE cannot be read as an archive\n"
	 "(another format, or a format version newer than this netloom reads, which a\n"
	 "damaged header also shows: the message says both)."},
	{"convert", "convert IN OUT.nlt",
	 "Import a foreign trace: a DUMPI .meta file (its rank .bin files beside it, found\n"
	 "by basename when the recorded fileprefix path does not exist), a SimGrid\n"
	 "time-independent trace (an index file listing per-rank files, or an actions file\n"
	 "whose lines are by ranks 0 .. n-1; a per-rank file of a larger trace is converted\n"
	 "through its index file) or an OTF2 archive (Score-P or EZTrace: its anchor file\n"
	 "NAME.otf2, or a directory holding traces.otf2; needs a build with the OTF2\n"
	 "library). Calls that have no netloom operation are listed on stderr with their\n"
	 "counts."},
	{"import", "import IN -o OUT.nlt",
	 "The same as 'convert IN OUT.nlt': a DUMPI .meta file, a SimGrid time-independent\n"
	 "trace or an OTF2 archive.\n"
	 "  -o, --output OUT.nlt   the archive to write (required; once)"},
	{"export", "export FILE --otf2 DIR",
	 "Write the archive as an OTF2 archive in DIR (which must not exist): per rank its\n"
	 "MPI calls as regions at their recorded times with their point-to-point and\n"
	 "collective records, compute as the region 'compute'; timer resolution 10^12/s.\n"
	 "otf2-print and Vampir read it; 'netloom replay DIR' reads it back."},
	{"pack", "pack OUT.bundle TRACE... [--config SYSTEM.ini]",
	 "Bundle traces (each verified first) and an optional system configuration into one\n"
	 "zstd-compressed file with a hash per entry, for reproducing a study elsewhere."},
	{"unpack", "unpack BUNDLE DIR",
	 "Restore a bundle's files into DIR (created if missing), byte for byte; each file is\n"
	 "checked against its hash and written atomically."},
};

static void trace_usage(FILE *f)
{
	fprintf(f, "usage: netloom trace <subcommand> [options]\n\nsubcommands:\n");
	for (size_t i = 0; i < sizeof trace_subs / sizeof *trace_subs; i++)
		fprintf(f, "  %s\n", trace_subs[i].usage);
	fprintf(f, "\n'netloom trace <subcommand> --help' describes a subcommand.\n");
}

static int sub_help(const char *name)
{
	for (size_t i = 0; i < sizeof trace_subs / sizeof *trace_subs; i++)
		if (!strcmp(trace_subs[i].name, name)) {
			printf("usage: netloom trace %s\n\n%s\n", trace_subs[i].usage, trace_subs[i].help);
			return CLI_OK;
		}
	return CLI_USAGE;
}

static int sub_usage(const char *name, const char *fmt, const char *arg)
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
		return sub_usage(name, "unknown option '%s' (usage: netloom trace %s)", arg);
	char fmt[128];
	snprintf(fmt, sizeof fmt, "unknown option '%%s' (did you mean '--%s'? usage: netloom trace %%s)", near);
	return sub_usage(name, fmt, arg);
}

/* Codes of the long-only options (past a char, as getopt_long's others). */
enum { SUB_OPT_JSON = 256, SUB_OPT_RANK, SUB_OPT_OTF2, SUB_OPT_CONFIG };

/* The subcommands' options are read by getopt_long, as every other
 * command's are: '--rank=1', a unique abbreviation ('--js'), -oFILE and
 * '--' ending the options (each was an unknown option). Start a scan of
 * argv (argv[0] the subcommand). */
static void sub_getopt_start(void)
{
	opterr = 0;
	optind = 0;
}

/* getopt_long's complaint c as the subcommand says it: an unknown option
 * with a typo's nearest (sub_unknown_option), the others in the words of
 * the other commands (cli_getopt_message: "option '--rank' needs a
 * value", "option '--json' takes no value (got '--json=1')"), each
 * followed by the usage. */
static int sub_getopt_error(const char *name, char **argv, const struct option *longopts, int c)
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
	return sub_usage(name, "%s (usage: netloom trace %s)", msg);
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
static void show_progress(void *ctx, double fraction)
{
	progress_update(ctx, fraction, NULL);
}

/* Exit status for a failed library call on user input. */
static int report(const struct nl_err *e)
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
	return is_unwritten ? cli_report_unwritten(NULL, NULL, e) : report(e);
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

/* --- info --------------------------------------------------------------------- */

/* s on stdout for a terminal: control bytes and bytes that are not UTF-8
 * as \xHH (as the trace commands quote input bytes in errors), so a
 * manifest cannot move the cursor or recolour the terminal; a backslash
 * as \\, or the four characters "\x01" and the byte 0x01 would look the
 * same. For display only: nothing parses this back. */
static void info_put_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p);
	while (*p) {
		int len = *p < 0x20 || *p == 0x7f ? 0 : text_utf8_len(p, n);
		if (*p == '\\') {
			fputs("\\\\", stdout);
			len = 1;
		} else if (len <= 0) {
			printf("\\x%02x", *p);
			len = 1;
		} else {
			fwrite(p, 1, (size_t)len, stdout);
		}
		p += len;
		n -= (size_t)len;
	}
}

/* jansson's integers are signed: a u64 past INT64_MAX (a start_unix or a
 * byte count the archive allows) came out negative. Such a value is a
 * JSON number with an exponent instead, as info's reader can take it. */
static json_t *json_u64(uint64_t v)
{
	return v <= INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

static json_t *info_json(const char *path, struct trace_archive *a, const struct trace_stats *s)
{
	const struct trace_manifest *m = trace_archive_manifest(a);
	json_t *o = json_object();
	session_json_head(o, "trace info");
	json_object_set_new(o, "file", out_json_utf8(path));
	json_object_set_new(o, "format_version", json_integer(m->format_version));
	json_object_set_new(o, "ranks", json_integer(m->n_ranks));
	json_object_set_new(o, "application", out_json_utf8(m->application));
	json_object_set_new(o, "command_line", out_json_utf8(m->command_line));
	json_object_set_new(o, "machine", out_json_utf8(m->machine));
	json_object_set_new(o, "recorder", out_json_utf8(m->recorder));
	json_object_set_new(o, "mpi_library", out_json_utf8(m->mpi_library));
	json_object_set_new(o, "start_unix", json_u64(m->start_unix));
	json_object_set_new(o, "recorded_runtime_s", json_real(m->recorded_runtime_s));
	/* Format 2: where the ranks ran (0 = unknown). */
	json_object_set_new(o, "hosts", json_integer(m->hosts));
	json_object_set_new(o, "ranks_per_host", json_integer(m->ranks_per_host));
	json_object_set_new(o, "cores_per_host", json_integer(m->cores_per_host));
	json_object_set_new(o, "ranks_per_core", json_real(trace_manifest_ranks_per_core(m)));

	json_t *comms = json_array();
	for (uint32_t i = 0; i < m->n_comms; i++) {
		const struct trace_comm *c = &m->comms[i];
		json_t *jc = json_object();
		json_object_set_new(jc, "id", json_integer(c->id));
		json_object_set_new(jc, "size", json_integer(c->size));
		if (c->id >= 2) {
			json_t *wr = json_array();
			for (uint32_t j = 0; j < c->size; j++)
				json_array_append_new(wr, json_integer(c->world_ranks[j]));
			json_object_set_new(jc, "world_ranks", wr);
		}
		json_array_append_new(comms, jc);
	}
	json_object_set_new(o, "communicators", comms);
	json_object_set_new(o, "ops", json_integer((json_int_t)s->ops));

	json_t *calls = json_object();
	for (unsigned k = 0; k < TOP__COUNT; k++)
		if (s->calls[k] && k != TOP_COMPUTE && k != TOP_COMPUTE_FLOPS)
			json_object_set_new(calls, trace_op_name(k), json_integer((json_int_t)s->calls[k]));
	json_object_set_new(o, "calls", calls);

	json_t *p2p = json_object();
	json_object_set_new(p2p, "messages", json_integer((json_int_t)s->p2p_messages));
	json_object_set_new(p2p, "bytes", json_u64(s->p2p_bytes));
	json_object_set_new(o, "p2p", p2p);

	json_t *comp = json_object();
	json_object_set_new(comp, "intervals", json_integer((json_int_t)s->calls[TOP_COMPUTE]));
	json_object_set_new(comp, "seconds", json_real((double)s->compute_ps * 1e-12));
	json_object_set_new(comp, "cpu_seconds", m->has_compute_cpu ? json_real((double)s->compute_cpu_ps * 1e-12)
								   : json_null());
	json_object_set_new(comp, "flops_ops", json_integer((json_int_t)s->calls[TOP_COMPUTE_FLOPS]));
	json_object_set_new(comp, "flops", json_real(s->compute_flops));
	json_object_set_new(o, "compute", comp);

	json_t *streams = json_array();
	for (uint32_t r = 0; r < m->n_ranks; r++) {
		char h[20];
		snprintf(h, sizeof h, "%016" PRIx64, m->rank_hash[r]);
		json_t *js = json_object();
		json_object_set_new(js, "rank", json_integer(r));
		json_object_set_new(js, "ops", json_integer((json_int_t)m->rank_ops[r]));
		json_object_set_new(js, "encoded_bytes", json_integer((json_int_t)m->rank_bytes[r]));
		json_object_set_new(js, "xxh64", json_string(h));
		json_array_append_new(streams, js);
	}
	json_object_set_new(o, "streams", streams);

	uint64_t fb = trace_archive_file_bytes(a);
	json_t *sz = json_object();
	json_object_set_new(sz, "file_bytes", json_integer((json_int_t)fb));
	json_object_set_new(sz, "encoded_bytes", json_integer((json_int_t)s->encoded_bytes));
	json_object_set_new(sz, "compression_ratio", json_real(fb ? (double)s->encoded_bytes / (double)fb : 0));
	json_object_set_new(o, "size", sz);
	return o;
}

static int info_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Up to INFO_COMMS_LISTED communicators beyond world and self are listed
 * each with its id and size; more are counted by size ("48 of 4 ranks"):
 * HPCC's 56 made a line of 1,600 characters, a program creating 65,534 one
 * of a megabyte. --json lists every one. */
#define INFO_COMMS_LISTED 8

static void info_comms_text(const struct trace_manifest *m)
{
	printf("communicators     %u (world, self", m->n_comms);
	uint32_t n = m->n_comms > 2 ? m->n_comms - 2 : 0;
	uint32_t *size = n > INFO_COMMS_LISTED ? malloc(n * sizeof *size) : NULL;
	if (!size) { /* few, or no memory for the summary: each listed */
		for (uint32_t i = 2; i < m->n_comms; i++)
			printf(", %u: %u rank%s", m->comms[i].id, m->comms[i].size, m->comms[i].size == 1 ? "" : "s");
		printf(")\n");
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		size[i] = m->comms[i + 2].size;
	qsort(size, n, sizeof *size, info_cmp_u32);
	printf(", and by size:");
	for (uint32_t i = 0, groups = 0; i < n; groups++) {
		uint32_t j = i;
		while (j < n && size[j] == size[i])
			j++;
		if (groups == INFO_COMMS_LISTED) {
			printf(", %u more of larger sizes", n - i);
			break;
		}
		printf("%s %u of %u rank%s", groups ? "," : "", j - i, size[i], size[i] == 1 ? "" : "s");
		i = j;
	}
	printf("; --json lists each with its id)\n");
	free(size);
}

static void info_text(const char *path, struct trace_archive *a, const struct trace_stats *s)
{
	const struct trace_manifest *m = trace_archive_manifest(a);
	uint64_t fb = trace_archive_file_bytes(a);
	printf("file              ");
	info_put_text(path);
	printf(" (format %u, %" PRIu64 " bytes, %.2fx compression of %" PRIu64 " encoded bytes)\n", m->format_version,
	       fb, fb ? (double)s->encoded_bytes / (double)fb : 0.0, s->encoded_bytes);
	static const char *const labels[] = {"application       ", "command line      ", "machine           ",
					     "recorder          ", "MPI library       "};
	const char *values[] = {m->application, m->command_line, m->machine, m->recorder,
				m->mpi_library[0] ? m->mpi_library : "(unknown)"};
	for (size_t i = 0; i < sizeof labels / sizeof *labels; i++) {
		fputs(labels[i], stdout);
		info_put_text(values[i]);
		putchar('\n');
	}
	printf("start (unix)      %" PRIu64 "\n", m->start_unix);
	printf("ranks             %u\n", m->n_ranks);
	info_comms_text(m);
	printf("recorded runtime  %.9g s\n", m->recorded_runtime_s);
	double rpc = trace_manifest_ranks_per_core(m);
	if (rpc > 0)
		printf("recorded on       %u host%s, at most %u rank%s on a host of %u core%s (%.3g rank%s per core)\n",
		       m->hosts, m->hosts == 1 ? "" : "s", m->ranks_per_host, m->ranks_per_host == 1 ? "" : "s",
		       m->cores_per_host, m->cores_per_host == 1 ? "" : "s", rpc, rpc == 1 ? "" : "s");
	else
		printf("recorded on       (ranks per core unknown)\n");
	printf("operations        %" PRIu64 "\n", s->ops);
	char size[32];
	cli_bytes_human(size, sizeof size, s->p2p_bytes);
	printf("p2p messages      %" PRIu64 " (%" PRIu64 " bytes%s)\n", s->p2p_messages, s->p2p_bytes, size);
	printf("compute           %.9g s in %" PRIu64 " interval%s", (double)s->compute_ps * 1e-12, s->calls[TOP_COMPUTE],
	       s->calls[TOP_COMPUTE] == 1 ? "" : "s");
	/* Flop counts come from traces that record them (SimGrid's compute
	 * actions); "0 flops in 0 ops" said nothing on every other trace. */
	if (s->calls[TOP_COMPUTE_FLOPS])
		printf("; %.9g flops in %" PRIu64 " op%s", s->compute_flops, s->calls[TOP_COMPUTE_FLOPS],
		       s->calls[TOP_COMPUTE_FLOPS] == 1 ? "" : "s");
	putchar('\n');
	if (m->has_compute_cpu)
		printf("compute CPU time  %.9g s (thread CPU time in those intervals)\n", (double)s->compute_cpu_ps * 1e-12);
	printf("calls            ");
	for (unsigned k = 0; k < TOP__COUNT; k++)
		if (s->calls[k] && k != TOP_COMPUTE && k != TOP_COMPUTE_FLOPS)
			printf(" %s %" PRIu64, trace_op_name(k), s->calls[k]);
	printf("\n");
}

static int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, SUB_OPT_JSON}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *file = NULL;
	bool json = false;
	int c;
	sub_getopt_start();
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1) {
		if (c == SUB_OPT_JSON)
			json = true;
		else if (c == 'h')
			return sub_help("info");
		else
			return sub_getopt_error("info", argv, longopts, c);
	}
	for (int i = optind; i < argc; i++) {
		if (file)
			return sub_usage("info", "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
		file = argv[i];
	}
	if (!file)
		return sub_usage("info", "missing FILE%s (usage: netloom trace %s)", NULL);
	struct nl_err e = {0};
	struct trace_archive *a;
	struct trace_stats s;
	struct progress pr;
	if (trace_archive_open(&a, file, &e))
		return report(&e);
	progress_init(&pr, "reading");
	trace_archive_set_progress(a, show_progress, &pr);
	int src = trace_archive_stats(a, &s, &e);
	progress_done(&pr);
	if (src) {
		trace_archive_close(a);
		return report(&e);
	}
	int rc = CLI_OK;
	if (json) {
		json_t *o = info_json(file, a, &s);
		if (out_write_json("-", o, &e))
			rc = report(&e);
		json_decref(o);
	} else {
		info_text(file, a, &s);
	}
	trace_archive_close(a);
	return rc;
}

/* --- dump / encode / verify ------------------------------------------------------ */

static int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"rank", required_argument, NULL, SUB_OPT_RANK}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *file = NULL;
	int64_t rank = -1;
	int c;
	sub_getopt_start();
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1) {
		if (c == 'h')
			return sub_help("dump");
		if (c != SUB_OPT_RANK)
			return sub_getopt_error("dump", argv, longopts, c);
		char *end;
		if (rank >= 0) /* the last one won */
			return sub_usage("dump", "option '--rank' given twice%s (usage: netloom trace %s)", NULL);
		errno = 0;
		unsigned long long r = cli_strtou(optarg, &end);
		if (*end || end == optarg || errno || r > INT64_MAX)
			return sub_usage("dump", "--rank '%s': expected a rank number (usage: netloom trace %s)", optarg);
		rank = r;
	}
	for (int i = optind; i < argc; i++) {
		if (file)
			return sub_usage("dump", "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
		file = argv[i];
	}
	if (!file)
		return sub_usage("dump", "missing FILE%s (usage: netloom trace %s)", NULL);
	struct nl_err e = {0};
	struct trace_archive *a;
	struct progress pr;
	if (trace_archive_open(&a, file, &e))
		return report(&e);
	uint32_t n_ranks = trace_archive_manifest(a)->n_ranks;
	if (rank >= (int64_t)n_ranks) {
		/* Named with the archive, whose ranks they are. */
		trace_archive_close(a);
		nl_errf(&e, NL_ERANGE, "%s: --rank %lld: expected 0 .. %u, the archive's ranks", file, (long long)rank,
			n_ranks - 1);
		return report(&e);
	}
	progress_init(&pr, "dumping");
	trace_archive_set_progress(a, show_progress, &pr);
	int rc = trace_dump(a, rank, stdout, &e);
	progress_done(&pr);
	trace_archive_close(a);
	return rc ? report(&e) : CLI_OK;
}

/* The two arguments of encode, convert and unpack into *x and *y.
 * CLI_OK, -1 after --help (the usage printed: nothing else to do), or the
 * status of a refusal said. */
static int two_args(const char *sub, int argc, char **argv, const char **x, const char **y)
{
	static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int c;
	*x = *y = NULL;
	sub_getopt_start();
	/* No option but --help: the first one met ends the reading. */
	bool help_scanned = false;
	if ((c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1)
		return c == 'h' ? (sub_help(sub), -1) : sub_getopt_error(sub, argv, longopts, c);
	for (int i = optind; i < argc; i++) {
		if (!*x)
			*x = argv[i];
		else if (!*y)
			*y = argv[i];
		else
			return sub_usage(sub, "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
	}
	if (!*y)
		return sub_usage(sub, "missing arguments%s (usage: netloom trace %s)", NULL);
	return CLI_OK;
}

static int cmd_encode(int argc, char **argv)
{
	const char *in, *out;
	int rc = two_args("encode", argc, argv, &in, &out);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	/* The text would be replaced by the archive it describes. */
	if (out_same_file(in, out))
		return sub_usage("encode", "OUT.nlt '%s': the same file as TEXT; expected another file (usage: netloom trace %s)",
				 out);
	struct nl_err e = {0};
	/* An output that cannot be written is named as such, not as an
	 * error at the input line the writer was reached from. */
	if (check_archive_out("OUT.nlt", out, &e))
		return report(&e);
	bool is_unwritten = false;
	if (trace_encode_text(in, out, &is_unwritten, &e))
		return report_out(&e, is_unwritten);
	return CLI_OK;
}

static int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *file = NULL;
	int c;
	sub_getopt_start();
	/* No option but --help: the first one met ends the reading. */
	bool help_scanned = false;
	if ((c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1)
		return c == 'h' ? sub_help("verify") : sub_getopt_error("verify", argv, longopts, c);
	for (int i = optind; i < argc; i++) {
		if (file)
			return sub_usage("verify", "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
		file = argv[i];
	}
	if (!file)
		return sub_usage("verify", "missing FILE%s (usage: netloom trace %s)", NULL);
	struct nl_err e = {0};
	struct trace_archive *a;
	struct progress pr;
	int rc = trace_archive_open(&a, file, &e);
	/* An intact header this netloom cannot read (a newer format version,
	 * flags it does not know) is not damage it found: status 2, as from
	 * info and replay. A newer version's message says it may be damage.
	 * Nor is a file that is no archive at all (another file's first bytes,
	 * an empty file: NL_EFORMAT, from the open only), which was "FAILED",
	 * status 1, where info, replay and a foreign trace give 2. */
	bool is_unreadable = rc == NL_EUNSUPPORTED || rc == NL_EFORMAT;
	if (!rc) {
		progress_init(&pr, "verifying");
		trace_archive_set_progress(a, show_progress, &pr);
		rc = trace_archive_verify(a, &e);
		progress_done(&pr);
		if (!rc) {
			const struct trace_manifest *m = trace_archive_manifest(a);
			uint64_t ops = 0;
			for (uint32_t r = 0; r < m->n_ranks; r++)
				ops += m->rank_ops[r];
			printf("%s: OK: %u rank%s, %" PRIu64 " op%s, every stream matches its hash and op count\n",
			       file, m->n_ranks, m->n_ranks == 1 ? "" : "s", ops, ops == 1 ? "" : "s");
		}
		trace_archive_close(a);
	}
	if (!rc)
		return CLI_OK;
	/* A foreign trace (NL_EINVAL) is not damage: bad input, status 2. */
	if (rc == NL_ENOTFOUND || rc == NL_EIO || rc == NL_ENOMEM || rc == NL_EINVAL || is_unreadable)
		return report(&e);
	/* One line of text, as cli_report writes: the message quotes the
	 * archive's path, whatever bytes it holds. */
	nl_err_one_line(&e, rc);
	cli_say("FAILED: %s", e.msg);
	return CLI_FAIL;
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
	int rc = two_args("convert", argc, argv, &in, &out);
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
	sub_getopt_start();
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":o:h", longopts, &help_scanned)) != -1) {
		if (c == 'h')
			return sub_help("import");
		if (c != 'o')
			return sub_getopt_error("import", argv, longopts, c);
		/* Once, as every output option (docs/results.md): the last
		 * one won, and the first was never written. */
		if (out)
			return sub_usage("import", "option '%s' given twice (usage: netloom trace %s)",
					 sub_opt_given(argv, longopts, c, given, sizeof given));
		/* A value that is an option, refused as it is read (as
		 * convert_run would): in 'import IN -o --output X.nlt' the X.nlt
		 * left over was reported ("unexpected argument 'X.nlt'"). */
		struct nl_err e = {0};
		if (cli_value_not_option("OUT.nlt", optarg, "file", "a file to write", &e) < 0)
			return report(&e);
		out = optarg;
	}
	for (int i = optind; i < argc; i++) {
		if (in)
			return sub_usage("import", "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
		in = argv[i];
	}
	if (!in || !out)
		return sub_usage("import", "missing arguments%s (usage: netloom trace %s)", NULL);
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
	sub_getopt_start();
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1) {
		if (c == 'h')
			return sub_help("export");
		if (c != SUB_OPT_OTF2)
			return sub_getopt_error("export", argv, longopts, c);
		if (dir)
			return sub_usage("export", "option '--otf2' given twice%s (usage: netloom trace %s)", NULL);
		/* As replay's --otf2 (out_check_writable's line for an empty DIR
		 * named no option and offered '-' for standard output), and as
		 * it is read: in 'export T --otf2 --otf2 D' the D left over was
		 * reported ("unexpected argument 'D'"). */
		struct nl_err e = {0};
		if (cli_check_otf2_dir(optarg, &e))
			return report(&e);
		dir = optarg;
	}
	for (int i = optind; i < argc; i++) {
		if (file)
			return sub_usage("export", "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
		file = argv[i];
	}
	if (!file || !dir)
		return sub_usage("export", "missing arguments%s (usage: netloom trace %s)", NULL);
	struct nl_err e = {0};
	struct trace_archive *a;
	/* DIR's folder must take the archive's temporary sibling (tried and
	 * removed, as for a file); a DIR that exists is refused by the
	 * export, before its work. */
	struct stat st;
	if (stat(dir, &st) != 0 && out_check_writable(dir, &e))
		return report(&e);
	if (trace_archive_open(&a, file, &e))
		return report(&e);
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
		return sub_usage(cmd, "OUT.nlt '%s': the same file as the input; expected another file (usage: netloom trace %s)",
				 out);
	/* So would a file it reads besides IN (a DUMPI rank file). */
	const struct cli_file f = {"OUT.nlt", out};
	if (cli_check_trace_files("IN", in, &f, 1, &e))
		return sub_usage(cmd, "%s (usage: netloom trace %s)", e.msg);
	if (check_archive_out("OUT.nlt", out, &e)) /* not as an error at an input line */
		return report(&e);
	bool is_unwritten = false;
	progress_init(&pr, "converting");
	rc = trace_import_ex(in, out, convert_warn, &wc, show_progress, &pr, &is_unwritten, &e);
	progress_done(&pr);
	if (rc)
		return report_out(&e, is_unwritten);
	struct trace_archive *a;
	if (trace_archive_open(&a, out, &e))
		return report(&e);
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
	sub_getopt_start();
	bool help_scanned = false;
	while (!rc && (c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1) {
		if (c == 'h') {
			free(traces);
			return sub_help("pack");
		}
		if (c != SUB_OPT_CONFIG)
			rc = sub_getopt_error("pack", argv, longopts, c);
		else if (config)
			rc = sub_usage("pack", "--config given twice, '%s' after the first (a bundle holds one system configuration; usage: netloom trace %s)",
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
		rc = sub_usage("pack", "missing OUT.bundle or TRACE%s (usage: netloom trace %s)", NULL);
	if (!rc) {
		struct nl_err e = {0};
		if (check_archive_out("OUT.bundle", out, &e))
			rc = report(&e);
	}
	/* The configuration would be replaced by the bundle holding it. */
	if (!rc && config && out_same_file(out, config))
		rc = sub_usage("pack", "--config '%s': the same file as OUT.bundle; expected another file (usage: netloom trace %s)",
			       config);
	/* The configuration is read twice, checked and then packed: a FIFO
	 * would give its text to the check only, and wait forever for a
	 * writer when it has none. A directory is the check's to name. */
	struct stat cst;
	if (!rc && config && !stat(config, &cst) && !S_ISREG(cst.st_mode) && !S_ISDIR(cst.st_mode)) {
		struct nl_err e = {0};
		nl_errf(&e, NL_EIO, "--config: %s: is not a regular file (%s); expected the system configuration's file",
			config, nl_file_kind(cst.st_mode));
		rc = report(&e);
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
			rc = report(&e);
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
	int rc = two_args("unpack", argc, argv, &bundle, &dir);
	if (rc)
		return rc < 0 ? CLI_OK : rc;
	struct nl_err e = {0};
	if (check_unpack_dir(dir, &e))
		return report(&e);
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
		{"info", cmd_info},       {"dump", cmd_dump},       {"encode", cmd_encode}, {"verify", cmd_verify},
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
		/* What a command stages (encode's and convert's per-rank
		 * streams, export's DIR.tmp-XXXXXX) is removed by a Ctrl-C or
		 * SIGTERM, which then ends the command (core/output.h). */
		out_signals_catch();
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
