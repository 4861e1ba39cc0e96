/* Fuzz target: the INI configuration reader (core/config.h) over every
 * table a session has (session_config_tables), the first code a user's
 * -c file reaches. A refusal must have a message (the one-line error
 * users see). A file that loads must dump
 * (config_dump_ini) to text that loads again to the same resolved
 * configuration (config_to_json: every key's typed value), as
 * config_dump_ini promises and `netloom config --dump` relies on; the
 * file names, read from the working directory (a string has no folder),
 * come back made absolute from it, as the dump writes them. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/config.h"
#include "core/error.h"
#include "core/param.h"
#include "core/path.h"
#include "fuzz.h"
#include "fuzz_refusal.h"
#include "session/session.h"

static char *fuzz_in_dir(void *ctx, const char *name)
{
	return path_in_dir(ctx, name);
}

/* Whether key's value y, read back from the dump, is x as the dump writes
 * it: the same, or with its file names made absolute from folder cwd. */
static bool fuzz_same_value(const struct config *c, const char *key, json_t *x, json_t *y, const char *cwd)
{
	const struct param_def *d = NULL;
	if (json_equal(x, y))
		return true;
	if (!cwd || !json_is_string(x) || !json_is_string(y) || !config_find_key(c, key, &d))
		return false;
	const char *xs = json_string_value(x);
	char *as_written = NULL;
	if (d->type == PARAM_PATH)
		as_written = path_in_dir(cwd, xs);
	else if (d->type == PARAM_SPEC)
		as_written = path_spec_files(xs, fuzz_in_dir, (void *)cwd);
	bool same = as_written && !strcmp(as_written, json_string_value(y));
	free(as_written);
	return same;
}

/* Whether every key of x (c's) has its value in y (the dump's, read back). */
static bool fuzz_same_config(const struct config *c, json_t *x, json_t *y)
{
	char *cwd = realpath(".", NULL);
	const char *key;
	json_t *v;
	bool same = x && y && json_object_size(x) == json_object_size(y);
	json_object_foreach(x, key, v) {
		if (same)
			same = fuzz_same_value(c, key, v, json_object_get(y, key), cwd);
	}
	free(cwd);
	return same;
}

/* The dump of c as a string (the caller frees it), or NULL on failure. */
static char *fuzz_dump(const struct config *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct nl_err err = {0};
	if (!f)
		return NULL;
	int rc = config_dump_ini(c, f, &err);
	if (rc < 0)
		fprintf(stderr, "dump refused: %s\n", err.msg);
	if (fclose(f) != 0 || rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	size_t n;
	struct session_tables st;
	const struct config_table *const *tables = session_config_tables(&st, &n);
	struct config c, again;
	struct nl_err err = {0};
	config_init(&c, tables, n);
	config_init(&again, tables, n);
	int rc = config_load_string(&c, text, "fuzz.ini", &err);
	if (rc < 0) {
		fuzz_refusal(&err, rc, "fuzz.ini");
	} else {
		char *a = fuzz_dump(&c);
		if (!a)
			NL_BUG("a configuration that loaded does not dump");
		if (config_load_string(&again, a, "dump.ini", &err) < 0)
			NL_BUG("the dump of a configuration that loaded is refused: %s", err.msg);
		json_t *x = config_to_json(&c), *y = config_to_json(&again);
		if (!fuzz_same_config(&c, x, y)) {
			char *xs = x ? json_dumps(x, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
			char *ys = y ? json_dumps(y, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
			NL_BUG("the dump loads to another configuration:\n%s\n%s", xs ? xs : "?", ys ? ys : "?");
		}
		json_decref(x);
		json_decref(y);
		free(a);
	}
	config_release(&again);
	config_release(&c);
	free(text);
	return 0;
}
