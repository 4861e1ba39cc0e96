/* Protocol v1 codec (adapters/proto.h): every type round-trips, the
 * header bytes are the documented little-endian layout, and each class of
 * bad frame is refused with a message naming the field. */
#include "adapters/proto.h"
#include "core/error.h"
#include "test.h"

static void test_roundtrip(void)
{
	static const struct zp_hdr cases[] = {
		{.type = ZP_HELLO, .rank = 3, .aux = 7, .a = 0x1122334455667788ull},
		{.type = ZP_HELLO, .flags = ZP_F_LEAN, .rank = 3, .aux = 1},
		{.type = ZP_HELLO, .flags = ZP_F_LEAN | ZP_F_JOBINFO, .rank = 3, .aux = 2},
		{.type = ZP_SEND, .flags = ZP_F_NONBLOCKING, .rank = 1, .seq = 9, .peer = 2, .tag = 5},
		{.type = ZP_RECV, .rank = 1, .seq = 10, .peer = ZP_ANY, .tag = ZP_ANY, .a = 4096},
		{.type = ZP_WAIT, .rank = 1, .seq = 11, .aux = 9},
		{.type = ZP_COMPUTE, .rank = 0, .seq = 1, .a = 1000000},
		{.type = ZP_COMPUTE, .rank = 0, .seq = 1, .a = ZP_TIME_MAX_PS},
		{.type = ZP_WAITALL, .rank = 1, .seq = 12},
		{.type = ZP_BARRIER, .rank = 0, .seq = 2},
		{.type = ZP_BYE, .rank = 0, .seq = 3},
		{.type = ZP_HEARTBEAT, .rank = 4},
		{.type = ZP_WELCOME, .rank = 4, .aux = 8, .a = 1 << 20, .b = 500, .c = 5000},
		{.type = ZP_WELCOME, .flags = ZP_F_SEND_NOWAIT, .rank = 4, .aux = 8},
		{.type = ZP_WELCOME, .flags = ZP_F_JOBINFO, .rank = 5, .peer = 4, .tag = 4, .aux = 8},
		{.type = ZP_DONE, .rank = 4, .seq = 6, .a = 123456789},
		{.type = ZP_DELIVER, .rank = 2, .seq = 4, .peer = 1, .tag = 3, .a = 10, .b = 20, .c = 30},
		{.type = ZP_ERROR, .rank = 2, .tag = ZP_ETOOBIG},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct zp_hdr in = cases[i], out;
		struct nl_err err = {0};
		uint8_t buf[ZP_HDR_BYTES];
		in.version = ZP_VERSION;
		zp_encode(&in, buf);
		int pay = in.type == ZP_SEND || in.type == ZP_DELIVER || in.type == ZP_WAITALL;
		CHECK_OK(zp_decode(buf, sizeof buf, pay, in.type == ZP_WAITALL ? 8 : 5, 100, &out, &err), &err);
		CHECK_EQ(memcmp(&in, &out, sizeof in), 0);
		CHECK_STR(zp_type_name(in.type), zp_type_name(out.type));
	}
}

static void test_layout(void)
{
	struct zp_hdr h = {.version = ZP_VERSION, .type = ZP_DELIVER, .rank = 0x01020304, .seq = 5, .peer = 6,
			   .tag = 7, .a = 0x0807060504030201ull, .b = 0x0807060504030201ull, .c = UINT64_MAX};
	uint8_t b[ZP_HDR_BYTES];
	zp_encode(&h, b);
	CHECK_EQ(b[0], 0x4e);
	CHECK_EQ(b[1], 0x4c);
	CHECK_EQ(b[2], 1);
	CHECK_EQ(b[3], ZP_DELIVER);
	CHECK_EQ(b[8], 4);
	CHECK_EQ(b[11], 1);
	CHECK_EQ(b[12], 5);
	CHECK_EQ(b[16], 6);
	CHECK_EQ(b[20], 7);
	CHECK_EQ(b[32], 1);
	CHECK_EQ(b[39], 8);
	CHECK_EQ(b[55], 0xff);
}

static void test_errors(void)
{
	struct zp_hdr h = {.version = ZP_VERSION, .type = ZP_SEND, .seq = 1, .peer = 1, .tag = 2}, out;
	struct nl_err err = {0};
	uint8_t b[ZP_HDR_BYTES], x[ZP_HDR_BYTES];
	zp_encode(&h, b);
	CHECK_ERR(zp_decode(b, sizeof b - 1, 1, 0, 100, &out, &err), NL_EPROTO, &err, "length 55, expected 56");
	memcpy(x, b, sizeof b);
	x[0] = 0;
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err, "magic");
	memcpy(x, b, sizeof b);
	x[2] = 2;
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err, "version 2, expected 1");
	memcpy(x, b, sizeof b);
	x[3] = 99;
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err, "type 99");
	memcpy(x, b, sizeof b);
	x[29] = 1;
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err,
		  "SEND: reserved bytes 28..31 are 0x00000100, expected 0");
	memcpy(x, b, sizeof b);
	x[6] = 1;
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err,
		  "SEND: reserved bytes 6..7 are 0x0001, expected 0");
	memcpy(x, b, sizeof b);
	x[4] = 4;
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err, "flags 0x4");
	memcpy(x, b, sizeof b);
	x[40] = 1; /* b is unused by SEND */
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err, "field 'b' is 1");
	CHECK_ERR(zp_decode(b, sizeof b, 0, 0, 100, &out, &err), NL_EPROTO, &err, "no payload frame");
	CHECK_ERR(zp_decode(b, sizeof b, 1, 101, 100, &out, &err), NL_EPROTO, &err, "payload of 101 bytes");
	CHECK_ERR(zp_decode(b, sizeof b, 1, 1, 0, &out, &err), NL_EPROTO, &err, "SEND: payload of 1 byte, expected at most 0");
	CHECK_OK(zp_decode(b, sizeof b, 1, 100, 100, &out, &err), &err);
	struct zp_hdr neg = h;
	neg.tag = -1;
	zp_encode(&neg, x);
	/* A peer or tag out of range is its own class: the server answers ERROR 8. */
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_ERANGE, &err, "tag -1");
	struct zp_hdr rneg = {.version = ZP_VERSION, .type = ZP_RECV, .seq = 1, .peer = -2, .tag = 0};
	zp_encode(&rneg, x);
	CHECK_ERR(zp_decode(x, sizeof x, 0, 0, 100, &out, &err), NL_ERANGE, &err, "RECV: peer -2");
	/* COMPUTE: at most 2^62 ps, so no sum of them wraps a u64 clock. */
	struct zp_hdr cmp = {.version = ZP_VERSION, .type = ZP_COMPUTE, .seq = 1, .a = ZP_TIME_MAX_PS + 1};
	zp_encode(&cmp, x);
	CHECK_ERR(zp_decode(x, sizeof x, 0, 0, 100, &out, &err), NL_EPROTO, &err,
		  "COMPUTE: field 'a' (duration) is 4611686018427387905 ps, expected at most 2^62");
	cmp.a = UINT64_MAX;
	zp_encode(&cmp, x);
	CHECK_ERR(zp_decode(x, sizeof x, 0, 0, 100, &out, &err), NL_EPROTO, &err, "is 18446744073709551615 ps");
	/* WELCOME's job range: only with JOBINFO, and within the world. */
	struct zp_hdr wel = {.version = ZP_VERSION, .type = ZP_WELCOME, .aux = 8, .peer = 4, .tag = 4};
	zp_encode(&wel, x);
	CHECK_ERR(zp_decode(x, sizeof x, 0, 0, 100, &out, &err), NL_EPROTO, &err, "without flag 0x8");
	wel.flags = ZP_F_JOBINFO;
	wel.tag = 5;
	zp_encode(&wel, x);
	CHECK_ERR(zp_decode(x, sizeof x, 0, 0, 100, &out, &err), NL_EPROTO, &err, "job ranks 4+5, expected a range");
	struct zp_hdr bar = {.version = ZP_VERSION, .type = ZP_BARRIER, .seq = 3};
	zp_encode(&bar, x);
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err, "expected none");
	struct zp_hdr wa = {.version = ZP_VERSION, .type = ZP_WAITALL, .seq = 3};
	zp_encode(&wa, x);
	CHECK_ERR(zp_decode(x, sizeof x, 1, 6, 100, &out, &err), NL_EPROTO, &err, "request list of 6 bytes");
	CHECK_ERR(zp_decode(x, sizeof x, 0, 0, 100, &out, &err), NL_EPROTO, &err, "request list of 0 bytes");
	CHECK_OK(zp_decode(x, sizeof x, 1, 4 * ZP_WAITALL_MAX, 100, &out, &err), &err);
	struct zp_hdr del = {.version = ZP_VERSION, .type = ZP_DELIVER, .a = 5, .b = 4, .c = 6};
	zp_encode(&del, x);
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err, "non-decreasing");
	/* Only the fields docs/zmq-protocol.md gives a server's types: a
	 * DELIVER's aux and an ERROR's seq and a are unused (the decoder took
	 * them). */
	struct zp_hdr del_aux = {.version = ZP_VERSION, .type = ZP_DELIVER, .aux = 1};
	zp_encode(&del_aux, x);
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err,
		  "DELIVER: field 'aux' is 1, expected 0 (unused by this type)");
	struct zp_hdr err_seq = {.version = ZP_VERSION, .type = ZP_ERROR, .seq = 2, .tag = ZP_ETOOBIG};
	zp_encode(&err_seq, x);
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err,
		  "ERROR: field 'seq' is 2, expected 0 (unused by this type)");
	/* peer and tag are i32: -1 (ANY) where a type has none is said as
	 * -1 (it said 4294967295). */
	struct zp_hdr wait_tag = {.version = ZP_VERSION, .type = ZP_WAIT, .tag = -1};
	zp_encode(&wait_tag, x);
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err,
		  "WAIT: field 'tag' is -1, expected 0 (unused by this type)");
	struct zp_hdr compute_peer = {.version = ZP_VERSION, .type = ZP_COMPUTE, .peer = INT32_MIN};
	zp_encode(&compute_peer, x);
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err,
		  "COMPUTE: field 'peer' is -2147483648, expected 0 (unused by this type)");
	/* A WELCOME of 0 ranks: the C client took it for none yet. */
	struct zp_hdr welcome0 = {.version = ZP_VERSION, .type = ZP_WELCOME, .a = 100, .b = 500};
	zp_encode(&welcome0, x);
	CHECK_ERR(zp_decode(x, sizeof x, 0, 0, 100, &out, &err), NL_EPROTO, &err,
		  "WELCOME: field 'aux' (ranks) is 0, expected 1 or more");
	struct zp_hdr err_a = {.version = ZP_VERSION, .type = ZP_ERROR, .tag = ZP_ETOOBIG, .a = 3};
	zp_encode(&err_a, x);
	CHECK_ERR(zp_decode(x, sizeof x, 1, 0, 100, &out, &err), NL_EPROTO, &err,
		  "ERROR: field 'a' is 3, expected 0 (unused by this type)");
}

/* A server's type is recognised whatever its other fields (the server
 * refuses it from a client for its type); a client's type, a bad magic or
 * another version is not. */
static void test_peek_server_type(void)
{
	struct zp_hdr done = {.version = ZP_VERSION, .type = ZP_DONE, .rank = 3, .aux = 1}, out;
	uint8_t x[ZP_HDR_BYTES];
	zp_encode(&done, x);
	CHECK(zp_peek_server_type(x, sizeof x, &out));
	CHECK_EQ(out.type, ZP_DONE);
	CHECK_EQ(out.rank, 3);
	CHECK_EQ(out.aux, 0);
	CHECK(!zp_peek_server_type(x, sizeof x - 1, &out));
	x[2] = 2;
	CHECK(!zp_peek_server_type(x, sizeof x, &out));
	struct zp_hdr bye = {.version = ZP_VERSION, .type = ZP_BYE};
	zp_encode(&bye, x);
	CHECK(!zp_peek_server_type(x, sizeof x, &out));
	x[3] = 20; /* no type */
	CHECK(!zp_peek_server_type(x, sizeof x, &out));
}

int main(void)
{
	TEST_RUN(test_roundtrip);
	TEST_RUN(test_layout);
	TEST_RUN(test_errors);
	TEST_RUN(test_peek_server_type);
	return test_done();
}
