/* An inih reader that counts lines and section headers (ini_lines.h). */
#include "core/ini_lines.h"

#include <ctype.h>
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

void ini_lines_finish(struct ini_lines *r)
{
	if (r->hdr.is_pending && !r->hdr.has_keys && r->empty_section)
		r->empty_section(r->empty_ctx, r->hdr.name, r->hdr.line, r->hdr.index);
	r->hdr.is_pending = false;
}

char *ini_lines_read(char *str, int num, void *stream)
{
	struct ini_lines *r = stream;
	char *s = fgets(str, num, r->f);
	if (!s)
		return NULL;
	if (!r->mid_line) {
		r->line++;
		if (s[strspn(s, " \t")] == '[') {
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
