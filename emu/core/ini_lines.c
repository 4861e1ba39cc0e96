/* An inih reader that counts lines and section headers (ini_lines.h). */
#include "core/ini_lines.h"

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
