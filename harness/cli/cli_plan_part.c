/* bindlab plan: one plan, or one node's part of it, shown: the table (or
 * the TSV of one node), the node map, the warnings and the picture. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_plan_priv.h"
#include "cli/cli_util.h"
#include "plan/plan_output.h"
#include "plan/plan_picture.h"

int bl_plan_cli_worst(int a, int b)
{
    return a > b ? a : b;
}

/* where: the node or nodes of a plan of several nodes the warnings are
 * about ("node 2", "nodes 1-10000"; TSV: said on each line on standard
 * error), or NULL. */
static int print_warnings(hwloc_topology_t topo, const bl_plan *p, int tsv,
                          const char *where)
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
            fprintf(stderr, "bindlab plan: warning: %s%s%s\n",
                    where ? where : "", where ? ": " : "", w[i].text);
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

int bl_plan_cli_show_part(const bl_plan_cli *o, hwloc_topology_t topo,
                          const bl_plan *plan, const char *run_id,
                          const char *what, const bl_plan_cli_part *pt)
{
    char line[2048], pic[PATH_MAX];
    bl_err err;
    int rc = BL_EXIT_OK, node = pt ? pt->node : 0;
    /* the table of a folded share: a row per rank, its threads in the map */
    bl_plan ranks_only = *plan;

    ranks_only.nthreads = 0;
    if (o->tsv && !node) {
        if (print_tsv(topo, plan, run_id, o->node_column, pt && pt->header) <
            0)
            rc = BL_EXIT_FAILED;
    } else if (!o->tsv) {
        if (bl_plan_write_table(stdout, topo, pt && pt->ranks_only
                                                  ? &ranks_only : plan) < 0)
            rc = BL_EXIT_FAILED;
        printf("\n");
        if (bl_plan_write_map(stdout, topo, plan, o->width) < 0)
            rc = BL_EXIT_FAILED;
        printf("\n");
    }
    if (print_warnings(topo, plan, o->tsv, pt ? pt->where : NULL) < 0)
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
