/* Error codes and one-line user-facing error messages.
 *
 * Library functions return 0 or a negative NL_E* code. Failures caused by
 * user input also fill a caller-provided struct nl_err with one line naming
 * the file/field/value and what was expected, so the CLI can print it as is.
 */
#ifndef NETLOOM_CORE_ERROR_H
#define NETLOOM_CORE_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/* X(name, value, message): the one list every error table is made from. */
#define NL_ERRNO_MAP(X)                                                   \
	X(NL_EINVAL, -1, "invalid argument")                              \
	X(NL_ENOMEM, -2, "out of memory")                                 \
	X(NL_EIO, -3, "input/output error")                               \
	X(NL_ECONFIG, -4, "bad configuration")                            \
	X(NL_ERANGE, -5, "value out of range")                            \
	X(NL_ENOTFOUND, -6, "not found")                                  \
	X(NL_EFORMAT, -7, "malformed input")                              \
	X(NL_ECORRUPT, -8, "corrupt data")                                \
	X(NL_EUNSUPPORTED, -9, "not supported")                           \
	X(NL_EDEADLOCK, -10, "network or application deadlock")          \
	X(NL_ESTATE, -11, "operation not valid in this state")            \
	X(NL_EPROTO, -12, "protocol error")                               \
	X(NL_ETIMEOUT, -13, "timed out")

enum nl_errno {
#define NL_ERR_ENUM_(name, val, msg) name = val,
	NL_ERRNO_MAP(NL_ERR_ENUM_)
#undef NL_ERR_ENUM_
};

#define NL_ERR_MSG_MAX 512

/* One error, as a code and a single line of text (no trailing newline). */
struct nl_err {
	int code;                 /* 0 or a negative NL_E* value */
	char msg[NL_ERR_MSG_MAX]; /* "file:field: value 'x': expected ..." */
};

/* "NL_EINVAL" for a code; "NL_E?" for an unknown one. */
const char *nl_err_name(int code);

/* Generic text for a code ("invalid argument"). */
const char *nl_strerror(int code);

/* Record code and a printf-style message in *err (err may be NULL) and
 * return code, so a failure is one statement: return nl_errf(err, ...). */
int nl_errf(struct nl_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the message already in *err with "prefix: " (for adding the file
 * name or the enclosing component on the way up). Returns err->code. */
int nl_err_prefix(struct nl_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Reset to "no error". */
void nl_err_clear(struct nl_err *err);

/* Forward an error code: evaluate e once, return it if negative. */
#define NL_CHECK(e)                  \
	do {                         \
		int nl_check_rc_ = (e); \
		if (nl_check_rc_ < 0)   \
			return nl_check_rc_; \
	} while (0)

/* Programmer errors. NL_BUG is always on; NL_ASSERT only in debug and
 * sanitizer builds (NDEBUG unset). Both abort with file:line. */
void nl_bug_(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
#define NL_BUG(...) nl_bug_(__FILE__, __LINE__, __VA_ARGS__)
#ifdef NDEBUG
#define NL_ASSERT(c) ((void)0)
#else
#define NL_ASSERT(c) ((c) ? (void)0 : nl_bug_(__FILE__, __LINE__, "assertion failed: %s", #c))
#endif

#endif
