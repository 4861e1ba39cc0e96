/* netloom config --from-booksim, private to emu/cli: BookSim2
 * configuration files to netloom INI in three files, cli_booksim_read.c
 * (BookSim's syntax, read as BookSim reads it), cli_booksim_spec.c (its
 * network, routing function and traffic pattern as netloom specs) and
 * cli_booksim.c (the conversion's phases and the INI they write).
 *
 * BookSim's syntax is `key = value;` with // comments and {a,b} vectors,
 * read as its lexer reads it (bs_lex): what BookSim stops on is refused.
 * Every key with a netloom equivalent is written with BookSim's effective
 * value (its default when the file does not set it), so the result does
 * not depend on netloom's own defaults; keys netloom does not model are
 * accepted silently when they hold BookSim's default, and named on the
 * warning stream otherwise. Exact or loud (issue 11 part 6): a BookSim
 * setting is written only as a netloom setting with the same behaviour;
 * one this build cannot express (a key it lacks, a value it refuses, a
 * network, routing function or pattern it cannot build: bs_check builds
 * them first) is named, never replaced by something that behaves
 * differently. */
#ifndef NETLOOM_CLI_BOOKSIM_H
#define NETLOOM_CLI_BOOKSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

#define BS_MAX 256

struct bs_kv {
	char key[64];
	char val[256];
	int line;
	bool used;
	bool is_multi; /* a vector of per-class values: named, not written */
	char why[400]; /* why it was first named (bs_warn), "" when not: for the INI's note */
};

struct bs_file {
	struct bs_kv kv[BS_MAX];
	int n;
};

/* Most elements of one list value (bs_tokenize). */
#define BS_MAX_ELEMS 64

/* --- cli_booksim_read.c: BookSim's syntax. ------------------------------ */

/* Whether key is one of BookSim's; if not, *near gets the closest known
 * key within two edits (case ignored), or NULL. */
bool bs_is_key(const char *key, const char **near);

/* The file at path into *bf as BookSim's parser reads it; a file BookSim
 * stops on is refused with file:line. Returns 0 or a negative error. */
int bs_read(const char *path, struct bs_file *bf, struct nl_err *err);

/* Effective value of a key: the file's (marked used), else BookSim's
 * default, else NULL. */
const char *bs_get(struct bs_file *bf, const char *key);

/* A network size key (k, n, c) as the one integer BookSim reads, into
 * *out; anything else is refused with its line. */
int bs_size(const char *path, struct bs_file *bf, const char *key, long *out, struct nl_err *err);

/* Names key as not mapped on warn ("FILE:LINE: cannot map 'KEY = VALUE':
 * why"), marks it used, keeps its first reason for the INI's note and
 * counts it in *n. */
void bs_warn(FILE *warn, const char *path, struct bs_file *bf, const char *key, const char *why, int *n);

/* A list value split as BookSim's tokenize_str splits it, into buf (cap
 * bytes) with el[] pointing into it. Returns the count, at most max (-1
 * past it or past cap). */
int bs_tokenize(const char *v, char *buf, size_t cap, const char **el, int max);

/* One-element vectors of the per-class keys become their element; longer
 * ones are named and marked is_multi. */
void bs_vectors(FILE *warn, const char *path, struct bs_file *bf, int *unmapped);

/* Whether key was a per-class vector, already named by bs_vectors. */
bool bs_multi(const struct bs_file *bf, const char *key);

/* --- cli_booksim_spec.c: network, routing function, traffic. ----------- */

/* A traffic value as BookSim's TrafficPattern::New reads it. */
struct bs_pattern {
	char name[256];      /* what bs_traffic maps: NAME without the arguments BookSim ignores */
	long perm_seed;      /* randperm: its argument, else the perm_seed key */
	long dig[3];         /* tornado, neighbor: k, n, xr */
	char dig_arg[3][64]; /* the argument each came from, "" when from the key */
	char note[320];      /* an INI comment: what BookSim reads of the arguments */
	char why[256];       /* set when the value cannot be mapped for what BookSim reads */
};

/* bs_convert's phases, in the order it runs them: first what the INI will
 * say (struct bs_conv: network, routing, traffic, then the check that
 * builds them), then the INI section by section, then the keys nothing
 * read. The order is the messages' order, and a key's first reason
 * (bs_warn) is the one its INI note gives, so a phase moves only with
 * both in mind. */

/* What the conversion decided before writing anything: netloom's specs
 * ("" where left out) and the notes the INI writes beside them. */
struct bs_conv {
	const char *tp;		/* BookSim's topology */
	long k, nd, c;		/* its k, n and c */
	char topo[512];		/* netloom's topology spec */
	char topo_note[128];	/* an INI comment above it, "" for none */
	char route[64];		/* netloom's routing spec */
	char route_note[512];	/* the INI's note on a fallback routing function (bs_check) */
	long chan;		/* channel_latency in cycles; 0: not written */
	const char *lat[3][3];	/* per-link-class latencies: key, value, why */
	int n_lat;
	uint32_t *map;		/* flatfly's terminal renumbering (bs_flatfly), NULL for none */
	size_t n_map;
	bool map_used;		/* there was one (map is freed once the traffic is decided) */
	struct bs_pattern pat;	/* the traffic value as BookSim reads it */
	char traffic[256];	/* netloom's traffic spec */
	char traffic_why[256];	/* why it is not mapped, "" when not said yet */
	bool traffic_ok;	/* bs_traffic mapped the pattern */
};

/* BookSim's topology, k, n and c as cv's topology spec, channel length
 * and per-link latencies. Returns 0 or a negative error (a size that is
 * not one integer, out of memory). */
int bs_conv_network(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped,
		    struct nl_err *err);

/* BookSim's routing_function on cv's network as cv->route, or named. */
void bs_conv_routing(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped);

/* BookSim's traffic value as cv->traffic (over cv->map, the flatfly's
 * renumbering, when set), or why it is not mapped in cv->traffic_why. */
void bs_conv_traffic(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped);

/* Builds cv's network, routing function and pattern: what netloom cannot
 * build is named and left out, a fallback routing function noted. */
void bs_conv_check(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped);

/* With the topology left out, its per-link latencies and channel length
 * are named and left out too. */
void bs_conv_drop_latencies(const char *path, FILE *warn, struct bs_file *bf, struct bs_conv *cv, int *unmapped);

/* --- cli_booksim.c: the INI. -------------------------------------------- */

/* The default netloom gives `key` when a file leaves it out (NULL for a
 * key netloom does not have); static storage. */
const char *bs_default(const char *key);

#endif
