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

struct nl_err;

#define ZP_Z85_KEY 40 /* characters of a Z85 key, without the NUL */

/* Read path's public key into pub (and, when sec is not NULL, its secret
 * key, which must then be there and be the public key's pair). With sec
 * NULL, path is the server's public key file as a client reads it, and a
 * secret key there is refused. Keys come out as NUL-terminated Z85. 0, or
 * NL_EIO / NL_ECONFIG naming the file, line and what was expected; a
 * message never quotes a secret key. */
int zp_curve_read(const char *path, char pub[ZP_Z85_KEY + 1], char sec[ZP_Z85_KEY + 1], struct nl_err *err);

/* Whether s is a valid Z85 key (40 characters that decode to 32 bytes). */
int zp_curve_valid(const char *s);

/* Why s is not a valid Z85 key, into buf (size bytes), quoting none of
 * it, since s may be a secret key: its length, the position of a
 * character outside Z85, or of a 5-character group over 32 bits. */
void zp_curve_why(const char *s, char *buf, size_t size);

#endif
