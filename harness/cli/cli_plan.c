/* bindlab plan: where a layout's ranks and threads would run on a node,
 * from Open MPI's own mapper and the OpenMP places model, without running
 * anything on that node. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "sweep/sweep_file.h"
#include "launcher/launcher_choice.h"
#include "layout/layout.h"
#include "layout/node_topos.h"
#include "plan/plan_omp.h"
#include "plan/plan.h"
#include "plan/plan_output.h"
#include "plan/plan_picture.h"
#include "plan/plan_ranks.h"
#include "plan/plan_ranks_cache.h"
#include "topo.h"

static const char help[] =
    "usage: bindlab plan [--topology FILE.xml|SYNTH] -np N [--nodes N]\n"
    "                    [--node-topologies DIR]\n"
    "                    [--map-by M]\n"
    "                    [--bind-to B] [--rank-by R] [--threads T|fill]\n"
    "                    [--omp-places P] [--omp-proc-bind B]\n"
    "                    [--format text|tsv] [--width COLUMNS]\n"
    "                    [--picture FILE.png|FILE.svg|FILE.pdf]\n"
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
    "OMP_PLACES and OMP_PROC_BIND as libgomp (GCC) applies them.\n"
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
    "\n"
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

/* In two parts: ISO C compilers need only take 4095 characters at once. */
static const char help_output[] =
    "Output:\n"
    "  --format text         (default) the table, the node map, warnings\n"
    "  --format tsv          tab-separated columns rank thread pus core l3\n"
    "                        numa package, one line per rank.thread after a\n"
    "                        header line (a sweep file adds a first column\n"
    "                        run_id); warnings go to standard error\n"
    "  --width COLUMNS       width of the node map (default 80; 132 fits two\n"
    "                        L3 domains per line on an EPYC)\n"
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

typedef struct options {
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
    int have_np;
    int node_column;        /* TSV: a node column (plans of several nodes) */
    const char *node_dir;   /* --node-topologies DIR */
    char **hosts;           /* its hosts, in name order */
    int nhosts;
    bl_plan_node *nodes;    /* [nhosts]: each host's XML and topology */
} options;

#define VERB "plan"

/* Layout options and the field they set. */
static const struct {
    const char *opt;
    bl_field field;
} layout_opts[] = {
    {"-np", BL_F_NP},           {"--np", BL_F_NP},
    {"-n", BL_F_NP},            {"--map-by", BL_F_MAP_BY},
    {"--bind-to", BL_F_BIND_TO}, {"--rank-by", BL_F_RANK_BY},
    {"--threads", BL_F_THREADS}, {"--omp-places", BL_F_OMP_PLACES},
    {"--omp-proc-bind", BL_F_OMP_PROC_BIND},
    {"--nodes", BL_F_NODES},
};
#define NLAYOUT_OPTS (sizeof layout_opts / sizeof layout_opts[0])

static const char *const value_opts[] = {"--topology", "--format", "--width",
                                         "--picture", "--launcher",
                                         "--mpirun", "--node-topologies"};
#define NVALUE_OPTS (sizeof value_opts / sizeof value_opts[0])

static int set_output_option(options *o, const char *opt, const char *v)
{
    bl_launcher_want w;
    bl_err err;
    if (strcmp(opt, "--topology") == 0)
        o->topology = v;
    else if (strcmp(opt, "--node-topologies") == 0)
        o->node_dir = v;
    else if (strcmp(opt, "--mpirun") == 0)
        o->mpirun = v;
    else if (strcmp(opt, "--launcher") == 0) {
        if (bl_launcher_want_parse(v, &w, &err) < 0)
            return bl_cli_usage_error(VERB, "--launcher: %s", err.msg);
        o->launcher = v;
    }
    else if (strcmp(opt, "--picture") == 0)
        o->picture = v;
    else if (strcmp(opt, "--format") == 0) {
        if (strcmp(v, "text") && strcmp(v, "tsv"))
            return bl_cli_usage_error(VERB, "--format '%s': accepted: text, "
                                      "tsv", v);
        o->tsv = strcmp(v, "tsv") == 0;
    } else {
        char *end;
        long w = strtol(v, &end, 10);
        if (!*v || *end || w < 40 || w > 1000)
            return bl_cli_usage_error(VERB, "--width '%s': accepted: 40 to "
                                      "1000 columns", v);
        o->width = (int)w;
    }
    return -1;
}

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    bl_err err;

    memset(o, 0, sizeof *o);
    o->width = 80;
    bl_layout_defaults(&o->layout);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int done = 0, missing = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(help, stdout);
            fputs(help_output, stdout);
            return BL_EXIT_OK;
        }
        for (size_t k = 0; !done && k < NLAYOUT_OPTS; k++) {
            v = bl_cli_option_value(layout_opts[k].opt, argc, argv, &i,
                                    &missing);
            if (!v && !missing)
                continue;
            done = 1;
            if (!v || !*v)
                return bl_cli_usage_error(VERB, "%s needs a value", a);
            if (bl_layout_set(&o->layout, layout_opts[k].field, v, &err) < 0)
                return bl_cli_usage_error(VERB, "%s", err.msg);
            o->have_np |= layout_opts[k].field == BL_F_NP;
        }
        for (size_t k = 0; !done && k < NVALUE_OPTS; k++) {
            int rc;
            v = bl_cli_option_value(value_opts[k], argc, argv, &i, &missing);
            if (!v && !missing)
                continue;
            done = 1;
            if (!v || !*v)
                return bl_cli_usage_error(VERB, "%s needs a value", a);
            if ((rc = set_output_option(o, value_opts[k], v)) >= 0)
                return rc;
        }
        if (done)
            continue;
        if (a[0] == '-' && a[1] != '\0')
            return bl_cli_usage_error(VERB, "unknown option '%.200s'", a);
        if (o->sweep)
            return bl_cli_usage_error(VERB, "one sweep file only (got a "
                                      "second: '%.200s')", a);
        o->sweep = a;
    }
    if (!o->sweep && !o->have_np)
        return bl_cli_usage_error(VERB, "give -np N (and the layout), or a "
                                  "sweep file");
    if (o->node_dir && o->topology)
        return bl_cli_usage_error(VERB, "--topology and --node-topologies: "
                                  "give one (--node-topologies names every "
                                  "node's own)");
    if (o->picture && !bl_plan_picture_format(o->picture))
        return bl_cli_usage_error(VERB, "--picture '%.200s': the name must "
                                  "end in .png, .svg or .pdf", o->picture);
    return -1;
}

/* --- the launcher whose mapper answers --------------------------------- */

/* --launcher (else the sweep file's launcher:, else mpirun in PATH) and
 * --mpirun, found and asked for its version once. Returns -1 to go on, or
 * an exit status: 2 when a launcher named is missing, unknown or of
 * another family, 1 when the default mpirun cannot be run. */
static int choose_launcher(options *o, const bl_sweep *s)
{
    char where[600];
    const char *value = o->launcher;
    bl_launcher_want w;
    bl_err err;

    snprintf(where, sizeof where, "--launcher");
    if (!value && s && s->launcher[0]) {
        value = s->launcher;
        snprintf(where, sizeof where, "%s:%d:%d: launcher", s->file,
                 s->launcher_line, s->launcher_col);
    }
    if (bl_launcher_choose(value, where, o->mpirun, o->program,
                           sizeof o->program, &w, &o->li, &err) < 0) {
        fprintf(stderr, "bindlab plan: %s\n", err.msg);
        return value || o->mpirun ? BL_EXIT_USAGE : BL_EXIT_FAILED;
    }
    o->have_launcher = 1;
    return -1;
}

/* --- planning one layout ---------------------------------------------- */

/* The rank plans of a sweep's layouts, made before the layouts are shown
 * (NULL: each layout plans its ranks itself). */
static const bl_plan_ranks_cache *rank_cache;

/* The nodes a layout is planned on: its own nodes:, else --nodes. */
static int nodes_of(const options *o, const bl_layout *l)
{
    return l->nodes > 0 ? l->nodes : o->layout.nodes;
}

static bl_plan_request request_of(const options *o, const bl_layout *l)
{
    bl_plan_request req = {o->topology, l->np, l->map_by, l->bind_to,
                           l->rank_by, l->threads, l->omp_places,
                           l->omp_proc_bind,
                           o->have_launcher ? o->program : NULL,
                           o->have_launcher ? &o->li : NULL,
                           nodes_of(o, l)};
    return req;
}

/* The topology rank r of plan p runs on: its node's own with
 * --node-topologies, else the one topology. */
static hwloc_topology_t topo_of(const options *o, hwloc_topology_t topo,
                                const bl_plan *p, int r)
{
    return o->nodes && p->split[0] && p->rank_node
               ? o->nodes[p->rank_node[r]].topo
               : topo;
}

/* Over nodes of different shapes (--node-topologies): the first nodes of
 * the directory, each with its share of the ranks. */
static int plan_each(const options *o, const bl_plan_request *req,
                     bl_plan *plan, bl_err *err)
{
    char preload[PATH_MAX];
    memset(plan, 0, sizeof *plan);
    if (req->nodes > o->nhosts) {
        bl_err_set(err, "--node-topologies %s has %d node%s (%s%s%s); the "
                   "layout asks for %d", o->node_dir, o->nhosts,
                   o->nhosts == 1 ? "" : "s", o->hosts[0],
                   o->nhosts > 1 ? " ... " : "",
                   o->nhosts > 1 ? o->hosts[o->nhosts - 1] : "", req->nodes);
        return BL_EXIT_USAGE;
    }
    if (bl_plan_ranks_preload_path(preload, sizeof preload, err) < 0 ||
        bl_plan_ranks_each(req, o->nodes, req->nodes, preload, plan,
                           err) < 0)
        return BL_EXIT_FAILED;
    return BL_EXIT_OK;
}

static int plan_layout(const options *o, hwloc_topology_t topo,
                       const bl_layout *l, bl_plan *plan, bl_err *err)
{
    bl_plan_request req = request_of(o, l);
    char preload[PATH_MAX];
    int each = o->nodes && req.nodes > 1;
    /* the cache holds plans of one node */
    int cached = rank_cache && req.nodes <= 1
                     ? bl_plan_ranks_cache_get(rank_cache, &req, plan, err)
                     : 1;

    if (cached < 0)
        return BL_EXIT_FAILED;
    if (each) {
        int rc = plan_each(o, &req, plan, err);
        if (rc != BL_EXIT_OK)
            return rc;
    } else if (cached > 0) {
        memset(plan, 0, sizeof *plan);
        /* Without the library mpirun would bind within this machine's
         * CPUs. */
        if (bl_plan_ranks_preload_path(preload, sizeof preload, err) < 0 ||
            bl_plan_ranks(&req, topo, preload, plan, err) < 0)
            return BL_EXIT_FAILED;
    }
    if (plan->refusal[0])
        return BL_EXIT_USAGE;
    for (int r = 0; r < plan->nranks; r++) {
        int t = l->threads == BL_THREADS_FILL
                    ? hwloc_bitmap_weight(plan->rank_pus[r]) : l->threads;
        if (bl_omp_assign(topo_of(o, topo, plan, r), r, plan->rank_pus[r],
                          l->omp_places,
                          l->omp_proc_bind, t > 0 ? t : 1, plan, err) < 0)
            return BL_EXIT_USAGE;
    }
    return BL_EXIT_OK;
}

static int worst_of(int a, int b)
{
    /* Bad input (2) outranks a run-time failure (1) in the exit status. */
    return a > b ? a : b;
}

/* Open MPI's refusal on one line: its banner lines of dashes dropped,
 * blank runs and line breaks squeezed to one space. */
static void one_line(const char *in, char *out, size_t len)
{
    size_t k = 0;
    while (*in && k + 1 < len) {
        size_t n = strcspn(in, "\n");
        int banner = n > 0 && strspn(in, "-=* \t\r") >= n;
        for (size_t i = 0; !banner && i < n && k + 1 < len; i++) {
            int sp = in[i] == ' ' || in[i] == '\t' || in[i] == '\r';
            if (sp && (k == 0 || out[k - 1] == ' '))
                continue;
            out[k++] = sp ? ' ' : in[i];
        }
        if (!banner && k > 0 && out[k - 1] != ' ' && k + 1 < len)
            out[k++] = ' ';
        in += n + (in[n] == '\n');
    }
    while (k > 0 && out[k - 1] == ' ')
        k--;
    out[k] = '\0';
}

static void describe(const bl_layout *l, int nodes, char *buf, size_t len)
{
    char t[16], n[32] = "";
    bl_layout_field_text(l, BL_F_THREADS, t, sizeof t);
    if (nodes > 1)
        snprintf(n, sizeof n, " on %d nodes", nodes);
    snprintf(buf, len, "np %d%s --map-by %s --bind-to %s%s%s, threads %s, "
             "OMP_PLACES=%s OMP_PROC_BIND=%s", l->np, n, l->map_by, l->bind_to,
             l->rank_by[0] ? " --rank-by " : "", l->rank_by, t,
             l->omp_places[0] ? l->omp_places : "(unset)",
             l->omp_proc_bind[0] ? l->omp_proc_bind : "(unset)");
}

static void print_counts(const char *what, hwloc_topology_t topo)
{
    bl_topo_counts c;
    bl_topo_counts_get(topo, &c);
    printf("%s: %d package%s, %d NUMA node%s, %d L3, %d cores, %d PUs\n",
           what, c.packages, c.packages == 1 ? "" : "s", c.numa_nodes,
           c.numa_nodes == 1 ? "" : "s", c.l3_domains, c.cores, c.pus);
}

static void print_node(const options *o, hwloc_topology_t topo)
{
    char what[PATH_MAX + 64];
    if (!o->nodes) {
        snprintf(what, sizeof what, "node: %s",
                 o->topology && *o->topology ? o->topology : "this machine");
        print_counts(what, topo);
        return;
    }
    printf("nodes: %d in %s (node 1's alone for a layout of one node)\n",
           o->nhosts, o->node_dir);
    for (int k = 0; k < o->nhosts; k++) {
        snprintf(what, sizeof what, "  node %d: %s (%s)", k + 1,
                 o->nodes[k].host, o->nodes[k].xml);
        print_counts(what, o->nodes[k].topo);
    }
}

/* node > 0: the warnings of that node of a plan of several nodes (TSV:
 * said on each line on standard error). */
static int print_warnings(hwloc_topology_t topo, const bl_plan *p, int tsv,
                          int node)
{
    bl_plan_warning *w;
    size_t n;
    bl_err err;
    if (bl_plan_warnings(topo, p, &w, &n, &err) < 0) {
        fprintf(stderr, "bindlab plan: %s\n", err.msg);
        return -1;
    }
    if (!tsv)
        printf(n ? "warnings:\n" : "warnings: none\n");
    for (size_t i = 0; i < n; i++) {
        if (tsv)
            fprintf(stderr, "bindlab plan: warning: %s%.0d%s%s\n",
                    node ? "node " : "", node, node ? ": " : "", w[i].text);
        else
            printf("  - %s\n", w[i].text);
    }
    free(w);
    return 0;
}

/* The TSV of one plan, each line after the header prefixed by run_id,
 * and by the node (1-based) when there is a node column. */
static int print_tsv(hwloc_topology_t topo, const bl_plan *p,
                     const char *run_id, int node, int header)
{
    char *buf = NULL, *line, *save = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int first = 1;

    if (!f || bl_plan_write_tsv(f, topo, p) < 0) {
        if (f)
            fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    for (line = strtok_r(buf, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), first = 0) {
        if (first && !header)
            continue;
        if (run_id)
            printf("%s\t", first ? "run_id" : run_id);
        if (node > 0 && first)
            printf("node\t");
        else if (node > 0)
            printf("%d\t", node);
        printf("%s\n", line);
    }
    free(buf);
    return 0;
}

/* FILE.png -> FILE-r0003.png for a sweep's layouts, FILE-node2.png (or
 * FILE-r0003-node2.png) for node 2 of a plan of several nodes. */
static int picture_name(const char *pic, const char *run_id, int node,
                        char *buf, size_t len)
{
    const char *dot = strrchr(pic, '.');
    char n[24] = "";
    if (node > 0)
        snprintf(n, sizeof n, "-node%d", node);
    if (!run_id && !node)
        return bl_textf(buf, len, "%s", pic);
    return bl_textf(buf, len, "%.*s%s%s%s%s", (int)(dot - pic), pic,
                    run_id ? "-" : "", run_id ? run_id : "", n, dot);
}

/* Rank numbers of node k of plan p, as "0,2" or "0-127" (runs of
 * consecutive ranks as ranges; "..." when it does not fit). */
static void ranks_on(const bl_plan *p, int k, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int r = 0; r < p->nranks; r++) {
        int last = r;
        if (p->rank_node[r] != k)
            continue;
        while (last + 1 < p->nranks && p->rank_node[last + 1] == k)
            last++;
        if (used + 32 >= len) {
            snprintf(buf + used, len - used, ",...");
            return;
        }
        used += (size_t)(last > r ? snprintf(buf + used, len - used,
                                             "%s%d-%d", used ? "," : "", r,
                                             last)
                                  : snprintf(buf + used, len - used, "%s%d",
                                             used ? "," : "", r));
        r = last;
    }
}

/* The table, map, warnings and picture of one node's part of a plan
 * (node 0: the plan of one node). Returns an exit status class. */
static int show_part(const options *o, hwloc_topology_t topo,
                     const bl_plan *plan, const char *run_id,
                     const char *what, int node, int first)
{
    char line[2048], pic[PATH_MAX];
    bl_err err;
    int rc = BL_EXIT_OK;

    if (o->tsv) {
        if (print_tsv(topo, plan, run_id, o->node_column ? (node ? node : 1)
                                                         : 0, first) < 0)
            rc = BL_EXIT_FAILED;
    } else {
        if (bl_plan_write_table(stdout, topo, plan) < 0)
            rc = BL_EXIT_FAILED;
        printf("\n");
        if (bl_plan_write_map(stdout, topo, plan, o->width) < 0)
            rc = BL_EXIT_FAILED;
        printf("\n");
    }
    if (print_warnings(topo, plan, o->tsv, node) < 0)
        rc = BL_EXIT_FAILED;
    if (rc == BL_EXIT_OK && o->picture) {
        char n[24] = "";
        if (node > 0)
            snprintf(n, sizeof n, " | node %d", node);
        snprintf(line, sizeof line, "%s%s%s%s | ranks: %s, threads: %s",
                 run_id ? run_id : "", run_id ? ": " : "", what, n,
                 plan->launcher, plan->runtime);
        int drawn = picture_name(o->picture, run_id, node, pic,
                                 sizeof pic) < 0
                        ? bl_err_set(&err, "--picture '%.200s': path too "
                                     "long", o->picture)
                        : bl_plan_picture(topo, plan, pic, line, &err);
        if (drawn < 0) {
            fprintf(stderr, "bindlab plan: %s\n", err.msg);
            /* A device or directory at the path is bad input. */
            rc = drawn == BL_PLAN_PICTURE_REFUSED ? BL_EXIT_USAGE
                                                  : BL_EXIT_FAILED;
        } else if (!o->tsv)
            printf("picture: %s\n", pic);
    }
    return rc;
}

/* Node by node: each node's ranks, then its part of the plan. */
static int show_nodes(const options *o, hwloc_topology_t topo,
                      const bl_plan *plan, const char *run_id,
                      const char *what, int first)
{
    int rc = BL_EXIT_OK;
    for (int k = 0; k < plan->nnodes; k++) {
        bl_plan part;
        char ranks[1024], name[300] = "";
        hwloc_topology_t t = o->nodes && plan->split[0] ? o->nodes[k].topo
                                                        : topo;
        if (o->nodes && plan->split[0]) {
            name[0] = ',';
            name[1] = ' ';
            bl_layout_node_name(t, o->nodes[k].host, name + 2,
                                sizeof name - 2);
        }
        if (bl_plan_node_part(plan, k, &part) < 0) {
            fprintf(stderr, "bindlab plan: out of memory\n");
            return BL_EXIT_FAILED;
        }
        ranks_on(plan, k, ranks, sizeof ranks);
        if (!o->tsv)
            printf("%s-- node %d of %d%s: %s%s\n\n", k ? "\n" : "",
                   k + 1, plan->nnodes, name,
                   !ranks[0] ? "no rank" : strpbrk(ranks, ",-") ? "ranks "
                                                                 : "rank ",
                   ranks);
        else if (!ranks[0])
            fprintf(stderr, "bindlab plan: %s%snode %d: no rank\n",
                    run_id ? run_id : "", run_id ? ": " : "", k + 1);
        if (ranks[0])
            rc = worst_of(rc, show_part(o, t, &part, run_id, what, k + 1,
                                        first && k == 0));
        else if (!o->tsv && bl_plan_write_map(stdout, t, &part, o->width) < 0)
            rc = BL_EXIT_FAILED; /* a node with no rank: its map, all idle */
        bl_plan_free(&part);
    }
    return rc;
}

/* Plans and prints one layout; returns its exit status class. */
static int show_layout(const options *o, hwloc_topology_t topo,
                       const bl_layout *l, const char *run_id, int first)
{
    bl_plan plan;
    bl_err err;
    char what[512], line[2048];
    int rc = plan_layout(o, topo, l, &plan, &err);

    describe(l, nodes_of(o, l), what, sizeof what);
    if (!o->tsv) {
        printf("\n");
        if (run_id)
            printf("== %s: %s\n", run_id, what);
        else
            printf("plan: %s\n", what);
    }
    if (rc == BL_EXIT_USAGE && plan.refusal[0] && plan.modelled) {
        one_line(plan.refusal, line, sizeof line);
        fprintf(stderr, "bindlab plan: %s%s%s\n", run_id ? run_id : "",
                run_id ? ": " : "", line);
    } else if (rc == BL_EXIT_USAGE && plan.refusal[0]) {
        one_line(plan.refusal, line, sizeof line);
        fprintf(stderr, "bindlab plan: %s%s%s refuses this layout on that "
                "node: %s\n", run_id ? run_id : "", run_id ? ": " : "",
                plan.launcher[0] ? plan.launcher : "Open MPI", line);
    } else if (rc != BL_EXIT_OK)
        fprintf(stderr, "bindlab plan: %s%s%s\n", run_id ? run_id : "",
                run_id ? ": " : "", err.msg);
    if (rc != BL_EXIT_OK) {
        bl_plan_free(&plan);
        return rc;
    }
    if (plan.split[0]) {
        if (o->tsv)
            fprintf(stderr, "bindlab plan: %s%sranks: %s\n",
                    run_id ? run_id : "", run_id ? ": " : "", plan.how);
        else
            printf("ranks: %s\nthreads: the %s OpenMP places model\n\n",
                   plan.how, plan.runtime[0] ? plan.runtime : "libgomp");
    } else if (o->tsv) {
        if (plan.modelled)
            fprintf(stderr, "bindlab plan: %s%sranks: %s, %s\n",
                    run_id ? run_id : "", run_id ? ": " : "", plan.launcher,
                    plan.how);
    } else if (plan.modelled)
        printf("ranks: %s, %s\nthreads: the %s OpenMP places model\n\n",
               plan.launcher, plan.how,
               plan.runtime[0] ? plan.runtime : "libgomp");
    else
        printf("ranks: %s's mapper%s; threads: the %s OpenMP places "
               "model\n\n", plan.launcher[0] ? plan.launcher : "Open MPI",
               plan.nnodes > 1 ? " (every node of this topology)" : "",
               plan.runtime[0] ? plan.runtime : "libgomp");
    rc = plan.nnodes > 1 && plan.rank_node
             ? show_nodes(o, topo, &plan, run_id, what, first)
             : show_part(o, topo, &plan, run_id, what, 0, first);
    bl_plan_free(&plan);
    return rc;
}

/* --- sweep files ------------------------------------------------------ */

/* The fields that decide a placement, as one key. */
static void placement_key(const bl_layout *l, char *buf, size_t len)
{
    snprintf(buf, len, "%d|%s|%s|%s|%s|%s|%d|%d", l->np, l->map_by,
             l->bind_to, l->rank_by, l->omp_places, l->omp_proc_bind,
             l->threads, l->nodes);
}


/* Each distinct rank layout of the sweep planned once, several at a time
 * (up to the cores this process may use): the layouts then differ only in
 * their threads, which are modelled here. When this fails, every layout
 * plans its own ranks as before (same output, slower). */
static void prefetch_ranks(const options *o, hwloc_topology_t topo,
                           const bl_sweep *s, bl_plan_ranks_cache *cache)
{
    bl_plan_request *reqs = calloc((size_t)s->nlayouts + 1, sizeof *reqs);
    char preload[PATH_MAX];
    bl_err err;
    size_t n = 0;
    memset(cache, 0, sizeof *cache);
    if (reqs && bl_plan_ranks_preload_path(preload, sizeof preload, &err) == 0) {
        /* the cache holds plans of one node; several nodes plan alone */
        for (int i = 0; i < s->nlayouts; i++)
            if ((reqs[n] = request_of(o, &s->layouts[i])).nodes <= 1)
                n++;
        if (bl_plan_ranks_cache_fill(cache, reqs, n, topo,
                                     preload, bl_plan_jobs(), &err) == 0)
            rank_cache = cache;
        else
            bl_plan_ranks_cache_free(cache);
    }
    free(reqs);
}

static int plan_sweep(options *o, hwloc_topology_t topo)
{
    bl_sweep s;
    bl_plan_ranks_cache cache;
    bl_err err;
    int rc = BL_EXIT_OK, shown = 0;
    char (*keys)[512];

    if (bl_sweep_file_load(o->sweep, &s, &err) < 0) {
        fprintf(stderr, "bindlab plan: %s\n", err.msg);
        return BL_EXIT_USAGE;
    }
    if ((rc = choose_launcher(o, &s)) >= 0) {
        bl_sweep_free(&s);
        return rc;
    }
    rc = BL_EXIT_OK;
    if (!(keys = calloc(s.nlayouts ? (size_t)s.nlayouts : 1, sizeof *keys))) {
        bl_sweep_free(&s);
        fprintf(stderr, "bindlab plan: out of memory\n");
        return BL_EXIT_FAILED;
    }
    for (int i = 0; i < s.nlayouts; i++)
        o->node_column |= nodes_of(o, &s.layouts[i]) > 1;
    prefetch_ranks(o, topo, &s, &cache);
    for (int i = 0; i < s.nlayouts; i++) {
        const bl_layout *l = &s.layouts[i];
        int same = -1;
        placement_key(l, keys[i], sizeof keys[i]);
        for (int j = 0; j < i && same < 0; j++)
            if (strcmp(keys[i], keys[j]) == 0)
                same = j;
        if (same >= 0) {
            if (!o->tsv)
                printf("\n== %s: same placement as %s\n", l->run_id,
                       s.layouts[same].run_id);
            continue;
        }
        rc = worst_of(rc, show_layout(o, topo, l, l->run_id, shown == 0));
        shown++;
    }
    rank_cache = NULL;
    bl_plan_ranks_cache_free(&cache);
    free(keys);
    bl_sweep_free(&s);
    return rc;
}

/* --node-topologies DIR: every host's XML loaded (o->nodes); node 1's
 * stands for a layout of one node. -1 with err. */
static int load_nodes(options *o, bl_err *err)
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

static void free_nodes(options *o)
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
    options o;
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
    o.node_column = o.layout.nodes > 1;
    if (!o.tsv)
        print_node(&o, topo);
    if (o.sweep)
        rc = plan_sweep(&o, topo);
    else if ((rc = choose_launcher(&o, NULL)) < 0)
        rc = show_layout(&o, topo, &o.layout, NULL, 1);
    if (!o.nodes)
        hwloc_topology_destroy(topo);
    free_nodes(&o);
    return rc;
}
