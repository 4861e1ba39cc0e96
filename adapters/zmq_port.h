/* libzmq for the server's files, opened when the live adapter starts
 * (nl_zmq_open) instead of linked into netloom.
 *
 * Why: linked, libzmq and what it needs (libsodium, OpenPGM, NORM,
 * GSSAPI/Kerberos, libstdc++, libbsd) were 23 of the netloom binary's 33
 * shared libraries, and loading them was most of every process's start
 * (on a 2-core VM, an empty C program linked with them started in 20-23
 * ms against 6 ms without), paid by `topo info`, `run` and every
 * other command although only `serve` speaks ZeroMQ. docs/live.md says
 * how the library is found.
 *
 * The server's files include this header instead of <zmq.h> and call
 * libzmq by its own names: each name used is an object-like macro for
 * the pointer nl_zmq_open filled (as OpenGL loaders do), so the calls
 * read as libzmq's documentation writes them. libnetloom-client, which
 * user programs link with libzmq anyway, is built with NL_ZMQ_LINKED:
 * there the names are libzmq's own. A name not listed here fails to link,
 * which is what keeps a new call from linking libzmq back in. */
#ifndef NETLOOM_ADAPTERS_ZMQ_PORT_H
#define NETLOOM_ADAPTERS_ZMQ_PORT_H

#include <stdint.h>
#include <zmq.h>

struct nl_err;

#ifdef NL_ZMQ_LINKED

static inline int nl_zmq_open(struct nl_err *err)
{
	(void)err;
	return 0;
}

#else

/* The functions the server uses, by their libzmq names less the prefix. */
#define NL_ZMQ_FUNCS(X)                                                                                 \
	X(void *, ctx_new, (void))                                                                      \
	X(int, ctx_term, (void *))                                                                      \
	X(void *, socket, (void *, int))                                                                \
	X(int, close, (void *))                                                                         \
	X(int, bind, (void *, const char *))                                                            \
	X(int, setsockopt, (void *, int, const void *, size_t))                                         \
	X(int, getsockopt, (void *, int, void *, size_t *))                                             \
	X(int, send, (void *, const void *, size_t, int))                                               \
	X(int, poll, (zmq_pollitem_t *, int, long))                                                     \
	X(int, msg_init, (zmq_msg_t *))                                                                 \
	X(int, msg_close, (zmq_msg_t *))                                                                \
	X(int, msg_recv, (zmq_msg_t *, void *, int))                                                    \
	X(int, msg_send, (zmq_msg_t *, void *, int))                                                    \
	X(int, msg_move, (zmq_msg_t *, zmq_msg_t *))                                                    \
	X(int, msg_more, (const zmq_msg_t *))                                                           \
	X(void *, msg_data, (zmq_msg_t *))                                                              \
	X(size_t, msg_size, (const zmq_msg_t *))                                                        \
	X(const char *, strerror, (int))                                                                \
	X(int, has, (const char *))                                                                     \
	X(int, curve_keypair, (char *, char *))                                                         \
	X(int, curve_public, (char *, const char *))                                                    \
	X(char *, z85_encode, (char *, const uint8_t *, size_t))                                        \
	X(uint8_t *, z85_decode, (uint8_t *, const char *))

struct nl_zmq_api {
#define NL_ZMQ_FIELD(ret, name, args) ret(*name) args;
	NL_ZMQ_FUNCS(NL_ZMQ_FIELD)
#undef NL_ZMQ_FIELD
};

/* Filled once by nl_zmq_open, read-only after: one libzmq per process. */
extern struct nl_zmq_api nl_zmq;

/* Open libzmq (NETLOOM_LIBZMQ if set, a path or a library name, else
 * libzmq.so.5, the soname of every libzmq since 4.1) and resolve the
 * functions above; 0 once done (later calls return at once), else an
 * NL_EIO error naming the library and the loader's reason. Not
 * thread-safe: call it before the server starts threads. */
int nl_zmq_open(struct nl_err *err);

/* zmq_port.c itself sees libzmq's declarations, to check the list's
 * types against them. */
#ifndef NL_ZMQ_PORT_IMPL
#define zmq_ctx_new nl_zmq.ctx_new
#define zmq_ctx_term nl_zmq.ctx_term
#define zmq_socket nl_zmq.socket
#define zmq_close nl_zmq.close
#define zmq_bind nl_zmq.bind
#define zmq_setsockopt nl_zmq.setsockopt
#define zmq_getsockopt nl_zmq.getsockopt
#define zmq_send nl_zmq.send
#define zmq_poll nl_zmq.poll
#define zmq_msg_init nl_zmq.msg_init
#define zmq_msg_close nl_zmq.msg_close
#define zmq_msg_recv nl_zmq.msg_recv
#define zmq_msg_send nl_zmq.msg_send
#define zmq_msg_move nl_zmq.msg_move
#define zmq_msg_more nl_zmq.msg_more
#define zmq_msg_data nl_zmq.msg_data
#define zmq_msg_size nl_zmq.msg_size
#define zmq_strerror nl_zmq.strerror
#define zmq_has nl_zmq.has
#define zmq_curve_keypair nl_zmq.curve_keypair
#define zmq_curve_public nl_zmq.curve_public
#define zmq_z85_encode nl_zmq.z85_encode
#define zmq_z85_decode nl_zmq.z85_decode
#endif

#endif /* NL_ZMQ_LINKED */

#endif
