/* The check every target makes of a reader's refusal: it says why, with an
 * error code and a message, which the API and the command line print as
 * one line (nl_err_one_line escapes a control byte the input put in). */
#ifndef NETLOOM_TESTS_FUZZ_FUZZ_REFUSAL_H
#define NETLOOM_TESTS_FUZZ_FUZZ_REFUSAL_H

#include <string.h>

#include "core/error.h"

static inline void fuzz_refusal(struct nl_err *err, int rc, const char *what)
{
	if (rc >= 0 || !err->code)
		NL_BUG("%s: refused with %d, error code %d", what, rc, err->code);
	nl_err_one_line(err, rc);
	if (!err->msg[0] || strchr(err->msg, '\n'))
		NL_BUG("%s: the refusal is not one non-empty line: '%s'", what, err->msg);
}

#endif
