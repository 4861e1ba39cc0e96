/* Fuzz target: the live protocol's frame decoder (adapters/proto.h), the
 * first code every byte from a client reaches. Input layout: byte 0
 * selects the frame shape (bit 0: a payload frame follows; bit 1: the
 * header frame is byte0 >> 2 bytes long instead of 56), then the header
 * frame, then the payload frame (the rest). A header that decodes must
 * re-encode to exactly its bytes (one message, one encoding), and its
 * payload must be within its bound, else the target aborts. */
#include <stdlib.h>
#include <string.h>

#include "adapters/proto.h"
#include "core/error.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t shape = data[0];
	size_t rest = size - 1;
	size_t hlen = (shape & 2) ? (size_t)(shape >> 2) : ZP_HDR_BYTES;
	if (hlen > rest)
		hlen = rest;
	int has_payload = shape & 1;
	size_t plen = rest - hlen;
	struct zp_hdr h;
	struct nl_err err = {0};
	if (zp_decode(data + 1, hlen, has_payload, plen, 1024, &h, &err) < 0)
		return 0;
	uint8_t again[ZP_HDR_BYTES];
	zp_encode(&h, again);
	if (hlen != ZP_HDR_BYTES || memcmp(again, data + 1, ZP_HDR_BYTES))
		NL_BUG("a decoded %s header re-encodes to different bytes", zp_type_name(h.type));
	/* A WAITALL's payload is its request list, bounded by ZP_WAITALL_MAX
	 * rather than by max_payload (a 1,100-request WAITALL is legal with
	 * any --max-payload: 9f75a12). */
	size_t cap = h.type == ZP_WAITALL ? 4 * (size_t)ZP_WAITALL_MAX : 1024;
	if (!zp_type_name(h.type) || (has_payload && plen > cap) || (h.type == ZP_WAITALL && plen % 4))
		NL_BUG("decoder accepted type %u / payload %zu", h.type, plen);
	return 0;
}
