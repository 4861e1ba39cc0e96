/* XXH64 from Debian's libxxhash (the reference implementation), behind the
 * trace_xxh64_* names the archive code uses. The archive hashes its header,
 * metadata block and every rank's decoded stream with XXH64, seed 0
 * (docs/trace-format.md); the digests are the ones the hand-written version
 * produced, so every archive written before still verifies. */
#include "traces/traces_internal.h"

#include "core/error.h"

void trace_xxh64_init(struct trace_xxh64 *s, uint64_t seed)
{
	/* Fails only for a NULL state. */
	XXH64_reset(&s->state, seed);
}

void trace_xxh64_update(struct trace_xxh64 *s, const void *data, size_t len)
{
	/* Fails only for a NULL state, or NULL data with len > 0. */
	NL_ASSERT(data || !len);
	XXH64_update(&s->state, data, len);
}

uint64_t trace_xxh64_digest(const struct trace_xxh64 *s)
{
	return XXH64_digest(&s->state);
}

uint64_t trace_xxh64(const void *data, size_t len, uint64_t seed)
{
	NL_ASSERT(data || !len);
	return XXH64(data, len, seed);
}
