/* Text that must stay well formed. A spec's graph:file= path or a trace's
 * strings can hold any byte; JSON (jansson refuses invalid UTF-8), SVG
 * (XML 1.0 forbids most control characters) and one-line headers cannot.
 */
#ifndef NETLOOM_CORE_TEXT_H
#define NETLOOM_CORE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* Length of the UTF-8 sequence at p[0..n): 1 to 4 when it is valid, 0 when
 * it is not (a stray continuation byte, an overlong form, a surrogate,
 * past U+10FFFF), -1 when valid so far but cut off at n (RFC 3629 §4).
 * Inline: core/error.c, which the client and recorder libraries build
 * alone, escapes invalid UTF-8 with it. */
static inline int text_utf8_len(const unsigned char *p, size_t n)
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

/* The bytes of a UTF-8 byte order mark at the start of a file's first
 * line of n bytes: 3, else 0. Windows editors begin files with it; it is
 * not text (libinih drops it from INI files), and read as text it hid in
 * the first word, invisible in the error that quoted it. */
static inline size_t text_bom_len(const char *line, size_t n)
{
	return n >= 3 && !memcmp(line, "\xef\xbb\xbf", 3) ? 3 : 0;
}

/* getline(3), but a line also ends after a NUL byte: reads the next line
 * of f into *line (grown as getline grows it, *cap its size) up to and
 * including its '\n' or its first NUL, whichever comes first, and
 * returns its length (the NUL counted), -1 at the end of the file, on a
 * read error (ferror) or when out of memory (errno ENOMEM). Every text
 * reader refuses a NUL byte by its line, so a stream of NULs without a
 * '\n' (/dev/zero) ends at its first byte, where getline would grow the
 * line until memory ran out. */
ssize_t text_getline(char **line, size_t *cap, FILE *f);

/* A malloc'd copy of s with every byte that does not start a valid UTF-8
 * sequence replaced by U+FFFD; with xml, also the control characters
 * XML 1.0 forbids (all below 0x20 but tab, newline and carriage return).
 * NULL when out of memory. */
char *text_utf8_clean(const char *s, bool xml);

/* Columns s takes on a terminal, for tables padded by what they show
 * rather than by bytes (printf's "%-16s" counts the 2 bytes of 'é' and
 * the 9 of 'ジョブ' and so shifts the next columns): a code point is 1,
 * an East Asian wide or fullwidth one 2 and a combining mark or zero-width
 * one 0, from the main blocks of Unicode's EastAsianWidth (W, F) and the
 * combining blocks as Markus Kuhn's wcwidth has them, not the full
 * tables; a byte that is not UTF-8 is 1 (shown as U+FFFD). Not wcwidth(3),
 * which depends on the locale (-1 for every non-ASCII character in "C"). */
size_t text_width(const char *s);

/* s left-aligned in a column w terminal columns wide (text_width): what
 * printf's "%-*s" does for ASCII. */
void text_put_padded(FILE *f, const char *s, size_t w);

#endif
