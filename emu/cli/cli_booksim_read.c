/* BookSim2's configuration syntax, read as BookSim's lexer and parser
 * read it (config.l, config.y): `key = value;` statements, '//' comments,
 * {a,b} lists split as its tokenize_str splits them. What BookSim stops on
 * is refused with file:line, never guessed at; a key holds the file's text
 * (the last setting wins), and bs_get gives BookSim's default without one. */
#include "cli/cli_booksim.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/text.h"

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
bool bs_is_key(const char *key, const char **near)
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
int bs_read(const char *path, struct bs_file *bf, struct nl_err *err)
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
const char *bs_get(struct bs_file *bf, const char *key)
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
int bs_size(const char *path, struct bs_file *bf, const char *key, long *out, struct nl_err *err)
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

void bs_warn(FILE *warn, const char *path, struct bs_file *bf, const char *key, const char *why, int *n)
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

/* A list value split as BookSim splits it (tokenize_str): text that does
 * not start with '{' is one element; otherwise the elements are what lies
 * between the first '{' and each ',' or '}' outside nested braces (empty
 * ones dropped, scanning on past a closing '}', so "{0,5},{1,1}" is 0 and
 * 5). Elements are trimmed and copied into buf (cap bytes), el[] points
 * into it. Returns the count, at most max (-1 past it or past cap). */
int bs_tokenize(const char *v, char *buf, size_t cap, const char **el, int max)
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
 * is its element (packet_size = {4} is 4; packet_size = {{4}} too, and
 * packet_size_rate = {{1}}, BookSim's per-class lists of sizes and of
 * their rates); one of several elements (per-class values, which netloom
 * models only with classes) is named and left out. */
void bs_vectors(FILE *warn, const char *path, struct bs_file *bf, int *unmapped)
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
		 * with packet_size_rate, named where packet_size is written), and
		 * packet_size_rate's a list of their rates (trafficmanager.cpp
		 * reads both as tokenize_str, then tokenize_int per class). */
		bool sizes = !strcmp(kv->key, "packet_size") || !strcmp(kv->key, "packet_size_rate");
		if (n == 1 && sizes && first[0] == '{') {
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
bool bs_multi(const struct bs_file *bf, const char *key)
{
	for (int i = 0; i < bf->n; i++)
		if (!strcmp(bf->kv[i].key, key))
			return bf->kv[i].is_multi;
	return false;
}

bool cli_booksim_syntax(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool seen = false;
	/* Up to a NUL byte, which no text file holds: fgets read /dev/zero's
	 * NULs as empty lines forever (the hint of 'config -c /dev/zero'). */
	while (!seen && (n = text_getline(&line, &cap, f)) >= 0 && !memchr(line, '\0', (size_t)n)) {
		char *p = line, *e = line + n;
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
	free(line);
	fclose(f);
	return seen;
}

