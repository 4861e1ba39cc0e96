/* INI files through inih (ini_parse_stream), for every reader: the
 * physical-line reader below hands inih one line of any length, cut into
 * pieces it can hold (configuration, study and workload files alike), and
 * ini_lines counts what inih's handler cannot see: the line being read,
 * and the section headers read so far. inih reports a section only with
 * its keys, so a header that repeats the one before it ("[job A]" twice in
 * a row) reads as more keys of the same section unless the handler
 * compares `headers` with the count when its section began.
 * ini_lines_parse hands the handler each key once, its indented
 * continuation lines (and the pieces of a long line) joined, as
 * configuration files read them (core/config.c, docs/configuration.md). */
#ifndef NETLOOM_CORE_INI_LINES_H
#define NETLOOM_CORE_INI_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* inih's MAX_SECTION and MAX_NAME (ini.c, fixed in Debian's build as
 * upstream's): a section name, and the name a continuation line of a key
 * is handed over with, keep at most INI_LINES_NAME_MAX - 1 characters,
 * silently ('[job <54 characters>]' read as a job named by its first 45).
 * The reader refuses a longer section name at its header's line, and a
 * continuation line of a key whose name is longer. */
#define INI_LINES_NAME_MAX 50

/* The bytes kept of a refused line, its NUL included (bad_text below). */
#define INI_LINES_BAD_TEXT 64

/* inih's handler (ini.h ini_handler): nonzero on success. */
typedef int (*ini_lines_handler_fn)(void *user, const char *section, const char *name, const char *value);

/* Debian builds libinih with a fixed 200-byte line buffer (INI_MAX_LINE,
 * the newline and the NUL included): it reads the rest of a longer line as
 * lines of their own. This reader, inih's ini_reader over a FILE, hands it
 * one physical line at a time and cuts a longer one into its first piece
 * plus indented continuation chunks, which the handler appends to the
 * key's value without a separator (is_chunk), so the value arrives whole:
 * cuts fall between two non-blank characters, never before a comment or
 * section character, and a trailing " ; comment" is dropped first. A long
 * comment line is handed over as a blank one. An indented continuation
 * line loses its " ; comment" too: inih strips it from a key's first line
 * only, and kept it in the value (docs/configuration.md). Zero-initialise,
 * set f. */
struct ini_lines_reader {
	FILE *f;
	int line;        /* physical lines read so far: the one being read (1-based) */
	char *text;      /* that line without its newline (getline buffer, owned) */
	size_t cap;
	size_t len;      /* its length (a long line's without its trailing comment) */
	size_t pos;      /* the next byte of text to hand over; len when done */
	size_t indent;   /* the blanks that start it */
	bool is_cont;    /* the piece handed over last continues the key before
			  * it (inih's rule): a chunk, or an indented line that
			  * is no blank or comment line */
	bool is_chunk;   /* ... and is a piece of a long line after its first */
	/* inih's prev_name: a key line came since the last header (an
	 * indented line then continues it, even one starting with '['),
	 * that key's line and the length of its name. */
	bool has_key;
	int key_line;
	size_t key_len;
	/* Why the reader stopped at `line` ("FILE:LINE: " not included), ""
	 * while it has not: a NUL byte, a long line it cannot cut (a
	 * section header, no "key =" in the first piece, blanks or comment
	 * characters at every cut), or a name inih would cut (INI_LINES_NAME_MAX).
	 * is_cont and is_chunk then describe the piece it could not hand over. */
	char why[256];
	/* The first line inih refuses as no header, no 'key = value' and no
	 * comment (0: none yet) and its first bytes, for a message that
	 * quotes it: the line number alone left the reader to find it. */
	int bad_line;
	char bad_text[INI_LINES_BAD_TEXT];
	bool is_bad_cut; /* bad_text holds part of the line only */
	/* Optional, NULL-terminated: the kinds of "[KIND NAME]" header the
	 * file has ("job"). A header of one too long for libinih is refused
	 * with its NAME's limit, what the user writes ("a job name of at
	 * most 45 characters"), not the section name's 49. */
	const char *const *name_kinds;
};

/* Room for ini_lines_bad_quote: each byte of bad_text shown as at most
 * four (\xHH), the quotes, the "..." and the NUL. */
#define INI_LINES_BAD_QUOTE_MAX (4 * INI_LINES_BAD_TEXT + 6)

/* r->bad_text quoted for a message, in buf (truncated to n): "'TEXT'",
 * "'TEXT...'" when cut (is_bad_cut), its control characters and bytes
 * that are not valid UTF-8 as \xHH (nl_str_one_line). Study and
 * configuration files quote a refused line alike. */
void ini_lines_bad_quote(const struct ini_lines_reader *r, char *buf, size_t n);

/* inih's reader (ini.h ini_reader; stream is a struct ini_lines_reader):
 * the next piece of at most size - 2 characters and a newline in buf,
 * NULL at the end of the file, on a read error (ferror(f)) or when the
 * line cannot be handed over (why says so; every later call returns NULL
 * too). */
char *ini_lines_reader_next(char *buf, int size, void *stream);
void ini_lines_reader_release(struct ini_lines_reader *r);

struct ini_lines {
	FILE *f;
	int line;        /* the line being read (1-based); while the handler
			  * of ini_lines_parse runs, the key's (first) line */
	int headers;     /* section headers read so far */
	int header_line; /* the last header's line */
	/* The lines of f. After ini_lines_parse, rd.why says why the line it
	 * returned could not be read, "" when inih or a handler refused it. */
	struct ini_lines_reader rd;
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
 * and r->header_line are its section's). A line longer than inih's buffer
 * is read whole (struct ini_lines_reader). An indented "name = value" line
 * is handed over on its own (is_misindented). Returns 0, the first line
 * that inih could not parse, whose handler failed or that the reader
 * could not hand over (r->rd.why says why; nothing after it is read),
 * or -2 when out of memory. A section with no keys goes
 * to empty_section when set. */
int ini_lines_parse(struct ini_lines *r, ini_lines_handler_fn handler, void *user);

/* An indented value that reads "name = value" (a word, then '=' with a
 * blank next to it) is a mis-indented key, not the rest of a value:
 * configuration, study and workload files all hold to it. */
bool ini_lines_is_key(const char *v);

/* The refusal of such a line, in buf (truncated to n), the same words in
 * every reader: "[SECTION] indented line 'VALUE' reads as 'name = value'
 * after key 'NAME'; expected keys unindented (...)", without "[SECTION] "
 * when section is "" (a configuration file's keys before any header).
 * The caller puts "FILE:LINE: " before it. */
void ini_lines_misindented_msg(char *buf, size_t n, const char *section, const char *name, const char *value);

/* The NAME of a "[KIND NAME]" header (section as libinih hands it, blanks
 * and all) into buf (truncated to n): the text after KIND and its blanks,
 * trailing blanks cut, so "[job  A ]" is job 'A' as "[job A]" is, and
 * "[job  ]" has the empty name. Study and workload files read their
 * names so. False when section is not of that kind. */
bool ini_lines_section_name(const char *section, const char *kind, char *buf, size_t n);

/* The header a mistyped one meant, for "did you mean": when section's
 * first word is a typo of one of kinds (config_name_near's rule; not one
 * of them as written), buf (truncated to n) gets that kind with the rest
 * of section as written, "[jb A]" giving "[job A]", and true is
 * returned. A kind written "job NAME" takes a name: its typo without one
 * gives "[job NAME]" ("[jb]", "[jobs]"), and the kind with a longer name
 * glued to it, "[jobfoo]", "[job foo]", where "[jb]" suggested "[job]",
 * itself refused. False, buf untouched, when it is no kind's typo. At most 8
 * kinds. */
bool ini_lines_section_near(const char *section, const char *const *kinds, size_t n_kinds, char *buf, size_t n);

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
