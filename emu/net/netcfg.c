/* Configuration keys of the network, the router and the simulation.
 * Names and defaults are BookSim2's where the concept is the same, so a
 * BookSim config converts key for key (see docs/configuration.md). */
#include <stdbool.h>
#include <stddef.h>

#include "core/config.h"
#include "net/net.h"

static const char *const flow_control_names[] = {"wormhole", "vct", NULL};
static const char *const allocator_names[] = {"islip", "separable_input_first", "separable_output_first",
					      NULL};
static const char *const sim_type_names[] = {"latency", "throughput", NULL};
static const char *const visit_order_names[] = {"forward", "reverse", NULL};
static const char *const partitioner_names[] = {"ranges", "metis", NULL};
static const char *const lookahead_decide_names[] = {"arrival", "upstream", NULL};

#define K(st, f) offsetof(struct st, f)

static const struct param_def net_network_keys[] = {
	{"topology", PARAM_SPEC, K(net_cfg, topology), "torus:k=8x8", 0, 0,
	 "topology spec, e.g. torus:k=8x8x4 (see 'netloom topo list')", NULL},
	{"routing_function", PARAM_SPEC, K(net_cfg, routing_function), "dor", 0, 0,
	 "routing algorithm spec, e.g. dor, valiant, min:select=adaptive (see 'netloom run --help'); unset: the "
	 "topology family's, dor on tori, meshes and the cmesh, min elsewhere", NULL},
	{"channel_latency", PARAM_INT, K(net_cfg, channel_latency), "1", 1, 65535,
	 "cycles of a router-to-router channel (BookSim's folded torus: 2)", NULL},
	{"terminal_latency", PARAM_INT, K(net_cfg, terminal_latency), "0", 0, 65535,
	 "cycles of a router-endpoint channel; 0 = 1 (BookSim's injection and ejection channels)", NULL},
	{"local_latency", PARAM_INT, K(net_cfg, local_latency), "0", 0, 65535,
	 "cycles of a dragonfly intra-group channel; 0 = channel_latency (BookSim's dragonflynew: 10)", NULL},
	{"global_latency", PARAM_INT, K(net_cfg, global_latency), "0", 0, 65535,
	 "cycles of a dragonfly inter-group channel; 0 = channel_latency (BookSim's dragonflynew: 100)", NULL},
	{"noc_latency", PARAM_INT, K(net_cfg, noc_latency), "0", 0, 1,
	 "1 = flatfly/hyperx router channels xr * |dcolumn| + xr * |drow| cycles on BookSim's on-chip grid "
	 "(its use_noc_latency = 1); 0 = channel_latency",
	 NULL},
	{"cycle_ps", PARAM_INT, K(net_cfg, cycle_ps), "1000", 1, 1e9,
	 "network cycle period in picoseconds (1000 = 1 GHz)", NULL},
	{"flow_control", PARAM_CHOICE, K(net_cfg, flow_control), "wormhole", 0, 0,
	 "wormhole, or virtual cut-through (a head advances only when the whole packet fits)",
	 flow_control_names},
	{"flit_bytes", PARAM_INT, K(net_cfg, flit_bytes), "16", 1, 65536,
	 "bytes per flit, for messages cut into packets", NULL},
	{"packet_bytes", PARAM_INT, K(net_cfg, packet_bytes), "256", 1, 1 << 24,
	 "largest packet payload (MTU) in bytes, for messages cut into packets", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static const struct param_def net_router_keys[] = {
	{"num_vcs", PARAM_INT, K(router_cfg, num_vcs), "16", 1, 255, "virtual channels per port", NULL},
	{"vc_buf_size", PARAM_INT, K(router_cfg, vc_buf_size), "8", 1, 65535, "flits per VC buffer", NULL},
	{"routing_delay", PARAM_INT, K(router_cfg, routing_delay), "1", 0, 1000,
	 "cycles of route computation; 0 = BookSim's lookahead routing (route ready on arrival)",
	 NULL},
	{"lookahead_decide", PARAM_CHOICE, K(router_cfg, lookahead_decide), "arrival", 0, 0,
	 "with routing_delay = 0, when a head's route at a router is decided: arrival (as it arrives there) or "
	 "upstream (as it wins the switch of the router before, or is injected: BookSim's lookahead timing, "
	 "so adaptive choices read that router's credits earlier; any number of partitions, threads and MPI "
	 "ranks; not with voq = 1)",
	 lookahead_decide_names},
	{"vc_alloc_delay", PARAM_INT, K(router_cfg, vc_alloc_delay), "1", 1, 1000,
	 "cycles of VC allocation", NULL},
	{"sw_alloc_delay", PARAM_INT, K(router_cfg, sw_alloc_delay), "1", 1, 1000,
	 "cycles of switch allocation", NULL},
	{"st_prepare_delay", PARAM_INT, K(router_cfg, st_prepare_delay), "0", 0, 1000,
	 "cycles of switch traversal set-up", NULL},
	{"st_final_delay", PARAM_INT, K(router_cfg, st_final_delay), "1", 0, 1000,
	 "cycles of switch traversal", NULL},
	{"credit_delay", PARAM_INT, K(router_cfg, credit_delay), "0", 0, 1000,
	 "extra cycles to process a returned credit", NULL},
	{"internal_speedup", PARAM_DOUBLE, K(router_cfg, internal_speedup), "1.0", 1, 16,
	 "router pipeline steps per channel cycle", NULL},
	{"input_speedup", PARAM_INT, K(router_cfg, input_speedup), "1", 1, 16,
	 "crossbar inputs per input port (VCs interleaved)", NULL},
	{"output_speedup", PARAM_INT, K(router_cfg, output_speedup), "1", 1, 16,
	 "crossbar outputs per output port", NULL},
	{"vc_allocator", PARAM_CHOICE, K(router_cfg, vc_allocator), "islip", 0, 0, "VC allocator",
	 allocator_names},
	{"sw_allocator", PARAM_CHOICE, K(router_cfg, sw_allocator), "islip", 0, 0, "switch allocator",
	 allocator_names},
	{"alloc_iters", PARAM_INT, K(router_cfg, alloc_iters), "1", 1, 16, "iSLIP iterations", NULL},
	{"wait_for_tail_credit", PARAM_BOOL, K(router_cfg, wait_for_tail_credit), "0", 0, 0,
	 "reuse an output VC only after its tail flit's credit returns", NULL},
	{"pipelined_stages", PARAM_BOOL, K(router_cfg, pipelined_stages), "0", 0, 0,
	 "let a multi-cycle stage take a new item every cycle (0: BookSim's stages, where an item in a "
	 "multi-cycle stage blocks those behind it)", NULL},
	{"traffic_classes", PARAM_INT, K(router_cfg, traffic_classes), "1", 1, 255,
	 "traffic classes: every port's VCs split into this many equal contiguous ranges, one per class; a "
	 "packet keeps its class (chosen at injection by [traffic] traffic_class) and the routing function "
	 "runs over its class's num_vcs / traffic_classes VCs", NULL},
	{"hold_switch_for_packet", PARAM_BOOL, K(router_cfg, hold_switch_for_packet), "0", 0, 0,
	 "BookSim's: the crossbar connection a packet's flit was granted is kept for its next flits while "
	 "they have credits (released at the tail, when the VC runs empty or when a credit is missing)", NULL},
	{"voq", PARAM_BOOL, K(router_cfg, voq), "0", 0, 0,
	 "virtual output queues at the inputs (EXTOLL, seed 004): a front packet whose output VCs are all taken "
	 "steps behind the complete packets of its input VC, so packets to other outputs are not blocked "
	 "behind it; the upstream still sees one buffer per VC (docs/engine.md)", NULL},
	{"sequential_allocation", PARAM_BOOL, K(router_cfg, sequential_allocation), "0", 0, 0,
	 "adaptive route decisions at a router are made one after another, each seeing the flits routed there "
	 "before it and not yet sent as queued for their output port (Kim, Dally and Abts SC'06; the HyperX "
	 "paper's simulations use it, seed 001 section 4.1); 0: every decision reads only credits, as BookSim's",
	 NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static const struct param_def net_sim_keys[] = {
	{"sim_type", PARAM_CHOICE, K(sim_cfg, sim_type), "latency", 0, 0,
	 "latency: measure until converged and drain; throughput: accepted rate only", sim_type_names},
	{"seed", PARAM_INT, K(sim_cfg, seed), "0", 0, 0, "random seed: same seed, same results", NULL},
	{"warmup_periods", PARAM_INT, K(sim_cfg, warmup_periods), "3", 0, 1000,
	 "sample periods of warm-up (0 = until latency and throughput settle)", NULL},
	{"sample_period", PARAM_INT, K(sim_cfg, sample_period), "1000", 1, 1e9, "cycles per sample period",
	 NULL},
	{"max_samples", PARAM_INT, K(sim_cfg, max_samples), "10", 1, 1e6,
	 "sample periods at most (warm-up included)", NULL},
	{"latency_thres", PARAM_DOUBLE, K(sim_cfg, latency_thres), "500", 0, 1e12,
	 "mean latency (cycles, in-flight packets included) above which the point is unstable", NULL},
	{"warmup_thres", PARAM_DOUBLE, K(sim_cfg, warmup_thres), "0.05", 0, 1e6,
	 "relative latency change that ends warm-up (warmup_periods = 0)", NULL},
	{"acc_warmup_thres", PARAM_DOUBLE, K(sim_cfg, acc_warmup_thres), "0.05", 0, 1e6,
	 "relative accepted-rate change that ends warm-up (warmup_periods = 0)", NULL},
	{"stopping_thres", PARAM_DOUBLE, K(sim_cfg, stopping_thres), "0.05", 0, 1e6,
	 "relative latency change below which a sample counts as converged", NULL},
	{"acc_stopping_thres", PARAM_DOUBLE, K(sim_cfg, acc_stopping_thres), "0.05", 0, 1e6,
	 "relative accepted-rate change below which a sample counts as converged", NULL},
	{"watchdog_cycles", PARAM_INT, K(sim_cfg, watchdog_cycles), "0", 0, 1e12,
	 "local deadlock check: cycles a front flit may wait before the network is checked for a set of VCs "
	 "waiting on each other (0 = derived from the configuration; a deadlock is reported only when proven)",
	 NULL},
	{"check_interval", PARAM_INT, K(sim_cfg, check_interval), "-1", -1, 1e12,
	 "cycles between credit/flit conservation checks: 0 off, -1 every 1024 cycles in debug builds and off in release builds",
	 NULL},
	{"max_drain_cycles", PARAM_INT, K(sim_cfg, max_drain_cycles), "1000000", 0, 1e12,
	 "drain cycles at most before the point is reported unstable; 0 (sim_type = throughput only): no drain, "
	 "the run ends with its measurement and latency and hops count the packets retired by then",
	 NULL},
	{"visit_order", PARAM_CHOICE, K(sim_cfg, visit_order), "forward", 0, 0,
	 "order routers and endpoints are visited within a cycle; results must not depend on it "
	 "(a determinism check)", visit_order_names},
	{"partitions", PARAM_INT, K(sim_cfg, partitions), "0", 0, 4096,
	 "split the flit model into this many contiguous router ranges, each with its own pools, wheel and "
	 "active lists, exchanging boundary flits and credits every cycle (results are identical for any "
	 "value; raised to `threads` when below it). 0 = automatic: 8 per thread on several threads (at "
	 "most one per 64 routers), so traffic crowded into one router range still spreads over every "
	 "thread; from 2,048 routers on, one per 256 routers at least, on one thread too (a partition's "
	 "routers stay in the caches through its cycle); otherwise 1; under mpirun `threads` x ranks (threads = 0: one per 512 routers x ranks, whatever a node's processors)", NULL},
	{"partitioner", PARAM_CHOICE, K(sim_cfg, partitioner), "ranges", 0, 0,
	 "how routers are cut into partitions: ranges (contiguous router ranges balanced by routers and "
	 "endpoints) or metis (METIS k-way, fewest links between partitions, the same balance); results are "
	 "identical either way", partitioner_names},
	{"threads", PARAM_INT, K(sim_cfg, threads), "1", 0, 1024,
	 "threads running the flit model's partitions side by side, synchronised twice per cycle (a release and a join) "
	 "(0 = one per 512 routers, at most one per online processor; results are identical for any value); "
	 "with sweep --spread points without mpirun, the points run side by side instead (0 = one per online "
	 "processor), each network on one thread",
	 NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

const char *const net_sim_experiment_keys[] = {
	"sim_type",	"warmup_periods",     "sample_period",	"max_samples",	    "latency_thres",
	"warmup_thres", "acc_warmup_thres",   "stopping_thres", "acc_stopping_thres", "max_drain_cycles",
	NULL,
};

const struct config_table net_network_table = {
	"network", "the network: topology, routing, channels", net_network_keys, sizeof(struct net_cfg)};
const struct config_table net_router_table = {
	"router", "the input-queued VC router (BookSim2 names)", net_router_keys, sizeof(struct router_cfg)};
const struct config_table net_sim_table = {
	"simulation", "experiment phases, convergence, seed, safety", net_sim_keys, sizeof(struct sim_cfg)};
