/* Text that must stay well formed (text.h). */
#include "core/text.h"

#include <stdlib.h>
#include <string.h>

int text_utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	int len;
	unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80; /* overlong */
		hi = c == 0xed ? 0x9f : 0xbf; /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		lo = c == 0xf0 ? 0x90 : 0x80; /* overlong */
		hi = c == 0xf4 ? 0x8f : 0xbf; /* past U+10FFFF */
	} else {
		return 0;
	}
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if (p[i] < (i == 1 ? lo : 0x80) || p[i] > (i == 1 ? hi : 0xbf))
			return 0;
	}
	return len;
}

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
