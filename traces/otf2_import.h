/* OTF2 import, shared between the driver (import_otf2.c: archive,
 * definitions, ranks, communicators) and the event converter
 * (otf2_events.c: one location's records to ops). Only built with the
 * OTF2 library (meson option: the `otf2` dependency was found).
 */
#ifndef NETLOOM_TRACES_OTF2_IMPORT_H
#define NETLOOM_TRACES_OTF2_IMPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "traces/traces_internal.h"

/* What the global definitions say, in the form the converter needs. */
struct otf2_defs {
	uint64_t ticks_per_s;   /* ClockProperties timerResolution */
	char **strings;         /* by string ref; NULL for unset refs */
	uint32_t n_strings;
	struct otf2_region {
		uint32_t name;      /* string ref */
		uint8_t paradigm;   /* OTF2_Paradigm */
		bool is_set;
	} *regions;             /* by region ref */
	uint32_t n_regions;
	struct otf2_loc {
		uint64_t ref;       /* location ref */
		uint32_t group;     /* location group ref */
		uint64_t n_events;
		int64_t rank;       /* -1: not a rank's location (second thread...) */
	} *locs;
	uint32_t n_locs;
	struct otf2_group {
		uint64_t ref;
		uint8_t type;       /* OTF2_GroupType */
		uint8_t paradigm;   /* OTF2_Paradigm */
		uint32_t n;
		uint64_t *members;
	} *groups;
	uint32_t n_groups;
	struct otf2_comm {
		uint64_t ref;
		uint32_t name;      /* string ref */
		uint64_t group;     /* group ref */
		uint64_t parent;
		uint32_t nl_id;     /* netloom communicator, or TRACE_COMM_NULL when unusable */
		uint32_t size;      /* members; 1 for self */
	} *comms;
	uint32_t n_comms;
	/* netloom communicators >= 2, as the manifest lists them. */
	struct trace_comm *nl_comms;
	uint32_t n_nl_comms;
	uint32_t n_ranks;
	uint64_t *rank_loc;     /* [n_ranks]: the location replayed as that rank */
};

/* Converter state shared across ranks. */
struct otf2_import {
	const char *path;       /* the anchor file, for messages */
	struct otf2_defs defs;
	struct trace_builder *b;
	struct trace_skips *skips;
	struct nl_err *err;
	double runtime_s;       /* slowest rank, first MPI call to last */
	char *application;      /* ProgramBegin name, or NULL */
	uint64_t fatal;         /* dropped calls that change matching or completion */
	char fatal_what[160];   /* the first of them, for the error line */
};

/* Name of a string ref, "" when unknown. */
const char *otf2_str(const struct otf2_defs *d, uint64_t ref);
/* Communicator by OTF2 ref, or NULL. */
const struct otf2_comm *otf2_comm_find(const struct otf2_defs *d, uint64_t ref);

/* Count a call that is not converted (named on stderr after the import);
 * fatal when dropping it changes what matches or completes. */
int otf2_skip(struct otf2_import *im, const char *name, const char *why, bool fatal);

/* Read rank's location events (events reader already opened by the
 * driver as `reader`, an OTF2_EvtReader*) and write its ops to im->b. */
struct OTF2_Reader_struct;
struct OTF2_EvtReader_struct;
int otf2_convert_rank(struct otf2_import *im, struct OTF2_Reader_struct *reader,
		      struct OTF2_EvtReader_struct *evt, uint32_t rank);

#endif
