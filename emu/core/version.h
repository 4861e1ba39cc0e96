/* The build's identity, for what must not outlive a change of the model
 * (compare's cache keys, docs/procurement.md): nl_version() is the
 * release number and the same for every commit between two releases. */
#ifndef NETLOOM_CORE_VERSION_H
#define NETLOOM_CORE_VERSION_H

/* `git describe --always --dirty` of the source tree when built (e.g.
 * "0a0509e" or "0a0509e-dirty"), or nl_version() when the source is not a
 * git checkout (a tarball) or git is missing. Static storage. A "-dirty"
 * build does not tell its uncommitted changes apart. */
const char *version_build(void);

#endif
