/* `replay --svg FILE`: the predicted timeline as a picture, ranks down,
 * time across, each pixel column coloured by what the rank mostly did in
 * it: compute, communication (time in MPI calls moving data) or waiting
 * for a peer (app_rank_stats' three parts). Up to CLI_SVG_MAX_RANKS ranks.
 *
 * Memory does not grow with the trace: each rank accumulates time per
 * category in SVG_BINS bins of a common width that doubles (adjacent bins
 * merged) whenever the run outgrows them, so the picture is exact to one
 * bin of the final width.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/output.h"

enum { SVG_BINS = 1000, SVG_CATS = 3, SVG_ROW = 14, SVG_LEFT = 70, SVG_TOP = 40 };

struct cli_svg {
	char *path;
	uint32_t n_ranks;
	uint64_t width_ps;  /* one bin */
	uint64_t end_ps;    /* latest end seen */
	double *t;          /* [n_ranks][SVG_BINS][SVG_CATS], ps per category */
};

int cli_svg_new(struct cli_svg **sp, const char *path, uint32_t n_ranks, struct nl_err *err)
{
	if (n_ranks > CLI_SVG_MAX_RANKS)
		return nl_errf(err, NL_ECONFIG, "--svg: the trace has %" PRIu32 " ranks (expected at most %d)", n_ranks,
			       CLI_SVG_MAX_RANKS);
	struct cli_svg *s = calloc(1, sizeof *s);
	if (!s || !(s->path = malloc(strlen(path) + 1)) ||
	    !(s->t = calloc((size_t)(n_ranks ? n_ranks : 1) * SVG_BINS * SVG_CATS, sizeof *s->t))) {
		if (s)
			free(s->path);
		free(s);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	strcpy(s->path, path);
	s->n_ranks = n_ranks;
	s->width_ps = 1000; /* 1 ns to start */
	*sp = s;
	return 0;
}

void cli_svg_free(struct cli_svg *s)
{
	if (!s)
		return;
	free(s->t);
	free(s->path);
	free(s);
}

static void grow(struct cli_svg *s, uint64_t end)
{
	while (end > s->width_ps * SVG_BINS) {
		for (uint32_t r = 0; r < s->n_ranks; r++) {
			double *b = s->t + (size_t)r * SVG_BINS * SVG_CATS;
			for (int i = 0; i < SVG_BINS / 2; i++)
				for (int c = 0; c < SVG_CATS; c++)
					b[i * SVG_CATS + c] = b[2 * i * SVG_CATS + c] + b[(2 * i + 1) * SVG_CATS + c];
			memset(b + SVG_BINS / 2 * SVG_CATS, 0, SVG_BINS / 2 * SVG_CATS * sizeof *b);
		}
		s->width_ps *= 2;
	}
}

/* Spread [t0, t1) of category c over the bins it covers. */
static void add(struct cli_svg *s, uint32_t rank, int c, uint64_t t0, uint64_t t1)
{
	double *b = s->t + (size_t)rank * SVG_BINS * SVG_CATS;
	while (t0 < t1) {
		uint64_t i = t0 / s->width_ps, edge = (i + 1) * s->width_ps;
		uint64_t e = t1 < edge ? t1 : edge;
		if (i >= SVG_BINS)
			break;
		b[i * SVG_CATS + c] += (double)(e - t0);
		t0 = e;
	}
}

void cli_svg_call(struct cli_svg *s, uint32_t rank, bool compute, uint64_t start_ps, uint64_t end_ps,
		  uint64_t wait_ps)
{
	if (rank >= s->n_ranks || end_ps < start_ps)
		return;
	grow(s, end_ps);
	if (end_ps > s->end_ps)
		s->end_ps = end_ps;
	if (compute) {
		add(s, rank, 0, start_ps, end_ps);
		return;
	}
	/* app_call_end: the wait is the call's first part (until the last
	 * awaited peer had posted), the rest communication. */
	uint64_t w = wait_ps < end_ps - start_ps ? wait_ps : end_ps - start_ps;
	add(s, rank, 2, start_ps, start_ps + w);
	add(s, rank, 1, start_ps + w, end_ps);
}

int cli_svg_finish(struct cli_svg *s, struct nl_err *err)
{
	static const char *const color[SVG_CATS] = {"#4c9a2a", "#1f5fbf", "#d04a2a"};
	static const char *const label[SVG_CATS] = {"compute", "communication", "wait"};
	uint64_t bins = s->width_ps ? (s->end_ps + s->width_ps - 1) / s->width_ps : 0;
	if (bins < 1)
		bins = 1;
	int w = SVG_LEFT + (int)bins + 20, h = SVG_TOP + (int)s->n_ranks * SVG_ROW + 40;
	size_t cap = 4096 + (size_t)s->n_ranks * bins * 96;
	char *buf = malloc(cap);
	if (!buf)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	size_t n = 0;
#define OUT(...) (n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__))
	OUT("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
	    "font-size=\"10\">\n",
	    w, h);
	OUT("<title>netloom replay: predicted timeline, %" PRIu32 " ranks, %.9f s</title>\n", s->n_ranks,
	    (double)s->end_ps * 1e-12);
	OUT("<text x=\"%d\" y=\"14\">predicted timeline: %.9f s, %" PRIu64 " ns per column</text>\n", SVG_LEFT,
	    (double)s->end_ps * 1e-12, s->width_ps / 1000);
	for (int c = 0; c < SVG_CATS; c++)
		OUT("<rect x=\"%d\" y=\"20\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"29\">%s</text>\n",
		    SVG_LEFT + 110 * c, color[c], SVG_LEFT + 110 * c + 14, label[c]);
	for (uint32_t r = 0; r < s->n_ranks; r++) {
		int y = SVG_TOP + (int)r * SVG_ROW;
		OUT("<g><text x=\"4\" y=\"%d\">rank %" PRIu32 "</text>\n", y + SVG_ROW - 4, r);
		const double *b = s->t + (size_t)r * SVG_BINS * SVG_CATS;
		/* Runs of columns of one category, drawn as one rectangle. */
		for (uint64_t i = 0; i < bins;) {
			int best = -1;
			double most = 0;
			for (int c = 0; c < SVG_CATS; c++)
				if (b[i * SVG_CATS + c] > most) {
					most = b[i * SVG_CATS + c];
					best = c;
				}
			uint64_t j = i + 1;
			for (; best >= 0 && j < bins; j++) {
				int bj = -1;
				double mj = 0;
				for (int c = 0; c < SVG_CATS; c++)
					if (b[j * SVG_CATS + c] > mj) {
						mj = b[j * SVG_CATS + c];
						bj = c;
					}
				if (bj != best)
					break;
			}
			if (best >= 0)
				OUT("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", SVG_LEFT + (int)i, y + 1,
				    (int)(j - i), SVG_ROW - 2, color[best]);
			i = best >= 0 ? j : i + 1;
		}
		OUT("</g>\n");
	}
	OUT("</svg>\n");
#undef OUT
	int rc = n < cap ? out_write_atomic(s->path, buf, n, err)
			 : nl_errf(err, NL_ENOMEM, "--svg: picture larger than expected");
	free(buf);
	return rc;
}
