/* Error table and helpers: the strings come from NL_ERRNO_MAP only. */
#include "core/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *nl_err_name(int code)
{
	switch (code) {
#define NL_ERR_NAME_(name, val, msg) \
	case val:                    \
		return #name;
		NL_ERRNO_MAP(NL_ERR_NAME_)
#undef NL_ERR_NAME_
	}
	return "NL_E?";
}

const char *nl_strerror(int code)
{
	if (code == 0)
		return "success";
	switch (code) {
#define NL_ERR_STR_(name, val, msg) \
	case val:                   \
		return msg;
		NL_ERRNO_MAP(NL_ERR_STR_)
#undef NL_ERR_STR_
	}
	return "unknown error";
}

int nl_errf(struct nl_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return code;
}

int nl_err_prefix(struct nl_err *err, const char *fmt, ...)
{
	char head[NL_ERR_MSG_MAX], old[NL_ERR_MSG_MAX];
	va_list ap;

	if (!err)
		return NL_EINVAL;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	if (old[0])
		snprintf(err->msg, sizeof err->msg, "%s: %s", head, old);
	else
		snprintf(err->msg, sizeof err->msg, "%s: %s", head, nl_strerror(err->code));
	return err->code;
}

void nl_err_clear(struct nl_err *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

void nl_bug_(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "netloom: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

int nl_open_input(const char *path, const char *what, FILE **f, struct nl_err *err)
{
	*f = fopen(path, "r");
	if (!*f)
		return nl_errf(err, NL_EIO, "%s: cannot open %s: %s", path, what, strerror(errno));
	struct stat st;
	if (fstat(fileno(*f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(*f);
		*f = NULL;
		return nl_errf(err, NL_EIO, "%s: is a directory, not a %s", path, what);
	}
	return 0;
}
