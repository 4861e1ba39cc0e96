/* Text that must stay well formed. A spec's graph:file= path or a trace's
 * strings can hold any byte; JSON (jansson refuses invalid UTF-8), SVG
 * (XML 1.0 forbids most control characters) and one-line headers cannot.
 */
#ifndef NETLOOM_CORE_TEXT_H
#define NETLOOM_CORE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the UTF-8 sequence at p[0..n): 1 to 4 when it is valid, 0 when
 * it is not (a stray continuation byte, an overlong form, a surrogate,
 * past U+10FFFF), -1 when valid so far but cut off at n (RFC 3629 §4). */
int text_utf8_len(const unsigned char *p, size_t n);

/* A malloc'd copy of s with every byte that does not start a valid UTF-8
 * sequence replaced by U+FFFD; with xml, also the control characters
 * XML 1.0 forbids (all below 0x20 but tab, newline and carriage return).
 * NULL when out of memory. */
char *text_utf8_clean(const char *s, bool xml);

#endif
