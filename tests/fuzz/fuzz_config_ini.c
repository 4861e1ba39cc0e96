/* Fuzz target: the INI configuration reader (core/config.h) over every
 * table a session has (session_config_tables), the first code a user's
 * -c file reaches. A refusal must have a message (the one-line error
 * users see). A file that loads must dump
 * (config_dump_ini) to text that loads again to the same resolved
 * configuration (config_to_json: every key's typed value), as
 * config_dump_ini promises and `netloom config --dump` relies on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/config.h"
#include "core/error.h"
#include "fuzz.h"
#include "fuzz_refusal.h"
#include "session/session.h"

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
		if (!x || !y || !json_equal(x, y)) {
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
