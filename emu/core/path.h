/* File names that a file names: relative ones are read from that file's
 * folder, as every tool users know reads them (a -c configuration, a study,
 * a workload file; docs/configuration.md). One rule, kept here, so the
 * three readers cannot drift apart.
 */
#ifndef NETLOOM_CORE_PATH_H
#define NETLOOM_CORE_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* The folder of file `path` into dir (cap bytes): "" when path has no '/'
 * (the working directory), "/" for a file at the root, else path up to
 * its last '/' (without it). False, with dir "", when it does not fit. */
bool path_dir_of(const char *path, char *dir, size_t cap);

/* `name` as a file in folder `dir` names it: name itself when it is
 * absolute or dir is "" (the working directory), else dir, one '/', name.
 * A new string (the caller frees it), or NULL when out of memory. */
char *path_in_dir(const char *dir, const char *name);

/* Topology spec `spec` with every file it names (a leading "@PATH", the
 * file= parameter of any family, nested specs "name(inner)" included)
 * replaced by fn(ctx, PATH), a string fn allocates; the rest as it is (a
 * spec that does not parse is copied as typed from where it stops
 * parsing). The files inside an @FILE's text are not read. Returns a new
 * string (the caller frees it), or NULL when out of memory (fn returned
 * NULL). */
char *path_spec_files(const char *spec, char *(*fn)(void *ctx, const char *path), void *ctx);

#endif
