/* Fuzz target: the BookSim2 converter (`netloom config --from-booksim`,
 * emu/cli/cli_booksim*.c), the reader of a file users bring from another
 * simulator. A refusal must have a message (the one-line error users see);
 * otherwise, whatever was named as unmappable, the INI written must load
 * (config_load_string over every session key), as the converter promises
 * ("so the INI written always loads"). Skipped: a network_file (it is
 * opened: /dev/zero never ends) and a size key above 16, n above 4 (k, n,
 * c, x, y, xr, yr: the converter builds the network, which is legitimately
 * large: k = 600, n = 3 is 18 GB, BookSim's default k = 8 with n = 8 a
 * 16.7 M-router torus of 2 GB; with n <= 4, 16^4 routers at most). */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "fuzz.h"
#include "fuzz_refusal.h"
#include "fuzz_file.h"
#include "session/session.h"

/* Whether a size key of the text (a word among k, n, c, x, y, xr, yr
 * followed by '=') has a value that is not a number up to 16 (n: 4). */
static bool fuzz_large(const char *s)
{
	static const char *const keys[] = {"k", "n", "c", "x", "y", "xr", "yr"};
	for (const char *p = s; *p; p++) {
		if (!isalpha((unsigned char)*p) || (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
			continue;
		size_t len = 0;
		while (isalnum((unsigned char)p[len]) || p[len] == '_')
			len++;
		bool size_key = false;
		for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
			size_key |= strlen(keys[i]) == len && !strncmp(p, keys[i], len);
		const char *q = p + len;
		while (*q == ' ' || *q == '\t')
			q++;
		if (size_key && *q == '=') {
			q++;
			while (*q == ' ' || *q == '\t')
				q++;
			char *end;
			long v = strtol(q, &end, 10);
			if (end == q || v > (len == 1 && *p == 'n' ? 4 : 16))
				return true;
		}
		p += len - 1;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 16) || memmem(data, size, "network_file", 12))
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	/* The converter reads past a NUL inside a comment: so does the scan. */
	for (size_t i = 0; i < size; i++)
		text[i] = data[i] ? (char)data[i] : ' ';
	text[size] = '\0';
	bool skip = fuzz_large(text);
	free(text);
	const char *path = skip ? NULL : fuzz_file(data, size);
	if (!path)
		return 0;
	char *ini = NULL, *warned = NULL;
	size_t ini_len = 0, warned_len = 0;
	FILE *out = open_memstream(&ini, &ini_len), *warn = open_memstream(&warned, &warned_len);
	if (!out || !warn)
		NL_BUG("open_memstream failed");
	struct nl_err err = {0};
	int n = cli_booksim_convert(path, out, warn, &err);
	fclose(out);
	fclose(warn);
	if (n < 0) {
		fuzz_refusal(&err, n, "the conversion");
	} else {
		size_t n_tables;
		struct session_tables st;
		const struct config_table *const *tables = session_config_tables(&st, &n_tables);
		struct config c;
		config_init(&c, tables, n_tables);
		if (config_load_string(&c, ini, "converted.ini", &err) < 0)
			NL_BUG("the converted INI does not load (%d named): %s\n%s", n, err.msg, ini);
		config_release(&c);
	}
	free(ini);
	free(warned);
	return 0;
}
