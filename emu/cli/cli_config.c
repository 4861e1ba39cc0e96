/* netloom config: show the resolved configuration, list the keys, and
 * convert BookSim2 configuration files. */
#include <ctype.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "netloom/netloom.h"
#include "session/session.h"

static void config_usage(FILE *f)
{
	fprintf(f,
		"usage: netloom config [-c FILE] [-s key=value]... [--dump | --json | --check]\n"
		"       netloom config --keys\n"
		"       netloom config --from-booksim BOOKSIM_CONFIG\n\n"
		"  --dump               print the resolved configuration as INI (the default)\n"
		"  --json               print the resolved configuration as JSON\n"
		"                       (both first refuse a topology, routing_function or traffic spec\n"
		"                       that run refuses, parsed, not built)\n"
		"  --check              build the network, routing, traffic and flow control as run does\n"
		"                       and run one cycle: refuse what run refuses only once it builds\n"
		"                       (too few VCs for the routing function, a traffic pattern the\n"
		"                       endpoint count does not suit, ...), else print one line saying\n"
		"                       what runs (time and memory of a run's set-up)\n"
		"                       (--dump, --json and --check warn on stderr, as run does, of a\n"
		"                       setting run and sweep would not read: dor:dateline=0 on a mesh,\n"
		"                       -s alloc_iters without islip, ...)\n"
		"  --keys               list every key with its default, range and meaning\n"
		"  --from-booksim FILE  write the netloom INI equivalent of a BookSim2 config to stdout;\n"
		"                       what cannot be mapped is named on stderr (exit status 3 if anything)\n"
		"  -c, --config FILE    INI file to start from\n"
		"  -s, --set KEY=VAL    override one key (repeatable)\n"
		"  -h, --help           this text\n\n"
		"Exit status: 0 done; 1 standard output could not be written;\n"
		"2 a bad command line or configuration, or a BookSim2 config that cannot be read or\n"
		"  does not run once converted (nothing written);\n"
		"3 --from-booksim named what it could not map (the INI is written without it).\n"
		"The keys: docs/configuration.md.\n");
}

/* What the command does is chosen by one of --dump, --json, --check, --keys and
 * --from-booksim: a second is refused, not ignored (the last one won, or
 * --keys hid --dump). The same flag again changes nothing and is taken,
 * as every command takes its flags (run --csv, topo describe --json,
 * serve -q); --from-booksim, with a value, is refused twice as every
 * option with a value is. Returns 0, or CLI_USAGE after saying why. */
static int config_mode(const char **mode, const char *opt)
{
	if (*mode && !strcmp(*mode, opt) && strcmp(opt, "--from-booksim"))
		return 0;
	if (*mode && !strcmp(*mode, opt))
		return cli_usage_error("config", "option '%s' given twice", opt);
	if (*mode)
		return cli_usage_error("config", "'%s' with '%s': expected one of --dump, --json, --check, --keys, "
					       "--from-booksim",
				       opt, *mode);
	*mode = opt;
	return 0;
}

/* The configuration loaded in s runs: built as a run builds it (network,
 * routing, traffic, flow control: the run's own checks, not a copy), then
 * stopped after one cycle of warm-up. A value run refuses only once it
 * builds (too few VCs for the routing function, st_final_delay = 0,
 * input_speedup above num_vcs) fails here, not at the user's first run. */
static int config_runs(nl_sim *s, struct nl_err *err)
{
	static const char *const one_cycle[] = {"sample_period=1", "warmup_periods=2", "max_samples=1"};
	for (size_t i = 0; i < sizeof one_cycle / sizeof *one_cycle; i++)
		NL_CHECK(nl_sim_set(s, one_cycle[i], NULL, err));
	return nl_sim_run(s, NULL, err);
}

/* The converted INI runs (config_runs), or a message naming the BookSim
 * file. */
static int config_booksim_runs(const char *path, const char *ini, struct nl_err *err)
{
	nl_sim *s;
	NL_CHECK(nl_sim_new(&s, err));
	int rc = nl_sim_load_string(s, ini, path, err);
	if (rc == 0)
		rc = config_runs(s, err);
	nl_sim_free(s);
	if (rc < 0) {
		/* A refusal found at a key's line names the converted INI's
		 * line, which the user never sees: the key names it. */
		const char *why = err->msg;
		size_t n = strlen(path);
		if (!strncmp(why, path, n) && why[n] == ':' && isdigit((unsigned char)why[n + 1])) {
			const char *rest = why + n + 1 + strspn(why + n + 1, "0123456789");
			if (!strncmp(rest, ": ", 2))
				why = rest + 2;
		}
		char copy[sizeof err->msg];
		snprintf(copy, sizeof copy, "%s", why);
		return nl_errf(err, NL_ECONFIG, "%s: the converted configuration does not run: %s", path, copy);
	}
	return 0;
}

/* The warnings run and sweep print of what they would leave unread in
 * cfg ('-s alloc_iters=3' under separable allocators, 'dor:dateline=0'
 * on a mesh), printed by config too, so that a checked configuration
 * does not read as one whose every setting counts; on stderr: stdout
 * keeps the configuration alone. */
static void config_warn_unread(const struct config *cfg, const struct cli_cfg_opts *o)
{
	cli_warn_unread_synthetic("config", "run or sweep", cfg, o->sets, (size_t)o->n_sets);
}

/* --check: -c FILE and -s key=value (the file first) built and run for
 * one cycle (config_runs); on success one line on stdout saying what
 * runs. The exit status. */
static int config_check(const struct cli_cfg_opts *o, struct nl_err *err)
{
	nl_sim *s;
	if (nl_sim_new(&s, err) < 0)
		return cli_report(err);
	int rc = cli_sim_load(s, o, "config", err);
	/* Before config_runs sets its one-cycle keys (warmup_periods among
	 * them, which decides whether warmup_thres is read). */
	if (rc == 0)
		config_warn_unread(session_config(s), o);
	/* The description after the run: config_runs' keys would move the
	 * strings nl_sim_info points into. */
	struct nl_sim_info info = {.size = sizeof info};
	if (rc == 0 && (rc = config_runs(s, err)) == 0)
		rc = nl_sim_info(s, &info, err);
	if (rc < 0) {
		cli_config_spec_hint(o->config_path, err);
		nl_sim_free(s);
		return cli_report(err);
	}
	char active[320];
	cli_traffic_active_note(active, sizeof active, &info);
	printf("runs: %s, routing %s, traffic %s, %u routers, %u endpoints%s\n", info.topology, info.routing,
	       info.traffic, info.n_routers, info.n_endpoints, active);
	nl_sim_free(s);
	return CLI_OK;
}

/* Whether the file given to --from-booksim loads as a netloom INI with a
 * key at least (the mistake the other way round: cli_config_hint). */
static bool config_is_netloom(const char *path)
{
	size_t n_tables;
	struct session_tables st;
	const struct config_table *const *tables = session_config_tables(&st, &n_tables);
	struct config c;
	struct nl_err quiet = {0};
	config_init(&c, tables, n_tables);
	bool is = config_load_file(&c, path, &quiet) == 0 && c.n_entries > 0;
	config_release(&c);
	return is;
}

/* The converter's lines on what it could not map, each said as the
 * command's ("netloom config: b.cfg:3: cannot map ..."). */
static void config_say_unmapped(const char *lines)
{
	for (const char *l = lines; l && *l;) {
		size_t n = strcspn(l, "\n");
		cli_say("%.*s", (int)n, l);
		l += n + (l[n] == '\n');
	}
}

/* --from-booksim: the INI on stdout once it is known to run; what could
 * not be mapped on stderr. The exit status: 0, 3 (something named), or
 * the error's. */
static int config_from_booksim(const char *path, struct nl_err *err)
{
	char *ini = NULL, *unmapped = NULL;
	size_t len = 0, unmapped_len = 0;
	FILE *mem = open_memstream(&ini, &len);
	FILE *warn = mem ? open_memstream(&unmapped, &unmapped_len) : NULL;
	if (!warn) {
		if (mem)
			fclose(mem);
		free(ini);
		nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
		return cli_report(err);
	}
	int n = cli_booksim_convert(path, mem, warn, err);
	if (fclose(warn) != 0 && n >= 0)
		n = nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	config_say_unmapped(unmapped);
	free(unmapped);
	if (n < 0 && (err->code == NL_EFORMAT || err->code == NL_ECONFIG) && config_is_netloom(path))
		nl_err_suffix(err, " (this is a netloom configuration: read it with 'netloom run -c FILE' or 'netloom config -c "
				   "FILE')");
	if (fclose(mem) != 0 && n >= 0)
		n = nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	if (n >= 0 && config_booksim_runs(path, ini, err) < 0)
		n = -1;
	if (n >= 0)
		fwrite(ini, 1, len, stdout);
	free(ini);
	return n < 0 ? cli_report(err) : n > 0 ? 3 : CLI_OK;
}

/* The options of 'netloom config', as given. */
struct config_args {
	struct cli_cfg_opts cfg; /* -c FILE, -s key=value */
	const char *mode;        /* the option that chose what to print; NULL: --dump */
	const char *booksim;     /* --from-booksim FILE */
	bool keys;               /* --keys */
	bool json;               /* --json */
	bool check;              /* --check */
	bool is_help;            /* --help: the usage was printed, nothing else to do */
};

/* The mode option of argv that reads no -s (--from-booksim, --keys), or
 * NULL: for a word that is not an option, whose usual hint ('expected -s
 * KEY=VALUE', '-c FILE') that mode then refuses. Option values are
 * skipped; abbreviations are already written out (cli_long_expand). */
static const char *config_mode_without_sets(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--from-booksim") || !strncmp(a, "--from-booksim=", 15))
			return "--from-booksim";
		if (!strcmp(a, "--keys"))
			return "--keys";
		i += !strcmp(a, "-c") || !strcmp(a, "-s") || !strcmp(a, "--config") || !strcmp(a, "--set");
	}
	return NULL;
}

/* A word that is not an option, where the mode takes no -c or -s
 * (config_mode_without_sets): BookSim's 'booksim FILE KEY=VALUE' typed as
 * 'config --from-booksim FILE KEY=VALUE' was told 'expected -s KEY=VALUE',
 * which --from-booksim then refuses. The status. */
static int config_unknown_arg(int argc, char **argv, const char *arg, const struct option *longopts)
{
	const char *mode = config_mode_without_sets(argc, argv);
	size_t name = strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	bool is_set = arg[0] != '-' && name > 0 && arg[name] == '=';
	if (mode && !strcmp(mode, "--from-booksim") && is_set)
		return cli_usage_error("config", "argument '%s' is not an option; --from-booksim converts its file alone: "
						 "expected the key set in the INI written (netloom run -c FILE.ini -s %s)",
				       arg, arg);
	struct stat st;
	if (mode && !strcmp(mode, "--from-booksim") && arg[0] != '-' && stat(arg, &st) == 0 && S_ISREG(st.st_mode))
		return cli_usage_error("config", "argument '%s' is not an option; --from-booksim converts one file: "
						 "expected one conversion per command",
				       arg);
	if (mode && !strcmp(mode, "--keys") && is_set)
		return cli_usage_error("config", "argument '%s' is not an option; --keys lists every key's own default: "
						 "expected no key set (the values a configuration resolves to: netloom "
						 "config -s %s)",
				       arg, arg);
	return cli_unknown_arg("config", arg, longopts, true);
}

/* The command line into *a (-c and -s by cli_cfg_opt, one mode option).
 * The status: CLI_OK, or a refusal said. */
static int config_parse_args(int argc, char **argv, struct config_args *a)
{
	/* Their names, for abbreviations (cli_long_expand). */
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
		{"dump", no_argument, NULL, 'd'},         {"json", no_argument, NULL, 'J'},
		{"keys", no_argument, NULL, 'k'},         {"from-booksim", required_argument, NULL, 'b'},
		{"check", no_argument, NULL, 'C'},        {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int rc;
	/* --help anywhere wins over a refusal of another word, as in the
	 * commands read by getopt_long. */
	if (cli_help_asked(argc, argv, "c:s:h", longopts)) {
		config_usage(stdout);
		a->is_help = true;
		return CLI_OK;
	}
	if (cli_long_expand(&a->cfg, "config", longopts, "c:s:h", argc, argv))
		return CLI_USAGE;
	for (int i = 1; i < argc; i++) {
		int c = cli_cfg_opt(&a->cfg, "config", argc, argv, &i);
		if (c < 0)
			return -c;
		if (c > 0)
			continue;
		/* --from-booksim=FILE, the form getopt's long options take (and
		 * --config=/--set= here); it was an unknown option. */
		static const char *const flags[] = {"--dump", "--json", "--keys", "--check", "--help", NULL};
		static const char *const valued[] = {"--from-booksim", NULL};
		char name[16];
		const char *inl = NULL;
		int split = cli_split_long_value("config", argv[i], flags, valued, name, sizeof name, &inl);
		if (split == CLI_USAGE)
			return CLI_USAGE;
		if (split) {
			if ((rc = config_mode(&a->mode, "--from-booksim"))) /* valued's one; mode outlives name */
				return rc;
			a->booksim = inl;
			continue;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			config_usage(stdout);
			a->is_help = true;
			return CLI_OK;
		} else if (!strcmp(argv[i], "--dump") || !strcmp(argv[i], "--json") || !strcmp(argv[i], "--keys") ||
			   !strcmp(argv[i], "--check") || (!strcmp(argv[i], "--from-booksim") && i + 1 < argc)) {
			if ((rc = config_mode(&a->mode, argv[i])))
				return rc;
			a->json = !strcmp(argv[i], "--json");
			a->keys = !strcmp(argv[i], "--keys");
			a->check = !strcmp(argv[i], "--check");
			if (!strcmp(argv[i], "--from-booksim"))
				a->booksim = argv[++i];
		} else if (!strcmp(argv[i], "--from-booksim")) {
			return cli_usage_error("config", "option '--from-booksim' needs a value");
		} else {
			return config_unknown_arg(argc, argv, argv[i], longopts);
		}
	}
	return CLI_OK;
}

/* -c and -s where the mode reads no configuration, refused rather than
 * read and ignored. The status: CLI_OK, or the refusal said. */
static int config_refuse_unapplied(const struct config_args *a)
{
	const struct cli_cfg_opts *o = &a->cfg;
	/* The conversion reads the BookSim file alone: an override would
	 * not be in the INI it writes. */
	if (a->booksim && (o->config_path || o->n_sets))
		return cli_usage_error("config", "--from-booksim converts its file alone: '%s' does not apply (apply it to "
						 "the INI written: netloom config -c FILE.ini -s ...)",
				       o->config_path ? "-c" : "-s");
	/* --keys prints each key's own default, range and meaning: a file
	 * or an override was read, then ignored, silently. */
	if (a->keys && (o->config_path || o->n_sets))
		return cli_usage_error("config", "--keys lists every key's own default: '%s' does not apply (the values a "
						 "configuration resolves to: netloom config -c FILE -s ...)",
				       o->config_path ? "-c" : "-s");
	return CLI_OK;
}

/* --dump (the default), --json, --keys: the configuration resolved from -c
 * and -s, or the keys, on stdout. The exit status. */
static int config_print(struct config_args *a, struct nl_err *err)
{
	struct cli_cfg_opts *o = &a->cfg;
	struct config cfg;
	int rc = CLI_OK;
	/* --dump and --json check the specs as a run would refuse them
	 * (parsed, not built): 'config -c FILE' is how a file is checked. */
	o->empty_warn_cmd = "config";
	if (cli_cfg_load(&cfg, o, err) < 0) {
		rc = cli_report(err);
		config_release(&cfg);
		return rc;
	}
	/* The routing a run would use: the key's own default, dor, does not
	 * run on most families, so a dump of a hyperx configuration did not
	 * load back to one that runs. */
	if (!a->keys && (session_config_pick_routing(&cfg, err) < 0 || session_config_check(&cfg, err) < 0)) {
		cli_config_spec_hint(o->config_path, err);
		rc = cli_report(err);
		config_release(&cfg);
		return rc;
	}
	if (!a->keys)
		config_warn_unread(&cfg, o);
	if (a->keys) {
		config_print_keys(&cfg, stdout);
	} else if (a->json) {
		json_t *j = config_to_json(&cfg);
		char *s = j ? out_json_string(j) : NULL;
		if (s)
			printf("%s\n", s);
		free(s);
		json_decref(j);
	} else if (config_dump_ini(&cfg, stdout, err) < 0) {
		rc = cli_report(err);
	}
	config_release(&cfg);
	return rc;
}

int cli_config_main(int argc, char **argv)
{
	struct config_args a = {0};
	struct nl_err err = {0};
	int rc = config_parse_args(argc, argv, &a);
	if (rc != CLI_OK || a.is_help)
		goto out;
	if ((rc = config_refuse_unapplied(&a)) != CLI_OK)
		goto out;
	if (a.booksim)
		rc = config_from_booksim(a.booksim, &err);
	else if (a.check)
		rc = config_check(&a.cfg, &err);
	else
		rc = config_print(&a, &err);
out:
	cli_cfg_opts_release(&a.cfg);
	return rc;
}
