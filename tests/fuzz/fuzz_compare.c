/* Fuzz target: a `netloom compare` study file (docs/procurement.md), read
 * and validated as a user's: its sections and keys, each system's
 * configuration, topology, routing, placement and cost checks. The study
 * is written as study.ini in a directory of its own that holds nothing
 * else, so no trace it names opens and validation always finds a problem:
 * nothing runs. A refusal must have a message and list its problems, one
 * non-empty line each. Skipped: a '/' (an absolute or outside path:
 * /dev/stdin never ends), an '@' (spec files), a number above 32 and a
 * topology value that fuzz_small (fuzz_small.h) finds too large: each
 * system's topology is built and priced, and numbers up to 32 still
 * allowed 'fattree:k=8,n=7' (1.8 million routers, 15 s, a timeout of the
 * 2026-12-06 campaign). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "core/error.h"
#include "fuzz.h"
#include "fuzz_refusal.h"
#include "fuzz_small.h"
#include "session/session.h"

static char fuzz_dir[64];

static void fuzz_cleanup(void)
{
	char p[96];
	snprintf(p, sizeof p, "%s/study.ini", fuzz_dir);
	unlink(p);
	rmdir(fuzz_dir);
}

/* Whether every line of the study naming a topology passes fuzz_small.
 * A line is taken as the study reader sees a key: with the indented lines
 * after it, which continue its value (emu/core/config.c joins them without
 * a separator), and without blanks or NUL bytes. Removing them only joins
 * numbers into larger ones, so the check is never looser than the reader;
 * any line holding "topology" is checked, whatever its key reads. */
static bool fuzz_topologies_small(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	if (!line)
		return false;
	bool small = true;
	for (size_t i = 0; small && i < size;) {
		size_t n = 0;
		do {
			for (; i < size && data[i] != '\n'; i++)
				if (!strchr(" \t\r\f\v", data[i])) /* a NUL byte is found as the terminator */
					line[n++] = (char)data[i];
			i += i < size; /* the '\n' */
		} while (i < size && (data[i] == ' ' || data[i] == '\t'));
		line[n] = '\0';
		if (strstr(line, "topology"))
			small = fuzz_small(line);
	}
	free(line);
	return small;
}

static bool fuzz_skipped(const uint8_t *data, size_t size)
{
	if (memchr(data, '/', size) || memchr(data, '@', size) || !fuzz_topologies_small(data, size))
		return true;
	unsigned long v = 0;
	for (size_t i = 0; i < size; i++) {
		if (data[i] >= '0' && data[i] <= '9') {
			v = v * 10 + (data[i] - '0');
			if (v > 32)
				return true;
		} else {
			v = 0;
		}
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 16) || fuzz_skipped(data, size))
		return 0;
	if (!fuzz_dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(fuzz_dir, sizeof fuzz_dir, "%.40s/nl-fuzz-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir))
			NL_BUG("cannot create a directory from %s", fuzz_dir);
		atexit(fuzz_cleanup);
	}
	char study[96], out[96];
	snprintf(study, sizeof study, "%s/study.ini", fuzz_dir);
	snprintf(out, sizeof out, "%s/out", fuzz_dir);
	/* A new file each time, not the last one truncated: ext4 writes a
	 * file truncated and rewritten back to disk at its close
	 * (auto_da_alloc), and the 9,000 inputs waited 21 s on the disk for
	 * 1.6 s of processor time. */
	unlink(study);
	FILE *f = fopen(study, "wb");
	if (!f)
		return 0;
	bool written = fwrite(data, 1, size, f) == size;
	if (fclose(f) != 0 || !written)
		return 0;
	struct session_compare_opts o = {.dir = out, .jobs = 1};
	struct session_compare_result res;
	struct nl_err err = {0};
	int rc = session_compare(study, &o, &res, &err);
	if (rc >= 0)
		NL_BUG("a study whose traces cannot open was accepted (%u runs)", res.runs);
	fuzz_refusal(&err, rc, "session_compare");
	if (res.problems) {
		for (const char *p = res.problems; *p;) {
			size_t n = strcspn(p, "\n");
			if (n == 0)
				NL_BUG("an empty line among the problems:\n%s", res.problems);
			p += n + (p[n] == '\n');
		}
	}
	free(res.problems);
	free(res.markdown);
	json_decref(res.doc);
	return 0;
}
