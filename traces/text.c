/* The text form of an archive (docs/trace-format.md §8): `trace dump`
 * writes it (here), `trace encode` reads it back (text_encode.c). Every manifest field and every
 * non-zero op field is printed, and the writer parameters are kept, so a
 * dump of a whole archive encodes to the same bytes.
 */
#include "traces/traces_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/text.h"

/* --- dump ------------------------------------------------------------------- */

/* A manifest string, quoted: control bytes and bytes that start no valid
 * UTF-8 sequence as \xHH (encode reads them back), so the text form is
 * UTF-8 (section 8) whatever bytes the archive holds; an editor that
 * replaced the raw bytes with U+FFFD changed the archive encode wrote. */
static void put_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t left = strlen((const char *)p);
	while (*p) {
		int len = 1;
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x80)
				len = *p < 0x20 || *p == 0x7f ? 0 : 1;
			else
				len = text_utf8_len(p, left);
			if (len > 0)
				fwrite(p, 1, (size_t)len, f);
			else
				fprintf(f, "\\x%02x", *p);
			len = len > 0 ? len : 1;
		}
		p += len;
		left -= (size_t)len;
	}
	fputc('"', f);
}

static void put_peer(FILE *f, const char *key, int32_t v)
{
	if (v == TRACE_ANY_SOURCE)
		fprintf(f, " %s=any", key);
	else if (v == TRACE_PROC_NULL)
		fprintf(f, " %s=null", key);
	else
		fprintf(f, " %s=%" PRId32, key, v);
}

static void put_tag(FILE *f, const char *key, int32_t v)
{
	if (v == TRACE_ANY_TAG)
		fprintf(f, " %s=any", key);
	else
		fprintf(f, " %s=%" PRId32, key, v);
}

const struct trace_flag_name trace_flag_names[TRACE_N_FLAG_NAMES] = {
	{TRACE_F_NONBLOCKING, "nonblocking"},
	{TRACE_F_IN_PLACE, "in_place"},
	{TRACE_F_NO_OUTCOME, "no_outcome"},
};

static void put_op(FILE *f, const struct trace_op *op)
{
	fprintf(f, "%s t=%" PRIu64 " dur=%" PRIu64, trace_op_name(op->kind), op->t_ps, op->dur_ps);
	if (op->flags) {
		const char *sep = " flags=";
		uint16_t rest = op->flags;
		for (size_t i = 0; i < TRACE_N_FLAG_NAMES; i++)
			if (op->flags & trace_flag_names[i].bit) {
				fprintf(f, "%s%s", sep, trace_flag_names[i].name);
				sep = "|";
				rest &= (uint16_t)~trace_flag_names[i].bit;
			}
		if (rest)
			fprintf(f, "%s0x%x", sep, rest);
	}
	if (op->comm)
		fprintf(f, " comm=%" PRIu32, op->comm);
	if (op->peer)
		put_peer(f, "peer", op->peer);
	if (op->tag)
		put_tag(f, "tag", op->tag);
	if (op->bytes)
		fprintf(f, " bytes=%" PRIu64, op->bytes);
	if (op->flops != 0 || signbit(op->flops))
		fprintf(f, " flops=%.17g", op->flops);
	if (op->recv_peer)
		put_peer(f, "recv_peer", op->recv_peer);
	if (op->recv_tag)
		put_tag(f, "recv_tag", op->recv_tag);
	if (op->recv_bytes)
		fprintf(f, " recv_bytes=%" PRIu64, op->recv_bytes);
	if (op->n_counts) {
		fprintf(f, " n_counts=%" PRIu32, op->n_counts);
		for (int which = 0; which < 2; which++) {
			const uint64_t *c = which ? op->recv_counts : op->send_counts;
			if (!c)
				continue;
			fprintf(f, which ? " recv_counts=" : " send_counts=");
			for (uint32_t i = 0; i < op->n_counts; i++)
				fprintf(f, i ? ",%" PRIu64 : "%" PRIu64, c[i]);
		}
	}
	if (op->req)
		fprintf(f, " req=%" PRIu32, op->req);
	if (op->n_reqs) {
		fprintf(f, " reqs=");
		for (uint32_t i = 0; i < op->n_reqs; i++)
			fprintf(f, i ? ",%" PRIu32 : "%" PRIu32, op->reqs[i]);
	}
	if (op->n_done)
		fprintf(f, " n_done=%" PRIu32, op->n_done);
	if (op->new_comm == TRACE_COMM_NULL)
		fprintf(f, " new_comm=null");
	else if (op->new_comm)
		fprintf(f, " new_comm=%" PRIu32, op->new_comm);
	if (op->color)
		fprintf(f, " color=%" PRId32, op->color);
	if (op->key)
		fprintf(f, " key=%" PRId32, op->key);
	if (op->cpu_ps)
		fprintf(f, " cpu=%" PRIu64, op->cpu_ps);
	fputc('\n', f);
}

int trace_dump(struct trace_archive *a, int64_t rank, FILE *out, struct nl_err *err)
{
	const struct trace_manifest *m = trace_archive_manifest(a);
	struct trace_write_opts o;
	trace_archive_write_opts(a, &o);

	if (rank >= (int64_t)m->n_ranks)
		return nl_errf(err, NL_ERANGE, "rank %lld: the archive has ranks 0 .. %u", (long long)rank,
			       m->n_ranks - 1);
	fprintf(out, "# netloom trace dump (text form: docs/trace-format.md, section 8)\n");
	fprintf(out, "netloom-trace %u\n", m->format_version);
	fprintf(out, "frame_target %u\n", o.frame_target);
	fprintf(out, "zstd_level %d\n", o.zstd_level);
	fprintf(out, "ranks %u\n", m->n_ranks);
	fprintf(out, "application ");
	put_quoted(out, m->application);
	fprintf(out, "\ncommand_line ");
	put_quoted(out, m->command_line);
	fprintf(out, "\nmachine ");
	put_quoted(out, m->machine);
	fprintf(out, "\nrecorder ");
	put_quoted(out, m->recorder);
	fprintf(out, "\nmpi_library ");
	put_quoted(out, m->mpi_library);
	fprintf(out, "\nstart_unix %" PRIu64 "\n", m->start_unix);
	fprintf(out, "recorded_runtime_s %.17g\n", m->recorded_runtime_s);
	if (m->has_host_info) {
		fprintf(out, "hosts %" PRIu32 "\n", m->hosts);
		fprintf(out, "ranks_per_host %" PRIu32 "\n", m->ranks_per_host);
		fprintf(out, "cores_per_host %" PRIu32 "\n", m->cores_per_host);
		fprintf(out, "compute_cpu_time %d\n", m->has_compute_cpu ? 1 : 0);
	}
	for (uint32_t i = 0; i < m->n_comms; i++) {
		const struct trace_comm *c = &m->comms[i];
		if (c->id == TRACE_COMM_WORLD || c->id == TRACE_COMM_SELF)
			continue;
		fprintf(out, "comm %" PRIu32, c->id);
		for (uint32_t j = 0; j < c->size; j++)
			fprintf(out, " %" PRIu32, c->world_ranks[j]);
		fputc('\n', out);
	}
	for (uint32_t r = 0; r < m->n_ranks; r++) {
		if (rank >= 0 && (uint32_t)rank != r)
			continue;
		struct trace_rank_reader *rd;
		struct trace_op op;
		int rc;
		/* "1 op", "2 ops": enc_line reads either word. */
		fprintf(out, "# rank %u: %" PRIu64 " op%s, %" PRIu64 " encoded bytes, xxh64 %016" PRIx64 "\n", r,
			m->rank_ops[r], m->rank_ops[r] == 1 ? "" : "s", m->rank_bytes[r], m->rank_hash[r]);
		fprintf(out, "rank %u\n", r);
		NL_CHECK(trace_rank_open(a, r, &rd, err));
		while ((rc = trace_rank_next(rd, &op, err)) == 1)
			put_op(out, &op);
		trace_rank_close(rd);
		if (rc < 0)
			return rc;
		if (ferror(out))
			break;
	}
	if (fflush(out) != 0 || ferror(out))
		return nl_errf(err, NL_EIO, "dump: write failed: %s", strerror(errno));
	return 0;
}
