/* CURVE key files (curve_keys.h). */
#include "adapters/curve_keys.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "adapters/zmq_port.h"

#include "core/error.h"

int zp_curve_valid(const char *s)
{
	uint8_t raw[32];
	return strlen(s) == ZP_Z85_KEY && zmq_z85_decode(raw, s) != NULL;
}

/* ZeroMQ's Z85 alphabet (RFC 32/Z85), in digit order. */
static const char curve_z85[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

void zp_curve_why(const char *s, char *buf, size_t size)
{
	size_t n = strlen(s);
	if (n != ZP_Z85_KEY) {
		snprintf(buf, size, "%zu characters, not %d", n, ZP_Z85_KEY);
		return;
	}
	/* Z85 decodes 5 characters into a 32-bit word; libzmq refuses a
	 * character outside the alphabet and a group over 2^32 - 1. */
	for (size_t g = 0; g < n; g += 5) {
		uint64_t v = 0;
		for (size_t i = g; i < g + 5; i++) {
			const char *d = s[i] ? strchr(curve_z85, s[i]) : NULL;
			if (!d) {
				snprintf(buf, size, "character %zu is outside Z85's alphabet", i + 1);
				return;
			}
			v = v * 85 + (uint64_t)(d - curve_z85);
		}
		if (v > UINT32_MAX) {
			snprintf(buf, size, "characters %zu..%zu decode past 32 bits", g + 1, g + 5);
			return;
		}
	}
	snprintf(buf, size, "not a Z85 key");
}

int zp_key_open(const char *path, const char *what, FILE **f, struct nl_err *err)
{
	*f = NULL;
	NL_CHECK(nl_input_named(path, what, NL_EIO, err));
	/* A FIFO is refused at once, not opened when a writer comes. */
	struct stat st;
	int fd = nl_open_regular_fd(path, &st);
	if (fd < 0 && errno)
		return nl_errf(err, NL_EIO, "%s: cannot open %s: %s", path, what, strerror(errno));
	if (fd < 0)
		return nl_errf(err, NL_EIO, "%s: is %s, not a %s; expected a regular file", path, nl_file_kind(st.st_mode),
			       what);
	if (!(*f = fdopen(fd, "r"))) {
		close(fd);
		return nl_errf(err, NL_EIO, "%s: cannot open %s: %s", path, what, strerror(errno));
	}
	return 0;
}

int zp_key_line(FILE *f, char line[ZP_KEY_LINE], const char *path, const char *what, unsigned lineno,
		struct nl_err *err)
{
	int n = 0, c;
	while (n < ZP_KEY_LINE - 1 && (c = getc(f)) != EOF) {
		if (c == '\0')
			return nl_errf(err, NL_ECONFIG, "%s '%s' line %u: unexpected NUL byte; expected a text file", what, path,
				       lineno);
		line[n++] = (char)c;
		if (c == '\n')
			break;
	}
	line[n] = '\0';
	if (n == ZP_KEY_LINE - 1 && line[n - 1] != '\n' && (c = getc(f)) != EOF && c != '\n')
		return nl_errf(err, NL_ECONFIG, "%s '%s' line %u: longer than %d bytes; expected one key (40 characters) "
			       "a line", what, path, lineno, ZP_KEY_LINE - 1);
	return n;
}

/* "  name = VALUE  " -> VALUE when the line names `name`, else NULL. */
static char *curve_field(char *line, const char *name)
{
	while (*line == ' ' || *line == '\t')
		line++;
	size_t n = strlen(name);
	if (strncmp(line, name, n))
		return NULL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line++ != '=')
		return NULL;
	while (*line == ' ' || *line == '\t')
		line++;
	char *end = line + strlen(line);
	while (end > line && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return line;
}

int zp_curve_read(const char *path, char pub[ZP_Z85_KEY + 1], char sec[ZP_Z85_KEY + 1], struct nl_err *err)
{
	FILE *f;
	NL_CHECK(nl_zmq_open(err)); /* the keys are checked with libzmq's Z85 */
	NL_CHECK(zp_key_open(path, "CURVE key file", &f, err));
	char line[ZP_KEY_LINE];
	unsigned lineno = 0;
	int have_pub = 0, have_sec = 0, rc = 0, n;
	unsigned pub_line = 0, sec_line = 0;
	while (rc == 0 && (n = zp_key_line(f, line, path, "CURVE key file", lineno + 1, err)) != 0) {
		if (n < 0) {
			rc = n;
			break;
		}
		lineno++;
		char *v;
		int is_sec = 0;
		if (!(v = curve_field(line, "public")) && !(is_sec = 1, v = curve_field(line, "secret")))
			continue; /* comments and anything else */
		if (is_sec && !sec) {
			/* Only a client reads a file for its public key alone:
			 * the server's. Its key pair (server.key given for
			 * server.key.pub) was read for its public line without
			 * a word, leaving the server's secret with every client. */
			size_t n = strlen(path);
			int is_pub = n >= 4 && !strcmp(path + n - 4, ".pub");
			rc = nl_errf(err, NL_ECONFIG, "CURVE server key file '%s' holds a secret key (line %u); expected "
				     "the server's public key file (%s%s): a client never needs the server's secret",
				     path, lineno, is_pub ? "the .pub --curve-keygen wrote" : path, is_pub ? "" : ".pub");
		} else if (!zp_curve_valid(v)) {
			/* A secret key's text is never quoted, not even the
			 * part of a malformed one: the message goes to logs. */
			char why[128];
			zp_curve_why(v, why, sizeof why);
			if (is_sec)
				rc = nl_errf(err, NL_ECONFIG, "CURVE key file '%s' line %u: malformed secret key (%s), "
					     "expected %d Z85 characters", path, lineno, why, ZP_Z85_KEY);
			else
				rc = nl_errf(err, NL_ECONFIG, "CURVE key file '%s' line %u: public key '%.48s' (%s), "
					     "expected %d Z85 characters", path, lineno, v, why, ZP_Z85_KEY);
		} else if (is_sec) {
			if (sec)
				memcpy(sec, v, ZP_Z85_KEY + 1);
			have_sec = 1;
			sec_line = lineno;
		} else {
			memcpy(pub, v, ZP_Z85_KEY + 1);
			have_pub = 1;
			pub_line = lineno;
		}
	}
	fclose(f);
	memset(line, 0, sizeof line);
	if (rc == 0 && (!have_pub || (sec && !have_sec)))
		rc = nl_errf(err, NL_ECONFIG, "CURVE key file '%s': no %s line, expected 'public = KEY'%s", path,
			     have_pub ? "secret" : "public", sec ? " and 'secret = KEY'" : "");
	/* CURVE proves possession of the secret key that goes with the
	 * public one: a file whose two keys are not a pair would only fail
	 * the handshake later, silently ("no WELCOME"). Where libzmq has no
	 * CURVE (zmq_curve_public fails), the caller's setsockopt says so. */
	char derived[ZP_Z85_KEY + 1];
	if (rc == 0 && sec && zmq_curve_public(derived, sec) == 0 && strcmp(derived, pub))
		rc = nl_errf(err, NL_ECONFIG, "CURVE key file '%s': the public key (line %u) is not the secret key's "
			     "(line %u), expected the pair --curve-keygen wrote", path, pub_line, sec_line);
	if (rc < 0 && sec)
		memset(sec, 0, ZP_Z85_KEY + 1);
	return rc;
}
