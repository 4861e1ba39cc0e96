/* An inih reader (ini_parse_stream) over a FILE that counts what inih's
 * handler cannot see: the line being read, and the section headers read
 * so far. inih reports a section only with its keys, so a header that
 * repeats the one before it ("[job A]" twice in a row) reads as more keys
 * of the same section unless the handler compares `headers` with the
 * count when its section began. Lines longer than inih's buffer arrive
 * in pieces and count once. Pass the struct as inih's stream; the
 * handler's user pointer stays free. */
#ifndef NETLOOM_CORE_INI_LINES_H
#define NETLOOM_CORE_INI_LINES_H

#include <stdbool.h>
#include <stdio.h>

struct ini_lines {
	FILE *f;
	int line;        /* the line being read (1-based) */
	int headers;     /* section headers read so far */
	int header_line; /* the last header's line */
	bool mid_line;   /* the last read ended inside a line */
};

/* inih's reader; `stream` is a struct ini_lines. */
char *ini_lines_read(char *str, int num, void *stream);

/* The keys an INI file set, by section and name, with the line of each:
 * every reader (configuration, study, workload) refuses a key set twice
 * in one section, where inih hands both over and the last one won
 * silently. Zero-initialise; release with ini_keys_release. */
struct ini_keys {
	struct ini_key_seen {
		char *id; /* "section]name" */
		int line;
	} *v;
	size_t n, cap;
};

/* 0 after recording (section, name) at line; the line it was first set
 * at when it was already; -1 when out of memory. */
int ini_keys_seen(struct ini_keys *k, const char *section, const char *name, int line);
void ini_keys_release(struct ini_keys *k);

#endif
