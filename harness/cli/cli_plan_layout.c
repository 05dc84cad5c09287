/* bindlab plan, one layout: its ranks planned (by the launcher's own
 * mapper, or from the cache of a sweep's plans), its threads placed by the
 * OpenMP places model (once per distinct rank binding), then shown
 * (cli_plan_part.c; a plan of several nodes: cli_plan_nodes.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_plan_priv.h"
#include "cli/cli_util.h"
#include "plan/plan_omp.h"

int bl_plan_cli_nodes_of(const bl_plan_cli *o, const bl_layout *l)
{
    return l->nodes > 0 ? l->nodes : o->layout.nodes;
}

bl_plan_request bl_plan_cli_request_of(const bl_plan_cli *o, const bl_layout *l)
{
    bl_plan_request req = {o->topology, l->np, l->map_by, l->bind_to,
                           l->rank_by, l->threads, l->omp_places,
                           l->omp_proc_bind,
                           o->have_launcher ? o->program : NULL,
                           o->have_launcher ? &o->li : NULL,
                           bl_plan_cli_nodes_of(o, l)};
    return req;
}

/* The topology rank r of plan p runs on: its node's own with
 * --node-topologies, else the one topology. */
static hwloc_topology_t topo_of(const bl_plan_cli *o, hwloc_topology_t topo,
                                const bl_plan *p, int r)
{
    return o->nodes && p->split[0] && p->rank_node
               ? o->nodes[p->rank_node[r]].topo
               : topo;
}

/* Over nodes of different shapes (--node-topologies): the first nodes of
 * the directory, each with its share of the ranks. */
static int plan_each(const bl_plan_cli *o, const bl_plan_request *req,
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

static int plan_layout(const bl_plan_cli *o, hwloc_topology_t topo,
                       const bl_layout *l, bl_plan *plan, bl_err *err)
{
    bl_plan_request req = bl_plan_cli_request_of(o, l);
    char preload[PATH_MAX];
    int each = o->nodes && req.nodes > 1;
    /* the cache holds plans of one node */
    int cached = o->rank_cache && req.nodes <= 1
                     ? bl_plan_ranks_cache_get(o->rank_cache, &req, plan, err)
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
    bl_omp_memo *memo = bl_omp_memo_new();
    bl_omp_env env = {(bl_omp_runtime)o->omp_runtime, l->omp_places,
                      l->omp_proc_bind, o->kmp_affinity, o->kmp_hw_subset};
    int rc = BL_EXIT_OK;
    for (int r = 0; rc == BL_EXIT_OK && r < plan->nranks; r++) {
        int t = l->threads == BL_THREADS_FILL
                    ? hwloc_bitmap_weight(plan->rank_pus[r]) : l->threads;
        if (bl_omp_assign_memo(memo, topo_of(o, topo, plan, r), r,
                               plan->rank_pus[r], &env, t > 0 ? t : 1,
                               plan, err) < 0)
            rc = BL_EXIT_USAGE;
    }
    bl_omp_memo_free(memo);
    return rc;
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

static void describe(const bl_plan_cli *o, const bl_layout *l, int nodes,
                     char *buf, size_t len)
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
    if (o->kmp_affinity && o->kmp_affinity[0])
        snprintf(buf + strlen(buf), len - strlen(buf), " KMP_AFFINITY=%s",
                 o->kmp_affinity);
    if (o->kmp_hw_subset && o->kmp_hw_subset[0])
        snprintf(buf + strlen(buf), len - strlen(buf), " KMP_HW_SUBSET=%s",
                 o->kmp_hw_subset);
}

static void print_counts(const char *what, hwloc_topology_t topo)
{
    bl_topo_counts c;
    bl_topo_counts_get(topo, &c);
    printf("%s: %d package%s, %d NUMA node%s, %d L3, %d cores, %d PUs\n",
           what, c.packages, c.packages == 1 ? "" : "s", c.numa_nodes,
           c.numa_nodes == 1 ? "" : "s", c.l3_domains, c.cores, c.pus);
}

void bl_plan_cli_print_node(const bl_plan_cli *o, hwloc_topology_t topo)
{
    char what[PATH_MAX + 64];
    if (!o->nodes) {
        const char *name = o->allowed[0] ? o->topology_given : o->topology;
        snprintf(what, sizeof what, "node: %s", name && *name ? name
                                                              : "this machine");
        if (o->allowed[0])
            printf("allowed CPUs: %s\n", o->allowed);
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

/* A sweep layout's gpu_bind and gpus_per_rank, unless the command line
 * gave --gpu-bind or --gpus-per-rank (which win for every layout). */
static void with_layout_gpus(bl_plan_cli *o, const bl_layout *l)
{
    bl_err ignored;
    if (o->gpu_bind_given || o->gpus_per_rank || !bl_layout_gpu_bind(l)[0])
        return;
    if (bl_gpu_bind_parse(bl_layout_gpu_bind(l), &o->gpu_bind, &ignored) == 0)
        o->gpus_per_rank = bl_layout_gpus_per_rank(l);
}

/* Why KMP_HW_SUBSET changes nothing for a rank (the first such rank), as
 * a note under the plan's heading (TSV: on standard error); the model
 * itself has already applied it. */
static void subset_note(const bl_plan_cli *o, hwloc_topology_t topo,
                        const bl_plan *plan, const char *run_id)
{
    char note[256] = "";
    bl_err ignored;
    hwloc_bitmap_t kept;
    int r = 0;
    if (!o->kmp_hw_subset || !o->kmp_hw_subset[0] || !(kept = hwloc_bitmap_alloc()))
        return;
    for (; r < plan->nranks && !note[0]; r++)
        if (bl_omp_hw_subset(topo_of(o, topo, plan, r), plan->rank_pus[r],
                             (bl_omp_runtime)o->omp_runtime, o->kmp_hw_subset,
                             kept, note, sizeof note, &ignored) < 0)
            break;
    hwloc_bitmap_free(kept);
    if (!note[0])
        return;
    if (o->tsv)
        fprintf(stderr, "bindlab plan: %s%snote: rank %d: %s\n",
                run_id ? run_id : "", run_id ? ": " : "", bl_plan_rank_number(plan, r - 1), note);
    else
        printf("note: rank %d: %s\n\n", bl_plan_rank_number(plan, r - 1), note);
}

int bl_plan_cli_show_layout(const bl_plan_cli *o, hwloc_topology_t topo,
                            const bl_layout *l, const char *run_id, int first)
{
    bl_plan plan;
    bl_err err;
    char what[512], line[2048];
    int rc = plan_layout(o, topo, l, &plan, &err);

    describe(o, l, bl_plan_cli_nodes_of(o, l), what, sizeof what);
    if (!o->tsv) {
        printf("\n");
        if (run_id)
            printf("== %s: %s\n", run_id, what);
        else
            printf("plan: %s\n", what);
    }
    bl_plan_cli_allowed_fit(o, topo, l, run_id);
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
    subset_note(o, topo, &plan, run_id);
    bl_plan_cli_part one = {0, NULL, first, 0};
    bl_plan_cli shown = *o;
    with_layout_gpus(&shown, l);
    rc = plan.nnodes > 1 && plan.rank_node
             ? bl_plan_cli_show_nodes(&shown, topo, &plan, run_id, what,
                                      first)
             : bl_plan_cli_show_part(&shown, topo, &plan, run_id, what, &one);
    bl_plan_free(&plan);
    return rc;
}
