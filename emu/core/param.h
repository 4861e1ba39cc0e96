/* Declared parameters: "family:key=value,key=value" parsed once into a typed
 * struct.
 *
 * Every pluggable family (topology, routing, traffic, allocator, placement,
 * ...) declares its parameters as a table of struct param_def. The table
 * gives --help text, defaults, range checks and exact error messages for
 * free, and the hot path reads plain struct fields, never strings.
 */
#ifndef NETLOOM_CORE_PARAM_H
#define NETLOOM_CORE_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct nl_err;

enum param_type {
	PARAM_INT,    /* int64_t */
	PARAM_DOUBLE, /* double */
	PARAM_BOOL,   /* bool: 0/1/true/false/yes/no/on/off */
	PARAM_STRING, /* char[PARAM_STR_MAX]; with choices, one of them (or the default "") */
	PARAM_DIMS,   /* struct param_vec from "8x8x4" (also a lone "8") */
	PARAM_LIST,   /* struct param_vec from "-1/1/3/9" (also a lone "3") */
	PARAM_CHOICE, /* int index into def->choices, from one of the names */
	PARAM_SPEC,   /* char[PARAM_STR_MAX]: a nested spec, "p2(torus:k=8x8)" */
	PARAM_RANGE,  /* struct param_range from "1..32" (also a lone "4" = 4..4) */
	PARAM_PATH,   /* char[PARAM_STR_MAX]: a file the thing reads, text as PARAM_STRING; marked
		       * so its inputs are found from the table (topo_spec_files), not the text */
};

#define PARAM_VEC_MAX 16
/* Strings and nested specs: a topology spec in a paper's notation can be
 * long (Equality n64000k64, seed 002, is ~400 characters); longer ones go
 * through a spec file ("@file", topo_new). */
#define PARAM_STR_MAX 4096

/* A vector parameter: "8x8x4" gives n = 3, v = {8, 8, 4}. The default ""
 * gives n = 0, unset: a value given is never empty (specs and config
 * files refuse it), so it tells "not given" from any list, 0 included. */
struct param_vec {
	int n;
	int64_t v[PARAM_VEC_MAX];
};

/* A range parameter: "1..32" gives lo = 1, hi = 32. */
struct param_range {
	int64_t lo, hi;
};

/* One declared parameter. min/max bound numbers and every vector element;
 * set both to 0 for no bound. */
struct param_def {
	const char *name;
	enum param_type type;
	size_t offset;              /* of the field in the family's params struct */
	const char *defval;         /* text of the default; NULL = required */
	double min, max;            /* inclusive bounds (numbers, vector elements) */
	const char *help;           /* one line */
	const char *const *choices; /* PARAM_CHOICE, PARAM_STRING: NULL-terminated names */
};

/* A parameter table is an array of param_def ended by an entry whose name is
 * NULL. */

/* Split "name:k=v,..." or "name(inner):k=v,..." at the family name. Writes
 * the family name (up to namecap bytes) and returns a pointer to the rest:
 * the "(inner)..." or ":k=v..." tail, or "" when there is none. Returns NULL
 * with *err filled when the spec or its name is empty or the name too
 * long; kind ("topology") says whose spec in that message. */
const char *param_split_name(const char *spec, const char *kind, char *name, size_t namecap, struct nl_err *err);

/* Parse the tail of a spec (what param_split_name returned) into *out using
 * table `defs`. Defaults are applied first, then each "k=v" in order; a
 * leading "(inner)" fills the table's PARAM_SPEC parameter. `what` names the
 * thing in messages ("topology 'torus'"). Unknown keys, repeated keys,
 * missing required keys, unparsable and out-of-range values are errors. */
int param_parse(const struct param_def *defs, void *out, const char *tail, const char *what,
		struct nl_err *err);

/* A new block of `size` bytes (freed with free: no parameter owns memory)
 * holding the parameters of `defs`, named "<kind> '<name>'" in messages
 * ("topology 'torus'"): parsed from `tail` as param_parse does, or only
 * their defaults when tail is NULL (a family's own notation fills the
 * rest). *out is NULL on failure. Every registry of named, parameterised
 * things (topologies, routing functions, traffic patterns) makes its
 * blocks here. */
int param_block_new(const struct param_def *defs, size_t size, const char *kind, const char *name,
		    const char *tail, void **out, struct nl_err *err);

/* Whether value has blanks at either end that d's type refuses (every
 * type but a path, a spec and a free string, which keep them), around
 * something else: *start and *n are the value without them. */
bool param_value_has_blanks(const struct param_def *d, const char *value, const char **start, size_t *n);

/* What a value of d is, for an error's "expected ...", in buf (truncated
 * to cap): "an integer in 1..255", "a number in 0..1", "one of islip,
 * ...", "0/1, true/false, yes/no or on/off", "a spec", "a file name", ...
 * Returns buf. */
const char *param_expected(const struct param_def *d, char *buf, size_t cap);

/* Set one parameter from text (used by param_parse and by config files). */
int param_set(const struct param_def *d, void *out, const char *value, const char *what,
	      struct nl_err *err);

/* strtod for a decimal number in a user's text (a command's option, a
 * key of a workload or study file): without what strtod takes beyond
 * one, a blank before it and C99's hexadecimal floats ('0x1p-3', read as
 * 0.125). Such text sets *end to s, as text with no number does, so the
 * caller's check refuses ' 0.5' and '0x10' as it refuses 'x'. 'inf' and
 * 'nan' are read as strtod reads them: the caller's range refuses them.
 * errno as strtod's, ERANGE for an overflow (+-HUGE_VAL) or a nonzero
 * number that rounds to 0 (below 4.9e-324), but not for a subnormal
 * result (1e-320), which is the number read. */
double param_strtod(const char *s, char **end);

/* A whole unsigned decimal in lo..hi into *out: no sign, nothing after
 * its digits (blanks before it are skipped, as strtoull skips them); the
 * integers of study and workload files. false for anything else. */
bool param_strtou_in(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* Apply all defaults (required parameters are left zeroed). */
int param_defaults(const struct param_def *defs, void *out, const char *what, struct nl_err *err);

/* Look a parameter up by name; NULL if absent. */
const struct param_def *param_find(const struct param_def *defs, const char *name);

/* The most values the parameter takes: PARAM_VEC_MAX for a vector
 * (PARAM_DIMS, PARAM_LIST), 1 otherwise. */
int param_max_elements(const struct param_def *d);

/* Write the value of one parameter as text, in the syntax param_set reads. */
void param_format(const struct param_def *d, const void *in, char *buf, size_t cap);

/* An unset vector (DIMS or LIST left at the default ""): the canonical
 * forms leave it out, since "k=" does not read back. */
bool param_is_unset(const struct param_def *d, const void *in);

/* Write the canonical "k=v,k=v" form of all parameters (defaults included,
 * unset vectors left out). */
void param_format_all(const struct param_def *defs, const void *in, char *buf, size_t cap);

/* The canonical spec "family:k=v,k=v" (just "family" when the table is
 * empty), malloc'd; NULL when out of memory. */
char *param_spec_string(const char *family, const struct param_def *defs, const void *params);

/* Print one line per parameter: name, type, default, range, help. */
void param_print_help(FILE *f, const struct param_def *defs, const char *indent);
/* One key's line of param_print_help. */
void param_print_one(FILE *f, const struct param_def *d, const char *indent);

/* Typed access to a field (defs and offsets are the caller's contract). */
#define PARAM_FIELD(base, d, type) ((type *)((char *)(base) + (d)->offset))

#endif
