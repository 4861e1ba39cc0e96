/* An inih reader (ini_parse_stream) over a FILE that counts what inih's
 * handler cannot see: the line being read, and the section headers read
 * so far. inih reports a section only with its keys, so a header that
 * repeats the one before it ("[job A]" twice in a row) reads as more keys
 * of the same section unless the handler compares `headers` with the
 * count when its section began. Lines longer than inih's buffer arrive
 * in pieces and count once. ini_lines_parse hands the handler each key
 * once, its indented continuation lines joined, as configuration files
 * read them (core/config.c, docs/configuration.md). */
#ifndef NETLOOM_CORE_INI_LINES_H
#define NETLOOM_CORE_INI_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* inih's handler (ini.h ini_handler): nonzero on success. */
typedef int (*ini_lines_handler_fn)(void *user, const char *section, const char *name, const char *value);

struct ini_lines {
	FILE *f;
	int line;        /* the line being read (1-based); while the handler
			  * of ini_lines_parse runs, the key's (first) line */
	int headers;     /* section headers read so far */
	int header_line; /* the last header's line */
	bool mid_line;   /* the last read ended inside a line */
	bool is_indented; /* the line read last starts with a blank and is no
			   * blank or comment line: inih continues the last key
			   * with it, when a key came since the last header */
	/* While the handler of ini_lines_parse runs: the key is an indented
	 * line that reads "name = value", a mis-indented key. inih hands it
	 * over as the value of the key before it (the handler gets that
	 * key's name and the whole line), so it is not joined to that value
	 * but handed over at its own line, for the handler to refuse. */
	bool is_misindented;
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
	struct { /* ini_lines_parse: the key read last, handed over once complete */
		ini_lines_handler_fn fn;
		void *user;
		char *section, *name, *value; /* owned; name NULL when none */
		size_t len;                   /* strlen(value) */
		int line;
		bool is_misindented;
		int fail_line; /* the first key whose handler failed, 0 for none */
		bool is_nomem;
	} key;
};

/* Read r->f (set it, the other fields zero, empty_section optional) with
 * inih, handing `handler` every key once it is complete: at the next key,
 * section header or the end of the file. An indented non-blank line after
 * a key continues its value (libinih's INI_ALLOW_MULTILINE rule, as in
 * configuration files): it is appended without a separator, the key keeps
 * its first line, and r->line is that line while the handler runs (r->headers
 * and r->header_line are its section's). An indented "name = value" line
 * is handed over on its own (is_misindented). Returns 0, the first line
 * that inih could not parse or whose handler failed, or -2 when out of
 * memory. A section with no keys goes to empty_section when set. */
int ini_lines_parse(struct ini_lines *r, ini_lines_handler_fn handler, void *user);

/* An indented value that reads "name = value" (a word, then '=' with a
 * blank next to it) is a mis-indented key, not the rest of a value:
 * configuration, study and workload files all hold to it. */
bool ini_lines_is_key(const char *v);

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
