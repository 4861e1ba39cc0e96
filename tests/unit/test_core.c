/* Unit tests: core (errors, parameters, RNG, statistics, config, output, pool). */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/config.h"
#include "core/error.h"
#include "core/ini_lines.h"
#include "core/output.h"
#include "core/param.h"
#include "core/path.h"
#include "core/pool.h"
#include "core/rng.h"
#include "core/stats.h"
#include "core/text.h"
#include "core/thread.h"
#include "test.h"

struct demo {
	int64_t n;
	double x;
	bool flag;
	char name[PARAM_STR_MAX];
	struct param_vec k;
	struct param_vec s;
	int mode;
	char base[PARAM_STR_MAX];
};

static const char *const demo_modes[] = {"wormhole", "vct", NULL};
static const struct param_def demo_defs[] = {
	{"n", PARAM_INT, offsetof(struct demo, n), NULL, 1, 100, "a count", NULL},
	{"x", PARAM_DOUBLE, offsetof(struct demo, x), "0.5", 0, 1, "a rate", NULL},
	{"flag", PARAM_BOOL, offsetof(struct demo, flag), "no", 0, 0, "a switch", NULL},
	{"name", PARAM_STRING, offsetof(struct demo, name), "abc", 0, 0, "a name", NULL},
	{"k", PARAM_DIMS, offsetof(struct demo, k), "4x4", 2, 64, "dims", NULL},
	{"s", PARAM_LIST, offsetof(struct demo, s), "1", -64, 64, "list", NULL},
	{"mode", PARAM_CHOICE, offsetof(struct demo, mode), "vct", 0, 0, "flow control", demo_modes},
	{"base", PARAM_SPEC, offsetof(struct demo, base), "", 0, 0, "nested", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static void test_error_table(void)
{
	struct nl_err e;
	CHECK_STR(nl_err_name(NL_ECONFIG), "NL_ECONFIG");
	/* Success has no NL_ name in netloom.h: it is 0 ("NL_E?" called it
	 * an unknown code); a positive value is one. */
	CHECK_STR(nl_err_name(0), "0");
	CHECK_STR(nl_err_name(1), "NL_E?");
	CHECK_STR(nl_strerror(0), "success");
	CHECK_STR(nl_strerror(NL_ENOMEM), "out of memory");
	CHECK_EQ(nl_errf(&e, NL_ERANGE, "field '%s' is %d", "k", 3), NL_ERANGE);
	CHECK_STR(e.msg, "field 'k' is 3");
	nl_err_prefix(&e, "file.ini:%d", 7);
	CHECK_STR(e.msg, "file.ini:7: field 'k' is 3");
}

/* A message longer than NL_ERR_MSG_MAX loses its middle, not its end:
 * a 700-character path once left "PATH...aaaa" with the reason cut off
 * (`netloom trace info LONG/nonexist.nltr` printed only the path). */
static void test_error_long(void)
{
	struct nl_err e = {0};
	char path[701];
	memset(path, 'p', sizeof path - 1);
	path[sizeof path - 1] = '\0';
	path[0] = '/';
	nl_errf(&e, NL_EIO, "%s: cannot open: %s", path, "No such file or directory");
	size_t len = strlen(e.msg);
	CHECK(len == NL_ERR_MSG_MAX - 1);
	CHECK(strncmp(e.msg, "/ppp", 4) == 0);
	CHECK(strstr(e.msg, "...") != NULL);
	CHECK(len > 40 && !strcmp(e.msg + len - 40, ": cannot open: No such file or directory"));
	/* Prefixing a long location keeps the reason too. */
	nl_errf(&e, NL_ECONFIG, "key 'num_vcs': value 'x': expected an integer");
	nl_err_prefix(&e, "%s:%d", path, 4);
	CHECK(strlen(e.msg) == NL_ERR_MSG_MAX - 1);
	CHECK(strstr(e.msg, "pp:4: key 'num_vcs': value 'x': expected an integer") != NULL);
	/* And appending (a hint) keeps the end, hint included. */
	nl_err_suffix(&e, " (a hint)");
	len = strlen(e.msg);
	CHECK(len == NL_ERR_MSG_MAX - 1 && !strcmp(e.msg + len - 9, " (a hint)"));
	CHECK(strstr(e.msg, "expected an integer (a hint)") != NULL);
	/* Escaping control characters may lengthen a message past the limit. */
	char ctl[NL_ERR_MSG_MAX - 1];
	memset(ctl, '\x01', sizeof ctl - 1);
	ctl[sizeof ctl - 1] = '\0';
	CHECK_EQ(nl_err_one_line(&e, nl_errf(&e, NL_ECONFIG, "%s: the end", ctl)), NL_ECONFIG);
	len = strlen(e.msg);
	CHECK(len == NL_ERR_MSG_MAX - 1 && !strcmp(e.msg + len - 9, ": the end"));
	CHECK(strncmp(e.msg, "\\x01\\x01", 8) == 0);
}

/* The columns a table pads to (text_width): code points, East Asian wide
 * ones 2, combining marks 0, a byte that is not UTF-8 1; not bytes. */
/* text_getline ends a line at '\n' or after a NUL byte, so a reader's
 * NUL check comes at the first one (/dev/zero was read whole). */
static void test_text_getline(void)
{
	static const char text[] = "ab\0cd\nef\n\0\0gh";
	FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
	CHECK(f != NULL);
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	static const struct {
		ssize_t n;
		const char *bytes;
	} want[] = {{3, "ab\0"}, {3, "cd\n"}, {3, "ef\n"}, {1, "\0"}, {1, "\0"}, {2, "gh"}, {-1, ""}};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		ssize_t n = text_getline(&line, &cap, f);
		CHECK_EQ(n, want[i].n);
		if (n > 0) {
			CHECK(memcmp(line, want[i].bytes, (size_t)n) == 0);
			CHECK_EQ(line[n], '\0');
		}
	}
	free(line);
	fclose(f);
}

static void test_text_width(void)
{
	CHECK_EQ(text_width(""), 0);
	CHECK_EQ(text_width("job"), 3);
	CHECK_EQ(text_width("lammps_\xc3\xa9"), 8);                     /* lammps_é */
	CHECK_EQ(text_width("\xe3\x82\xb8\xe3\x83\xa7\xe3\x83\x96"), 6); /* ジョブ */
	CHECK_EQ(text_width("e\xcc\x81"), 1);                           /* e + U+0301 */
	CHECK_EQ(text_width("\xef\xbc\xa1"), 2);                        /* U+FF21, fullwidth A */
	CHECK_EQ(text_width("\xf0\x9f\x98\x80"), 2);                    /* U+1F600 */
	CHECK_EQ(text_width("a\xff" "b\xe3\x82"), 5);                   /* a byte each: bad, cut */
}

/* A config value or key of raw bytes (a Latin-1 file, a cut sequence)
 * was echoed into the one-line error as is: invalid UTF-8 on the
 * terminal, and in JSON that jansson refuses. Each byte that starts no
 * valid sequence is escaped, as control characters are (C1 ones too);
 * valid UTF-8 stays. */
static void test_error_one_line_utf8(void)
{
	struct nl_err e = {0};
	nl_errf(&e, NL_ECONFIG, "f.ini:2: key 'num_vcs': value '%s': expected an integer", "\xff\xfe\x01x");
	CHECK_EQ(nl_err_one_line(&e, e.code), NL_ECONFIG);
	CHECK_STR(e.msg, "f.ini:2: key 'num_vcs': value '\\xff\\xfe\\x01x': expected an integer");
	nl_errf(&e, NL_ECONFIG, "unknown section [r\xc3t\xe9] at caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	nl_err_one_line(&e, e.code);
	CHECK_STR(e.msg, "unknown section [r\\xc3t\\xe9] at caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* Overlong, surrogate, C1 (CSI), cut at the end. */
	nl_errf(&e, NL_ECONFIG, "'\xc0\xaf' '\xed\xa0\x80' '\xc2\x9b" "2J' '\xc2\xa0' end \xe2\x82");
	nl_err_one_line(&e, e.code);
	CHECK_STR(e.msg, "'\\xc0\\xaf' '\\xed\\xa0\\x80' '\\xc2\\x9b2J' '\xc2\xa0' end \\xe2\\x82");
}

/* nl_str_one_line: the escaping of nl_err_one_line for a line longer than
 * an nl_err holds (the C client's error lines), cut at a whole piece; a
 * backslash written \\, so that a name holding a backslash and an n
 * reads apart from one holding a newline (both were "a\nb"). */
static void test_str_one_line(void)
{
	char big[3 * NL_ERR_MSG_MAX], out[4 * NL_ERR_MSG_MAX], small[6];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	CHECK(nl_str_one_line(out, sizeof out, big) == sizeof big - 1);
	CHECK(strcmp(out, big) == 0);
	CHECK(nl_str_one_line(out, sizeof out, "a\rb\xff\xc3\xa9") == 10);
	CHECK_STR(out, "a\\rb\\xff\xc3\xa9");
	/* "ab\\t" and its NUL fit in 6 bytes, "\\n" after them does not: cut before it. */
	CHECK(nl_str_one_line(small, sizeof small, "ab\t\nc") == 4);
	CHECK_STR(small, "ab\\t");
	CHECK(nl_str_one_line(out, sizeof out, "a\nb") == 4);
	CHECK_STR(out, "a\\nb");
	CHECK(nl_str_one_line(out, sizeof out, "a\\nb") == 5);
	CHECK_STR(out, "a\\\\nb");
	CHECK(nl_str_one_line(out, sizeof out, "C:\\x\\\\\x01") == 13);
	CHECK_STR(out, "C:\\\\x\\\\\\\\\\x01");
	/* A backslash is a whole piece: "ab" and "\\" fit 5 bytes, not the
	 * backslash's half of it in 4. */
	CHECK(nl_str_one_line(small, 4, "ab\\c") == 2);
	CHECK_STR(small, "ab");
	CHECK(nl_str_one_line(small, 5, "ab\\c") == 4);
	CHECK_STR(small, "ab\\\\");
	/* nl_err_one_line keeps a backslash: a message made one line twice
	 * (the session API, then the command's report) stays the same. */
	struct nl_err e = {0};
	nl_errf(&e, NL_ECONFIG, "path 'a\\nb\nc'");
	nl_err_one_line(&e, e.code);
	CHECK_STR(e.msg, "path 'a\\nb\\nc'");
	nl_err_one_line(&e, e.code);
	CHECK_STR(e.msg, "path 'a\\nb\\nc'");
}

static void test_param_parse(void)
{
	struct demo d;
	struct nl_err e = {0};
	char name[32];
	const char *tail = param_split_name("demo:n=3,x=0.25,flag=on,k=8x8x4,s=-1/1/3/9,mode=wormhole", "demo",
					    name, sizeof name, &e);
	CHECK(tail != NULL);
	CHECK_STR(name, "demo");
	CHECK_OK(param_parse(demo_defs, &d, tail, "demo", &e), &e);
	CHECK_EQ(d.n, 3);
	CHECK_NEAR(d.x, 0.25, 0);
	CHECK(d.flag);
	CHECK_STR(d.name, "abc");
	CHECK_EQ(d.k.n, 3);
	CHECK_EQ(d.k.v[2], 4);
	CHECK_EQ(d.s.n, 4);
	CHECK_EQ(d.s.v[0], -1);
	CHECK_EQ(d.s.v[3], 9);
	CHECK_EQ(d.mode, 0);

	char buf[512];
	param_format_all(demo_defs, &d, buf, sizeof buf);
	CHECK_STR(buf, "n=3,x=0.25,flag=1,name=abc,k=8x8x4,s=-1/1/3/9,mode=wormhole,base=");

	/* The shortest decimal that reads back: a subnormal has fewer digits
	 * than %.6g prints (1e-320 was '9.99989e-321'); others keep %g's form
	 * from 6 digits ('100000', not '1e+05'). */
	static const struct {
		double x;
		const char *text;
	} shortest[] = {{1e-320, "1e-320"}, {5e-324, "5e-324"}, {1.2345e-315, "1.2345e-315"}, {0.1, "0.1"},
			{100000, "100000"}, {0.30000000000000004, "0.30000000000000004"}, {2.5e-308, "2.5e-308"}};
	for (size_t i = 0; i < sizeof shortest / sizeof shortest[0]; i++) {
		d.x = shortest[i].x;
		param_format(&demo_defs[1], &d, buf, sizeof buf);
		CHECK_STR(buf, shortest[i].text);
	}
}

static void test_param_nested(void)
{
	struct demo d;
	struct nl_err e = {0};
	char name[32];
	const char *tail = param_split_name("p2(torus:k=64x64,p=2):n=20", "topology", name, sizeof name, &e);
	CHECK_STR(name, "p2");
	CHECK_OK(param_parse(demo_defs, &d, tail, "p2", &e), &e);
	CHECK_STR(d.base, "torus:k=64x64,p=2");
	CHECK_EQ(d.n, 20);
	CHECK_ERR(param_parse(demo_defs, &d, "(torus:k=4:n=2", "p2", &e), NL_EFORMAT, &e, "unbalanced");
}

static void test_param_errors(void)
{
	struct demo d;
	struct nl_err e = {0};
	CHECK_ERR(param_parse(demo_defs, &d, ":x=0.1", "topology 'demo'", &e), NL_EINVAL, &e,
		  "required parameter 'n' missing");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=101", "topology 'demo'", &e), NL_ERANGE, &e,
		  "parameter 'n' value '101' out of range");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,k=8x1", "t", &e), NL_ERANGE, &e, "each element");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,zz=3", "t", &e), NL_EINVAL, &e,
		  "unknown parameter 'zz' (valid: n, x,");
	/* A paper's upper-case symbol or a typo is named, as a family's is
	 * ('Torus': did you mean 'torus'?). */
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,K=8x8", "t", &e), NL_EINVAL, &e,
		  "t: unknown parameter 'K' (did you mean 'k'? valid: n, x, flag,");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,mdoe=vct", "t", &e), NL_EINVAL, &e,
		  "unknown parameter 'mdoe' (did you mean 'mode'? valid: n,");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,n=2", "t", &e), NL_EINVAL, &e, "given twice");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=abc", "t", &e), NL_EFORMAT, &e, "expected an integer");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,x=1e", "t", &e), NL_EFORMAT, &e, "expected a number");
	/* The list example names no negative: hotspot's nodes=a said "like -1/1/3/9" and then refused -1. */
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,s=a", "t", &e), NL_EFORMAT, &e,
		  "value 'a': expected integers separated by '/', like 0/3/9");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,mode=x", "t", &e), NL_EINVAL, &e,
		  "expected one of wormhole, vct");
	CHECK(!strstr(e.msg, "did you mean"));
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,mode=VCT", "t", &e), NL_EINVAL, &e,
		  "value 'VCT': expected one of wormhole, vct (did you mean 'vct'?)");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,", "t", &e), NL_EFORMAT, &e, "trailing ','");
	CHECK_ERR(param_parse(demo_defs, &d, ":n", "t", &e), NL_EFORMAT, &e, "expected key=value");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,k=8xx8", "t", &e), NL_EFORMAT, &e, "dimensions");
	CHECK_ERR(param_parse(demo_defs, &d, "n=1", "t", &e), NL_EFORMAT, &e, "expected ':'");
}

/* A list written with the paper's commas ('equality:...,sa=-1,1,3,9')
 * or 'torus:k=8,8' is cut at the first ',', and was refused as "expected
 * key=value, got '1'": say which separator the list takes, and the value
 * written with it. */
static void test_param_list_commas(void)
{
	struct demo d;
	struct nl_err e = {0};
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,k=8,8,4", "t", &e), NL_EFORMAT, &e,
		  "t: expected key=value, got '8' (parameters are split at ','; the values of 'k' are joined by 'x': "
		  "k=8x8x4)");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,s=-1,1,3,mode=vct", "t", &e), NL_EFORMAT, &e,
		  "got '1' (parameters are split at ','; the values of 's' are joined by '/': s=-1/1/3)");
	/* Partly joined already ('sa=-1/1,3,9'), either side of the ','. */
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,s=-1/1,3,9", "t", &e), NL_EFORMAT, &e,
		  "got '3' (parameters are split at ','; the values of 's' are joined by '/': s=-1/1/3/9)");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,k=8,8x2", "t", &e), NL_EFORMAT, &e,
		  "got '8x2' (parameters are split at ','; the values of 'k' are joined by 'x': k=8x8x2)");
	/* After a single number or a word: no list to join. */
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,2", "t", &e), NL_EFORMAT, &e, "t: expected key=value, got '2'");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,k=8,x", "t", &e), NL_EFORMAT, &e, "t: expected key=value, got 'x'");
}

/* param_strtod: a decimal number, no blank before it and no C99
 * hexadecimal float (a workload's start_s = 0x1p-3 was 0.125 s). */
static void test_param_strtod(void)
{
	static const char *const refused[] = {"0x1p-3", "-0X1P-3", "+0x10", " 0.5", "\t1", ""};
	char *end;
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		(void)param_strtod(refused[i], &end);
		CHECK(end == refused[i]);
	}
	CHECK(param_strtod("0.125", &end) == 0.125 && *end == '\0');
	CHECK(param_strtod("-1e3:", &end) == -1e3 && *end == ':');
	CHECK(param_strtod("0", &end) == 0 && *end == '\0');
	/* '-0' is 0 ('injection_rate = -0' was printed -0.0000 and -0.0). */
	CHECK(!signbit(param_strtod("-0", &end)) && *end == '\0');
	CHECK(!signbit(param_strtod("-0.0e5", &end)) && *end == '\0');
}

/* A string with choices is one of them, kept as text (layout_preset and
 * layout_pack, which took any text when read); "" is its unset default. */
struct named {
	char s[PARAM_STR_MAX];
};

static const char *const named_names[] = {"flex", "besta", NULL};
static const struct param_def named_defs[] = {
	{"s", PARAM_STRING, offsetof(struct named, s), "", 0, 0, "a name", named_names},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static void test_param_named(void)
{
	struct named v;
	struct nl_err e = {0};
	CHECK_OK(param_parse(named_defs, &v, "", "t", &e), &e);
	CHECK_STR(v.s, "");
	CHECK_OK(param_parse(named_defs, &v, ":s=besta", "t", &e), &e);
	CHECK_STR(v.s, "besta");
	CHECK_ERR(param_parse(named_defs, &v, ":s=bogus", "t", &e), NL_EINVAL, &e,
		  "t: parameter 's' value 'bogus': expected one of flex, besta");
	CHECK(!strstr(e.msg, "did you mean"));
	/* A typo of a choice names it, as a mistyped parameter does. */
	CHECK_ERR(param_parse(named_defs, &v, ":s=bsta", "t", &e), NL_EINVAL, &e,
		  "t: parameter 's' value 'bsta': expected one of flex, besta (did you mean 'besta'?)");
}

/* Integer bounds past 2^53 compare as integers: (double)x rounded
 * 9007199254740993 down to a max of 2^53 (placement_seed) and
 * 9200000000000000512 to 9.2e18 (layout_seed), so both were accepted. */
struct big {
	int64_t seed, wide;
	struct param_range r;
	struct param_vec v;
};

static const struct param_def big_defs[] = {
	{"seed", PARAM_INT, offsetof(struct big, seed), "0", 0, 9007199254740992.0, "2^53", NULL},
	{"wide", PARAM_INT, offsetof(struct big, wide), "0", -9.2e18, 9.2e18, "9.2e18", NULL},
	{"r", PARAM_RANGE, offsetof(struct big, r), "0", -9007199254740992.0, 9007199254740992.0, "range", NULL},
	{"v", PARAM_LIST, offsetof(struct big, v), "0", 0, 9007199254740992.0, "list", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

/* A decimal past the doubles is out of range, not "not a number"
 * ('p2(torus:k=4x4):frac=1e400' said "expected a number"): the range of a
 * bounded parameter, the largest double of an unbounded one. */
static void test_param_huge_numbers(void)
{
	static const struct param_def free_defs[] = {
		{"y", PARAM_DOUBLE, 0, "0", 0, 0, "unbounded", NULL},
		{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
	};
	struct demo d;
	double y;
	struct nl_err e = {0};
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,x=1e400", "t", &e), NL_ERANGE, &e,
		  "t: parameter 'x' value '1e400' out of range: expected a value in 0..1");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,x=-1e400", "t", &e), NL_ERANGE, &e,
		  "parameter 'x' value '-1e400' out of range: expected a value in 0..1");
	CHECK_ERR(param_parse(free_defs, &y, ":y=2e308", "t", &e), NL_ERANGE, &e,
		  "t: parameter 'y' value '2e308': too large to represent; expected a magnitude of at most 1.8e308");
	CHECK_OK(param_parse(free_defs, &y, ":y=1.7e308", "t", &e), &e);
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,x=1e400x", "t", &e), NL_EFORMAT, &e, "expected a number");
}

static void test_param_big_bounds(void)
{
	struct big b;
	struct nl_err e = {0};
	CHECK_OK(param_parse(big_defs, &b, ":seed=9007199254740992,wide=9200000000000000000", "t", &e), &e);
	CHECK_EQ(b.seed, INT64_C(9007199254740992));
	CHECK_EQ(b.wide, INT64_C(9200000000000000000));
	CHECK_OK(param_parse(big_defs, &b, ":wide=-9200000000000000000,r=-9007199254740992..9007199254740992", "t",
			     &e), &e);
	CHECK_ERR(param_parse(big_defs, &b, ":seed=9007199254740993", "t", &e), NL_ERANGE, &e,
		  "value '9007199254740993' out of range: expected a value in 0..9007199254740992");
	CHECK_ERR(param_parse(big_defs, &b, ":wide=9200000000000000512", "t", &e), NL_ERANGE, &e,
		  "value '9200000000000000512' out of range");
	CHECK_ERR(param_parse(big_defs, &b, ":wide=-9200000000000000512", "t", &e), NL_ERANGE, &e,
		  "value '-9200000000000000512' out of range");
	CHECK_ERR(param_parse(big_defs, &b, ":r=0..9007199254740993", "t", &e), NL_ERANGE, &e,
		  "value '0..9007199254740993' out of range");
	CHECK_ERR(param_parse(big_defs, &b, ":r=-9007199254740993..0", "t", &e), NL_ERANGE, &e,
		  "value '-9007199254740993..0' out of range");
	CHECK_ERR(param_parse(big_defs, &b, ":v=1/9007199254740993", "t", &e), NL_ERANGE, &e,
		  "value '1/9007199254740993' out of range");
}

/* A blank around a value or key is refused, before it as after it:
 * strtoll and strtod skip leading blanks, so 'ugal:threshold= 5' ran with
 * 5 while 'threshold=5 ' was refused (integers, numbers, dimensions,
 * lists and ranges alike). Hexadecimal stays (docs/configuration.md). */
static void test_param_blanks(void)
{
	static const char *const bad[][2] = {
		{":n= 5", "parameter 'n' value ' 5': expected '5' (no blanks around a parameter's name or value)"},
		{":n=5 ", "parameter 'n' value '5 ': expected '5' (no blanks"},
		{":n=\t5", "parameter 'n' value '\t5': expected '5' (no blanks"},
		{":n= -5", "parameter 'n' value ' -5': expected '-5' (no blanks"},
		{":n=1,x= 0.25", "parameter 'x' value ' 0.25': expected '0.25' (no blanks"},
		{":n=1,x=0.25 ", "parameter 'x' value '0.25 ': expected '0.25' (no blanks"},
		/* C99's hexadecimal floats: x=0x1p-2 was 0.25. */
		{":n=1,x=0x1p-2", "parameter 'x' value '0x1p-2': expected a number"},
		{":n=1,x=-0X1", "parameter 'x' value '-0X1': expected a number"},
		{":n=1,k=8x 8", "parameter 'k' value '8x 8': expected dimensions"},
		{":n=1,k= 8x8", "parameter 'k' value ' 8x8': expected '8x8' (no blanks"},
		{":n=1,s=-1/ 3", "parameter 's' value '-1/ 3': expected integers"},
		{":n=1,mode= vct", "parameter 'mode' value ' vct': expected 'vct' (no blanks"},
		/* 'torus:k=4x4, p=2' said "unknown parameter ' p' (valid: k,
		 * n, p)", as if p were not among them: the blank is named. */
		{":n=1, x=0.25", "unknown parameter ' x': expected 'x' (no blanks around a parameter's name or value)"},
		{":n=1,x =0.25", "unknown parameter 'x ': expected 'x' (no blanks"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct demo d;
		struct nl_err e = {0};
		CHECK(param_parse(demo_defs, &d, bad[i][0], "t", &e) < 0);
		if (!strstr(e.msg, bad[i][1]))
			TEST_FAIL_("%s: message \"%s\" lacks \"%s\"", bad[i][0], e.msg, bad[i][1]);
	}
	struct big b;
	struct nl_err e = {0};
	CHECK_ERR(param_parse(big_defs, &b, ":r= 1..2", "t", &e), NL_EFORMAT, &e, "value ' 1..2'");
	CHECK_ERR(param_parse(big_defs, &b, ":r=1.. 2", "t", &e), NL_EFORMAT, &e, "value '1.. 2'");
	struct demo d;
	/* A name without choices keeps its text, blanks and all. */
	CHECK_OK(param_parse(demo_defs, &d, ":n=1,name=a b ", "t", &e), &e);
	CHECK_STR(d.name, "a b ");
	CHECK_OK(param_parse(demo_defs, &d, ":n=0x1f", "t", &e), &e);
	CHECK_EQ(d.n, 31);
	CHECK_OK(param_parse(demo_defs, &d, ":n=+5,x=0.75", "t", &e), &e);
	CHECK_EQ(d.n, 5);
}

/* A 0x integer past 64 bits is out of range as a decimal one is, not
 * "expected an integer" ('seed = 0x8000000000000000'), in a single number,
 * a list element and a range; a range of digits past 64 bits is out of
 * range, not "expected value or range", and an empty range says what is
 * expected. */
static void test_param_integer_overflow(void)
{
	static const struct param_def open_defs[] = {
		{"i", PARAM_INT, 0, "0", 0, 0, "unbounded", NULL},
		{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
	};
	struct demo d;
	struct big b;
	int64_t i;
	struct nl_err e = {0};
	CHECK_ERR(param_parse(open_defs, &i, ":i=0x8000000000000000", "t", &e), NL_ERANGE, &e,
		  "t: parameter 'i' value '0x8000000000000000' out of range: expected an integer in "
		  "-9223372036854775808..9223372036854775807");
	CHECK_ERR(param_parse(open_defs, &i, ":i=-0X8000000000000001", "t", &e), NL_ERANGE, &e,
		  "value '-0X8000000000000001' out of range");
	CHECK_OK(param_parse(open_defs, &i, ":i=-0x8000000000000000", "t", &e), &e);
	CHECK_EQ(i, INT64_MIN);
	CHECK_ERR(param_parse(demo_defs, &d, ":n=0xfffffffffffffffff", "t", &e), NL_ERANGE, &e,
		  "t: parameter 'n' value '0xfffffffffffffffff' out of range: expected a value in 1..100");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,s=1/0x10000000000000000", "t", &e), NL_ERANGE, &e,
		  "expected each element in -64..64, got '0x10000000000000000'");
	/* Not an integer: still a format error. */
	CHECK_ERR(param_parse(demo_defs, &d, ":n=0x", "t", &e), NL_EFORMAT, &e, "value '0x': expected an integer");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=0x1g", "t", &e), NL_EFORMAT, &e, "value '0x1g': expected an integer");
	CHECK_ERR(param_parse(big_defs, &b, ":r=99999999999999999999", "t", &e), NL_ERANGE, &e,
		  "t: parameter 'r' value '99999999999999999999' out of range: expected values in "
		  "-9007199254740992..9007199254740992");
	CHECK_ERR(param_parse(big_defs, &b, ":r=1..0x10000000000000000", "t", &e), NL_ERANGE, &e,
		  "value '1..0x10000000000000000' out of range");
	CHECK_ERR(param_parse(big_defs, &b, ":r=1..x9", "t", &e), NL_EFORMAT, &e, "value '1..x9': expected");
	CHECK_ERR(param_parse(big_defs, &b, ":r=99999999999999999999..x", "t", &e), NL_EFORMAT, &e,
		  "value '99999999999999999999..x': expected");
	CHECK_ERR(param_parse(big_defs, &b, ":r=8..2", "t", &e), NL_ERANGE, &e,
		  "t: parameter 'r' value '8..2': range is empty (lo > hi); expected lo..hi with lo <= hi");
}

/* An empty value says what a value is, as every other refusal does (it
 * said "has an empty value" and no more). */
static void test_param_empty_expected(void)
{
	struct demo d;
	struct big b;
	struct nl_err e = {0};
	CHECK_ERR(param_parse(demo_defs, &d, ":n=", "t", &e), NL_EFORMAT, &e,
		  "t: parameter 'n' has an empty value; expected an integer in 1..100");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,x=", "t", &e), NL_EFORMAT, &e,
		  "parameter 'x' has an empty value; expected a number in 0..1");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,flag=", "t", &e), NL_EFORMAT, &e,
		  "parameter 'flag' has an empty value; expected 0/1, true/false, yes/no or on/off");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,k=", "t", &e), NL_EFORMAT, &e,
		  "parameter 'k' has an empty value; expected dimensions like 8x8x4");
	char many[200] = ":n=1,s=0";
	for (int i = 1; i <= PARAM_VEC_MAX; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "/%d", i % 64);
	CHECK_ERR(param_parse(demo_defs, &d, many, "t", &e), NL_ERANGE, &e,
		  "': expected at most 16 elements");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,mode=", "t", &e), NL_EFORMAT, &e,
		  "parameter 'mode' has an empty value; expected one of wormhole, vct");
	CHECK_ERR(param_parse(big_defs, &b, ":r=", "t", &e), NL_EFORMAT, &e,
		  "parameter 'r' has an empty value; expected an integer or a range lo..hi in "
		  "-9007199254740992..9007199254740992");
}

/* A list or dimensions element of more digits than 64 bits hold is out of
 * range, as a single number is, not "expected integers separated by '/'";
 * an element out of range is named when the value has more than one. */
static void test_param_vec_element_range(void)
{
	static const struct param_def open_defs[] = {
		{"v", PARAM_LIST, offsetof(struct big, v), "0", 0, 0, "unbounded list", NULL},
		{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
	};
	struct demo d;
	struct big b;
	struct nl_err e = {0};
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,s=123456789012345678901234567890", "t", &e), NL_ERANGE, &e,
		  "parameter 's' value '123456789012345678901234567890' out of range: expected each element in -64..64");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,s=-1/1/123456789012345678901234567890", "t", &e), NL_ERANGE, &e,
		  "parameter 's' value '-1/1/123456789012345678901234567890' out of range: expected each element in "
		  "-64..64, got '123456789012345678901234567890'");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,s=-99999999999999999999/1", "t", &e), NL_ERANGE, &e,
		  "expected each element in -64..64, got '-99999999999999999999'");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,k=8x1", "t", &e), NL_ERANGE, &e,
		  "value '8x1' out of range: expected each element in 2..64, got '1'");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,k=8x99999999999999999999", "t", &e), NL_ERANGE, &e,
		  "expected each element in 2..64, got '99999999999999999999'");
	CHECK_ERR(param_parse(open_defs, &b, ":v=1/99999999999999999999", "t", &e), NL_ERANGE, &e,
		  "expected each element in -9223372036854775808..9223372036854775807, got '99999999999999999999'");
	/* Not digits: still a format error. */
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,s=1/1a", "t", &e), NL_EFORMAT, &e,
		  "expected integers separated by '/'");
	CHECK_ERR(param_parse(demo_defs, &d, ":n=1,s=1/-", "t", &e), NL_EFORMAT, &e,
		  "expected integers separated by '/'");
}

static void test_rng_determinism(void)
{
	struct rng a, b, c;
	rng_init(&a, 42, RNG_CLASS_ROUTER, 7);
	rng_init(&b, 42, RNG_CLASS_ROUTER, 7);
	rng_init(&c, 42, RNG_CLASS_ROUTER, 8);
	int same_c = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = rng_u64(&a), y = rng_u64(&b), z = rng_u64(&c);
		CHECK_UINT(x, ==, y);
		same_c += x == z;
	}
	CHECK_EQ(same_c, 0);
	/* Stateless access agrees with the stream. */
	rng_init(&a, 42, RNG_CLASS_ROUTER, 7);
	uint64_t first = rng_u64(&a);
	CHECK_UINT(rng_at(a.key, 0), ==, first);
}

static void test_rng_distribution(void)
{
	struct rng r;
	rng_init(&r, 1, RNG_CLASS_TRAFFIC, 0);
	/* Uniform mean and a chi-square-like bucket balance. */
	uint64_t buckets[10] = {0};
	double sum = 0;
	const int n = 200000;
	for (int i = 0; i < n; i++) {
		double u = rng_uniform(&r);
		CHECK(u >= 0 && u < 1);
		sum += u;
		buckets[rng_below(&r, 10)]++;
	}
	CHECK_NEAR(sum / n, 0.5, 0.005);
	for (int i = 0; i < 10; i++)
		CHECK_NEAR((double)buckets[i], n / 10.0, n / 10.0 * 0.03);
	/* Geometric gaps have mean (1-p)/p. */
	double p = 0.05, g = 0;
	for (int i = 0; i < n; i++)
		g += (double)rng_geometric(&r, p);
	CHECK_NEAR(g / n, (1 - p) / p, 0.3);
	CHECK_UINT(rng_geometric(&r, 1.0), ==, 0);
	/* With log1p(-p) given once (the endpoints' injection gaps), the same
	 * draws bit for bit, at every rate. */
	static const double ps[] = {1e-9, 0.001, 0.05, 0.3, 0.5, 0.7, 0.999999};
	for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
		struct rng x, y;
		rng_init(&x, 9, RNG_CLASS_ROUTER, (uint64_t)k);
		rng_init(&y, 9, RNG_CLASS_ROUTER, (uint64_t)k);
		double l = log1p(-ps[k]);
		int same = 1;
		for (int i = 0; i < 20000; i++)
			same &= rng_geometric(&x, ps[k]) == rng_geometric_l(&y, ps[k], l);
		CHECK(same);
	}
}

static void test_stats_hist(void)
{
	struct stats_hist h;
	CHECK_OK(stats_hist_init(&h), &(struct nl_err){0});
	for (uint64_t v = 1; v <= 100; v++)
		stats_hist_add(&h, v);
	CHECK_UINT(stats_hist_percentile(&h, 50), ==, 50);
	CHECK_UINT(stats_hist_percentile(&h, 99), ==, 99);
	CHECK_UINT(stats_hist_percentile(&h, 100), ==, 100);
	CHECK_NEAR(stats_hist_mean(&h), 50.5, 1e-12);
	stats_hist_add(&h, 1000000);
	CHECK_UINT(h.max, ==, 1000000);
	uint64_t p100 = stats_hist_percentile(&h, 100);
	CHECK_UINT(p100, ==, 1000000);
	/* Large values land within 1/256 relative error. */
	stats_hist_reset(&h);
	stats_hist_add(&h, 123456789);
	stats_hist_add(&h, 123456789);
	uint64_t p50 = stats_hist_percentile(&h, 50);
	CHECK_NEAR((double)p50, 123456789.0, 123456789.0 / 256);
	stats_hist_release(&h);

	struct stats_acc a;
	stats_acc_init(&a);
	stats_acc_add(&a, 2);
	stats_acc_add(&a, 4);
	CHECK_NEAR(stats_acc_mean(&a), 3, 0);
	CHECK_NEAR(stats_acc_stddev(&a), 1.41421356, 1e-6);
}

/* Student's t: the table (df <= 30) and the expansion beyond agree with
 * published values (t(0.975, 40) = 2.021075, 60: 2.000298, 120: 1.979930)
 * and tend to the normal 1.96. */
static void test_stats_t95(void)
{
	CHECK_NEAR(stats_t95(1), 12.706205, 1e-6);
	CHECK_NEAR(stats_t95(2), 4.302653, 1e-6);
	CHECK_NEAR(stats_t95(30), 2.042272, 1e-6);
	CHECK_NEAR(stats_t95(31), 2.039513, 2e-5);
	CHECK_NEAR(stats_t95(40), 2.021075, 1e-5);
	CHECK_NEAR(stats_t95(60), 2.000298, 1e-5);
	CHECK_NEAR(stats_t95(120), 1.979930, 1e-5);
	CHECK_NEAR(stats_t95(1000000), 1.959964, 1e-5);
	for (uint32_t df = 1; df < 200; df++)
		CHECK(stats_t95(df + 1) < stats_t95(df));
}

struct demo_cfg {
	int64_t num_vcs;
	double injection_rate;
	char topology[PARAM_STR_MAX];
};
static const struct param_def demo_cfg_keys[] = {
	{"num_vcs", PARAM_INT, offsetof(struct demo_cfg, num_vcs), "2", 1, 64, "VCs per port", NULL},
	{"injection_rate", PARAM_DOUBLE, offsetof(struct demo_cfg, injection_rate), "0.1", 0, 1, "rate", NULL},
	{"topology", PARAM_STRING, offsetof(struct demo_cfg, topology), "torus:k=8x8", 0, 0, "topology", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};
static const struct config_table demo_table = {"network", "demo", demo_cfg_keys, sizeof(struct demo_cfg)};
static const struct config_table *const demo_tables[] = {&demo_table};

/* The file keys come from the tables (PARAM_PATH), set ones only, in
 * table order; a walk stops at the first non-zero return. */
struct demo_files {
	int64_t n;
	char map[PARAM_STR_MAX], calib[PARAM_STR_MAX], name[PARAM_STR_MAX];
};
static const struct param_def demo_file_keys[] = {
	{"placement_map", PARAM_PATH, offsetof(struct demo_files, map), "", 0, 0, "a map", NULL},
	{"n", PARAM_INT, offsetof(struct demo_files, n), "1", 0, 9, "n", NULL},
	{"label", PARAM_STRING, offsetof(struct demo_files, name), "", 0, 0, "not a file", NULL},
	{"calibration", PARAM_PATH, offsetof(struct demo_files, calib), "", 0, 0, "a file", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};
static const struct config_table demo_file_table = {"app", "demo", demo_file_keys, sizeof(struct demo_files)};

static int demo_path_seen(void *ctx, const char *key, const char *value)
{
	char *seen = ctx;
	size_t len = strlen(seen);
	snprintf(seen + len, 256 - len, "%s=%s;", key, value);
	return strcmp(key, "calibration") ? 0 : 7;
}

static void test_config_path_keys(void)
{
	const struct config_table *const tables[] = {&demo_table, &demo_file_table};
	struct config c;
	struct nl_err e = {0};
	char seen[256] = "";
	config_init(&c, tables, 2);
	CHECK(config_is_path_key(&c, "placement_map"));
	CHECK(config_is_path_key(&c, "calibration"));
	CHECK(!config_is_path_key(&c, "label"));
	CHECK(!config_is_path_key(&c, "topology"));
	CHECK(!config_is_path_key(&c, "no_such_key"));
	CHECK(config_each_path(&c, demo_path_seen, seen) == 0);
	CHECK_STR(seen, ""); /* none set */
	CHECK_OK(config_set(&c, "label=x.map", NULL, "-s", &e), &e);
	CHECK_OK(config_set(&c, "calibration=c.json", NULL, "-s", &e), &e);
	CHECK_OK(config_set(&c, "placement_map=m.txt", NULL, "-s", &e), &e);
	CHECK(config_each_path(&c, demo_path_seen, seen) == 7);
	CHECK_STR(seen, "placement_map=m.txt;calibration=c.json;");
	config_release(&c);
}

/* A file's folder and a name in it: the one rule of -c, study and
 * workload files (core/path.h). */
static void test_path_in_dir(void)
{
	static const char *const dirs[][2] = {{"f.ini", ""}, {"/f.ini", "/"}, {"a/b/f.ini", "a/b"}, {"/a/f.ini", "/a"}};
	char dir[64];
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		CHECK(path_dir_of(dirs[i][0], dir, sizeof dir));
		CHECK_STR(dir, dirs[i][1]);
	}
	CHECK(!path_dir_of("a/b/f.ini", dir, 3));
	CHECK_STR(dir, "");
	static const char *const joins[][3] = {
		{"", "x.map", "x.map"}, {"/", "x.map", "/x.map"}, {"d", "x.map", "d/x.map"},
		{"d/", "x.map", "d/x.map"}, {"d", "/abs/x.map", "/abs/x.map"}, {"/d", "-", "-"}, {"/d", "-x", "/d/-x"},
	};
	for (size_t i = 0; i < sizeof joins / sizeof *joins; i++) {
		char *p = path_in_dir(joins[i][0], joins[i][1]);
		CHECK_STR(p, joins[i][2]);
		free(p);
	}
	/* A file's folder, absolute; none for a pipe or a descriptor's name. */
	char *folder = path_file_folder("/tmp/x.txt", true);
	CHECK_STR(folder, "/tmp");
	free(folder);
	CHECK(path_file_folder("/tmp/x.txt", false) == NULL);
	CHECK(path_file_folder("/dev/stdin", true) == NULL);
	/* A refusal's name as read becomes the name as written and where it
	 * was looked for: once, the last whole name, not a file's "PATH:LINE". */
	char msg[256] = "topology 'graph': parameter 'file': cannot open '/e/g.txt': No such file";
	path_err_rename(msg, sizeof msg, "g.txt", "/e/g.txt", "the spec file e/s.txt");
	CHECK_STR(msg, "topology 'graph': parameter 'file': cannot open 'g.txt' (resolved to /e/g.txt, relative to "
		       "the spec file e/s.txt): No such file");
	path_err_rename(msg, sizeof msg, "g.txt", "/e/g.txt", "the spec file e/s.txt");
	CHECK_STR(msg, "topology 'graph': parameter 'file': cannot open 'g.txt' (resolved to /e/g.txt, relative to "
		       "the spec file e/s.txt): No such file");
	snprintf(msg, sizeof msg, "/e/g.txt:3: self-loop");
	path_err_rename(msg, sizeof msg, "g.txt", "/e/g.txt", "the spec file e/s.txt");
	CHECK_STR(msg, "/e/g.txt:3: self-loop");
}

static const struct param_def demo_spec_keys[] = {
	{"topo", PARAM_SPEC, offsetof(struct demo_cfg, topology), "", 0, 0, "a spec", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};
static const struct config_table demo_spec_table = {"network", "demo", demo_spec_keys, sizeof(struct demo_cfg)};

/* A -c file's relative file names (a PARAM_PATH key, a spec's @FILE and
 * file=) are read from its folder and kept absolute; -s and text loaded as
 * a string keep theirs. A refusal quoting the name as read names it as
 * written and where it was looked for. */
static void test_config_file_names(void)
{
	const struct config_table *const tables[] = {&demo_spec_table, &demo_file_table};
	struct config c;
	struct nl_err e = {0};
	char dir[] = "/tmp/nltest-names-XXXXXX", path[128], real[PATH_MAX], want[PATH_MAX + 200];
	CHECK(mkdtemp(dir) != NULL);
	CHECK(realpath(dir, real) != NULL);
	snprintf(path, sizeof path, "%s/f.ini", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("topo = p2(graph:file=g.txt):file=g.txt\nplacement_map = m.map\ncalibration = /abs/c.json\n", f);
	fclose(f);
	config_init(&c, tables, 2);
	CHECK_OK(config_load_file(&c, path, &e), &e);
	snprintf(want, sizeof want, "p2(graph:file=%s/g.txt):file=%s/g.txt", real, real);
	CHECK_STR(config_get(&c, "topo"), want);
	snprintf(want, sizeof want, "%s/m.map", real);
	CHECK_STR(config_get(&c, "placement_map"), want);
	CHECK_STR(config_get(&c, "calibration"), "/abs/c.json");
	nl_errf(&e, NL_EIO, "cannot open '%s/g.txt': No such file or directory", real); /* renamed once */
	config_err_file_line(&c, "topo", &e);
	snprintf(want, sizeof want,
		 "%s:1: cannot open 'g.txt' (resolved to %s/g.txt, relative to the config %s): No such file or directory",
		 path, real, path);
	CHECK_STR(e.msg, want);
	nl_errf(&e, NL_EIO, "%s/m.map: cannot open map file", real);
	config_err_file_line(&c, "placement_map", &e);
	snprintf(want, sizeof want, "%s:2: m.map (resolved to %s/m.map, relative to the config %s): cannot open map file",
		 path, real, path);
	CHECK_STR(e.msg, want);
	nl_errf(&e, NL_EFORMAT, "%s/m.map:3: rank 0: mapped twice", real); /* the file's own line: as it is */
	config_err_file_line(&c, "placement_map", &e);
	snprintf(want, sizeof want, "%s:2: %s/m.map:3: rank 0: mapped twice", path, real);
	CHECK_STR(e.msg, want);
	CHECK_OK(config_set(&c, "placement_map=m.map", NULL, "-s", &e), &e);
	CHECK_STR(config_get(&c, "placement_map"), "m.map");
	CHECK_OK(config_load_string(&c, "topo = @s.txt\n", "text", &e), &e);
	CHECK_STR(config_get(&c, "topo"), "@s.txt");
	config_release(&c);
	unlink(path);
	rmdir(dir);
}

/* --dump refuses, before writing a line, a value the INI reader would not
 * read back as written; a value starting with ';' is written against the
 * '=' and loads back. */
static void test_config_dump_unwritable(void)
{
	const struct config_table *const tables[] = {&demo_table, &demo_file_table};
	static const struct {
		const char *value, *why;
	} bad[] = {
		{"a ;b", "';' after a blank"},
		{"a\t;b", "';' after a blank"},
		{"a ", "starts or ends with a blank"},
		{" a", "starts or ends with a blank"},
		{"a\nb", "line break"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct config c;
		struct nl_err e = {0};
		char *text = NULL;
		size_t len = 0;
		config_init(&c, tables, 2);
		CHECK_OK(config_set(&c, "label", bad[i].value, "-s", &e), &e);
		FILE *f = open_memstream(&text, &len);
		CHECK(f != NULL);
		CHECK_ERR(config_dump_ini(&c, f, &e), NL_ECONFIG, &e, bad[i].why);
		CHECK(strstr(e.msg, "-s: key 'label'") != NULL);
		fclose(f);
		CHECK_EQ(len, 0); /* nothing half-written */
		free(text);
		config_release(&c);
	}
	struct config c, back;
	struct nl_err e = {0};
	char *text = NULL;
	size_t len = 0;
	config_init(&c, tables, 2);
	CHECK_OK(config_set(&c, "label", ";x ;y", "-s", &e), &e);
	CHECK_ERR(config_dump_ini(&c, stdout, &e), NL_ECONFIG, &e, "';' after a blank");
	static const char *const good[] = {";x;y", "a;b", "a\rb", "a\t b"};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		CHECK_OK(config_set(&c, "label", good[i], "-s", &e), &e);
		FILE *f = open_memstream(&text, &len);
		CHECK_OK(config_dump_ini(&c, f, &e), &e);
		fclose(f);
		config_init(&back, tables, 2);
		CHECK_OK(config_load_string(&back, text, "dump", &e), &e);
		CHECK_STR(config_get(&back, "label"), good[i]);
		free(text);
		text = NULL;
		config_release(&back);
	}
	config_release(&c);
}

static void test_config_file(void)
{
	struct config c;
	struct demo_cfg v;
	struct nl_err e = {0};
	config_init(&c, demo_tables, 1);
	const char *p = test_write_tmp("; comment\nnum_vcs = 4\n[network]\ninjection_rate = 0.25\n");
	CHECK_OK(config_load_file(&c, p, &e), &e);
	CHECK_OK(config_set(&c, "num_vcs=8", NULL, "-s", &e), &e);
	CHECK_OK(config_bind(&c, &demo_table, &v, &e), &e);
	CHECK_EQ(v.num_vcs, 8);
	CHECK_NEAR(v.injection_rate, 0.25, 0);
	CHECK_STR(v.topology, "torus:k=8x8");
	/* Where each key was set, as read-time errors say it, for checks
	 * made once the topology is known (partitions, threads, num_vcs). */
	char at[300];
	snprintf(at, sizeof at, "%s:4", p);
	CHECK_STR(config_origin(&c, "injection_rate"), at);
	CHECK_STR(config_origin(&c, "num_vcs"), "-s");
	CHECK(config_origin(&c, "topology") == NULL);
	CHECK(config_origin(NULL, "num_vcs") == NULL);
	unlink(p);

	p = test_write_tmp("num_vc = 4\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, "unknown key 'num_vc' (did you mean 'num_vcs'?)");
	CHECK(strstr(e.msg, ":1:") != NULL);
	unlink(p);
	p = test_write_tmp("num_vcs = 0\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, "key 'num_vcs': value '0': out of range");
	unlink(p);
	p = test_write_tmp("[traffic]\nnum_vcs = 2\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, "unknown section [traffic]");
	unlink(p);
	/* At the header's line, not its first key's (6), and also with no
	 * key under it (inih reports a section only with its first key). */
	p = test_write_tmp("# c\n\n[nosuch]\n\n\nnum_vcs = 2\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":3: unknown section [nosuch]");
	unlink(p);
	p = test_write_tmp("[nosuch]\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":1: unknown section [nosuch]");
	unlink(p);
	/* A typo of a section names it, as an unknown key names its key;
	 * another word does not. */
	p = test_write_tmp("[netwrk]\ntopology = torus:k=4x4\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e,
		  ":1: unknown section [netwrk] (did you mean [network]?)");
	unlink(p);
	p = test_write_tmp("num_vcs = 2\n[Network]\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":2: unknown section [Network] (did you mean [network]?)");
	unlink(p);
	p = test_write_tmp("[rt]\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":1: unknown section [rt]");
	CHECK(strstr(e.msg, "did you mean") == NULL);
	unlink(p);
	/* Another word (here a key's name) names the sections there are (this
	 * configuration's one): it said "unknown section [topology]" and
	 * nothing of where keys go. */
	p = test_write_tmp("[topology]\ntopology = torus:k=4x4\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":1: unknown section [topology]; expected [network]");
	CHECK(strstr(e.msg, "[network] or") == NULL);
	unlink(p);
	/* "[]" names no section: its keys read as section-less ones. */
	p = test_write_tmp("[]\nnum_vcs = 4\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":1: unknown section []");
	unlink(p);
	p = test_write_tmp("[network]\nnum_vcs = 4\n[]\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":3: unknown section []");
	unlink(p);
	/* The key before it is checked first: the first bad line is reported. */
	p = test_write_tmp("num_vcs = 0\n[nosuch]\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":1: key 'num_vcs': value '0': out of range");
	unlink(p);
	/* An indented '[' after a key continues its value, as inih reads it. */
	p = test_write_tmp("num_vcs = 2\n  [nosuch]\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, "key 'num_vcs': value '2[nosuch]'");
	unlink(p);
	/* A known section with no keys is fine. */
	p = test_write_tmp("[network]\n");
	CHECK_OK(config_load_file(&c, p, &e), &e);
	unlink(p);
	/* The refused line is quoted, as a study file's (ini_lines_bad_quote):
	 * the line number alone was given. */
	p = test_write_tmp("num_vcs 2\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e,
		  ":1: 'num_vcs 2': syntax error: expected 'key = value' or '[section]'");
	unlink(p);
	/* ... escaped, and cut after its first 63 bytes. */
	p = test_write_tmp("[network]\nnum\x01vcs 2  \n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":2: 'num\\x01vcs 2': syntax error");
	unlink(p);
	p = test_write_tmp("0123456789012345678901234567890123456789012345678901234567890123456789\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e,
		  ":1: '012345678901234567890123456789012345678901234567890123456789012...': syntax error");
	unlink(p);
	p = test_write_tmp("[network]\ntopology = torus:k=4x4\n[router\nnum_vcs = 2\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":3: '[router': expected ']' at the end of a section header");
	unlink(p);
	/* A key on a header's line was dropped: num_vcs stayed 16. */
	p = test_write_tmp("[network]\ntopology = torus:k=4x4\n[router] num_vcs = 4\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":3: '[router] num_vcs = 4': text after the ']' of a section");
	unlink(p);
	CHECK_ERR(config_set(&c, "injection_rate=fast", NULL, "-s", &e), NL_ECONFIG, &e,
		  "-s: key 'injection_rate': value 'fast': expected a number");
	CHECK_ERR(config_set(&c, "injection_rate=0x1p-4", NULL, "-s", &e), NL_ECONFIG, &e,
		  "-s: key 'injection_rate': value '0x1p-4': expected a number");
	/* Every refused value in one form, as workload and study files give
	 * theirs: "key 'K': value 'V': ...". It was "key 'K' value 'V' out of
	 * range: ..." and "key 'K' value 'V': ...". */
	CHECK_ERR(config_set(&c, "num_vcs=0", NULL, "-s", &e), NL_ECONFIG, &e,
		  "-s: key 'num_vcs': value '0': out of range: expected a value in ");
	CHECK_ERR(config_set(&c, "num_vcs= 4", NULL, "-s", &e), NL_ECONFIG, &e,
		  "-s: key 'num_vcs': value ' 4': expected '4' (no blanks around a key's value)");
	{
		/* A value too long for the message, cut in its middle: the
		 * same form at both ends. */
		char kv[700] = "num_vcs=";
		memset(kv + 8, '9', sizeof kv - 9);
		kv[sizeof kv - 1] = '\0';
		CHECK_ERR(config_set(&c, kv, NULL, "-s", &e), NL_ECONFIG, &e, "-s: key 'num_vcs': value '999");
		const char *tail = "999': out of range: expected a value in 1..64";
		size_t n = strlen(e.msg), k = strlen(tail);
		CHECK(n > k && strstr(e.msg, "...") && !strcmp(e.msg + n - k, tail));
	}
	CHECK_ERR(config_load_file(&c, "/nonexistent/x.ini", &e), NL_EIO, &e, "cannot open");
	/* Failed loads left the earlier values alone. */
	CHECK_OK(config_bind(&c, &demo_table, &v, &e), &e);
	CHECK_EQ(v.num_vcs, 8);

	json_t *j = config_to_json(&c);
	CHECK(j != NULL);
	CHECK_EQ(json_integer_value(json_object_get(j, "num_vcs")), 8);
	json_decref(j);
	config_release(&c);
}

static void test_output_atomic(void)
{
	struct nl_err e = {0};
	char path[] = "/tmp/nltest-out-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	CHECK_OK(out_write_atomic(path, "hello\n", 6, &e), &e);
	FILE *f = fopen(path, "r");
	char buf[16] = {0};
	CHECK(f && fread(buf, 1, sizeof buf, f) == 6);
	if (f)
		fclose(f);
	CHECK_STR(buf, "hello\n");
	unlink(path);
	CHECK_ERR(out_write_atomic("/nonexistent-dir/x.json", "x", 1, &e), NL_EIO, &e, "nonexistent-dir");
}

/* out_write_json streams a file's text (json_dumpf into an out_stream)
 * where it serialised it whole in memory first: the bytes must be the
 * ones out_json_text gives (the trailing newline included) across many
 * 1 MiB buffers, through a link as well, with nothing staged left. */
static void test_output_json_streamed(void)
{
	struct nl_err e = {0};
	char dir[] = "/tmp/nltest-json-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	json_t *doc = json_object(), *rows = json_array();
	json_object_set_new(doc, "spec", json_string("torus:k=8x8 \xc3\xa9 \"quoted\""));
	for (int i = 0; i < 40000; i++) {
		json_t *r = json_object();
		json_object_set_new(r, "rank", json_integer(i));
		json_object_set_new(r, "compute_s", json_real(i / 3.0));
		json_object_set_new(r, "finish_s", i % 7 ? json_real(1e-9 * i) : json_null());
		json_array_append_new(rows, r);
	}
	json_object_set_new(doc, "ranks", rows);
	size_t want_len;
	char *want = out_json_text(doc, &want_len);
	CHECK(want && want_len > (size_t)3 << 20 && want[want_len - 1] == '\n');
	char path[64], link[64];
	snprintf(path, sizeof path, "%s/out.json", dir);
	snprintf(link, sizeof link, "%s/link.json", dir);
	CHECK(symlink("out.json", link) == 0);
	for (int pass = 0; pass < 2; pass++) {
		CHECK_OK(out_write_json(pass ? link : path, doc, &e), &e);
		FILE *f = fopen(path, "rb");
		char *got = malloc(want_len + 1);
		size_t n = f && got ? fread(got, 1, want_len + 1, f) : 0;
		if (f)
			fclose(f);
		CHECK_UINT(n, ==, want_len);
		CHECK(n == want_len && !memcmp(got, want, n));
		free(got);
		struct stat st;
		CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	}
	DIR *d = opendir(dir);
	int entries = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		entries += de->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK_EQ(entries, 2);
	free(want);
	json_decref(doc);
	unlink(link);
	unlink(path);
	rmdir(dir);
}

/* gnuplot exits 0 after a failed write (a full disk): its SVG, read back,
 * is whole only with its closing tag last (interfere --plot wrote a file
 * cut at 4,096 bytes, or an empty one, over the old chart). */
static void test_output_read_svg(void)
{
	static const struct {
		const char *text;
		bool is_whole;
	} cases[] = {
		{"<?xml version=\"1.0\"?>\n<svg width=\"8\">\n<path d=\"M0\"/>\n</svg>\n\n", true},
		{"<svg></svg>", true},
		{"<?xml version=\"1.0\"?>\n<svg width=\"8\">\n<path d=\"M0", false},
		{"", false},
		{"</svg>\n", false},
		{"<svg>\n</svg>\n<g>", false},
	};
	char path[] = "/tmp/nltest-svg-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct nl_err e = {0};
		FILE *f = fopen(path, "w");
		CHECK(f != NULL);
		if (!f)
			break;
		fputs(cases[i].text, f);
		fclose(f);
		char *svg = NULL;
		size_t len = 0;
		int rc = out_read_svg(path, "out.svg", &svg, &len, &e);
		if (cases[i].is_whole) {
			CHECK_OK(rc, &e);
			CHECK(svg && len == strlen(cases[i].text) && !strcmp(svg, cases[i].text));
		} else {
			CHECK_ERR(rc, NL_EIO, &e, "out.svg: the SVG could not be written: gnuplot's output is cut");
			CHECK(svg == NULL);
		}
		free(svg);
	}
	unlink(path);
	struct nl_err e = {0};
	char *svg = NULL;
	size_t len;
	CHECK_ERR(out_read_svg(path, "out.svg", &svg, &len, &e), NL_EIO, &e, "cannot read back");
	/* The registered empty file a program writes: removed by out_unstage. */
	char *tmp = NULL;
	struct stat st;
	CHECK_OK(out_tmp_for_registered(path, &tmp, &e), &e);
	CHECK(tmp && stat(tmp, &st) == 0 && st.st_size == 0);
	char name[64];
	snprintf(name, sizeof name, "%s", tmp ? tmp : "");
	out_unstage(&tmp);
	CHECK(tmp == NULL && stat(name, &st) != 0);
}

/* An empty output name is refused at once: it staged ".tmpXXXXXX" in the
 * working directory, and only the rename at the end failed, naming nothing. */
static void test_output_empty_name(void)
{
	struct nl_err e = {0};
	char *tmp = NULL;
	CHECK_ERR(out_check_writable("", &e), NL_EINVAL, &e, "empty file name (expected a file to write");
	CHECK_ERR(out_write_atomic("", "x", 1, &e), NL_EINVAL, &e, "empty file name");
	CHECK_ERR(out_stage("", "x", 1, &tmp, &e), NL_EINVAL, &e, "empty file name");
	CHECK(tmp == NULL);
	CHECK_OK(out_check_writable("-", &e), &e);
}

/* A sticky folder (/tmp) lets only the file's owner, the folder's owner
 * or root replace a file: out_check_writable refuses the others before
 * the work, where out_commit's rename failed after it (EPERM, status 1). */
static void test_output_sticky(void)
{
	const mode_t sticky = S_IFDIR | 01777, plain = S_IFDIR | 0777;
	CHECK(out_sticky_refuses(sticky, 0, 0, 65534));     /* root's file in root's /tmp, as nobody */
	CHECK(!out_sticky_refuses(sticky, 0, 65534, 65534)); /* the file is mine */
	CHECK(!out_sticky_refuses(sticky, 65534, 0, 65534)); /* the folder is mine */
	CHECK(!out_sticky_refuses(sticky, 0, 1000, 0));      /* root may */
	CHECK(!out_sticky_refuses(plain, 0, 0, 65534));      /* not sticky: the folder's write bit decides */
	CHECK(out_sticky_refuses(S_IFDIR | 01000, 1000, 1001, 1002));
}

/* Threads staging outputs side by side (compare's workers write cache
 * entries while others run): each writes its own files through
 * out_write_atomic (registered, committed, forgotten) and registers and
 * forgets names of its own, many times. The list took one thread: two
 * growing it at once lost entries or used a freed array. */
struct staged_worker {
	const char *dir;
	int id;
	int rounds;
	atomic_int *stop; /* NULL: run `rounds` rounds */
	int fails;
};

static void *test_staged_worker(void *arg)
{
	struct staged_worker *w = arg;
	char path[128], name[128];
	for (int i = 0; i < w->rounds || (w->stop && !atomic_load(w->stop)); i++) {
		struct nl_err e = {0};
		snprintf(path, sizeof path, "%s/w%d-%d.txt", w->dir, w->id, i % 8);
		snprintf(name, sizeof name, "%s/n%d", w->dir, w->id);
		if (out_staged_add(name, &e) < 0)
			w->fails++;
		char text[32];
		int n = snprintf(text, sizeof text, "%d %d\n", w->id, i);
		if (out_write_atomic(path, text, (size_t)n, &e) < 0)
			w->fails++;
		out_staged_del(name);
	}
	return NULL;
}

/* Files in dir whose name holds ".tmp" (a staged file left behind). */
static int test_count_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strstr(e->d_name, ".tmp") != NULL;
	if (d)
		closedir(d);
	return n;
}

static void test_output_staged_threads(void)
{
	char dir[] = "/tmp/nltest-staged-threads-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	enum { W = 4 };
	struct staged_worker w[W];
	pthread_t t[W];
	for (int i = 0; i < W; i++) {
		w[i] = (struct staged_worker){.dir = dir, .id = i, .rounds = 400};
		CHECK_EQ(nl_thread_create(&t[i], test_staged_worker, &w[i]), 0);
	}
	for (int i = 0; i < W; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ(w[i].fails, 0);
	}
	CHECK_EQ(test_count_tmp(dir), 0);
	/* Each file is its writer's last round for it, whole. */
	for (int i = 0; i < W; i++)
		for (int k = 0; k < 8; k++) {
			char path[128], want[32], got[32] = "";
			snprintf(path, sizeof path, "%s/w%d-%d.txt", dir, i, k);
			snprintf(want, sizeof want, "%d %d\n", i, 392 + k);
			FILE *f = fopen(path, "r");
			CHECK(f != NULL);
			if (f) {
				size_t n = fread(got, 1, sizeof got - 1, f);
				got[n] = 0;
				fclose(f);
			}
			CHECK_STR(got, want);
		}
	/* Every name forgotten: none is a staged name now. */
	CHECK(!out_staged_is_stage(dir));
	out_remove_tree(dir);

	/* In a child with out_signals_catch, SIGTERM or SIGHUP (a closed
	 * terminal, treated alike) once, or twice at once (the second goes
	 * through the handler's unlink while the workers change the list,
	 * which they do with both blocked), as the workers run: the process
	 * ends by it, with no staged file left. */
	for (int run = 0; run < 4; run++) {
		int twice = run & 1, sig = run < 2 ? SIGTERM : SIGHUP;
		CHECK(mkdtemp(strcpy(dir, "/tmp/nltest-staged-threads-XXXXXX")) != NULL);
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			static atomic_int stop;
			static struct staged_worker cw[W];
			pthread_t ct[W];
			out_signals_catch();
			for (int i = 0; i < W; i++) {
				cw[i] = (struct staged_worker){.dir = dir, .id = i, .stop = &stop};
				if (nl_thread_create(&ct[i], test_staged_worker, &cw[i]) != 0)
					_exit(10);
			}
			usleep(20000);
			kill(getpid(), sig);
			if (twice)
				kill(getpid(), sig);
			usleep(2000000);
			_exit(11); /* the signal should have ended it */
		}
		int status = 0;
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
		CHECK_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status), sig);
		CHECK_EQ(test_count_tmp(dir), 0);
		out_remove_tree(dir);
	}
}

/* A temporary directory with a file in a subdirectory, as an OTF2
 * archive being written; *path is static storage of the caller. */
static void test_staged_tree(char *path)
{
	strcpy(path, "/tmp/nltest-staged-XXXXXX");
	CHECK(mkdtemp(path) != NULL);
	char sub[64];
	snprintf(sub, sizeof sub, "%s/traces", path);
	CHECK(mkdir(sub, 0700) == 0);
	snprintf(sub, sizeof sub, "%s/traces/0.evt", path);
	FILE *f = fopen(sub, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
}

/* In a child with out_signals_catch: stage a (and b, when given), raise
 * sig, then (staged) check that the signal was only recorded and reach
 * the poll: out_staged_del(b), or out_staged_poll. Returns the wait
 * status; 10+ exits say what went wrong. */
static int test_staged_child(const char *a, const char *b, int sig)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		struct nl_err e = {0};
		struct stat st;
		out_signals_catch();
		if ((a && out_staged_add(a, &e)) || (b && out_staged_add(b, &e)))
			_exit(10);
		raise(sig);
		if (!a)
			_exit(11); /* nothing staged: the signal should have ended it */
		if (stat(a, &st) != 0)
			_exit(12); /* removed in the handler */
		if (b)
			out_staged_del(b);
		else
			out_staged_poll();
		_exit(13); /* the poll returned */
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	return status;
}

/* SIGINT, SIGTERM, SIGHUP during long work (replay --otf2): the staged
 * output is removed at the next poll and the process ends by the signal;
 * with nothing staged the signal ends it at once. */
static void test_output_staged_signals(void)
{
	static char a[64], b[64];
	struct stat st;
	int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (int i = 0; i < 3; i++) {
		test_staged_tree(a);
		int status = test_staged_child(a, NULL, sigs[i]);
		CHECK(WIFSIGNALED(status));
		CHECK_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status), sigs[i]);
		CHECK(stat(a, &st) != 0); /* the staged tree is gone */
		out_remove_tree(a);
	}
	/* A signal recorded while two are staged: out_staged_del of one (its
	 * owner moved it into place) polls, and removes the other. */
	test_staged_tree(a);
	test_staged_tree(b);
	int status = test_staged_child(a, b, SIGINT);
	CHECK_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status), SIGINT);
	CHECK(stat(a, &st) != 0);
	CHECK(stat(b, &st) == 0);
	out_remove_tree(b);
	CHECK(stat(b, &st) != 0);
	/* Nothing staged: the signal's default action, at once. */
	status = test_staged_child(NULL, NULL, SIGTERM);
	CHECK_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status), SIGTERM);
	status = test_staged_child(NULL, NULL, SIGHUP);
	CHECK_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status), SIGHUP);
	/* SIGHUP ignored at start (nohup): out_signals_catch leaves it
	 * ignored, so a closed terminal neither ends the work nor removes
	 * what it staged; one not ignored gets the handler. */
	for (int ign = 0; ign < 2; ign++) {
		test_staged_tree(a);
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			struct sigaction sa;
			if (ign)
				signal(SIGHUP, SIG_IGN);
			out_signals_catch();
			if (sigaction(SIGHUP, NULL, &sa) != 0)
				_exit(10);
			if (!ign)
				_exit(sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN ? 11 : 0);
			if (sa.sa_handler != SIG_IGN)
				_exit(12);
			if (out_staged_add(a, &(struct nl_err){0}))
				_exit(13);
			raise(SIGHUP);
			out_staged_poll();
			_exit(0); /* the work went on */
		}
		int hst = 0;
		CHECK(pid > 0 && waitpid(pid, &hst, 0) == pid);
		CHECK_EQ(WIFSIGNALED(hst) ? 100 + WTERMSIG(hst) : WEXITSTATUS(hst), 0);
		CHECK(stat(a, &st) == 0); /* left to its owner */
		out_remove_tree(a);
	}
	/* Without out_signals_catch nothing is recorded: a poll returns. */
	struct nl_err e = {0};
	test_staged_tree(a);
	CHECK_OK(out_staged_add(a, &e), &e);
	out_staged_poll();
	out_staged_del(a);
	CHECK(stat(a, &st) == 0);
	out_remove_tree(a);
}

/* Files staged with out_stage_registered (compare's report): registered
 * from before they exist and through out_commit, so a signal after the
 * first is in place still waits, and the poll in out_unstage removes the
 * one not yet committed. In a child; the directory is the caller's. */
static int test_registered_child(const char *dir)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		struct nl_err e = {0};
		char a[128], b[128], *ta = NULL, *tb = NULL;
		snprintf(a, sizeof a, "%s/a.json", dir);
		snprintf(b, sizeof b, "%s/b.md", dir);
		out_signals_catch();
		if (out_stage_registered(a, "a\n", 2, &ta, &e) || out_stage_registered(b, "b\n", 2, &tb, &e))
			_exit(10);
		if (out_commit(&ta, a, &e) || !ta)
			_exit(11); /* the name stays set, registered, after the rename */
		raise(SIGINT);
		out_unstage(&ta); /* forgets a's name and polls */
		_exit(12); /* the poll returned: the signal was not recorded */
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	return status;
}

static void test_output_staged_registered(void)
{
	char dir[] = "/tmp/nltest-reg-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int status = test_registered_child(dir);
	CHECK_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status), SIGINT);
	char path[160];
	struct stat st;
	snprintf(path, sizeof path, "%s/a.json", dir);
	CHECK(stat(path, &st) == 0); /* committed before the signal */
	snprintf(path, sizeof path, "%s/b.md", dir);
	CHECK(stat(path, &st) != 0);
	/* Nothing else: b's temporary file is gone. */
	int n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *de; d && (de = readdir(d));)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK_EQ(n, 1);
	out_remove_tree(dir);
	/* Without a signal: in place, nothing left, the name freed. */
	CHECK(mkdtemp(strcpy(dir, "/tmp/nltest-reg-XXXXXX")) != NULL);
	struct nl_err e = {0};
	char *tmp = NULL;
	snprintf(path, sizeof path, "%s/c.txt", dir);
	CHECK_OK(out_stage_registered(path, "c\n", 2, &tmp, &e), &e);
	CHECK(tmp && stat(tmp, &st) == 0);
	CHECK_OK(out_commit(&tmp, path, &e), &e);
	CHECK(tmp && stat(tmp, &st) != 0 && stat(path, &st) == 0);
	out_unstage(&tmp);
	CHECK(tmp == NULL && stat(path, &st) == 0);
	/* Unstaged without a commit: removed. */
	CHECK_OK(out_stage_registered(path, "d\n", 2, &tmp, &e), &e);
	char name[160];
	snprintf(name, sizeof name, "%s", tmp);
	out_unstage(&tmp);
	CHECK(tmp == NULL && stat(name, &st) != 0);
	out_remove_tree(dir);
}

/* Two SIGINTs while files are staged (coreutils `timeout -s INT` signals
 * netloom, then its process group): the second ends the process at once,
 * by SIGINT, but first removes the staged files: b's temporary file and
 * one registered with out_staged_add (gnuplot's). a, committed, stays. */
static void test_output_staged_second_signal(void)
{
	char dir[] = "/tmp/nltest-sig2-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char a[128], b[128], plot[128];
	snprintf(a, sizeof a, "%s/a.json", dir);
	snprintf(b, sizeof b, "%s/b.md", dir);
	snprintf(plot, sizeof plot, "%s/.plot.svg.tmp", dir);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		struct nl_err e = {0};
		char *ta = NULL, *tb = NULL;
		out_signals_catch();
		if (out_stage_registered(a, "a\n", 2, &ta, &e) || out_stage_registered(b, "b\n", 2, &tb, &e))
			_exit(10);
		if (out_commit(&ta, a, &e) || out_staged_add(plot, &e))
			_exit(11);
		FILE *f = fopen(plot, "w");
		if (!f || fclose(f))
			_exit(12);
		raise(SIGINT); /* recorded */
		raise(SIGINT); /* removes b's and plot's files, ends the process */
		_exit(13);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status), SIGINT);
	struct stat st;
	CHECK(stat(a, &st) == 0);
	CHECK(stat(b, &st) != 0);
	int n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *de; d && (de = readdir(d));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	CHECK_EQ(n, 1);
	out_remove_tree(dir);
}

/* Issue 10 part 4b: values longer than libinih's 200-byte line (Equality
 * n64000k64 is ~400 characters) load from files, whole or continued on
 * indented lines, and go through -s; what cannot load says why. */
static void test_config_long_values(void)
{
	struct config c;
	struct demo_cfg v;
	struct nl_err e = {0};
	char spec[1200], text[4000];
	size_t n = (size_t)snprintf(spec, sizeof spec, "N64000K64P16[-1,1");
	for (int i = 3; n < 600; i += 2)
		n += (size_t)snprintf(spec + n, sizeof spec - n, ",%d", i);
	snprintf(spec + n, sizeof spec - n, "](4,14,52)");
	config_init(&c, demo_tables, 1);

	/* One long line, with an inline comment and another key after it. */
	snprintf(text, sizeof text, "; comment\n[network]\ntopology = %s   ; the paper's notation\nnum_vcs = 3\n", spec);
	const char *p = test_write_tmp(text);
	CHECK_OK(config_load_file(&c, p, &e), &e);
	CHECK_OK(config_bind(&c, &demo_table, &v, &e), &e);
	CHECK_STR(v.topology, spec);
	CHECK_EQ(v.num_vcs, 3);
	unlink(p);

	/* Indented continuation lines are appended without a separator. */
	snprintf(text, sizeof text, "topology = %.150s\n    %.150s\n\t%s ; wrapped\nnum_vcs = 5\n", spec, spec + 150,
		 spec + 300);
	p = test_write_tmp(text);
	CHECK_OK(config_load_file(&c, p, &e), &e);
	CHECK_OK(config_bind(&c, &demo_table, &v, &e), &e);
	CHECK_STR(v.topology, spec);
	CHECK_EQ(v.num_vcs, 5);
	unlink(p);

	/* An indented "key = value" is a mis-indented key, named on its line. */
	p = test_write_tmp("num_vcs = 4\n  injection_rate = 0.5\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":2: key 'num_vcs': value 'injection_rate = 0.5'");
	unlink(p);
	/* After a text key, which took the line as its value silently: refused
	 * in study and workload files' words. */
	p = test_write_tmp("[network]\ntopology = torus:k=4x4\n  num_vcs = 2\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e,
		  ":3: [network] indented line 'num_vcs = 2' reads as 'name = value' after key 'topology'; expected "
		  "keys unindented (an indented line continues the key before it)");
	unlink(p);
	p = test_write_tmp("topology = torus:k=4x4\n\tnum_vcs = 2\n");
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e,
		  ":2: indented line 'num_vcs = 2' reads as 'name = value' after key 'topology'; expected");
	unlink(p);
	/* An indented key right after a header, or first in the file,
	 * continues no key: inih reads it as a key, and so does the reader
	 * (it was refused as "indented line '4' reads as 'name = value' after
	 * key 'num_vcs'"). A long one is cut after its '=' as any key line. */
	config_release(&c);
	config_init(&c, demo_tables, 1);
	snprintf(text, sizeof text, "  num_vcs = 4\n[network]\n ; a comment\n\ttopology = %s\n", spec);
	p = test_write_tmp(text);
	CHECK_OK(config_load_file(&c, p, &e), &e);
	CHECK_OK(config_bind(&c, &demo_table, &v, &e), &e);
	CHECK_STR(v.topology, spec);
	CHECK_EQ(v.num_vcs, 4);
	unlink(p);

	/* A continuation line's " ; comment" is a comment, as a key line's. */
	p = test_write_tmp("[network]\ntopology = torus:k=4\n  x4 ; 4x4 torus\n\t;x\nnum_vcs = 7 ; seven\n");
	CHECK_OK(config_load_file(&c, p, &e), &e);
	CHECK_OK(config_bind(&c, &demo_table, &v, &e), &e);
	CHECK_STR(v.topology, "torus:k=4x4");
	CHECK_EQ(v.num_vcs, 7);
	unlink(p);

	/* A long comment line is a comment. */
	memset(text, 0, sizeof text);
	memcpy(text, "; ", 2);
	memset(text + 2, 'x', 500);
	strcat(text, "\nnum_vcs = 6\n");
	p = test_write_tmp(text);
	CHECK_OK(config_load_file(&c, p, &e), &e);
	CHECK_OK(config_bind(&c, &demo_table, &v, &e), &e);
	CHECK_EQ(v.num_vcs, 6);
	unlink(p);

	/* A long line that cannot be cut (blanks everywhere) or has no key in
	 * reach gets its own message, never "syntax error". */
	memset(text, 0, sizeof text);
	memcpy(text, "topology = a", 12);
	for (int i = 0; i < 150; i++)
		strcat(text, " b");
	strcat(text, "\n");
	p = test_write_tmp(text);
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":1: line of 312 characters cannot be split");
	unlink(p);
	memset(text, 0, sizeof text);
	memset(text, 'k', 300);
	strcat(text, " = 1\n");
	p = test_write_tmp(text);
	CHECK_ERR(config_load_file(&c, p, &e), NL_ECONFIG, &e, ":1: line of 304 characters without 'key ='");
	unlink(p);
	/* The failed loads kept the last good values. */
	CHECK_OK(config_bind(&c, &demo_table, &v, &e), &e);
	CHECK_EQ(v.num_vcs, 6);

	/* -s takes the same value; beyond PARAM_STR_MAX it says the limit. */
	CHECK_OK(config_set(&c, "topology", spec, "-s", &e), &e);
	CHECK_OK(config_bind(&c, &demo_table, &v, &e), &e);
	CHECK_STR(v.topology, spec);
	char *huge = malloc(PARAM_STR_MAX + 10);
	CHECK(huge != NULL);
	if (huge) {
		memset(huge, 'x', PARAM_STR_MAX + 9);
		huge[PARAM_STR_MAX + 9] = '\0';
		CHECK_ERR(config_set(&c, "topology", huge, "-s", &e), NL_ECONFIG, &e,
			  "value longer than 4095 characters; expected at most 4095 (a longer spec goes in a spec file: "
			  "topology = @FILE)");
		free(huge);
	}
	config_release(&c);
}

/* ini_lines' handler for test_ini_lines_long: "line [section] name=value\n"
 * per key, appended to the buffer. */
struct ini_seen {
	struct ini_lines *r;
	char out[4096];
};

static int ini_seen_key(void *user, const char *section, const char *name, const char *value)
{
	struct ini_seen *s = user;
	size_t n = strlen(s->out);
	snprintf(s->out + n, sizeof s->out - n, "%d [%s] %s=%s\n", s->r->line, section, name, value);
	return 1;
}

/* Parse `len` bytes of text with ini_lines_parse, its headers of `kinds`
 * (rd.name_kinds; NULL for none) taking a NAME; its return value. */
static int ini_seen_parse_kinds(struct ini_seen *s, struct ini_lines *r, const char *text, size_t len,
				const char *const *kinds)
{
	*r = (struct ini_lines){0};
	r->rd.name_kinds = kinds;
	s->r = r;
	s->out[0] = '\0';
	r->f = fmemopen((void *)text, len, "r");
	if (!r->f)
		return -100;
	int line = ini_lines_parse(r, ini_seen_key, s);
	fclose(r->f);
	return line;
}

static int ini_seen_parse(struct ini_seen *s, struct ini_lines *r, const char *text, size_t len)
{
	return ini_seen_parse_kinds(s, r, text, len, NULL);
}

/* Study and workload files read long lines as configuration files do
 * (one reader, struct ini_lines_reader): a line past libinih's 198
 * characters arrives whole at its own line, the lines after it keep their
 * numbers, and a line that cannot be cut stops the file at its line with
 * config.c's reason. */
static void test_ini_lines_long(void)
{
	struct ini_seen s;
	struct ini_lines r;
	char v[320], text[1200], want[1200];
	for (size_t i = 0; i < 300; i++)
		v[i] = (char)('a' + i % 26);
	v[300] = '\0';
	int n = snprintf(text, sizeof text, "[s]\nk = %s   ; comment\nb = 2\n; %s\nc = x\n    %s\n[t]\nd = 4\n", v, v, v);
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 0);
	snprintf(want, sizeof want, "2 [s] k=%s\n3 [s] b=2\n5 [s] c=x%s\n8 [t] d=4\n", v, v);
	CHECK_STR(s.out, want);
	CHECK_EQ(r.headers, 2);
	CHECK_EQ(r.header_line, 7);
	CHECK_STR(r.rd.why, "");

	/* A continuation line's " ; comment" is dropped, as a key line's;
	 * a ';' after no blank is part of the value. */
	const char *cc = "[s]\nk = a ; first\n  b ; second\n\tc;d\ne = 1\n";
	CHECK_EQ(ini_seen_parse(&s, &r, cc, strlen(cc)), 0);
	CHECK_STR(s.out, "2 [s] k=abc;d\n5 [s] e=1\n");

	/* Blanks at every cut: the keys before it are read, none after. */
	char blanks[400] = "topology = a";
	for (int i = 0; i < 150; i++)
		strcat(blanks, " b");
	n = snprintf(text, sizeof text, "[s]\nb = 2\n%s\nc = 3\n", blanks);
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 3);
	CHECK_STR(s.out, "2 [s] b=2\n");
	CHECK(!strncmp(r.rd.why, "line of 312 characters cannot be split into libinih's 198-character lines", 72));
	/* The same past the first piece: the key is not handed over cut. */
	n = snprintf(text, sizeof text, "[s]\nb = 2\nk = %s", v);
	for (int i = 0; i < 150; i++)
		n += snprintf(text + n, sizeof text - (size_t)n, " y");
	n += snprintf(text + n, sizeof text - (size_t)n, "\nc = 3\n");
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 3);
	CHECK_STR(s.out, "2 [s] b=2\n");
	CHECK(!strncmp(r.rd.why, "line of 604 characters cannot be split into libinih's 198-character lines (a run", 80));
	/* ... unless an earlier line was bad: that one is named. */
	n = snprintf(text, sizeof text, "[s]\nno equals sign\n%s\n", blanks);
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 2);
	CHECK_STR(r.rd.why, "");
	/* A NUL byte: libinih stopped there and dropped the rest silently. */
	static const char nul[] = "[s]\nb = 2\nc = torus:k=4x4\0,p=3\nd = 4\n";
	CHECK_EQ(ini_seen_parse(&s, &r, nul, sizeof nul - 1), 3);
	CHECK_STR(s.out, "2 [s] b=2\n");
	CHECK_STR(r.rd.why, "unexpected NUL byte; expected a text file");
	/* A long section header. */
	n = snprintf(text, sizeof text, "[s]\nb = 2\n[%s]\nc = 3\n", v);
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 3);
	CHECK_STR(r.rd.why, "section header longer than libinih's 198 characters");
}

/* inih keeps 49 characters of a section name and of the name it hands a
 * continued key over with (its MAX_SECTION, MAX_NAME): a longer section
 * name read as its first 49 ('[job <54 characters>]' a job named by 45 of
 * them), silently. Refused at the line; names that fit, and a long key
 * name on a line of its own, read as before. */
static void test_ini_lines_names(void)
{
	struct ini_seen s;
	struct ini_lines r;
	char text[1200];
	const char *n49 = "aaaaaaaaaabbbbbbbbbbccccccccccddddddddddeeeeeeeee";
	int n = snprintf(text, sizeof text, "[%s]\nk = 1\n", n49);
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 0);
	CHECK(strstr(s.out, n49) != NULL);
	n = snprintf(text, sizeof text, "[s]\nk = 1\n[job %sXY]\nk = 2\n", n49);
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 3);
	CHECK_STR(s.out, "2 [s] k=1\n");
	CHECK_STR(r.rd.why, "section name of 55 characters ('[job aaaaaaaaaabbbbbb...]'); libinih keeps its first 49 "
			    "only: expected at most 49 characters");
	/* In a file whose [job NAME] headers take a name: the NAME's limit,
	 * what is left of the 49 after the kind and its blanks. */
	static const char *const kinds[] = {"system", "job", NULL};
	CHECK_EQ(ini_seen_parse_kinds(&s, &r, text, (size_t)n, kinds), 3);
	CHECK_STR(r.rd.why, "section name of 55 characters ('[job aaaaaaaaaabbbbbb...]'); libinih keeps its first 49 "
			    "only: expected a job name of at most 45 characters");
	n = snprintf(text, sizeof text, "[system   %s]\nk = 2\n", n49);
	CHECK_EQ(ini_seen_parse_kinds(&s, &r, text, (size_t)n, kinds), 1);
	CHECK_STR(r.rd.why, "section name of 58 characters ('[system   aaaaaaaaaab...]'); libinih keeps its first 49 "
			    "only: expected a system name of at most 40 characters");
	n = snprintf(text, sizeof text, "[jobs %s]\nk = 2\n", n49);
	CHECK_EQ(ini_seen_parse_kinds(&s, &r, text, (size_t)n, kinds), 1);
	CHECK(strstr(r.rd.why, "expected at most 49 characters") != NULL);
	/* A short name and blanks before the ']': the blanks are too many,
	 * not the name. */
	n = snprintf(text, sizeof text, "[job abc%50s]\nk = 2\n", "");
	CHECK_EQ(ini_seen_parse_kinds(&s, &r, text, (size_t)n, kinds), 1);
	CHECK_STR(r.rd.why, "section name of 57 characters ('[job abc             ...]'); libinih keeps its first 49 "
			    "only: expected at most 49 characters");
	/* Indented, before any key: a header still. After a key, it continues it. */
	n = snprintf(text, sizeof text, "  [%sX]\nk = 2\n", n49);
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 1);
	n = snprintf(text, sizeof text, "[s]\nk = 1\n  [%sX]\n", n49);
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 0);
	/* A key name of 50 characters: whole on its own line, cut on its
	 * continuation lines (and a long line's later pieces). */
	n = snprintf(text, sizeof text, "[s]\n%sX = 1\nb: 2\n", n49);
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 0);
	n = snprintf(text, sizeof text, "[s]\n%sX = 1\n  2\nb = 3\n", n49);
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 3);
	CHECK(!strncmp(r.rd.why, "continues the key of line 2, whose name has 50 characters; libinih", 66));
	n = snprintf(text, sizeof text, "[s]\n%sX = ", n49);
	for (int i = 0; i < 40; i++)
		n += snprintf(text + n, sizeof text - (size_t)n, "/part%02d", i);
	n += snprintf(text + n, sizeof text - (size_t)n, "\n");
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 2);
	CHECK(!strncmp(r.rd.why, "line of 333 characters whose key's name has 50", 46));
	/* A header without its ']' (inih's syntax error) says so at its line,
	 * for every reader: workload files named it "section []", config
	 * files "syntax error". A ']' after " ;" is in the comment. */
	n = snprintf(text, sizeof text, "[s]\nk = 1\n[job A  \nk = 2\n");
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 3);
	CHECK_STR(s.out, "2 [s] k=1\n");
	CHECK_STR(r.rd.why, "'[job A': expected ']' at the end of a section header");
	n = snprintf(text, sizeof text, "[job A ; x]\nk = 2\n");
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 1);
	CHECK_STR(r.rd.why, "'[job A': expected ']' at the end of a section header (its ']' follows ' ;', which starts a "
			    "comment)");
	/* Text after a header's ']': inih ignores it, so a key written there
	 * was lost ('[job A] trace = x.nlt' a job without its trace, '[job
	 * A] x' job A). Blanks and a ';' comment may follow, as after a value. */
	n = snprintf(text, sizeof text, "[s]\nk = 1\n[job A] trace = x.nlt  \nk = 2\n");
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 3);
	CHECK_STR(s.out, "2 [s] k=1\n");
	CHECK_STR(r.rd.why, "'[job A] trace = x.nlt': text after the ']' of a section header; expected a key on a line of "
			    "its own (only blanks or a ';' comment may follow ']')");
	n = snprintf(text, sizeof text, "[job A]]\nk = 2\n");
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 1);
	CHECK(!strncmp(r.rd.why, "'[job A]]': text after the ']'", 30));
	n = snprintf(text, sizeof text, "[s] # x\nk = 2\n");
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 1);
	CHECK(strstr(r.rd.why, "; '#' starts a comment only at the start of a line)") != NULL);
	n = snprintf(text, sizeof text, "[s] \t\r\nk = 1\n[t] ; x ] y\nk = 2\n[u];x\nk = 3\n");
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 0);
	CHECK_STR(s.out, "2 [s] k=1\n4 [t] k=2\n6 [u] k=3\n");
	/* A header forgets the key: an indented line after it is no continuation. */
	n = snprintf(text, sizeof text, "[s]\n%sX = 1\n[t]\n  b = 2\n", n49);
	CHECK_EQ(ini_seen_parse(&s, &r, text, (size_t)n), 0);
}

/* A mistyped header's kind is named with the rest as written; a kind
 * itself, or another word, is not (config_name_near's rule). */
static void test_ini_lines_section_near(void)
{
	static const char *const kinds[] = {"study", "system", "workload"};
	char buf[64] = "";
	CHECK(ini_lines_section_near("sytem big", kinds, 3, buf, sizeof buf));
	CHECK_STR(buf, "[system big]");
	CHECK(ini_lines_section_near("Studdy", kinds, 3, buf, sizeof buf));
	CHECK_STR(buf, "[study]");
	CHECK(ini_lines_section_near("workloads\tw", kinds, 3, buf, sizeof buf));
	CHECK_STR(buf, "[workload\tw]");
	snprintf(buf, sizeof buf, "unchanged");
	CHECK(!ini_lines_section_near("system  ", kinds, 3, buf, sizeof buf));
	CHECK(!ini_lines_section_near("bogus", kinds, 3, buf, sizeof buf));
	CHECK(!ini_lines_section_near("", kinds, 3, buf, sizeof buf));
	CHECK_STR(buf, "unchanged");
}

/* --- pool: independent runs on threads ------------------------------------ */

/* Runs that count their calls and fail at `bad` (n_runs to fail none). */
struct pool_demo {
	atomic_uint calls[8];
	size_t bad;
	unsigned first_done, first_rc_ok;
};

static int pool_demo_run(void *ctx, size_t i, struct nl_err *err)
{
	struct pool_demo *d = ctx;
	atomic_fetch_add(&d->calls[i], 1);
	if (i == d->bad)
		return nl_errf(err, NL_ENOMEM, "run %zu: out of memory", i);
	return 0;
}

static void pool_demo_first(void *ctx, int rc)
{
	struct pool_demo *d = ctx;
	d->first_done++;
	d->first_rc_ok = rc == 0;
}

/* core/pool.h: each run at most once; a failed run stops those after it
 * in index order (whatever the order they start in), never those before
 * it; the statuses and lines per run; first_done once, on the first run
 * started. */
static void test_pool(void)
{
	static const size_t order[8] = {4, 0, 1, 2, 3, 5, 6, 7};
	for (unsigned threads = 1; threads <= 9; threads += 4) {
		for (int ordered = 0; ordered < 2; ordered++) {
			struct pool_demo d = {.bad = 4};
			int rcs[8];
			struct nl_err errs[8], e = {0};
			const struct pool_opts o = {.n = 8, .threads = threads, .order = ordered ? order : NULL,
						    .run = pool_demo_run, .first_done = pool_demo_first, .ctx = &d,
						    .what = "runs"};
			CHECK_OK(pool_run(&o, rcs, errs, &e), &e);
			for (size_t i = 0; i < 4; i++) {
				CHECK_EQ(rcs[i], 0);
				CHECK_EQ(atomic_load(&d.calls[i]), 1);
			}
			CHECK_EQ(rcs[4], NL_ENOMEM);
			CHECK_STR(errs[4].msg, "run 4: out of memory");
			for (size_t i = 5; i < 8; i++) {
				CHECK(atomic_load(&d.calls[i]) <= 1);
				CHECK_EQ(rcs[i], atomic_load(&d.calls[i]) ? 0 : 1);
			}
			/* One thread, the failed run first: nothing after it runs. */
			if (threads == 1 && ordered)
				for (size_t i = 5; i < 8; i++)
					CHECK_EQ(rcs[i], 1);
			CHECK_EQ(d.first_done, 1);
			CHECK_EQ(d.first_rc_ok, !ordered);
		}
	}
	/* None failing: all run, once. */
	struct pool_demo d = {.bad = 8};
	int rcs[8];
	struct nl_err errs[8], e = {0};
	const struct pool_opts o = {.n = 8, .threads = 3, .run = pool_demo_run, .ctx = &d, .what = "runs"};
	CHECK_OK(pool_run(&o, rcs, errs, &e), &e);
	for (size_t i = 0; i < 8; i++) {
		CHECK_EQ(rcs[i], 0);
		CHECK_EQ(atomic_load(&d.calls[i]), 1);
	}
}

/* --- thread: the one thread start and its test hook ---------------------- */

static void *thread_noop(void *arg)
{
	return arg;
}

/* Start a thread under NETLOOM_TEST_FAIL_THREAD=v: 0 started (and
 * joined), or the error number. */
static int thread_try(void)
{
	pthread_t t;
	int e = nl_thread_create(&t, thread_noop, NULL);
	if (!e)
		pthread_join(t, NULL);
	return e;
}

/* The hook counts starts over the process, from the first start made
 * with it set: `N` fails the Nth alone, `N+` the Nth and later, `all`
 * every one; anything else, none (and unset, nothing is counted). */
static void test_thread_fail_hook(void)
{
	unsetenv("NETLOOM_TEST_FAIL_THREAD");
	CHECK_EQ(thread_try(), 0);
	setenv("NETLOOM_TEST_FAIL_THREAD", "2", 1);
	CHECK_EQ(thread_try(), 0);      /* start 1 */
	CHECK_EQ(thread_try(), EAGAIN); /* 2 */
	CHECK_EQ(thread_try(), 0);      /* 3 */
	setenv("NETLOOM_TEST_FAIL_THREAD", "5+", 1);
	CHECK_EQ(thread_try(), 0);      /* 4 */
	CHECK_EQ(thread_try(), EAGAIN); /* 5 */
	CHECK_EQ(thread_try(), EAGAIN); /* 6 */
	setenv("NETLOOM_TEST_FAIL_THREAD", "all", 1);
	CHECK_EQ(thread_try(), EAGAIN);
	const char *off[] = {"0", "x", "7x", "8++", "+", "-1", "99999999999", "ALL", "all "};
	for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
		setenv("NETLOOM_TEST_FAIL_THREAD", off[i], 1);
		CHECK_EQ(thread_try(), 0);
	}
	unsetenv("NETLOOM_TEST_FAIL_THREAD");
	CHECK_EQ(thread_try(), 0);
	/* NETLOOM_TEST_FAIL_ALLOC's number: 1 to 4294967295, else off. */
	setenv("NETLOOM_TEST_FAIL_ALLOC", "4294967295", 1);
	CHECK_EQ(nl_test_env_count("NETLOOM_TEST_FAIL_ALLOC"), 4294967295u);
	setenv("NETLOOM_TEST_FAIL_ALLOC", "12", 1);
	CHECK_EQ(nl_test_env_count("NETLOOM_TEST_FAIL_ALLOC"), 12u);
	const char *bad[] = {"4294967296", "0", "012", "12+", " 12", "", "x"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		setenv("NETLOOM_TEST_FAIL_ALLOC", bad[i], 1);
		CHECK_EQ(nl_test_env_count("NETLOOM_TEST_FAIL_ALLOC"), 0u);
	}
	unsetenv("NETLOOM_TEST_FAIL_ALLOC");
	CHECK_EQ(nl_test_env_count("NETLOOM_TEST_FAIL_ALLOC"), 0u);
}

/* The shortfalls the CLI warns of: one per place, the fewest threads
 * running (then the most asked) whatever the order noted, outermost
 * place first, forgotten once taken; a place that started every thread
 * notes nothing (pool_run under the hook). */
static void test_thread_short(void)
{
	struct nl_thread_short t[NL_THREAD_N_PLACES];
	CHECK_EQ(nl_thread_short_take(t), 0u);
	nl_thread_short_note(NL_THREAD_PARTITIONS, "a network's partitions", 4, 3, "pthread_create", EAGAIN);
	nl_thread_short_note(NL_THREAD_PARTITIONS, "a network's partitions", 4, 2, "pthread_create", EPERM);
	nl_thread_short_note(NL_THREAD_PARTITIONS, "a network's partitions", 8, 2, "pthread_create", EAGAIN);
	nl_thread_short_note(NL_THREAD_PARTITIONS, "a network's partitions", 9, 3, "pthread_create", EAGAIN);
	nl_thread_short_note(NL_THREAD_TRIALS, "the annealing's trials", 3, 2, "a thread's arrays", ENOMEM);
	nl_thread_short_note(NL_THREAD_REPLAYS, "the study's replays, said with a name too long to keep whole", 65, 1,
			     "pthread_create", EAGAIN);
	CHECK_EQ(nl_thread_short_take(t), 3u);
	CHECK_STR(t[0].what, "the study's replays, said with a name too long ");
	CHECK_EQ(t[0].asked, 65u);
	CHECK_EQ(t[0].running, 1u);
	CHECK_STR(t[1].what, "the annealing's trials");
	CHECK_STR(t[1].call, "a thread's arrays");
	CHECK_EQ(t[1].errnum, ENOMEM);
	CHECK_STR(t[2].what, "a network's partitions");
	CHECK_EQ(t[2].asked, 8u);
	CHECK_EQ(t[2].running, 2u);
	CHECK_STR(t[2].call, "pthread_create");
	CHECK_EQ(t[2].errnum, EAGAIN);
	CHECK_EQ(nl_thread_short_take(t), 0u);

	/* pool_run on 3 threads: no start failing, then every one. */
	for (int fail = 0; fail < 2; fail++) {
		struct pool_demo d = {.bad = 8};
		int rcs[8];
		struct nl_err errs[8], e = {0};
		const struct pool_opts o = {.n = 8, .threads = 3, .run = pool_demo_run, .ctx = &d, .what = "runs"};
		if (fail)
			setenv("NETLOOM_TEST_FAIL_THREAD", "all", 1);
		CHECK_OK(pool_run(&o, rcs, errs, &e), &e);
		unsetenv("NETLOOM_TEST_FAIL_THREAD");
		for (size_t i = 0; i < 8; i++)
			CHECK_EQ(rcs[i], 0);
		CHECK_EQ(nl_thread_short_take(t), (size_t)fail);
		if (fail) {
			CHECK_STR(t[0].what, "the runs");
			CHECK_EQ(t[0].asked, 3u);
			CHECK_EQ(t[0].running, 1u);
			CHECK_EQ(t[0].errnum, EAGAIN);
		}
	}
	/* ... noted under its caller's place (a sweep's round), not the
	 * pool's: a line of its own, before the pool's, as that place is
	 * the outer; every start tried, still none running but this one. */
	struct pool_demo d = {.bad = 8};
	int rcs[8];
	struct nl_err errs[8], e = {0};
	const struct pool_opts o = {.n = 8, .threads = 4, .run = pool_demo_run, .ctx = &d, .what = "sweep's points",
				    .place = NL_THREAD_POINTS, .is_every_start_tried = true};
	nl_thread_short_note(NL_THREAD_POOL, "the networks", 3, 2, "pthread_create", EAGAIN);
	setenv("NETLOOM_TEST_FAIL_THREAD", "all", 1);
	CHECK_OK(pool_run(&o, rcs, errs, &e), &e);
	unsetenv("NETLOOM_TEST_FAIL_THREAD");
	for (size_t i = 0; i < 8; i++)
		CHECK_EQ(atomic_load(&d.calls[i]), 1);
	CHECK_EQ(nl_thread_short_take(t), 2u);
	CHECK_STR(t[0].what, "the sweep's points");
	CHECK_EQ(t[0].asked, 4u);
	CHECK_EQ(t[0].running, 1u);
	CHECK_STR(t[1].what, "the networks");
}

int main(void)
{
	TEST_RUN(test_error_table);
	TEST_RUN(test_error_long);
	TEST_RUN(test_error_one_line_utf8);
	TEST_RUN(test_str_one_line);
	TEST_RUN(test_text_width);
	TEST_RUN(test_text_getline);
	TEST_RUN(test_param_parse);
	TEST_RUN(test_param_strtod);
	TEST_RUN(test_param_nested);
	TEST_RUN(test_param_errors);
	TEST_RUN(test_param_list_commas);
	TEST_RUN(test_param_blanks);
	TEST_RUN(test_param_huge_numbers);
	TEST_RUN(test_param_big_bounds);
	TEST_RUN(test_param_vec_element_range);
	TEST_RUN(test_param_integer_overflow);
	TEST_RUN(test_param_empty_expected);
	TEST_RUN(test_param_named);
	TEST_RUN(test_config_dump_unwritable);
	TEST_RUN(test_rng_determinism);
	TEST_RUN(test_rng_distribution);
	TEST_RUN(test_stats_hist);
	TEST_RUN(test_stats_t95);
	TEST_RUN(test_config_file);
	TEST_RUN(test_config_path_keys);
	TEST_RUN(test_path_in_dir);
	TEST_RUN(test_config_file_names);
	TEST_RUN(test_config_long_values);
	TEST_RUN(test_ini_lines_long);
	TEST_RUN(test_ini_lines_names);
	TEST_RUN(test_ini_lines_section_near);
	TEST_RUN(test_output_atomic);
	TEST_RUN(test_output_json_streamed);
	TEST_RUN(test_output_empty_name);
	TEST_RUN(test_output_sticky);
	TEST_RUN(test_output_staged_signals);
	TEST_RUN(test_output_staged_threads);
	TEST_RUN(test_output_staged_registered);
	TEST_RUN(test_output_staged_second_signal);
	TEST_RUN(test_output_read_svg);
	TEST_RUN(test_pool);
	TEST_RUN(test_thread_fail_hook);
	TEST_RUN(test_thread_short);
	return test_done();
}
