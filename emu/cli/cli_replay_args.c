/* netloom replay's command line: its usage, its options parsed into
 * struct cli_replay_opts with the configuration loaded as they come, and
 * the checks made before any work (options that cannot go together,
 * outputs that would replace an input or each other, outputs that cannot
 * be written). The replays and where results go are cli_replay.c's.
 */
#include "cli/cli_replay.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "net/net.h"
#include "netloom/netloom.h"
#include "session/session.h"

static void cli_replay_usage(FILE *f)
{
	fprintf(f,
		"usage: netloom replay TRACE [-c SYSTEM.ini]... [-s key=value]... [--topology SPEC]...\n"
		"                      [-j N] [--json FILE] [--csv] [--otf2 DIR] [--svg FILE]\n"
		"\n"
		"Replay an MPI trace (netloom .nlt, or DUMPI, SimGrid or OTF2, converted first) on a\n"
		"network model and predict its runtime. With several --topology options the trace\n"
		"is replayed on each network and one table compares them (predicted runtime,\n"
		"communication share, busiest link), then the first network's full report follows.\n"
		"\n"
		"  -c, --config FILE   read settings from an INI file (repeatable; later wins)\n"
		"  -s, --set KEY=VAL   set one key (repeatable; after the files)\n"
		"  -t, --topology SPEC replay on this network (repeatable, up to 16; 'netloom topo list'\n"
		"                      shows the families); with routing_function unset, each gets\n"
		"                      the first routing function that runs on it (dor on tori and\n"
		"                      meshes, min elsewhere). Ranks sit on endpoints 0..n-1 unless\n"
		"                      key placement names a policy.\n"
		"  -j, --jobs N        networks replayed at once (threads, 1..64, default 1; not taken\n"
		"                      under mpirun, which spreads each network over the ranks); the\n"
		"                      output and exit status do not depend on N; each network keeps\n"
		"                      its own key threads (docs/replay.md)\n"
		"      --json FILE     write results as JSON ('-' = stdout, instead of the report)\n"
		"      --csv           print the per-rank breakdown (several networks: the comparison)\n"
		"                      as CSV instead of the report\n"
		"      --otf2 DIR      also write the predicted run (the first network's) as an OTF2\n"
		"                      archive in DIR (new)\n"
		"      --svg FILE      also draw the predicted timeline (the first network's; ranks x\n"
		"                      time; at most 64 ranks; '-' = stdout, instead of the report)\n"
		"  -h, --help          this text and the replay keys\n"
		"\n"
		"Under 'mpirun -np N' (or srun) a replay on the flit backend is spread over the N\n"
		"ranks, with the same results; rank 0 prints and writes (docs/scaling.md).\n"
		"\n"
		"Exit status: 0 done;\n"
		"1 the replay failed: a deadlock, of the ranks (they wait forever) or of the flit\n"
		"  network (reported on stderr, --json written), out of memory, or --json could not be\n"
		"  written after it (a full disk; the report on stdout);\n"
		"2 a bad command line, configuration or trace, or an output that cannot be written\n"
		"  (checked first);\n"
		"3 the report and --json (if asked for) were written, but the --svg or --otf2\n"
		"  timeline could not be (a full disk; one line on stderr says which).\n"
		"\n"
		"Network backends:\n");
	size_t n;
	const struct net_backend_ops *const *all = net_backend_list(&n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-10s %s\n", all[i]->name, all[i]->help);
	fprintf(f, "\nKeys (see docs/replay.md; those of synthetic runs, [traffic] and the experiment's\n"
		   "phases, are not read by a replay; each backend reads only its own table):\n");
	size_t nt;
	struct session_tables st;
	const struct config_table *const *tables = session_config_tables(&st, &nt);
	struct config c;
	config_init(&c, tables, nt);
	static const char *const synthetic[] = {"traffic", NULL};
	const struct config_unread u = {.sections = synthetic, .keys = net_sim_experiment_keys};
	config_print_keys_read(&c, f, &u);
	config_release(&c);
}

void cli_replay_say_usage(void *ctx)
{
	(void)ctx;
	cli_replay_usage(stdout);
}
/* A session with the command line's configuration: files, then -s. */
int cli_replay_session(const struct cli_replay_opts *o, nl_sim **out, struct nl_err *err)
{
	nl_sim *s;
	NL_CHECK(nl_sim_new(&s, err));
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < o->n_files; i++) {
		rc = nl_sim_load_file(s, o->files[i], err);
		cli_config_hint(o->files[i], rc, err);
	}
	for (size_t i = 0; rc == 0 && i < o->n_sets; i++)
		rc = cli_session_set(s, o->sets[i], err);
	if (rc < 0) {
		nl_sim_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* An output option's value, once: a second one is refused, as run's
 * (cli_output_once), where the last one won silently. */
static int replay_output_once(const char *opt, const char **slot, const char *value, struct nl_err *err)
{
	if (*slot)
		return nl_errf(err, NL_EINVAL, "option '%s' given twice", opt);
	/* A value that is an option is refused as it is read: in
	 * 'replay T --json --topology X' the value was left out, and the X
	 * left over was reported ("unexpected argument 'X' after TRACE"). */
	if (!strcmp(opt, "--otf2"))
		NL_CHECK(cli_check_otf2_dir(value, err));
	else
		NL_CHECK(cli_value_not_option(opt, value, "file", "a file to write", err));
	*slot = value;
	return 0;
}

/* -j N: compare's range and words (cli_parse_u64: "--jobs: expected an
 * integer in 1..64, got '0'"), and given once, as every option with a
 * value. No 0 for "one per processor": compare has none either. */
static int replay_jobs(struct cli_replay_opts *o, const char *value, struct nl_err *err)
{
	char *end;
	if (o->has_jobs)
		return nl_errf(err, NL_EINVAL, "option '--jobs' given twice");
	errno = 0;
	unsigned long long v = cli_strtou(value, &end);
	if (end == value || errno || *end || v < 1 || v > 64)
		return nl_errf(err, NL_EINVAL, "--jobs: expected an integer in 1..64, got '%s'", value);
	o->jobs = v;
	o->has_jobs = true;
	return 0;
}

/* The options into *o, the configuration loaded into a first session
 * *sim as they come, so a bad file is reported first; then the -s keys
 * (files first, then -s, whatever their order on the line) and TRACE.
 * --help stops there, *help set. */
static int cli_replay_parse(int argc, char **argv, nl_sim **sim, struct cli_replay_opts *o, struct nl_err *err,
			    bool *help)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
		{"json", required_argument, NULL, 'J'},   {"csv", no_argument, NULL, 'C'},
		{"topology", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
		{"otf2", required_argument, NULL, 'O'},     {"svg", required_argument, NULL, 'V'},
		{"jobs", required_argument, NULL, 'j'},     {NULL, 0, NULL, 0},
	};
	o->sets = calloc((size_t)argc, sizeof *o->sets);
	o->files = calloc((size_t)argc, sizeof *o->files);
	o->files_empty = calloc((size_t)argc, sizeof *o->files_empty);
	int ch, rc = 0;
	size_t n_topos_given = 0;
	if (!o->sets || !o->files || !o->files_empty)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	NL_CHECK(nl_sim_new(sim, err));
	optind = 1;
	opterr = 0;
	bool help_scanned = false;
	while (rc == 0 && (ch = cli_getopt_long(argc, argv, ":c:s:t:j:h", longopts, &help_scanned)) != -1) {
		switch (ch) {
		case 'c':
			o->files[o->n_files++] = optarg;
			rc = nl_sim_load_file(*sim, optarg, err);
			cli_config_hint(optarg, rc, err);
			/* Said by rank 0 once the ranks are known. */
			if (rc == 0)
				o->files_empty[o->n_files - 1] = !config_keys_from(session_config(*sim), optarg);
			break;
		case 's':
			o->sets[o->n_sets++] = optarg;
			break;
		case 't':
			/* All counted, the first ones kept: the refusal below
			 * says how many were given. */
			if (n_topos_given++ < CLI_REPLAY_MAX_TOPOS)
				o->topos[o->n_topos++] = optarg;
			break;
		case 'J':
			rc = replay_output_once("--json", &o->json, optarg, err);
			break;
		case 'C':
			o->csv = true;
			break;
		case 'O':
			rc = replay_output_once("--otf2", &o->otf2, optarg, err);
			break;
		case 'V':
			rc = replay_output_once("--svg", &o->svg, optarg, err);
			break;
		case 'j':
			rc = replay_jobs(o, optarg, err);
			break;
		case 'h':
			/* The usage, whatever else the line holds (a missing -c
			 * file, '--bogus'): cli_getopt_long returns it first. */
			*help = true;
			return 0;
		default: {
			char msg[512];
			cli_getopt_message(msg, sizeof msg, "replay", argv, longopts, ch);
			rc = nl_errf(err, NL_EINVAL, "%s", msg);
		}
		}
	}
	if (rc == 0 && n_topos_given > CLI_REPLAY_MAX_TOPOS)
		rc = nl_errf(err, NL_EINVAL, "--topology given %zu times; expected at most %d (networks in one run)",
			     n_topos_given, CLI_REPLAY_MAX_TOPOS);
	for (size_t i = 0; rc == 0 && i < o->n_sets; i++)
		rc = cli_session_set(*sim, o->sets[i], err);
	if (rc < 0 || *help)
		return rc;
	if (optind >= argc)
		return nl_errf(err, NL_EINVAL, "missing TRACE (see 'netloom replay --help')");
	if (optind + 1 < argc)
		return nl_errf(err, NL_EINVAL, "unexpected argument '%s' after TRACE", argv[optind + 1]);
	o->trace = argv[optind];
	return 0;
}

/* Options that cannot go together: --csv with a document on stdout, a
 * placement_map beside another placement, --topology with the key. */
static int cli_replay_check_opts(const struct cli_replay_opts *o, nl_sim *sim, struct nl_err *err)
{
	if (o->csv && o->json && !strcmp(o->json, "-"))
		return nl_errf(err, NL_EINVAL, "--csv and --json -: both on standard output; expected a file for --json");
	if (o->csv && o->svg && !strcmp(o->svg, "-"))
		return nl_errf(err, NL_EINVAL, "--csv and --svg -: both on standard output; expected a file for --svg");
	/* Replay's one job: a map beside another placement is never read. */
	NL_CHECK(cli_check_placement_map(session_config(sim), err));
	if (o->n_topos && config_get(session_config(sim), "topology"))
		return nl_errf(err, NL_EINVAL, "--topology and the key 'topology' both name the network; "
			       "give one of them");
	return 0;
}

/* An output that is an input (the trace, a -c file) would replace it,
 * and two outputs naming one file would replace each other. */
static int cli_replay_check_same_files(const struct cli_replay_opts *o, nl_sim *sim, struct nl_err *err)
{
	struct cli_file out[] = {{"--json", o->json}, {"--svg", o->svg}, {"--otf2", o->otf2}};
	struct cli_file *in = calloc(o->n_files + 1, sizeof *in);
	if (!in)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	in[0] = (struct cli_file){"TRACE", o->trace};
	for (size_t i = 0; i < o->n_files; i++)
		in[i + 1] = (struct cli_file){"-c", o->files[i]};
	int rc = cli_check_files(in, o->n_files + 1, out, sizeof out / sizeof out[0], err);
	free(in);
	/* So would one naming a file a foreign TRACE reads besides itself
	 * (a DUMPI rank file), which the conversion reads first. */
	if (rc == 0)
		rc = cli_check_trace_files("TRACE", o->trace, out, sizeof out / sizeof out[0], err);
	/* So would one naming a file the configuration's keys name (-s
	 * topology=graph:file=g.txt, placement_map, calibration) or a
	 * --topology SPEC reads. */
	if (rc == 0)
		rc = cli_check_config_files(session_config(sim), out, sizeof out / sizeof out[0], err);
	for (size_t i = 0; rc == 0 && i < o->n_topos; i++)
		rc = cli_check_spec_files(o->topos[i], out, sizeof out / sizeof out[0], err);
	if (rc < 0)
		return nl_err_prefix(err, "replay");
	return 0;
}

/* Outputs written at the end: a path that cannot be written fails now,
 * not after a replay of minutes. Under a launcher of several ranks only
 * rank 0 writes them (cli_replay_mpi_open): another node need not have
 * their folder, as for run and sweep. */
static int cli_replay_check_writable(const struct cli_replay_opts *o, struct nl_err *err)
{
	uint32_t rank, size;
	if (net_mpi_launched(&rank, &size) && size > 1 && rank != 0)
		return 0;
	if (o->json)
		NL_CHECK(cli_check_output("--json", o->json, err));
	if (o->svg)
		NL_CHECK(cli_check_output("--svg", o->svg, err));
	if (o->otf2) {
		NL_CHECK(cli_check_otf2_dir(o->otf2, err));
		/* DIR's folder must take the staged archive (DIR.tmp-XXXXXX),
		 * tried and removed as trace export tries it: a link to a
		 * missing directory was found only when the archive was moved
		 * into place, after the replay (status 3), and a missing
		 * folder was said without what was expected. A DIR that
		 * exists is refused when the timeline opens, still before
		 * the replay. */
		NL_CHECK(cli_check_otf2_writable(o->otf2, err));
	}
	return 0;
}

/* Parse the line into *o (cli_replay_parse, which loads the
 * configuration into a first session *sim), then check it before any
 * work: options that cannot go together, outputs that would replace an
 * input or each other, outputs that cannot be written. */
int cli_replay_args(int argc, char **argv, nl_sim **sim, struct cli_replay_opts *o, struct nl_err *err, bool *help)
{
	int rc = cli_replay_parse(argc, argv, sim, o, err, help);
	if (rc < 0 || *help)
		return rc;
	NL_CHECK(cli_replay_check_opts(o, *sim, err));
	NL_CHECK(cli_replay_check_same_files(o, *sim, err));
	return cli_replay_check_writable(o, err);
}
