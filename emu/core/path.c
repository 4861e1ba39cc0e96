/* File names a file names, read from its folder (path.h). */
#include "core/path.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool path_dir_of(const char *path, char *dir, size_t cap)
{
	const char *slash = strrchr(path, '/');
	size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
	if (cap == 0)
		return false;
	dir[0] = '\0';
	if (n >= cap)
		return false;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return true;
}

char *path_file_folder(const char *path, bool is_regular)
{
	char dir[PATH_MAX];
	if (!is_regular || !path_dir_of(path, dir, sizeof dir))
		return NULL;
	char *abs = realpath(dir[0] ? dir : ".", NULL);
	/* realpath fails only when a folder above can no longer be read:
	 * the folder as the path names it still reads from here. */
	if (!abs)
		return dir[0] ? strdup(dir) : NULL;
	/* /dev/stdin, /dev/fd/N, /proc/self/fd/N name a descriptor, whose
	 * file (a redirected one is regular) has no folder of its own. */
	static const char *const no_folder[] = {"/dev", "/proc"};
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(no_folder[i]);
		if (!strncmp(abs, no_folder[i], n) && (abs[n] == '\0' || abs[n] == '/')) {
			free(abs);
			return NULL;
		}
	}
	return abs;
}

char *path_in_dir(const char *dir, const char *name)
{
	/* "-" is standard input, which every reader refuses by name ("'-':
	 * standard input is not read here"), not a file in dir. */
	bool is_stdin = !strcmp(name, "-");
	size_t n_dir = name[0] == '/' || is_stdin ? 0 : strlen(dir);
	bool sep = n_dir > 0 && dir[n_dir - 1] != '/';
	size_t n = n_dir + sep + strlen(name) + 1;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%.*s%s%s", (int)n_dir, dir, sep ? "/" : "", name);
	return p;
}

/* The name fn gave for `path` as a spec can hold it: a parameter's value,
 * or a spec file's inside a wrapper's parentheses, ends at a comma, so a
 * resolved name with one (a folder "a,b") cannot be written there; the
 * name stays as written, read from the working directory as before
 * names were resolved (run from inside "a,b", it still works). */
static const char *path_spec_name(const char *path, const char *r, bool in_list)
{
	return in_list && strchr(r, ',') ? path : r;
}

/* Wrappers ("p2(...)") followed deeper than this are copied as typed:
 * no spec nested so deep builds (topo_new refuses past 16 levels), and a
 * study or spec file of 100,000 nested wrappers recursed here until the
 * stack ran out (SIGSEGV), rescanning the rest of the text at each level. */
#define PATH_SPEC_MAX_DEPTH 32

/* One spec (len bytes at spec) into out, its files through fn: the
 * grammar of param_parse, "name[(inner)][:k=v,...]", values without
 * commas; anything else is copied as it is. `level`: the wrappers whose
 * parentheses hold it (0 at the top). */
static bool path_spec_walk(const char *spec, size_t len, FILE *out, char *(*fn)(void *, const char *), void *ctx,
			   int level)
{
	bool nested = level > 0;
	if (level > PATH_SPEC_MAX_DEPTH) { /* refused by the parser, kept as typed */
		fwrite(spec, 1, len, out);
		return true;
	}
	if (len && spec[0] == '@') {
		char *path = strndup(spec + 1, len - 1), *r = path ? fn(ctx, path) : NULL;
		if (r)
			fprintf(out, "@%s", path_spec_name(path, r, nested));
		free(path);
		free(r);
		return r != NULL;
	}
	size_t p = 0;
	while (p < len && spec[p] != ':' && spec[p] != '(')
		p++;
	fwrite(spec, 1, p, out);
	if (p < len && spec[p] == '(') {
		size_t q = p;
		int depth = 0;
		for (; q < len; q++)
			if (spec[q] == '(')
				depth++;
			else if (spec[q] == ')' && --depth == 0)
				break;
		if (q == len) { /* unbalanced: refused by the parser, kept as typed */
			fwrite(spec + p, 1, len - p, out);
			return true;
		}
		fputc('(', out);
		if (!path_spec_walk(spec + p + 1, q - p - 1, out, fn, ctx, level + 1))
			return false;
		fputc(')', out);
		p = q + 1;
	}
	if (p >= len || spec[p] != ':') {
		fwrite(spec + p, 1, len - p, out);
		return true;
	}
	fputc(':', out);
	for (p++; p <= len;) {
		const char *item = spec + p, *comma = memchr(item, ',', len - p);
		size_t n = comma ? (size_t)(comma - item) : len - p;
		if (n > 5 && !strncmp(item, "file=", 5)) {
			char *path = strndup(item + 5, n - 5), *r = path ? fn(ctx, path) : NULL;
			if (r)
				fprintf(out, "file=%s", path_spec_name(path, r, true));
			free(path);
			free(r);
			if (!r)
				return false;
		} else {
			fwrite(item, 1, n, out);
		}
		if (!comma)
			break;
		fputc(',', out);
		p += n + 1;
	}
	return true;
}

char *path_spec_files(const char *spec, char *(*fn)(void *ctx, const char *path), void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	bool ok = path_spec_walk(spec, strlen(spec), f, fn, ctx, 0);
	if (fclose(f) != 0 || !ok) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Whether the n bytes at `at` in msg are a whole file name: not part of
 * a longer one, nor a file's own "PATH:LINE: ..." (which names where it
 * was read, and reads best as it is), nor one already renamed (a spec
 * that names the file twice) or named as the file the names are read
 * relative to (an inner spec file's refusal, renamed by an outer one). */
static bool path_err_is_name(const char *msg, const char *at, size_t n)
{
	static const char *const renamed[] = {"(resolved to ", "relative to the spec file "};
	char before = at > msg ? at[-1] : ' ', after = at[n];
	if (!strchr(" '@=(", before) || !strchr("':,;) ", after))
		return false;
	for (size_t i = 0; i < 2; i++) {
		size_t k = strlen(renamed[i]);
		if ((size_t)(at - msg) >= k && !strncmp(at - k, renamed[i], k))
			return false;
	}
	return !(after == ':' && isdigit((unsigned char)at[n + 1]));
}

void path_err_rename(char *msg, size_t cap, const char *name, const char *resolved, const char *where)
{
	size_t n = strlen(resolved);
	char *at = NULL;
	/* The last one: where a message names an output first ("--json
	 * '/x/g.txt': the same file as f.ini:2 topology graph:file=
	 * '/x/g.txt', an input"), the input's name comes after it. */
	for (char *p = msg; strcmp(resolved, name) && (p = strstr(p, resolved)); p += n)
		if (path_err_is_name(msg, p, n))
			at = p;
	if (!at)
		return;
	const char *rest = at + n + (at[n] == '\'');
	char *out = malloc(cap);
	if (!out)
		return;
	snprintf(out, cap, "%.*s%s%s (resolved to %s, relative to %s)%s", (int)(at - msg), msg, name,
		 at[n] == '\'' ? "'" : "", resolved, where, rest);
	snprintf(msg, cap, "%s", out);
	free(out);
}
