/* Text that must stay well formed (text.h). */
#include "core/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

ssize_t text_getline(char **line, size_t *cap, FILE *f)
{
	size_t n = 0;
	int c = 0;

	flockfile(f);
	while ((c = getc_unlocked(f)) != EOF) {
		if (n + 2 > *cap) { /* the byte and the terminating NUL */
			size_t nc = *cap ? 2 * *cap : 128;
			char *b = realloc(*line, nc);
			if (!b) {
				funlockfile(f);
				errno = ENOMEM;
				return -1;
			}
			*line = b;
			*cap = nc;
		}
		(*line)[n++] = (char)c;
		if (c == '\n' || c == '\0')
			break;
	}
	funlockfile(f);
	if (n == 0)
		return -1;
	(*line)[n] = '\0';
	return (ssize_t)n;
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

/* Code point of the valid sequence of len bytes at p. */
static unsigned text_code_point(const unsigned char *p, int len)
{
	static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
	unsigned c = p[0] & lead_mask[len];
	for (int i = 1; i < len; i++)
		c = (c << 6) | (p[i] & 0x3f);
	return c;
}

/* Columns of code point c (text_width). */
static int text_code_width(unsigned c)
{
	static const unsigned zero[][2] = {
		{0x0300, 0x036f}, {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff}, {0x200b, 0x200f},
		{0x20d0, 0x20ff}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f},
	};
	static const unsigned wide[][2] = {
		{0x1100, 0x115f},   {0x2329, 0x232a},   {0x2e80, 0x303e},   {0x3040, 0xa4cf},
		{0xac00, 0xd7a3},   {0xf900, 0xfaff},   {0xfe10, 0xfe19},   {0xfe30, 0xfe6f},
		{0xff00, 0xff60},   {0xffe0, 0xffe6},   {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff},
		{0x20000, 0x2fffd}, {0x30000, 0x3fffd},
	};
	for (size_t i = 0; i < sizeof zero / sizeof *zero; i++)
		if (c >= zero[i][0] && c <= zero[i][1])
			return 0;
	for (size_t i = 0; i < sizeof wide / sizeof *wide; i++)
		if (c >= wide[i][0] && c <= wide[i][1])
			return 2;
	return 1;
}

size_t text_width(const char *s)
{
	size_t n = strlen(s), w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int len = text_utf8_len(p, n - (size_t)(p - (const unsigned char *)s));
		if (len <= 0) {
			w++;
			p++;
		} else {
			w += (size_t)text_code_width(text_code_point(p, len));
			p += len;
		}
	}
	return w;
}

void text_put_padded(FILE *f, const char *s, size_t w)
{
	size_t n = text_width(s);
	fprintf(f, "%s%*s", s, n < w ? (int)(w - n) : 0, "");
}
