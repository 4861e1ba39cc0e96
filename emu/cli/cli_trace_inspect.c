/* `netloom trace` info, dump and verify: the subcommands that read an
 * archive and report on it, as a summary (text or JSON), as text, or as
 * one line saying whether every stream is intact. The dispatch, the
 * usage lines and the option scanning they use are cli_trace.c's
 * (cli_trace.h).
 */
#include "cli/cli_trace.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "core/text.h"
#include "traces/trace.h"

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

int cli_trace_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, SUB_OPT_JSON}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *file = NULL;
	bool json = false;
	int c;
	cli_trace_getopt_start();
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1) {
		if (c == SUB_OPT_JSON)
			json = true;
		else if (c == 'h')
			return cli_trace_sub_help("info");
		else
			return cli_trace_getopt_error("info", argv, longopts, c);
	}
	for (int i = optind; i < argc; i++) {
		if (file)
			return cli_trace_sub_usage("info", "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
		file = argv[i];
	}
	if (!file)
		return cli_trace_sub_usage("info", "missing FILE%s (usage: netloom trace %s)", NULL);
	struct nl_err e = {0};
	struct trace_archive *a;
	struct trace_stats s;
	struct progress pr;
	if (trace_archive_open(&a, file, &e))
		return cli_trace_report(&e);
	progress_init(&pr, "reading");
	trace_archive_set_progress(a, cli_trace_progress, &pr);
	int src = trace_archive_stats(a, &s, &e);
	progress_done(&pr);
	if (src) {
		trace_archive_close(a);
		return cli_trace_report(&e);
	}
	int rc = CLI_OK;
	if (json) {
		json_t *o = info_json(file, a, &s);
		if (out_write_json("-", o, &e))
			rc = cli_trace_report(&e);
		json_decref(o);
	} else {
		info_text(file, a, &s);
	}
	trace_archive_close(a);
	return rc;
}

/* --- dump / verify ------------------------------------------------------------- */

int cli_trace_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"rank", required_argument, NULL, SUB_OPT_RANK}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *file = NULL;
	int64_t rank = -1;
	int c;
	cli_trace_getopt_start();
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1) {
		if (c == 'h')
			return cli_trace_sub_help("dump");
		if (c != SUB_OPT_RANK)
			return cli_trace_getopt_error("dump", argv, longopts, c);
		char *end;
		if (rank >= 0) /* the last one won */
			return cli_trace_sub_usage("dump", "option '--rank' given twice%s (usage: netloom trace %s)", NULL);
		errno = 0;
		unsigned long long r = cli_strtou(optarg, &end);
		if (*end || end == optarg || errno || r > INT64_MAX)
			return cli_trace_sub_usage("dump", "--rank '%s': expected a rank number (usage: netloom trace %s)", optarg);
		rank = r;
	}
	for (int i = optind; i < argc; i++) {
		if (file)
			return cli_trace_sub_usage("dump", "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
		file = argv[i];
	}
	if (!file)
		return cli_trace_sub_usage("dump", "missing FILE%s (usage: netloom trace %s)", NULL);
	struct nl_err e = {0};
	struct trace_archive *a;
	struct progress pr;
	if (trace_archive_open(&a, file, &e))
		return cli_trace_report(&e);
	uint32_t n_ranks = trace_archive_manifest(a)->n_ranks;
	if (rank >= (int64_t)n_ranks) {
		/* Named with the archive, whose ranks they are. */
		trace_archive_close(a);
		nl_errf(&e, NL_ERANGE, "%s: --rank %lld: expected 0 .. %u, the archive's ranks", file, (long long)rank,
			n_ranks - 1);
		return cli_trace_report(&e);
	}
	progress_init(&pr, "dumping");
	trace_archive_set_progress(a, cli_trace_progress, &pr);
	int rc = trace_dump(a, rank, stdout, &e);
	int dump_errno = errno;
	progress_done(&pr);
	trace_archive_close(a);
	/* A full disk is stdout's, said as every command says it (the
	 * library's line names no file: "dump: write failed"). */
	if (rc == NL_EIO && ferror(stdout))
		return cli_stdout_finish(CLI_OK, dump_errno);
	return rc ? cli_trace_report(&e) : CLI_OK;
}

int cli_trace_verify(int argc, char **argv)
{
	static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *file = NULL;
	int c;
	cli_trace_getopt_start();
	/* No option but --help: the first one met ends the reading. */
	bool help_scanned = false;
	if ((c = cli_getopt_long(argc, argv, ":h", longopts, &help_scanned)) != -1)
		return c == 'h' ? cli_trace_sub_help("verify") : cli_trace_getopt_error("verify", argv, longopts, c);
	for (int i = optind; i < argc; i++) {
		if (file)
			return cli_trace_sub_usage("verify", "unexpected argument '%s' (usage: netloom trace %s)", argv[i]);
		file = argv[i];
	}
	if (!file)
		return cli_trace_sub_usage("verify", "missing FILE%s (usage: netloom trace %s)", NULL);
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
		trace_archive_set_progress(a, cli_trace_progress, &pr);
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
		return cli_trace_report(&e);
	/* One line of text, as cli_report writes: the message quotes the
	 * archive's path, whatever bytes it holds. */
	nl_err_one_line(&e, rc);
	cli_say("FAILED: %s", e.msg);
	return CLI_FAIL;
}
