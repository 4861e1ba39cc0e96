/* Optional CURVE encryption and authentication (issue 12, part 5;
 * docs/live.md "Encryption"). With --curve-key the ROUTER is a CURVE
 * server: every connection is encrypted, and a client must know the
 * server's public key. libzmq authenticates nothing by itself: it asks a
 * ZAP handler (RFC 27/ZAP) at inproc://zeromq.zap.01 in the same context,
 * and accepts everyone when none is bound. So the server binds one and
 * answers from its own loop (live_pump polls it): 200 for a client public
 * key in the --curve-allow list, 400 for any other. A refused client never
 * completes the handshake, so it cannot send a single protocol frame. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters/adapters_internal.h"
#include "adapters/curve_keys.h"
#include "core/error.h"
#include "core/output.h"
#include "core/staged.h"

/* Whether key is on the allow list already. A linear search: the list
 * is read once, at setup, and a few thousand keys take milliseconds. */
static bool live_curve_has_key(const struct live_server *s, const uint8_t key[32])
{
	for (uint32_t i = 0; i < s->n_allowed; i++)
		if (!memcmp(s->curve_allowed[i], key, 32))
			return true;
	return false;
}

/* One allowed key a line: bare Z85, or 'public = KEY' (so .pub files can
 * be concatenated); blank lines and # comments are skipped. A line is
 * never quoted back: a key pair's 'secret = KEY' line (a .key file given
 * for a .pub one) would go to the terminal and logs. A key listed twice
 * (the same .pub concatenated twice) is harmless, so it is kept once and
 * said once in the log, rather than refused: allowed_keys counts clients
 * that can get in, not lines. */
static int live_curve_allow(struct live_server *s, const char *path, struct nl_err *err)
{
	FILE *f;
	if (zp_key_open(path, "key list", &f, err))
		return nl_err_prefix(err, "--curve-allow");
	char line[ZP_KEY_LINE];
	unsigned lineno = 0, n_dup = 0, first_dup = 0;
	int rc = 0, n;
	while (rc == 0 && (n = zp_key_line(f, line, path, "--curve-allow: key list", lineno + 1, err)) != 0) {
		if (n < 0) {
			rc = n;
			break;
		}
		lineno++;
		char *p = line, *end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, "public", 6) && (end = strchr(p, '=')))
			for (p = end + 1; *p == ' ' || *p == '\t';)
				p++;
		end = p + strlen(p);
		while (end > p && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (!*p || (*p == '#' && !zp_curve_valid(p))) /* '#' is also a Z85 character */
			continue;
		if (!strncmp(p, "secret", 6) && p[6] && strchr(" \t=", p[6])) {
			rc = nl_errf(err, NL_ECONFIG, "--curve-allow: '%s' line %u: a secret key ('secret = ...'), expected "
				     "public keys only (the clients' .pub files); a secret key must stay with its owner",
				     path, lineno);
			break;
		}
		if (!zp_curve_valid(p)) {
			char why[128];
			zp_curve_why(p, why, sizeof why);
			rc = nl_errf(err, NL_ECONFIG, "--curve-allow: '%s' line %u: not a public key (%s), expected a "
				     "%d-character Z85 public key, bare or 'public = KEY'", path, lineno, why, ZP_Z85_KEY);
			break;
		}
		uint8_t key[32];
		zmq_z85_decode(key, p);
		if (live_curve_has_key(s, key)) {
			if (n_dup++ == 0)
				first_dup = lineno;
			continue;
		}
		uint8_t (*a)[32] = realloc(s->curve_allowed, (s->n_allowed + 1) * sizeof *a);
		if (!a) {
			rc = nl_errf(err, NL_ENOMEM, "live: out of memory");
			break;
		}
		s->curve_allowed = a;
		memcpy(a[s->n_allowed++], key, sizeof key);
	}
	fclose(f);
	memset(line, 0, sizeof line);
	if (rc == 0 && s->n_allowed == 0)
		rc = nl_errf(err, NL_ECONFIG, "--curve-allow: '%s': no key, expected one Z85 public key a line", path);
	if (rc == 0 && n_dup)
		live_log(s, "--curve-allow: '%s': %u duplicate key%s ignored (the first on line %u); %" PRIu32
			 " distinct key%s allowed", path, n_dup, n_dup == 1 ? "" : "s", first_dup, s->n_allowed,
			 s->n_allowed == 1 ? "" : "s");
	return rc;
}

int live_curve_check(const struct live_opts *o, struct nl_err *err)
{
	if (!o->curve_key != !o->curve_allow)
		return nl_errf(err, NL_ECONFIG, "%s given alone, expected both --curve-key and --curve-allow",
			       o->curve_key ? "--curve-key" : "--curve-allow");
	return 0;
}

int live_curve_setup(struct live_server *s, struct nl_err *err)
{
	const struct live_opts *o = s->o;
	if (!o->curve_key && !o->curve_allow)
		return 0;
	NL_CHECK(live_curve_check(o, err));
	if (!zmq_has("curve"))
		return nl_errf(err, NL_ECONFIG, "--curve-key: this libzmq has no CURVE support (zmq_has(\"curve\") is 0)");
	char pub[ZP_Z85_KEY + 1], sec[ZP_Z85_KEY + 1];
	NL_CHECK(zp_curve_read(o->curve_key, pub, sec, err));
	NL_CHECK(live_curve_allow(s, o->curve_allow, err));
	/* The handler must be bound before the first connection handshakes. */
	s->zap = zmq_socket(s->zctx, ZMQ_REP);
	if (!s->zap || zmq_bind(s->zap, "inproc://zeromq.zap.01") < 0)
		return nl_errf(err, NL_EIO, "live: ZAP handler: %s", zmq_strerror(errno));
	int one = 1, linger = 0;
	zmq_setsockopt(s->zap, ZMQ_LINGER, &linger, sizeof linger);
	if (zmq_setsockopt(s->sock, ZMQ_CURVE_SERVER, &one, sizeof one) < 0 ||
	    zmq_setsockopt(s->sock, ZMQ_CURVE_SECRETKEY, sec, ZP_Z85_KEY + 1) < 0)
		return nl_errf(err, NL_EIO, "--curve-key: '%s': %s", o->curve_key, zmq_strerror(errno));
	memset(sec, 0, sizeof sec);
	return 0;
}

/* Answer one ZAP request: version, request id, domain, address, identity,
 * mechanism, credentials (CURVE: the client's 32-byte public key). */
static void live_curve_one(struct live_server *s)
{
	zmq_msg_t f[7];
	int n = 0;
	bool more = true;
	while (more) {
		zmq_msg_t m;
		zmq_msg_init(&m);
		if (zmq_msg_recv(&m, s->zap, ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&m);
			break;
		}
		more = zmq_msg_more(&m);
		if (n < 7)
			f[n++] = m;
		else
			zmq_msg_close(&m);
	}
	if (n == 0)
		return;
	bool ok = false;
	char key[ZP_Z85_KEY + 1] = "?";
	if (n == 7 && zmq_msg_size(&f[5]) == 5 && !memcmp(zmq_msg_data(&f[5]), "CURVE", 5) &&
	    zmq_msg_size(&f[6]) == 32) {
		zmq_z85_encode(key, zmq_msg_data(&f[6]), 32);
		for (uint32_t i = 0; i < s->n_allowed && !ok; i++)
			ok = !memcmp(s->curve_allowed[i], zmq_msg_data(&f[6]), 32);
	}
	if (ok)
		s->curve_ok++;
	else {
		s->curve_refused++;
		live_log(s, "CURVE: client key %s is not in --curve-allow, connection refused", key);
	}
	/* Reply: version, request id, status code, status text, user id, metadata. */
	const char *code = ok ? "200" : "400", *text = ok ? "OK" : "key not allowed";
	zmq_send(s->zap, "1.0", 3, ZMQ_SNDMORE);
	if (n >= 2)
		zmq_send(s->zap, zmq_msg_data(&f[1]), zmq_msg_size(&f[1]), ZMQ_SNDMORE);
	else
		zmq_send(s->zap, "", 0, ZMQ_SNDMORE);
	zmq_send(s->zap, code, 3, ZMQ_SNDMORE);
	zmq_send(s->zap, text, strlen(text), ZMQ_SNDMORE);
	zmq_send(s->zap, ok ? key : "", ok ? ZP_Z85_KEY : 0, ZMQ_SNDMORE);
	zmq_send(s->zap, "", 0, 0);
	for (int i = 0; i < n; i++)
		zmq_msg_close(&f[i]);
}

void live_curve_serve(struct live_server *s)
{
	zmq_pollitem_t it = {.socket = s->zap, .events = ZMQ_POLLIN};
	for (int i = 0; i < 64 && s->zap && zmq_poll(&it, 1, 0) > 0 && (it.revents & ZMQ_POLLIN); i++)
		live_curve_one(s);
}

void live_curve_free(struct live_server *s)
{
	if (s->zap)
		zmq_close(s->zap);
	s->zap = NULL;
	free(s->curve_allowed);
	s->curve_allowed = NULL;
}

int live_curve_keygen(const char *path, struct nl_err *err)
{
	/* Two files, PATH and PATH.pub: no standard output ('-'), which the
	 * shared check below would take, and its empty-name wording. */
	if (!*path || !strcmp(path, "-"))
		return nl_errf(err, NL_ECONFIG, "--curve-keygen '%s': %s; expected a file to write (the key pair goes to "
			       "FILE and FILE.pub)", path, *path ? "not a file name" : "empty file name");
	NL_CHECK(nl_zmq_open(err));
	if (!zmq_has("curve"))
		return nl_errf(err, NL_ECONFIG, "--curve-keygen: this libzmq has no CURVE support");
	char pub[ZP_Z85_KEY + 1], sec[ZP_Z85_KEY + 1];
	if (zmq_curve_keypair(pub, sec) < 0)
		return nl_errf(err, NL_EIO, "--curve-keygen: zmq_curve_keypair: %s", zmq_strerror(errno));
	char text[256], pubpath[4096];
	int n = snprintf(text, sizeof text, "# netloom CURVE key pair (Z85); keep this file secret\npublic = %s\nsecret = %s\n",
			 pub, sec);
	if (snprintf(pubpath, sizeof pubpath, "%s.pub", path) >= (int)sizeof pubpath)
		return nl_errf(err, NL_ECONFIG, "--curve-keygen: '%.64s...': path too long", path);
	/* Not out_write_atomic: that makes results 0644, and this one is a
	 * secret. A new 0600 temporary file, renamed into place. */
	if (access(path, F_OK) == 0)
		return nl_errf(err, NL_EIO, "--curve-keygen: '%s' exists, expected a new file", path);
	/* A directory, or one that cannot be written, is said as for every
	 * output, before a key is made. */
	if (out_check_writable(path, err) < 0 || out_check_writable(pubpath, err) < 0)
		return nl_err_prefix(err, "--curve-keygen");
	/* Nor an existing .pub, which was replaced without a word: a pair's
	 * public half, perhaps already in a server's --curve-allow. */
	if (access(pubpath, F_OK) == 0)
		return nl_errf(err, NL_EIO, "--curve-keygen: '%s' exists, expected a new file (FILE.pub is written too)",
			       pubpath);
	/* mkstemp's file is 0600 and its name unique, so a second keygen on
	 * the same FILE, or the leftover of one killed, is no obstacle; it is
	 * registered as it is made (out_staged_mkstemp), so SIGINT/SIGTERM
	 * (main's out_signals_catch) removes it rather than leave a
	 * copy of the secret key beside FILE. */
	char tmp[4096 + 16];
	snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", path);
	int mk_errno = 0;
	int fd = out_staged_mkstemp(tmp, false, &mk_errno, err);
	if (fd < 0 && !mk_errno)
		return fd;
	if (fd < 0)
		return nl_errf(err, NL_EIO, "--curve-keygen: '%s': cannot create temporary file: %s", path,
			       strerror(mk_errno));
	bool bad = write(fd, text, (size_t)n) != n;
	bad |= fsync(fd) != 0;
	bad |= close(fd) != 0;
	if (bad || rename(tmp, path) < 0) {
		out_staged_remove(tmp);
		return nl_errf(err, NL_EIO, "--curve-keygen: '%s': write failed", path);
	}
	out_staged_del(tmp);
	n = snprintf(text, sizeof text, "# netloom CURVE public key (Z85)\npublic = %s\n", pub);
	int rc = out_write_atomic(pubpath, text, (size_t)n, err);
	if (rc < 0)
		unlink(path);
	memset(sec, 0, sizeof sec);
	memset(text, 0, sizeof text);
	return rc;
}
