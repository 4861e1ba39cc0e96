/* XXH64, streaming, written from Yann Collet's published specification
 * ("xxHash fast digest algorithm", XXH64 section): four 64-bit lanes over
 * 32-byte stripes, then the tail and the avalanche. The archive hashes its
 * header, metadata block and every rank's decoded stream with it. */
#include "traces/traces_internal.h"

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t xxh_rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t xxh_round(uint64_t acc, uint64_t lane)
{
	acc += lane * P2;
	acc = xxh_rotl(acc, 31);
	return acc * P1;
}

static inline uint64_t xxh_merge(uint64_t acc, uint64_t v)
{
	acc ^= xxh_round(0, v);
	return acc * P1 + P4;
}

void trace_xxh64_init(struct trace_xxh64 *s, uint64_t seed)
{
	s->v[0] = seed + P1 + P2;
	s->v[1] = seed + P2;
	s->v[2] = seed;
	s->v[3] = seed - P1;
	s->total_len = 0;
	s->buf_len = 0;
}

static void xxh_stripe(uint64_t v[4], const uint8_t *p)
{
	v[0] = xxh_round(v[0], trace_get_u64(p));
	v[1] = xxh_round(v[1], trace_get_u64(p + 8));
	v[2] = xxh_round(v[2], trace_get_u64(p + 16));
	v[3] = xxh_round(v[3], trace_get_u64(p + 24));
}

void trace_xxh64_update(struct trace_xxh64 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	s->total_len += len;
	if (s->buf_len) {
		size_t take = 32 - s->buf_len;
		if (take > len)
			take = len;
		memcpy(s->buf + s->buf_len, p, take);
		s->buf_len += (uint32_t)take;
		p += take;
		len -= take;
		if (s->buf_len < 32)
			return;
		xxh_stripe(s->v, s->buf);
		s->buf_len = 0;
	}
	while (len >= 32) {
		xxh_stripe(s->v, p);
		p += 32;
		len -= 32;
	}
	if (len) {
		memcpy(s->buf, p, len);
		s->buf_len = (uint32_t)len;
	}
}

uint64_t trace_xxh64_digest(const struct trace_xxh64 *s)
{
	uint64_t acc;
	if (s->total_len >= 32) {
		acc = xxh_rotl(s->v[0], 1) + xxh_rotl(s->v[1], 7) + xxh_rotl(s->v[2], 12) +
		      xxh_rotl(s->v[3], 18);
		for (int i = 0; i < 4; i++)
			acc = xxh_merge(acc, s->v[i]);
	} else {
		acc = s->v[2] + P5; /* v[2] holds the seed until a stripe is done */
	}
	acc += s->total_len;

	const uint8_t *p = s->buf;
	size_t len = s->buf_len;
	while (len >= 8) {
		acc ^= xxh_round(0, trace_get_u64(p));
		acc = xxh_rotl(acc, 27) * P1 + P4;
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		acc ^= (uint64_t)trace_get_u32(p) * P1;
		acc = xxh_rotl(acc, 23) * P2 + P3;
		p += 4;
		len -= 4;
	}
	while (len--) {
		acc ^= (uint64_t)*p++ * P5;
		acc = xxh_rotl(acc, 11) * P1;
	}
	acc ^= acc >> 33;
	acc *= P2;
	acc ^= acc >> 29;
	acc *= P3;
	acc ^= acc >> 32;
	return acc;
}

uint64_t trace_xxh64(const void *data, size_t len, uint64_t seed)
{
	struct trace_xxh64 s;
	trace_xxh64_init(&s, seed);
	trace_xxh64_update(&s, data, len);
	return trace_xxh64_digest(&s);
}
