/* Shared CLI helpers: error reporting and exit statuses. */
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/error.h"

int cli_report(const struct nl_err *err)
{
	fprintf(stderr, "netloom: %s\n", err->msg[0] ? err->msg : nl_strerror(err->code));
	switch (err->code) {
	case NL_ENOMEM:
	case NL_EDEADLOCK:
	case NL_ETIMEOUT:
		return CLI_FAIL;
	default:
		return CLI_USAGE;
	}
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "netloom %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_USAGE;
}
