/* What config.c (reading) and config_dump.c (writing) share: the INI
 * reader's rules a written value must survive, and how file names in a
 * value are read from a folder. Not for other modules. */
#ifndef NETLOOM_CORE_CONFIG_INTERNAL_H
#define NETLOOM_CORE_CONFIG_INTERNAL_H

#include <stdbool.h>

struct param_def;

/* A blank as inih reads one (isspace): dropped at a value's ends, and
 * before a ';' it starts a comment. */
bool config_ini_blank(char ch);
/* value with the file names it holds read from folder base (path.h): the
 * whole value of a PARAM_PATH key, the @FILE and file= of a spec. A new
 * string, or NULL when out of memory. */
char *config_resolve_files(const struct param_def *d, const char *value, const char *base);

#endif
