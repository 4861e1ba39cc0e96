/* An inih reader that counts lines and section headers, and joins a key's
 * continuation lines before its handler sees it (ini_lines.h). */
#include "core/ini_lines.h"

#include <ctype.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

/* inih's MAX_SECTION: a longer section name reaches the handler cut to
 * MAX_SECTION - 1 characters. */
#define INI_LINES_SECTION_MAX 50

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
	if (len >= INI_LINES_SECTION_MAX)
		len = INI_LINES_SECTION_MAX - 1;
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

static char *ini_lines_read(char *str, int num, void *stream)
{
	struct ini_lines *r = stream;
	char *s = fgets(str, num, r->f);
	if (!s)
		return NULL;
	r->is_indented = false;
	if (!r->mid_line) {
		r->line++;
		/* inih's line start: blanks skipped (isspace), a comment or
		 * nothing after them reads as no line. */
		const char *start = s;
		while (*start && isspace((unsigned char)*start))
			start++;
		r->is_indented = start > s && *start && !strchr(";#", *start);
		/* An indented '[' after a key continues that key (inih). */
		if (*start == '[' && !(r->is_indented && r->key.name)) {
			ini_lines_flush(r); /* before the count: the key's section */
			r->headers++;
			r->header_line = r->line;
			ini_lines_finish(r);
			r->hdr.is_pending = ini_lines_header_name(s, r->hdr.name, sizeof r->hdr.name);
			r->hdr.has_keys = false;
			r->hdr.line = r->line;
			r->hdr.index = r->headers;
		}
	}
	r->mid_line = !strchr(s, '\n');
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
	bool is_cont = r->is_indented && r->key.name && !strcmp(r->key.name, name) &&
		       !strcmp(r->key.section, section);
	if (is_cont && !ini_lines_is_key(value)) {
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
	int line = ini_parse_stream(ini_lines_read, r, ini_lines_handler, r);
	if (!r->key.is_nomem)
		ini_lines_flush(r);
	ini_lines_drop_key(r);
	ini_lines_finish(r);
	if (r->key.is_nomem || line < 0)
		return line < 0 ? line : -2;
	/* The first bad line in file order: a key's handler runs once the
	 * key is complete, after inih may have refused a later line. */
	if (r->key.fail_line && (line == 0 || r->key.fail_line < line))
		return r->key.fail_line;
	return line;
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
