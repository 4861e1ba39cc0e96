/* Run configuration: INI files (libinih) plus "-s key=value" overrides.
 *
 * Keys are flat and named as in BookSim2 where the concept is the same, so
 * users' configs port. Each module declares its keys in a struct
 * config_table (a param_def table over the module's own config struct); the
 * caller hands the list of tables to config_init. Every value is checked
 * (type, range, choice) when it is set, so an error names the file, line,
 * key and value; modules then bind their typed struct once with
 * config_bind and never look a string up again.
 */
#ifndef NETLOOM_CORE_CONFIG_H
#define NETLOOM_CORE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/param.h"

struct nl_err;
struct json_t;

/* One module's keys. The INI section [section] may hold them; keys are also
 * accepted outside any section (BookSim style). */
struct config_table {
	const char *section;         /* "network", "router", "traffic", "simulation", ... */
	const char *help;            /* one line, for --help */
	const struct param_def *keys; /* NULL-terminated; offsets into the module struct */
	size_t struct_size;          /* sizeof the module struct, for validation scratch */
};

/* One value that was set, with where it came from. */
struct config_entry {
	const struct config_table *table;
	const struct param_def *def;
	char *value;  /* text as given; a file's relative file names read from its folder (config_load_file) */
	char *origin; /* "file.ini:12" or "-s" */
	char *given;  /* the file's text, when value differs from it by its file names; else NULL */
	char *base;   /* with given: the absolute folder they were read from */
};

struct config {
	const struct config_table *const *tables; /* not owned */
	size_t n_tables;
	struct config_entry *entries; /* owned; last value of a key wins */
	size_t n_entries, cap_entries;
	/* Names a module above core registers (a network backend, a placement
	 * policy) are string keys to the tables; this checks such a value
	 * when it is set, as a table's choices are, so a typo is refused at
	 * its file:line or -s by every command, not only by the one that
	 * reads the key. Fills *err with "expected ..." and returns < 0; NULL:
	 * no such keys. */
	int (*check_value)(const char *key, const char *value, struct nl_err *err);
};

/* Start an empty configuration over `tables` (kept by pointer). */
void config_init(struct config *c, const struct config_table *const *tables, size_t n_tables);
void config_release(struct config *c);

/* Read an INI file; every key is validated. On error nothing is kept from
 * this file and *err names "path:line: ...". A relative file name in a
 * value (a PARAM_PATH key; the @FILE and file= of a spec key) is read
 * from the file's folder: the value kept names it by that folder's
 * absolute path, so it reads the same from any working directory (and so
 * do the results' `config` and --dump). A file that is not a regular one
 * (a pipe, /dev/stdin) has no folder: its names stay relative to the
 * working directory, as -s values and the string and stream loaders'. */
int config_load_file(struct config *c, const char *path, struct nl_err *err);

/* The same from an open stream (not closed) or from INI text; path/name
 * is what error messages call the input. */
int config_load_stream(struct config *c, FILE *f, const char *path, struct nl_err *err);
int config_load_string(struct config *c, const char *text, const char *name, struct nl_err *err);

/* Set one key ("-s key=value" passes kv = "key=value", value = NULL; or
 * key and value separately). `origin` is recorded for --dump. */
int config_set(struct config *c, const char *kv, const char *value, const char *origin,
	       struct nl_err *err);

/* Find which table declares `key`; NULL if none. */
const struct config_table *config_find_key(const struct config *c, const char *key,
					   const struct param_def **def);

/* Text of a key as set, or NULL when it was left at its default. */
const char *config_get(const struct config *c, const char *key);
/* config_get, or the key's default when it is not set (NULL for a key
 * of none of c's tables). */
const char *config_get_or_default(const struct config *c, const char *key);

/* Whether `key` names a file the work reads (a PARAM_PATH key of c's
 * tables: placement_map, calibration). Checks of inputs against outputs
 * and compare's cache key list the files from here, so a key added with
 * PARAM_PATH is covered by both without naming it there. */
bool config_is_path_key(const struct config *c, const char *key);

/* fn(ctx, key, value) for each PARAM_PATH key of c's tables set to a
 * non-empty value, in table order; a non-zero return stops the walk and
 * is returned. */
int config_each_path(const struct config *c, int (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* Where a key was set, as read-time errors name it ("file.ini:12", "-s"),
 * so a check made later, once the topology is known, starts its message
 * the same way; NULL when the key was left at its default or c is NULL.
 * The string is c's, valid until the key is set again or c released. */
const char *config_origin(const struct config *c, const char *key);

/* How many of c's values the file `path` set ("path:LINE" origins): 0
 * for a file that is empty or holds only comments and section headers,
 * or whose keys a later file or -s replaced. */
size_t config_keys_from(const struct config *c, const char *path);

/* config_origin when a file ("file.ini:12") or the command line's -s set
 * the key, the places a refusal names; NULL otherwise (--topology, a
 * study, nl_sim_set, the default). */
const char *config_place(const struct config *c, const char *key);

/* Prefix the refusal in *err with the file and line where `key` was set
 * ("run.ini:3: topology 'torus': ..."), when a configuration file set it,
 * or with "-s" when the command line's -s did: a spec parsed only when the
 * network is built (topology, traffic, routing_function) is then found
 * where it was given, as a value read earlier is. Set otherwise
 * (--topology, a study, nl_sim_set) or left at its default: unchanged, the
 * caller's own text naming the value. A file name the key's file wrote
 * relative, quoted in the refusal as it was read, is named as written and
 * where it was looked for ("run.ini:3: topology '@spec.txt' (resolved to
 * /home/me/exp/spec.txt, relative to the config run.ini): cannot open spec
 * file: ..."). Returns err->code. */
int config_err_file_line(const struct config *c, const char *key, struct nl_err *err);

/* Only the renaming of config_err_file_line: the file names `key`'s file
 * wrote relative, named in err as they were read, are named as written
 * and where they were looked for; for a message that names the key's
 * place itself (an input that is also an output, cli_check_files). */
void config_err_files(const struct config *c, const char *key, struct nl_err *err);

/* The same for a refusal that several keys make together ("st_prepare_delay
 * (0) + st_final_delay (0) must be at least 1 cycle; ..."): the place of the first of
 * `keys` (NULL-terminated, the one to change first) that a file or -s set. */
int config_err_file_line_any(const struct config *c, const char *const *keys, struct nl_err *err);
/* The NULL-terminated list of keys, as an argument: CONFIG_KEYS("a", "b"). */
#define CONFIG_KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Fill a module's typed struct: defaults, then the values set. */
int config_bind(const struct config *c, const struct config_table *t, void *out, struct nl_err *err);

/* Print every key of every table with its resolved value, as an INI file
 * that config_load_file reads back to the same configuration. */
int config_dump_ini(const struct config *c, FILE *f, struct nl_err *err);

/* The resolved configuration as a flat JSON object {key: typed value}, in
 * table order (new reference, or NULL on allocation failure). */
struct json_t *config_to_json(const struct config *c);

/* Levenshtein distance between a and b (ASCII case folded when
 * ignore_case), for "did you mean" on unknown keys; SIZE_MAX when either
 * is 64 characters or longer. */
size_t config_edit_distance(const char *a, const char *b, bool ignore_case);

/* The one of names (n_names) that word (its first len bytes) is a typo of
 * (at most two edits, and fewer than half the name's letters; one best,
 * case folded), for "did you mean" on an unknown option, subcommand or
 * plug-in name; NULL when none is. */
const char *config_name_near(const char *word, size_t len, const char *const *names, size_t n_names);

/* Print all tables' keys with help (for `netloom config --help-keys`). */
void config_print_keys(const struct config *c, FILE *f);

/* The keys of a configuration a command does not read (one system file
 * holds every command's): whole sections, further keys of other
 * sections, and keys of those sections it reads after all. Any list may
 * be NULL; each is NULL-terminated. */
struct config_unread {
	const char *const *sections;
	const char *const *keys;
	const char *const *read;
};

/* Whether `key` of table t is one u says is not read. */
bool config_unread_has(const struct config_unread *u, const struct config_table *t, const char *key);

/* config_print_keys without the keys u says are not read (a section left
 * with none is not printed); u NULL prints all. */
void config_print_keys_read(const struct config *c, FILE *f, const struct config_unread *u);

#endif
