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

/* The NETLOOM:: event attributes of netloom's own export
 * (traces_internal.h, TRACE_OTF2_ATTR_*). */
enum {
	O2_ATTR_PEER, O2_ATTR_TAG, O2_ATTR_COMM, O2_ATTR_BYTES, O2_ATTR_DONE, O2_ATTR_FLAGS, O2_ATTR_CPU, O2_ATTR_REQUEST,
	O2_ATTR__COUNT
};

/* What the global definitions say, in the form the converter needs. */
struct otf2_defs {
	uint64_t ticks_per_s;   /* ClockProperties timerResolution */
	/* Strings and regions, sorted by ref once read (EZTrace numbers
	 * them per location, in the billions: not dense). */
	struct otf2_string {
		uint32_t ref;
		char *s;
	} *strings;
	uint32_t n_strings;
	struct otf2_region {
		uint32_t ref;
		uint32_t name;      /* string ref */
		uint8_t paradigm;   /* OTF2_Paradigm */
		bool is_mpi;        /* paradigm MPI or named MPI_* */
		const char *name_s; /* the name (points into strings) */
	} *regions;
	uint32_t n_regions;
	bool is_eztrace;        /* EZTrace's dialect (docs/trace-format.md, OTF2) */
	struct otf2_attr {
		uint32_t ref;
		uint32_t name;      /* string ref */
		uint8_t type;       /* OTF2_Type */
	} *attrs;
	uint32_t n_attrs;
	/* OTF2 ref of each NETLOOM:: attribute with the expected type, or
	 * UINT32_MAX; only in netloom's own export (otf2_import.is_netloom). */
	uint32_t nl_attr[O2_ATTR__COUNT];
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
	/* One key per ref, sorted by ref, pointing at its first definition in
	 * comms, for otf2_comm_find's binary search; built by the import once
	 * the definitions are read (NULL before). */
	struct otf2_comm_key {
		uint64_t ref;
		uint32_t i;         /* index in comms */
	} *comm_keys;
	uint32_t n_comm_keys;
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
	bool is_netloom;        /* netloom's own export (TRACE_OTF2_PROP_EXPORT) */
	char *application;      /* ProgramBegin name, or NULL */
	uint64_t fatal;         /* dropped calls that change matching or completion */
	char fatal_what[160];   /* the first of them, for the error line */
};

#define OTF2_NO_REGION UINT32_MAX /* a macro: C11 enumerators must fit an int */

/* One rank's conversion (otf2_events.c): Score-P's ops go to the builder
 * as the rank is read, up to the first that may still change; EZTrace's
 * are kept whole until every rank is read (otf2_infer.c). */
struct o2_op {
	struct trace_op op;
	size_t reqs_off;      /* into o2_rank.reqv, when op.n_reqs > 0 */
	bool unresolved;      /* irecv still waiting for its MpiIrecv record */
	size_t wait_ix;       /* irecv (EZTrace): the wait op inferred to complete it, or SIZE_MAX */
};

struct o2_req {
	uint64_t id;          /* OTF2 request id */
	uint32_t nl;          /* netloom request id */
	size_t op_ix;         /* the creating op (irecv: to fill in) */
	bool is_irecv;
	uint64_t seq;         /* creation order (oldest first) */
};

struct o2_rank {
	struct otf2_import *im;
	uint32_t rank;
	bool failed;
	int rc;

	bool have_origin;
	uint64_t origin;      /* ticks: enter of the first MPI call */
	uint64_t last_ticks;
	uint64_t prev_end_ps;
	bool any_op;

	uint32_t depth;       /* MPI regions entered and not left */
	uint32_t call_region; /* outermost MPI region, OTF2_NO_REGION outside a call */
	uint64_t call_t0;     /* its enter time, ticks */
	size_t call_first;    /* index of its first op in ops */
	uint32_t new_comm;    /* CommCreate inside this call */
	/* netloom's export: the NETLOOM:: attributes of the call's Enter
	 * (probe and cancel fields, op flags) and the CPU time of the compute
	 * regions since the previous call. */
	bool call_probe;      /* PEER, TAG, COMM, BYTES and DONE all given */
	bool call_cancel;     /* REQUEST and DONE given */
	int32_t probe_peer, probe_tag;
	uint64_t probe_comm;  /* OTF2 comm ref */
	uint64_t probe_bytes;
	uint64_t cancel_req;  /* OTF2 request id */
	uint32_t call_done;   /* DONE: n_done */
	uint16_t call_flags;  /* TRACE_F_IN_PLACE, TRACE_F_NO_OUTCOME */
	uint64_t gap_cpu_ps;

	struct o2_op *ops;    /* the ops not yet written to the builder */
	size_t n_ops, cap_ops;
	size_t n_final;       /* ops[0 .. n_final) are final: no irecv among them waits for its sender */
	uint32_t *reqv;
	size_t n_reqv, cap_reqv;
	uint32_t *done, *tested;
	size_t n_done, n_tested, cap_done, cap_tested;

	struct o2_req *reqs;  /* in flight; op_ix SIZE_MAX once its op is written */
	size_t n_reqs, cap_reqs;
	uint32_t *free_ids;
	size_t n_free, cap_free;
	uint32_t next_id;
	uint64_t next_seq;
	size_t *pend;         /* irecv ops completed by the wait being built */
	size_t n_pend, cap_pend;
};

/* Name of a string ref, "" when unknown. */
const char *otf2_str(const struct otf2_defs *d, uint64_t ref);
/* Region by ref, or NULL. */
const struct otf2_region *otf2_region_find(const struct otf2_defs *d, uint32_t ref);
/* Communicator by OTF2 ref, or NULL. */
const struct otf2_comm *otf2_comm_find(const struct otf2_defs *d, uint64_t ref);

/* Count a call that is not converted (named on stderr after the import);
 * fatal when dropping it changes what matches or completes. */
int otf2_skip(struct otf2_import *im, const char *name, const char *why, bool fatal);

/* Read rank's location events (evt, an OTF2_EvtReader* opened by the
 * driver) into s (zeroed by the caller) as ops. */
struct OTF2_Reader_struct;
struct OTF2_EvtReader_struct;
int otf2_read_rank(struct otf2_import *im, struct OTF2_Reader_struct *reader, struct OTF2_EvtReader_struct *evt,
		   uint32_t rank, struct o2_rank *s);
/* Write s's ops to im->b and end the rank; refuses irecvs whose sender is
 * still unknown. */
int otf2_flush_rank(struct otf2_import *im, struct o2_rank *s);
void otf2_rank_release(struct o2_rank *s);
/* EZTrace: the sender, tag and size of every irecv from the sends
 * addressed to its rank (otf2_infer.c). */
int otf2_infer_irecvs(struct otf2_import *im, struct o2_rank *ranks, uint32_t n_ranks);

#endif
