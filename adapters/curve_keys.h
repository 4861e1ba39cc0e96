/* CURVE key files for live sessions (docs/live.md "Encryption"), shared by
 * the server and libnetloom-client. A key file is text, one key a line:
 *
 *     # netloom CURVE key (Z85)
 *     public = <40 Z85 characters>
 *     secret = <40 Z85 characters>      (absent from a .pub file)
 *
 * Z85 is ZeroMQ's text form of a 32-byte key (zmq_z85_encode). */
#ifndef NETLOOM_ADAPTERS_CURVE_KEYS_H
#define NETLOOM_ADAPTERS_CURVE_KEYS_H

#include <stddef.h>
#include <stdio.h>

struct nl_err;

#define ZP_Z85_KEY 40 /* characters of a Z85 key, without the NUL */

/* Read path's public key into pub (and, when sec is not NULL, its secret
 * key, which must then be there and be the public key's pair). With sec
 * NULL, path is the server's public key file as a client reads it, and a
 * secret key there is refused. Keys come out as NUL-terminated Z85. 0, or
 * NL_EIO / NL_ECONFIG naming the file, line and what was expected; a
 * message never quotes a secret key. */
int zp_curve_read(const char *path, char pub[ZP_Z85_KEY + 1], char sec[ZP_Z85_KEY + 1], struct nl_err *err);

/* Open path as a key file described by what ("CURVE key file", "key
 * list"): a regular file only. A FIFO blocked open(2) until a writer came
 * and /dev/zero never ended; a directory, a device, a FIFO or a socket is
 * refused ("PATH: is a FIFO, not a WHAT; expected a regular file"), as
 * nl_open_input refuses '' and '-'. 0 with *f open, or NL_EIO. */
int zp_key_open(const char *path, const char *what, FILE **f, struct nl_err *err);

#define ZP_KEY_LINE 256 /* bytes of a key file's line, its '\n' and NUL included */

/* Read the next line of f (path, what, its number lineno) into line
 * (ZP_KEY_LINE bytes): its length (the '\n' kept), 0 at the end of the
 * file, or NL_ECONFIG for a NUL byte or a line longer than ZP_KEY_LINE - 1
 * bytes ("WHAT 'PATH' line N: ...; expected ..."), read no further than
 * that line's first ZP_KEY_LINE bytes, so /dev/zero or a huge one-line
 * file ends at once. The line is never quoted: it may hold a secret key. */
int zp_key_line(FILE *f, char line[ZP_KEY_LINE], const char *path, const char *what, unsigned lineno,
		struct nl_err *err);

/* Whether s is a valid Z85 key (40 characters that decode to 32 bytes). */
int zp_curve_valid(const char *s);

/* Why s is not a valid Z85 key, into buf (size bytes), quoting none of
 * it, since s may be a secret key: its length, the position of a
 * character outside Z85, or of a 5-character group over 32 bits. */
void zp_curve_why(const char *s, char *buf, size_t size);

#endif
