/* `netloom compare`'s HTML report (cli_compare_html.c). */
#ifndef NETLOOM_CLI_COMPARE_HTML_H
#define NETLOOM_CLI_COMPARE_HTML_H

#include <jansson.h>

#include "core/error.h"

/* DIR/index.html from report.json's document (execution included):
 * static, no script and no network access; the plots inline SVG drawn by
 * gnuplot (a one-line note in place of each when gnuplot is not on PATH),
 * the tables inline. Staged, not yet in place: written to a temporary
 * file beside DIR/index.html, *tmp its name, registered for
 * SIGINT/SIGTERM (out_stage_registered, core/output.h), for the caller to
 * out_commit with the report's other files, and out_unstage. */
int cli_compare_html(const json_t *doc, const char *dir, char **tmp, struct nl_err *err);

#endif
