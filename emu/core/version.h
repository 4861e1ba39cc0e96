/* The build's identity, for what must not outlive a change of the model
 * (compare's cache keys, docs/procurement.md): nl_version() is the
 * release number and the same for every commit between two releases. */
#ifndef NETLOOM_CORE_VERSION_H
#define NETLOOM_CORE_VERSION_H

/* The build's identity, scripts/build_id.sh: `git describe --always
 * --dirty` of the source tree when built ("0a0509e"), with a hash of the
 * uncommitted changes to the code built into netloom after "-dirty"
 * ("0a0509e-dirty-7a6438ccd272": two builds of one commit with different
 * edits differ; an edit of a test or a document alone keeps the commit's
 * identity), or nl_version() when the source is not a git checkout (a
 * tarball) or git is missing. Static storage. */
const char *version_build(void);

#endif
