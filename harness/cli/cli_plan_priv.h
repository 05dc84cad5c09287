/* Shared by the cli_plan*.c files only: the command line of bindlab plan
 * as read (cli_plan.c), planned and shown layout by layout
 * (cli_plan_layout.c), or for a whole sweep file (cli_plan_sweep.c). */
#ifndef BL_CLI_PLAN_PRIV_H
#define BL_CLI_PLAN_PRIV_H
#ifndef BL_ROOM_CLI
#error "cli/cli_plan_priv.h is internal to harness/cli/"
#endif

#include <limits.h>

#include "gpu_assign.h"
#include "launcher/launcher_choice.h"
#include "layout/layout.h"
#include "plan/plan.h"
#include "plan/plan_ranks.h"
#include "plan/plan_ranks_cache.h"
#include "sweep/sweep_file.h"
#include "topo.h"

#define VERB "plan"

typedef struct bl_plan_cli {
    const char *sweep;
    const char *launcher;   /* --launcher, else the sweep file's */
    const char *mpirun;     /* --mpirun PATH */
    bl_launcher_info li;    /* what the chosen launcher answered */
    char program[PATH_MAX];
    int have_launcher;
    const char *topology;
    const char *picture;
    int tsv;
    int width;
    bl_layout layout;       /* the layout of the command line */
    int omp_runtime;        /* bl_omp_runtime of --omp-runtime */
    const char *kmp_affinity; /* --kmp-affinity (libomp, intel) */
    const char *kmp_hw_subset; /* --kmp-hw-subset (libomp, intel) */
    int have_np;
    int node_column;        /* TSV: a node column (plans of several nodes) */
    int all_nodes;          /* --all-nodes: every node's block, unfolded */
    const char *node_dir;   /* --node-topologies DIR */
    char **hosts;           /* its hosts, in name order */
    int nhosts;
    bl_plan_node *nodes;    /* [nhosts]: each host's XML and topology */
    /* the rank plans of a sweep's layouts, made before the layouts are
     * shown (NULL: each layout plans its ranks itself) */
    const bl_plan_ranks_cache *rank_cache;
    /* --cpuset LIST / --allocation: the node cut to the CPUs the job may
     * use, written to allowed_xml for the launcher's mapper; "" none */
    const char *cpuset;
    int allocation;
    char allowed[600];      /* the set and its sources, in words */
    char allowed_xml[PATH_MAX];
    const char *topology_given; /* --topology as given (topology is then
                                   allowed_xml) */
    bl_gpu_bind gpu_bind;   /* --gpu-bind (closest when only
                               --gpus-per-rank is given) */
    int gpu_bind_given;
    int gpus_per_rank;      /* --gpus-per-rank (1 when only --gpu-bind is
                               given) */
} bl_plan_cli;

/* --cpuset / --allocation: *topo cut to the allowed CPUs (the node as a
 * cgroup cpuset shows it to the launcher), exported to o->allowed_xml,
 * which becomes o->topology. 0, or -1 with err. */
int bl_plan_cli_allowed(bl_plan_cli *o, hwloc_topology_t *topo, bl_err *err);

/* Removes o->allowed_xml. */
void bl_plan_cli_allowed_done(bl_plan_cli *o);

/* When l needs more CPUs than the allowed set: says so (text: stdout,
 * TSV: stderr) and returns 1; else 0. */
int bl_plan_cli_allowed_fit(const bl_plan_cli *o, hwloc_topology_t topo,
                            const bl_layout *l, const char *run_id);

/* Bad input (2) outranks a run-time failure (1) in the exit status. */
int bl_plan_cli_worst(int a, int b);

/* The nodes a layout is planned on: its own nodes:, else --nodes. */
int bl_plan_cli_nodes_of(const bl_plan_cli *o, const bl_layout *l);

/* What the planner is asked for layout l. */
bl_plan_request bl_plan_cli_request_of(const bl_plan_cli *o,
                                       const bl_layout *l);

/* "node: ..." (or the nodes of --node-topologies) and their counts. */
void bl_plan_cli_print_node(const bl_plan_cli *o, hwloc_topology_t topo);

/* Plans and prints one layout (run_id: the sweep's run, or NULL; first: the
 * first shown, which prints the TSV header); returns its exit status. */
int bl_plan_cli_show_layout(const bl_plan_cli *o, hwloc_topology_t topo,
                            const bl_layout *l, const char *run_id,
                            int first);

/* How one node's part of a plan is shown. */
typedef struct bl_plan_cli_part {
    int node;           /* 1-based in a plan of several nodes (its rows
                         * are written by bl_plan_cli_show_nodes), 0: a
                         * plan of one node */
    const char *where;  /* "node 2", "nodes 1-10000": what its warnings are
                         * about, or NULL */
    int header;         /* TSV of one node: print the header */
    int ranks_only;     /* text: the table with a row per rank (a folded
                         * share: its threads are in the map) */
} bl_plan_cli_part;

/* The table (TSV of one node), map, warnings and picture of a plan or of
 * one node's part; returns an exit status class. */
int bl_plan_cli_show_part(const bl_plan_cli *o, hwloc_topology_t topo,
                          const bl_plan *plan, const char *run_id,
                          const char *what, const bl_plan_cli_part *pt);

/* A plan of several nodes: one block per share of alike nodes (every node
 * with o->all_nodes, or nodes of different shapes); TSV: every row,
 * streamed. Returns an exit status class. */
int bl_plan_cli_show_nodes(const bl_plan_cli *o, hwloc_topology_t topo,
                           const bl_plan *plan, const char *run_id,
                           const char *what, int first);

/* The launcher whose mapper answers (s: the sweep file, or NULL). Returns
 * -1 to go on, or an exit status. */
int bl_plan_cli_choose_launcher(bl_plan_cli *o, const bl_sweep *s);

/* Every layout of the sweep file o->sweep; returns an exit status. */
int bl_plan_cli_sweep(bl_plan_cli *o, hwloc_topology_t topo);

#endif
