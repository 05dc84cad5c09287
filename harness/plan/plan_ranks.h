/* Rank placement for a plan: the launcher's own mapper (Open MPI's, or
 * MPICH's Hydra, which has no dry mode and starts /bin/true ranks), run on
 * a node bindlab is not running on; Intel MPI's placement is modelled. mpirun reads the foreign topology from
 * HWLOC_XMLFILE (HWLOC_THISSYSTEM=1 makes it treat it as the local node),
 * gets one slot per rank on "localhost", and libbindlab_preload.so
 * (harness/preload/) answers its affinity queries as the foreign node would
 * and records, instead of applying, any binding. Nothing runs as a rank.
 *
 * Open MPI 4.x: `mpirun --do-not-launch` maps and binds exactly as for a
 * real launch, prints the job map with each rank's binding (the same text
 * and [B./..] map as --report-bindings) and launches nothing. Launching
 * /bin/true ranks under --report-bindings gives the same answer (see
 * bl_plan_ranks_launched) but costs a fork per rank, and Open MPI 4.1.4
 * sometimes never notices that 50+ fast-exiting ranks ended (mpirun waits
 * forever), so it is kept for cross-checks and for Open MPI 5. */
#ifndef BL_PLAN_RANKS_H
#define BL_PLAN_RANKS_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"
#include "layout/layout.h"
#include "plan/plan.h"

/* Seconds one mpirun may take before the plan fails. */
#define BL_PLAN_RANKS_TIMEOUT_S 60.0

/* The library's file name, and where bl_plan_ranks_preload_path looks. */
#define BL_PLAN_PRELOAD_NAME "libbindlab_preload.so"

/* Loads a topology the way `--topology` names it: an existing file is hwloc
 * XML; text that names no file and looks like no path (no '/', no ".xml")
 * is an hwloc synthetic description ("pack:2 numa:4 l3:2 core:8 pu:2").
 * The topology is loaded as if it were this machine's (THISSYSTEM), so
 * binding calls go to the preload library. -1 with err naming the input:
 * missing file, not hwloc XML, bad synthetic description. */
int bl_plan_topology_load(const char *spec, hwloc_topology_t *out,
                          bl_err *err);

/* The layout a plan request asks for (np, map_by, bind_to, rank_by as
 * the sweep file would set them) over nodes nodes (0: one). */
int bl_plan_request_layout(const bl_plan_request *req, int nodes,
                           bl_layout *l, bl_err *err);

/* Fills out->nranks, rank_pus (PU OS indexes), rank_bound and launcher
 * for req's np/map_by/bind_to/rank_by on topo (the topology req->topology
 * names, loaded with bl_plan_topology_load; req->topology NULL or "":
 * this machine, no HWLOC_XMLFILE). preload_path: the preload library, or
 * NULL to run mpirun without it (then mpirun sees its real affinity).
 * When Open MPI refuses the layout, out->refusal holds its message without
 * banners and boilerplate, out->nranks is 0 and 0 is returned. Returns -1
 * with err on bad input or when mpirun cannot be run or answers nothing
 * readable. The OpenMP fields of out are left alone. Over several nodes
 * the launcher may be asked node by node (bl_plan_ranks_alike; these two
 * entry points are in plan_ranks_each.c). The launcher gets the command
 * bindlab sweep would run, in plan mode (launcher/launcher.h). */
int bl_plan_ranks(const bl_plan_request *req, hwloc_topology_t topo,
                  const char *preload_path, bl_plan *out, bl_err *err);

/* Intel MPI's placement, modelled (Intel MPI pins inside MPI_Init from its
 * own CPU detection and ignores HWLOC_XMLFILE, so it cannot be asked about
 * another node): l translated for Intel MPI (bl_layout_translate_for), each
 * rank given the next pinning domain of I_MPI_PIN_DOMAIN in the order of
 * I_MPI_PIN_ORDER, wrapping around when there are more ranks than domains
 * (plan_ranks_impi.c says how each is modelled). Fills out's ranks,
 * launcher and how (modelled = 1). */
int bl_plan_ranks_impi_model(const bl_layout *l, hwloc_topology_t topo,
                             const bl_launcher_info *li, bl_plan *out,
                             bl_err *err);

/* The same answer from a launch: mpirun --report-bindings starts /bin/true
 * as each rank with the preload library (required here), which records the
 * binding and hands it back to Open MPI's report. Ranks that print no line
 * (--bind-to none: Open MPI 4 leaves that report to MPI_Init) are unbound.
 * Slow for many ranks; see the top of this file. */
int bl_plan_ranks_launched(const bl_plan_request *req, hwloc_topology_t topo,
                           const char *preload_path, bl_plan *out,
                           bl_err *err);

/* Where the preload library is: $BINDLAB_PRELOAD when set, else
 * BL_PLAN_PRELOAD_NAME in the directory of the running executable
 * (/proc/self/exe), else in ../lib/bindlab/ from there (an installed
 * tree). -1 with err listing the places tried. */
int bl_plan_ranks_preload_path(char *buf, size_t len, bl_err *err);

/* Open MPI's refusal text without dashed banners, blank lines and
 * --do-not-launch noise, lines joined by '\n', cut at a line end to fit
 * len. For tests and for bl_plan_ranks. */
void bl_plan_ranks_trim_refusal(const char *text, char *buf, size_t len);

/* Turns Open MPI 4's job map lines ("Process OMPI jobid: [J,1] App: 0
 * Process rank: R Bound: TEXT:[map]" or "Bound: N/A") into
 * --report-bindings lines ("MCW rank R bound to TEXT: [map]", "... is not
 * bound ..."). Returns a malloc'ed string (NULL when out of memory) and
 * the number of ranks found in *nranks. */
char *bl_plan_ranks_map_to_report(const char *text, int *nranks);

/* --- several nodes (plan_ranks_nodes.c) ------------------------------ */

/* The made-up host names of a plan of several nodes: plan-node1, ... */
#define BL_PLAN_HOST "plan-node"

/* "plan-node1:C,plan-node2:C,...": nodes hosts of C slots, C the cores of
 * topo (its PUs when it has no cores), as bindlab sweep gives each node of
 * an allocation. -1 when it does not fit in len. */
int bl_plan_ranks_hosts(hwloc_topology_t topo, int nodes, char *buf,
                        size_t len);

/* The node (0-based) of each of np ranks, from Open MPI 4's (--do-not-
 * launch) or Open MPI 5's (--display map) job map of those hosts: each
 * "Data for node: plan-nodeK" line starts node K's ranks. -1 with err
 * when a rank is on none of them. */
int bl_plan_ranks_nodes_read(const char *text, int nodes, int np,
                             int *rank_node, bl_err *err);

/* MPICH's Hydra over the made-up hosts (-launcher fork -l, each rank
 * running env): each rank's node from its "[R] PMI_HOSTNAME=plan-nodeK"
 * line, and the report "process R binding: MASK" made from the proxies'
 * "[R] process L binding: MASK" lines (L: the rank's index on its node).
 * Returns the report (malloc'ed), or NULL with err when a rank has no
 * node. */
char *bl_plan_ranks_hydra_nodes(const char *text, int nodes, int np,
                                int *rank_node, bl_err *err);

/* Intel MPI's placement over nodes, modelled: bl_plan_ranks_impi_model's
 * domains by each rank's index on its node, the nodes by Hydra's -ppn
 * (l->ppn_launcher, from bl_layout_translate_for with l->nodes): block b
 * of ppn ranks on node b mod nodes. Fills out->rank_node too. */
int bl_plan_ranks_impi_nodes(const bl_layout *l, hwloc_topology_t topo,
                             const bl_launcher_info *li, int nodes,
                             bl_plan *out, bl_err *err);

/* --- nodes of different shapes (plan_ranks_each.c) ------------------- */

/* One node of a plan over nodes of different shapes. */
typedef struct bl_plan_node {
    const char *host;           /* its name (a --node-topologies host) */
    const char *xml;            /* its hwloc XML file */
    hwloc_topology_t topo;      /* loaded with bl_plan_topology_load */
} bl_plan_node;

/* req over nodes[0..n-1] (n >= 2), each of its own shape. Which ranks go
 * to which node is modelled by bindlab from each node's counts, as Open
 * MPI maps onto hosts given one slot per core (bl_layout_node_ranks):
 * ppr:K:node K each in turn, ranks 0..K-1 on the first; map_by node round
 * robin, rank r on node r mod n; any other mapping fills each node's
 * capacity (bl_layout_node_capacity) in turn with consecutive ranks. Then
 * each node's share is placed by the launcher's own mapper (bl_plan_ranks
 * with that node's XML and -np its share), and its local rank i is the
 * node's i-th rank. Open MPI only. Fills out's ranks, rank_node, nnodes,
 * launcher, how and split. A layout a node cannot take is a refusal
 * naming the node (out->refusal, 0 returned), as is np more than the
 * nodes hold or ppr:K:node with np over K x n. -1 with err otherwise. */
int bl_plan_ranks_each(const bl_plan_request *req, const bl_plan_node *nodes,
                       int n, const char *preload_path, bl_plan *out,
                       bl_err *err);

/* req over req->nodes nodes of topology topo, planned node by node as
 * bl_plan_ranks_each does (made-up hosts BL_PLAN_HOST1, 2, ...) with
 * launcher li (program). Why: Open MPI 4.1's --do-not-launch map of a
 * whole job gives every made-up host mpirun's one topology object, and
 * its binding counts carry from one node to the next (--map-by node
 * --bind-to numa with 3 ranks a node starts node 2 at NUMA node 1), while
 * a real launch binds each node alone. 0 planned (or refused by the
 * launcher on a node: out->refusal), 1 when node by node does not model
 * the layout (out left empty: plan the whole job), -1 with err. */
int bl_plan_ranks_alike(const bl_plan_request *req, hwloc_topology_t topo,
                        const bl_launcher_info *li, const char *program,
                        const char *preload_path, bl_plan *out, bl_err *err);

#endif
