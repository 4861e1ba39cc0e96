/* Protocol v1 codec (proto.h). The header, little-endian, in bytes:
 *    0 magic u16 | 2 version u8 | 3 type u8 | 4 flags u16 | 6 zero u16
 *    8 rank u32  | 12 seq u32   | 16 peer i32 | 20 tag i32
 *   24 aux u32   | 28 zero u32  | 32 a u64 | 40 b u64 | 48 c u64
 * Reserved words must be zero, so a later version can use them and a v1
 * peer still rejects what it cannot read. */
#include "adapters/proto.h"

#include <inttypes.h>
#include <string.h>

#include "core/error.h"

const char *zp_type_name(unsigned type)
{
	switch (type) {
#define ZP_CASE_(name, val, text) \
	case val:                 \
		return text;
		ZP_TYPE_MAP(ZP_CASE_)
#undef ZP_CASE_
	default:
		return NULL;
	}
}

const char *zp_err_text(unsigned code)
{
	switch (code) {
#define ZP_CASE_(name, val, text) \
	case val:                 \
		return text;
		ZP_ERR_MAP(ZP_CASE_)
#undef ZP_CASE_
	default:
		return "unknown error";
	}
}

static void zp_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void zp_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void zp_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t zp_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t zp_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t zp_get64(const uint8_t *p)
{
	return (uint64_t)zp_get32(p) | (uint64_t)zp_get32(p + 4) << 32;
}

void zp_encode(const struct zp_hdr *h, uint8_t out[ZP_HDR_BYTES])
{
	memset(out, 0, ZP_HDR_BYTES);
	zp_put16(out, ZP_MAGIC);
	out[2] = h->version;
	out[3] = h->type;
	zp_put16(out + 4, h->flags);
	zp_put32(out + 8, h->rank);
	zp_put32(out + 12, h->seq);
	zp_put32(out + 16, (uint32_t)h->peer);
	zp_put32(out + 20, (uint32_t)h->tag);
	zp_put32(out + 24, h->aux);
	zp_put64(out + 32, h->a);
	zp_put64(out + 40, h->b);
	zp_put64(out + 48, h->c);
}

/* Fields each type may set (the others must be zero): bits below. */
enum { F_FLAGS = 1, F_SEQ = 2, F_PEER = 4, F_TAG = 8, F_AUX = 16, F_A = 32, F_B = 64, F_C = 128 };

static unsigned zp_fields(unsigned type)
{
	switch (type) {
	case ZP_HELLO: return F_FLAGS | F_AUX | F_A;                /* LEAN, job, token */
	case ZP_SEND: return F_FLAGS | F_SEQ | F_PEER | F_TAG;
	case ZP_RECV: return F_FLAGS | F_SEQ | F_PEER | F_TAG | F_A; /* a: max bytes */
	case ZP_WAIT: return F_SEQ | F_AUX;
	case ZP_WAITALL: return F_SEQ;
	case ZP_COMPUTE: return F_SEQ | F_A;                         /* a: duration ps */
	case ZP_BARRIER: return F_SEQ;
	case ZP_BYE: return F_SEQ;
	case ZP_HEARTBEAT: return 0;
	case ZP_WELCOME: return F_FLAGS | F_PEER | F_TAG | F_AUX | F_A | F_B | F_C; /* flags, job's first rank and
									    * size, ranks, max payload, heartbeat ms, */
	case ZP_DONE: return F_SEQ | F_A;                            /* a: virtual time ps */
	case ZP_DELIVER: return F_SEQ | F_PEER | F_TAG | F_A | F_B | F_C;
	case ZP_ERROR: return F_TAG;                                  /* tag: error code */
	default: return 0;
	}
}

int zp_decode(const void *hdr, size_t hdr_len, int has_payload, size_t payload_len, uint64_t max_payload,
	      struct zp_hdr *h, struct nl_err *err)
{
	const uint8_t *p = hdr;
	memset(h, 0, sizeof *h);
	if (hdr_len != ZP_HDR_BYTES)
		return nl_errf(err, NL_EPROTO, "frame header: length %zu, expected %u bytes", hdr_len, ZP_HDR_BYTES);
	if (zp_get16(p) != ZP_MAGIC)
		return nl_errf(err, NL_EPROTO, "frame header: magic 0x%04x, expected 0x%04x", zp_get16(p), ZP_MAGIC);
	h->version = p[2];
	h->type = p[3];
	if (h->version != ZP_VERSION)
		return nl_errf(err, NL_EPROTO, "frame header: version %u, expected %u", h->version, ZP_VERSION);
	const char *name = zp_type_name(h->type);
	if (!name)
		return nl_errf(err, NL_EPROTO, "frame header: type %u, expected a known message type", h->type);
	if (zp_get16(p + 6))
		return nl_errf(err, NL_EPROTO, "%s: reserved bytes 6..7 are 0x%04x, expected 0", name, zp_get16(p + 6));
	if (zp_get32(p + 28))
		return nl_errf(err, NL_EPROTO, "%s: reserved bytes 28..31 are 0x%08" PRIx32 ", expected 0", name,
			       zp_get32(p + 28));
	h->flags = zp_get16(p + 4);
	h->rank = zp_get32(p + 8);
	h->seq = zp_get32(p + 12);
	h->peer = (int32_t)zp_get32(p + 16);
	h->tag = (int32_t)zp_get32(p + 20);
	h->aux = zp_get32(p + 24);
	h->a = zp_get64(p + 32);
	h->b = zp_get64(p + 40);
	h->c = zp_get64(p + 48);

	unsigned f = zp_fields(h->type);
	static const struct { unsigned bit; const char *field; } unused[] = {
		{F_FLAGS, "flags"}, {F_SEQ, "seq"}, {F_PEER, "peer"}, {F_TAG, "tag"},
		{F_AUX, "aux"},     {F_A, "a"},     {F_B, "b"},       {F_C, "c"},
	};
	const uint64_t val[] = {h->flags, h->seq, (uint32_t)h->peer, (uint32_t)h->tag, h->aux, h->a, h->b, h->c};
	for (size_t i = 0; i < sizeof unused / sizeof unused[0]; i++) {
		if ((f & unused[i].bit) || !val[i])
			continue;
		/* peer and tag are i32 on the wire: -1 (ANY) sent in a WAIT's
		 * tag is said as -1, not 4294967295. */
		if (unused[i].bit == F_PEER || unused[i].bit == F_TAG)
			return nl_errf(err, NL_EPROTO, "%s: field '%s' is %" PRId32 ", expected 0 (unused by this type)",
				       name, unused[i].field, (int32_t)(uint32_t)val[i]);
		return nl_errf(err, NL_EPROTO, "%s: field '%s' is %" PRIu64 ", expected 0 (unused by this type)", name,
			       unused[i].field, val[i]);
	}
	unsigned known = h->type == ZP_HELLO	  ? ZP_F_LEAN | ZP_F_JOBINFO
			 : h->type == ZP_WELCOME ? ZP_F_SEND_NOWAIT | ZP_F_JOBINFO
						 : ZP_F_NONBLOCKING;
	if (h->flags & ~known)
		return nl_errf(err, NL_EPROTO, "%s: flags 0x%x, expected bits of 0x%x only", name, h->flags, known);

	int wants_payload = h->type == ZP_SEND || h->type == ZP_DELIVER || h->type == ZP_ERROR || h->type == ZP_WAITALL;
	if (has_payload && !wants_payload)
		return nl_errf(err, NL_EPROTO, "%s: a payload frame follows, expected none", name);
	if (h->type == ZP_WAITALL && (!has_payload || !payload_len || payload_len % 4 || payload_len > 4 * ZP_WAITALL_MAX))
		return nl_errf(err, NL_EPROTO, "WAITALL: request list of %zu bytes, expected 1..%u requests of 4 bytes",
			       has_payload ? payload_len : 0, ZP_WAITALL_MAX);
	if (!has_payload && (h->type == ZP_SEND || h->type == ZP_DELIVER))
		return nl_errf(err, NL_EPROTO, "%s: no payload frame, expected one (possibly empty)", name);
	switch (h->type) {
	case ZP_SEND:
		if (h->peer < 0 || h->tag < 0)
			return nl_errf(err, NL_ERANGE, "SEND: peer %" PRId32 " tag %" PRId32 ", expected both >= 0",
				       h->peer, h->tag);
		break;
	case ZP_RECV:
		if (h->peer < ZP_ANY || h->tag < ZP_ANY)
			return nl_errf(err, NL_ERANGE, "RECV: peer %" PRId32 " tag %" PRId32 ", expected >= 0 or -1 (any)",
				       h->peer, h->tag);
		break;
	case ZP_DELIVER:
		if (h->peer < 0 || h->tag < 0)
			return nl_errf(err, NL_EPROTO, "DELIVER: source %" PRId32 " tag %" PRId32 ", expected >= 0",
				       h->peer, h->tag);
		if (h->b < h->a || h->c < h->b)
			return nl_errf(err, NL_EPROTO,
				       "DELIVER: times sent %" PRIu64 " arrived %" PRIu64 " done %" PRIu64
				       " ps, expected non-decreasing",
				       h->a, h->b, h->c);
		break;
	case ZP_COMPUTE:
		if (h->a > ZP_TIME_MAX_PS)
			return nl_errf(err, NL_EPROTO,
				       "COMPUTE: field 'a' (duration) is %" PRIu64 " ps, expected at most 2^62 = %" PRIu64
				       " ps",
				       h->a, ZP_TIME_MAX_PS);
		break;
	case ZP_WELCOME:
		/* 0 ranks: a client took it for no WELCOME yet and waited. */
		if (h->aux == 0)
			return nl_errf(err, NL_EPROTO, "WELCOME: field 'aux' (ranks) is 0, expected 1 or more");
		if (!(h->flags & ZP_F_JOBINFO) && (h->peer || h->tag))
			return nl_errf(err, NL_EPROTO, "WELCOME: job ranks %" PRId32 "+%" PRId32 " without flag 0x%x, expected 0",
				       h->peer, h->tag, ZP_F_JOBINFO);
		if ((h->flags & ZP_F_JOBINFO) && (h->peer < 0 || h->tag < 1 || (uint64_t)h->peer + (uint64_t)h->tag > h->aux))
			return nl_errf(err, NL_EPROTO,
				       "WELCOME: job ranks %" PRId32 "+%" PRId32 ", expected a range within 0..%" PRIu32, h->peer,
				       h->tag, h->aux);
		break;
	case ZP_ERROR:
		if (h->tag <= 0)
			return nl_errf(err, NL_EPROTO, "ERROR: code %" PRId32 ", expected > 0", h->tag);
		break;
	default:
		break;
	}
	/* Last, so a frame refused for its size has nothing else wrong:
	 * the server answers it ERROR ZP_ETOOBIG, any other fault ZP_EMALFORMED. */
	if (has_payload && h->type != ZP_WAITALL && payload_len > max_payload)
		return nl_errf(err, NL_EPROTO, "%s: payload of %zu byte%s, expected at most %" PRIu64, name, payload_len,
			       payload_len == 1 ? "" : "s", max_payload);
	return 0;
}

bool zp_is_other_version(const void *hdr, size_t hdr_len)
{
	const uint8_t *p = hdr;
	return hdr_len == ZP_HDR_BYTES && zp_get16(p) == ZP_MAGIC && p[2] != ZP_VERSION;
}

bool zp_peek_server_type(const void *hdr, size_t hdr_len, struct zp_hdr *h)
{
	const uint8_t *p = hdr;
	if (hdr_len != ZP_HDR_BYTES || zp_get16(p) != ZP_MAGIC || p[2] != ZP_VERSION || p[3] < ZP_WELCOME ||
	    !zp_type_name(p[3]))
		return false;
	memset(h, 0, sizeof *h);
	h->version = p[2];
	h->type = p[3];
	h->rank = zp_get32(p + 8);
	return true;
}
