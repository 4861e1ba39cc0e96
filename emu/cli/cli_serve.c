/* `netloom serve`: live emulation over ZeroMQ (adapters/, docs/live.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "adapters/adapters.h"
#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/text.h"
#include "session/session.h"

static void cli_serve_usage(FILE *f)
{
	fputs("usage: netloom serve [-c SYSTEM.ini] --ranks N [options]\n"
	      "\n"
	      "Serve a ZeroMQ endpoint; N client processes connect as ranks, exchange real payloads\n"
	      "and receive them after the emulated network's delay, in lock-step virtual time\n"
	      "(docs/live.md, docs/zmq-protocol.md).\n"
	      "\n"
	      "  -c, --config FILE        network and replay configuration (INI)\n"
	      "  -s, --set KEY=VAL        override a key (repeatable)\n"
	      "  -n, --ranks N            number of ranks, 1..2^20 (required)\n"
	      "  -l, --listen ENDPOINT    tcp://127.0.0.1:PORT (default port 5555; 0 or *: any free port),\n"
	      "                           tcp://localhost:PORT, tcp://[::1]:PORT or ipc://PATH\n"
	      "      --allow-remote       accept a tcp:// address other than loopback\n"
	      "      --jobs N1,N2,...     jobs 1, 2, ... of N1, N2, ... consecutive ranks (sum = --ranks);\n"
	      "                           a job's ranks only talk within the job (default: one job)\n"
	      "      --curve-key FILE     encrypt with CURVE: the server's key file (see --curve-keygen)\n"
	      "      --curve-allow FILE   client public keys allowed in (one a line); others are refused\n"
	      "      --curve-keygen FILE  write a new key pair to FILE (0600) and FILE.pub, then exit\n"
	      "      --tokens FILE        one decimal token per line, rank order; HELLO must carry its rank's\n"
	      "                           (blank lines and '#' comments skipped)\n"
	      "      --trace FILE.nlt     replay this trace beside the ranks, on endpoints of its own (key\n"
	      "                           'placement'; default: the endpoints after the ranks'), loading the\n"
	      "                           same network; the report gives the ranks' and the trace's figures\n"
	      "      --record FILE.nlt    write the session as a trace archive (replays to the same times)\n"
	      "      --messages FILE      write each delivered message's virtual times, one line each\n"
	      "                           ('-' = stdout, instead of the text report)\n"
	      "      --json FILE          write the report as JSON ('-' = stdout, instead of the text report)\n"
	      "      --max-payload BYTES  largest SEND payload, 0..2^30 (default 1048576; 0: empty messages\n"
	      "                           only); larger ones get an ERROR, and a frame over BYTES + 25% +\n"
	      "                           4 KiB (at least 20 KiB) is dropped by libzmq with its connection,\n"
	      "                           unsaid (docs/zmq-protocol.md, Limits)\n"
	      "      --heartbeat-ms MS    heartbeat interval told to clients, 1..3600000, below --timeout-ms\n"
	      "                           (default 500)\n"
	      "      --timeout-ms MS      evict a connected rank silent this long, 1..3600000 (default 5000)\n"
	      "      --connect-timeout-ms MS  evict a rank not connected this long after start, 1..3600000\n"
	      "                           (default 30000)\n"
	      "      --pace SCALE         paced mode: virtual time follows the wall clock x SCALE, 1e-6..1e6;\n"
	      "                           compute is measured, releases wait for the wall clock (default:\n"
	      "                           lock-step)\n"
	      "      --max-lag-ms MS      paced: stop with an error once a release lags the wall clock by more\n"
	      "                           than MS, 1..3600000 (default: no limit, best effort); needs --pace\n"
	      "  -q, --quiet              no log lines on stderr\n"
	      "  -h, --help               this text\n"
	      "\n"
	      "Exit status: 0 every remaining rank finished (some may have been evicted); 1 ranks\n"
	      "waited forever (a deadlock), every rank was evicted (with --jobs: every rank of a\n"
	      "job, none of which connected, say), the session was stopped (a signal,\n"
	      "--max-lag-ms) or an output could not be written once it ran; 2 bad input\n"
	      "(docs/live.md, \"Start a session\").\n",
	      f);
}

/* "4,4" -> job sizes {4, 4}, which must sum to n_ranks. */
static int cli_serve_jobs(const char *arg, uint32_t n_ranks, uint32_t **out, uint32_t *n_out, struct nl_err *err)
{
	uint32_t n = 1;
	for (const char *p = arg; *p; p++)
		n += *p == ',';
	uint32_t *v = calloc(n, sizeof *v);
	if (!v)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	const char *p = arg;
	unsigned long long sum = 0;
	for (uint32_t j = 0; j < n; j++) {
		char *end;
		errno = 0;
		unsigned long long x = cli_strtou(p, &end); /* no sign, no blank ('4, 4') */
		if (end == p || errno || x == 0 || x > (1u << 20) || (*end != ',' && *end != '\0')) {
			free(v);
			int len = (int)strcspn(p, ",");
			return nl_errf(err, NL_ECONFIG, "--jobs: '%s': job %" PRIu32 " size '%.*s', expected a list of "
				       "rank counts 1..1048576 like 4,4", arg, j + 1, len < 20 ? len : 20, p);
		}
		v[j] = (uint32_t)x;
		sum += x;
		p = end + (*end == ',');
	}
	if (sum != n_ranks) {
		free(v);
		return nl_errf(err, NL_ECONFIG, "--jobs: '%s': sizes sum to %llu rank%s, expected --ranks %" PRIu32,
			       arg, sum, sum == 1 ? "" : "s", n_ranks);
	}
	*out = v;
	*n_out = n;
	return 0;
}

/* Is the tokens file's line (its end of line cut) one to skip: blank, or
 * a '#' comment, as a placement map file's? A file written by hand or a
 * script often ends in a blank line. */
static int cli_serve_token_skipped(const char *line)
{
	const char *s = line + strspn(line, " \t");
	return *s == '\0' || *s == '#';
}

/* Read n decimal tokens, one a line; blank lines and '#' comments (a
 * whole line, or after the token) are skipped. */
static int cli_serve_tokens(const char *path, uint32_t n, uint64_t **out, struct nl_err *err)
{
	FILE *f;
	if (nl_open_input(path, "tokens file", &f, err))
		return nl_err_prefix(err, "--tokens");
	uint64_t *t = calloc(n, sizeof *t);
	/* getline: a fixed buffer split a long '#' comment, and its rest was
	 * read as the next line's token. */
	char *line = NULL;
	size_t cap = 0;
	uint32_t i = 0, lineno = 0;
	int rc = 0;
	ssize_t len;
	while (rc == 0 && t && (len = text_getline(&line, &cap, f)) >= 0) {
		char *end;
		lineno++;
		/* The string functions below would stop at a NUL and take '1\0x'
		 * for the token 1, as the map reader says. */
		if (memchr(line, '\0', (size_t)len)) {
			rc = nl_errf(err, NL_ECONFIG, "--tokens: '%s' line %" PRIu32 ": unexpected NUL byte; expected a "
				     "text file", path, lineno);
			break;
		}
		line[strcspn(line, "\r\n")] = '\0'; /* quoted in errors: one line */
		if (cli_serve_token_skipped(line))
			continue;
		/* Blanks around the number are let be, but a digit must come
		 * first after them: strtoull also takes a sign after a blank, so
		 * ' -1' was the token 2^64 - 1 and '+5' was 5 (only a '-' at the
		 * start of the line was refused). */
		const char *p = line + strspn(line, " \t");
		errno = 0;
		unsigned long long v = cli_strtou(p, &end);
		end += strspn(end, " \t");
		if (errno || end == p || (*end && *end != '#'))
			rc = nl_errf(err, NL_ECONFIG,
				     "--tokens: '%s' line %" PRIu32 ": '%.40s', expected a decimal token "
				     "0..18446744073709551615",
				     path, lineno, line);
		else if (i == n)
			rc = nl_errf(err, NL_ECONFIG, "--tokens: '%s' line %" PRIu32 ": more than %" PRIu32
				     " token%s, expected one per rank", path, lineno, n, n == 1 ? "" : "s");
		else
			t[i++] = v;
	}
	free(line);
	fclose(f);
	if (!t)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	if (rc == 0 && i != n)
		rc = nl_errf(err, NL_ECONFIG, "--tokens: '%s': %" PRIu32 " token%s, expected %" PRIu32 " (one per rank)",
			     path, i, i == 1 ? "" : "s", n);
	if (rc < 0) {
		free(t);
		return rc;
	}
	*out = t;
	return 0;
}

/* What a key set for a --trace's ranks only does, and why it does
 * nothing for live ranks; NULL for a key live ranks use too. The
 * placement keys (live rank r is on endpoint r, docs/live.md), the
 * collective algorithms but the barrier's (a live rank's only collective;
 * the clients' allreduce_sum is point-to-point) and cpu_flops (live ranks
 * declare COMPUTE durations, not flop counts). */
static const char *cli_serve_trace_only(const char *key)
{
	static const char *const placement[] = {"placement", "placement_seed", "ranks_per_node", "placement_inner",
						"placement_map"};
	for (size_t k = 0; k < sizeof placement / sizeof *placement; k++)
		if (!strcmp(key, placement[k]))
			return "it places a --trace's ranks only, and there is no --trace (live rank r is on endpoint r)";
	if (!strncmp(key, "coll_", 5) && strcmp(key, "coll_barrier_algorithm"))
		return "it shapes a --trace's collectives only, and there is no --trace (a live rank's only collective "
		       "is the barrier; the clients' allreduce_sum is point-to-point)";
	if (!strcmp(key, "cpu_flops"))
		return "it times a --trace's flop counts only, and there is no --trace (live ranks declare COMPUTE "
		       "durations)";
	return NULL;
}

/* Without --trace, the keys that act on a trace's ranks only did
 * nothing, yet the session ran (placement = random-node, say, exit 0) and
 * its report's configuration echoed them as if they had: refused, as
 * cli_check_placement_map refuses a map nothing reads. */
static int cli_serve_check_trace_keys(const struct config *cfg, const char *trace_path, struct nl_err *err)
{
	if (trace_path)
		return 0;
	for (size_t i = 0; i < cfg->n_entries; i++) {
		const char *key = cfg->entries[i].def->name, *value = cfg->entries[i].value;
		const char *why = cli_serve_trace_only(key);
		if (!why || !value[0])
			continue;
		nl_errf(err, NL_ECONFIG, "key '%s': value '%s': %s; expected --trace with it, or %s unset", key, value,
			why, key);
		return config_err_file_line(cfg, key, err);
	}
	return 0;
}

enum { LO_CKEY = 1096, LO_CALLOW, LO_CGEN, LO_JOBS, LO_ALLOW = 1100, LO_PACE, LO_MAXLAG, LO_TOKENS, LO_RECORD, LO_MSGS, LO_JSON, LO_MAXPAY, LO_HB, LO_TO, LO_CTO, LO_TRACE };

/* What serve's command line asked for, beside the live_opts it fills. */
struct serve_args {
	struct live_opts o;
	const char **sets; /* -s, applied in order after every -c */
	size_t n_sets;
	/* What it reads: the -c files, then --trace, --tokens, --curve-key
	 * and --curve-allow (serve_check_outputs). */
	struct cli_file *files;
	size_t n_files;
	bool have_ranks;
	const char *tokens_path, *jobs_arg, *keygen, *listen_arg;
	uint64_t *tokens; /* --tokens read (serve_read_lists) */
	uint32_t *jobs;   /* --jobs read */
	struct cli_seen seen;
	const char *other; /* the first option but --curve-keygen ("ranks"), which keygen refuses */
};

static const struct option serve_longopts[] = {
	{"config", required_argument, NULL, 'c'},  {"set", required_argument, NULL, 's'},
	{"ranks", required_argument, NULL, 'n'},   {"listen", required_argument, NULL, 'l'},
	{"allow-remote", no_argument, NULL, LO_ALLOW}, {"tokens", required_argument, NULL, LO_TOKENS},
	{"jobs", required_argument, NULL, LO_JOBS}, {"curve-key", required_argument, NULL, LO_CKEY},
	{"curve-allow", required_argument, NULL, LO_CALLOW}, {"curve-keygen", required_argument, NULL, LO_CGEN},
	{"pace", required_argument, NULL, LO_PACE}, {"max-lag-ms", required_argument, NULL, LO_MAXLAG}, {"record", required_argument, NULL, LO_RECORD},
	{"trace", required_argument, NULL, LO_TRACE},
	{"messages", required_argument, NULL, LO_MSGS}, {"json", required_argument, NULL, LO_JSON},
	{"max-payload", required_argument, NULL, LO_MAXPAY}, {"heartbeat-ms", required_argument, NULL, LO_HB},
	{"timeout-ms", required_argument, NULL, LO_TO}, {"connect-timeout-ms", required_argument, NULL, LO_CTO},
	{"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* A numeric option's value into *out; false after saying why it is not
 * one (cli_parse_u64's line). */
static bool serve_u32(const char *opt, const char *arg, uint64_t lo, uint64_t hi, uint32_t *out)
{
	uint64_t v;
	if (cli_parse_u64("serve", opt, arg, lo, hi, &v) < 0)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* One option of serve's command line into a. CLI_OK to read on; else the
 * status to stop with, the reason said (-1: --help printed). A -c file is
 * loaded here, so that a later -s overrides its keys. */
static int serve_option(struct serve_args *a, nl_sim *sim, int ch, char **argv, struct nl_err *err)
{
	struct live_opts *o = &a->o;
	const char *arg = optarg;
	switch (ch) {
	case 'c': {
		a->files[a->n_files++] = (struct cli_file){"-c", arg};
		int rc = nl_sim_load_file(sim, arg, err);
		cli_config_hint(arg, rc, err);
		if (rc < 0)
			return cli_report(err);
		cli_warn_config_empty("serve", session_config(sim), arg);
		return CLI_OK;
	}
	case 's':
		a->sets[a->n_sets++] = arg;
		return CLI_OK;
	case 'n':
		a->have_ranks = true;
		return serve_u32("--ranks", arg, 1, 1u << 20, &o->n_ranks) ? CLI_OK : CLI_USAGE;
	case 'l':
		/* One endpoint: a second --listen replaced the first silently,
		 * where a user may have meant both. */
		o->listen = arg;
		return cli_output_once("serve", "--listen", &a->listen_arg, arg);
	case LO_ALLOW:
		o->allow_remote = true;
		return CLI_OK;
	case LO_PACE:
		return cli_parse_double("serve", "--pace", arg, 1e-6, 1e6, &o->pace) < 0 ? CLI_USAGE : CLI_OK;
	case LO_MAXLAG:
		return serve_u32("--max-lag-ms", arg, 1, 3600000, &o->max_lag_ms) ? CLI_OK : CLI_USAGE;
	case LO_TOKENS:
		a->tokens_path = arg;
		return CLI_OK;
	case LO_CKEY:
		o->curve_key = arg;
		return CLI_OK;
	case LO_CALLOW:
		o->curve_allow = arg;
		return CLI_OK;
	case LO_CGEN:
		/* As every output's (cli_output_file_once): '--curve-keygen
		 * --quiet' wrote the key pair to '--quiet' and '--quiet.pub'.
		 * Refused as it is read, not the word left over after it. */
		if (cli_value_not_option("--curve-keygen", arg, "file", "a file to write; the key pair goes to FILE and "
					 "FILE.pub", err) < 0)
			return cli_usage_error("serve", "%s", err->msg);
		return cli_output_once("serve", "--curve-keygen", &a->keygen, arg);
	case LO_JOBS:
		a->jobs_arg = arg;
		return CLI_OK;
	case LO_TRACE:
		o->trace_path = arg;
		return CLI_OK;
	case LO_RECORD:
		return cli_output_file_once("serve", "--record", &o->record_path, arg);
	case LO_MSGS:
		return cli_output_file_once("serve", "--messages", &o->messages_path, arg);
	case LO_JSON:
		return cli_output_file_once("serve", "--json", &o->json_path, arg);
	case LO_MAXPAY:
		return cli_parse_u64("serve", "--max-payload", arg, 0, 1u << 30, &o->max_payload) < 0 ? CLI_USAGE : CLI_OK;
	case LO_HB:
		return serve_u32("--heartbeat-ms", arg, 1, 3600000, &o->heartbeat_ms) ? CLI_OK : CLI_USAGE;
	case LO_TO:
		return serve_u32("--timeout-ms", arg, 1, 3600000, &o->timeout_ms) ? CLI_OK : CLI_USAGE;
	case LO_CTO:
		return serve_u32("--connect-timeout-ms", arg, 1, 3600000, &o->connect_ms) ? CLI_OK : CLI_USAGE;
	case 'q':
		o->log = NULL;
		return CLI_OK;
	case 'h':
		cli_serve_usage(stdout);
		return -1;
	default:
		return cli_getopt_error("serve", argv, serve_longopts, ch);
	}
}

/* The command line into a, then its -s keys into the session. CLI_OK to
 * go on; -1 after --help; else the status, the reason said. */
static int serve_parse(struct serve_args *a, nl_sim *sim, int argc, char **argv, struct nl_err *err)
{
	int ch, status = CLI_OK;
	optind = 1;
	opterr = 0;
	bool help_scanned = false;
	while (status == CLI_OK && (ch = cli_getopt_long(argc, argv, ":c:s:n:l:qh", serve_longopts, &help_scanned)) != -1)
		if ((status = cli_value_once("serve", serve_longopts, &a->seen, ch)) == CLI_OK) {
			status = serve_option(a, sim, ch, argv, err);
			for (const struct option *o = serve_longopts; o->name && ch != LO_CGEN && !a->other; o++)
				if (o->val == ch)
					a->other = o->name;
		}
	if (status != CLI_OK)
		return status;
	for (size_t i = 0; i < a->n_sets; i++)
		if (cli_session_set(sim, a->sets[i], err) < 0)
			return cli_report(err);
	if (!a->keygen)
		cli_warn_unread_replay("serve", session_config(sim), a->sets, a->n_sets);
	if (optind < argc)
		return cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
	return CLI_OK;
}

/* --curve-keygen FILE: the key pair written, nothing served. */
static int serve_keygen(const char *keygen, struct nl_err *err)
{
	/* A value that is an option was refused as it was read
	 * (serve_option). */
	if (live_curve_keygen(keygen, err) < 0)
		return cli_report(err);
	return CLI_OK;
}

/* Options that need, or exclude, one another. */
static int serve_check_options(struct serve_args *a, struct nl_err *err)
{
	const struct live_opts *o = &a->o;
	if (!a->have_ranks)
		return cli_usage_error("serve", "--ranks N is required (see 'netloom serve --help')");
	if (o->max_lag_ms && o->pace <= 0)
		return cli_usage_error("serve", "--max-lag-ms %" PRIu32 " needs --pace (lock-step mode has no lag)",
				       o->max_lag_ms);
	/* The command line's, said as serve's other option pairs are. */
	if (live_curve_check(o, err) < 0)
		return cli_usage_error("serve", "%s", err->msg);
	if (o->heartbeat_ms >= o->timeout_ms)
		return cli_usage_error("serve", "--heartbeat-ms %u must be below --timeout-ms %u", o->heartbeat_ms,
				       o->timeout_ms);
	return CLI_OK;
}

/* --jobs and --tokens read into a->o, once --ranks is known. */
static int serve_read_lists(struct serve_args *a, struct nl_err *err)
{
	if (a->jobs_arg) {
		if (cli_serve_jobs(a->jobs_arg, a->o.n_ranks, &a->jobs, &a->o.n_jobs, err) < 0) {
			/* A bad list is the command line's, said as serve's other
			 * options are ("netloom serve: --jobs: ..."). */
			nl_err_one_line(err, err->code);
			return err->code == NL_ECONFIG ? cli_usage_error("serve", "%s", err->msg) : cli_report(err);
		}
		a->o.job_sizes = a->jobs;
	}
	if (a->tokens_path) {
		if (cli_serve_tokens(a->tokens_path, a->o.n_ranks, &a->tokens, err) < 0)
			return cli_report(err);
		a->o.tokens = a->tokens;
	}
	return CLI_OK;
}

/* Outputs that cannot be written fail before the session, not after the
 * clients ran; so do two naming one file (one would silently replace the
 * other) and one naming a file it reads (a -c file, --trace, --tokens, a
 * CURVE key file, a file a configuration key names), which it would
 * replace. */
static int serve_check_outputs(struct serve_args *a, nl_sim *sim, struct nl_err *err)
{
	const struct live_opts *o = &a->o;
	const char *outs[3] = {o->json_path, o->messages_path, o->record_path};
	const char *names[3] = {"--json", "--messages", "--record"};
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < i; j++)
			if (outs[i] && outs[j] && out_same_file(outs[i], outs[j]))
				return cli_usage_error("serve", "%s '%s': the same file as %s; expected another file",
						       names[i], outs[i], names[j]);
	/* An ipc:// endpoint is a file too: the socket that the bind creates
	 * (or replaces) and removes at exit. An output there was lost after
	 * the session ('--record s.nlt -l ipc://s.nlt': not a regular file).
	 * Not standard output, and not an abstract socket (@NAME), which has
	 * no file. */
	const char *sock =
		o->listen && !strncmp(o->listen, "ipc://", 6) && o->listen[6] && o->listen[6] != '@' ? o->listen + 6 : NULL;
	for (int i = 0; sock && i < 3; i++)
		if (outs[i] && strcmp(outs[i], "-") && out_same_file(outs[i], strcmp(sock, "-") ? sock : "./-"))
			return cli_usage_error("serve",
					       "%s '%s': the same file as --listen '%s', the socket it creates; "
					       "expected another file",
					       names[i], outs[i], o->listen);
	a->files[a->n_files++] = (struct cli_file){"--trace", o->trace_path};
	a->files[a->n_files++] = (struct cli_file){"--tokens", a->tokens_path};
	a->files[a->n_files++] = (struct cli_file){"--curve-key", o->curve_key};
	a->files[a->n_files++] = (struct cli_file){"--curve-allow", o->curve_allow};
	const struct cli_file out_files[3] = {{"--json", o->json_path}, {"--messages", o->messages_path},
					      {"--record", o->record_path}};
	if (cli_check_files(a->files, a->n_files, out_files, 3, err) < 0 ||
	    cli_check_config_files(session_config(sim), out_files, 3, err) < 0 ||
	    cli_serve_check_trace_keys(session_config(sim), o->trace_path, err) < 0 ||
	    cli_check_placement_map(session_config(sim), err) < 0)
		return cli_usage_error("serve", "%s", err->msg);
	/* Placement keys act on --trace's ranks only (refused above without
	 * it). */
	if (o->trace_path)
		cli_warn_unread_placement("serve", session_config(sim), a->sets, a->n_sets);
	/* An empty --record is live_record_check's to refuse: the generic
	 * line offers '-', which no archive can be. */
	for (int i = 0; i < 3; i++)
		if (outs[i] && (outs[i] != o->record_path || *outs[i]) && cli_check_output(names[i], outs[i], err) < 0)
			return cli_report(err);
	return CLI_OK;
}

/* The session served; its status (docs/live.md, "Start a session"). */
static int serve_run(struct serve_args *a, nl_sim *sim, struct nl_err *err)
{
	bool is_unwritten = false;
	a->o.is_unwritten = &is_unwritten;
	int rc = live_serve(&a->o, sim, err), status = CLI_OK;
	if (rc == NL_EDEADLOCK)
		status = CLI_FAIL;
	else if (rc < 0 && is_unwritten) /* after the clients ran: the work failing (docs/results.md) */
		status = cli_report_unwritten(NULL, NULL, err); /* live's line names the option */
	else if (rc < 0) {
		/* A -c file's spec ('topology = torus;') is refused here, as the
		 * network is built. */
		for (size_t i = 0; i < a->n_files; i++)
			if (!strcmp(a->files[i].opt, "-c"))
				cli_config_spec_hint(a->files[i].path, err);
		status = cli_report(err);
	}
	if (rc == NL_ESTATE) /* stopped by SIGINT/SIGTERM, or every rank evicted: a failed run, not bad input */
		status = CLI_FAIL;
	return status;
}

int cli_serve_main(int argc, char **argv)
{
	struct nl_err err = {0};
	nl_sim *sim = NULL;
	struct serve_args a = {.seen = {.repeatable = "cs"}}; /* -c and -s are taken several times */
	int status;
	live_opts_init(&a.o);
	a.o.report = stdout;
	a.sets = calloc((size_t)argc + 1, sizeof *a.sets);
	a.files = calloc((size_t)argc + 4, sizeof *a.files);
	if (nl_sim_new(&sim, &err) < 0)
		status = cli_report(&err);
	else if (!a.sets || !a.files)
		status = cli_report(&(struct nl_err){.code = NL_ENOMEM, .msg = "out of memory"});
	else if ((status = serve_parse(&a, sim, argc, argv, &err)) != CLI_OK)
		status = status < 0 ? CLI_OK : status; /* -1: --help */
	else if (a.keygen && a.other)
		/* It served nothing and said nothing of the options given with
		 * it ('--ranks 4 --curve-keygen k' made the keys and exited). */
		status = cli_usage_error("serve", "--curve-keygen FILE writes a key pair and exits, serving nothing; "
						  "expected it alone, got --%s too (start the server in a second command)",
					 a.other);
	else if (a.keygen)
		status = serve_keygen(a.keygen, &err);
	else if ((status = serve_check_options(&a, &err)) == CLI_OK && (status = serve_read_lists(&a, &err)) == CLI_OK &&
		 (status = serve_check_outputs(&a, sim, &err)) == CLI_OK)
		status = serve_run(&a, sim, &err);
	free(a.tokens);
	free(a.jobs);
	free(a.sets);
	free(a.files);
	nl_sim_free(sim);
	return status;
}
