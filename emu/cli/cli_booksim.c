/* BookSim2 configuration files to netloom INI (netloom config
 * --from-booksim). BookSim's syntax is `key = value;` with // comments
 * and {a,b} vectors, read as its lexer reads it (bs_lex): what BookSim
 * stops on is refused. Every key with a netloom equivalent is written
 * with BookSim's effective value (its default when the file does
 * not set it), so the result does not depend on netloom's own defaults;
 * keys netloom does not model are accepted silently when they hold
 * BookSim's default, and named on the warning stream otherwise. Exact or
 * loud (issue 11 part 6): a BookSim setting is written only as a netloom
 * setting with the same behaviour; one this build cannot express (a key
 * it lacks, a value it refuses, a network, routing function or pattern
 * it cannot build: bs_check builds them first) is named, never replaced
 * by something that behaves differently. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "route/route.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

#define BS_MAX 256

struct bs_kv {
	char key[64];
	char val[256];
	int line;
	bool used;
	bool is_multi; /* a vector of per-class values: named, not written */
	char why[400]; /* why it was first named (bs_warn), "" when not: for the INI's note */
};

struct bs_file {
	struct bs_kv kv[BS_MAX];
	int n;
};

/* BookSim2's defaults (booksim_config.cpp) for the keys we map. */
static const char *const bs_defaults[][2] = {
	{"topology", "torus"}, {"k", "8"}, {"n", "2"}, {"c", "1"}, {"routing_function", "none"},
	{"use_noc_latency", "1"}, {"num_vcs", "16"}, {"vc_buf_size", "8"}, {"routing_delay", "1"},
	{"vc_alloc_delay", "1"}, {"sw_alloc_delay", "1"}, {"st_prepare_delay", "0"}, {"st_final_delay", "1"},
	{"credit_delay", "0"}, {"internal_speedup", "1.0"}, {"input_speedup", "1"}, {"output_speedup", "1"},
	{"vc_allocator", "islip"}, {"sw_allocator", "islip"}, {"alloc_iters", "1"},
	{"wait_for_tail_credit", "0"}, {"hold_switch_for_packet", "0"}, {"traffic", "uniform"}, {"injection_rate", "0.1"},
	{"injection_rate_uses_flits", "0"}, {"packet_size", "1"}, {"injection_process", "bernoulli"},
	{"sim_type", "latency"}, {"warmup_periods", "3"}, {"sample_period", "1000"}, {"max_samples", "10"},
	{"latency_thres", "500.0"}, {"warmup_thres", "0.05"}, {"acc_warmup_thres", "0.05"},
	{"stopping_thres", "0.05"}, {"acc_stopping_thres", "0.05"}, {"seed", "0"}, {"router", "iq"},
	{"x", "8"}, {"y", "8"}, {"xr", "1"}, {"yr", "1"}, {"use_read_write", "0"}, {"perm_seed", "0"},
};

/* Keys netloom does not model, fine when they hold this (BookSim default)
 * value: at it BookSim does what netloom does. class_priority 0 gives
 * every flit one priority; max_outstanding_requests 0 is no limit; the
 * spec_check and spec_mask keys are read by speculative allocation alone
 * (iq_router.cpp), named apart at speculative = 1. */
static const char *const bs_inert[][2] = {
	{"speculative", "0"}, {"noq", "0"}, {"output_delay", "0"},
	{"classes", "1"}, {"subnets", "1"}, {"priority", "none"}, {"vc_busy_when_full", "0"},
	{"vc_prioritize_empty", "0"}, {"vc_shuffle_requests", "0"}, {"output_buffer_size", "-1"},
	{"buffer_policy", "private"}, {"include_queuing", "1"},
	{"arb_type", "round_robin"}, {"sim_count", "1"}, {"measure_stats", "1"}, {"pair_stats", "0"},
	{"vc_priority_donation", "0"}, {"spec_sw_allocator", "prio"}, {"fail_seed", "0"},
	{"link_failures", "0"}, {"buf_size", "-1"}, {"perm_seed", "0"}, {"vct", "0"},
	{"class_priority", "0"}, {"max_outstanding_requests", "0"}, {"spec_check_cred", "1"},
	{"spec_check_elig", "1"}, {"spec_mask_by_reqs", "0"},
};

/* Keys that only affect BookSim's console output or warnings (or its
 * power report: channel_width is read with sim_power alone, main.cpp). */
static const char *const bs_cosmetic[] = {
	"print_activity", "print_csv_results", "deadlock_warn_timeout", "watch_file", "watch_flits",
	"watch_packets", "watch_transactions", "watch_out", "stats_out", "viewer_trace", "sim_power",
	"power_output_file", "tech_file", "channel_sweep", "channel_width", "network_file", "stats_out", NULL,
};

/* Keys booksim_config.cpp defines that no BookSim2 code reads (commit
 * 28f43299): they change nothing, whatever the value. */
static const char *const bs_unread[] = {"channel_file", "in_ports", "out_ports", NULL};

/* Every key BookSim2's configuration has (BookSimConfig in
 * booksim_config.cpp at commit 28f43299): it stops on any other ("Unknown
 * integer field"), reorder, flit_timing and split_packets too (commented
 * out there) and the power model's constants (Cd, Vdd, wire_length, ...:
 * PowerConfig's, read from tech_file). */
static const char *const bs_known[] = {
	"acc_stopping_thres", "acc_warmup_thres", "active_packets_out", "alloc_iters", "arb_type",
	"batch_count", "batch_size", "buf_size", "buffer_policy", "burst_alpha", "burst_beta", "burst_r1", "c",
	"channel_file", "channel_sweep", "channel_width", "class_priority", "classes", "credit_delay",
	"deadlock_warn_timeout", "ejected_flits_out", "fail_seed", "feedback_aging_scale", "feedback_offset",
	"free_credits_out", "hold_switch_for_packet", "in_ports", "include_queuing", "injected_flits_out",
	"injection_process", "injection_rate", "injection_rate_uses_flits", "input_speedup", "internal_speedup",
	"k", "latency_thres", "link_failures", "max_credits_out", "max_held_slots", "max_outstanding_requests",
	"max_samples", "measure_stats", "n", "network_file", "noq", "num_vcs", "out_ports",
	"output_buffer_size", "output_delay", "output_speedup", "outstanding_credits_out", "packet_size",
	"packet_size_rate", "pair_stats", "perm_seed", "power_output_file", "print_activity",
	"print_csv_results", "priority", "private_buf_end_vc", "private_buf_size", "private_buf_start_vc",
	"private_bufs", "read_reply_begin_vc", "read_reply_end_vc", "read_reply_size", "read_reply_subnet",
	"read_request_begin_vc", "read_request_end_vc", "read_request_size", "read_request_subnet",
	"received_flits_out", "router", "routing_delay", "routing_function", "sample_period", "seed",
	"sent_flits_out", "sent_packets_out", "sim_count", "sim_power", "sim_type", "spec_check_cred",
	"spec_check_elig", "spec_mask_by_reqs", "spec_sw_allocator", "speculative", "st_final_delay",
	"st_prepare_delay", "stats_out", "stopping_thres", "stored_flits_out", "subnets", "sw_alloc_delay",
	"sw_allocator", "tech_file", "topology", "traffic", "use_noc_latency", "use_read_write",
	"used_credits_out", "vc_alloc_delay", "vc_allocator", "vc_buf_size", "vc_busy_when_full",
	"vc_prioritize_empty", "vc_priority_donation", "vc_shuffle_requests", "vct", "viewer_trace",
	"wait_for_tail_credit", "warmup_periods", "warmup_thres", "watch_file", "watch_flits", "watch_out",
	"watch_packets", "watch_transactions", "write_fraction", "write_reply_begin_vc", "write_reply_end_vc",
	"write_reply_size", "write_reply_subnet", "write_request_begin_vc", "write_request_end_vc",
	"write_request_size", "write_request_subnet", "x", "xr", "y", "yr", NULL,
};

/* Whether key is one of BookSim's; if not, *near gets the closest known
 * key within two edits (case ignored), or NULL. */
static bool bs_is_key(const char *key, const char **near)
{
	size_t best = 3;
	*near = NULL;
	for (int i = 0; bs_known[i]; i++) {
		if (!strcmp(key, bs_known[i]))
			return true;
		size_t d = config_edit_distance(key, bs_known[i], true);
		if (d < best && d * 3 <= strlen(key)) { /* not 'z' -> 'c' */
			best = d;
			*near = bs_known[i];
		}
	}
	return false;
}

bool cli_booksim_is_key(const char *key)
{
	const char *near;
	return bs_is_key(key, &near);
}

/* BookSim's lexer (config.l), rule by rule. flex takes the longest
 * match, the earlier rule on a tie; bs_lex does the same over these. */
enum bs_tok {
	BS_COMMENT, /* '//' to the end of the line */
	BS_BLANK,   /* [ \t\r]: no other white space */
	BS_NEWLINE,
	BS_BRACE,   /* {a,b}: a STR */
	BS_NUM,     /* -?[0-9]+ */
	BS_FNUM,    /* -?[0-9]*\.[0-9]+ and -?({Digit}*\.)?{Digit}+{Exponent}? */
	BS_STR,     /* [A-Za-z_\-/\.][A-Za-z0-9_\-/\.\+(\{\,)\}]* */
	BS_CHAR,    /* any other character, one at a time: '=', ';' or a syntax error */
	BS_END,
};

static size_t bs_digits(const char *p)
{
	size_t n = 0;
	while (p[n] >= '0' && p[n] <= '9')
		n++;
	return n;
}

static bool bs_brace_char(char c)
{
	return c && (isalnum((unsigned char)c) || strchr("_-.({,)}", c));
}

static bool bs_str_char(char c)
{
	return c && (isalnum((unsigned char)c) || strchr("_-/.+({,)}", c));
}

/* The token at p (text ends at end; a NUL before it is a character
 * BookSim refuses): its kind, and its length in *len. */
static enum bs_tok bs_lex(const char *p, const char *end, size_t *len)
{
	if (p == end) {
		*len = 0;
		return BS_END;
	}
	size_t best = 1, n;
	enum bs_tok kind = BS_CHAR;
	/* Each rule in config.l's order: a later one wins only when longer. */
#define BS_TRY(k, l)                                             \
	do {                                                     \
		if ((l) > best || ((l) == best && (k) < kind)) { \
			best = (l);                              \
			kind = (k);                              \
		}                                                \
	} while (0)
	if (p[0] == '/' && p + 1 < end && p[1] == '/') {
		for (n = 2; p + n < end && p[n] != '\n'; n++)
			;
		BS_TRY(BS_COMMENT, n);
	}
	for (n = 0; p + n < end && (p[n] == ' ' || p[n] == '\t' || p[n] == '\r'); n++)
		;
	if (n)
		BS_TRY(BS_BLANK, n);
	if (p[0] == '\n')
		BS_TRY(BS_NEWLINE, 1);
	if (p[0] == '{') {
		/* '{', then characters of the class (',' and '}' among them),
		 * ending at the last '}' with at least one character before it. */
		size_t last = 0;
		for (n = 1; p + n < end && bs_brace_char(p[n]); n++)
			if (p[n] == '}' && n >= 2)
				last = n + 1;
		if (last)
			BS_TRY(BS_BRACE, last);
	}
	const char *q = p + (p[0] == '-');
	size_t sign = (size_t)(q - p), d = bs_digits(q);
	if (d)
		BS_TRY(BS_NUM, sign + d);
	if (q[d] == '.' && bs_digits(q + d + 1)) {
		size_t f = sign + d + 1 + bs_digits(q + d + 1);
		const char *e = p + f;
		if (*e == 'e' || *e == 'E') {
			size_t x = 1 + (e[1] == '+' || e[1] == '-');
			if (bs_digits(e + x))
				f += x + bs_digits(e + x);
		}
		BS_TRY(BS_FNUM, f);
	} else if (d && (q[d] == 'e' || q[d] == 'E')) {
		const char *e = q + d;
		size_t x = 1 + (e[1] == '+' || e[1] == '-');
		if (bs_digits(e + x))
			BS_TRY(BS_FNUM, sign + d + x + bs_digits(e + x));
	}
	if (isalpha((unsigned char)p[0]) || (p[0] && strchr("_-/.", p[0]))) {
		for (n = 1; p + n < end && bs_str_char(p[n]); n++)
			;
		BS_TRY(BS_STR, n);
	}
#undef BS_TRY
	*len = best;
	return kind;
}

/* The next token that is not a comment or white space; *line counts the
 * newlines passed. */
static enum bs_tok bs_next(const char **p, const char *end, int *line, size_t *len)
{
	for (;;) {
		enum bs_tok t = bs_lex(*p, end, len);
		if (t == BS_NEWLINE)
			(*line)++;
		if (t != BS_COMMENT && t != BS_BLANK && t != BS_NEWLINE)
			return t;
		*p += *len;
	}
}

/* A block comment's opening: a '/' word then '*' to BookSim. */
static bool bs_block_comment(const char *p, const char *end)
{
	return p + 1 < end && p[0] == '/' && p[1] == '*';
}

/* What BookSim's parser stops on, as one line: a block comment, a quote
 * or another character of no token, a value that is two tokens ('0x4':
 * '0' then 'x4'), a missing ';' or '='. */
static int bs_syntax_error(const char *path, int line, const char *p, const char *end, enum bs_tok t,
			   struct nl_err *err)
{
	if (t == BS_END)
		return nl_errf(err, NL_EFORMAT, "%s:%d: expected 'key = value;'", path, line);
	if (bs_block_comment(p, end))
		return nl_errf(err, NL_EFORMAT,
			       "%s:%d: '/*' is not BookSim syntax (BookSim's comments are '//' to the end of the line; "
			       "it stops with 'Parse error')",
			       path, line);
	if (t == BS_CHAR && (p[0] == '"' || p[0] == '\''))
		return nl_errf(err, NL_EFORMAT,
			       "%s:%d: a quoted value is not BookSim syntax (BookSim stops with 'Parse error'): expected "
			       "'key = value;' with the value unquoted",
			       path, line);
	if (t == BS_CHAR && p[0] != '=' && p[0] != ';') {
		char c[8];
		if (isprint((unsigned char)p[0]))
			snprintf(c, sizeof c, "%c", p[0]);
		else
			snprintf(c, sizeof c, "\\x%02x", (unsigned char)p[0]);
		return nl_errf(err, NL_EFORMAT,
			       "%s:%d: '%s' is not BookSim syntax (BookSim stops with 'Parse error'): expected 'key = "
			       "value;' with a word, a number or a {a,b} list as the value",
			       path, line, c);
	}
	return nl_errf(err, NL_EFORMAT, "%s:%d: expected 'key = value;'", path, line);
}

/* The file as BookSim's parser reads it (config.l, config.y): statements
 * 'KEY = VALUE;', KEY a word and VALUE a word, a {a,b} list or a number
 * in decimal, at least one; '//' comments; blanks are space, tab, CR and
 * newline. What BookSim stops on ("Parse error on line N") is refused
 * with file:line. A key set twice keeps its last value, as in BookSim. */
static int bs_read(const char *path, struct bs_file *bf, struct nl_err *err)
{
	FILE *f;
	NL_CHECK(nl_open_input(path, "BookSim config", &f, err));
	char text[1 << 16];
	size_t len = fread(text, 1, sizeof text - 1, f);
	bool big = !feof(f);
	fclose(f);
	if (big)
		return nl_errf(err, NL_EFORMAT, "%s: larger than 64 KiB, not a BookSim config", path);
	text[len] = '\0';
	const char *p = text, *end = text + len;
	int line = 1;
	size_t n;
	bf->n = 0;
	for (;;) {
		enum bs_tok t = bs_next(&p, end, &line, &n);
		if (t == BS_END)
			break;
		if ((t != BS_STR && t != BS_BRACE) || bs_block_comment(p, end))
			return bs_syntax_error(path, line, p, end, t, err);
		const char *k = p;
		size_t kl = n;
		int stmt_line = line;
		p += n;
		t = bs_next(&p, end, &line, &n);
		if (!(t == BS_CHAR && *p == '=') || bs_block_comment(p, end))
			return bs_syntax_error(path, line, p, end, t, err);
		p += n;
		t = bs_next(&p, end, &line, &n);
		if ((t != BS_STR && t != BS_BRACE && t != BS_NUM && t != BS_FNUM) || bs_block_comment(p, end))
			return bs_syntax_error(path, line, p, end, t, err);
		const char *v = p;
		size_t vl = n;
		int value_line = line;
		p += n;
		t = bs_next(&p, end, &line, &n);
		if (!(t == BS_CHAR && *p == ';')) {
			/* A value run on into another token ('0x4', '4k', '1.5.2'):
			 * one value to the user, two tokens to BookSim. */
			size_t run = vl;
			while (v + run < end && !isspace((unsigned char)v[run]) && v[run] != ';' && v[run] != '\0')
				run++;
			if (bs_block_comment(p, end))
				return bs_syntax_error(path, line, p, end, t, err);
			if (p == v + vl && t != BS_END && *p != '=' && run > vl)
				return nl_errf(err, NL_EFORMAT,
					       "%s:%d: '%.*s = %.*s': BookSim reads the value as '%.*s' then '%.*s' and stops "
					       "with 'Parse error': expected a decimal number, a word or a {a,b} list",
					       path, value_line, (int)kl, k, (int)run, v, (int)vl, v, (int)(run - vl), p);
			if (t == BS_CHAR && *p != '=')
				return bs_syntax_error(path, line, p, end, t, err);
			return nl_errf(err, NL_EFORMAT, "%s:%d: expected 'key = value;' (missing ';')", path,
				       value_line);
		}
		p += n;
		if (kl >= sizeof bf->kv[0].key || vl >= sizeof bf->kv[0].val)
			return nl_errf(err, NL_EFORMAT, "%s:%d: key or value longer than %zu characters", path, stmt_line,
				       (kl >= sizeof bf->kv[0].key ? sizeof bf->kv[0].key : sizeof bf->kv[0].val) - 1);
		if (bf->n == BS_MAX)
			return nl_errf(err, NL_ERANGE, "%s: more than %d settings", path, BS_MAX);
		int slot = bf->n;
		for (int i = 0; i < bf->n; i++)
			if (strlen(bf->kv[i].key) == kl && !strncmp(bf->kv[i].key, k, kl))
				slot = i;
		snprintf(bf->kv[slot].key, sizeof bf->kv[slot].key, "%.*s", (int)kl, k);
		snprintf(bf->kv[slot].val, sizeof bf->kv[slot].val, "%.*s", (int)vl, v);
		bf->kv[slot].line = stmt_line;
		bf->kv[slot].used = false;
		if (slot == bf->n)
			bf->n++;
	}
	if (bf->n == 0)
		return nl_errf(err, NL_EFORMAT,
			       "%s: no 'key = value;' setting (BookSim's parser stops with 'Parse error' on a file "
			       "without one)",
			       path);
	return 0;
}

/* Effective value of a key: the file's, else BookSim's default. */
static const char *bs_get(struct bs_file *bf, const char *key)
{
	for (int i = 0; i < bf->n; i++)
		if (!strcmp(bf->kv[i].key, key)) {
			bf->kv[i].used = true;
			return bf->kv[i].val;
		}
	for (size_t i = 0; i < sizeof bs_defaults / sizeof *bs_defaults; i++)
		if (!strcmp(bs_defaults[i][0], key))
			return bs_defaults[i][1];
	return NULL;
}

/* A network size key (k, n, c) as the one integer BookSim reads: a vector
 * or a word there is refused with its line, not read as 0. */
static int bs_size(const char *path, struct bs_file *bf, const char *key, long *out, struct nl_err *err)
{
	const char *v = bs_get(bf, key);
	char *end;
	errno = 0;
	*out = strtol(v, &end, 10);
	if (end != v && !*end && !errno)
		return 0;
	int line = 0;
	for (int i = 0; i < bf->n; i++)
		if (!strcmp(bf->kv[i].key, key))
			line = bf->kv[i].line;
	return nl_errf(err, NL_ECONFIG, "%s:%d: '%s = %s': expected one integer (BookSim reads %s as an int)", path,
		       line, key, v, key);
}

static void bs_warn(FILE *warn, const char *path, struct bs_file *bf, const char *key, const char *why, int *n)
{
	int line = 0;
	const char *val = "";
	for (int i = 0; i < bf->n; i++)
		if (!strcmp(bf->kv[i].key, key)) {
			bf->kv[i].used = true;
			line = bf->kv[i].line;
			val = bf->kv[i].val;
			if (!bf->kv[i].why[0])
				snprintf(bf->kv[i].why, sizeof bf->kv[i].why, "%s", why);
		}
	if (line)
		fprintf(warn, "%s:%d: cannot map '%s = %s': %s\n", path, line, key, val, why);
	else
		fprintf(warn, "%s: cannot map '%s': %s\n", path, key, why);
	(*n)++;
}

/* Keys BookSim reads as a vector, one value per traffic class
 * (GetFloatArray and the like, booksim_config.cpp's "vector
 * specification" string fields, trafficmanager.cpp), shortened to the
 * class count with the last value repeated. */
static const char *const bs_vector_keys[] = {
	"injection_rate", "packet_size", "packet_size_rate", "traffic", "injection_process", "class_priority",
	"use_read_write", "write_fraction", "read_request_size", "read_reply_size", "write_request_size",
	"write_reply_size", "measure_stats", "latency_thres", "warmup_thres", "acc_warmup_thres",
	"stopping_thres", "acc_stopping_thres", NULL,
};

#define BS_MAX_ELEMS 64

/* A list value split as BookSim splits it (tokenize_str): text that does
 * not start with '{' is one element; otherwise the elements are what lies
 * between the first '{' and each ',' or '}' outside nested braces (empty
 * ones dropped, scanning on past a closing '}', so "{0,5},{1,1}" is 0 and
 * 5). Elements are trimmed and copied into buf (cap bytes), el[] points
 * into it. Returns the count, at most max (-1 past it or past cap). */
static int bs_tokenize(const char *v, char *buf, size_t cap, const char **el, int max)
{
	size_t used = 0;
	int n = 0;
	if (!v[0])
		return 0;
	if (v[0] != '{') {
		if (strlen(v) >= cap || max < 1)
			return -1;
		memcpy(buf, v, strlen(v) + 1);
		el[0] = buf;
		return 1;
	}
	int nested = 0;
	const char *start = v + 1;
	for (const char *q = v + 1; *q; q++) {
		if (*q == '{') {
			nested++;
		} else if (*q == '}' && nested) {
			nested--;
		} else if (!nested && (*q == ',' || *q == '}')) {
			const char *a = start, *b = q;
			start = q + 1;
			while (a < b && isspace((unsigned char)*a))
				a++;
			while (b > a && isspace((unsigned char)b[-1]))
				b--;
			if (b == a)
				continue;
			if (n == max || used + (size_t)(b - a) + 1 > cap)
				return -1;
			memcpy(buf + used, a, (size_t)(b - a));
			buf[used + (size_t)(b - a)] = '\0';
			el[n++] = buf + used;
			used += (size_t)(b - a) + 1;
		}
	}
	return n;
}

/* The top-level elements of a {a,b,...} value (bs_tokenize): their
 * count; *first gets the first element. */
static int bs_vector_split(const char *v, char *first, size_t cap)
{
	char buf[512];
	const char *el[BS_MAX_ELEMS];
	int n = bs_tokenize(v, buf, sizeof buf, el, BS_MAX_ELEMS);
	snprintf(first, cap, "%s", n > 0 ? el[0] : "");
	return n < 0 ? BS_MAX_ELEMS + 1 : n;
}

/* BookSim's vector values with one traffic class: a one-element vector
 * is its element (packet_size = {4} is 4; packet_size = {{4}} too); one
 * of several elements (per-class values, which netloom models only with
 * classes) is named and left out. */
static void bs_vectors(FILE *warn, const char *path, struct bs_file *bf, int *unmapped)
{
	for (int i = 0; i < bf->n; i++) {
		struct bs_kv *kv = &bf->kv[i];
		bool vec = false;
		for (int j = 0; bs_vector_keys[j]; j++)
			vec |= !strcmp(kv->key, bs_vector_keys[j]);
		if (!vec || kv->val[0] != '{')
			continue;
		char first[sizeof kv->val];
		int n = bs_vector_split(kv->val, first, sizeof first);
		/* packet_size's element may itself be a size list ({1,2}: sizes
		 * with packet_size_rate, named where packet_size is written). */
		if (n == 1 && !strcmp(kv->key, "packet_size") && first[0] == '{') {
			char inner[sizeof kv->val];
			if (bs_vector_split(first, inner, sizeof inner) == 1 && inner[0] != '{')
				snprintf(kv->val, sizeof kv->val, "%s", inner);
			else
				snprintf(kv->val, sizeof kv->val, "%s", first);
			continue;
		}
		if (n == 1 && first[0] != '{') {
			snprintf(kv->val, sizeof kv->val, "%s", first);
			continue;
		}
		char why[512];
		if (n > 1)
			snprintf(why, sizeof why,
				 "a vector of %d values, one per traffic class (BookSim with classes = 1 uses the first, '%s'); netloom has one traffic class: set the key to one value",
				 n, first);
		else
			snprintf(why, sizeof why, "expected one value or a one-element vector {VALUE}");
		bs_warn(warn, path, bf, kv->key, why, unmapped);
		kv->is_multi = true;
	}
}

/* Whether key was a per-class vector, already named by bs_vectors. */
static bool bs_multi(const struct bs_file *bf, const char *key)
{
	for (int i = 0; i < bf->n; i++)
		if (!strcmp(bf->kv[i].key, key))
			return bf->kv[i].is_multi;
	return false;
}

/* netloom's definition of `key` (its default, its range), or NULL for a
 * key netloom does not have. The tables are static: the definition
 * outlives the configuration it was looked up in. */
static const struct param_def *bs_key_def(const char *key)
{
	size_t n_tables;
	struct session_tables st;
	const struct config_table *const *tables = session_config_tables(&st, &n_tables);
	struct config c;
	const struct param_def *def = NULL;
	config_init(&c, tables, n_tables);
	bool found = config_find_key(&c, key, &def);
	config_release(&c);
	return found ? def : NULL;
}

/* The default netloom gives `key` when a file leaves it out. */
static const char *bs_default(const char *key)
{
	const struct param_def *def = bs_key_def(key);
	return def ? def->defval : NULL;
}

/* The INI's note where a named key is left out: what BookSim had (val, or
 * the file's value), why it was named (bs_warn's reason, else `why`), and
 * the default netloom applies instead, so one who keeps only the INI sees
 * that the value is netloom's, not BookSim's (as the routing function's
 * fallback says, bs_check). */
static void bs_note_left_out(FILE *out, const struct bs_file *bf, const char *key, const char *val,
			     const char *why)
{
	for (int i = 0; i < bf->n; i++)
		if (!strcmp(bf->kv[i].key, key)) {
			val = bf->kv[i].val;
			if (bf->kv[i].why[0])
				why = bf->kv[i].why;
		}
	fprintf(out, "; %s: BookSim's '%s' is not mapped%s%s;\n", key, val,
		why ? ": " : " (see the conversion's messages)", why ? why : "");
	const char *def = bs_default(key);
	if (def && def[0])
		fprintf(out, "; netloom uses its default instead: %s = %s.\n", key, def);
	else if (def)
		fprintf(out, "; netloom uses its default instead: %s unset.\n", key);
}

/* Write `key = val` if netloom accepts the value; otherwise name it as
 * unmappable with netloom's reason (`what`, when given, says how val was
 * derived from the file), so the INI written always loads, and note in
 * the INI that netloom's default applies there. Whether it was written. */
static bool bs_put(FILE *out, FILE *warn, const char *path, struct bs_file *bf, const char *key, const char *val,
		   const char *what, int *n)
{
	size_t n_tables;
	struct session_tables st;
	const struct config_table *const *tables = session_config_tables(&st, &n_tables);
	struct config c;
	struct nl_err e = {0};
	if (bs_multi(bf, key)) {
		bs_note_left_out(out, bf, key, val, NULL); /* named by bs_vectors */
		return false;
	}
	config_init(&c, tables, n_tables);
	int rc = config_set(&c, key, val, "BookSim", &e);
	config_release(&c);
	if (rc == 0) {
		fprintf(out, "%s = %s\n", key, val);
		return true;
	}
	/* "BookSim: key 'K' value 'V': expected ..." -> "expected ..." */
	char needle[320], why[NL_ERR_MSG_MAX + 128];
	snprintf(needle, sizeof needle, "value '%s'", val);
	const char *r = strstr(e.msg, needle);
	if (!r && strstr(e.msg, "unknown key")) {
		/* A key a later netloom adds (per-link latencies): refuse
		 * rather than drop what BookSim models. */
		snprintf(why, sizeof why, "%s%sthis netloom has no key '%s' for it", what ? what : "", what ? ": " : "",
			 key);
		bs_warn(warn, path, bf, key, why, n);
		bs_note_left_out(out, bf, key, val, why);
		return false;
	}
	r = r ? r + strlen(needle) : e.msg;
	while (*r == ':' || *r == ' ')
		r++;
	/* "2 flits/cycle ... is out of range", but "inf flits/cycle ...:
	 * expected a number", not "... is expected a number". */
	snprintf(why, sizeof why, "%s%s%s", what ? what : "", !what ? "" : strncmp(r, "expected", 8) ? " is " : ": ", r);
	bs_warn(warn, path, bf, key, why, n);
	bs_note_left_out(out, bf, key, val, why);
	return false;
}

/* A number as the whole value ('O.1', '0.1O', 'abc' and '' are not 0 or
 * 0.1), as config_set reads the other numeric keys. */
static bool bs_number(const char *v, double *out)
{
	char *end;
	errno = 0;
	*out = v && *v ? strtod(v, &end) : 0;
	return v && *v && !*end && !errno && isfinite(*out);
}

/* BookSim's thresholds (latency_thres, warmup_thres, stopping_thres and
 * the acc_ forms): a negative one turns its check off
 * (trafficmanager.cpp: `_latency_thres[c] >= 0.0 &&`, in the sample loop
 * and the drain). netloom's keys have no 'off': the largest value each
 * accepts stands for it (1e12 cycles of mean latency; a relative change
 * of 1e6), written under a comment that says so. Each is compared with
 * '>' only, so the largest is never exceeded by a finite latency or
 * change; what differs is an infinite relative change, a sample period
 * that counted nothing after one that counted some (docs/configuration.md). */
static void bs_put_thres(FILE *out, FILE *warn, const char *path, struct bs_file *bf, const char *key, int *n)
{
	const char *v = bs_get(bf, key);
	double x;
	if (bs_multi(bf, key) || !bs_number(v, &x) || !(x < 0)) {
		bs_put(out, warn, path, bf, key, v, NULL, n);
		return;
	}
	const struct param_def *def = bs_key_def(key);
	if (!def || !(def->max > 0)) { /* a netloom without the key: bs_put names it */
		bs_put(out, warn, path, bf, key, v, NULL, n);
		return;
	}
	char num[40];
	snprintf(num, sizeof num, "%.15g", def->max);
	fprintf(out, "; %s = %s: BookSim's check is off (a negative threshold); %s, netloom's largest, stands for it\n",
		key, v, num);
	bs_put(out, warn, path, bf, key, num, NULL, n);
}

/* injection_rate in flits/cycle: BookSim's rate is in packets unless
 * injection_rate_uses_flits. A rate or a flag that is not a number is
 * named and left out, not written as 0. */
static void bs_put_rate(FILE *out, FILE *warn, const char *path, struct bs_file *bf, bool rate_ok, double rate,
			const char *ps, bool ps_mapped, int *unmapped)
{
	const char *v = bs_get(bf, "injection_rate");
	if (bs_multi(bf, "injection_rate")) {
		bs_note_left_out(out, bf, "injection_rate", v, NULL); /* named by bs_vectors */
		return;
	}
	double flits;
	if (!bs_number(bs_get(bf, "injection_rate_uses_flits"), &flits) || flits != (long)flits) {
		bs_warn(warn, path, bf, "injection_rate_uses_flits", "expected an integer (0 or 1)", unmapped);
		bs_warn(warn, path, bf, "injection_rate", "its unit is unknown (injection_rate_uses_flits is not an integer)",
			unmapped);
		bs_note_left_out(out, bf, "injection_rate", v, NULL);
		return;
	}
	if (!rate_ok) {
		bs_warn(warn, path, bf, "injection_rate", "expected a number", unmapped);
		bs_note_left_out(out, bf, "injection_rate", v, NULL);
		return;
	}
	/* In packets of a size netloom does not take: the flits it stands for
	 * are not the run's either (it read '7000 flits/cycle (0.1 packets
	 * of 70000 flits) is out of range'). */
	if (flits == 0 && !ps_mapped) {
		bs_warn(warn, path, bf, "injection_rate",
			"its unit is packets of packet_size, which is not mapped (BookSim's injection_rate_uses_flits = 0)",
			unmapped);
		bs_note_left_out(out, bf, "injection_rate", v, NULL);
		return;
	}
	char how[160] = "", num[64];
	if (flits == 0) {
		double size = strtod(ps, NULL) > 0 ? strtod(ps, NULL) : 1;
		snprintf(how, sizeof how, "%.12g flits/cycle (%.12g packets of %.12g flits)", rate * size, rate, size);
		rate *= size;
	}
	snprintf(num, sizeof num, "%.12g", rate);
	bs_put(out, warn, path, bf, "injection_rate", num, how[0] ? how : NULL, unmapped);
}

/* An allocator value as BookSim reads it (Allocator::NewAllocator):
 * NAME or NAME(PARAM). The iterative allocators (islip, pim, select) take
 * their iteration count from PARAM, else from alloc_iters of the
 * configuration they are given; BookSim2's IQRouter gives none (config
 * NULL), so without PARAM they run one iteration whatever alloc_iters
 * says. name gets NAME (the whole value when PARAM is not an iteration
 * count, so the conversion names it); *iters the count, 0 when the
 * allocator has none. */
static void bs_alloc_split(const char *v, char *name, size_t cap, int *iters)
{
	static const char *const iterative[] = {"islip", "pim", "select", NULL};
	const char *paren = strchr(v, '(');
	size_t len = paren ? (size_t)(paren - v) : strlen(v);
	snprintf(name, cap, "%.*s", (int)len, v);
	bool iter = false;
	for (int i = 0; iterative[i]; i++)
		iter |= !strcmp(name, iterative[i]);
	*iters = iter ? 1 : 0;
	if (!paren)
		return;
	char *end = NULL;
	long n = strtol(paren + 1, &end, 10);
	if (iter && end && end != paren + 1 && !strcmp(end, ")") && n >= 1 && n <= 1000)
		*iters = (int)n;
	else
		snprintf(name, cap, "%s", v); /* a PARAM netloom has no key for: named */
}

/* vc_allocator, sw_allocator and the iterations they run in BookSim2's IQ
 * router (bs_alloc_split): netloom's alloc_iters serves both. */
static void bs_allocators(FILE *out, FILE *warn, const char *path, struct bs_file *bf, int *unmapped)
{
	char vc[128], sw[128], num[32];
	int vc_it, sw_it;
	bs_alloc_split(bs_get(bf, "vc_allocator"), vc, sizeof vc, &vc_it);
	bs_alloc_split(bs_get(bf, "sw_allocator"), sw, sizeof sw, &sw_it);
	bs_put(out, warn, path, bf, "vc_allocator", vc, NULL, unmapped);
	bs_put(out, warn, path, bf, "sw_allocator", sw, NULL, unmapped);
	const char *file_iters = bs_get(bf, "alloc_iters");
	if (vc_it && sw_it && vc_it != sw_it) {
		char why[160];
		snprintf(why, sizeof why,
			 "BookSim runs %d iteration(s) in the VC allocator and %d in the switch allocator; netloom's alloc_iters serves both",
			 vc_it, sw_it);
		bs_warn(warn, path, bf, "sw_allocator", why, unmapped);
		bs_note_left_out(out, bf, "alloc_iters", file_iters, why);
		return;
	}
	int iters = vc_it > sw_it ? vc_it : sw_it;
	if (!iters)
		iters = 1; /* neither allocator iterates */
	if (strtol(file_iters, NULL, 10) != iters)
		fprintf(out,
			"; alloc_iters = %s is not applied: BookSim2's IQ router builds its allocators without the\n"
			"; configuration, so they run the iterations their names give (islip(N)), here %d\n",
			file_iters, iters);
	snprintf(num, sizeof num, "%d", iters);
	bs_put(out, warn, path, bf, "alloc_iters", num, NULL, unmapped);
}

/* BookSim's valiant_torus (routefunc.cpp) takes the ring part (0 or 1,
 * asserted) at every router before the destination, but dor_next_torus
 * sets it only when the packet turns into a dimension: on a hop that
 * continues in the same ring it is left unset, and BookSim aborts
 * ("Assertion `ring_part == 1' failed", routefunc.cpp:1391). A minimal ring route takes up to k/2 hops, so it
 * continues a ring once k >= 4; BookSim runs it with k = 2 or 3. */
static bool bs_valiant_torus_aborts(const char *tp, const char *rf, long k)
{
	return !strcmp(tp, "torus") && !strcmp(rf, "valiant") && k >= 4;
}

/* The BookSim routing function names the conversion maps on network tp,
 * comma-separated in buf ("" for a network it does not map). */
static void bs_routing_names(const char *tp, long k, char *buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	const char *rf;
	for (size_t i = 0; (rf = route_booksim_name(tp, i)) && used < cap; i++)
		if (!bs_valiant_torus_aborts(tp, rf, k))
			used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", rf);
}

/* One integer list of a hotspot parameter as BookSim reads it
 * (tokenize_int: a bare number, or {a,b,...}); each element must be a
 * whole integer (BookSim's atoi would read "2x" as 2: named instead).
 * Returns the count, or -1. */
static int bs_int_list(const char *v, long *out, int max)
{
	char buf[512];
	const char *el[BS_MAX_ELEMS];
	int n = bs_tokenize(v, buf, sizeof buf, el, max < BS_MAX_ELEMS ? max : BS_MAX_ELEMS);
	for (int i = 0; i < n; i++) {
		char *end;
		errno = 0;
		out[i] = strtol(el[i], &end, 10);
		if (end == el[i] || *end || errno)
			return -1;
	}
	return n;
}

/* BookSim's hotspot (TrafficPattern::New): the parameters are the text
 * between the first '(' and the last ')', split by bs_tokenize; the first
 * is the list of hot nodes, the second (if any) their rates, the last rate
 * repeated for nodes without one, 1 each without a list. So
 * hotspot({{0,5},{1,1}}) is nodes 0 and 5 at rates 1 and 1, while
 * hotspot({0,5},{1,1}) is node 0 at rate 5 (its top-level elements are 0
 * and 5), and hotspot(3) is node 3. A node < 0 is drawn at random, and a
 * missing list means one random node: named, as are rates BookSim asserts
 * on. With one hot node every packet goes there, whatever its rate. */
static bool bs_hotspot(const char *tr, const uint32_t *map, size_t n_map, char *out, size_t cap, char *why,
		       size_t why_cap)
{
	char param[256] = "", buf[512];
	const char *el[BS_MAX_ELEMS];
	const char *l = strchr(tr, '('), *r = strrchr(tr, ')');
	if (l)
		snprintf(param, sizeof param, "%.*s", (int)(r && r > l ? r - l - 1 : (long)strlen(l + 1)), l + 1);
	int n_params = bs_tokenize(param, buf, sizeof buf, el, BS_MAX_ELEMS);
	long nodes[BS_MAX_ELEMS], rates[BS_MAX_ELEMS];
	if (n_params < 1) {
		snprintf(why, why_cap, "BookSim's hotspot without a node list sends to one node drawn at random");
		return false;
	}
	int n_nodes = bs_int_list(el[0], nodes, BS_MAX_ELEMS);
	int n_rates = n_params >= 2 ? bs_int_list(el[1], rates, BS_MAX_ELEMS) : 0;
	if (n_nodes < 1 || n_rates < 0 || (n_params >= 2 && n_rates == 0)) {
		snprintf(why, why_cap,
			 "expected hotspot({NODE,...},{RATE,...}) as BookSim reads it: integer lists (BookSim reads nodes '%s'%s%s)",
			 el[0], n_params >= 2 ? " and rates " : "", n_params >= 2 ? el[1] : "");
		return false;
	}
	for (int i = n_rates; i < n_nodes; i++)
		rates[i] = n_rates ? rates[n_rates - 1] : 1;
	for (int i = 0; i < n_nodes; i++) {
		if (nodes[i] < 0) {
			snprintf(why, why_cap, "BookSim draws hot node %ld at random (a negative id)", nodes[i]);
			return false;
		}
		if (rates[i] <= 0) {
			snprintf(why, why_cap, "BookSim asserts every hotspot rate is > 0 (got %ld)", rates[i]);
			return false;
		}
		long id = nodes[i];
		if (map) {
			if (id >= (long)n_map) {
				snprintf(why, why_cap, "hot node %ld is not a terminal (0..%zu)", id, n_map - 1);
				return false;
			}
			id = map[id];
		}
		nodes[i] = id;
	}
	/* A node listed twice is drawn with the sum of its rates (BookSim
	 * picks among the list's entries); netloom takes each node once. */
	int n_kept = 0;
	for (int i = 0; i < n_nodes; i++) {
		int k = 0;
		while (k < n_kept && nodes[k] != nodes[i])
			k++;
		if (k < n_kept) {
			rates[k] += rates[i];
			continue;
		}
		nodes[n_kept] = nodes[i];
		rates[n_kept++] = rates[i];
	}
	n_nodes = n_kept;
	char list_n[256] = "", list_r[256] = "";
	size_t used_n = 0, used_r = 0;
	for (int i = 0; i < n_nodes; i++) {
		used_n += (size_t)snprintf(list_n + used_n, sizeof list_n - used_n, "%s%ld", i ? "/" : "", nodes[i]);
		used_r += (size_t)snprintf(list_r + used_r, sizeof list_r - used_r, "%s%ld", i ? "/" : "", rates[i]);
		if (used_n >= sizeof list_n || used_r >= sizeof list_r) {
			snprintf(why, why_cap, "too many hot nodes");
			return false;
		}
	}
	if (n_nodes == 1)
		snprintf(out, cap, "hotspot:nodes=%s", list_n);
	else
		snprintf(out, cap, "hotspot:nodes=%s,rates=%s", list_n, list_r);
	return true;
}

/* The pattern in netloom's syntax. map, when not NULL, renumbers
 * BookSim's terminal ids (n_map of them) to netloom endpoints: then only
 * patterns that do not depend on the numbering (uniform, a random
 * permutation), that name endpoints (hotspot) or that commute with the
 * renumbering (bitcomp, checked) convert. */
static bool bs_traffic(const char *tr, const uint32_t *map, size_t n_map, char *out, size_t cap, char *why,
		       size_t why_cap)
{
	why[0] = '\0';
	static const char *const simple[] = {"uniform", "bitcomp", "bitrev", "shuffle", "transpose", "tornado",
					     "neighbor", "randperm", "asymmetric", NULL};
	/* bitcomp (N a power of two) sends T to N-1-T in either numbering;
	 * it keeps its meaning when the renumbering commutes with it, as it
	 * does when x, xr and yr are powers of two. */
	bool bitcomp_same = map && !strcmp(tr, "bitcomp") && n_map && !(n_map & (n_map - 1));
	for (size_t t = 0; bitcomp_same && t < n_map; t++)
		bitcomp_same = map[n_map - 1 - t] == n_map - 1 - map[t];
	for (int i = 0; simple[i]; i++)
		if (!strcmp(tr, simple[i]) &&
		    (!map || !strcmp(tr, "uniform") || !strcmp(tr, "randperm") || bitcomp_same)) {
			snprintf(out, cap, "%s", tr);
			return true;
		}
	if (!strncmp(tr, "hotspot", 7) && (!tr[7] || tr[7] == '('))
		return bs_hotspot(tr, map, n_map, out, cap, why, why_cap);
	return false;
}

/* BookSim's atoi: leading blanks, a sign and digits, 0 without digits.
 * Returns whether that is the whole text ("5" yes; "5x" and "4,2,1",
 * read as 5 and 4, no). */
static bool bs_atoi(const char *s, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(s, &end, 10);
	bool digits = end != s && isdigit((unsigned char)end[-1]);
	if (!digits)
		*v = 0;
	return digits && !*end && !errno;
}

/* A traffic value as BookSim's TrafficPattern::New reads it. */
struct bs_pattern {
	char name[256];      /* what bs_traffic maps: NAME without the arguments BookSim ignores */
	long perm_seed;      /* randperm: its argument, else the perm_seed key */
	long dig[3];         /* tornado, neighbor: k, n, xr */
	char dig_arg[3][64]; /* the argument each came from, "" when from the key */
	char note[320];      /* an INI comment: what BookSim reads of the arguments */
	char why[256];       /* set when the value cannot be mapped for what BookSim reads */
};

/* NAME or NAME(PARAMS), PARAMS the text between the first '(' and the last
 * ')' split by tokenize_str (bs_tokenize): text that does not start with
 * '{' is one argument, so tornado(4,2,1) has the one argument "4,2,1",
 * which atoi reads as k = 4, and tornado({4,2,1}) has three. By pattern
 * (traffic.cpp): uniform, bitcomp, bitrev, shuffle, transpose and
 * asymmetric read no argument; randperm reads its seed, else the
 * perm_seed key; tornado and neighbor read k, n and xr, each missing one
 * from the key of that name; hotspot reads nodes and rates (bs_hotspot,
 * given the whole value, as is any pattern netloom does not have). */
static void bs_pattern_read(struct bs_file *bf, const char *v, struct bs_pattern *pat)
{
	static const char *const no_args[] = {"uniform", "bitcomp", "bitrev", "shuffle", "transpose", "asymmetric",
					      NULL};
	static const char *const dig_keys[3] = {"k", "n", "xr"};
	char param[256] = "", buf[512];
	const char *el[BS_MAX_ELEMS];
	memset(pat, 0, sizeof *pat);
	const char *l = strchr(v, '('), *r = strrchr(v, ')');
	size_t name_len = l ? (size_t)(l - v) : strlen(v);
	if (l)
		snprintf(param, sizeof param, "%.*s", (int)(r && r > l ? r - l - 1 : (long)strlen(l + 1)), l + 1);
	int n_args = bs_tokenize(param, buf, sizeof buf, el, BS_MAX_ELEMS);
	snprintf(pat->name, sizeof pat->name, "%.*s", (int)name_len, v);
	for (int i = 0; no_args[i]; i++)
		if (!strcmp(pat->name, no_args[i])) {
			if (param[0])
				snprintf(pat->note, sizeof pat->note,
					 "; traffic = %s: BookSim's %s takes no argument (TrafficPattern::New ignores '%s')\n",
					 v, pat->name, param);
			return;
		}
	long x;
	if (!strcmp(pat->name, "randperm")) {
		if (n_args > 0) {
			if (!bs_atoi(el[0], &pat->perm_seed))
				snprintf(pat->note, sizeof pat->note,
					 "; traffic = %s: BookSim reads the argument '%s' as the permutation seed %ld (atoi)\n",
					 v, el[0], pat->perm_seed);
			return;
		}
		const char *ps = bs_get(bf, "perm_seed");
		if (!strcmp(ps, "time"))
			snprintf(pat->why, sizeof pat->why,
				 "BookSim draws the permutation seed from the clock (perm_seed = time): no fixed permutation to write; set perm_seed to an integer");
		else if (!bs_atoi(ps, &pat->perm_seed))
			snprintf(pat->why, sizeof pat->why,
				 "BookSim's randperm reads perm_seed = '%s' as an integer: expected an integer", ps);
		return;
	}
	if (strcmp(pat->name, "tornado") && strcmp(pat->name, "neighbor")) {
		snprintf(pat->name, sizeof pat->name, "%s", v);
		return;
	}
	for (int i = 0; i < 3; i++) {
		if (i >= n_args) {
			bs_atoi(bs_get(bf, dig_keys[i]), &pat->dig[i]);
			continue;
		}
		snprintf(pat->dig_arg[i], sizeof pat->dig_arg[i], "%s", el[i]);
		if (!bs_atoi(el[i], &x) && !pat->note[0])
			snprintf(pat->note, sizeof pat->note,
				 "; traffic = %s: BookSim reads the argument '%s' as %s = %ld (atoi; several arguments are written %s({K,N,XR}))\n",
				 v, el[i], dig_keys[i], x, pat->name);
		pat->dig[i] = x;
	}
	if (n_args > 3 && !pat->note[0])
		snprintf(pat->note, sizeof pat->note,
			 "; traffic = %s: BookSim's %s reads three arguments (k, n, xr) and ignores the rest\n", v,
			 pat->name);
}

/* BookSim's flatfly (flatfly_onchip.cpp) beyond k, n, c. It lays the
 * routers out on an x-by-y on-chip grid (router id = row * x + column; it
 * asserts x == y, xr == yr and c == xr * yr) and numbers terminals
 * mesh-style over that grid: terminal (column * xr + i, row * yr + j),
 * i < xr, j < yr, is id (x * xr) * (row * yr + j) + column * xr + i, where
 * netloom's HyperX numbers endpoints router by router (router * c + xr * j
 * + i, which is the order BookSim's own flatfly_transformation routes
 * by). *map gets the renumbering when the two differ (NULL when they are
 * the same). With use_noc_latency = 1 (BookSim's default) a channel is
 * xr * |dcolumn| + yr * |drow| cycles long and a terminal channel 1 cycle
 * while xr, yr <= 3: netloom's `noc_latency = 1` (same grid, same rule).
 * Returns 0 or a negative error (out of memory). */
static int bs_flatfly(const char *path, FILE *warn, struct bs_file *bf, long k, long nd, long c,
		      const char *lat[][3], int *n_lat, uint32_t **map, size_t *n_map, int *unmapped,
		      struct nl_err *err)
{
	long x = strtol(bs_get(bf, "x"), NULL, 10), y = strtol(bs_get(bf, "y"), NULL, 10);
	long xr = strtol(bs_get(bf, "xr"), NULL, 10), yr = strtol(bs_get(bf, "yr"), NULL, 10);
	long routers = 1;
	for (long d = 0; d < nd && routers <= (1L << 24); d++)
		routers *= k;
	if (k < 2 || nd < 1 || nd > 4 || c < 1 || routers > (1L << 24)) {
		bs_warn(warn, path, bf, "n", "BookSim's flatfly needs k >= 2, 1 <= n <= 4 and c >= 1", unmapped);
		return 0;
	}
	if (x != y || xr != yr || c != xr * yr || x * y != routers) {
		char why[256];
		snprintf(why, sizeof why,
			 "BookSim's flatfly needs x = y, xr = yr, c = xr * yr and x * y = k^n routers (here x = %ld, y = %ld, xr = %ld, yr = %ld, c = %ld, %ld routers)",
			 x, y, xr, yr, c, routers);
		bs_warn(warn, path, bf, "x", why, unmapped);
		return 0;
	}
	/* xr > 3 is named and noc_latency left out: netloom's noc_latency
	 * refuses such a grid, and the INI written must run. */
	if (strtol(bs_get(bf, "use_noc_latency"), NULL, 10) == 1 && xr > 3) {
		bs_warn(warn, path, bf, "xr",
			"use_noc_latency = 1 with xr > 3 gives terminal channels of several cycles, not modelled",
			unmapped);
	} else if (strtol(bs_get(bf, "use_noc_latency"), NULL, 10) == 1) {
		lat[*n_lat][0] = "noc_latency";
		lat[*n_lat][1] = "1";
		lat[(*n_lat)++][2] = "BookSim's flatfly channels with use_noc_latency = 1 (its default) are "
				     "xr * columns + yr * rows cycles long";
	}
	size_t n = (size_t)(routers * c);
	uint32_t *m = malloc(n * sizeof *m);
	if (!m)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	bool same = true;
	for (size_t id = 0; id < n; id++) {
		size_t row = id / (size_t)(x * xr), col = id % (size_t)(x * xr);
		size_t router = row / (size_t)yr * (size_t)x + col / (size_t)xr;
		m[id] = (uint32_t)(router * (size_t)c + row % (size_t)yr * (size_t)xr + col % (size_t)xr);
		same = same && m[id] == id;
	}
	if (same) {
		free(m);
		return 0;
	}
	*map = m;
	*n_map = n;
	return 0;
}

/* BookSim's anynet (networks/anynet.cpp): its network_file, opened as
 * BookSim opens it (an ifstream on the name as given: relative to the
 * directory BookSim runs in, not to the config's), becomes
 * anynet:file=ABSOLUTE so the INI reads the same file from anywhere.
 * The file's own errors are named when bs_check builds the network. */
static void bs_anynet(const char *path, FILE *warn, struct bs_file *bf, char *topo, size_t cap, int *unmapped)
{
	const char *nf = bs_get(bf, "network_file");
	char why[PATH_MAX + 256], abs[PATH_MAX];
	if (!nf || !nf[0]) {
		bs_warn(warn, path, bf, "topology", "anynet needs network_file (BookSim exits without one)", unmapped);
		return;
	}
	if (!realpath(nf, abs)) {
		/* BookSim would not find it either; say where it is if beside the config. */
		char beside[PATH_MAX];
		const char *slash = strrchr(path, '/');
		snprintf(beside, sizeof beside, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, nf);
		if (nf[0] != '/' && slash && access(beside, R_OK) == 0)
			snprintf(why, sizeof why,
				 "cannot open '%s' (%s); BookSim opens it relative to the directory it runs in, not the "
				 "config's: run the conversion from the config's directory, or give an absolute path",
				 nf, strerror(errno));
		else
			snprintf(why, sizeof why, "cannot open '%s' (%s); expected BookSim's anynet network_file", nf,
				 strerror(errno));
		bs_warn(warn, path, bf, "network_file", why, unmapped);
		return;
	}
	if (strpbrk(abs, ",=") || (size_t)snprintf(topo, cap, "anynet:file=%s", abs) >= cap) {
		snprintf(why, sizeof why, "path '%s' %s; expected one without ',' or '=' of at most %zu bytes", abs,
			 strpbrk(abs, ",=") ? "holds ',' or '='" : "is too long", cap - 20);
		topo[0] = '\0';
		bs_warn(warn, path, bf, "network_file", why, unmapped);
	}
}

/* BookSim's fly (networks/fly.cpp): k-ary n-fly, k^n terminals. With
 * n = 1 it is one k x k crossbar whose channels are 1 cycle: netloom's
 * fly:k=K,n=1. With n > 1 terminals inject at stage 0 and eject at stage
 * n-1, different routers, which netloom's endpoint model cannot hold. */
static void bs_fly(const char *path, FILE *warn, struct bs_file *bf, long k, long nd, char *topo, size_t cap,
		   int *unmapped)
{
	char why[256];
	if (nd != 1) {
		snprintf(why, sizeof why,
			 "a k-ary n-fly with n = %ld > 1 injects at stage 0 and ejects at stage n-1, two different routers; netloom attaches each endpoint to one router, so only n = 1 (one k x k crossbar) converts",
			 nd);
		bs_warn(warn, path, bf, "n", why, unmapped);
		return;
	}
	if (k < 2) {
		snprintf(why, sizeof why, "BookSim's fly needs k >= 2 (a k x k crossbar), got k = %ld", k);
		bs_warn(warn, path, bf, "k", why, unmapped);
		return;
	}
	snprintf(topo, cap, "fly:k=%ld,n=1", k);
}

/* BookSim's cmesh (networks/cmesh.cpp): a k x k mesh, c = 4 terminals per
 * router as an xr x yr = 2 x 2 block of a 2k x 2k terminal grid (its
 * _ComputeSize asserts n <= 2, c == 4, x == y, xr == yr and c == xr * yr,
 * and builds its blocks as (c / n) x (c / (c / n)), so n = 1 is not a
 * concentrated mesh). netloom's cmesh numbers endpoints the same way. With
 * use_noc_latency = 1 (BookSim's default) a mesh channel is c / n = 2
 * cycles (xr), terminal channels 1; express channels (x k/2 cycles) are not
 * built and *_no_express routing never takes them. */
static void bs_cmesh(const char *path, FILE *warn, struct bs_file *bf, long k, long nd, long c, char *topo,
		     size_t cap, long *chan, int *unmapped)
{
	long x = strtol(bs_get(bf, "x"), NULL, 10), y = strtol(bs_get(bf, "y"), NULL, 10);
	long xr = strtol(bs_get(bf, "xr"), NULL, 10), yr = strtol(bs_get(bf, "yr"), NULL, 10);
	char why[256];
	const char *key = NULL;
	if (nd != 2) {
		key = "n";
		snprintf(why, sizeof why, "BookSim's cmesh is two-dimensional: expected n = 2");
	} else if (c != 4) {
		key = "c";
		snprintf(why, sizeof why, "BookSim's cmesh asserts c = 4 (a 2 x 2 block of terminals per router)");
	} else if (xr != yr || xr * yr != c) {
		key = "xr";
		snprintf(why, sizeof why, "BookSim's cmesh asserts xr = yr and c = xr * yr (here xr = %ld, yr = %ld, c = %ld)",
			 xr, yr, c);
	} else if (x != y) {
		key = "x";
		snprintf(why, sizeof why, "BookSim's cmesh asserts x = y (here x = %ld, y = %ld)", x, y);
	} else if (k < 2) {
		key = "k";
		snprintf(why, sizeof why, "BookSim's cmesh needs k >= 2 routers per dimension, got k = %ld", k);
	}
	if (key) {
		bs_warn(warn, path, bf, key, why, unmapped);
		return;
	}
	snprintf(topo, cap, "cmesh:k=%ld,n=2,c=%ld", k, c);
	*chan = strtol(bs_get(bf, "use_noc_latency"), NULL, 10) == 1 ? c / nd : 1;
}

/* What a converted file routes with when BookSim's routing function is
 * not mapped, in order of preference (NULL: netloom's default). Each
 * must also not deadlock: updown (Autonet's up/down routing) closes no
 * cycle of channel dependencies on any network with any VC count
 * (Schroeder et al. 1991), where min:classes=none, the one that built
 * with 1 VC, deadlocked the default torus within 400 cycles at a load
 * of 0.5. */
static const char *const bs_fallback_routes[] = {NULL, "min", "updown", "min:classes=none"};

/* Build what the INI will describe (the topology, the routing function
 * over n_vcs VCs, the traffic pattern), so a spec netloom cannot run is
 * named here, with netloom's reason, and left out, not found by `netloom
 * run` later. traffic NULL: nothing to check.
 *
 * What is left out must still leave a file that runs (issue 11 part 6):
 * without a topology netloom's default network is simulated, and a routing
 * function that only ran on the dropped one is dropped with it; without a
 * routing function the first of bs_fallback_routes that runs on the
 * network is written, and `route_note` says why in the INI. The exit
 * status already says the file is not BookSim's network. */
static void bs_check(const char *path, FILE *warn, struct bs_file *bf, char *topo, char *route, size_t route_cap,
		     char *traffic, long n_vcs, char *route_note, size_t note_cap, int *n)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	if (topo[0] && topo_new(topo, &t, &e) < 0) {
		bs_warn(warn, path, bf, "topology", e.msg, n);
		topo[0] = '\0';
	}
	if (!topo[0] && topo_new(bs_default("topology"), &t, &e) < 0) {
		bs_warn(warn, path, bf, "topology", e.msg, n); /* not reached: the default builds */
		return;
	}
	struct route *r = NULL;
	if (route[0] && route_new(route, t, (uint32_t)n_vcs, &r, &e) < 0) {
		char why[NL_ERR_MSG_MAX + 64];
		snprintf(why, sizeof why, "'%s' with num_vcs = %ld%s: %s", route, n_vcs,
			 topo[0] ? "" : " on netloom's default network", e.msg);
		bs_warn(warn, path, bf, "routing_function", why, n);
		route[0] = '\0';
	}
	route_free(r);
	r = NULL;
	for (size_t i = 0; !route[0] && i < sizeof bs_fallback_routes / sizeof *bs_fallback_routes; i++) {
		const char *fb = bs_fallback_routes[i] ? bs_fallback_routes[i] : bs_default("routing_function");
		if (route_new(fb, t, (uint32_t)n_vcs, &r, &e) < 0)
			continue;
		route_free(r);
		r = NULL;
		snprintf(route, route_cap, "%s", fb);
		const char *rf = bs_get(bf, "routing_function");
		snprintf(route_note, note_cap,
			 "; routing_function: BookSim's '%s' is not mapped (see the conversion's messages);\n"
			 "; '%s' is written so that this file runs: it is not BookSim's routing.\n",
			 rf[0] ? rf : "(none)", route);
	}
	/* BookSim's bit permutations exit unless the node count is a power of
	 * two (transpose: an even power); netloom would run them. */
	if (topo[0] && traffic && (!strcmp(traffic, "bitcomp") || !strcmp(traffic, "bitrev") ||
				   !strcmp(traffic, "shuffle") || !strcmp(traffic, "transpose"))) {
		uint32_t nodes = t->n_endpoints;
		int bits = 0;
		while ((1u << bits) < nodes && bits < 31)
			bits++;
		bool pow2 = nodes && !(nodes & (nodes - 1));
		char why[256] = "";
		if (!pow2)
			snprintf(why, sizeof why,
				 "BookSim exits: bit permutation traffic patterns require the number of nodes to be a power of two (here %u)",
				 nodes);
		else if (!strcmp(traffic, "transpose") && bits % 2)
			snprintf(why, sizeof why,
				 "BookSim exits: transpose requires the number of nodes to be an even power of two (here %u = 2^%d)",
				 nodes, bits);
		if (why[0]) {
			bs_warn(warn, path, bf, "traffic", why, n);
			traffic[0] = '\0';
		}
	}
	struct traffic *tr = NULL;
	if (traffic && traffic[0] && traffic_new(traffic, t, 0, &tr, &e) < 0) {
		bs_warn(warn, path, bf, "traffic", e.msg, n);
		traffic[0] = '\0';
	}
	traffic_free(tr);
	topo_free(t);
}

/* BookSim2's IQ router aborts with vc_alloc_delay or sw_alloc_delay above
 * 1 (routers/iq_router.cpp, _VCAllocEvaluate and _SWAllocEvaluate). Its
 * first loop over the allocator's queue times the new requests only up to
 * the first request already timed, so one queued behind a request in
 * progress stays untimed (-1); the second loop, run only with a delay
 * above 1, walks the requests whose delay has elapsed, asserting each is
 * timed. When a request completes with an untimed one behind it, that is
 * when two requests reach one router's allocator within delay - 1 cycles
 * of each other, BookSim stops: "Assertion `time >= 0' failed"
 * (iq_router.cpp:783, :1641 for the switch allocator). Any load but the
 * lightest does it (a 4x4 mesh at 0.001 packets/cycle; at 0.0001 a run
 * may finish), so there is no BookSim run to match: the key is named and
 * left out. Returns whether key = v is such a delay. */
static bool bs_alloc_delay_aborts(const char *key, const char *v)
{
	double x;
	return (!strcmp(key, "vc_alloc_delay") || !strcmp(key, "sw_alloc_delay")) && bs_number(v, &x) && x > 1;
}

/* bs_convert's phases, in the order it runs them: first what the INI will
 * say (struct bs_conv: network, routing, traffic, then the check that
 * builds them), then the INI section by section, then the keys nothing
 * read. The order is the messages' order, and a key's first reason
 * (bs_warn) is the one its INI note gives, so a phase moves only with
 * both in mind. */

/* What the conversion decided before writing anything: netloom's specs
 * ("" where left out) and the notes the INI writes beside them. */
struct bs_conv {
	const char *tp;		/* BookSim's topology */
	long k, nd, c;		/* its k, n and c */
	char topo[512];		/* netloom's topology spec */
	char topo_note[128];	/* an INI comment above it, "" for none */
	char route[64];		/* netloom's routing spec */
	char route_note[512];	/* the INI's note on a fallback routing function (bs_check) */
	long chan;		/* channel_latency in cycles; 0: not written */
	const char *lat[3][3];	/* per-link-class latencies: key, value, why */
	int n_lat;
	uint32_t *map;		/* flatfly's terminal renumbering (bs_flatfly), NULL for none */
	size_t n_map;
	bool map_used;		/* there was one (map is freed once the traffic is decided) */
	struct bs_pattern pat;	/* the traffic value as BookSim reads it */
	char traffic[256];	/* netloom's traffic spec */
	char traffic_why[256];	/* why it is not mapped, "" when not said yet */
	bool traffic_ok;	/* bs_traffic mapped the pattern */
};

/* BookSim's topology, k, n and c as netloom's topology spec, with the
 * channel length and per-link latencies BookSim gives that network.
 * Returns 0 or a negative error (a size that is not one integer, out of
 * memory). */
static int bs_conv_network(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped,
			   struct nl_err *err)
{
	const char *tp = cv->tp = bs_get(bf, "topology");
	NL_CHECK(bs_size(path, bf, "k", &cv->k, err));
	NL_CHECK(bs_size(path, bf, "n", &cv->nd, err));
	NL_CHECK(bs_size(path, bf, "c", &cv->c, err));
	const long k = cv->k, nd = cv->nd, c = cv->c;
	cv->chan = 1;
	bool kncube = !strcmp(tp, "torus") || !strcmp(tp, "mesh");
	if (kncube)
		cv->chan = strtol(bs_get(bf, "use_noc_latency"), NULL, 10) == 1 && !strcmp(tp, "torus") ? 2 : 1;
	if (kncube && (k < 2 || nd < 1 || nd > 16)) {
		/* Named and left out, as any key that does not convert (status
		 * 3, the INI runs), with its channel length (bs_conv_drop_latencies). */
		char why[160];
		if (k < 2)
			snprintf(why, sizeof why, "a %s needs k >= 2 routers per dimension, got k = %ld", tp, k);
		else
			snprintf(why, sizeof why, "netloom's %s has 1 to 16 dimensions, got n = %ld", tp, nd);
		bs_warn(warn, path, bf, k < 2 ? "k" : "n", why, unmapped);
	} else if (kncube) {
		int used = snprintf(cv->topo, sizeof cv->topo, "%s:k=", tp);
		for (long d = 0; d < nd; d++)
			used += snprintf(cv->topo + used, sizeof cv->topo - (size_t)used, "%s%ld", d ? "x" : "", k);
		/* KNCube (kncube.cpp) reads k and n only: one node per router
		 * whatever c says. */
		if (c != 1)
			snprintf(cv->topo_note, sizeof cv->topo_note,
				 "; c = %ld is not applied: BookSim's %s (KNCube) ignores c, one node per router\n", c, tp);
	} else if (!strcmp(tp, "fattree")) {
		/* BookSim's k-ary n-tree (fattree.cpp): k^n nodes, n levels, every
		 * channel 1 cycle. */
		snprintf(cv->topo, sizeof cv->topo, "fattree:k=%ld,n=%ld", k, nd);
	} else if (!strcmp(tp, "dragonflynew")) {
		/* dragonfly.cpp: k = p processors per router, n = 1, a = 2p
		 * routers per group, h = p global ports, g = a*h + 1 groups. Its
		 * _BuildNet sets local channels to 10 cycles and global ones to
		 * 100; terminal channels keep BookSim's 1. */
		if (nd != 1)
			bs_warn(warn, path, bf, "n", "BookSim's dragonflynew supports n = 1 only", unmapped);
		snprintf(cv->topo, sizeof cv->topo, "dragonfly:a=%ld,p=%ld,h=%ld", 2 * k, k, k);
		static const char *const df_lat[3][3] = {
			{"terminal_latency", "1", "BookSim's dragonflynew terminal channels are 1 cycle"},
			{"local_latency", "10", "BookSim's dragonflynew local channels are 10 cycles"},
			{"global_latency", "100", "BookSim's dragonflynew global channels are 100 cycles"},
		};
		for (int i = 0; i < 3; i++, cv->n_lat++)
			for (int j = 0; j < 3; j++)
				cv->lat[cv->n_lat][j] = df_lat[i][j];
	} else if (!strcmp(tp, "flatfly")) {
		/* flatfly_onchip.cpp: k routers per dimension, n dimensions, c
		 * terminals per router: a HyperX with S = k in every dimension,
		 * routers numbered as netloom's (dimension 0 fastest). */
		int used = snprintf(cv->topo, sizeof cv->topo, "hyperx:s=");
		for (long d = 0; d < nd; d++)
			used += snprintf(cv->topo + used, sizeof cv->topo - (size_t)used, "%s%ld", d ? "x" : "", k);
		snprintf(cv->topo + used, sizeof cv->topo - (size_t)used, ",t=%ld", c);
		NL_CHECK(bs_flatfly(path, warn, bf, k, nd, c, cv->lat, &cv->n_lat, &cv->map, &cv->n_map, unmapped,
				    err));
	} else if (!strcmp(tp, "anynet")) {
		bs_anynet(path, warn, bf, cv->topo, sizeof cv->topo, unmapped);
	} else if (!strcmp(tp, "fly")) {
		bs_fly(path, warn, bf, k, nd, cv->topo, sizeof cv->topo, unmapped);
	} else if (!strcmp(tp, "cmesh")) {
		bs_cmesh(path, warn, bf, k, nd, c, cv->topo, sizeof cv->topo, &cv->chan, unmapped);
	} else {
		bs_warn(warn, path, bf, "topology", "no netloom equivalent of this BookSim network yet", unmapped);
	}
	return 0;
}

/* More BookSim routing functions than route_booksim_name maps on any one
 * network (flatfly's five). */
#define BS_ROUTES_MAX 16

/* The routing function BookSim has on network tp (one netloom maps) that
 * rf is a typo of ('dim_ordr': dim_order), or NULL. */
static const char *bs_routing_near(const char *tp, const char *rf, long k)
{
	const char *names[BS_ROUTES_MAX], *name;
	size_t n = 0;
	for (size_t i = 0; (name = route_booksim_name(tp, i)) && n < BS_ROUTES_MAX; i++)
		if (!bs_valiant_torus_aborts(tp, name, k))
			names[n++] = name;
	return config_name_near(rf, strlen(rf), names, n);
}

/* BookSim's routing_function on its network as netloom's routing spec,
 * or named with what BookSim does with it. */
static void bs_conv_routing(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped)
{
	const char *tp = cv->tp;
	const char *rf = bs_get(bf, "routing_function");
	const char *r = route_booksim_spec(tp, rf);
	if (!strcmp(rf, "none")) {
		/* BookSim's default: it looks up none_TOPOLOGY, which no
		 * network has. */
		char names[256], why[640];
		bool set = false;
		for (int i = 0; i < bf->n; i++)
			set |= !strcmp(bf->kv[i].key, "routing_function");
		bs_routing_names(tp, cv->k, names, sizeof names);
		snprintf(why, sizeof why,
			 "%s: BookSim stops with 'Invalid routing function: none_%s'; set routing_function to %s%s",
			 set ? "'none' is no BookSim routing function"
			     : "not set, and BookSim's default is 'none', which is no routing function",
			 tp, names[0] ? "one of " : "BookSim's routing function for this network",
			 names);
		bs_warn(warn, path, bf, "routing_function", why, unmapped);
	} else if (bs_valiant_torus_aborts(tp, rf, cv->k))
		bs_warn(warn, path, bf, "routing_function",
			"BookSim's valiant_torus aborts on a torus with k >= 4 (routefunc.cpp:1391: assertion 'ring_part == 1' failed: dor_next_torus leaves ring_part unset on a hop that continues in the same dimension); valiant on a mesh runs",
			unmapped);
	else if (r)
		snprintf(cv->route, sizeof cv->route, "%s", r);
	else if (!strcmp(tp, "cmesh") && (!strcmp(rf, "dor") || !strcmp(rf, "xy_yx")))
		bs_warn(warn, path, bf, "routing_function",
			"BookSim's dor_cmesh and xy_yx_cmesh take the express channels between edge routers, which netloom's cmesh does not build (use dor_no_express or xy_yx_no_express)",
			unmapped);
	else if (!strcmp(tp, "torus") && !strcmp(rf, "dor"))
		bs_warn(warn, path, bf, "routing_function",
			"BookSim exits: 'Invalid routing function: dor_torus' (it has dor_mesh only); dim_order is dimension order on a torus",
			unmapped);
	else {
		/* A typo of a name it maps says which, as a mistyped netloom
		 * choice does. */
		const char *near = bs_routing_near(tp, rf, cv->k);
		char why[160];
		snprintf(why, sizeof why, "no netloom equivalent (see 'netloom run --help')%s%s%s",
			 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		bs_warn(warn, path, bf, "routing_function", why, unmapped);
	}
}

/* BookSim's tornado and neighbor (traffic.cpp) step the n digits of the
 * node id in base xr * k, from their arguments or the config's k, n and
 * xr keys, whatever the network. netloom's step router coordinates on a
 * torus, mesh or cmesh and the endpoint ring elsewhere: the same
 * destinations only on a torus or mesh (one node per router: BookSim's
 * KNCube ignores c) with the network's k and n and xr = 1. netloom's
 * patterns take no k, n or xr of their own. Anything else is named and
 * the pattern left out. */
static void bs_conv_digit_pattern(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv,
				  int *unmapped)
{
	const struct bs_pattern *pat = &cv->pat;
	const char *tp = cv->tp, *traffic = cv->traffic;
	const long k = cv->k, nd = cv->nd, xr = pat->dig[2];
	bool grid = !strcmp(tp, "torus") || !strcmp(tp, "mesh");
	char why[320];
	if (!strcmp(tp, "anynet"))
		snprintf(why, sizeof why, "%s",
			 "BookSim's tornado and neighbor on anynet step digits of the node id in base k (its k and n keys); "
			 "netloom's, on a graph without coordinates, step along the endpoint ring");
	else if (!strcmp(tp, "cmesh"))
		snprintf(why, sizeof why, "%s",
			 "BookSim's tornado and neighbor on the cmesh step k-ary digits of node ids, netloom's step router coordinates: different destinations");
	else if (!grid)
		snprintf(why, sizeof why,
			 "BookSim's tornado and neighbor step %ld digits of the node id in base %ld (n, k and xr) on any network; on its %s that is not netloom's pattern (netloom steps along the endpoint ring there)",
			 pat->dig[1], xr * pat->dig[0], tp);
	else if (pat->dig[0] != k)
		snprintf(why, sizeof why,
			 "its argument '%s' is k = %ld: BookSim steps digits of the node id in base xr * k = %ld, netloom's %s the %s's coordinates in base k = %ld (it takes no k of its own)",
			 pat->dig_arg[0], pat->dig[0], xr * pat->dig[0], traffic, tp, k);
	else if (pat->dig[1] != nd)
		snprintf(why, sizeof why,
			 "its argument '%s' is n = %ld: BookSim steps %ld digits of the node id, netloom's %s all %ld coordinates of the %s (it takes no n of its own)",
			 pat->dig_arg[1], pat->dig[1], pat->dig[1], traffic, nd, tp);
	else if (xr != 1)
		snprintf(why, sizeof why,
			 "%s%s%sBookSim's tornado and neighbor step digits of the node id in base xr * k = %ld, netloom's the %s's coordinates in base k = %ld",
			 pat->dig_arg[2][0] ? "its argument '" : "", pat->dig_arg[2],
			 pat->dig_arg[2][0] ? "' is xr: " : "", xr * k, tp, k);
	if (!grid || pat->dig[0] != k || pat->dig[1] != nd || xr != 1) {
		bs_warn(warn, path, bf, "traffic", why, unmapped);
		cv->traffic[0] = '\0';
	}
}

/* BookSim's traffic value as netloom's pattern (over flatfly's
 * renumbering, when there is one), or why it is not mapped. */
static void bs_conv_traffic(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped)
{
	bs_pattern_read(bf, bs_get(bf, "traffic"), &cv->pat);
	snprintf(cv->traffic_why, sizeof cv->traffic_why, "%s", cv->pat.why);
	cv->traffic_ok = !cv->pat.why[0] && bs_traffic(cv->pat.name, cv->map, cv->n_map, cv->traffic,
						       sizeof cv->traffic, cv->traffic_why, sizeof cv->traffic_why);
	if (cv->traffic_ok && !strcmp(cv->traffic, "randperm") && cv->pat.perm_seed)
		snprintf(cv->traffic, sizeof cv->traffic, "randperm:perm_seed=%ld", cv->pat.perm_seed);
	if (cv->traffic_ok && (!strcmp(cv->traffic, "tornado") || !strcmp(cv->traffic, "neighbor")))
		bs_conv_digit_pattern(path, warn, bf, cv, unmapped);
}

/* Build the network, routing function and pattern decided (bs_check),
 * over BookSim's num_vcs (16, its default, for a count netloom refuses:
 * bs_put names that one). */
static void bs_conv_check(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped)
{
	long n_vcs = strtol(bs_get(bf, "num_vcs"), NULL, 10);
	bs_check(path, warn, bf, cv->topo, cv->route, sizeof cv->route, cv->traffic_ok ? cv->traffic : NULL,
		 n_vcs >= 1 && n_vcs <= 255 ? n_vcs : 16, cv->route_note, sizeof cv->route_note, unmapped);
}

/* Per-link latencies describe the network they came with: a topology
 * left out takes them with it, as it takes its routing function.
 * Written for netloom's default network instead, they made the file
 * one that does not run (a dragonflynew of k = 0: 'local_latency':
 * torus has one class of links, exit 2), where a key left out is
 * status 3. So does a torus's or cmesh's channel length from
 * use_noc_latency (2 cycles): not written (0) for another network. */
static void bs_conv_drop_latencies(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv,
				   int *unmapped)
{
	if (cv->topo[0])
		return;
	for (int i = 0; i < cv->n_lat; i++) {
		char why[320];
		snprintf(why, sizeof why, "%s: left out with the topology", cv->lat[i][2]);
		bs_warn(warn, path, bf, cv->lat[i][0], why, unmapped);
	}
	cv->n_lat = 0;
	if (cv->chan != 1) {
		char why[320];
		snprintf(why, sizeof why, "BookSim's %s channels with use_noc_latency = 1 are %ld cycles "
			 "(channel_latency = %ld): left out with the topology", cv->tp, cv->chan, cv->chan);
		bs_warn(warn, path, bf, "use_noc_latency", why, unmapped);
		cv->chan = 0;
	}
}

/* The INI's opening comment and its [network] section. */
static void bs_write_network(FILE *out, FILE *warn, const char *path, struct bs_file *bf, const struct bs_conv *cv,
			     int *unmapped)
{
	fprintf(out, "; netloom configuration converted from the BookSim2 config %s\n", path);
	fprintf(out, "; by 'netloom config --from-booksim'. BookSim's defaults are written out.\n\n");
	fprintf(out, "[network]\n");
	if (cv->topo[0]) {
		fputs(cv->topo_note, out);
		bs_put(out, warn, path, bf, "topology", cv->topo, NULL, unmapped);
	} else {
		bs_note_left_out(out, bf, "topology", cv->tp, NULL);
	}
	fputs(cv->route_note, out);
	if (cv->route[0])
		bs_put(out, warn, path, bf, "routing_function", cv->route, NULL, unmapped);
	char num[64];
	snprintf(num, sizeof num, "%ld", cv->chan);
	if (cv->chan)
		bs_put(out, warn, path, bf, "channel_latency", num, NULL, unmapped);
	/* Per-link latencies: a netloom without these keys refuses them here
	 * (unknown key), so BookSim's 10/100-cycle links never silently
	 * become 1-cycle ones. */
	for (int i = 0; i < cv->n_lat; i++)
		bs_put(out, warn, path, bf, cv->lat[i][0], cv->lat[i][1], cv->lat[i][2], unmapped);
}

/* [router]: same names, same meaning. */
static void bs_write_router(FILE *out, FILE *warn, const char *path, struct bs_file *bf, int *unmapped)
{
	static const char *const router_keys[] = {
		"num_vcs", "vc_buf_size", "routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_prepare_delay",
		"st_final_delay", "credit_delay", "internal_speedup", "input_speedup", "output_speedup",
		"vc_allocator", "wait_for_tail_credit", "hold_switch_for_packet", NULL};
	fprintf(out, "\n[router]\n");
	for (int i = 0; router_keys[i]; i++) {
		if (!strcmp(router_keys[i], "vc_allocator")) { /* with sw_allocator and alloc_iters */
			bs_allocators(out, warn, path, bf, unmapped);
			continue;
		}
		const char *v = bs_get(bf, router_keys[i]);
		if (bs_alloc_delay_aborts(router_keys[i], v)) {
			char why[320];
			snprintf(why, sizeof why,
				 "BookSim aborts with a delay above 1 (iq_router.cpp:%d: assertion 'time >= 0' failed) as soon "
				 "as two requests reach a router's %s allocator within %s - 1 cycles, at any but the lightest load",
				 router_keys[i][0] == 'v' ? 783 : 1641, router_keys[i][0] == 'v' ? "VC" : "switch",
				 router_keys[i]);
			bs_warn(warn, path, bf, router_keys[i], why, unmapped);
			bs_note_left_out(out, bf, router_keys[i], v, NULL);
			continue;
		}
		/* routing_delay = 0 (lookahead routing) maps as is (issue 11 part 2). */
		bs_put(out, warn, path, bf, router_keys[i], v, NULL, unmapped);
	}
	/* ... with BookSim's timing: a head's route at the next router decided
	 * as it leaves this one (docs/engine.md, "Lookahead routing"). */
	if (strtol(bs_get(bf, "routing_delay"), NULL, 10) == 0)
		bs_put(out, warn, path, bf, "lookahead_decide", "upstream",
		       "routing_delay = 0: BookSim computes the next router's route as a head wins this router's switch",
		       unmapped);
}

/* [traffic]: the pattern decided, the packet size, and the injection
 * rate, which is in flits in netloom. */
static void bs_write_traffic(FILE *out, FILE *warn, const char *path, struct bs_file *bf, const struct bs_conv *cv,
			     int *unmapped)
{
	fprintf(out, "\n[traffic]\n");
	if (cv->traffic[0]) {
		fputs(cv->pat.note, out);
		bs_put(out, warn, path, bf, "traffic", cv->traffic, NULL, unmapped);
	} else if (bs_multi(bf, "traffic")) {
		/* named by bs_vectors */
	} else if (!cv->traffic_ok && cv->traffic_why[0]) {
		bs_warn(warn, path, bf, "traffic", cv->traffic_why, unmapped);
	} else if (!cv->traffic_ok && cv->map_used) {
		bs_warn(warn, path, bf, "traffic",
			"BookSim's flatfly numbers terminals mesh-style (x, xr, yr), netloom's HyperX router by router: only uniform, randperm, hotspot (renumbered) and bitcomp (with x, xr, yr powers of two) keep their meaning",
			unmapped);
	} else if (!cv->traffic_ok) {
		bs_warn(warn, path, bf, "traffic", "no netloom equivalent pattern", unmapped);
	}
	if (!cv->traffic[0])
		bs_note_left_out(out, bf, "traffic", bs_get(bf, "traffic"), NULL);
	double rate;
	const bool rate_ok = bs_number(bs_get(bf, "injection_rate"), &rate);
	const char *ps = bs_get(bf, "packet_size");
	bool ps_mapped = false;
	if (bs_multi(bf, "packet_size")) {
		bs_note_left_out(out, bf, "packet_size", ps, NULL); /* named by bs_vectors */
	} else if (ps[0] == '{') {
		bs_warn(warn, path, bf, "packet_size", "size vectors with rates are not modelled; use lo..hi",
			unmapped);
		bs_note_left_out(out, bf, "packet_size", ps, NULL);
	} else {
		ps_mapped = bs_put(out, warn, path, bf, "packet_size", ps, NULL, unmapped);
	}
	bs_put_rate(out, warn, path, bf, rate_ok, rate, ps, ps_mapped, unmapped);
	if (!bs_multi(bf, "injection_process") && strcmp(bs_get(bf, "injection_process"), "bernoulli"))
		bs_warn(warn, path, bf, "injection_process", "only bernoulli is modelled", unmapped);
}

/* [simulation]: the measurement's keys and the seed. */
static void bs_write_simulation(FILE *out, FILE *warn, const char *path, struct bs_file *bf, int *unmapped)
{
	fprintf(out, "\n[simulation]\n");
	static const char *const sim_keys[] = {"sim_type", "warmup_periods", "sample_period", "max_samples",
					       "latency_thres", "warmup_thres", "acc_warmup_thres", "stopping_thres",
					       "acc_stopping_thres", NULL};
	for (int i = 0; sim_keys[i]; i++)
		if (strstr(sim_keys[i], "_thres"))
			bs_put_thres(out, warn, path, bf, sim_keys[i], unmapped);
		else
			bs_put(out, warn, path, bf, sim_keys[i], bs_get(bf, sim_keys[i]), NULL, unmapped);
	const char *seed = bs_get(bf, "seed");
	if (!strcmp(seed, "time"))
		bs_warn(warn, path, bf, "seed", "'time' seeds are not reproducible; using 0", unmapped);
	else
		bs_put(out, warn, path, bf, "seed", seed, NULL, unmapped);
}

/* The file's value of key, else dflt; unlike bs_get it leaves the key
 * unconsumed, so the sweep still names it. */
static const char *bs_peek(const struct bs_file *bf, const char *key, const char *dflt)
{
	for (int i = 0; i < bf->n; i++)
		if (!strcmp(bf->kv[i].key, key))
			return bf->kv[i].val;
	return dflt;
}

/* Whether key is one that only BookSim's shared buffer policies read. */
static bool bs_is_shared_buffer_key(const char *key)
{
	static const char *const keys[] = {"private_bufs", "private_buf_size", "private_buf_start_vc",
					   "private_buf_end_vc", "max_held_slots", "feedback_aging_scale",
					   "feedback_offset", NULL};
	for (int i = 0; keys[i]; i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/* Everything the file set that nothing above consumed: named, unless it
 * is cosmetic, holds BookSim's default for a key netloom does not model,
 * or is one BookSim itself ignores with these settings. */
static void bs_sweep_leftovers(FILE *warn, const char *path, struct bs_file *bf, int *unmapped)
{
	bool read_write = strtol(bs_get(bf, "use_read_write"), NULL, 10) != 0;
	if (read_write)
		bs_warn(warn, path, bf, "use_read_write", "read/write request-reply traffic is not modelled",
			unmapped);
	for (int i = 0; i < bf->n; i++) {
		struct bs_kv *kv = &bf->kv[i];
		if (kv->used)
			continue;
		bool fine = false;
		for (size_t j = 0; j < sizeof bs_inert / sizeof *bs_inert; j++)
			if (!strcmp(kv->key, bs_inert[j][0]))
				fine = !strcmp(kv->val, bs_inert[j][1]) ||
				       (strtod(kv->val, NULL) == strtod(bs_inert[j][1], NULL) &&
					isdigit((unsigned char)kv->val[0]));
		for (int j = 0; bs_cosmetic[j]; j++)
			if (!strcmp(kv->key, bs_cosmetic[j]))
				fine = true;
		for (int j = 0; bs_unread[j]; j++)
			if (!strcmp(kv->key, bs_unread[j]))
				fine = true;
		if (!strcmp(kv->key, "injection_rate_uses_flits") || !strcmp(kv->key, "use_noc_latency"))
			fine = true;
		/* Packet types' sizes and VC ranges (read_request_size,
		 * write_reply_begin_vc, ...) only apply with use_read_write = 1
		 * (trafficmanager.cpp; routing functions give ANY_TYPE flits
		 * every VC). */
		if ((!strncmp(kv->key, "read_", 5) || !strncmp(kv->key, "write_", 6)) && !read_write)
			fine = true;
		/* perm_seed is read by randperm alone (traffic.cpp,
		 * TrafficPattern::New), which consumes it above. */
		if (!strcmp(kv->key, "perm_seed") && strncmp(bs_get(bf, "traffic"), "randperm", 8))
			fine = true;
		/* batch_size and batch_count only apply with sim_type = batch
		 * (trafficmanager.cpp); cmeshconfig sets batch_size in latency mode. */
		if ((!strcmp(kv->key, "batch_size") || !strcmp(kv->key, "batch_count")) &&
		    strcmp(bs_get(bf, "sim_type"), "batch"))
			fine = true;
		/* burst_* are read by the on_off injection process alone
		 * (injection.cpp), named above. */
		if (!strncmp(kv->key, "burst_", 6) && strncmp(bs_peek(bf, "injection_process", "bernoulli"), "on_off", 6))
			fine = true;
		/* The shared buffer policies alone read these (buffer_state.cpp);
		 * private, the default, does not, and another policy is named. */
		if (bs_is_shared_buffer_key(kv->key) && !strcmp(bs_peek(bf, "buffer_policy", "private"), "private"))
			fine = true;
		const char *near;
		if (!bs_is_key(kv->key, &near)) {
			fprintf(warn, "%s:%d: cannot map '%s = %s': not a BookSim key (BookSim stops on it)%s%s%s\n",
				path, kv->line, kv->key, kv->val, near ? "; did you mean '" : "", near ? near : "",
				near ? "'?" : "");
			(*unmapped)++;
		} else if (!fine) {
			fprintf(warn, "%s:%d: cannot map '%s = %s': not modelled by netloom\n", path, kv->line,
				kv->key, kv->val);
			(*unmapped)++;
		}
	}
}

/* The conversion over a caller-provided bs_file (190 KB: on the heap, not
 * the stack, and not static: the API is reentrant, no mutable globals).
 * Returns how many keys it named, or a negative error. */
static int bs_convert(const char *path, FILE *out, FILE *warn, struct bs_file *bf, struct nl_err *err)
{
	int unmapped = 0;
	struct bs_conv cv = {0};

	NL_CHECK(bs_read(path, bf, err));
	bs_vectors(warn, path, bf, &unmapped);
	NL_CHECK(bs_conv_network(path, warn, bf, &cv, &unmapped, err));
	bs_conv_routing(path, warn, bf, &cv, &unmapped);
	if (strcmp(bs_get(bf, "router"), "iq"))
		bs_warn(warn, path, bf, "router", "netloom models BookSim's iq router only", &unmapped);
	bs_conv_traffic(path, warn, bf, &cv, &unmapped);
	/* The renumbering served the pattern alone. */
	cv.map_used = cv.map != NULL;
	free(cv.map);
	cv.map = NULL;
	bs_conv_check(path, warn, bf, &cv, &unmapped);
	bs_conv_drop_latencies(path, warn, bf, &cv, &unmapped);

	bs_write_network(out, warn, path, bf, &cv, &unmapped);
	bs_write_router(out, warn, path, bf, &unmapped);
	bs_write_traffic(out, warn, path, bf, &cv, &unmapped);
	bs_write_simulation(out, warn, path, bf, &unmapped);
	bs_sweep_leftovers(warn, path, bf, &unmapped);
	return unmapped;
}

int cli_booksim_convert(const char *path, FILE *out, FILE *warn, struct nl_err *err)
{
	struct bs_file *bf = calloc(1, sizeof *bf);
	if (!bf)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	int rc = bs_convert(path, out, warn, bf, err);
	free(bf);
	return rc;
}

bool cli_booksim_syntax(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char line[1024];
	bool seen = false;
	while (!seen && fgets(line, sizeof line, f)) {
		char *p = line, *e = line + strlen(line);
		while (isspace((unsigned char)*p))
			p++;
		char *cmt = strstr(p, "//");
		if (cmt == p || !strncmp(p, "/*", 2)) {
			seen = true; /* an INI comment starts with ';' or '#' */
			break;
		}
		if (cmt)
			e = cmt;
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		seen = e > p && e[-1] == ';' && memchr(p, '=', (size_t)(e - p)) && *p != '[';
	}
	fclose(f);
	return seen;
}
