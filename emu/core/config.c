/* Run configuration: INI (libinih) + overrides, validated at set time. */
#include "core/config.h"
#include "core/config_internal.h"
#include "core/ini_lines.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/path.h"

void config_init(struct config *c, const struct config_table *const *tables, size_t n_tables)
{
	memset(c, 0, sizeof *c);
	c->tables = tables;
	c->n_tables = n_tables;
}

void config_release(struct config *c)
{
	for (size_t i = 0; i < c->n_entries; i++) {
		free(c->entries[i].value);
		free(c->entries[i].origin);
		free(c->entries[i].given);
		free(c->entries[i].base);
	}
	free(c->entries);
	c->entries = NULL;
	c->n_entries = c->cap_entries = 0;
}

const struct config_table *config_find_key(const struct config *c, const char *key,
					   const struct param_def **def)
{
	for (size_t t = 0; t < c->n_tables; t++) {
		const struct param_def *d = param_find(c->tables[t]->keys, key);
		if (d) {
			if (def)
				*def = d;
			return c->tables[t];
		}
	}
	return NULL;
}

size_t config_edit_distance(const char *a, const char *b, bool ignore_case)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64];
	if (lb >= 64 || la >= 64)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			unsigned char ca = (unsigned char)a[i - 1], cb = (unsigned char)b[j - 1];
			size_t best = diag + (ignore_case ? tolower(ca) != tolower(cb) : ca != cb);
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (up + 1 < best)
				best = up + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *config_name_near(const char *word, size_t len, const char *const *names, size_t n_names)
{
	char w[64];
	if (len == 0 || len >= sizeof w)
		return NULL;
	memcpy(w, word, len);
	w[len] = '\0';
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	bool tie = false;
	for (size_t i = 0; i < n_names; i++) {
		size_t d = config_edit_distance(w, names[i], true);
		if (d < best_d) {
			best = names[i];
			best_d = d;
			tie = false;
		} else if (d == best_d && strcmp(names[i], best)) {
			tie = true;
		}
	}
	/* A typo (two edits), not another word: 'run' is not near 'cost'. */
	if (!best || tie || best_d > 2 || 2 * best_d > strlen(best))
		return NULL;
	return best;
}

static const char *config_suggest(const struct config *c, const char *key)
{
	/* Case counts and keys have no section in their name, but
	 * 'NUM_VCS' and a dotted 'router.num_vcs' are num_vcs all the same:
	 * neither had a suggestion (the BookSim conversion ignores case too). */
	const char *dot = strrchr(key, '.');
	const char *best = NULL;
	size_t best_d = 3;
	for (size_t t = 0; t < c->n_tables; t++)
		for (const struct param_def *d = c->tables[t]->keys; d->name; d++) {
			size_t e = dot && !strcmp(dot + 1, d->name) ? 0 : config_edit_distance(key, d->name, true);
			if (e < best_d) {
				best_d = e;
				best = d->name;
			}
		}
	/* Two edits of a three-letter key is another word ('foo' is not a
	 * typo of 'voq'): at most half the name's letters may change. */
	if (best && best_d > 0 && 2 * best_d > strlen(best))
		return NULL;
	return best;
}

/* The section a mistyped header meant ('[netwrk]', '[Router]'), by
 * config_name_near's rule, or NULL. `name` is n bytes, not terminated. */
static const char *config_suggest_section(const struct config *c, const char *name, size_t n)
{
	const char *sections[64];
	size_t k = 0;
	for (size_t t = 0; t < c->n_tables && k < 64; t++)
		sections[k++] = c->tables[t]->section;
	return config_name_near(name, n, sections, k);
}

/* "WHERE: unknown section [NAME]", with "(did you mean [S]?)" after a
 * typo of a section, as an unknown key names the key it is close to, and
 * else the sections there are ('[topology]', a key's name, said nothing
 * of where keys go). */
static int config_unknown_section(const struct config *c, const char *where, const char *name, size_t n,
				  struct nl_err *err)
{
	const char *s = config_suggest_section(c, name, n);
	if (s)
		return nl_errf(err, NL_ECONFIG, "%s: unknown section [%.*s] (did you mean [%s]?)", where, (int)n,
			       name, s);
	char list[512] = "";
	size_t used = 0;
	for (size_t t = 0; t < c->n_tables && used < sizeof list; t++) {
		const char *sep = !t ? "" : t + 1 == c->n_tables ? " or " : ", ";
		int k = snprintf(list + used, sizeof list - used, "%s[%s]", sep, c->tables[t]->section);
		used += k > 0 ? (size_t)k : 0;
	}
	return nl_errf(err, NL_ECONFIG, "%s: unknown section [%.*s]; expected %s", where, (int)n, name, list);
}

/* A copy of s, NULL for NULL; false when out of memory. */
static bool config_dup(const char *s, char **out)
{
	*out = s ? strdup(s) : NULL;
	return !s || *out;
}

/* Record value (and origin, and given and base, each NULL when none) as
 * the key's, replacing an earlier one. */
static int config_put(struct config *c, const struct config_table *t, const struct param_def *d,
		      const char *value, const char *origin, const char *given, const char *base)
{
	struct config_entry n = {t, d, NULL, NULL, NULL, NULL};
	if (!config_dup(value, &n.value) || !config_dup(origin, &n.origin) || !config_dup(given, &n.given) ||
	    !config_dup(base, &n.base))
		goto oom;
	for (size_t i = 0; i < c->n_entries; i++)
		if (c->entries[i].def == d) {
			struct config_entry *e = &c->entries[i];
			free(e->value);
			free(e->origin);
			free(e->given);
			free(e->base);
			*e = n;
			return 0;
		}
	if (c->n_entries == c->cap_entries) {
		size_t cap = c->cap_entries ? 2 * c->cap_entries : 32;
		struct config_entry *e = realloc(c->entries, cap * sizeof *e);
		if (!e)
			goto oom;
		c->entries = e;
		c->cap_entries = cap;
	}
	c->entries[c->n_entries++] = n;
	return 0;
oom:
	free(n.value);
	free(n.origin);
	free(n.given);
	free(n.base);
	return NL_ENOMEM;
}

/* A file name a file wrote, as read from its folder (*ctx). */
static char *config_in_base(void *ctx, const char *name)
{
	const char *const *base = ctx;
	return path_in_dir(*base, name);
}

/* value with the file names it holds read from folder base (path.h): the
 * whole value of a PARAM_PATH key, the @FILE and file= of a spec. A new
 * string, or NULL when out of memory. */
char *config_resolve_files(const struct param_def *d, const char *value, const char *base)
{
	if (d->type == PARAM_PATH)
		return path_in_dir(base, value);
	if (d->type == PARAM_SPEC)
		return path_spec_files(value, config_in_base, &base);
	return strdup(value);
}

/* Where param_set's message about `value` goes on after the value's
 * closing quote: msg + m is the value's start. A message cut in the
 * middle (a long path: nl_err_store keeps its start and end) goes on
 * after the first quote past the cut that ends a value (": " or " out of
 * range" after it). NULL when not found. */
static const char *config_after_value(const char *msg, size_t m, const char *value)
{
	size_t n = strlen(value);
	if (!strncmp(msg + m, value, n) && msg[m + n] == '\'')
		return msg + m + n + 1;
	const char *p = strstr(msg + m, "...");
	for (p = p ? strchr(p, '\'') : NULL; p; p = strchr(p + 1, '\''))
		if (!strncmp(p + 1, ": ", 2) || !strncmp(p + 1, " out of range", 13))
			return p + 1;
	return NULL;
}

/* param_set's "WHERE: parameter 'K' value 'V': expected ..." (or "...
 * value 'V' out of range: ...") in the form of a key, as workload and
 * study files give theirs: "WHERE: key 'K': value 'V': expected ...".
 * Its other messages have "parameter" made "key". */
static void config_param_err_as_key(struct nl_err *err, const char *where, const char *key, const char *value)
{
	char lead[NL_ERR_MSG_MAX], rest[NL_ERR_MSG_MAX];
	int m = snprintf(lead, sizeof lead, "%s: parameter '%s' value '", where, key);
	const char *after = NULL;
	if (m > 0 && (size_t)m < sizeof lead && !strncmp(err->msg, lead, (size_t)m))
		after = config_after_value(err->msg, (size_t)m, value);
	if (after) {
		while (*after == ':' || *after == ' ')
			after++;
		snprintf(rest, sizeof rest, "%s", after);
		nl_errf(err, NL_ECONFIG, "%s: key '%s': value '%s': %s", where, key, value, rest);
		return;
	}
	char *p = strstr(err->msg, ": parameter '");
	if (p) {
		snprintf(rest, sizeof rest, "%s", p + 13);
		snprintf(p, sizeof err->msg - (size_t)(p - err->msg), ": key '%s", rest);
	}
}

/* Validate key=value against the tables and record it. `where` prefixes
 * messages ("file:12" or "-s"). `section` is the INI section or NULL.
 * `base`: the absolute folder of the file that set it, whose relative file
 * names are read from there; NULL: from the working directory. */
static int config_set_checked(struct config *c, const char *section, const char *key,
			      const char *value, const char *where, const char *base, struct nl_err *err)
{
	const struct param_def *d = NULL;
	const struct config_table *t = config_find_key(c, key, &d);

	if (!t) {
		const char *s = config_suggest(c, key);
		if (s)
			return nl_errf(err, NL_ECONFIG, "%s: unknown key '%s' (did you mean '%s'?)", where,
				       key, s);
		return nl_errf(err, NL_ECONFIG,
			       "%s: unknown key '%s' (see 'netloom config --keys' for the list)", where, key);
	}
	if (section && section[0] && strcmp(section, t->section))
		return nl_errf(err, NL_ECONFIG, "%s: key '%s' belongs in section [%s], not [%s]", where,
			       key, t->section, section);
	/* Saying what is expected: the names of a key checked by name
	 * (backend, placement: check_value's "expected one of ..."), else
	 * the key's type and range. */
	if (value[0] == '\0') {
		char want[PARAM_STR_MAX];
		struct nl_err names = {0};
		if (c->check_value && c->check_value(key, "", &names) < 0 && !strncmp(names.msg, "expected ", 9))
			return nl_errf(err, NL_ECONFIG, "%s: key '%s' has an empty value; %s", where, key, names.msg);
		return nl_errf(err, NL_ECONFIG, "%s: key '%s' has an empty value; expected %s", where, key,
			       param_expected(d, want, sizeof want));
	}

	/* The value is checked and kept with its file names as they are read,
	 * so every reader of the key (the topology, the placement, the
	 * results' config) gets a name that works from any directory. */
	const char *given = value;
	char *resolved = base ? config_resolve_files(d, value, base) : NULL;
	if (base && !resolved)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", where);
	if (resolved)
		value = resolved;
	void *scratch = calloc(1, t->struct_size);
	if (!scratch) {
		free(resolved);
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", where);
	}
	int rc = param_set(d, scratch, value, where, err);
	free(scratch);
	if (rc == 0 && c->check_value && c->check_value(key, value, err) < 0) {
		nl_err_prefix(err, "%s: key '%s': value '%s'", where, key, given);
		err->code = NL_ECONFIG;
		free(resolved);
		return NL_ECONFIG;
	}
	if (rc < 0) {
		config_param_err_as_key(err, where, key, value);
		err->code = NL_ECONFIG;
		free(resolved);
		return NL_ECONFIG;
	}
	bool is_moved = strcmp(value, given) != 0;
	rc = config_put(c, t, d, value, where, is_moved ? given : NULL, is_moved ? base : NULL);
	free(resolved);
	return rc < 0 ? nl_errf(err, NL_ENOMEM, "%s: out of memory", where) : 0;
}

int config_set(struct config *c, const char *kv, const char *value, const char *origin,
	       struct nl_err *err)
{
	char key[128];
	const char *val = value;

	if (!value) {
		const char *eq = strchr(kv, '=');
		if (!eq || eq == kv)
			return nl_errf(err, NL_ECONFIG, "%s: expected key=value, got '%s'", origin, kv);
		if ((size_t)(eq - kv) >= sizeof key)
			return nl_errf(err, NL_ECONFIG, "%s: key too long in '%s'", origin, kv);
		memcpy(key, kv, (size_t)(eq - kv));
		key[eq - kv] = '\0';
		val = eq + 1;
	} else {
		snprintf(key, sizeof key, "%s", kv);
	}
	/* -s 'num_vcs= 4' said "expected an integer", as if 4 were not one.
	 * A file's values come trimmed by the INI reader; a -s value is taken
	 * as given, so its blanks are named, as a spec parameter's are. */
	const struct param_def *d;
	const char *start;
	size_t n;
	if (config_find_key(c, key, &d) && param_value_has_blanks(d, val, &start, &n))
		return nl_errf(err, NL_ECONFIG, "%s: key '%s': value '%s': expected '%.*s' (no blanks around a key's value)",
			       origin, key, val, (int)n, start);
	return config_set_checked(c, NULL, key, val, origin, NULL, err);
}

/* Reading INI files through libinih.
 *
 * A long topology spec (Equality n64000k64 is ~400 characters, seed 002)
 * must still load, though Debian's libinih reads at most 198 characters a
 * line: the shared reader (struct ini_lines_reader, as study and workload
 * files are read) hands inih one physical line at a time and cuts a longer
 * one into a key line plus indented continuation chunks; the handler joins
 * a key's continuation lines without a separator (specs have no spaces)
 * and validates the joined value once (an indented line that reads
 * "name = value" is refused as a mis-indented key). */
struct config_ini_ctx {
	struct config *c;
	const char *path;
	const char *base; /* absolute folder of the file, its file names' (NULL: the working directory's) */
	struct nl_err *err;
	int rc;
	struct ini_lines_reader rd; /* the file's lines: the one being read, for messages */
	/* The key being read: validated when the next key starts or at the end. */
	char *pend_section, *pend_name, *pend_value; /* owned, NULL when none */
	size_t pend_len;
	char pend_where[PATH_MAX + 16]; /* "PATH:LINE" */
	int pend_line;
	bool pend_cont;   /* inih's continuation line: an indented key, refused */
	int err_line;     /* line of the key error in rc, 0 when not known (the line being read) */
	/* The keys this file set: one set twice is refused (the last one
	 * won silently; -s overrides a file's key). */
	struct ini_keys seen;
};

bool config_ini_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v';
}

static int config_ini_flush(struct config_ini_ctx *x);

/* A section header, as inih reads one (an indented '[' after a key is
 * that key's continuation; the name ends at the first ']'): checked at its
 * own line, whether or not a key follows. inih reports a section only
 * with its first key, so an unknown one was named at that key's line, and
 * one with no keys passed unnoticed. The key before the header is
 * complete: checked first, so errors come in file order. A line inih
 * refuses (no ']') is left to it. "[]" is unknown too: inih would hand
 * its keys over as the section-less ones before any header. */
static int config_ini_header(struct config_ini_ctx *x)
{
	const char *start = x->rd.text + x->rd.indent;
	if (*start != '[' || (x->rd.indent > 0 && x->pend_name))
		return 0;
	if (config_ini_flush(x) < 0)
		return x->rc;
	const char *end = start + 1;
	while (*end && *end != ']' && !(*end == ';' && config_ini_blank(end[-1])))
		end++;
	size_t n = (size_t)(end - start - 1);
	if (*end != ']')
		return 0;
	for (size_t t = 0; t < x->c->n_tables; t++)
		if (strlen(x->c->tables[t]->section) == n && !strncmp(x->c->tables[t]->section, start + 1, n))
			return 0;
	char where[PATH_MAX + 32];
	snprintf(where, sizeof where, "%s:%d", x->path, x->rd.line);
	return x->rc = config_unknown_section(x->c, where, start + 1, n, x->err);
}

static char *config_ini_reader(char *buf, int size, void *stream)
{
	struct config_ini_ctx *x = stream;

	if (x->rc < 0)
		return NULL;
	char *s = ini_lines_reader_next(buf, size, &x->rd);
	if (!s) {
		if (x->rd.why[0])
			x->rc = nl_errf(x->err, NL_ECONFIG, "%s:%d: %s", x->path, x->rd.line, x->rd.why);
		return NULL;
	}
	if (!x->rd.is_chunk && config_ini_header(x) < 0)
		return NULL;
	return s;
}

static void config_ini_drop_pending(struct config_ini_ctx *x)
{
	free(x->pend_section);
	free(x->pend_name);
	free(x->pend_value);
	x->pend_section = x->pend_name = x->pend_value = NULL;
	x->pend_len = 0;
}

/* Validate and record the key read so far, if any. */
static int config_ini_flush(struct config_ini_ctx *x)
{
	if (!x->pend_name || x->rc < 0) {
		config_ini_drop_pending(x);
		return x->rc;
	}
	const char *section = x->pend_section;
	if (section[0]) {
		bool known = false;
		for (size_t t = 0; t < x->c->n_tables; t++)
			if (!strcmp(x->c->tables[t]->section, section))
				known = true;
		if (!known)
			x->rc = config_unknown_section(x->c, x->pend_where, section, strlen(section), x->err);
	}
	/* A '//' line holding '=' or ':' (BookSim's "// $Id: singleconfig
	 * ...", examples/anynet/anynet_config) reaches us as the key
	 * "// $Id", inih taking ':' as a separator: it is a comment INI does
	 * not have, refused as the other lines of no INI syntax are, not as
	 * an unknown key. */
	if (x->rc == 0 && !strncmp(x->pend_name, "//", 2))
		x->rc = nl_errf(x->err, NL_ECONFIG,
				"%s: syntax error: expected 'key = value' or '[section]' (an INI comment starts with ';' "
				"or '#', not '//')",
				x->pend_where);
	/* '= 4' (inih hands over an empty name) was "unknown key ''". */
	if (x->rc == 0 && !x->pend_name[0])
		x->rc = nl_errf(x->err, NL_ECONFIG,
				"%s: syntax error: a value without a key name before its '=' or ':'; expected 'key = value' "
				"or '[section]'",
				x->pend_where);
	if (x->rc == 0 && !x->pend_cont) {
		/* A key before the first header belongs to its table's section
		 * (docs/configuration.md), so 'num_vcs' there and again under
		 * [router] is set twice. A key in a wrong section or an unknown
		 * one keeps its own; config_set_checked refuses it. */
		const struct config_table *t = section[0] ? NULL : config_find_key(x->c, x->pend_name, NULL);
		int first = ini_keys_seen(&x->seen, t ? t->section : section, x->pend_name, x->pend_line);
		if (first < 0)
			x->rc = nl_errf(x->err, NL_ENOMEM, "%s: out of memory", x->pend_where);
		else if (first > 0)
			x->rc = nl_errf(x->err, NL_ECONFIG,
					"%s: key '%s' set twice in this file (first at line %d); expected each key once "
					"(-s overrides a file's key)",
					x->pend_where, x->pend_name, first);
	}
	if (x->rc == 0)
		x->rc = config_set_checked(x->c, section, x->pend_name, x->pend_value, x->pend_where, x->base, x->err);
	/* A mis-indented key whose line the previous key's type refuses says
	 * so ("key 'num_vcs': value 'vc_buf_size = 2': expected an integer");
	 * a text key took the line as its value, silently ('placement_map =
	 * placement = random-node'): refused as study and workload files
	 * refuse it. The file's keys are dropped with it (config_load_stream). */
	if (x->rc == 0 && x->pend_cont) {
		char msg[NL_ERR_MSG_MAX];
		ini_lines_misindented_msg(msg, sizeof msg, section, x->pend_name, x->pend_value);
		x->rc = nl_errf(x->err, NL_ECONFIG, "%s: %s", x->pend_where, msg);
	}
	if (x->rc < 0)
		x->err_line = x->pend_line;
	config_ini_drop_pending(x);
	return x->rc;
}

static int config_ini_handler(void *user, const char *section, const char *name, const char *value)
{
	struct config_ini_ctx *x = user;
	/* inih keeps parsing after a handler fails: keep the first error,
	 * not the last handler's result. */
	if (x->rc < 0)
		return 0;
	size_t n = strlen(value);
	/* An indented "name = value" is a mis-indented key, not the rest of a
	 * value (ini_lines_is_key): it is refused on its own line, after a
	 * check as the previous key's value, as inih reports it, so the
	 * message names it. */
	bool join = x->rd.is_cont && (x->rd.is_chunk || !ini_lines_is_key(value));
	if (join && x->pend_name && !strcmp(x->pend_name, name) && !strcmp(x->pend_section, section)) {
		char *v = realloc(x->pend_value, x->pend_len + n + 1);
		if (!v) {
			x->rc = nl_errf(x->err, NL_ENOMEM, "%s: out of memory", x->pend_where);
			return 0;
		}
		memcpy(v + x->pend_len, value, n + 1);
		x->pend_value = v;
		x->pend_len += n;
		return 1;
	}
	if (config_ini_flush(x) < 0)
		return 0;
	x->pend_section = strdup(section);
	x->pend_name = strdup(name);
	x->pend_value = strdup(value);
	x->pend_len = n;
	snprintf(x->pend_where, sizeof x->pend_where, "%s:%d", x->path, x->rd.line);
	x->pend_line = x->rd.line;
	x->pend_cont = x->rd.is_cont;
	if (!x->pend_section || !x->pend_name || !x->pend_value) {
		config_ini_drop_pending(x);
		x->rc = nl_errf(x->err, NL_ENOMEM, "%s:%d: out of memory", x->path, x->rd.line);
		return 0;
	}
	return 1;
}

/* The absolute folder of the open configuration file f (at path), from
 * which its relative file names are read (path_file_folder: NULL for a
 * pipe or /dev/stdin, the working directory's). */
static char *config_file_folder(FILE *f, const char *path)
{
	struct stat st;
	return path_file_folder(path, fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode));
}

static int config_load_from(struct config *c, FILE *f, const char *path, const char *base, struct nl_err *err);

int config_load_file(struct config *c, const char *path, struct nl_err *err)
{
	FILE *f;
	NL_CHECK(nl_open_input(path, "config file", &f, err));
	char *base = config_file_folder(f, path);
	int rc = config_load_from(c, f, path, base, err);
	free(base);
	fclose(f);
	return rc;
}

int config_load_string(struct config *c, const char *text, const char *name, struct nl_err *err)
{
	size_t len = strlen(text);
	/* fmemopen of an empty buffer fails on some libcs: nothing to read. */
	if (len == 0)
		return 0;
	FILE *f = fmemopen((void *)text, len, "r");
	if (!f)
		return nl_errf(err, NL_ENOMEM, "%s: cannot read config text: %s", name, strerror(errno));
	int rc = config_load_stream(c, f, name, err);
	fclose(f);
	return rc;
}

int config_load_stream(struct config *c, FILE *f, const char *path, struct nl_err *err)
{
	return config_load_from(c, f, path, NULL, err);
}

static int config_load_from(struct config *c, FILE *f, const char *path, const char *base, struct nl_err *err)
{
	/* Parse into a copy so a failing file leaves *c untouched. */
	struct config tmp;
	config_init(&tmp, c->tables, c->n_tables);
	tmp.check_value = c->check_value;
	for (size_t i = 0; i < c->n_entries; i++)
		if (config_put(&tmp, c->entries[i].table, c->entries[i].def, c->entries[i].value,
			       c->entries[i].origin, c->entries[i].given, c->entries[i].base) < 0) {
			config_release(&tmp);
			return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
		}
	struct config_ini_ctx x = {.c = &tmp, .path = path, .base = base, .err = err, .rc = 0, .rd = {.f = f}};
	int line = ini_parse_stream(config_ini_reader, &x, config_ini_handler, &x);
	config_ini_flush(&x);
	bool read_error = ferror(f);
	ini_lines_reader_release(&x.rd);
	ini_keys_release(&x.seen);
	/* The first bad line in file order is the one reported: a key is
	 * checked when the next one starts, so its error may be found after
	 * an inih syntax error on a later line, or before one on an earlier
	 * line (reader errors stop at the line being read). */
	int key_line = x.err_line ? x.err_line : x.rd.line;
	if (x.rc < 0 && !(line > 0 && line < key_line)) {
		config_release(&tmp);
		return x.rc;
	}
	if (line != 0 || read_error) {
		config_release(&tmp);
		if (line < 0 || read_error)
			return nl_errf(err, NL_EIO, "%s: cannot read config file", path);
		if (line == x.rd.bad_line) {
			/* Quoted as a study file's (ini_lines_bad_quote): the
			 * line number alone left the reader to find it. */
			char shown[INI_LINES_BAD_QUOTE_MAX];
			ini_lines_bad_quote(&x.rd, shown, sizeof shown);
			return nl_errf(err, NL_ECONFIG, "%s:%d: %s: syntax error: expected 'key = value' or '[section]'",
				       path, line, shown);
		}
		return nl_errf(err, NL_ECONFIG, "%s:%d: syntax error: expected 'key = value' or '[section]'",
			       path, line);
	}
	config_release(c);
	*c = tmp;
	return 0;
}

const char *config_get(const struct config *c, const char *key)
{
	for (size_t i = 0; i < c->n_entries; i++)
		if (!strcmp(c->entries[i].def->name, key))
			return c->entries[i].value;
	return NULL;
}

const char *config_get_or_default(const struct config *c, const char *key)
{
	const char *v = config_get(c, key);
	const struct param_def *d = NULL;
	if (!v && config_find_key(c, key, &d))
		v = d->defval;
	return v;
}

bool config_is_path_key(const struct config *c, const char *key)
{
	const struct param_def *d;
	return config_find_key(c, key, &d) && d->type == PARAM_PATH;
}

int config_each_path(const struct config *c, int (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
	for (size_t t = 0; t < c->n_tables; t++)
		for (const struct param_def *d = c->tables[t]->keys; d->name; d++) {
			const char *v = d->type == PARAM_PATH ? config_get(c, d->name) : NULL;
			int rc = v && v[0] ? fn(ctx, d->name, v) : 0;
			if (rc)
				return rc;
		}
	return 0;
}

const char *config_origin(const struct config *c, const char *key)
{
	for (size_t i = 0; c && i < c->n_entries; i++)
		if (!strcmp(c->entries[i].def->name, key))
			return c->entries[i].origin;
	return NULL;
}

/* An origin of the form "path:line", as config_load_stream records it. */
static bool config_origin_is_file_line(const char *origin)
{
	const char *colon = origin ? strrchr(origin, ':') : NULL;
	if (!colon || colon == origin || !colon[1])
		return false;
	for (const char *d = colon + 1; *d; d++)
		if (!isdigit((unsigned char)*d))
			return false;
	return true;
}

size_t config_keys_from(const struct config *c, const char *path)
{
	size_t n = 0, len = strlen(path);
	for (size_t i = 0; c && i < c->n_entries; i++) {
		const char *o = c->entries[i].origin;
		n += !strncmp(o, path, len) && o[len] == ':' && config_origin_is_file_line(o) &&
		     strrchr(o, ':') == o + len;
	}
	return n;
}

const char *config_place(const struct config *c, const char *key)
{
	const char *at = config_origin(c, key);
	return config_origin_is_file_line(at) || (at && !strcmp(at, "-s")) ? at : NULL;
}

/* A refusal's file names rewritten (config_err_file_line): each file name
 * of a key's given text, read from its base folder. */
struct config_err_names {
	const struct config_entry *e;
	struct nl_err *err;
};

/* In err, the file name as it was read becomes the name as written
 * followed by where it was looked for (path_err_rename): "'@spec.txt'
 * (resolved to /home/me/exp/spec.txt, relative to the config run.ini)". */
static char *config_err_name(void *ctx, const char *name)
{
	const struct config_err_names *x = ctx;
	char *resolved = path_in_dir(x->e->base, name), where[300];
	const char *origin = x->e->origin;
	snprintf(where, sizeof where, "the config %.*s", (int)(strrchr(origin, ':') - origin), origin);
	if (resolved)
		path_err_rename(x->err->msg, sizeof x->err->msg, name, resolved, where);
	free(resolved);
	return strdup(name);
}

/* The file names of key entry e's given text in err, as config_err_name
 * names them. */
static void config_err_names(const struct config_entry *e, struct nl_err *err)
{
	if (!e->given || !e->base || !err)
		return;
	struct config_err_names x = {e, err};
	free(e->def->type == PARAM_PATH ? config_err_name(&x, e->given) : path_spec_files(e->given, config_err_name, &x));
}

void config_err_files(const struct config *c, const char *key, struct nl_err *err)
{
	for (size_t k = 0; c && k < c->n_entries; k++)
		if (!strcmp(c->entries[k].def->name, key))
			config_err_names(&c->entries[k], err);
}

int config_err_file_line_any(const struct config *c, const char *const *keys, struct nl_err *err)
{
	for (size_t i = 0; keys[i]; i++) {
		const char *at = config_place(c, keys[i]);
		if (!at)
			continue;
		config_err_files(c, keys[i], err);
		return nl_err_prefix(err, "%s", at);
	}
	return err ? err->code : NL_EINVAL;
}

int config_err_file_line(const struct config *c, const char *key, struct nl_err *err)
{
	const char *const keys[] = {key, NULL};
	return config_err_file_line_any(c, keys, err);
}

int config_bind(const struct config *c, const struct config_table *t, void *out, struct nl_err *err)
{
	char what[300];
	snprintf(what, sizeof what, "[%s] defaults", t->section);
	NL_CHECK(param_defaults(t->keys, out, what, err));
	for (size_t i = 0; i < c->n_entries; i++)
		if (c->entries[i].table == t)
			NL_CHECK(param_set(c->entries[i].def, out, c->entries[i].value, c->entries[i].origin, err));
	return 0;
}
