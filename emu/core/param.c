/* Declared parameters: parsing, defaults, range checks, formatting. */
#include "core/param.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/config.h"
#include "core/error.h"

static const char *param_type_name(enum param_type t)
{
	switch (t) {
	case PARAM_INT: return "integer";
	case PARAM_DOUBLE: return "number";
	case PARAM_BOOL: return "boolean";
	case PARAM_STRING: return "string";
	case PARAM_DIMS: return "dimensions like 8x8x4";
	/* No negative in the example: most lists (hotspot's endpoints and
	 * weights) refuse them; equality's offsets, which take them, say so
	 * in their own help. */
	case PARAM_LIST: return "integers separated by '/', like 0/3/9";
	case PARAM_CHOICE: return "choice";
	case PARAM_SPEC: return "spec";
	case PARAM_RANGE: return "value or range like 1..32";
	case PARAM_PATH: return "file";
	}
	return "?";
}

static bool param_has_bounds(const struct param_def *d)
{
	return d->min != 0 || d->max != 0;
}

/* A bound as text: an integral one in full (9007199254740992, where
 * %.15g printed 9.00719925474099e+15), others to 15 digits. */
static const char *param_bound(char buf[40], double v)
{
	if (v == floor(v) && fabs(v) < 1e19)
		snprintf(buf, 40, "%.0f", v);
	else
		snprintf(buf, 40, "%.15g", v);
	return buf;
}

/* x within d's bounds, compared as integers: (double)x rounds above
 * 2^53, so 9007199254740993 passed a max of 2^53 and 9200000000000000512
 * one of 9.2e18. The integers in [min, max] are [ceil(min), floor(max)];
 * a bound beyond int64's range excludes all of them or none. */
static bool param_int_in_bounds(const struct param_def *d, int64_t x)
{
	const double two63 = 9223372036854775808.0;
	double lo = ceil(d->min), hi = floor(d->max);

	if (!param_has_bounds(d))
		return true;
	if (lo >= two63 || hi < -two63)
		return false;
	return (lo < -two63 || x >= (int64_t)lo) && (hi >= two63 || x <= (int64_t)hi);
}

static int param_range_error(const struct param_def *d, const char *value, const char *what,
			     struct nl_err *err)
{
	char lo[40], hi[40];
	return nl_errf(err, NL_ERANGE, "%s: parameter '%s' value '%s' out of range: expected a value in %s..%s",
		       what, d->name, value, param_bound(lo, d->min), param_bound(hi, d->max));
}

/* An element of a vector value out of d's bounds, or (unbounded d) past
 * 64 bits: the range message, naming the element when the value has
 * more than one ('4/1234567890123456789012345' said "expected integers
 * separated by '/'", as if the digits were not a number). */
static int param_elem_range_error(const struct param_def *d, const char *value, const char *elem, size_t n,
				  bool is_sole, const char *what, struct nl_err *err)
{
	char lo[40] = "-9223372036854775808", hi[40] = "9223372036854775807";
	if (param_has_bounds(d)) {
		param_bound(lo, d->min);
		param_bound(hi, d->max);
	}
	if (is_sole)
		return nl_errf(err, NL_ERANGE,
			       "%s: parameter '%s' value '%s' out of range: expected each element in %s..%s", what,
			       d->name, value, lo, hi);
	return nl_errf(err, NL_ERANGE,
		       "%s: parameter '%s' value '%s' out of range: expected each element in %s..%s, got '%.*s'", what,
		       d->name, value, lo, hi, (int)n, elem);
}

/* Only decimal digits after an optional sign, in s[0..n). */
static bool param_is_decimal_n(const char *s, size_t n)
{
	size_t i = n && (*s == '-' || *s == '+');
	if (i == n)
		return false;
	for (; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* An integer as param_parse_i64 reads one, in s[0..n), whatever its size:
 * decimal digits, or 0x and hexadecimal digits, after an optional sign.
 * One that does not parse has more digits than 64 bits hold. */
static bool param_is_integer_n(const char *s, size_t n)
{
	size_t i = n && (*s == '-' || *s == '+');
	if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		for (i += 2; i < n; i++)
			if (!isxdigit((unsigned char)s[i]))
				return false;
		return true;
	}
	return param_is_decimal_n(s, n);
}

/* A blank strtoll and strtod skip before a number (C11 7.22.1.4: the
 * isspace characters of the C locale). */
static bool param_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

double param_strtod(const char *s, char **end)
{
	const char *digits = s + (*s == '-' || *s == '+');
	if (param_is_blank(*s) || (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))) {
		*end = (char *)s;
		return 0;
	}
	/* C11 7.22.1.3 lets strtod set ERANGE on any underflow, and glibc
	 * does for subnormals: 1e-320 is in 0..1 and was refused as not a
	 * number. Only an underflow to 0 loses the value. */
	int saved = errno;
	double x = strtod(s, end);
	if (errno == ERANGE && x != 0 && isfinite(x))
		errno = saved;
	/* '-0' is 0: kept negative, tables and JSON wrote it as -0.0000. */
	return x == 0 ? 0.0 : x;
}

bool param_strtou_in(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	unsigned long long u = strtoull(s, &end, 10);
	if (errno || *end || u < lo || u > hi)
		return false;
	*out = u;
	return true;
}

static int param_parse_i64(const char *s, const char *end, int64_t *out)
{
	char buf[64];
	size_t n = (size_t)(end - s);
	char *e;

	/* A blank before the digits is refused as one after them is
	 * ('ugal:threshold= 5' was read as 5, 'threshold=5 ' refused). */
	if (n == 0 || param_is_blank(*s))
		return -1;
	/* Decimal, or hexadecimal with 0x: a leading zero is not octal. */
	size_t sign = *s == '-' || *s == '+';
	size_t pre = sign + (n >= sign + 2 && s[sign] == '0' && (s[sign + 1] == 'x' || s[sign + 1] == 'X') ? 2 : 0);
	int base = pre > sign ? 16 : 10;
	/* Leading zeros are not digits that count: 70 zeros and a 4 are 4,
	 * and were refused as out of range (too long for the buffer). */
	size_t z = pre;
	while (z + 1 < n && s[z] == '0')
		z++;
	if (pre + n - z >= sizeof buf)
		return -1;
	memcpy(buf, s, pre);
	memcpy(buf + pre, s + z, n - z);
	buf[pre + n - z] = '\0';
	errno = 0;
	long long v = strtoll(buf, &e, base);
	if (errno || *e != '\0')
		return -1;
	*out = v;
	return 0;
}

static int param_parse_vec(const struct param_def *d, const char *value, char sep,
			   struct param_vec *vec, const char *what, struct nl_err *err)
{
	const char *p = value;

	vec->n = 0;
	if (!*value) /* the unset default (param.h) */
		return 0;
	for (;;) {
		const char *q = strchr(p, sep);
		const char *end = q ? q : p + strlen(p);
		int64_t x;

		if (vec->n == PARAM_VEC_MAX)
			return nl_errf(err, NL_ERANGE, "%s: parameter '%s' value '%s': expected at most %d elements",
				       what, d->name, value, PARAM_VEC_MAX);
		bool is_sole = p == value && !q;
		if (param_parse_i64(p, end, &x) < 0) {
			/* Digits too many for 64 bits: out of range, as a
			 * single number is (param_set's PARAM_INT). */
			if (param_is_integer_n(p, (size_t)(end - p)))
				return param_elem_range_error(d, value, p, (size_t)(end - p), is_sole, what, err);
			return nl_errf(err, NL_EFORMAT, "%s: parameter '%s' value '%s': expected %s",
				       what, d->name, value, param_type_name(d->type));
		}
		if (!param_int_in_bounds(d, x))
			return param_elem_range_error(d, value, p, (size_t)(end - p), is_sole, what, err);
		vec->v[vec->n++] = x;
		if (!q)
			break;
		p = q + 1;
	}
	return 0;
}

const char *param_expected(const struct param_def *d, char *buf, size_t cap)
{
	char lo[40] = "", hi[40] = "";
	bool has_bounds = param_has_bounds(d);
	if (has_bounds) {
		param_bound(lo, d->min);
		param_bound(hi, d->max);
	}
	const char *in = has_bounds ? " in " : "", *dots = has_bounds ? ".." : "";
	switch (d->type) {
	case PARAM_INT:
		if (!has_bounds)
			snprintf(buf, cap, "an integer");
		else
			snprintf(buf, cap, "an integer in %s..%s", lo, hi);
		return buf;
	case PARAM_DOUBLE: snprintf(buf, cap, "a number%s%s%s%s", in, lo, dots, hi); return buf;
	case PARAM_BOOL: snprintf(buf, cap, "0/1, true/false, yes/no or on/off"); return buf;
	case PARAM_DIMS:
	case PARAM_LIST: snprintf(buf, cap, "%s", param_type_name(d->type)); return buf;
	case PARAM_RANGE: snprintf(buf, cap, "an integer or a range lo..hi%s%s%s%s", in, lo, dots, hi); return buf;
	case PARAM_SPEC: snprintf(buf, cap, "a spec"); return buf;
	case PARAM_PATH: snprintf(buf, cap, "a file name"); return buf;
	case PARAM_STRING:
	case PARAM_CHOICE:
		if (!d->choices) {
			snprintf(buf, cap, "a name");
			return buf;
		}
		size_t used = (size_t)snprintf(buf, cap, "one of ");
		for (size_t i = 0; d->choices[i]; i++)
			used += (size_t)snprintf(buf + (used < cap ? used : cap), used < cap ? cap - used : 0, "%s%s",
						 i ? ", " : "", d->choices[i]);
		return buf;
	}
	NL_BUG("parameter type %d", (int)d->type);
}

/* value's index in d->choices, or -1. */
static int param_choice_index(const struct param_def *d, const char *value)
{
	for (int i = 0; d->choices[i]; i++)
		if (!strcmp(value, d->choices[i]))
			return i;
	return -1;
}

static int param_choice_error(const struct param_def *d, const char *value, const char *what,
			      struct nl_err *err)
{
	char list[PARAM_STR_MAX] = "";
	size_t used = 0, n = 0;
	for (; d->choices[n]; n++)
		used += (size_t)snprintf(list + used, used < sizeof list ? sizeof list - used : 0, "%s%s",
					 n ? ", " : "", d->choices[n]);
	/* A typo of one choice names it, as a mistyped key does ('sprad':
	 * spread); another word keeps the list alone. */
	const char *near = config_name_near(value, strlen(value), d->choices, n);
	return nl_errf(err, NL_EINVAL, "%s: parameter '%s' value '%s': expected one of %s%s%s%s", what, d->name,
		       value, list, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
}

int param_set(const struct param_def *d, void *out, const char *value, const char *what,
	      struct nl_err *err)
{
	switch (d->type) {
	case PARAM_INT: {
		int64_t x;
		if (param_parse_i64(value, value + strlen(value), &x) < 0) {
			/* Digits too many for 64 bits, decimal or 0x
			 * hexadecimal ('seed = 0x8000000000000000'): out of
			 * range, not "not an integer". */
			bool is_integer = param_is_integer_n(value, strlen(value));
			if (is_integer && param_has_bounds(d))
				return param_range_error(d, value, what, err);
			if (is_integer)
				return nl_errf(err, NL_ERANGE,
					       "%s: parameter '%s' value '%s' out of range: expected an integer in "
					       "-9223372036854775808..9223372036854775807",
					       what, d->name, value);
			return nl_errf(err, NL_EFORMAT, "%s: parameter '%s' value '%s': expected an integer",
				       what, d->name, value);
		}
		if (!param_int_in_bounds(d, x))
			return param_range_error(d, value, what, err);
		*PARAM_FIELD(out, d, int64_t) = x;
		return 0;
	}
	case PARAM_DOUBLE: {
		char *e;
		errno = 0;
		/* Decimal, as a command's numbers are: strtod read C99's
		 * hexadecimal floats ('injection_rate = 0x1p-4' ran at
		 * 0.0625); integers keep their 0x. */
		double x = param_strtod(value, &e);
		if (errno == ERANGE && x == 0 && e != value && *e == '\0')
			return nl_errf(err, NL_ERANGE,
				       "%s: parameter '%s' value '%s': too small to represent (rounds to 0); expected 0 "
				       "or a magnitude of at least 4.9e-324",
				       what, d->name, value);
		/* A decimal past the doubles ('frac=1e400') is a number, out of
		 * range: it said "expected a number". */
		if (errno == ERANGE && isinf(x) && e != value && *e == '\0') {
			if (param_has_bounds(d))
				return param_range_error(d, value, what, err);
			return nl_errf(err, NL_ERANGE,
				       "%s: parameter '%s' value '%s': too large to represent; expected a magnitude of at "
				       "most 1.8e308",
				       what, d->name, value);
		}
		if (errno || e == value || *e != '\0' || !isfinite(x))
			return nl_errf(err, NL_EFORMAT, "%s: parameter '%s' value '%s': expected a number",
				       what, d->name, value);
		if (param_has_bounds(d) && (x < d->min || x > d->max))
			return param_range_error(d, value, what, err);
		*PARAM_FIELD(out, d, double) = x;
		return 0;
	}
	case PARAM_BOOL: {
		static const char *const yes[] = {"1", "true", "yes", "on"};
		static const char *const no[] = {"0", "false", "no", "off"};
		for (size_t i = 0; i < 4; i++) {
			if (!strcasecmp(value, yes[i])) {
				*PARAM_FIELD(out, d, bool) = true;
				return 0;
			}
			if (!strcasecmp(value, no[i])) {
				*PARAM_FIELD(out, d, bool) = false;
				return 0;
			}
		}
		return nl_errf(err, NL_EFORMAT, "%s: parameter '%s' value '%s': expected 0/1, true/false, yes/no or on/off",
			       what, d->name, value);
	}
	case PARAM_STRING:
	case PARAM_SPEC:
	case PARAM_PATH: {
		size_t n = strlen(value);
		if (n >= PARAM_STR_MAX)
			return nl_errf(err, NL_ERANGE,
				       "%s: parameter '%s': value longer than %d characters; expected at most %d%s", what,
				       d->name, PARAM_STR_MAX - 1, PARAM_STR_MAX - 1,
				       !strcmp(d->name, "topology") ? " (a longer spec goes in a spec file: topology = @FILE)"
								    : "");
		/* A name checked when read, kept as text for its registry's
		 * lookup; "" is the unset default (a value given is never
		 * empty: config and specs refuse that first). */
		if (d->type == PARAM_STRING && d->choices && value[0] && param_choice_index(d, value) < 0)
			return param_choice_error(d, value, what, err);
		memcpy(PARAM_FIELD(out, d, char), value, n + 1);
		return 0;
	}
	case PARAM_DIMS:
		return param_parse_vec(d, value, 'x', PARAM_FIELD(out, d, struct param_vec), what, err);
	case PARAM_LIST:
		return param_parse_vec(d, value, '/', PARAM_FIELD(out, d, struct param_vec), what, err);
	case PARAM_RANGE: {
		struct param_range *r = PARAM_FIELD(out, d, struct param_range);
		const char *dots = strstr(value, "..");
		const char *end = value + strlen(value);
		const char *lo_end = dots ? dots : end, *hi_start = dots ? dots + 2 : value;
		bool lo_bad = param_parse_i64(value, lo_end, &r->lo) < 0;
		bool hi_bad = param_parse_i64(hi_start, end, &r->hi) < 0;
		/* Digits too many for 64 bits are out of range, as a single
		 * number's are ('packet_size = 99999999999999999999' said
		 * "expected value or range like 1..32"). */
		bool is_big = (lo_bad || hi_bad) && (!lo_bad || param_is_integer_n(value, (size_t)(lo_end - value))) &&
			      (!hi_bad || param_is_integer_n(hi_start, (size_t)(end - hi_start)));
		if ((lo_bad || hi_bad) && !is_big)
			return nl_errf(err, NL_EFORMAT, "%s: parameter '%s' value '%s': expected %s",
				       what, d->name, value, param_type_name(d->type));
		if (!is_big && r->lo > r->hi)
			return nl_errf(err, NL_ERANGE,
				       "%s: parameter '%s' value '%s': range is empty (lo > hi); expected lo..hi with "
				       "lo <= hi",
				       what, d->name, value);
		if (is_big || !param_int_in_bounds(d, r->lo) || !param_int_in_bounds(d, r->hi)) {
			char lo[40], hi[40];
			return nl_errf(err, NL_ERANGE,
				       "%s: parameter '%s' value '%s' out of range: expected values in %s..%s", what,
				       d->name, value, param_bound(lo, d->min), param_bound(hi, d->max));
		}
		return 0;
	}
	case PARAM_CHOICE: {
		int i = param_choice_index(d, value);
		if (i < 0)
			return param_choice_error(d, value, what, err);
		*PARAM_FIELD(out, d, int) = i;
		return 0;
	}
	}
	NL_BUG("parameter type %d", (int)d->type);
}

const struct param_def *param_find(const struct param_def *defs, const char *name)
{
	for (const struct param_def *d = defs; d && d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

int param_max_elements(const struct param_def *d)
{
	return d->type == PARAM_DIMS || d->type == PARAM_LIST ? PARAM_VEC_MAX : 1;
}

int param_defaults(const struct param_def *defs, void *out, const char *what, struct nl_err *err)
{
	for (const struct param_def *d = defs; d && d->name; d++)
		if (d->defval)
			NL_CHECK(param_set(d, out, d->defval, what, err));
	return 0;
}

const char *param_split_name(const char *spec, const char *kind, char *name, size_t namecap, struct nl_err *err)
{
	size_t n = strcspn(spec, ":(");

	/* 'topo describe "$SPEC"' with SPEC unset said "empty name in spec
	 * ''": neither of what nor what was expected. */
	if (spec[0] == '\0')
		return nl_errf(err, NL_EINVAL, "empty %s spec; expected NAME:key=value,...", kind), NULL;
	if (n == 0)
		return nl_errf(err, NL_EINVAL, "%s spec '%s' has no name; expected NAME%s", kind, spec, spec), NULL;
	if (n >= namecap)
		return nl_errf(err, NL_EINVAL, "%s name too long in spec '%s'; expected at most %zu characters", kind,
			       spec, namecap - 1),
		       NULL;
	memcpy(name, spec, n);
	name[n] = '\0';
	return spec + n;
}

/* The parameter name key is a typo of, by the rule registries use for
 * family names (config_name_near: case folded, so the papers' 'S' and
 * 'Nx' are 's' and 'nx'), or NULL. */
static const char *param_name_near(const struct param_def *defs, const char *key)
{
	const char *names[64];
	size_t n = 0;
	for (const struct param_def *d = defs; d && d->name && n < sizeof names / sizeof *names; d++)
		names[n++] = d->name;
	return config_name_near(key, strlen(key), names, n);
}

/* The endpoints per router go by p in most families, t in a HyperX (seed
 * 001's T) and c in a cmesh (BookSim's concentration): for one of those
 * names given to a family that calls them otherwise, its parameter for
 * them (found by its help text), else NULL. */
static const struct param_def *param_endpoints_def(const struct param_def *defs, const char *key)
{
	if (strcmp(key, "p") && strcmp(key, "t") && strcmp(key, "c"))
		return NULL;
	for (const struct param_def *d = defs; d && d->name; d++)
		if (d->help && (!strncmp(d->help, "endpoints per ", 14) || !strncmp(d->help, "terminals per ", 14)))
			return d;
	return NULL;
}

static void param_names(const struct param_def *defs, char *buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const struct param_def *d = defs; d && d->name; d++)
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%s",
					 d == defs ? "" : ", ", d->name);
	if (!defs || !defs->name)
		snprintf(buf, cap, "none");
}

int param_block_new(const struct param_def *defs, size_t size, const char *kind, const char *name,
		    const char *tail, void **out, struct nl_err *err)
{
	char what[96];
	void *p = calloc(1, size ? size : 1);
	*out = NULL;
	if (!p)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	snprintf(what, sizeof what, "%s '%s'", kind, name);
	int rc = tail ? param_parse(defs, p, tail, what, err) : param_defaults(defs, p, what, err);
	if (rc < 0) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/* s[0..n) without the blanks at either end, as [*start, *start + *len). */
static void param_trim(const char *s, size_t n, const char **start, size_t *len)
{
	while (n && param_is_blank(*s)) {
		s++;
		n--;
	}
	while (n && param_is_blank(s[n - 1]))
		n--;
	*start = s;
	*len = n;
}

/* A value the parser reads as a name or a path keeps its blanks (a file
 * name may hold them); every other type refuses them, as a number does. */
static bool param_refuses_blanks(const struct param_def *d)
{
	return d->type != PARAM_PATH && d->type != PARAM_SPEC && !(d->type == PARAM_STRING && !d->choices);
}

bool param_value_has_blanks(const struct param_def *d, const char *value, const char **start, size_t *n)
{
	param_trim(value, strlen(value), start, n);
	return param_refuses_blanks(d) && *n != 0 && *n != strlen(value);
}

/* 'k=4x4, p=2' said "unknown parameter ' p' (valid: k, n, p)", as if p
 * were not among them: a name that is a parameter's once its blanks go
 * is refused for the blanks. 0 when key is not such a name. */
static int param_check_blank_name(const struct param_def *defs, const char *key, const char *what,
				  struct nl_err *err)
{
	char bare[64];
	const char *start;
	size_t n;
	param_trim(key, strlen(key), &start, &n);
	if (n == 0 || n == strlen(key) || n >= sizeof bare)
		return 0;
	memcpy(bare, start, n);
	bare[n] = '\0';
	if (!param_find(defs, bare))
		return 0;
	return nl_errf(err, NL_EINVAL,
		       "%s: unknown parameter '%s': expected '%s' (no blanks around a parameter's name or value)", what,
		       key, bare);
}

/* 'k=4x4 ,p=2' said "value '4x4 ': expected dimensions like 8x8x4", as
 * if the number were wrong: a value d refuses blanks in (every type
 * param_set refuses them in) is refused for the blanks. */
static int param_check_blank_value(const struct param_def *d, const char *val, const char *what,
				   struct nl_err *err)
{
	const char *start;
	size_t n;
	if (!param_value_has_blanks(d, val, &start, &n))
		return 0;
	return nl_errf(err, NL_EFORMAT,
		       "%s: parameter '%s' value '%s': expected '%.*s' (no blanks around a parameter's name or value)",
		       what, d->name, val, (int)n, start);
}

/* s[0..n) is decimals joined by sep ('8', '8x8', '-1/1'). */
static bool param_is_list_n(const char *s, size_t n, char sep)
{
	const char *end = s + n;
	for (;;) {
		const char *q = memchr(s, sep, (size_t)(end - s));
		if (!param_is_decimal_n(s, (size_t)((q ? q : end) - s)))
			return false;
		if (!q)
			return true;
		s = q + 1;
	}
}

/* 'sa=-1,1,3,9' (the paper's notation has commas) or 'k=8,8' is cut at
 * the first ',', and the next number is no key=value: name the separator
 * d's list takes and the value written with it, from the numbers that
 * follow vals (where d's value starts in the spec). */
static int param_list_split_error(const struct param_def *d, const char *vals, const char *got, size_t got_n,
				  const char *what, struct nl_err *err)
{
	char sep = d->type == PARAM_DIMS ? 'x' : '/';
	char joined[PARAM_STR_MAX];
	size_t used = 0;
	for (const char *p = vals; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (!param_is_list_n(p, n, sep) || used + n + 2 > sizeof joined)
			break;
		if (used)
			joined[used++] = sep;
		memcpy(joined + used, p, n);
		used += n;
		if (!comma)
			break;
		p = comma + 1;
	}
	joined[used] = '\0';
	return nl_errf(err, NL_EFORMAT,
		       "%s: expected key=value, got '%.*s' (parameters are split at ','; the values of '%s' are "
		       "joined by '%c': %s=%s)",
		       what, (int)got_n, got, d->name, sep, d->name, joined);
}

int param_parse(const struct param_def *defs, void *out, const char *tail, const char *what,
		struct nl_err *err)
{
	char seen[64] = {0};
	size_t n_defs = 0;
	const char *p = tail;

	while (defs && defs[n_defs].name)
		n_defs++;
	if (n_defs > sizeof seen)
		NL_BUG("too many parameters in table for %s", what);
	NL_CHECK(param_defaults(defs, out, what, err));

	if (*p == '(') {
		int depth = 0;
		const char *q = p;
		for (; *q; q++) {
			if (*q == '(')
				depth++;
			else if (*q == ')' && --depth == 0)
				break;
		}
		if (*q != ')')
			return nl_errf(err, NL_EFORMAT, "%s: unbalanced '(' in '%s'", what, tail);
		const struct param_def *sd = NULL;
		for (size_t i = 0; i < n_defs; i++)
			if (defs[i].type == PARAM_SPEC)
				sd = &defs[i];
		if (!sd)
			return nl_errf(err, NL_EFORMAT, "%s: takes no '(...)' argument", what);
		char inner[PARAM_STR_MAX];
		size_t len = (size_t)(q - p - 1);
		if (len >= sizeof inner)
			return nl_errf(err, NL_ERANGE, "%s: nested spec longer than %d characters", what,
				       PARAM_STR_MAX - 1);
		memcpy(inner, p + 1, len);
		inner[len] = '\0';
		NL_CHECK(param_set(sd, out, inner, what, err));
		seen[sd - defs] = 1;
		p = q + 1;
	}
	if (*p == ':' && p[1] == '\0')
		return nl_errf(err, NL_EFORMAT, "%s: expected key=value after ':' (or no ':' for the defaults)", what);
	if (*p == ':')
		p++;
	else if (*p != '\0')
		return nl_errf(err, NL_EFORMAT, "%s: expected ':' before parameters in '%s'", what, tail);

	const struct param_def *prev = NULL; /* the parameter before this one */
	const char *prev_val = NULL;         /* where its value starts in tail */
	while (*p) {
		char key[64], val[PARAM_STR_MAX];
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		const char *eq = memchr(p, '=', (size_t)(end - p));
		char names[512];

		/* A file name holding a ',' is cut there: say why the rest is
		 * not a parameter. */
		if (!eq && prev && prev->type == PARAM_PATH)
			return nl_errf(err, NL_EFORMAT,
				       "%s: expected key=value, got '%.*s' (parameters are split at ','; the path of "
				       "'%s' cannot hold one)",
				       what, (int)(end - p), p, prev->name);
		if (!eq && prev && (prev->type == PARAM_DIMS || prev->type == PARAM_LIST) &&
		    param_is_list_n(p, (size_t)(end - p), prev->type == PARAM_DIMS ? 'x' : '/'))
			return param_list_split_error(prev, prev_val, p, (size_t)(end - p), what, err);
		if (!eq || eq == p)
			return nl_errf(err, NL_EFORMAT, "%s: expected key=value, got '%.*s'", what,
				       (int)(end - p), p);
		if ((size_t)(eq - p) >= sizeof key || (size_t)(end - eq - 1) >= sizeof val)
			return nl_errf(err, NL_ERANGE, "%s: parameter too long in '%.*s'", what,
				       (int)(end - p), p);
		memcpy(key, p, (size_t)(eq - p));
		key[eq - p] = '\0';
		memcpy(val, eq + 1, (size_t)(end - eq - 1));
		val[end - eq - 1] = '\0';

		const struct param_def *d = param_find(defs, key);
		if (!d) {
			NL_CHECK(param_check_blank_name(defs, key, what, err));
			param_names(defs, names, sizeof names);
			/* base=fattree:k=2,n=2 is cut at the ',': say why n is
			 * not the base's. */
			if (prev && prev->type == PARAM_SPEC)
				return nl_errf(err, NL_EINVAL,
					       "%s: unknown parameter '%s' (valid: %s; a ',' ends the value of '%s': a "
					       "nested spec holding ',' goes in parentheses, as in p2(torus:k=8x8,p=2))",
					       what, key, names, prev->name);
			/* 'hyperx:S=8x8' said "unknown parameter 'S' (valid: s,
			 * k, t, r)" where 'Hyperx' gets "did you mean 'hyperx'?". */
			const char *near = param_name_near(defs, key);
			/* 'hyperx:s=4x4,p=2' named t among the valid names
			 * without saying that t is the endpoints here. */
			const struct param_def *ends = near ? NULL : param_endpoints_def(defs, key);
			if (ends)
				return nl_errf(err, NL_EINVAL,
					       "%s: unknown parameter '%s' (the endpoints per router are '%s' here; valid: %s)",
					       what, key, ends->name, names);
			return nl_errf(err, NL_EINVAL, "%s: unknown parameter '%s' (%s%s%svalid: %s)", what, key,
				       near ? "did you mean '" : "", near ? near : "", near ? "'? " : "", names);
		}
		if (seen[d - defs])
			return nl_errf(err, NL_EINVAL, "%s: parameter '%s' given twice", what, key);
		if (val[0] == '\0') {
			char want[PARAM_STR_MAX];
			return nl_errf(err, NL_EFORMAT, "%s: parameter '%s' has an empty value; expected %s", what, key,
				       param_expected(d, want, sizeof want));
		}
		NL_CHECK(param_check_blank_value(d, val, what, err));
		seen[d - defs] = 1;
		NL_CHECK(param_set(d, out, val, what, err));
		prev = d;
		prev_val = eq + 1;
		p = comma ? comma + 1 : end;
		if (comma && !*p)
			return nl_errf(err, NL_EFORMAT, "%s: trailing ',' in '%s'", what, tail);
	}

	for (size_t i = 0; i < n_defs; i++)
		if (!defs[i].defval && !seen[i])
			return nl_errf(err, NL_EINVAL, "%s: required parameter '%s' missing (%s)", what,
				       defs[i].name, defs[i].help ? defs[i].help : param_type_name(defs[i].type));
	return 0;
}

static void param_format_vec(const struct param_vec *v, char sep, char *buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < v->n; i++)
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%" PRId64,
					 i ? (char[]){sep, '\0'} : "", v->v[i]);
}

void param_format(const struct param_def *d, const void *in, char *buf, size_t cap)
{
	void *base = (void *)in;
	switch (d->type) {
	case PARAM_INT:
		snprintf(buf, cap, "%" PRId64, *PARAM_FIELD(base, d, int64_t));
		return;
	case PARAM_DOUBLE: {
		/* Shortest text that reads back to the same double. */
		double x = *PARAM_FIELD(base, d, double);
		/* A subnormal has fewer significant digits than %.6g prints:
		 * 1e-320 read back from '9.99989e-321' (docs/configuration.md,
		 * --dump: "the shortest decimal"). From 1 digit up for those;
		 * from 6 for the others, which keeps '100000', not '1e+05'. */
		int prec = fpclassify(x) == FP_SUBNORMAL ? 1 : 6;
		for (; prec <= 17; prec++) {
			snprintf(buf, cap, "%.*g", prec, x);
			if (strtod(buf, NULL) == x)
				break;
		}
		return;
	}
	case PARAM_BOOL:
		snprintf(buf, cap, "%d", *PARAM_FIELD(base, d, bool) ? 1 : 0);
		return;
	case PARAM_STRING:
	case PARAM_SPEC:
	case PARAM_PATH:
		snprintf(buf, cap, "%s", PARAM_FIELD(base, d, char));
		return;
	case PARAM_DIMS:
		param_format_vec(PARAM_FIELD(base, d, struct param_vec), 'x', buf, cap);
		return;
	case PARAM_LIST:
		param_format_vec(PARAM_FIELD(base, d, struct param_vec), '/', buf, cap);
		return;
	case PARAM_CHOICE:
		snprintf(buf, cap, "%s", d->choices[*PARAM_FIELD(base, d, int)]);
		return;
	case PARAM_RANGE: {
		const struct param_range *r = PARAM_FIELD(base, d, struct param_range);
		if (r->lo == r->hi)
			snprintf(buf, cap, "%" PRId64, r->lo);
		else
			snprintf(buf, cap, "%" PRId64 "..%" PRId64, r->lo, r->hi);
		return;
	}
	}
}

bool param_is_unset(const struct param_def *d, const void *in)
{
	return (d->type == PARAM_DIMS || d->type == PARAM_LIST) &&
	       PARAM_FIELD((void *)in, d, struct param_vec)->n == 0;
}

void param_format_all(const struct param_def *defs, const void *in, char *buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const struct param_def *d = defs; d && d->name; d++) {
		char v[PARAM_STR_MAX];
		if (param_is_unset(d, in))
			continue;
		param_format(d, in, v, sizeof v);
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%s=%s", used ? "," : "",
					 d->name, v);
	}
}

void param_print_help(FILE *f, const struct param_def *defs, const char *indent)
{
	for (const struct param_def *d = defs; d && d->name; d++)
		param_print_one(f, d, indent);
}

/* " [integer, 1..255]": the type of d's values and their range, which
 * every key's line gives ('topo list --help' promises both). A seed and a
 * boolean showed neither, a list only its range. A choice's names are
 * its range, shown before. */
static void param_print_type(FILE *f, const struct param_def *d)
{
	char range[96] = "";
	/* Integer keys say so: "[-1e+06..1e+06]" read as a real range. */
	bool is_whole = d->type != PARAM_DOUBLE;
	if (param_has_bounds(d))
		snprintf(range, sizeof range, is_whole ? "%.0f..%.0f" : "%.15g..%.15g", d->min, d->max);
	const char *in = range[0] ? ", " : "", *each = range[0] ? ", each " : "";
	switch (d->type) {
	case PARAM_INT: /* no bounds: any int64 (param_parse_i64) */
		fprintf(f, " [integer, %s]", range[0] ? range : "-2^63..2^63-1");
		return;
	case PARAM_DOUBLE: fprintf(f, " [number%s%s]", in, range); return;
	case PARAM_BOOL: fputs(" [boolean: 0/1, true/false, yes/no or on/off]", f); return;
	case PARAM_DIMS: fprintf(f, " [integers joined by 'x'%s%s]", each, range); return;
	case PARAM_LIST: fprintf(f, " [integers joined by '/'%s%s]", each, range); return;
	case PARAM_RANGE: fprintf(f, " [integer or range lo..hi%s%s]", range[0] ? ", within " : "", range); return;
	case PARAM_STRING:
		if (!d->choices)
			fputs(" [string]", f);
		return;
	case PARAM_SPEC: fputs(" [spec]", f); return;
	case PARAM_PATH: fputs(" [input file]", f); return;
	case PARAM_CHOICE: return;
	}
}

void param_print_one(FILE *f, const struct param_def *d, const char *indent)
{
	fprintf(f, "%s%-14s %s", indent, d->name, d->help ? d->help : "");
	if (d->type == PARAM_CHOICE || (d->type == PARAM_STRING && d->choices)) {
		fprintf(f, " (");
		for (int i = 0; d->choices[i]; i++)
			fprintf(f, "%s%s", i ? "|" : "", d->choices[i]);
		fprintf(f, ")");
	}
	/* An empty default is no value (an unset vector, no file, a choice
	 * the help says is made later): "[default ]" read as a printing slip. */
	if (d->defval && !d->defval[0])
		fprintf(f, " [default unset]");
	else if (d->defval)
		fprintf(f, " [default %s]", d->defval);
	else
		fprintf(f, " [required]");
	param_print_type(f, d);
	fputc('\n', f);
}

char *param_spec_string(const char *family, const struct param_def *defs, const void *params)
{
	char buf[2048];
	int n = snprintf(buf, sizeof buf, "%s:", family);
	param_format_all(defs, params, buf + n, sizeof buf - (size_t)n);
	if (buf[n] == '\0')
		buf[n - 1] = '\0';
	return strdup(buf);
}
