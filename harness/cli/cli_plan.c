/* bindlab plan: where a layout's ranks and threads would run on a node,
 * from Open MPI's own mapper and the OpenMP places model, without running
 * anything on that node. This file reads the command line; a layout is
 * planned and shown by cli_plan_layout.c, a sweep file by cli_plan_sweep.c. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/cli_plan_priv.h"
#include "cli/cli_util.h"
#include "layout/node_topos.h"
#include "plan/plan_kmp.h"
#include "plan/plan_omp.h"
#include "plan/plan_picture.h"
#include "same_file.h"

static const char help[] =
    "usage: bindlab plan [--topology FILE.xml|SYNTH] -np N [--nodes N]\n"
    "                    [--node-topologies DIR]\n"
    "                    [--map-by M]\n"
    "                    [--bind-to B] [--rank-by R] [--threads T|fill]\n"
    "                    [--omp-places P] [--omp-proc-bind B]\n"
    "                    [--omp-runtime libgomp|libomp|intel]\n"
    "                    [--kmp-affinity K] [--kmp-hw-subset S]\n"
    "                    [--format text|tsv] [--width COLUMNS] [--all-nodes]\n"
    "                    [--picture FILE.png|FILE.svg|FILE.pdf]\n"
    "                    [--cpuset LIST | --allocation]\n"
    "       bindlab plan SWEEP.yaml [--topology FILE.xml|SYNTH] [output options]\n"
    "\n"
    "Shows where every rank and OpenMP thread of a layout would run on a\n"
    "node, without running on that node: plan a cluster node from a laptop.\n"
    "\n"
    "Ranks are placed by the launcher itself where it can be asked: it maps\n"
    "and binds on the given topology (HWLOC_XMLFILE, HWLOC_THISSYSTEM=1)\n"
    "with an LD_PRELOAD library that records bindings instead of applying\n"
    "them, so the answer is the one it would give on the real node. Open\n"
    "MPI 4 and 5 map with --do-not-launch (5: --display map) and start\n"
    "nothing; MPICH's Hydra has no dry mode and starts /bin/true as each\n"
    "rank. Intel MPI cannot be asked (it pins from its own CPU detection):\n"
    "its I_MPI_PIN_DOMAIN placement is modelled by bindlab, and the plan\n"
    "says so. Threads are placed inside each rank's binding by a model of\n"
    "OMP_PLACES and OMP_PROC_BIND (libgomp's rules unless --omp-runtime).\n"
    "\n"
    "Node:\n"
    "  --topology FILE.xml   an hwloc XML file ('lstopo --of xml FILE' on the\n"
    "                        node; configs/topologies/ ships EPYC and Xeon\n"
    "                        nodes)\n"
    "  --topology SYNTH      an hwloc synthetic description, e.g.\n"
    "                        \"pack:2 numa:4 l3:2 core:8 pu:2\"\n"
    "                        (default: this machine)\n"
    "  --node-topologies DIR nodes of different shapes: DIR/HOST.xml per\n"
    "                        node, or a bindlab slurm job's record\n"
    "                        (nodes/HOST/lstopo.xml); the nodes in name\n"
    "                        order (bl2 before bl10); --nodes N takes the\n"
    "                        first N (default: all). Which ranks go to which\n"
    "                        node is modelled by bindlab, each node's share\n"
    "                        is placed by Open MPI's mapper on that node's\n"
    "                        topology; the plan says so\n"
    "Launcher (as bindlab sweep; default: the mpirun in PATH):\n"
    "  --launcher L          openmpi, ompi4, ompi5, mpich, impi, mpirun, or\n"
    "                        a launcher's path; a sweep file's launcher:\n"
    "                        is used when this is not given\n"
    "  --mpirun PATH         the launcher program (checked against L)\n"
    "\n"
    "Layout (Open MPI's option names and values; defaults as in sweep\n"
    "files):\n"
    "  -np N                 ranks (required without a sweep file)\n"
    "  --map-by M            core (default), l3cache, numa, package (or\n"
    "                        socket), hwthread, node, slot, ppr:N:RESOURCE,\n"
    "                        with :PE=n, :span, :oversubscribe\n"
    "  --bind-to B           core (default), hwthread, l3cache, numa,\n"
    "                        package, none\n"
    "  --rank-by R           as Open MPI's --rank-by\n"
    "  --threads T|fill      OpenMP threads per rank (default 1); fill: one\n"
    "                        per PU of the rank's binding\n"
    "  --omp-places P        OMP_PLACES: threads, cores, ll_caches,\n"
    "                        numa_domains, sockets (optionally (n)), or a\n"
    "                        place list such as {0:4},{4:4}; default unset\n"
    "  --omp-proc-bind B     OMP_PROC_BIND: close, spread, primary (master),\n"
    "                        true, false; default unset\n"
    "  --nodes N             spread the ranks over N nodes of this topology\n"
    "                        (or the first N of --node-topologies)\n"
    "                        (one slot per core each, as bindlab sweep in\n"
    "                        an allocation); shown node by node; a sweep\n"
    "                        layout's nodes: wins\n"
    "\n"
    "A sweep file (docs/sweep-files.md) plans every layout it defines, in run\n"
    "id order; layouts that differ only in kernel, size or init are planned\n"
    "once and the others point to the first.\n"
    "\n";

/* In parts: ISO C compilers need only take 4095 characters at once. */
static const char help_runtime[] =
    "OpenMP runtime:\n"
    "  --omp-runtime R       whose rules place the threads: libgomp (GCC,\n"
    "                        default), libomp (LLVM) or intel; libomp and\n"
    "                        intel are modelled by bindlab, which cannot ask\n"
    "                        them (docs/openmp-model.md)\n"
    "  --kmp-affinity K      KMP_AFFINITY for libomp and intel, e.g.\n"
    "                        compact, scatter,granularity=fine, balanced;\n"
    "                        a type overrides OMP_PLACES and OMP_PROC_BIND\n"
    "  --kmp-hw-subset S     KMP_HW_SUBSET for libomp and intel: the part of\n"
    "                        each rank's CPUs the runtime keeps before any\n"
    "                        binding, e.g. 1c, 2c@1, 1s,2c,1t (sockets, cores\n"
    "                        per socket, threads per core, counted among the\n"
    "                        rank's CPUs; @N skips N); libgomp ignores it\n"
    "\n";

static const char help_allocation[] =
    "Inside an allocation:\n"
    "  --cpuset LIST         plan inside an allocation of these CPUs (OS\n"
    "                        indexes, as taskset -c takes them): the node is\n"
    "                        cut to them as a cgroup cpuset shows it, the\n"
    "                        launcher's mapper is asked on that node (its\n"
    "                        affinity the set), Intel MPI's model deals its\n"
    "                        domains from it, and a layout needing more CPUs\n"
    "                        than the set holds is said not to fit\n"
    "  --allocation          the same with the CPUs this process may use\n"
    "                        (its affinity within its cgroup cpuset, as\n"
    "                        bindlab check prints them)\n"
    "\n";

static const char help_gpus[] =
    "GPUs (docs/devices.md):\n"
    "  --gpus-per-rank N     GPUs each rank is given (default 1 with\n"
    "                        --gpu-bind)\n"
    "  --gpu-bind B          closest (default with --gpus-per-rank): the\n"
    "                        GPUs local to the rank's binding, dealt by\n"
    "                        local rank; round-robin: local rank r gets\n"
    "                        GPU r mod n; none: every rank sees every GPU\n"
    "The text output lists the GPUs and network cards with the ranks near\n"
    "each and the ranks given each; TSV adds columns gpus, near_gpus and\n"
    "near_nics (PCI bus ids) when the node has devices.\n"
    "\n";

static const char help_output[] =
    "Output:\n"
    "  --format text         (default) the table, the node map, warnings\n"
    "  --format tsv          tab-separated columns rank thread pus core l3\n"
    "                        numa package, one line per rank.thread after a\n"
    "                        header line (a sweep file adds a first column\n"
    "                        run_id); warnings go to standard error\n"
    "  --width COLUMNS       width of the node map (default 80; 132 fits two\n"
    "                        L3 domains per line on an EPYC)\n"
    "  --all-nodes           text over several nodes: a block (table with a\n"
    "                        row per thread, map, warnings) for every node;\n"
    "                        without it, nodes placed alike share one block\n"
    "                        (\"nodes 1-10000\", a row per rank). TSV always\n"
    "                        has every row of every node\n"
    "  --picture FILE        draw the plan with hwloc's lstopo: every core\n"
    "                        or PU labelled with its rank.thread and coloured\n"
    "                        by rank; the format follows the extension (.png,\n"
    "                        .svg, .pdf); a sweep file writes FILE-rNNNN.EXT\n"
    "                        per planned layout\n"
    "\n"
    "The table lists, per rank.thread, its OpenMP place number ('-' when\n"
    "OpenMP does not bind it), its PUs as OS indexes (as Linux, taskset and\n"
    "Slurm number CPUs), and the hwloc logical indexes of the cores, L3\n"
    "caches, NUMA nodes and packages those PUs belong to ('-' when the node\n"
    "has no such level). In the map, each core shows who runs there:\n"
    "  r.t   thread t of rank r pinned to the core; r.t+n: n more share it\n"
    "  r.t~  a thread bound to a place wider than one core\n"
    "  r.*   rank r's threads are not bound and float over its binding\n"
    "  .     an idle core\n"
    "\n"
    "Warnings name idle cores, threads sharing a core (SMT) or a PU, ranks\n"
    "with more threads than PUs, unbound ranks, ranks spanning NUMA nodes\n"
    "or packages, ranks spread unevenly over packages or NUMA nodes, and L3\n"
    "domains shared by ranks.\n"
    "\n"
    "Environment: BINDLAB_PRELOAD overrides the path of the preload library\n"
    "(libbindlab_preload.so, found beside the bindlab executable or in\n"
    "../lib/bindlab/ from it).\n"
    "\n"
    "Exit status: 0 planned; 1 a failure at run time (mpirun or lstopo could\n"
    "not run); 2 bad usage, an unreadable topology or sweep file, an unknown\n"
    "value, or a layout Open MPI refuses on that node (its message is shown).\n";

/* The option hooks: each checks its value; 0 to go on, -1 with err. */
static int set_layout(void *opts, bl_field field, const char *v, bl_err *err)
{
    bl_plan_cli *o = opts;
    if (bl_layout_set(&o->layout, field, v, err) < 0)
        return -1;
    o->have_np |= field == BL_F_NP;
    return 0;
}

/* One hook per layout field: the option's own name for bl_layout_set. */
#define LAYOUT_HOOK(fn, field)                                               \
    static int fn(void *opts, const char *v, bl_err *err)                    \
    {                                                                        \
        return set_layout(opts, field, v, err);                              \
    }
LAYOUT_HOOK(set_np, BL_F_NP)
LAYOUT_HOOK(set_map_by, BL_F_MAP_BY)
LAYOUT_HOOK(set_bind_to, BL_F_BIND_TO)
LAYOUT_HOOK(set_rank_by, BL_F_RANK_BY)
LAYOUT_HOOK(set_threads, BL_F_THREADS)
LAYOUT_HOOK(set_omp_places, BL_F_OMP_PLACES)
LAYOUT_HOOK(set_omp_proc_bind, BL_F_OMP_PROC_BIND)
LAYOUT_HOOK(set_nodes, BL_F_NODES)

static int set_omp_runtime(void *opts, const char *v, bl_err *err)
{
    bl_omp_runtime rt;
    if (bl_omp_runtime_parse(v, &rt, err) < 0)
        return -1;
    ((bl_plan_cli *)opts)->omp_runtime = (int)rt;
    return 0;
}

static int set_kmp_affinity(void *opts, const char *v, bl_err *err)
{
    bl_kmp_affinity k;
    if (bl_kmp_affinity_parse(v, &k, err) < 0)
        return -1;
    ((bl_plan_cli *)opts)->kmp_affinity = v;
    return 0;
}

static int set_kmp_hw_subset(void *opts, const char *v, bl_err *err)
{
    bl_kmp_hw_subset h;
    if (bl_kmp_hw_subset_parse(v, &h, err) < 0)
        return -1;
    ((bl_plan_cli *)opts)->kmp_hw_subset = v;
    return 0;
}

static int set_format(void *opts, const char *v, bl_err *err)
{
    if (strcmp(v, "text") && strcmp(v, "tsv"))
        return bl_err_set(err, "--format '%s': accepted: text, tsv", v);
    ((bl_plan_cli *)opts)->tsv = strcmp(v, "tsv") == 0;
    return 0;
}

static int set_width(void *opts, const char *v, bl_err *err)
{
    char *end;
    long w = strtol(v, &end, 10);
    if (*end || w < 40 || w > 1000)
        return bl_err_set(err, "--width '%s': accepted: 40 to 1000 columns",
                          v);
    ((bl_plan_cli *)opts)->width = (int)w;
    return 0;
}

static int set_gpu_bind(void *opts, const char *v, bl_err *err)
{
    bl_plan_cli *o = opts;
    if (bl_gpu_bind_parse(v, &o->gpu_bind, err) < 0)
        return -1;
    o->gpu_bind_given = 1;
    return 0;
}

static int set_gpus_per_rank(void *opts, const char *v, bl_err *err)
{
    bl_plan_cli *o = opts;
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 1 || n > 1024)
        return bl_err_set(err, "--gpus-per-rank '%s': accepted: 1 to 1024",
                          v);
    o->gpus_per_rank = (int)n;
    return 0;
}

#define SLOT(field) offsetof(bl_plan_cli, field)
#define NONE BL_OPT_NO_SLOT
static const bl_cli_opt plan_options[] = {
    {"--topology", BL_OPT_VALUE, "FILE.xml|SYNTH", "the node planned",
     SLOT(topology), NULL, NULL},
    {"--node-topologies", BL_OPT_VALUE, "DIR", "nodes of different shapes",
     SLOT(node_dir), NULL, NULL},
    {"--launcher", BL_OPT_VALUE, "L", "the launcher whose mapper answers",
     SLOT(launcher), bl_cli_launcher_check, NULL},
    {"--mpirun", BL_OPT_VALUE, "PATH", "the launcher program", SLOT(mpirun),
     NULL, NULL},
    {"-np, --np, -n", BL_OPT_VALUE, "N", "ranks", NONE, set_np, NULL},
    {"--map-by", BL_OPT_VALUE, "M", "as Open MPI's --map-by", NONE,
     set_map_by, NULL},
    {"--bind-to", BL_OPT_VALUE, "B", "as Open MPI's --bind-to", NONE,
     set_bind_to, NULL},
    {"--rank-by", BL_OPT_VALUE, "R", "as Open MPI's --rank-by", NONE,
     set_rank_by, NULL},
    {"--threads", BL_OPT_VALUE, "T|fill", "OpenMP threads per rank", NONE,
     set_threads, NULL},
    {"--omp-places", BL_OPT_VALUE, "P", "OMP_PLACES", NONE, set_omp_places,
     NULL},
    {"--omp-proc-bind", BL_OPT_VALUE, "B", "OMP_PROC_BIND", NONE,
     set_omp_proc_bind, NULL},
    {"--omp-runtime", BL_OPT_VALUE, "R", "libgomp, libomp or intel: whose "
     "places rules", NONE, set_omp_runtime, NULL},
    {"--kmp-affinity", BL_OPT_VALUE, "K", "KMP_AFFINITY (libomp, intel)",
     NONE, set_kmp_affinity, NULL},
    {"--kmp-hw-subset", BL_OPT_VALUE, "S", "KMP_HW_SUBSET (libomp, intel)",
     NONE, set_kmp_hw_subset, NULL},
    {"--nodes", BL_OPT_VALUE, "N", "spread the ranks over N nodes", NONE,
     set_nodes, NULL},
    {"--gpus-per-rank", BL_OPT_VALUE, "N", "GPUs each rank is given", NONE,
     set_gpus_per_rank, NULL},
    {"--gpu-bind", BL_OPT_VALUE, "closest|round-robin|none",
     "how GPUs are dealt to ranks", NONE, set_gpu_bind, NULL},
    {"--format", BL_OPT_VALUE, "text|tsv", "the table, map and warnings, or "
     "TSV", NONE, set_format, NULL},
    {"--width", BL_OPT_VALUE, "COLUMNS", "width of the node map", NONE,
     set_width, NULL},
    {"--all-nodes", BL_OPT_FLAG, NULL, "a block for every node, unfolded",
     SLOT(all_nodes), NULL, NULL},
    {"--picture", BL_OPT_VALUE, "FILE", "draw the plan with lstopo",
     SLOT(picture), NULL, NULL},
    {"--cpuset", BL_OPT_VALUE, "LIST", "plan inside these CPUs",
     SLOT(cpuset), NULL, NULL},
    {"--allocation", BL_OPT_FLAG, NULL, "plan inside this process's CPUs",
     SLOT(allocation), NULL, NULL},
};

static const char *const help_parts[] = {help, help_runtime, help_allocation,
                                         help_gpus, help_output, NULL};

static const bl_cli_spec spec = {
    .verb = VERB, .help = help_parts, .opts = plan_options,
    .nopts = BL_CLI_NOPTS(plan_options), .word_slot = SLOT(sweep),
    .one_word = "one sweep file only (got a second: '%.200s')"};

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, bl_plan_cli *o)
{
    int rc;
    memset(o, 0, sizeof *o);
    o->width = 80;
    bl_layout_defaults(&o->layout);
    if ((rc = bl_cli_parse(&spec, argc, argv, o)) >= 0)
        return rc;
    if (!o->sweep && !o->have_np)
        return bl_cli_usage_error(VERB, "give -np N (and the layout), or a "
                                  "sweep file");
    if (o->node_dir && o->topology)
        return bl_cli_usage_error(VERB, "--topology and --node-topologies: "
                                  "give one (--node-topologies names every "
                                  "node's own)");
    if (o->cpuset && o->allocation)
        return bl_cli_usage_error(VERB, "--cpuset and --allocation: give "
                                  "one");
    if ((o->cpuset || o->allocation) && o->node_dir)
        return bl_cli_usage_error(VERB, "--cpuset/--allocation and "
                                  "--node-topologies: the allowed set is "
                                  "one node's; give one");
    /* either GPU option alone implies the other's usual value */
    if (o->gpus_per_rank && !o->gpu_bind_given)
        o->gpu_bind = BL_GPU_BIND_CLOSEST;
    if (o->gpu_bind != BL_GPU_BIND_NONE && !o->gpus_per_rank)
        o->gpus_per_rank = 1;
    if (o->picture && !bl_plan_picture_format(o->picture))
        return bl_cli_usage_error(VERB, "--picture '%.200s': the name must "
                                  "end in .png, .svg or .pdf", o->picture);
    if (o->picture) {
        const char *inputs[] = {o->sweep, o->topology};
        bl_err err;
        if (bl_check_output_not_input(o->picture, inputs, 2, &err) < 0) {
            fprintf(stderr, "bindlab plan: --picture %s\n", err.msg);
            return BL_EXIT_USAGE;
        }
    }
    return -1;
}

/* --node-topologies DIR: every host's XML loaded (o->nodes); node 1's
 * stands for a layout of one node. -1 with err. */
static int load_nodes(bl_plan_cli *o, bl_err *err)
{
    if (bl_node_topos_hosts(o->node_dir, &o->hosts, &o->nhosts, err) < 0)
        return -1;
    if (!(o->nodes = calloc((size_t)o->nhosts, sizeof *o->nodes)))
        return bl_err_set(err, "out of memory");
    for (int k = 0; k < o->nhosts; k++) {
        char path[PATH_MAX], *xml;
        if (bl_node_topos_path(o->node_dir, o->hosts[k], path,
                               sizeof path) < 0 ||
            !(xml = strdup(path)))
            return bl_err_set(err, "--node-topologies %s: node %s: no "
                              "readable XML", o->node_dir, o->hosts[k]);
        o->nodes[k].host = o->hosts[k];
        o->nodes[k].xml = xml;
        if (bl_plan_topology_load(xml, &o->nodes[k].topo, err) < 0)
            return bl_err_prefix(err, "--node-topologies: node %s",
                                 o->hosts[k]);
    }
    o->topology = o->nodes[0].xml;
    /* without --nodes, a layout of the command line spans them all */
    if (!o->sweep && o->layout.nodes == 0)
        o->layout.nodes = o->nhosts;
    return 0;
}

static void free_nodes(bl_plan_cli *o)
{
    for (int k = 0; o->nodes && k < o->nhosts; k++) {
        free((char *)o->nodes[k].xml);
        if (o->nodes[k].topo)
            hwloc_topology_destroy(o->nodes[k].topo);
    }
    free(o->nodes);
    bl_node_topos_hosts_free(o->hosts, o->nhosts);
}

int bl_cli_plan(int argc, char **argv)
{
    bl_plan_cli o;
    hwloc_topology_t topo;
    bl_err err;
    int rc = parse_args(argc, argv, &o);

    if (rc >= 0)
        return rc;
    if (o.node_dir && load_nodes(&o, &err) < 0) {
        fprintf(stderr, "bindlab plan: %s\n", err.msg);
        free_nodes(&o);
        return BL_EXIT_USAGE;
    }
    if (o.nodes)
        topo = o.nodes[0].topo;
    else if (bl_plan_topology_load(o.topology, &topo, &err) < 0) {
        fprintf(stderr, "bindlab plan: %s\n", err.msg);
        return BL_EXIT_USAGE;
    }
    if ((o.cpuset || o.allocation) &&
        bl_plan_cli_allowed(&o, &topo, &err) < 0) {
        fprintf(stderr, "bindlab plan: %s\n", err.msg);
        bl_plan_cli_allowed_done(&o);
        hwloc_topology_destroy(topo);
        return BL_EXIT_USAGE;
    }
    o.node_column = o.layout.nodes > 1;
    if (!o.tsv)
        bl_plan_cli_print_node(&o, topo);
    if (o.sweep)
        rc = bl_plan_cli_sweep(&o, topo);
    else if ((rc = bl_plan_cli_choose_launcher(&o, NULL)) < 0)
        rc = bl_plan_cli_show_layout(&o, topo, &o.layout, NULL, 1);
    if (!o.nodes)
        hwloc_topology_destroy(topo);
    bl_plan_cli_allowed_done(&o);
    free_nodes(&o);
    return rc;
}

