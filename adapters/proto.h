/* The live-emulation wire protocol, version 1 (docs/zmq-protocol.md): one
 * fixed 48-byte little-endian header per message, optionally followed by
 * one payload frame. Encoding and decoding are pure functions over bytes,
 * shared by the server (libnetloom) and the client library
 * (libnetloom-client), so both sides agree by construction. Decoding never
 * trusts the input: every field is range-checked and a bad frame is a
 * one-line error naming the field, the value and what was expected.
 */
#ifndef NETLOOM_ADAPTERS_PROTO_H
#define NETLOOM_ADAPTERS_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nl_err;

#define ZP_MAGIC 0x4c4eu  /* "NL" little-endian */
#define ZP_VERSION 1u
#define ZP_HDR_BYTES 56u
#define ZP_ANY (-1)       /* RECV: any source / any tag */
#define ZP_WAITALL_MAX 4096u /* requests in one WAITALL (its payload: u32 LE each) */
/* The latest virtual time a rank may reach by declared compute: 2^62 ps
 * (about 53 days). A COMPUTE over it is malformed; the server also refuses
 * one that would take the rank's sum of declared compute past it. Times
 * are u64 ps, so the engine's additions after it (network delays, compute
 * of other ranks) stay far from wrapping. */
#define ZP_TIME_MAX_PS (UINT64_C(1) << 62)

/* Message types: client to server, then server to client. */
#define ZP_TYPE_MAP(X)                 \
	X(ZP_HELLO, 1, "HELLO")        \
	X(ZP_SEND, 2, "SEND")          \
	X(ZP_RECV, 3, "RECV")          \
	X(ZP_WAIT, 4, "WAIT")          \
	X(ZP_COMPUTE, 5, "COMPUTE")    \
	X(ZP_BARRIER, 6, "BARRIER")    \
	X(ZP_BYE, 7, "BYE")            \
	X(ZP_HEARTBEAT, 8, "HEARTBEAT") \
	X(ZP_WAITALL, 9, "WAITALL")    \
	X(ZP_WELCOME, 16, "WELCOME")   \
	X(ZP_DONE, 17, "DONE")         \
	X(ZP_DELIVER, 18, "DELIVER")   \
	X(ZP_ERROR, 19, "ERROR")

enum zp_type {
#define ZP_ENUM_(name, val, text) name = val,
	ZP_TYPE_MAP(ZP_ENUM_)
#undef ZP_ENUM_
};

/* SEND / RECV flags. */
#define ZP_F_NONBLOCKING 1u /* isend / irecv: DONE at once, completion by WAIT */
/* HELLO: no DONE for the ops a client does not wait for (non-blocking SEND
 * and RECV, COMPUTE): the DONE of its next blocking op covers them (DONEs
 * are in seq order), so a window of non-blocking calls costs the server no
 * reply frames and the client none to read. */
#define ZP_F_LEAN 2u
/* WELCOME to a LEAN client in lock-step mode: a blocking SEND gets no DONE
 * either, so the client returns from it at once. The engine still replays
 * it as a blocking send (same virtual times): the payload was copied when
 * it was sent, and lock-step time does not depend on when frames arrive.
 * Never in paced mode, where the wall time between calls is compute. */
#define ZP_F_SEND_NOWAIT 4u
/* HELLO: tell me my job's ranks. WELCOME answering it: peer = the job's
 * first world rank, tag = its number of ranks (the whole world without
 * --jobs), so a client's collectives stay within its job. */
#define ZP_F_JOBINFO 8u

/* The longest text an ERROR carries: the server's error lines are struct
 * nl_err messages (NL_ERR_MSG_MAX - 1 bytes; serve.c checks it), and a
 * longer one is cut there. Both clients keep the whole text. */
#define ZP_ERROR_TEXT_MAX 511

/* ERROR codes (the header's tag field); the payload frame is one line of text.
 * adapters/python/netloom_client.py ERROR_NAMES repeats the names: both
 * clients say an ERROR as "server: NAME: TEXT". */
#define ZP_ERR_MAP(X)                              \
	X(ZP_EMALFORMED, 1, "malformed frame")     \
	X(ZP_EVERSION, 2, "unsupported version")   \
	X(ZP_ERANK, 3, "unknown rank")             \
	X(ZP_ETAKEN, 4, "rank taken")              \
	X(ZP_ETOKEN, 5, "bad token")               \
	X(ZP_ETOOBIG, 6, "payload over the limit") \
	X(ZP_ENOHELLO, 7, "no HELLO yet")          \
	X(ZP_EPEER, 8, "bad peer or tag")          \
	X(ZP_EEVICTED, 9, "rank evicted")          \
	X(ZP_ESTATE, 10, "out of order")           \
	X(ZP_EDEADLOCK, 11, "session deadlocked") \
	X(ZP_EJOB, 12, "wrong job")                \
	X(ZP_EABORT, 13, "session stopped")

enum zp_errcode {
#define ZP_ENUM_(name, val, text) name = val,
	ZP_ERR_MAP(ZP_ENUM_)
#undef ZP_ENUM_
};

/* The decoded header. Which fields a type uses is in docs/zmq-protocol.md;
 * unused ones are zero on the wire (checked). */
struct zp_hdr {
	uint8_t type;     /* enum zp_type */
	uint8_t version;  /* ZP_VERSION */
	uint16_t flags;   /* ZP_F_* */
	uint32_t rank;    /* HELLO/WELCOME: the rank; DELIVER: source; others: sender's rank */
	uint32_t seq;     /* op sequence number within the rank's stream (requests, replies) */
	int32_t peer;     /* SEND: destination; RECV: source or ZP_ANY */
	int32_t tag;      /* SEND/RECV/DELIVER: tag (RECV: or ZP_ANY); ERROR: code */
	uint32_t aux;     /* WAIT: request (the seq of the isend/irecv); HELLO: job */
	uint64_t a, b, c; /* type-specific: times (ps), sizes, token */
};

/* Name of a type ("SEND"), NULL when unknown. */
const char *zp_type_name(unsigned type);
/* Text of an error code, "unknown error" when unknown. */
const char *zp_err_text(unsigned code);

/* Write h into out[ZP_HDR_BYTES], little-endian whatever the host. */
void zp_encode(const struct zp_hdr *h, uint8_t out[ZP_HDR_BYTES]);

/* Decode and validate one message's frames: hdr (hdr_len bytes) and
 * whether a payload frame follows (has_payload) of payload_len bytes.
 * Checks: size, magic, version, type, flags, that the payload frame is
 * present exactly for SEND, DELIVER and WAITALL (ERROR: optional), the
 * per-type field ranges and, last, that the payload fits max_payload (a
 * frame refused for its size passes with max_payload UINT64_MAX). 0;
 * NL_ERANGE when only a SEND's or RECV's peer or tag is out of range (the
 * server answers ERROR ZP_EPEER); else NL_EPROTO; *err names the field and
 * value. */
int zp_decode(const void *hdr, size_t hdr_len, int has_payload, size_t payload_len, uint64_t max_payload,
	      struct zp_hdr *h, struct nl_err *err);

/* Whether hdr (hdr_len bytes) is a header of the right size and magic but
 * another protocol version: zp_decode refuses it like any bad header, and
 * the server answers ERROR ZP_EVERSION rather than ZP_EMALFORMED, so a
 * client of another version is told that, not that its frame is broken. */
bool zp_is_other_version(const void *hdr, size_t hdr_len);

/* Whether hdr (hdr_len bytes) is a header of the right size, magic and
 * version whose type is a server-to-client one (WELCOME, DONE, DELIVER,
 * ERROR), whatever its other fields; then h holds its type and rank only.
 * The server refuses such a frame from a client for its type: its fields
 * are laid out for the client to check, and a client sending one is told
 * what it may send, not that a DONE's field 'aux' is set. */
bool zp_peek_server_type(const void *hdr, size_t hdr_len, struct zp_hdr *h);

#endif
