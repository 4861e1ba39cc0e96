/* Run configuration: INI (libinih) + overrides, validated at set time
 * (config.c). Writing it back out, as INI that loads to the same
 * configuration (--dump), as JSON (the results' echo), and as the list of
 * keys (--keys), is here. */
#include "core/config.h"
#include "core/config_internal.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/output.h"

static int config_resolved(const struct config *c, const struct config_table *t, void **out,
			   struct nl_err *err)
{
	*out = calloc(1, t->struct_size ? t->struct_size : 1);
	if (!*out)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	int rc = config_bind(c, t, *out, err);
	if (rc < 0) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* Why libinih would not read value v back as written after "key = ", or
 * NULL when it would. A value that starts with ';' is written against
 * the '=' (config_dump_ini), so only a ';' after a blank inside it
 * starts a comment. Blanks are inih's (isspace): a '\r' inside a value
 * reads back, one at either end is dropped. */
static const char *config_ini_unwritable(const char *v)
{
	size_t n = strlen(v);
	if (strchr(v, '\n'))
		return "holds a line break, which ends the line in an INI file";
	if (config_ini_blank(v[0]) || config_ini_blank(v[n - 1]))
		return "starts or ends with a blank, which the INI reader drops";
	for (size_t i = 1; i < n; i++)
		if (v[i] == ';' && config_ini_blank(v[i - 1]))
			return "holds a ';' after a blank, which starts a comment in an INI file";
	return NULL;
}

/* The text --dump writes for key d's value buf: a file name that is
 * read from the working directory (-s, a -c from a pipe) made absolute
 * from cwd, as a -c file's names already are, so the dump reads the same
 * files wherever it is saved: a relative name in it would be read from
 * the dump's own folder. "-" (refused by name) and, with no cwd, every
 * name stay as they are. A new string, or NULL when out of memory. */
static char *config_dump_value(const struct param_def *d, const char *buf, const char *cwd)
{
	if (!cwd || !strcmp(buf, "-"))
		return strdup(buf);
	return config_resolve_files(d, buf, cwd);
}

/* The whole configuration is checked before a line is written: a dump
 * that could not load back to the same configuration is refused, not
 * half-written. */
static int config_dump_check(const struct config *c, const char *cwd, struct nl_err *err)
{
	for (size_t t = 0; t < c->n_tables; t++) {
		const struct config_table *tab = c->tables[t];
		void *vals;
		NL_CHECK(config_resolved(c, tab, &vals, err));
		for (const struct param_def *d = tab->keys; d->name; d++) {
			char buf[PARAM_STR_MAX];
			param_format(d, vals, buf, sizeof buf);
			char *v = buf[0] ? config_dump_value(d, buf, cwd) : NULL;
			const char *why = v ? config_ini_unwritable(v) : NULL;
			int rc = buf[0] && !v ? nl_errf(err, NL_ENOMEM, "out of memory") : 0;
			if (why) {
				const char *from = config_origin(c, d->name);
				rc = nl_errf(err, NL_ECONFIG,
					     "%s: key '%s': value '%s' %s, so it cannot be dumped as INI and load "
					     "back (give it with -s, or use --json)",
					     from ? from : "default", d->name, buf, why);
			}
			free(v);
			if (rc < 0) {
				free(vals);
				return rc;
			}
		}
		free(vals);
	}
	return 0;
}

static int config_dump_to(const struct config *c, FILE *f, const char *cwd, struct nl_err *err)
{
	NL_CHECK(config_dump_check(c, cwd, err));
	for (size_t t = 0; t < c->n_tables; t++) {
		const struct config_table *tab = c->tables[t];
		void *vals;
		NL_CHECK(config_resolved(c, tab, &vals, err));
		fprintf(f, "%s[%s]\n", t ? "\n" : "", tab->section);
		for (const struct param_def *d = tab->keys; d->name; d++) {
			char buf[PARAM_STR_MAX];
			param_format(d, vals, buf, sizeof buf);
			if (buf[0] == '\0') {
				fprintf(f, "; %s =   (unset)\n", d->name);
				continue;
			}
			/* A value that starts with ';' (read from 'key =;x') is
			 * written against the '=': after a blank, the reader takes
			 * it for a comment, and the dump would not load back. */
			const char *set = config_get(c, d->name);
			char *v = config_dump_value(d, buf, cwd);
			if (!v) {
				free(vals);
				return nl_errf(err, NL_ENOMEM, "out of memory");
			}
			const char *sep = v[0] == ';' ? "" : " ";
			if (set) {
				fprintf(f, "%s =%s%s    ; from %s\n", d->name, sep, v, config_origin(c, d->name));
			} else {
				fprintf(f, "%s =%s%s\n", d->name, sep, v);
			}
			free(v);
		}
		free(vals);
	}
	return 0;
}

int config_dump_ini(const struct config *c, FILE *f, struct nl_err *err)
{
	/* NULL when the working directory is gone: names stay as they are. */
	char *cwd = realpath(".", NULL);
	int rc = config_dump_to(c, f, cwd, err);
	free(cwd);
	return rc;
}

static json_t *config_value_json(const struct param_def *d, const void *vals)
{
	void *base = (void *)vals;
	char buf[PARAM_STR_MAX];
	switch (d->type) {
	case PARAM_INT:
		return json_integer(*PARAM_FIELD(base, d, int64_t));
	case PARAM_DOUBLE:
		return json_real(*PARAM_FIELD(base, d, double));
	case PARAM_BOOL:
		return json_boolean(*PARAM_FIELD(base, d, bool));
	default:
		param_format(d, vals, buf, sizeof buf); /* a path, a spec: any bytes */
		return out_json_utf8(buf);
	}
}

json_t *config_to_json(const struct config *c)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	for (size_t t = 0; t < c->n_tables; t++) {
		const struct config_table *tab = c->tables[t];
		void *vals;
		if (config_resolved(c, tab, &vals, NULL) < 0) {
			json_decref(o);
			return NULL;
		}
		for (const struct param_def *d = tab->keys; d->name; d++)
			json_object_set_new(o, d->name, config_value_json(d, vals));
		free(vals);
	}
	return o;
}

void config_print_keys(const struct config *c, FILE *f)
{
	config_print_keys_read(c, f, NULL);
}

static bool config_name_in(const char *const *names, const char *name)
{
	for (size_t i = 0; names && names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

bool config_unread_has(const struct config_unread *u, const struct config_table *t, const char *key)
{
	if (!u || config_name_in(u->read, key))
		return false;
	return config_name_in(u->sections, t->section) || config_name_in(u->keys, key);
}

void config_print_keys_read(const struct config *c, FILE *f, const struct config_unread *u)
{
	for (size_t t = 0; t < c->n_tables; t++) {
		const struct config_table *tb = c->tables[t];
		bool header = false;
		for (const struct param_def *d = tb->keys; d && d->name; d++) {
			if (config_unread_has(u, tb, d->name))
				continue;
			if (!header)
				fprintf(f, "[%s]  %s\n", tb->section, tb->help);
			header = true;
			param_print_one(f, d, "  ");
		}
	}
}
