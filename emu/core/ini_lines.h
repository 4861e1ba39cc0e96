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
	/* Optional: called for a section with no keys, which inih never
	 * reports (it reports a section with its first key), when the next
	 * header or ini_lines_finish shows it had none: its name (as inih
	 * would report it), header line and index (the index-th header). */
	void (*empty_section)(void *ctx, const char *name, int line, int index);
	void *empty_ctx;
	struct { /* the last header read, while no key of its section came */
		char name[128];
		int line, index;
		bool is_pending, has_keys;
	} hdr;
};

/* inih's reader; `stream` is a struct ini_lines. */
char *ini_lines_read(char *str, int num, void *stream);
/* The handler got a key: the last header's section is not empty. */
static inline void ini_lines_key(struct ini_lines *r)
{
	r->hdr.has_keys = true;
}
/* After ini_parse_stream: the last header's section, if it had no keys. */
void ini_lines_finish(struct ini_lines *r);

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
