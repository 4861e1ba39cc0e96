/* netloom: trace-driven, application-level network emulator for HPC
 * interconnects. This is the embeddable public API; everything else in the
 * library is internal (built with hidden visibility). */
#ifndef NETLOOM_NETLOOM_H
#define NETLOOM_NETLOOM_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define NL_API __attribute__((visibility("default")))
#else
#define NL_API
#endif

/* Library version, "MAJOR.MINOR.PATCH". */
NL_API const char *nl_version(void);

#ifdef __cplusplus
}
#endif

#endif
