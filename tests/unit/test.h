/* Minimal unit-test harness: each test file is one executable listing its
 * cases in main() with TEST_RUN; a failed check prints both operands with
 * file:line and marks the case failed (libuv test/task.h style). Exit
 * status is the number of failed cases (capped at 1 for meson). */
#ifndef NETLOOM_TESTS_TEST_H
#define NETLOOM_TESTS_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int test_failed_checks;
static int test_cases_run, test_cases_failed;

#define TEST_FAIL_(...)                                              \
	do {                                                         \
		fprintf(stderr, "  FAIL %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                        \
		fputc('\n', stderr);                                 \
		test_failed_checks++;                                \
	} while (0)

#define CHECK(c)                                           \
	do {                                               \
		if (!(c))                                  \
			TEST_FAIL_("check failed: %s", #c); \
	} while (0)

#define CHECK_INT(a, op, b)                                                                  \
	do {                                                                                 \
		long long ta_ = (long long)(a), tb_ = (long long)(b);                        \
		if (!(ta_ op tb_))                                                           \
			TEST_FAIL_("%s %s %s: %lld vs %lld", #a, #op, #b, ta_, tb_);         \
	} while (0)
#define CHECK_EQ(a, b) CHECK_INT(a, ==, b)

#define CHECK_UINT(a, op, b)                                                                 \
	do {                                                                                 \
		unsigned long long ta_ = (unsigned long long)(a), tb_ = (unsigned long long)(b); \
		if (!(ta_ op tb_))                                                           \
			TEST_FAIL_("%s %s %s: %llu vs %llu", #a, #op, #b, ta_, tb_);         \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                               \
	do {                                                                                \
		double ta_ = (double)(a), tb_ = (double)(b), tt_ = (double)(tol);           \
		if (!(fabs(ta_ - tb_) <= tt_))                                              \
			TEST_FAIL_("%s ~ %s (tol %g): %.10g vs %.10g", #a, #b, tt_, ta_, tb_); \
	} while (0)

#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *ta_ = (a), *tb_ = (b);                             \
		if (!ta_ || !tb_ || strcmp(ta_, tb_))                          \
			TEST_FAIL_("%s == %s: \"%s\" vs \"%s\"", #a, #b,       \
				   ta_ ? ta_ : "(null)", tb_ ? tb_ : "(null)"); \
	} while (0)

/* The call returned 0; otherwise print its error message. */
#define CHECK_OK(call, errp)                                                             \
	do {                                                                             \
		int tr_ = (call);                                                        \
		if (tr_ != 0)                                                            \
			TEST_FAIL_("%s returned %d: %s", #call, tr_, (errp)->msg);       \
	} while (0)

/* The call failed with `code` and its message contains `needle`. */
#define CHECK_ERR(call, code, errp, needle)                                                   \
	do {                                                                                  \
		int tr_ = (call);                                                             \
		if (tr_ != (code))                                                            \
			TEST_FAIL_("%s returned %d, expected %d (%s)", #call, tr_, (int)(code), \
				   (errp)->msg);                                              \
		else if (!strstr((errp)->msg, (needle)))                                      \
			TEST_FAIL_("%s: message \"%s\" lacks \"%s\"", #call, (errp)->msg,      \
				   (needle));                                                 \
	} while (0)

/* TEST_ONLY=substring in the environment runs only the cases whose name
 * holds it (a developer's shortcut: `TEST_ONLY=updown build/tests/test_adaptive`). */
static inline void test_run_(const char *name, void (*fn)(void))
{
	const char *only = getenv("TEST_ONLY");
	if (only && *only && !strstr(name, only))
		return;
	int before = test_failed_checks;
	test_cases_run++;
	fn();
	if (test_failed_checks != before) {
		test_cases_failed++;
		fprintf(stderr, "not ok %d - %s\n", test_cases_run, name);
	} else {
		fprintf(stderr, "ok %d - %s\n", test_cases_run, name);
	}
}
#define TEST_RUN(fn) test_run_(#fn, fn)

static inline int test_done(void)
{
	fprintf(stderr, "%d cases, %d failed\n", test_cases_run, test_cases_failed);
	return test_cases_failed ? 1 : 0;
}

/* Write `text` to a fresh temporary file; returns its path (a static
 * buffer, overwritten by the next call), "" when the write failed. The
 * caller unlinks it. */
static inline const char *test_write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/nltest-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return "";
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return "";
	}
	if (fputs(text, f) < 0)
		path[0] = '\0';
	if (fclose(f) != 0)
		path[0] = '\0';
	return path;
}

/* A scratch directory for one test program: test_tmpdir_make("trace")
 * creates /tmp/nl_test_trace_XXXXXX (exits on failure), test_tmppath(name)
 * gives a path inside it (32 rotating buffers), test_tmpdir_remove()
 * deletes it with everything in it. */
static char test_tmpdir[256];

static inline void test_tmpdir_make(const char *tag)
{
	snprintf(test_tmpdir, sizeof test_tmpdir, "/tmp/nl_test_%s_XXXXXX", tag);
	if (!mkdtemp(test_tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
}

static inline const char *test_tmppath(const char *name)
{
	static char buf[32][512];
	static int i;
	i = (i + 1) % 32;
	snprintf(buf[i], sizeof buf[i], "%s/%s", test_tmpdir, name);
	return buf[i];
}

static inline void test_tmpdir_remove(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", test_tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", test_tmpdir);
}

/* A whole file in a malloc'd buffer (NULL when unreadable); and back. */
static inline uint8_t *test_slurp(const char *path, size_t *len)
{
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
	if (!p || n < 0 || fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return p;
}

static inline void test_spit(const char *path, const uint8_t *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(p, 1, len, f);
	fclose(f);
}

/* C(n, k), exact while it fits. */
static inline uint64_t test_binom(uint32_t n, uint32_t k)
{
	uint64_t r = 1;
	for (uint32_t i = 1; i <= k; i++)
		r = r * (n - k + i) / i;
	return r;
}

/* Path of a file in the source tree (tests run from the build dir). */
#ifndef NETLOOM_SOURCE_ROOT
#define NETLOOM_SOURCE_ROOT "."
#endif
#define TEST_SRC(rel) NETLOOM_SOURCE_ROOT "/" rel

#endif
