/* Physical lines of any length for inih, and an inih reader that counts
 * lines and section headers and joins a key's continuation lines before
 * its handler sees it (ini_lines.h). */
#include "core/ini_lines.h"

#include <ctype.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/config.h"
#include "core/error.h"
#include "core/text.h"

static bool ini_lines_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v';
}

/* Where a piece of at most `max` bytes starting at r->pos ends: the whole
 * rest when it fits, else the last cut after `lo` between two non-blank
 * characters whose right side does not start a comment or a section (inih
 * strips the blanks around a piece and reads one starting with ';', '#'
 * or '[' as no continuation); 0 when there is none. */
static size_t ini_lines_cut(const struct ini_lines_reader *r, size_t max, size_t lo)
{
	const char *l = r->text;
	if (r->len - r->pos <= max)
		return r->len;
	if (lo < r->pos + 1)
		lo = r->pos + 1;
	for (size_t e = r->pos + max; e > lo; e--)
		if (!ini_lines_blank(l[e - 1]) && !ini_lines_blank(l[e]) && !strchr(";#[", l[e]))
			return e;
	return 0;
}

/* Drop the line's inline comment (a ';' after a blank, as inih has it)
 * and the blanks before it. */
static void ini_lines_drop_comment(struct ini_lines_reader *r)
{
	for (size_t i = 1; i < r->len; i++)
		if (r->text[i] == ';' && ini_lines_blank(r->text[i - 1])) {
			r->len = i;
			break;
		}
	while (r->len > 0 && ini_lines_blank(r->text[r->len - 1]))
		r->len--;
	r->text[r->len] = '\0';
}

/* inih's find_chars_or_comment: the first of `chars` in s, or the ';'
 * after a blank that starts an inline comment, or the end. */
static const char *ini_lines_find(const char *s, const char *chars)
{
	bool was_blank = false;
	for (; *s && !strchr(chars, *s) && !(was_blank && *s == ';'); s++)
		was_blank = isspace((unsigned char)*s);
	return s;
}

/* Follow inih's reading of the line just read (its prev_name: r->has_key)
 * and refuse a name it would cut (INI_LINES_NAME_MAX): a section header's,
 * or that of the key an indented line continues. A long line's later
 * chunks are continuations too (ini_lines_reader_next checks them), and a
 * header longer than max is refused there. False with r->why set when
 * refused. */
static bool ini_lines_track(struct ini_lines_reader *r, size_t max)
{
	const char *start = r->text + r->indent;
	if (r->line == 1 && !strncmp(start, "\xEF\xBB\xBF", 3))
		start += 3; /* inih skips a UTF-8 byte order mark */
	if (!*start || strchr(";#", *start))
		return true;
	if (r->has_key && r->indent > 0) {
		if (r->key_len < INI_LINES_NAME_MAX)
			return true;
		snprintf(r->why, sizeof r->why,
			 "continues the key of line %d, whose name has %zu characters; libinih hands a continued "
			 "key over under its first %d only: expected a name of at most %d characters",
			 r->key_line, r->key_len, INI_LINES_NAME_MAX - 1, INI_LINES_NAME_MAX - 1);
		return false;
	}
	if (*start == '[') {
		const char *end = ini_lines_find(start + 1, "]");
		size_t n = (size_t)(end - start - 1);
		/* inih's syntax error, which the readers reported as a section
		 * named "" (workload files), "syntax error" (configuration
		 * files) or not at all: say what is wrong. A ']' after a
		 * " ;" is in the comment. */
		if (*end != ']') {
			bool in_comment = *end && strchr(end, ']');
			int len = (int)(end - start), shown;
			while (len > 1 && ini_lines_blank(start[len - 1]))
				len--;
			shown = len > 60 ? 60 : len;
			snprintf(r->why, sizeof r->why, "'%.*s%s': expected ']' at the end of a section header%s", shown,
				 start, len > shown ? "..." : "",
				 in_comment ? " (its ']' follows ' ;', which starts a comment)" : "");
			return false;
		}
		/* inih ignores what follows the ']': a key written there
		 * ('[network] topology = ...') was lost, and the run took
		 * the defaults. Only blanks or a ';' comment may follow, as
		 * after a value (docs/configuration.md); '#' starts a
		 * comment only at the start of a line, as in inih. */
		const char *rest = end + 1;
		while (ini_lines_blank(*rest))
			rest++;
		if (*rest && *rest != ';') {
			int len = (int)strlen(start), shown;
			while (len > 1 && ini_lines_blank(start[len - 1]))
				len--;
			shown = len > 60 ? 60 : len;
			snprintf(r->why, sizeof r->why,
				 "'%.*s%s': text after the ']' of a section header; expected a key on a line of its own "
				 "(only blanks or a ';' comment may follow ']'%s)",
				 shown, start, len > shown ? "..." : "",
				 *rest == '#' ? "; '#' starts a comment only at the start of a line" : "");
			return false;
		}
		r->has_key = false;
		if (n < INI_LINES_NAME_MAX || r->len > max)
			return true; /* a long line: refused below as such */
		/* "[job NAME]": the NAME's room is what is left after the
		 * kind and the blanks after it (45 after "job "). */
		char limit[64];
		snprintf(limit, sizeof limit, "at most %d characters", INI_LINES_NAME_MAX - 1);
		for (const char *const *k = r->name_kinds; k && *k; k++) {
			size_t kl = strlen(*k), off = kl;
			if (strncmp(start + 1, *k, kl) || !isblank((unsigned char)start[1 + kl]))
				continue;
			while (isblank((unsigned char)start[1 + off]))
				off++;
			size_t name_end = n;
			while (name_end > off && isblank((unsigned char)start[name_end]))
				name_end--;
			/* Blanks past the limit (before the name, or after a
			 * name that fits): the section's own length is at fault. */
			if (off >= INI_LINES_NAME_MAX - 1 || name_end - off <= INI_LINES_NAME_MAX - 1 - off)
				break;
			snprintf(limit, sizeof limit, "a %s name of at most %d characters", *k,
				 INI_LINES_NAME_MAX - 1 - (int)off);
			break;
		}
		snprintf(r->why, sizeof r->why,
			 "section name of %zu characters ('[%.20s...]'); libinih keeps its first %d only: expected %s",
			 n, start + 1, INI_LINES_NAME_MAX - 1, limit);
		return false;
	}
	const char *end = ini_lines_find(start, "=:");
	if (*end != '=' && *end != ':') {
		/* inih's syntax error: prev_name unchanged */
		if (!r->bad_line) {
			size_t n = strlen(start);
			while (n > 0 && ini_lines_blank(start[n - 1]))
				n--;
			r->bad_line = r->line;
			r->is_bad_cut = n >= sizeof r->bad_text;
			snprintf(r->bad_text, sizeof r->bad_text, "%.*s", (int)n, start);
		}
		return true;
	}
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	r->has_key = true;
	r->key_line = r->line;
	r->key_len = (size_t)(end - start);
	return true;
}

void ini_lines_bad_quote(const struct ini_lines_reader *r, char *buf, size_t n)
{
	char shown[4 * sizeof r->bad_text + 1];
	nl_str_one_line(shown, sizeof shown, r->bad_text);
	snprintf(buf, n, "'%s%s'", shown, r->is_bad_cut ? "..." : "");
}

char *ini_lines_reader_next(char *buf, int size, void *stream)
{
	struct ini_lines_reader *r = stream;
	size_t max = (size_t)size - 2; /* room for the newline and the NUL */

	if (r->why[0])
		return NULL;
	if (r->pos < r->len) {
		/* The next chunk of a long line, as an indented continuation. */
		size_t e = ini_lines_cut(r, max - 1, 0);
		r->is_cont = r->is_chunk = true;
		if (r->key_len >= INI_LINES_NAME_MAX) {
			snprintf(r->why, sizeof r->why,
				 "line of %zu characters whose key's name has %zu: libinih hands a long line's later "
				 "pieces over under the key's first %d characters only: expected a name of at most %d",
				 r->len, r->key_len, INI_LINES_NAME_MAX - 1, INI_LINES_NAME_MAX - 1);
			return NULL;
		}
		if (!e) {
			snprintf(r->why, sizeof r->why,
				 "line of %zu characters cannot be split into libinih's %d-character lines (a run of blanks or a comment character at every cut); shorten it, continue it on indented lines, or use 'topology = @file'",
				 r->len, size - 2);
			return NULL;
		}
		buf[0] = ' ';
		memcpy(buf + 1, r->text + r->pos, e - r->pos);
		memcpy(buf + 1 + (e - r->pos), "\n", 2);
		r->pos = e;
		return buf;
	}
	ssize_t n = text_getline(&r->text, &r->cap, r->f);
	if (n < 0)
		return NULL;
	r->line++;
	bool has_nul = memchr(r->text, '\0', (size_t)n) != NULL;
	while (n > 0 && (r->text[n - 1] == '\n' || r->text[n - 1] == '\r'))
		r->text[--n] = '\0';
	r->len = (size_t)n;
	r->pos = 0;
	r->indent = 0;
	while (ini_lines_blank(r->text[r->indent]))
		r->indent++;
	const char *start = r->text + r->indent;
	/* inih's rule: an indented non-blank line after a key continues it.
	 * After a header or at the file's start (no prev_name: has_key, as
	 * the line before left it) it is a key line: '[router]' then '
	 * num_vcs = 4' was refused as "indented line '4' reads as 'name =
	 * value' after key 'num_vcs'" though inih read it as the key. */
	r->is_cont = r->has_key && r->indent > 0 && *start && !strchr(";#", *start);
	r->is_chunk = false;
	/* libinih stops at a NUL: the rest of the line would be dropped
	 * silently ('topology = torus:k=4x4\0,p=3' read as k=4x4), as the
	 * topology readers refuse it (96669b7). */
	if (has_nul) {
		r->len = 0;
		snprintf(r->why, sizeof r->why, "unexpected NUL byte; expected a text file");
		return NULL;
	}
	if (!ini_lines_track(r, max))
		return NULL;
	if (r->len > max) {
		if (strchr(";#", *start)) {
			r->len = 0; /* a comment: hand over nothing of it */
			buf[0] = '\n';
			buf[1] = '\0';
			return buf;
		}
		if (*start == '[') {
			snprintf(r->why, sizeof r->why, "section header longer than libinih's %d characters", size - 2);
			return NULL;
		}
		ini_lines_drop_comment(r);
		const char *eq = strchr(r->text, '=');
		if (!r->is_cont && (!eq || (size_t)(eq - r->text) + 1 >= max)) {
			snprintf(r->why, sizeof r->why,
				 "line of %zu characters without 'key =' in its first %d; libinih reads at most %d characters a line",
				 r->len, size - 2, size - 2);
			return NULL;
		}
		size_t e = ini_lines_cut(r, max, r->is_cont ? 0 : (size_t)(eq - r->text) + 1);
		if (!e) {
			snprintf(r->why, sizeof r->why,
				 "line of %zu characters cannot be split into libinih's %d-character lines; shorten it, continue it on indented lines, or use 'topology = @file'",
				 r->len, size - 2);
			return NULL;
		}
		memcpy(buf, r->text, e);
		memcpy(buf + e, "\n", 2);
		r->pos = e;
		return buf;
	}
	/* inih drops a key line's " ; comment" but keeps a continuation
	 * line's in the value ("topology = torus:k=4" then "  x4 ; 4x4 torus"
	 * read k as '4x4 ; 4x4 torus'); docs/configuration.md has it end any
	 * line. The line starts with a non-blank that is no ';', so some of
	 * it stays. */
	if (r->is_cont)
		ini_lines_drop_comment(r);
	memcpy(buf, r->text, r->len);
	memcpy(buf + r->len, "\n", 2);
	r->pos = r->len;
	return buf;
}

void ini_lines_reader_release(struct ini_lines_reader *r)
{
	free(r->text);
	r->text = NULL;
	r->cap = r->len = r->pos = 0;
}

/* The name of the section header line s opens, as inih reads it: after
 * blanks, '[' up to the first ']' (an inline "; comment" before it makes
 * the line an error, not a header). False when s is no header. */
static bool ini_lines_header_name(const char *s, char *name, size_t n)
{
	s += strspn(s, " \t");
	if (*s != '[')
		return false;
	const char *p = s + 1;
	for (; *p && *p != ']'; p++)
		if (*p == ';' && isspace((unsigned char)p[-1]))
			return false;
	if (*p != ']')
		return false;
	size_t len = (size_t)(p - s - 1);
	if (len >= INI_LINES_NAME_MAX)
		len = INI_LINES_NAME_MAX - 1;
	snprintf(name, n, "%.*s", (int)len, s + 1);
	return true;
}

/* After the last line: the last header's section, if it had no keys. */
static void ini_lines_finish(struct ini_lines *r)
{
	if (r->hdr.is_pending && !r->hdr.has_keys && r->empty_section)
		r->empty_section(r->empty_ctx, r->hdr.name, r->hdr.line, r->hdr.index);
	r->hdr.is_pending = false;
}

static void ini_lines_drop_key(struct ini_lines *r)
{
	free(r->key.section);
	free(r->key.name);
	free(r->key.value);
	r->key.section = r->key.name = r->key.value = NULL;
	r->key.len = 0;
}

/* The key read last is complete: hand it over, at its own line. */
static void ini_lines_flush(struct ini_lines *r)
{
	if (!r->key.name)
		return;
	int line = r->line;
	r->line = r->key.line;
	r->is_misindented = r->key.is_misindented;
	if (!r->key.fn(r->key.user, r->key.section, r->key.name, r->key.value) && !r->key.fail_line)
		r->key.fail_line = r->key.line;
	r->is_misindented = false;
	r->line = line;
	ini_lines_drop_key(r);
}

/* The reader's next piece; a line's first piece may be a section header,
 * counted here as inih reads it. */
static char *ini_lines_read(char *str, int num, void *stream)
{
	struct ini_lines *r = stream;
	char *s = ini_lines_reader_next(str, num, &r->rd);
	if (!s || r->rd.is_chunk)
		return s;
	r->line = r->rd.line;
	/* A section header, as inih reads it (after blanks), unless it is an
	 * indented '[' after a key: inih continues that key with it. */
	const char *text = r->rd.text; /* the whole line: s may be a piece of it */
	if (text[r->rd.indent] == '[' && !(r->rd.is_cont && r->key.name)) {
		ini_lines_flush(r); /* before the count: the key's section */
		r->headers++;
		r->header_line = r->line;
		ini_lines_finish(r);
		r->hdr.is_pending = ini_lines_header_name(text, r->hdr.name, sizeof r->hdr.name);
		r->hdr.has_keys = false;
		r->hdr.line = r->line;
		r->hdr.index = r->headers;
	}
	return s;
}

static char *ini_lines_dup(struct ini_lines *r, const char *s)
{
	char *d = strdup(s);
	if (!d)
		r->key.is_nomem = true;
	return d;
}

/* inih's handler: a continuation line (inih hands it over with the name of
 * the key it continues) is appended to the key read last; any other key
 * completes that one and is kept until it is complete in turn. */
static int ini_lines_handler(void *user, const char *section, const char *name, const char *value)
{
	struct ini_lines *r = user;
	r->hdr.has_keys = true;
	if (r->key.is_nomem)
		return 1;
	bool is_cont = r->rd.is_cont && r->key.name && !strcmp(r->key.name, name) &&
		       !strcmp(r->key.section, section);
	/* A chunk of a long line is part of the value whatever it reads. */
	if (is_cont && (r->rd.is_chunk || !ini_lines_is_key(value))) {
		size_t n = strlen(value);
		char *v = realloc(r->key.value, r->key.len + n + 1);
		if (!v) {
			r->key.is_nomem = true;
			return 1;
		}
		memcpy(v + r->key.len, value, n + 1);
		r->key.value = v;
		r->key.len += n;
		return 1;
	}
	ini_lines_flush(r);
	r->key.section = ini_lines_dup(r, section);
	r->key.name = ini_lines_dup(r, name);
	r->key.value = ini_lines_dup(r, value);
	r->key.len = strlen(value);
	r->key.line = r->line;
	r->key.is_misindented = is_cont;
	if (r->key.is_nomem)
		ini_lines_drop_key(r);
	return 1;
}

int ini_lines_parse(struct ini_lines *r, ini_lines_handler_fn handler, void *user)
{
	r->key.fn = handler;
	r->key.user = user;
	r->rd.f = r->f;
	int line = ini_parse_stream(ini_lines_read, r, ini_lines_handler, r);
	/* A line the reader refused ends the file there: the key before it
	 * is complete unless the line continued it. */
	bool refused = r->rd.why[0] != '\0';
	if (!r->key.is_nomem && !(refused && r->rd.is_cont))
		ini_lines_flush(r);
	ini_lines_drop_key(r);
	ini_lines_finish(r);
	ini_lines_reader_release(&r->rd);
	if (r->key.is_nomem || line < 0)
		return line < 0 ? line : -2;
	/* The first bad line in file order: a key's handler runs once the
	 * key is complete, after inih may have refused a later line; the
	 * reader stops inih at the line it refuses. */
	if (refused && line == 0)
		line = r->rd.line;
	if (r->key.fail_line && (line == 0 || r->key.fail_line < line))
		line = r->key.fail_line;
	if (line != r->rd.line)
		r->rd.why[0] = '\0';
	return line;
}

bool ini_lines_section_name(const char *section, const char *kind, char *buf, size_t n)
{
	size_t k = strlen(kind);
	if (strncmp(section, kind, k) || !isblank((unsigned char)section[k]))
		return false;
	const char *p = section + k;
	while (isblank((unsigned char)*p))
		p++;
	size_t len = strlen(p);
	while (len && isblank((unsigned char)p[len - 1]))
		len--;
	snprintf(buf, n, "%.*s", (int)len, p);
	return true;
}

bool ini_lines_section_near(const char *section, const char *const *kinds, size_t n_kinds, char *buf, size_t n)
{
	size_t len = strcspn(section, " \t");
	char bare[8][INI_LINES_NAME_MAX];
	const char *names[8] = {0};
	if (n_kinds > 8)
		n_kinds = 8;
	for (size_t i = 0; i < n_kinds; i++) {
		size_t k = strcspn(kinds[i], " ");
		if (k == len && !strncmp(section, kinds[i], len))
			return false;
		snprintf(bare[i], sizeof bare[i], "%.*s", (int)k, kinds[i]);
		names[i] = bare[i];
	}
	const char *kind = config_name_near(section, len, names, n_kinds);
	/* "[systemfoo]": the kind, a name glued to it ("[systems]", a typo,
	 * is said above: "[system NAME]", not "[system s]"). */
	for (size_t i = 0; !kind && !section[len] && i < n_kinds; i++) {
		size_t k = strlen(names[i]);
		if (kinds[i][k] && len > k && !strncmp(section, names[i], k)) {
			snprintf(buf, n, "[%s %s]", names[i], section + k);
			return true;
		}
	}
	if (!kind)
		return false;
	size_t i = 0;
	while (names[i] != kind)
		i++;
	bool is_named = kinds[i][strlen(kind)] != '\0';
	snprintf(buf, n, "[%s%s]", kind, section[len] ? section + len : is_named ? " NAME" : "");
	return true;
}

bool ini_lines_is_key(const char *v)
{
	const char *s = v;
	while (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9'))
		s++;
	if (s == v)
		return false;
	bool blank = *s && isspace((unsigned char)*s);
	while (*s && isspace((unsigned char)*s))
		s++;
	return *s == '=' && (blank || (s[1] && isspace((unsigned char)s[1])));
}

void ini_lines_misindented_msg(char *buf, size_t n, const char *section, const char *name, const char *value)
{
	snprintf(buf, n,
		 "%s%s%sindented line '%s' reads as 'name = value' after key '%s'; expected keys unindented (an "
		 "indented line continues the key before it)",
		 section[0] ? "[" : "", section, section[0] ? "] " : "", value, name);
}

int ini_keys_seen(struct ini_keys *k, const char *section, const char *name, int line)
{
	size_t ls = strlen(section), ln = strlen(name);
	for (size_t i = 0; i < k->n; i++)
		if (!strncmp(k->v[i].id, section, ls) && k->v[i].id[ls] == ']' && !strcmp(k->v[i].id + ls + 1, name))
			return k->v[i].line;
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 32;
		struct ini_key_seen *v = realloc(k->v, cap * sizeof *v);
		if (!v)
			return -1;
		k->v = v;
		k->cap = cap;
	}
	char *id = malloc(ls + ln + 2);
	if (!id)
		return -1;
	memcpy(id, section, ls);
	id[ls] = ']';
	memcpy(id + ls + 1, name, ln + 1);
	k->v[k->n++] = (struct ini_key_seen){id, line};
	return 0;
}

void ini_keys_release(struct ini_keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].id);
	free(k->v);
	*k = (struct ini_keys){0};
}
