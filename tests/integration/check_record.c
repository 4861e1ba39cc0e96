/* check_record ARCHIVE EXPECT_BASE NP PROGRAM: compare a recorded archive
 * with what the MPI test program said each call must produce.
 *
 * EXPECT_BASE.r<rank> holds one line per recorded op (compute intervals
 * excluded): "<kind> key=value ...". Keys: comm peer tag bytes rpeer rtag
 * rbytes flags(nb|inplace|noout) req reqs(a,b,..) done new color key
 * scounts(..) rcounts(..). A key left out must be zero (or absent) in the
 * op, so every field is checked. A value "$name" binds on first use and
 * must be equal at every later use on any rank (communicator ids are
 * derived per rank: this checks they agree); distinct names must bind
 * distinct values. Lines "@comm $name w0,w1,..." check a communicator's
 * members in the manifest.
 * Also checked, for every rank: the archive verifies; op times tile the
 * run exactly (each op starts where the previous one ended, compute ops
 * are non-empty), the stream opens with init at t=0 and ends with
 * finalize, op counts match the manifest, and the manifest's runtime is
 * the slowest rank's finalize time; plus the manifest's strings.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "traces/trace.h"

#define MAX_VARS 256
#define MAX_LINE 8192

static struct {
	char name[64];
	uint64_t value;
	int is_distinct; /* bound by a communicator field */
} vars[MAX_VARS];
static int n_vars, n_fail;

#define FAIL(...)                                      \
	do {                                           \
		fprintf(stderr, "check_record: " __VA_ARGS__); \
		fputc('\n', stderr);                   \
		n_fail++;                              \
	} while (0)

/* Match token value `s` against v; binds $vars. 1 match, 0 mismatch.
 * Variables bound by communicator fields (is_distinct) must differ from
 * each other: different names are different communicators. */
static int match_var(const char *s, uint64_t v, int is_distinct)
{
	if (s[0] == '$') {
		for (int i = 0; i < n_vars; i++)
			if (!strcmp(vars[i].name, s + 1))
				return vars[i].value == v;
		for (int i = 0; i < n_vars && is_distinct; i++) {
			if (vars[i].is_distinct && vars[i].value == v) {
				FAIL("$%s and $%s bind the same value %" PRIu64, s + 1, vars[i].name, v);
				return 0;
			}
		}
		if (n_vars == MAX_VARS)
			return 0;
		snprintf(vars[n_vars].name, sizeof vars[n_vars].name, "%s", s + 1);
		vars[n_vars].is_distinct = is_distinct;
		vars[n_vars++].value = v;
		return 1;
	}
	return (uint64_t)strtoll(s, NULL, 10) == v;
}

static int match_value(const char *s, uint64_t v)
{
	return match_var(s, v, 0);
}

static int match_list_u64(const char *s, const uint64_t *v, uint32_t n)
{
	char buf[MAX_LINE];
	uint32_t k = 0;

	snprintf(buf, sizeof buf, "%s", s);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (k >= n || !v || !match_value(t, v[k]))
			return 0;
		k++;
	}
	return k == n;
}

static int match_list_u32(const char *s, const uint32_t *v, uint32_t n)
{
	uint64_t tmp[4096];

	if (n > 4096)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		tmp[i] = v[i];
	return match_list_u64(s, tmp, n);
}

static void format_op(const struct trace_op *op, char *out, size_t cap)
{
	size_t len = (size_t)snprintf(out, cap, "%s", trace_op_name(op->kind));
#define PUT(...) len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, __VA_ARGS__)
	if (op->comm)
		PUT(" comm=%" PRIu32, op->comm);
	if (op->peer)
		PUT(" peer=%" PRId32, op->peer);
	if (op->tag)
		PUT(" tag=%" PRId32, op->tag);
	if (op->bytes)
		PUT(" bytes=%" PRIu64, op->bytes);
	if (op->recv_peer)
		PUT(" rpeer=%" PRId32, op->recv_peer);
	if (op->recv_tag)
		PUT(" rtag=%" PRId32, op->recv_tag);
	if (op->recv_bytes)
		PUT(" rbytes=%" PRIu64, op->recv_bytes);
	if (op->flags)
		PUT(" flags=%s%s%s%s%s", op->flags & TRACE_F_NONBLOCKING ? "nb" : "",
		    (op->flags & TRACE_F_NONBLOCKING) && (op->flags & TRACE_F_IN_PLACE) ? "|" : "",
		    op->flags & TRACE_F_IN_PLACE ? "inplace" : "",
		    (op->flags & TRACE_F_NO_OUTCOME) && (op->flags & ~TRACE_F_NO_OUTCOME) ? "|" : "",
		    op->flags & TRACE_F_NO_OUTCOME ? "noout" : "");
	if (op->req)
		PUT(" req=%" PRIu32, op->req);
	if (op->n_reqs) {
		PUT(" reqs=");
		for (uint32_t i = 0; i < op->n_reqs; i++)
			PUT("%s%" PRIu32, i ? "," : "", op->reqs[i]);
	}
	if (op->n_done)
		PUT(" done=%" PRIu32, op->n_done);
	if (op->new_comm)
		PUT(" new=%" PRIu32, op->new_comm);
	if (op->color)
		PUT(" color=%" PRId32, op->color);
	if (op->key)
		PUT(" key=%" PRId32, op->key);
	for (int w = 0; w < 2; w++) {
		const uint64_t *v = w ? op->recv_counts : op->send_counts;
		if (!op->n_counts || !v)
			continue;
		PUT(" %s=", w ? "rcounts" : "scounts");
		for (uint32_t i = 0; i < op->n_counts; i++)
			PUT("%s%" PRIu64, i ? "," : "", v[i]);
	}
#undef PUT
}

static uint32_t parse_flags(const char *s)
{
	uint32_t f = 0;

	if (strstr(s, "nb"))
		f |= TRACE_F_NONBLOCKING;
	if (strstr(s, "inplace"))
		f |= TRACE_F_IN_PLACE;
	if (strstr(s, "noout"))
		f |= TRACE_F_NO_OUTCOME;
	return f;
}

/* Compare one op with one expectation line; returns the first field that
 * differs, or NULL. */
static const char *match_op(const struct trace_op *op, char *line)
{
	static char bad[80];
	char *save = NULL, *kind = strtok_r(line, " \t\n", &save);
	struct {
		const char *key;
		int seen;
	} keys[] = {{"comm", 0}, {"peer", 0},  {"tag", 0},   {"bytes", 0},   {"rpeer", 0},
		    {"rtag", 0}, {"rbytes", 0}, {"flags", 0}, {"req", 0},     {"reqs", 0},
		    {"done", 0}, {"new", 0},    {"color", 0}, {"key", 0},     {"scounts", 0},
		    {"rcounts", 0}};
	const size_t n_keys = sizeof keys / sizeof *keys;

	if (!kind || strcmp(kind, trace_op_name(op->kind)))
		return "kind";
	for (char *t = strtok_r(NULL, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		char *eq = strchr(t, '=');
		const char *v;
		int ok = 0;
		size_t k;
		if (!eq)
			return "syntax";
		*eq = '\0';
		v = eq + 1;
		for (k = 0; k < n_keys && strcmp(keys[k].key, t); k++)
			;
		if (k == n_keys) {
			snprintf(bad, sizeof bad, "unknown key %s", t);
			return bad;
		}
		keys[k].seen = 1;
		switch (k) {
		case 0: ok = match_var(v, op->comm, 1); break;
		case 1: ok = strtol(v, NULL, 10) == op->peer; break;
		case 2: ok = strtol(v, NULL, 10) == op->tag; break;
		case 3: ok = match_value(v, op->bytes); break;
		case 4: ok = strtol(v, NULL, 10) == op->recv_peer; break;
		case 5: ok = strtol(v, NULL, 10) == op->recv_tag; break;
		case 6: ok = match_value(v, op->recv_bytes); break;
		case 7: ok = parse_flags(v) == op->flags; break;
		case 8: ok = match_value(v, op->req); break;
		case 9: ok = match_list_u32(v, op->reqs, op->n_reqs); break;
		case 10: ok = match_value(v, op->n_done); break;
		case 11: ok = match_var(v, op->new_comm, 1); break;
		case 12: ok = strtol(v, NULL, 10) == op->color; break;
		case 13: ok = strtol(v, NULL, 10) == op->key; break;
		case 14: ok = match_list_u64(v, op->send_counts, op->n_counts); break;
		case 15: ok = match_list_u64(v, op->recv_counts, op->n_counts); break;
		}
		if (!ok)
			return keys[k].key;
	}
	/* Keys left out: the field must be zero. */
	const uint64_t zero_check[] = {
		op->comm, (uint64_t)(int64_t)op->peer, (uint64_t)(int64_t)op->tag, op->bytes,
		(uint64_t)(int64_t)op->recv_peer, (uint64_t)(int64_t)op->recv_tag, op->recv_bytes,
		op->flags, op->req, op->n_reqs, op->n_done, op->new_comm,
		(uint64_t)(int64_t)op->color, (uint64_t)(int64_t)op->key,
		op->send_counts ? op->n_counts : 0, op->recv_counts ? op->n_counts : 0,
	};
	for (size_t k = 0; k < n_keys; k++)
		if (!keys[k].seen && zero_check[k])
			return keys[k].key;
	return NULL;
}

static void check_manifest(const struct trace_manifest *m, uint32_t np, const char *program)
{
	const char *base = strrchr(program, '/');
	time_t now = time(NULL);

	base = base ? base + 1 : program;
	if (m->n_ranks != np)
		FAIL("manifest: %" PRIu32 " ranks, expected %" PRIu32, m->n_ranks, np);
	if (!m->application || strcmp(m->application, base))
		FAIL("manifest: application '%s', expected '%s'", m->application, base);
	if (!m->command_line || !strstr(m->command_line, base))
		FAIL("manifest: command line '%s' does not name %s", m->command_line, base);
	if (!m->recorder || strncmp(m->recorder, "netloom-record ", 15))
		FAIL("manifest: recorder '%s', expected 'netloom-record <version>'", m->recorder);
	if (!m->mpi_library || strncmp(m->mpi_library, "Open MPI ", 9))
		FAIL("manifest: mpi_library '%s', expected 'Open MPI <version>'", m->mpi_library);
	if (!m->machine || !m->machine[0])
		FAIL("manifest: empty machine");
	if (m->start_unix + 3600 < (uint64_t)now || m->start_unix > (uint64_t)now)
		FAIL("manifest: start_unix %" PRIu64 " is not within the last hour", m->start_unix);
	if (!(m->recorded_runtime_s > 0 && m->recorded_runtime_s < 600))
		FAIL("manifest: recorded_runtime_s %g out of (0, 600)", m->recorded_runtime_s);
	if (m->n_comms < 2 || m->comms[0].id != TRACE_COMM_WORLD || m->comms[0].size != np ||
	    m->comms[1].id != TRACE_COMM_SELF || m->comms[1].size != 1) {
		FAIL("manifest: communicator table does not start with world and self");
		return;
	}
	for (uint32_t r = 0; r < np; r++)
		if (m->comms[0].world_ranks[r] != r)
			FAIL("manifest: world member %" PRIu32 " is %" PRIu32, r, m->comms[0].world_ranks[r]);
}

/* Check one rank's stream; returns the time its finalize started, ps. */
static uint64_t check_rank(struct trace_archive *a, uint32_t rank, const char *expect_base,
			   uint64_t manifest_ops)
{
	char path[4096], line[MAX_LINE], copy[MAX_LINE], got[MAX_LINE];
	struct trace_rank_reader *r = NULL;
	struct nl_err err = {0};
	struct trace_op op;
	uint64_t n_ops = 0, end_ps = 0, fin_ps = 0;
	int line_no = 0, rc, last_kind = -1;
	FILE *f;

	snprintf(path, sizeof path, "%s.r%" PRIu32, expect_base, rank);
	f = fopen(path, "r");
	if (!f) {
		FAIL("rank %" PRIu32 ": cannot read %s", rank, path);
		return 0;
	}
	if (trace_rank_open(a, rank, &r, &err) < 0) {
		FAIL("rank %" PRIu32 ": %s", rank, err.msg);
		fclose(f);
		return 0;
	}
	while ((rc = trace_rank_next(r, &op, &err)) == 1) {
		const char *field;
		if (n_ops == 0 && (op.kind != TOP_INIT || op.t_ps != 0))
			FAIL("rank %" PRIu32 ": stream does not open with init at t=0", rank);
		if (n_ops > 0 && op.t_ps != end_ps)
			FAIL("rank %" PRIu32 " op %" PRIu64 " (%s): starts at %" PRIu64
			     " ps, previous op ended at %" PRIu64,
			     rank, n_ops, trace_op_name(op.kind), op.t_ps, end_ps);
		end_ps = op.t_ps + op.dur_ps;
		n_ops++;
		last_kind = op.kind;
		if (op.kind == TOP_FINALIZE)
			fin_ps = op.t_ps;
		if (op.kind == TOP_COMPUTE) {
			if (op.dur_ps == 0)
				FAIL("rank %" PRIu32 " op %" PRIu64 ": empty compute interval", rank, n_ops - 1);
			continue;
		}
		format_op(&op, got, sizeof got);
		do {
			if (!fgets(line, sizeof line, f)) {
				FAIL("rank %" PRIu32 " op %" PRIu64 ": unexpected op '%s'", rank, n_ops - 1,
				     got);
				goto out;
			}
			line_no++;
			line[strcspn(line, "\n")] = '\0';
		} while (line[0] == '@' || line[0] == '\0');
		memcpy(copy, line, sizeof copy);
		field = match_op(&op, copy);
		if (field)
			FAIL("rank %" PRIu32 " op %" PRIu64 " (%s:%d): field '%s' differs:\n"
			     "  expected: %s\n  recorded: %s",
			     rank, n_ops - 1, path, line_no, field, line, got);
	}
	if (rc < 0)
		FAIL("rank %" PRIu32 ": %s", rank, err.msg);
	while (fgets(line, sizeof line, f)) {
		line_no++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] && line[0] != '@')
			FAIL("rank %" PRIu32 ": expected op never recorded (%s:%d): %s", rank, path,
			     line_no, line);
	}
	if (last_kind != TOP_FINALIZE)
		FAIL("rank %" PRIu32 ": stream does not end with finalize", rank);
	if (n_ops != manifest_ops)
		FAIL("rank %" PRIu32 ": %" PRIu64 " ops read, manifest says %" PRIu64, rank, n_ops,
		     manifest_ops);
out:
	trace_rank_close(r);
	fclose(f);
	return fin_ps;
}

/* "@comm $name w0,w1,..." lines of every rank. */
static void check_comm_lines(const struct trace_manifest *m, uint32_t np, const char *expect_base)
{
	char path[4096], line[MAX_LINE];

	for (uint32_t rank = 0; rank < np; rank++) {
		FILE *f;
		snprintf(path, sizeof path, "%s.r%" PRIu32, expect_base, rank);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof line, f)) {
			char name[64], members[MAX_LINE];
			const struct trace_comm *c = NULL;
			if (strncmp(line, "@comm ", 6))
				continue;
			if (sscanf(line, "@comm $%63s %8000s", name, members) != 2) {
				FAIL("%s: bad line %s", path, line);
				continue;
			}
			for (int i = 0; i < n_vars; i++)
				if (!strcmp(vars[i].name, name))
					for (uint32_t k = 0; k < m->n_comms; k++)
						if (m->comms[k].id == vars[i].value)
							c = &m->comms[k];
			if (!c) {
				FAIL("@comm $%s: no such communicator in the manifest", name);
				continue;
			}
			if (!match_list_u32(members, c->world_ranks, c->size))
				FAIL("@comm $%s (id %" PRIu32 "): members differ from %s", name, c->id,
				     members);
		}
		if (f)
			fclose(f);
	}
}

int main(int argc, char **argv)
{
	struct trace_archive *a = NULL;
	struct nl_err err = {0};
	const struct trace_manifest *m;
	uint64_t slowest_ps = 0;
	uint32_t np;

	if (argc != 5) {
		fprintf(stderr, "usage: check_record ARCHIVE EXPECT_BASE NP PROGRAM\n");
		return 2;
	}
	np = (uint32_t)strtoul(argv[3], NULL, 10);
	if (trace_archive_open(&a, argv[1], &err) < 0) {
		fprintf(stderr, "check_record: %s\n", err.msg);
		return 1;
	}
	if (trace_archive_verify(a, &err) < 0)
		FAIL("verify: %s", err.msg);
	m = trace_archive_manifest(a);
	check_manifest(m, np, argv[4]);
	for (uint32_t r = 0; r < np && r < m->n_ranks; r++) {
		uint64_t fin = check_rank(a, r, argv[2], m->rank_ops[r]);
		slowest_ps = fin > slowest_ps ? fin : slowest_ps;
	}
	if (m->recorded_runtime_s != (double)slowest_ps * 1e-12)
		FAIL("manifest: recorded_runtime_s %.12g, slowest finalize at %.12g s",
		     m->recorded_runtime_s, (double)slowest_ps * 1e-12);
	check_comm_lines(m, np, argv[2]);
	trace_archive_close(a);
	if (n_fail) {
		fprintf(stderr, "check_record: %d check(s) failed\n", n_fail);
		return 1;
	}
	printf("check_record: %s: %" PRIu32 " ranks match their expectations\n", argv[1], np);
	return 0;
}
