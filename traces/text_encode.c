/* `trace encode` (docs/trace-format.md §8): the text form `trace dump`
 * writes (traces/text.c) read back into an archive, every line checked,
 * an error naming the text file, its line and the field at fault; the
 * archive is written atomically or not at all. */
#include "traces/traces_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "core/error.h"
#include "core/param.h"
#include "core/text.h"

/* --- encode ----------------------------------------------------------------- */

const char *trace_takes_text(enum trace_takes takes)
{
	if (takes == TRACE_TAKES_NLT)
		return "a .nlt";
	return takes == TRACE_TAKES_FOREIGN ? "a foreign trace" : "a .nlt or a foreign trace";
}

bool trace_text_given(const char *path, enum trace_takes takes, struct nl_err *err)
{
	char head[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO is not waited on */
	if (fd < 0)
		return false;
	struct stat st;
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof head - 1) : -1;
	close(fd);
	if (n <= 0)
		return false;
	head[n] = '\0';
	/* A dump opens with a comment line; the text may start with a BOM. */
	const char *p = head + trace_utf8_bom_len((const uint8_t *)head, (size_t)n);
	while (*p == '#' || *p == '\n' || *p == '\r') {
		const char *nl = strchr(p, '\n');
		if (!nl)
			return false;
		p = nl + 1;
	}
	if (strncmp(p, "netloom-trace ", 14))
		return false;
	nl_errf(err, NL_EINVAL,
		"%s: a netloom trace in text form, not an archive: expected %s; encode it first (netloom trace "
		"encode %s OUT.nlt)",
		path, trace_takes_text(takes), path);
	return true;
}

struct enc {
	const char *path;
	uint64_t line_no;
	struct nl_err *err;
	/* manifest being read */
	struct trace_manifest m;
	uint32_t cap_comms;
	struct trace_write_opts opts;
	unsigned seen;          /* header keys seen (bit per key) */
	unsigned seen_host;     /* version 2 host keys seen (bit per key) */
	bool have_version, have_ranks;
	/* ops */
	struct trace_builder *b;
	int64_t rank;           /* current rank section, -1 before the first */
	uint64_t rank_ops;      /* ops read in it */
	int64_t said_rank;      /* the current section's '# rank R: N ops' comment (a dump's), -1 none */
	uint64_t said_ops;
	int64_t next_rank;      /* such a comment seen before the next section's 'rank' line, -1 none */
	uint64_t next_ops;
	uint64_t *sc, *rc;
	uint32_t *reqs;
	size_t cap_sc, cap_rc, cap_reqs;
	/* The manifest as an archive has it (world, self, the others by id),
	 * made when the first rank section begins: the ops are checked against
	 * it by verify's rules (trace_op_semantics). The comms are e->m's. */
	struct trace_manifest vm;
	uint32_t *mem_first, *mem_idx; /* trace_comm_members of vm */
	uint8_t *is_member;     /* [vm.n_comms]: the current rank is in vm.comms[i] */
	uint32_t *listed;       /* [ranks]: 1 + the 'comm' line's index that last listed the world rank */
};

static int enc_err(struct enc *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int enc_err(struct enc *e, const char *fmt, ...)
{
	char what[NL_ERR_MSG_MAX], esc[NL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	/* what quotes the text's tokens: no raw control or non-UTF-8 bytes */
	return nl_errf(e->err, NL_EFORMAT, "%s:%llu: %s", e->path, (unsigned long long)e->line_no,
		       trace_escape(esc, sizeof esc, what));
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

static bool parse_u32(const char *s, uint32_t *v)
{
	uint64_t x;
	if (!parse_u64(s, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* strtok_r skips empty items, which read '2,,3' as two ids and 'in_place|'
 * as one flag: a hand-edited list with an item gone or doubled separators
 * is refused instead (dump never prints one). */
static bool has_empty_item(const char *v, char sep)
{
	char prev = sep;
	for (; *v; prev = *v++)
		if (*v == sep && prev == sep)
			return true;
	return prev == sep;
}

static bool parse_i32(const char *s, int32_t *v)
{
	char *end;
	if (!*s)
		return false;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || *end || x < INT32_MIN || x > INT32_MAX)
		return false;
	*v = (int32_t)x;
	return true;
}

/* Parse a quoted string at s (the rest of the line); malloc'd result. */
static char *parse_quoted(const char *s)
{
	size_t n = strlen(s);
	if (n < 2 || s[0] != '"' || s[n - 1] != '"')
		return NULL;
	char *out = malloc(n);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 1; i < n - 1; i++) {
		char c = s[i];
		if (c == '"') {
			free(out);
			return NULL;
		}
		if (c != '\\') {
			out[o++] = c;
			continue;
		}
		if (++i >= n - 1) {
			free(out);
			return NULL;
		}
		switch (s[i]) {
		case '"': out[o++] = '"'; break;
		case '\\': out[o++] = '\\'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'x': {
			unsigned v;
			char hex[3] = {0};
			if (i + 2 >= n - 1) {
				free(out);
				return NULL;
			}
			hex[0] = s[i + 1];
			hex[1] = s[i + 2];
			char *end;
			v = (unsigned)strtoul(hex, &end, 16);
			if (*end || v == 0) {
				free(out);
				return NULL;
			}
			out[o++] = (char)v;
			i += 2;
			break;
		}
		default:
			free(out);
			return NULL;
		}
	}
	out[o] = '\0';
	return out;
}

enum { H_FRAME = 1, H_LEVEL = 2, H_APP = 4, H_CMD = 8, H_MACH = 16, H_REC = 32, H_MPI = 64,
       H_START = 128, H_RT = 256 };

/* The host fields (format version 2): hosts, ranks_per_host,
 * cores_per_host, compute_cpu_time. 1 when key is none of them. */
static int enc_host_key(struct enc *e, const char *key, char *rest)
{
	static const char *const host_keys[] = {"hosts", "ranks_per_host", "cores_per_host", "compute_cpu_time"};
	for (unsigned i = 0; i < sizeof host_keys / sizeof *host_keys; i++) {
		if (strcmp(key, host_keys[i]))
			continue;
		uint32_t v;
		if (e->seen_host & (1u << i))
			return enc_err(e, "%s given twice", key);
		if (e->opts.format_version < 2)
			return enc_err(e, "%s: not in format version %u (it needs 'netloom-trace 2')", key,
				       e->opts.format_version);
		if (!parse_u32(rest, &v) || (i == 3 && v > 1))
			return enc_err(e, "%s '%s': expected %s", key, rest,
				       i == 3 ? "0 or 1" : "an unsigned integer");
		if (i == 0)
			e->m.hosts = v;
		else if (i == 1)
			e->m.ranks_per_host = v;
		else if (i == 2)
			e->m.cores_per_host = v;
		else
			e->m.has_compute_cpu = v;
		e->seen_host |= 1u << i;
		e->m.has_host_info = true;
		return 0;
	}
	return 1;
}

/* A 'comm ID RANK...' line: a communicator's id and its world ranks,
 * each below ranks and listed once. */
static int enc_comm(struct enc *e, char *rest)
{
	if (!e->have_ranks)
		return enc_err(e, "comm before ranks: expected a 'ranks N' line first (members are world ranks < N)");
	if (e->m.n_comms == e->cap_comms) {
		uint32_t cap = e->cap_comms ? 2 * e->cap_comms : 8;
		struct trace_comm *t = realloc(e->m.comms, cap * sizeof *t);
		if (!t)
			return nl_errf(e->err, NL_ENOMEM, "out of memory");
		e->m.comms = t;
		e->cap_comms = cap;
	}
	struct trace_comm *c = &e->m.comms[e->m.n_comms];
	memset(c, 0, sizeof *c);
	if (!e->listed && !(e->listed = calloc(e->m.n_ranks ? e->m.n_ranks : 1, sizeof *e->listed)))
		return nl_errf(e->err, NL_ENOMEM, "out of memory");
	char *save = NULL;
	char *tok = strtok_r(rest, " ", &save);
	if (!tok || !parse_u32(tok, &c->id) || c->id < 2 || c->id == TRACE_COMM_NULL)
		return enc_err(e, "comm: expected an id >= 2 then world ranks");
	uint32_t cap = 0;
	while ((tok = strtok_r(NULL, " ", &save))) {
		if (c->size == cap) {
			cap = cap ? 2 * cap : 16;
			uint32_t *t = realloc(c->world_ranks, cap * sizeof *t);
			if (!t) {
				free(c->world_ranks);
				return nl_errf(e->err, NL_ENOMEM, "out of memory");
			}
			c->world_ranks = t;
		}
		if (!parse_u32(tok, &c->world_ranks[c->size]) || c->world_ranks[c->size] >= e->m.n_ranks) {
			free(c->world_ranks);
			return enc_err(e, "comm %u: member '%s': expected a world rank < %u", c->id, tok,
				       e->m.n_ranks);
		}
		/* verify and replay refuse a rank listed twice */
		uint32_t w = c->world_ranks[c->size];
		if (e->listed[w] == e->m.n_comms + 1) {
			free(c->world_ranks);
			return enc_err(e, "comm %u: member '%s': world rank %u is listed twice (expected "
				       "distinct ranks)", c->id, tok, w);
		}
		e->listed[w] = e->m.n_comms + 1;
		c->size++;
	}
	if (!c->size) {
		free(c->world_ranks);
		return enc_err(e, "comm %u: no members", c->id);
	}
	e->m.n_comms++;
	return 0;
}

static int enc_header(struct enc *e, char *key, char *rest)
{
	static const struct {
		const char *name;
		unsigned bit;
		size_t off; /* of the string field, or (size_t)-1 */
	} strs[] = {
		{"application", H_APP, offsetof(struct trace_manifest, application)},
		{"command_line", H_CMD, offsetof(struct trace_manifest, command_line)},
		{"machine", H_MACH, offsetof(struct trace_manifest, machine)},
		{"recorder", H_REC, offsetof(struct trace_manifest, recorder)},
		{"mpi_library", H_MPI, offsetof(struct trace_manifest, mpi_library)},
	};
	for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) {
		if (strcmp(key, strs[i].name))
			continue;
		if (e->seen & strs[i].bit)
			return enc_err(e, "%s given twice", key);
		char *v = parse_quoted(rest);
		if (!v)
			return enc_err(e, "%s: expected a double-quoted string with \\\" \\\\ \\n \\r \\t \\xHH escapes", key);
		*(char **)((char *)&e->m + strs[i].off) = v;
		e->seen |= strs[i].bit;
		return 0;
	}
	if (!strcmp(key, "frame_target") || !strcmp(key, "zstd_level")) {
		unsigned bit = key[0] == 'f' ? H_FRAME : H_LEVEL;
		uint32_t v;
		if (e->seen & bit)
			return enc_err(e, "%s given twice", key);
		/* The writer's ranges, checked here so the error names the
		 * line; 0 is refused, not read as the default (a dump never
		 * says 0, and the archive would not be the one described). */
		uint32_t lo = bit == H_FRAME ? TRACE_FRAME_TARGET_MIN : 1;
		uint32_t hi = bit == H_FRAME ? TRACE_FRAME_TARGET_MAX : (uint32_t)ZSTD_maxCLevel();
		if (!parse_u32(rest, &v) || v < lo || v > hi)
			return enc_err(e, "%s '%s': expected %u .. %u%s", key, rest, lo, hi,
				       bit == H_FRAME ? " bytes" : "");
		if (bit == H_FRAME)
			e->opts.frame_target = v;
		else
			e->opts.zstd_level = (int)v;
		e->seen |= bit;
		return 0;
	}
	if (!strcmp(key, "ranks")) {
		if (e->have_ranks)
			return enc_err(e, "ranks given twice");
		if (!parse_u32(rest, &e->m.n_ranks) || !e->m.n_ranks || e->m.n_ranks > TRACE_REPLAY_MAX_RANKS)
			return enc_err(e, "ranks '%s': expected an integer 1 .. %u (replay's limit)", rest,
				       TRACE_REPLAY_MAX_RANKS);
		e->have_ranks = true;
		return 0;
	}
	if (!strcmp(key, "start_unix")) {
		if (e->seen & H_START)
			return enc_err(e, "start_unix given twice");
		if (!parse_u64(rest, &e->m.start_unix))
			return enc_err(e, "start_unix '%s': expected a whole number of seconds 0 .. %" PRIu64, rest,
				       UINT64_MAX);
		e->seen |= H_START;
		return 0;
	}
	if (!strcmp(key, "recorded_runtime_s")) {
		char *end;
		if (e->seen & H_RT)
			return enc_err(e, "recorded_runtime_s given twice");
		/* Decimal, as the dump prints it: strtod read C99's
		 * hexadecimal floats ('0x1p3' as 8), a blank before the
		 * number, 'inf', 'nan' and a negative time. */
		errno = 0;
		e->m.recorded_runtime_s = param_strtod(rest, &end);
		if (!*rest || *end || errno || !isfinite(e->m.recorded_runtime_s) || e->m.recorded_runtime_s < 0)
			return enc_err(e, "recorded_runtime_s '%s': expected a decimal number of seconds >= 0", rest);
		e->seen |= H_RT;
		return 0;
	}
	int rc = enc_host_key(e, key, rest);
	if (rc <= 0)
		return rc;
	if (!strcmp(key, "comm"))
		return enc_comm(e, rest);
	return enc_err(e, "unknown field '%s' (expected a manifest field, 'comm' or 'rank')", key);
}

static int parse_list64(struct enc *e, const char *key, char *v, uint64_t **a, size_t *cap, uint32_t *n)
{
	*n = 0;
	if (*v && has_empty_item(v, ','))
		return enc_err(e, "%s '%s': an empty item; expected unsigned integers joined by ','", key, v);
	for (char *save = NULL, *tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == *cap) {
			size_t c = *cap ? 2 * *cap : 64;
			uint64_t *t = realloc(*a, c * sizeof *t);
			if (!t)
				return nl_errf(e->err, NL_ENOMEM, "out of memory");
			*a = t;
			*cap = c;
		}
		if (!parse_u64(tok, &(*a)[*n]))
			return enc_err(e, "%s: '%s' is not an unsigned integer 0 .. %" PRIu64, key, tok, UINT64_MAX);
		(*n)++;
	}
	if (!*n)
		return enc_err(e, "%s: empty list", key);
	return 0;
}

static int cmp_comm(const void *a, const void *b)
{
	uint32_t x = ((const struct trace_comm *)a)->id, y = ((const struct trace_comm *)b)->id;
	return x < y ? -1 : x > y;
}

/* The manifest is complete when the first rank section begins: its
 * archive form, against which each op is checked (world and self are
 * implicit; members are those of e->m's comms, borrowed). */
static int enc_comms_done(struct enc *e)
{
	struct trace_manifest *v = &e->vm;
	uint32_t dup_i, dup_j;
	if ((uint64_t)e->m.n_comms + 2 > TRACE_REPLAY_MAX_COMMS) {
		/* verify would refuse the archive (section 7): the whole
		 * manifest is at fault, not one 'comm' line. */
		char where[NL_ERR_MSG_MAX], esc[NL_ERR_MSG_MAX];
		snprintf(where, sizeof where, "%s: ", trace_escape(esc, sizeof esc, e->path));
		return trace_comms_over_limit(e->err, where, (uint64_t)e->m.n_comms + 2);
	}
	v->n_ranks = e->m.n_ranks;
	v->has_compute_cpu = e->m.has_compute_cpu;
	v->n_comms = e->m.n_comms + 2;
	v->comms = calloc(v->n_comms, sizeof *v->comms);
	e->is_member = calloc(v->n_comms, 1);
	if (!v->comms || !e->is_member)
		return nl_errf(e->err, NL_ENOMEM, "out of memory");
	v->comms[0] = (struct trace_comm){.id = TRACE_COMM_WORLD, .size = e->m.n_ranks};
	v->comms[1] = (struct trace_comm){.id = TRACE_COMM_SELF, .size = 1};
	if (e->m.n_comms) { /* no 'comm' line: e->m.comms is NULL, which memcpy may not be given */
		memcpy(v->comms + 2, e->m.comms, e->m.n_comms * sizeof *v->comms);
		qsort(v->comms + 2, e->m.n_comms, sizeof *v->comms, cmp_comm);
	}
	int rc = trace_comm_members(v, &e->mem_first, &e->mem_idx, &dup_i, &dup_j);
	if (rc == NL_ENOMEM)
		return nl_errf(e->err, NL_ENOMEM, "out of memory");
	if (rc) /* each 'comm' line was checked */
		NL_BUG("encode: communicator %u lists world rank %u twice", v->comms[dup_i].id,
		       v->comms[dup_i].world_ranks[dup_j]);
	return 0;
}

/* The current rank's communicators, in is_member (set 1 or 0). */
static void enc_mark_member(struct enc *e, uint8_t on)
{
	uint32_t r = (uint32_t)e->rank;
	for (uint32_t k = e->mem_first[r]; k < e->mem_first[r + 1]; k++)
		e->is_member[e->mem_idx[k]] = on;
}

/* Undo strtok's splitting of v (v_len bytes) at sep, so an error quotes
 * the whole value. */
static void unsplit(char *v, size_t v_len, char sep)
{
	for (size_t i = 0; i < v_len; i++)
		if (!v[i])
			v[i] = sep;
}

/* An op line's fields, by their bit in enc_line.seen. */
static const char *const enc_keys[] = {"t", "dur", "flags", "comm", "peer", "tag", "bytes", "flops",
				       "recv_peer", "recv_tag", "recv_bytes", "n_counts", "send_counts",
				       "recv_counts", "req", "reqs", "n_done", "new_comm", "color", "key", "cpu"};
/* What each field takes, for the line that refuses a value (the count
 * lists say their own), with its range: a whole number past it was told
 * it was expected to be a whole number. */
static const char *const enc_expected[] = {
	"picoseconds, a whole number 0 .. 18446744073709551615",
	"picoseconds, a whole number 0 .. 18446744073709551615",
	"flag names or numbers up to 65535 joined by '|'",
	"a communicator id, a whole number 0 .. 4294967295",
	"a rank (an integer -2147483648 .. 2147483647), 'any' or 'null'",
	"a tag (an integer -2147483648 .. 2147483647) or 'any'",
	"a byte count, a whole number 0 .. 18446744073709551615",
	"a decimal number of flops >= 0",
	"a rank (an integer -2147483648 .. 2147483647), 'any' or 'null'",
	"a tag (an integer -2147483648 .. 2147483647) or 'any'",
	"a byte count, a whole number 0 .. 18446744073709551615",
	"a rank count 1 .. 4294967295",
	"",
	"",
	"a request id, a whole number 0 .. 4294967295",
	"request ids (whole numbers 0 .. 4294967295) joined by ','",
	"a count, a whole number 0 .. 4294967295",
	"a communicator id (0 .. 4294967295) or 'null'",
	"an integer -2147483648 .. 2147483647",
	"an integer -2147483648 .. 2147483647",
	"picoseconds, a whole number 1 .. 18446744073709551615"};
_Static_assert(sizeof enc_expected / sizeof *enc_expected == sizeof enc_keys / sizeof *enc_keys, "one per field");
enum { ENC_N_KEYS = sizeof enc_keys / sizeof *enc_keys };

/* One op line as read so far. */
struct enc_line {
	struct trace_op op;
	uint32_t seen; /* 1 << index in enc_keys of each field given */
	uint32_t n_sc, n_rc, n_c; /* send_counts, recv_counts, n_counts */
};

/* The op kind, the line's first word. */
static int enc_kind(struct enc *e, const char *tok, struct trace_op *op)
{
	for (unsigned k = 0; k < TOP__COUNT; k++)
		if (!strcmp(tok, trace_op_name(k))) {
			op->kind = (uint16_t)k;
			return 0;
		}
	/* All 49 names would not fit one line: the common ones, where the
	 * rest are, and how MPI's I-collectives are written (no kind of
	 * their own), since 'ibarrier' is the likely slip. */
	return enc_err(e, "unknown op '%s': expected an op kind as 'netloom trace dump' prints it (init, "
		       "compute, send, isend, recv, irecv, wait, waitall, barrier, bcast, allreduce, ...: "
		       "docs/trace-format.md §6); a non-blocking collective is its kind with "
		       "flags=nonblocking req=ID",
		       tok);
}

/* flags=NAME|NUMBER|...: *ok false when not readable; an error for a
 * bit no netloom defines, which would be written and then refused by
 * every reader. */
static int enc_flags(struct enc *e, char *v, size_t v_len, struct trace_op *op, bool *ok)
{
	uint32_t f = 0;
	*ok = !has_empty_item(v, '|');
	for (char *s2 = NULL, *fl = strtok_r(v, "|", &s2); fl && *ok; fl = strtok_r(NULL, "|", &s2)) {
		size_t i = 0;
		while (i < TRACE_N_FLAG_NAMES && strcmp(fl, trace_flag_names[i].name))
			i++;
		if (i < TRACE_N_FLAG_NAMES) {
			f |= trace_flag_names[i].bit;
		} else {
			char *end;
			unsigned long x = strtoul(fl, &end, 0);
			*ok = *fl && !*end && x <= UINT16_MAX;
			f |= (uint32_t)x;
		}
	}
	op->flags = (uint16_t)f;
	*ok = *ok && f;
	if (*ok && (f & ~(uint32_t)TRACE_F_KNOWN)) {
		unsplit(v, v_len, '|');
		return enc_err(e, "flags '%s': unknown bits 0x%x; expected nonblocking (0x%x), in_place (0x%x), "
			       "no_outcome (0x%x) or their sum, joined by '|'",
			       v, f & ~(uint32_t)TRACE_F_KNOWN, TRACE_F_NONBLOCKING, TRACE_F_IN_PLACE, TRACE_F_NO_OUTCOME);
	}
	return 0;
}

/* reqs=ID,ID,...: into e->reqs (grown); *ok false when not readable. */
static int enc_reqs(struct enc *e, char *v, struct trace_op *op, bool *ok)
{
	op->n_reqs = 0;
	*ok = !has_empty_item(v, ',');
	for (char *s2 = NULL, *r = strtok_r(v, ",", &s2); r && *ok; r = strtok_r(NULL, ",", &s2)) {
		if (op->n_reqs == e->cap_reqs) {
			size_t c = e->cap_reqs ? 2 * e->cap_reqs : 64;
			uint32_t *t = realloc(e->reqs, c * sizeof *t);
			if (!t)
				return nl_errf(e->err, NL_ENOMEM, "out of memory");
			e->reqs = t;
			e->cap_reqs = c;
		}
		*ok = parse_u32(r, &e->reqs[op->n_reqs++]);
	}
	*ok = *ok && op->n_reqs;
	op->reqs = e->reqs;
	return 0;
}

/* A rank (peer=, recv_peer=): a number, 'any' or 'null'. */
static bool enc_rank(const char *v, int32_t *p)
{
	if (!strcmp(v, "any"))
		*p = TRACE_ANY_SOURCE;
	else if (!strcmp(v, "null"))
		*p = TRACE_PROC_NULL;
	else
		return parse_i32(v, p);
	return true;
}

/* A tag (tag=, recv_tag=): a number or 'any'. */
static bool enc_tag(const char *v, int32_t *p)
{
	if (!strcmp(v, "any")) {
		*p = TRACE_ANY_TAG;
		return true;
	}
	return parse_i32(v, p);
}

/* Field k (its index in enc_keys) of the line, value v. */
static int enc_field(struct enc *e, struct enc_line *l, unsigned k, char *v)
{
	struct trace_op *op = &l->op;
	bool ok = true;
	const size_t v_len = strlen(v); /* flags and reqs are split in place */
	switch (k) {
	case 0: ok = parse_u64(v, &op->t_ps); break;
	case 1: ok = parse_u64(v, &op->dur_ps); break;
	case 2: NL_CHECK(enc_flags(e, v, v_len, op, &ok)); break;
	case 3: ok = parse_u32(v, &op->comm); break;
	case 4: ok = enc_rank(v, &op->peer); break;
	case 5: ok = enc_tag(v, &op->tag); break;
	case 6: ok = parse_u64(v, &op->bytes); break;
	case 7: {
		char *end;
		errno = 0;
		op->flops = param_strtod(v, &end); /* decimal: '0x1p3' was read as 8 */
		ok = *v && !*end && !errno && isfinite(op->flops) && op->flops >= 0;
		break;
	}
	case 8: ok = enc_rank(v, &op->recv_peer); break;
	case 9: ok = enc_tag(v, &op->recv_tag); break;
	case 10: ok = parse_u64(v, &op->recv_bytes); break;
	case 11: ok = parse_u32(v, &l->n_c) && l->n_c; break;
	case 12: NL_CHECK(parse_list64(e, "send_counts", v, &e->sc, &e->cap_sc, &l->n_sc)); break;
	case 13: NL_CHECK(parse_list64(e, "recv_counts", v, &e->rc, &e->cap_rc, &l->n_rc)); break;
	case 14: ok = parse_u32(v, &op->req); break;
	case 15: NL_CHECK(enc_reqs(e, v, op, &ok)); break;
	case 16: ok = parse_u32(v, &op->n_done); break;
	case 17:
		if (!strcmp(v, "null"))
			op->new_comm = TRACE_COMM_NULL;
		else
			ok = parse_u32(v, &op->new_comm);
		break;
	case 18: ok = parse_i32(v, &op->color); break;
	case 19: ok = parse_i32(v, &op->key); break;
	case 20: ok = parse_u64(v, &op->cpu_ps) && op->cpu_ps; break;
	}
	if (ok)
		return 0;
	unsplit(v, v_len, k == 2 ? '|' : ',');
	return enc_err(e, "%s '%s': expected %s", enc_keys[k], v, enc_expected[k]);
}

/* The fields after the kind, key=value each, into l. */
static int enc_fields(struct enc *e, struct enc_line *l, char **save)
{
	char *tok;
	while ((tok = strtok_r(NULL, " ", save))) {
		char *eq = strchr(tok, '=');
		if (!eq)
			return enc_err(e, "'%s': expected key=value", tok);
		*eq = '\0';
		unsigned k = 0;
		while (k < ENC_N_KEYS && strcmp(tok, enc_keys[k]))
			k++;
		if (k == ENC_N_KEYS) {
			char names[256] = "";
			for (size_t i = 0; i < ENC_N_KEYS; i++)
				snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
					 enc_keys[i]);
			return enc_err(e, "unknown op field '%s': expected one of %s", tok, names);
		}
		if (l->seen & (1u << k))
			return enc_err(e, "op field '%s' given twice", tok);
		l->seen |= 1u << k;
		NL_CHECK(enc_field(e, l, k, eq + 1));
	}
	return 0;
}

/* What the fields must agree on, as a line: t and dur given, the count
 * lists' lengths, cpu= only on compute, within dur, and declared by the
 * manifest. */
static int enc_line_check(struct enc *e, const struct enc_line *l)
{
	const struct trace_op *op = &l->op;
	/* Every op line has both, as dump writes it (docs/trace-format.md
	 * §8): a line without one was read as starting or lasting 0 ps. */
	if ((l->seen & 3u) != 3u)
		return enc_err(e, "%s op without %s: expected t=PS dur=PS after the kind (start and duration in "
			       "picoseconds, as 'netloom trace dump' writes every op; t=0 dur=0 when unknown)",
			       trace_op_name(op->kind), !(l->seen & 3u) ? "t= and dur=" : !(l->seen & 1u) ? "t=" : "dur=");
	if ((l->n_sc && l->n_rc && l->n_sc != l->n_rc) ||
	    (l->n_c && ((l->n_sc && l->n_sc != l->n_c) || (l->n_rc && l->n_rc != l->n_c))))
		return enc_err(e, "n_counts, send_counts and recv_counts disagree on the number of ranks");
	/* cpu= in the text's terms (the builder's messages say cpu_ps). */
	if (op->cpu_ps && op->kind != TOP_COMPUTE)
		return enc_err(e, "cpu=%llu on a %s op: only compute ops carry CPU time", (unsigned long long)op->cpu_ps,
			       trace_op_name(op->kind));
	if (op->cpu_ps > op->dur_ps)
		return enc_err(e, "cpu=%llu: expected at most dur=%llu (the CPU time of the interval)",
			       (unsigned long long)op->cpu_ps, (unsigned long long)op->dur_ps);
	if (op->cpu_ps && !e->m.has_compute_cpu && e->opts.format_version >= 2)
		return enc_err(e, "cpu=%llu: the manifest does not say 'compute_cpu_time 1' (compute ops carry "
			       "cpu only then)", (unsigned long long)op->cpu_ps);
	return 0;
}

static int enc_op(struct enc *e, char *line)
{
	struct enc_line l;
	struct trace_op *op = &l.op;
	char *save = NULL;
	memset(&l, 0, sizeof l);
	NL_CHECK(enc_kind(e, strtok_r(line, " ", &save), op));
	NL_CHECK(enc_fields(e, &l, &save));
	NL_CHECK(enc_line_check(e, &l));
	op->n_counts = l.n_c ? l.n_c : l.n_sc ? l.n_sc : l.n_rc;
	op->send_counts = l.n_sc ? e->sc : NULL;
	op->recv_counts = l.n_rc ? e->rc : NULL;
	int rc = trace_builder_op(e->b, (uint32_t)e->rank, op, e->err);
	/* The op's errors are the line's; the output's failing (a full disk:
	 * "OUT: rank 0: write failed: ...") is the archive's, whichever line
	 * reached it, and names it alone. */
	if (trace_builder_is_unwritten(e->b))
		return rc;
	if (rc)
		return nl_err_prefix(e->err, "%s:%llu", e->path, (unsigned long long)e->line_no);
	/* After the builder, whose format-version errors come first (cpu= in
	 * a version 1 text): an op verify would refuse (a peer outside its
	 * communicator, a rank not a member) is refused at its line. */
	char why[512];
	const char *bad = trace_op_semantics(&e->vm, (uint32_t)e->rank, e->is_member, op, true, why, sizeof why);
	if (bad)
		return enc_err(e, "%s", bad);
	return 0;
}

/* A dump says each rank's op count in a comment before its section
 * ('# rank R: N ops, ...'): a dump cut at a line boundary, or edited
 * without the comment, encodes to another trace that verifies (the
 * archive's hashes are its own), so the count is checked when the
 * section ends. */
static int enc_rank_end(struct enc *e)
{
	if (e->rank < 0 || e->said_rank != e->rank || e->rank_ops == e->said_ops)
		return 0;
	return nl_errf(e->err, NL_EFORMAT,
		       "%s: rank %lld has %llu op%s, its line '# rank %lld: %llu op%s' says otherwise: a cut or edited dump "
		       "(after editing a dump, correct or delete that line)",
		       e->path, (long long)e->rank, (unsigned long long)e->rank_ops, e->rank_ops == 1 ? "" : "s",
		       (long long)e->rank, (unsigned long long)e->said_ops, e->said_ops == 1 ? "" : "s");
}

static int enc_line(struct enc *e, char *line)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	if (n && line[0] == '#') {
		unsigned r;
		unsigned long long ops;
		int word = 0;
		/* A dump puts the comment before its section's 'rank' line:
		 * it belongs to the next section unless it names this one.
		 * "1 op" or "1 ops": dumps wrote the latter for one op. */
		if (sscanf(line, "# rank %u: %llu op%n", &r, &ops, &word) == 2 && word > 0) {
			if ((int64_t)r == e->rank) {
				e->said_rank = r;
				e->said_ops = ops;
			} else {
				e->next_rank = r;
				e->next_ops = ops;
			}
		}
		return 0;
	}
	if (!n)
		return 0;
	if (!e->have_version) {
		if (strncmp(line, "netloom-trace ", 14))
			return enc_err(e, "expected 'netloom-trace %u' as the first line", TRACE_FORMAT_VERSION);
		uint32_t v;
		if (!parse_u32(line + 14, &v) || v < TRACE_FORMAT_VERSION_MIN || v > TRACE_FORMAT_VERSION)
			return enc_err(e, "unsupported text format version '%s' (this netloom reads %u .. %u)",
				       line + 14, TRACE_FORMAT_VERSION_MIN, TRACE_FORMAT_VERSION);
		/* The archive keeps the dump's version: a dump encodes to the
		 * same bytes, whichever version it came from. */
		e->opts.format_version = v;
		e->have_version = true;
		return 0;
	}
	if (!strncmp(line, "rank ", 5)) {
		uint32_t r;
		if (!e->have_ranks)
			return enc_err(e, "rank section before 'ranks': expected a 'ranks N' line in the manifest, before "
				       "'rank 0'");
		/* Past the last section there is no next rank to expect (it
		 * said "'rank 2': expected 'rank 2'" of 'ranks 2'). */
		if (e->rank + 1 == (int64_t)e->m.n_ranks)
			return enc_err(e, "'%s': the last rank's section (rank %u of 'ranks %u') is given; expected no "
				       "further 'rank' line",
				       line, e->m.n_ranks - 1, e->m.n_ranks);
		if (!parse_u32(line + 5, &r) || (int64_t)r != e->rank + 1 || r >= e->m.n_ranks)
			return enc_err(e, "'%s': expected 'rank %lld' (every rank below %u, in order; a dump made "
				       "with --rank cannot be encoded)",
				       line, (long long)(e->rank + 1), e->m.n_ranks);
		NL_CHECK(enc_rank_end(e));
		if (e->rank >= 0) {
			NL_CHECK(trace_builder_end_rank(e->b, (uint32_t)e->rank, e->err));
			enc_mark_member(e, 0);
		} else {
			NL_CHECK(enc_comms_done(e));
		}
		e->rank = r;
		enc_mark_member(e, 1);
		e->rank_ops = 0;
		e->said_rank = e->next_rank;
		e->said_ops = e->next_ops;
		e->next_rank = -1;
		return 0;
	}
	if (e->rank >= 0) {
		e->rank_ops++;
		return enc_op(e, line);
	}
	char *sp = strchr(line, ' ');
	if (!sp)
		return enc_err(e, "'%s': expected 'field value'", line);
	*sp = '\0';
	return enc_header(e, line, sp + 1);
}

/* TEXT is an archive (its magic, or as much of it as the file holds):
 * what makes a text of an archive is dump, not encode. */
static bool enc_archive_given(int fd, const char *path, struct nl_err *err)
{
	uint8_t head[8];
	ssize_t n = pread(fd, head, sizeof head, 0);
	if (n > 0 && !memcmp(head, TRACE_MAGIC, (size_t)n)) {
		nl_errf(err, NL_EINVAL,
			"%s: a netloom trace archive, not its text form: expected the text 'netloom trace dump' "
			"writes (netloom trace dump %s > TEXT)",
			path, path);
		return true;
	}
	return false;
}

int trace_encode_text(const char *text_path, const char *out_path, bool *is_unwritten, struct nl_err *err)
{
	struct enc e = {.path = text_path, .err = err, .rank = -1, .said_rank = -1, .next_rank = -1};
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	NL_CHECK(nl_input_named(text_path, "text trace", NL_ENOTFOUND, err));
	FILE *f = fopen(text_path, "r");
	if (!f)
		return nl_errf(err, errno == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: cannot open: %s", text_path,
			       strerror(errno));
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return nl_errf(err, NL_EIO, "%s: is a directory, not a text trace", text_path);
	}
	if (S_ISREG(st.st_mode) && enc_archive_given(fileno(f), text_path, err)) {
		fclose(f);
		return err->code;
	}
	while (!rc && getline(&line, &cap, f) >= 0) {
		e.line_no++;
		char *text = trace_skip_bom(line, e.line_no);
		/* The builder is created once the header is complete, so that it
		 * gets the rank count and writer parameters. */
		if (!e.b && e.have_ranks && !strncmp(text, "rank ", 5)) {
			rc = trace_builder_new(&e.b, out_path, e.m.n_ranks, &e.opts, err);
			if (rc)
				break;
		}
		rc = enc_line(&e, text);
	}
	if (!rc && ferror(f))
		rc = nl_errf(err, NL_EIO, "%s: read failed", text_path);
	fclose(f);
	free(line);
	if (!rc && !e.have_version)
		rc = nl_errf(err, NL_EFORMAT, "%s: empty: expected 'netloom-trace %u'", text_path,
			     TRACE_FORMAT_VERSION);
	if (!rc && !e.have_ranks)
		rc = nl_errf(err, NL_EFORMAT, "%s: no 'ranks' line", text_path);
	if (!rc)
		rc = enc_rank_end(&e);
	if (!rc && e.rank < 0)
		rc = nl_errf(err, NL_EFORMAT, "%s: %u rank%s declared, no 'rank' section: expected sections rank 0 .. %u",
			     text_path, e.m.n_ranks, e.m.n_ranks == 1 ? "" : "s", e.m.n_ranks - 1);
	if (!rc && e.rank + 1 != (int64_t)e.m.n_ranks)
		rc = nl_errf(err, NL_EFORMAT, "%s: %u ranks declared, rank sections end after rank %lld (a dump "
				 "made with --rank cannot be encoded)", text_path, e.m.n_ranks, (long long)e.rank);
	if (!rc && !e.b)
		rc = trace_builder_new(&e.b, out_path, e.m.n_ranks, &e.opts, err);
	if (!rc)
		rc = trace_builder_finish(e.b, &e.m, err);
	if (rc && is_unwritten && trace_builder_is_unwritten(e.b))
		*is_unwritten = true;
	trace_builder_free(e.b);
	trace_manifest_release(&e.m);
	free(e.sc);
	free(e.rc);
	free(e.reqs);
	free(e.vm.comms);
	free(e.mem_first);
	free(e.mem_idx);
	free(e.is_member);
	free(e.listed);
	return rc;
}
