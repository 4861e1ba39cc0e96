/* An inih reader that counts lines and section headers (ini_lines.h). */
#include "core/ini_lines.h"

#include <stdlib.h>
#include <string.h>

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
