/* Text that must stay well formed (text.h). */
#include "core/text.h"

#include <stdlib.h>
#include <string.h>

char *text_utf8_clean(const char *s, bool xml)
{
	size_t n = strlen(s);
	char *out = malloc(3 * n + 1), *w = out;
	if (!out)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int len = text_utf8_len(p, n - (size_t)(p - (const unsigned char *)s));
		bool forbidden = xml && *p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r';
		if (len <= 0 || forbidden) {
			memcpy(w, "\xef\xbf\xbd", 3); /* U+FFFD */
			w += 3;
			p++;
		} else {
			memcpy(w, p, (size_t)len);
			w += len;
			p += len;
		}
	}
	*w = '\0';
	return out;
}
