/* The `netloom` command: one file per subcommand, dispatched from main.c.
 *
 * A subcommand is `int cli_<name>_main(int argc, char **argv)` where
 * argv[0] is the subcommand name; it returns the process exit status:
 * 0 success, 1 a failure of the work itself, 2 bad usage or bad input.
 * Only this folder prints errors and chooses exit codes.
 */
#ifndef NETLOOM_CLI_CLI_H
#define NETLOOM_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "session/session.h"

struct nl_err;

/* Exit statuses. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* The command being run, as its lines name it: "replay", or with the
 * subcommand for the commands that have them ("topo describe", "design
 * hyperx", "trace convert"). main.c's dispatch sets it once per process,
 * before the command runs, and topo, design and trace add the subcommand
 * they dispatch to; before that (an unknown command, NL_BUG) lines say
 * "netloom: ". Process-wide, against STYLE.md's rule, as the one thing
 * every line a command prints shares: each helper that says something
 * (cli_report, cli_stdout_finish, a library's warning printed here) would
 * otherwise need the name passed down to it. Copied (up to 63 bytes). */
void cli_set_command(const char *name);
/* Print "netloom <cmd>: <printf message>" on stderr, the command set
 * (cli_set_command; "netloom: " before one is), as one line (the caller
 * makes sure the message is one: nl_err_one_line). Warnings say
 * "warning: " first. */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_say each line of text (lines end at '\n'), made one line of clean
 * text as cli_usage_error's are (nl_fputs_one_line): a library's list of
 * problems quotes the user's values, control characters and all. */
void cli_say_lines(const char *text);

/* Say, once the command's work is done, each place that ran it on fewer
 * threads than it asked for (core/thread.h, nl_thread_short_take), one
 * warning a place, outermost first: "netloom run: warning: 1 of 3
 * threads started for a network's partitions (pthread_create: Resource
 * temporarily unavailable); running on 1" (docs/scaling.md, "When a
 * thread cannot start"). Under a launcher of `size` > 1 ranks each rank
 * says its own, "warning: MPI rank R of N: " first. Nothing when every
 * thread started. */
void cli_say_threads_short(uint32_t rank, uint32_t size);

/* Print "netloom <cmd>: <msg>" on stderr (one line; cli_say) and return
 * the exit status that goes with the error code (CLI_USAGE for input
 * errors; CLI_FAIL for an NL_EIO while stdout's error flag is set, a
 * result lost on stdout, after which the flag is cleared:
 * cli_stdout_finish). The command's own messages do not name it; one
 * from a library that starts with the command's name ("replay: out of
 * memory", the app library's; "design hyperx: --radix 4: ...", the
 * analyze library's) names it once: "netloom replay: out of memory". Not
 * a file's error (NL_EIO, NL_ENOTFOUND, NL_EFORMAT), whose message starts
 * with the file's path, which may be a file named as the command:
 * "netloom run: run: cannot open config file: ...". */
int cli_report(const struct nl_err *err);

/* The exit code cli_report would return for err, printing nothing. */
int cli_exit_code(const struct nl_err *err);

/* An empty value '' of opt (an option, or an argument's name: "OUT.nlt"),
 * in one wording for every command: "--json '': empty file name; expected
 * a file to write, or '-' for standard output" (kind "file", expected
 * CLI_EXPECT_OUTPUT), "--otf2 '': empty directory name; expected ...".
 * Returns NL_EINVAL with that line in err. */
#define CLI_EXPECT_OUTPUT "a file to write, or '-' for standard output"
/* What --otf2 DIR takes (replay, trace export). */
#define CLI_EXPECT_OTF2_DIR "a new directory for the OTF2 archive"
int cli_empty_name(const char *opt, const char *kind, const char *expected, struct nl_err *err);

/* Before the work: can `path`, the value of output option `opt`
 * ("--json"), be written? out_check_writable, its message prefixed with
 * the option ("--json: out/r.json: out: no such directory": a command
 * with several outputs says which one), and an empty name refused by
 * cli_empty_name; an argument's name ("OUT.nlt") is not prefixed,
 * the message already names its path. A path that starts with '-' (but
 * "-") is refused as an option taken for the value ("--json '--csv': an
 * option, not a file name ..."). A directory, a link to a missing file or a missing folder is
 * refused in one line before any work, reported with cli_report (status
 * 2: bad input, nothing written), not after minutes of it. Call it for
 * every output option of a command. */
int cli_check_output(const char *opt, const char *path, struct nl_err *err);

/* Standard output, a device or a FIFO is staged in TMPDIR before it is
 * written (core/output.h), which cli_check_output does not look at: a
 * temporary file is made there for `path` and removed at once, so a
 * TMPDIR that cannot take it fails before the work, not after it. 0, or
 * out_tmp_for's error, unprefixed. */
int cli_probe_staging(const char *path, struct nl_err *err);

/* An output's value that starts with '-' (but "-" itself): its option's
 * value was left out and the next option taken for it. 0, or NL_EINVAL
 * with "OPT 'VALUE': an option, not a KIND name (a value left out?);
 * expected EXPECTED (./VALUE for a KIND of that name)"; KIND is "file"
 * or "directory". Also, for the outputs with a short -o (OPT "--output",
 * "-o" or "OUT.nlt"), a value starting with '=', which '-o=FILE' gives.
 * cli_check_output calls it. */
int cli_value_not_option(const char *opt, const char *value, const char *kind, const char *expected,
			 struct nl_err *err);

/* The DIR of --otf2 (replay, trace export): not '' nor a value that is an
 * option (cli_value_not_option). 0, or NL_EINVAL with the line. */
int cli_check_otf2_dir(const char *dir, struct nl_err *err);

/* Whether the --otf2 DIR that does not exist yet can be made: its folder
 * takes the staged archive (DIR.tmp-XXXXXX, tried and removed, as
 * out_check_writable tries a file's) and DIR is not a symbolic link to a
 * missing directory. A DIR that exists is left to the writer, which
 * refuses it. 0, or NL_EIO with "--otf2: DIR: ...; expected ...". */
int cli_check_otf2_writable(const char *dir, struct nl_err *err);

/* A file a command reads or writes: the option or argument that names it
 * ("--json", "-c", "TRACE") and its path (NULL: not given). */
struct cli_file {
	const char *opt;
	const char *path;
};

/* Before the work: refuse an output that is one of the inputs, which it
 * would replace ('replay p.nlt --json p.nlt' left JSON in p.nlt), or
 * another output, which one would replace (two on standard output would
 * mix), as trace convert refuses an OUT that is its input
 * (docs/trace-format.md §9). Files compare with out_same_file; an input
 * "-" (standard input) matches nothing. Returns 0, or NL_EINVAL with one
 * line in err, without the command: "--json 'p.nlt': the same file as
 * TRACE 'p.nlt', an input; expected another file". */
int cli_check_files(const struct cli_file *in, size_t n_in, const struct cli_file *out, size_t n_out,
		    struct nl_err *err);

/* cli_check_files with the files a topology SPEC reads as the inputs: the
 * spec file of "@FILE" (named "SPEC" in the line), the value of every
 * file= parameter (graph:file=g.txt, anynet:file=a.anynet; named
 * "graph:file="), those of the spec an @FILE holds too ("graph:file= in
 * @spec.txt"). */
int cli_check_spec_files(const char *spec, const struct cli_file *out, size_t n_out, struct nl_err *err);

/* cli_check_files with the files a foreign trace reads besides TRACE
 * itself as the inputs (trace_input_files: a DUMPI .meta's rank files, a
 * SimGrid index's actions files, an OTF2 archive's definitions and event
 * files), TRACE named `opt` ("TRACE", "wl.ini:2 [job A] trace"): "--json
 * 't-0001.bin': the same file as TRACE t.meta's rank 1 file
 * 't-0001.bin', an input; expected another file". Only outputs that
 * exist are compared (a file the trace reads does); a trace that cannot
 * be read is the command's to report. */
int cli_check_trace_files(const char *opt, const char *trace, const struct cli_file *out, size_t n_out,
			  struct nl_err *err);

/* cli_check_files with the files a resolved configuration (-c, -s) names
 * as the inputs: the topology's spec files (as cli_check_spec_files) and
 * the keys placement_map and calibration, each named where it was set
 * ("-s placement_map", "sys.ini:3 calibration", "-s topology
 * graph:file="), as the work reads them (a -c file's relative names from
 * its folder, config_load_file); a name a -c file wrote relative is named
 * as written and where it was read (config_err_files). */
struct config;
struct config_unread;
int cli_check_config_files(const struct config *cfg, const struct cli_file *out, size_t n_out, struct nl_err *err);

/* Key placement_map set where the placement in force is not `map`: the
 * map would not be read (the job placed by that policy), so a typo in
 * `placement` or a forgotten one is refused, as a workload file's [job]
 * refuses it. For replay and serve only: compare lets a system's map sit
 * beside workloads placed otherwise. NL_ECONFIG naming the key (and its
 * file:line when a -c file set it), its value, the placement and what was
 * expected; 0 otherwise. */
int cli_check_placement_map(const struct config *cfg, struct nl_err *err);

/* The value of output option `opt` into *slot (NULL until given), once: a
 * second one is refused, as run's --json and a second -c are
 * (docs/configuration.md), where the last one won silently. 0, or
 * CLI_USAGE after printing "netloom <cmd>: option '--json' given twice". */
int cli_output_once(const char *cmd, const char *opt, const char **slot, const char *value);

/* cli_output_once for an option whose value is a file to write, which
 * also refuses a value that is an option (cli_value_not_option) as it is
 * read: in 'cost SPEC --json --preset besta' the value was left out and
 * --json took '--preset', and the 'besta' left over was reported instead
 * ("unexpected argument 'besta'"). 0, or CLI_USAGE after printing
 * "netloom <cmd>: --json '--preset': an option, not a file name ...". */
int cli_output_file_once(const char *cmd, const char *opt, const char **slot, const char *value);

/* cli_output_file_once for a --plot, which gnuplot draws as SVG: a value
 * whose extension names another image format (x.png, x.pdf, x.jpg, x.eps,
 * ...; any case) is refused, status 2 before any work, where an SVG was
 * written into x.png. 0, or CLI_USAGE after printing "netloom <cmd>:
 * --plot 'x.png': a .png name, but the plot is SVG; expected a .svg name
 * (or one with no image extension)". */
int cli_plot_file_once(const char *cmd, const char *opt, const char **slot, const char *value);

/* The codes of getopt_long's options met so far (cli_value_once); zero
 * it before the scan, setting repeatable for a command whose options may
 * be given several times: {.repeatable = "cs"} for -c and -s. */
struct cli_seen {
	int code[64];
	unsigned n;
	const char *repeatable; /* short option codes taken several times, or NULL */
};

/* getopt_long's option c, when longopts gives it a value (has_arg
 * required_argument), a second time: refused, as run's and sweep's
 * options and every output option are ('design hyperx --terminals 64 ...
 * --terminals 128' ran with 128, the first silently dropped), but for
 * those in seen->repeatable. 0, or CLI_USAGE after printing "netloom
 * <cmd>: option '--terminals' given twice". */
struct option;
int cli_value_once(const char *cmd, const struct option *longopts, struct cli_seen *seen, int c);

/* After the work: a result that could not be written (a full disk,
 * /dev/full as the file) although cli_check_output accepted its path.
 * Prints the line as cli_report does, after the output option `opt` whose
 * value is `path` ("netloom run: --json: r.json: write failed: No space left
 * on device", as serve's --json, --messages and --record), and returns
 * CLI_FAIL whatever the code: the work failing, not bad input (2 says
 * nothing was written, and stdout may hold the result already), as a
 * result lost on stdout (cli_stdout_finish). No option when opt is NULL
 * (path unused: a line that names it already, serve's; an output given
 * as an argument, trace's) or path is "-" (standard output, the default
 * of design's and topo's -o: "stdout: write failed: ...", as
 * cli_stdout_finish says it). */
int cli_report_unwritten(const char *opt, const char *path, const struct nl_err *err);

/* Under mpirun (or srun) with more than one rank: MPI initialised into *m
 * (NULL when not launched by MPI, or launched with one rank and built
 * without MPI), and the ranks' command lines compared: argv[0..argc) (the
 * command and its arguments as given) and the netloom build must be rank
 * 0's on every rank, since other options (an MPMD launch) would run other
 * collectives. This is the first collective of every command, the same
 * whatever the command, so call it before any other. Returns 0, or an
 * exit status, the same on every rank, after rank 0 said why in one line
 * (a netloom built without MPI under several ranks; a rank whose command
 * line differs, naming it and what differs: MPI is then closed and *m
 * NULL). Close with net_mpi_close; before it, every rank's exit status
 * goes through net_mpi_agree_exit, so a failure anywhere fails every
 * rank. */
struct net_mpi;
int cli_mpi_open(int argc, char **argv, struct net_mpi **m);
/* A command that stops before its work (--help, a usage error, said on
 * every rank) under a launcher of several ranks: it still joins the
 * comparison of command lines, so ranks given other options (an MPMD
 * launch) meet it there instead of waiting for it in MPI. Returns status,
 * or when the command lines differ the exit status of cli_mpi_open after
 * rank 0 said so; without a launcher of several ranks, status. */
int cli_mpi_stop(int argc, char **argv, int status);
/* cli_mpi_stop for a command that only prints (--help, the version, an
 * unknown command's refusal): say(ctx) prints it once per launch, by rank
 * 0 after the command lines agreed and before any rank may exit (they
 * wait for it), since mpirun ends a job whose first rank exits non-zero
 * and rank 0 could be killed before it said why; without a launcher of
 * several ranks, by the process. Not called when the lines differ. */
int cli_mpi_stop_say(int argc, char **argv, int status, void (*say)(void *ctx), void *ctx);

/* At the end of every command (main.c calls it after each; run, sweep,
 * replay and compare also before their ranks agree on the status): flush
 * stdout and check that every write reached it (a full disk, /dev/full; a
 * closed pipe ends the process by SIGPIPE first, as it does any filter,
 * unless SIGPIPE was ignored when it started). Returns rc when they did;
 * else prints "netloom <cmd>: stdout: write failed: <reason>" (cli_say),
 * clears stdout's error flag (so a second call
 * says nothing) and returns CLI_FAIL, the work failing, not bad input
 * (CLI_USAGE, bad input said before, kept): a result that was lost must
 * not exit 0, nor 3 (config --from-booksim's 'written, but not everything
 * mapped'). A failed write cli_report said ("stdout: write failed" from
 * out_write_atomic's '-') is not said again: cli_report clears the flag,
 * and cli_exit_code gives it 1 too. early_errno: errno of an earlier
 * failed fflush(stdout) (the reason when nothing is left to write now),
 * or 0. */
int cli_stdout_finish(int rc, int early_errno);

/* Print "netloom <cmd>: <printf message>" on stderr (under a launcher of
 * several ranks, on rank 0 only); returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* cli_usage_error for an argument arg that no option of cmd takes: a
 * 'KEY=VALUE' is told to use -s, an existing file -c (and
 * --from-booksim when from_booksim), anything else is an unknown option,
 * with the nearest of longopts (NULL: none) when one is a typo away. */
int cli_unknown_arg(const char *cmd, const char *arg, const struct option *longopts, bool from_booksim);

/* A '--name=value' argument, the form getopt's long options take, for
 * the commands that read their own options by hand (run, sweep, config):
 * name (of size cap) gets '--name' and *value 'value' when name is one of
 * valued (NULL-terminated), and 1 is returned. 0: arg is not of that form
 * (or its name does not fit), nothing split. CLI_USAGE after saying "option
 * '--x' takes no value (got '--x=1')" for a name in flags, or "unknown
 * option '--y=1'" for any other. */
int cli_split_long_value(const char *cmd, const char *arg, const char *const *flags, const char *const *valued,
			 char *name, size_t cap, const char **value);

/* Option values, strictly: an unsigned decimal integer in [lo, hi] (no
 * sign, no blank, nothing after the digits) or a number in [lo, hi] (no
 * blank before or after it). 0, or -1 after printing "netloom <cmd>:
 * <opt>: expected ..., got '<s>'". */
int cli_parse_u64(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/* The same, where the bounds come from another option: why (" for 14
 * routers") follows the range in the message. */
int cli_parse_u64_for(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi, const char *why,
		      uint64_t *out);

/* The largest --seed: the [layout] key layout_seed's bound, and within a
 * JSON integer (int64), so the seed a result records is the seed given. */
#define CLI_SEED_MAX 9200000000000000000ull
int cli_parse_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out);

/* strtoull (base 10) for an option's value or a part of it (a list's
 * element), without what it skips or takes before the number: a blank
 * and a sign. Such a value sets *end to s, as text with no number does,
 * so ' 4' is refused as '4 ' is (as -s values are, param.c). errno as
 * strtoull's (ERANGE); the caller checks *end. A number (not a whole
 * one) is read with param_strtod (core/param.h), alike. */
unsigned long long cli_strtou(const char *s, char **end);

/* The long option of longopts nearest the unknown long option arg
 * ("--jsn" or "--jsn=x": json, by config_name_near), or NULL. */
struct option;
const char *cli_option_near(const struct option *longopts, const char *arg);

/* getopt_long's complaint (c = ':' for a missing value, else '?' for an
 * unknown, ambiguous or valued flag option) as one line of ours in buf:
 * "option '--s' is ambiguous (--set, --svg)", "unknown option '-x' (see
 * 'netloom CMD --help')", ... cli_getopt_error prints it ("netloom CMD:
 * ...") and returns CLI_USAGE. Call right after getopt_long returned c,
 * with opterr = 0, an optstring starting with ':' and its longopts. */
void cli_getopt_message(char *buf, size_t n, const char *cmd, char **argv, const struct option *longopts, int c);
int cli_getopt_error(const char *cmd, char **argv, const struct option *longopts, int c);

/* --help (or -h) anywhere on a line that getopt_long reads with optstring
 * and longopts, whatever else the line holds (a bad value, a missing
 * file, an unknown option, an extra argument): the commands check it
 * before their parse, so the usage wins over any refusal, as in getopt
 * tools (git). A word that is an option's value ('-s -h') or follows '--'
 * is not a request. */
bool cli_help_asked(int argc, char **argv, const char *optstring, const struct option *longopts);
/* getopt_long for a command's loop over its options: its first call
 * (*help_scanned false, then set) returns 'h' when cli_help_asked, before
 * any option is acted on (a -c FILE read, a value refused); else, and on
 * the later calls, what getopt_long returns. */
int cli_getopt_long(int argc, char **argv, const char *optstring, const struct option *longopts, bool *help_scanned);

/* Options shared by the commands that take a configuration:
 * -c FILE (INI), -s key=value (repeatable, applied after the file). */
struct cli_cfg_opts {
	const char *config_path;
	const char **sets;
	int n_sets;
	struct session_tables tables; /* what the loaded config's tables point into */
	char **expanded;              /* argv words cli_long_expand wrote */
	int n_expanded;
	const char *empty_warn_cmd;   /* cli_cfg_load warns as this command of a -c setting no key; NULL: not */
};

/* The long options of a line read without getopt_long (run, sweep,
 * config) given abbreviated, as getopt_long takes them ("--rep",
 * "--ra=0.1:0.5:0.1"): each is rewritten in argv to its full name, owned
 * by o (cli_cfg_opts_release frees it). Values are skipped: the word after
 * a required_argument option of longopts, or after a short option that
 * optstring marks with ':'. Returns 0, or CLI_USAGE after printing
 * "netloom CMD: option '--s' is ambiguous (--set, --spread)". Unknown
 * options are left for the command's parser to name. */
int cli_long_expand(struct cli_cfg_opts *o, const char *cmd, const struct option *longopts, const char *optstring,
		    int argc, char **argv);

/* Recognise -c/--config and -s/--set at argv[*i] (advancing *i past the
 * value; -cFILE and --config=FILE carry it in the word), and a last '--'
 * (the end of the options, for commands that take no arguments). Returns
 * 1 when consumed, 0 when not ours, CLI_USAGE (negated) on a missing value
 * or a word after '--'. */
int cli_cfg_opt(struct cli_cfg_opts *o, const char *cmd, int argc, char **argv, int *i);

/* Warn on stderr when the -c file `path`, just loaded into cfg, set no
 * key: 'config --from-booksim x.cfg > mine.ini' that failed left mine.ini
 * empty, and 'sweep -c mine.ini' then ran the default 8x8 torus as if it
 * were the reader's network. cfg NULL: the caller knows it set none. */
void cli_warn_config_empty(const char *cmd, const struct config *cfg, const char *path);
/* " (32 active: bitcomp needs a power of two)" after the endpoint count
 * when the session's traffic pattern uses only some endpoints, else "":
 * the rates are per endpoint used, or all of them would be read as the
 * divisor (run's header, config --check). */
struct nl_sim_info;
void cli_traffic_active_note(char *buf, size_t n, const struct nl_sim_info *info);
/* ", 15.4 GiB" for a byte count of a KiB or more (binary units, three
 * significant digits), else "": to follow the exact count in a report. */
void cli_bytes_human(char *buf, size_t n, uint64_t bytes);

/* Build the configuration: file, then overrides, validated against every
 * module's table. */
int cli_cfg_load(struct config *cfg, struct cli_cfg_opts *o, struct nl_err *err);
void cli_cfg_opts_release(struct cli_cfg_opts *o);

/* Options shared by `netloom cost` and `netloom layout` (cli_cost.c). */
struct cli_layout_opts {
	struct cli_seen seen;  /* options given, each once (cli_value_once) */
	const char *preset;    /* cost preset name */
	const char *placement; /* "auto", "rule" or "anneal" */
	uint64_t iterations;   /* annealing moves per trial */
	uint32_t trials;       /* annealing trials */
	uint64_t seed;
	uint32_t threads;      /* threads running the trials, 0 = one per processor */
	const char *pack;      /* packaging rule name, NULL = the family's */
	uint32_t per_cabinet;  /* canonical rule, 0 = default */
	uint32_t radix;        /* router part radix, 0 = largest */
	bool help_scanned;     /* cli_getopt_long's first call made */
};

/* getopt_long codes of the shared options, and their table entries. */
enum { CLI_LO_PRESET = 1000, CLI_LO_LAYOUT, CLI_LO_ITER, CLI_LO_TRIALS, CLI_LO_SEED, CLI_LO_PACK, CLI_LO_PERCAB,
       CLI_LO_RADIX, CLI_LO_THREADS };
#define CLI_LAYOUT_LONGOPTS                                                                                   \
	{"preset", required_argument, NULL, CLI_LO_PRESET}, {"layout", required_argument, NULL, CLI_LO_LAYOUT}, \
		{"iterations", required_argument, NULL, CLI_LO_ITER},                                         \
		{"trials", required_argument, NULL, CLI_LO_TRIALS}, {"seed", required_argument, NULL, CLI_LO_SEED}, \
		{"threads", required_argument, NULL, CLI_LO_THREADS},                                         \
		{"pack", required_argument, NULL, CLI_LO_PACK},                                               \
		{"per-cabinet", required_argument, NULL, CLI_LO_PERCAB},                                      \
		{"radix", required_argument, NULL, CLI_LO_RADIX}

/* The defaults, and getopt reset for a fresh scan of argv. */
void cli_layout_opts_init(struct cli_layout_opts *o);

/* Handle shared option code c: 1 consumed, 0 not ours, negative exit
 * status (after printing the error) on a bad value. */
int cli_layout_opt(struct cli_layout_opts *o, const char *cmd, int c, const char *arg);

/* getopt_long over argv with short options ":h", the shared options stored
 * in o: the code of the next option that is not a shared one, or -1 at the
 * end (*status 0) or on a bad shared value (*status the exit status, after
 * printing the error). */
struct option;
int cli_layout_getopt(struct cli_layout_opts *o, const char *cmd, int argc, char **argv,
		      const struct option *longopts, int *status);

/* Build SPEC, pack and place it as the options say. An option refused
 * (an annealing option given where --layout auto keeps the rule's own
 * floor order, a --radix too small) is said starting with the option
 * ("--radix: value 4: ..."; cli_report names the command). On failure
 * nothing is left allocated. */
struct topo;
struct layout;
struct layout_model;
struct layout_summary;
int cli_layout_setup(const struct cli_layout_opts *o, const char *spec, struct topo **t,
		     struct layout *lo, const struct layout_model **m, struct nl_err *err);

/* The one positional SPEC after the options (argv[optind]): 0 when it is
 * there alone, else the usage exit status after printing the error, whose
 * hint names `example`. */
int cli_layout_spec_arg(const char *cmd, int argc, char **argv, const char *example);

/* Release what cli_layout_setup() built and turn rc (0 or negative, with
 * err set) into the command's exit status: cli_report's, or with
 * unwritten_opt (rc from writing the results after the work, to the
 * output of that option, whose value is path) cli_report_unwritten's. */
int cli_layout_finish(struct topo *t, struct layout *lo, int rc, const struct nl_err *err, const char *unwritten_opt,
		      const char *path);

/* cost --json's document: the head (session_json_head), then the
 * summary (caller owns). */
struct json_t;
struct json_t *cli_layout_json(const struct layout *lo, const struct layout_model *m,
			       const struct layout_summary *s);

/* Subcommands. */
int cli_version_main(int argc, char **argv);
int cli_trace_main(int argc, char **argv);
int cli_topo_main(int argc, char **argv);
int cli_design_main(int argc, char **argv);
int cli_run_main(int argc, char **argv);
int cli_sweep_main(int argc, char **argv);
int cli_config_main(int argc, char **argv);
int cli_replay_main(int argc, char **argv);
int cli_serve_main(int argc, char **argv);
int cli_interfere_main(int argc, char **argv);
int cli_compare_main(int argc, char **argv);

struct trace_archive;
/* Open a trace archive, or convert a foreign trace (DUMPI, SimGrid, OTF2)
 * into an unlinked temporary archive first, naming dropped calls on
 * stderr as "netloom CMD: not converted: ..." (not at all when cmd is
 * NULL: a second conversion of the same trace), or with job (the key
 * that names the trace, one of several) as "netloom CMD: JOB: PATH: not
 * converted: ...". */
int cli_open_trace(const char *cmd, const char *job, const char *path, struct trace_archive **a,
		   struct nl_err *err);

/* `replay --otf2 DIR` / `--svg FILE`: the predicted run written as an
 * OTF2 archive and/or drawn as an SVG timeline (either may be NULL), fed
 * by the app's call observer; finish writes them (after a complete run),
 * free without finish leaves nothing behind. */
struct app;
struct trace_manifest;
struct cli_timeline;
int cli_timeline_start(struct cli_timeline **t, struct app *app, const struct trace_manifest *m, const char *otf2_dir,
		       const char *svg_path, struct nl_err *err);
int cli_timeline_finish(struct cli_timeline *t, struct nl_err *err);
void cli_timeline_free(struct cli_timeline *t);

/* The SVG timeline (cli_svg.c): ranks x time, each column coloured by
 * compute, communication or wait; at most CLI_SVG_MAX_RANKS ranks. */
#define CLI_SVG_MAX_RANKS 64
struct cli_svg;
int cli_svg_new(struct cli_svg **s, const char *path, uint32_t n_ranks, struct nl_err *err);
void cli_svg_call(struct cli_svg *s, uint32_t rank, bool compute, uint64_t start_ps, uint64_t end_ps,
		  uint64_t wait_ps);
/* Draw and write the file atomically. */
int cli_svg_finish(struct cli_svg *s, struct nl_err *err);
void cli_svg_free(struct cli_svg *s);
int cli_cost_main(int argc, char **argv);
int cli_layout_main(int argc, char **argv);

/* BookSim2 config file to netloom INI on `out`; what cannot be mapped is
 * listed on `warn`, one line each, without a prefix ("b.cfg:3: cannot map
 * 'k = 4': ..."; config says it as "netloom config: b.cfg:3: ..."). Returns the number of unmapped keys, or
 * a negative error. */
int cli_booksim_convert(const char *path, FILE *out, FILE *warn, struct nl_err *err);
/* Whether key is one of BookSim2's (booksim_config.cpp), exactly. */
bool cli_booksim_is_key(const char *key);
/* After a -c file's or a -s's key was refused as unknown: when it is a
 * BookSim2 key ('k', 'subnets'), err's line says so and where netloom's
 * equivalent is, as a BookSim user writes one out of habit. */
void cli_booksim_key_hint(struct nl_err *err);
/* session_set of a -s, with cli_booksim_key_hint. */
int cli_session_set(nl_sim *s, const char *set, struct nl_err *err);
/* o's -c file (with cli_config_hint on a failure and, when warn_cmd is
 * not NULL, cli_warn_config_empty) then its -s overrides, into s: what
 * run, sweep and config --check build from. */
int cli_sim_load(nl_sim *s, const struct cli_cfg_opts *o, const char *warn_cmd, struct nl_err *err);
/* Whether path looks like a BookSim2 config (a `//` or block comment, or
 * a `key = value;` line), for a hint when it fails to load as INI. */
bool cli_booksim_syntax(const char *path);
/* After loading the INI file path failed with rc: add to err's line a
 * hint to convert it when it looks like a BookSim2 config (a syntax or
 * key error, or a name its line refused: 'routing_function = dor;'). */
void cli_config_hint(const char *path, int rc, struct nl_err *err);
/* After a check of the configuration loaded from path failed (a
 * spec such as 'topology = torus;', read as a string, refused once
 * parsed): the same hint, when err's line is about that file. */
void cli_config_spec_hint(const char *path, struct nl_err *err);

/* A -s of a key that `cmd` does not read, there as it is (one u says is
 * not read: config_unread_has), warned of on stderr, once per key (its
 * last -s), with `why` (what cmd runs). It ran silently, and '-s
 * placement=random-node' on run, or '-s num_vcs=4' on an analytic
 * replay, read as a change made. A -c file's keys are not: one system
 * file commonly serves every command. */
void cli_warn_unread(const char *cmd, const struct config *cfg, const char *const *sets, size_t n_sets,
		     const struct config_unread *u, const char *why);

/* cli_warn_unread for a replay or live session of cfg, by `cmd`: the
 * [traffic] keys and the experiment's [simulation] keys of synthetic
 * runs, those of the backends other than cfg's ([router] under analytic,
 * [analytic] under flit) and those cfg's backend declares it does not
 * read (net_backend_ops.unread; docs/replay.md); and, with cable_latency
 * off, the [layout] keys that lay the cables out (docs/layout.md). */
void cli_warn_unread_replay(const char *cmd, const struct config *cfg, const char *const *sets, size_t n_sets);

/* [router] keys the rest of [router] leaves unread, warned of as keys
 * nothing reads: '-s lookahead_decide=...' with routing_delay other than
 * 0 (BookSim's lookahead routing, which the key times; the router then
 * routes on arrival whatever it says), and '-s alloc_iters=N' when
 * neither allocator is islip (the separable ones make one pass). */
void cli_warn_unread_router(const char *cmd, const struct config *cfg, const char *const *sets, size_t n_sets);

/* What a run of synthetic traffic on the flit model leaves unread under
 * cfg's other settings, as run and sweep warn of it on stderr: the
 * routing function's parameters that do nothing on the topology (from a
 * file too: route_spec_noop), then the -s keys of cli_warn_unread_router,
 * traffic_class with one traffic class, and the [simulation] thresholds
 * the point's phases do not check. By `cmd`, naming `reader` as what does
 * not read them: the command itself, or "run or sweep" for config, which
 * reads every key to print it. */
void cli_warn_unread_synthetic(const char *cmd, const char *reader, const struct config *cfg,
			       const char *const *sets, size_t n_sets);

/* Warn on stderr, once the network is built, when cfg's backend does
 * not see its topology (session_topology_unused): 'replay T -t A -t B'
 * on the analytic backend with link_model = none printed one runtime
 * for every network, and a live session on a topology gave every
 * message the delay it has without one. `what` says what that means for
 * cmd's results; `doc` where the models are described. */
void cli_warn_topology_unused(const char *cmd, const struct config *cfg, const char *what, const char *doc);

/* cli_warn_unread for the placement keys cfg's placement does not read:
 * placement_seed where the policy draws nothing (linear, or a place_ops
 * without uses_seed), placement_inner with one rank per node, and
 * ranks_per_node and placement_inner under placement = map (the file
 * places each rank). For the commands that place one job by cfg's
 * placement keys (replay, serve --trace; interfere refuses them). */
void cli_warn_unread_placement(const char *cmd, const struct config *cfg, const char *const *sets, size_t n_sets);

/* A placement policy as the reports name it, with the values it reads
 * and no other: "map (file ranks.map)" (the file gives every rank its
 * endpoint), "random-node (seed 1, 2 ranks per node)" (a policy that
 * draws), "contiguous (2 ranks per node)". The map path goes out on one
 * line (nl_fputs_one_line). Not for linear, which reports print as rank
 * r on endpoint r. */
void cli_put_placement(FILE *f, const char *policy, int64_t seed, int64_t ranks_per_node, const char *map_path);

/* cli_warn_unread for a study (netloom compare): each key of a system's
 * configuration (cfgs, n_sys, as session_compare_opts on_systems gives
 * them) that none of its replays nor its price reads, one line on
 * stderr naming where it was set: "study.ini:7: [system a] key
 * 'num_vcs': value '4' is not read by compare (backend analytic); it has
 * no effect" inline, "a.ini:3: [router] key ..." from the system's
 * config file (once for a file several systems load, and only when none
 * of them reads the key). Not read: the keys the study's backend does
 * not read (cli_warn_unread_replay's), propagation_ns_per_m without
 * cable_latency (the price reads the other [layout] keys), placement_map
 * when no workload has placement = map, ranks_per_node when every one
 * has, placement_inner then or with one rank per node. Results and exit
 * status are not changed. */
void cli_warn_unread_study(const char *cmd, const struct config *const *cfgs, size_t n_sys,
			   const char *const *placements, size_t n_wl);

struct place_workload;

/* The same for the keys of workload w (read from `path`): one warning a
 * key, naming path:line and the section, for [workload] seed when no job
 * reads it (none placed by a policy that draws, or each such job with
 * its own placement_seed), then per job a placement_seed under a policy
 * that draws nothing, ranks_per_node under map, and placement_inner with
 * one rank per node or under map (docs/placement.md, "Workload files").
 * Not refused: a seed kept while trying policies is harmless. For
 * interfere. */
void cli_warn_unread_jobs(const char *cmd, const char *path, const struct place_workload *w);

/* Text as XML/HTML character data or attribute value (& < > " ' escaped):
 * names and specs may hold any character (graph:file=a&b<c.edges). NULL
 * writes nothing. */
void cli_xml_escape(FILE *f, const char *s);

/* s as a gnuplot string constant on a command line: single-quoted, where
 * every byte is itself but the quote (doubled); under a `noenhanced`
 * terminal no '_', '^', '{}', '@' or '&' is markup, so a name is drawn as
 * written. A control character (a newline would end the command, and
 * XML 1.0 forbids most in the SVG) is drawn as '_'. NULL is ''. Names in
 * a plot's data go through an array of these (gnuplot's data files have
 * no escape for a '"' in a quoted field). */
void cli_gp_str(FILE *f, const char *s);

/* A program netloom runs and writes to (gnuplot), as popen(cmd, "w"). */
struct cli_child {
	FILE *in;  /* the program's standard input; NULL once closed */
	pid_t pid; /* its process id */
};

/* Note what netloom was started with, before main changes it for the
 * process: SIGXFSZ's and SIGPIPE's actions (out_signals_ignore_xfsz; the
 * writers ignore SIGPIPE while they write to a child) and the soft limit
 * on open files (raised to the hard one). Called first in main. */
void cli_child_note_start(void);

/* Start `cmd` with /bin/sh -c, its standard input a pipe (c->in), the
 * rest inherited, as popen(cmd, "w") does, but as netloom itself was
 * started (cli_child_note_start): popen passed on the ignored SIGXFSZ,
 * so a gnuplot writing past a file size limit wrote on, failing, and the
 * raised limit on open files. 0, or -errno (c->in NULL, nothing runs). */
int cli_child_start(struct cli_child *c, const char *cmd);

/* Close c->in, if open, and wait for the program: its wait status, as
 * pclose returns it, or -1 with errno set. A SIGINT or SIGTERM meanwhile
 * is passed on to the program (SIGKILL 3 s later if it has not ended),
 * which is reaped, then raised again in netloom: with out_signals_catch's
 * handler and something staged, the next poll ends the process by it. */
int cli_child_wait(struct cli_child *c);

/* How a program whose wait status is `st` ended, for an error line:
 * "exit status N" or "ended by signal N, NAME" (a gnuplot past a file
 * size limit: "ended by signal 25, File size limit exceeded"); st < 0 is
 * cli_child_wait's failure, errno still set. */
void cli_child_why(int st, char *buf, size_t n);

/* Run gnuplot on `script` (its terminal set; no 'set output': gnuplot
 * writes the SVG to its standard output, which the shell opens on `tmp`,
 * so the file exists before gnuplot, which outlives a SIGINT, starts, and
 * a second signal unlinks it for good). `tmp` is a staged file the caller
 * registered (out_tmp_for_registered, out_staged_add), reads back with
 * out_read_svg (gnuplot exits 0 after a failed write: a full disk) and
 * removes. SIGPIPE is ignored while the script is written (a gnuplot
 * ended by an interrupt to the process group). 0, or NL_EIO with err
 * saying why, unprefixed ("gnuplot failed (exit status 1)"). */
int cli_gnuplot_run(const char *script, const char *tmp, struct nl_err *err);

/* A command's `opt` chart (--plot FILE.svg; '-' = standard output) drawn
 * by gnuplot from `script` and written as any output is: staged, then
 * moved into place (out_commit), so OUT is the new chart or, when it
 * cannot be written, the old file. gnuplot missing from PATH is
 * NL_EUNSUPPORTED, saying `written` (what the command wrote before: "the
 * table was written"). Errors are prefixed with opt. */
int cli_plot_write(const char *opt, const char *out, const char *script, const char *written, struct nl_err *err);

#endif
