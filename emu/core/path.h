/* File names that a file names: relative ones are read from that file's
 * folder, as every tool users know reads them (a -c configuration, a study,
 * a workload file, a topology spec file; docs/configuration.md). One rule,
 * kept here, so the readers cannot drift apart.
 */
#ifndef NETLOOM_CORE_PATH_H
#define NETLOOM_CORE_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* The folder of file `path` into dir (cap bytes): "" when path has no '/'
 * (the working directory), "/" for a file at the root, else path up to
 * its last '/' (without it). False, with dir "", when it does not fit. */
bool path_dir_of(const char *path, char *dir, size_t cap);

/* The absolute folder of file `path` (is_regular: whether it is a regular
 * file), from which the names it writes are read; NULL (nothing to free)
 * when it has no folder of its own (a pipe, /dev/stdin, /dev/fd/N,
 * /proc/self/fd/N: their names are the working directory's) or out of
 * memory. The folder as path names it when realpath cannot resolve it. */
char *path_file_folder(const char *path, bool is_regular);

/* `name` as a file in folder `dir` names it: name itself when it is
 * absolute, "-" (standard input, refused by name by its readers) or dir
 * is "" (the working directory), else dir, one '/', name.
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

/* In msg (cap bytes), the last place that quotes `resolved` as a whole
 * file name becomes `name` as written followed by where it was looked
 * for: "'@spec.txt' (resolved to /home/me/exp/spec.txt, relative to
 * WHERE)", WHERE being e.g. "the config exp/run.ini". Nothing changes when
 * the two are equal or msg does not quote it (a file's own "PATH:LINE: "
 * and a name already renamed are left as they are). */
void path_err_rename(char *msg, size_t cap, const char *name, const char *resolved, const char *where);

#endif
