/* bindlab plan: one plan, or one node's part of it, shown: the table (or
 * the TSV of one node), the node map, the warnings and the picture. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_plan_priv.h"
#include "cli/cli_util.h"
#include "plan/plan_devices.h"
#include "plan/plan_output.h"
#include "plan/plan_picture.h"

int bl_plan_cli_worst(int a, int b)
{
    return a > b ? a : b;
}

/* A plan's GPUs and NICs: found on topo, and per rank. */
typedef struct part_devices {
    bl_plan_devices d;
    bl_plan_rank_devices rd;
    int shown;          /* the node has devices, or GPU options were given:
                         * the device section and TSV columns appear */
} part_devices;

static int devices_make(const bl_plan_cli *o, hwloc_topology_t topo,
                        const bl_plan *p, part_devices *pd)
{
    bl_err err;
    memset(pd, 0, sizeof *pd);
    if (bl_plan_devices_find(topo, &pd->d, &err) < 0 ||
        bl_plan_rank_devices_make(topo, p, &pd->d, o->gpu_bind,
                                  o->gpus_per_rank, &pd->rd, &err) < 0) {
        fprintf(stderr, "bindlab plan: %s\n", err.msg);
        bl_plan_devices_free(&pd->d);
        return -1;
    }
    pd->shown = pd->d.n > 0 || o->gpu_bind != BL_GPU_BIND_NONE;
    return 0;
}

static void devices_free(part_devices *pd)
{
    bl_plan_rank_devices_free(&pd->rd);
    bl_plan_devices_free(&pd->d);
}

/* where: the node or nodes of a plan of several nodes the warnings are
 * about ("node 2", "nodes 1-10000"; TSV: said on each line on standard
 * error), or NULL. */
static int print_warnings(hwloc_topology_t topo, const bl_plan *p, int tsv,
                          const char *where, const part_devices *pd)
{
    bl_plan_warning *w;
    size_t n;
    bl_err err;
    if (bl_plan_warnings(topo, p, &w, &n, &err) < 0 ||
        bl_plan_devices_warnings(topo, p, &pd->d, &pd->rd, &w, &n,
                                 &err) < 0) {
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

/* The device columns of TSV row i (header when i < 0). */
static void print_device_cells(const bl_plan *p, const part_devices *pd,
                               long i)
{
    char buf[1024];
    int r;
    if (i < 0) {
        printf("\tgpus\tnear_gpus\tnear_nics");
        return;
    }
    r = p->nthreads ? p->threads[i].rank : (int)i;
    bl_plan_rank_devices_text(&pd->d, &pd->rd, r, BL_DEVICE_GPU, 1, buf,
                              sizeof buf);
    printf("\t%s", buf);
    bl_plan_rank_devices_text(&pd->d, &pd->rd, r, BL_DEVICE_GPU, 0, buf,
                              sizeof buf);
    printf("\t%s", buf);
    bl_plan_rank_devices_text(&pd->d, &pd->rd, r, BL_DEVICE_NIC, 0, buf,
                              sizeof buf);
    printf("\t%s", buf);
}

/* The TSV of one plan, each line after the header prefixed by run_id,
 * and by the node (1-based) when there is a node column; the device
 * columns last when pd->shown. */
static int print_tsv(hwloc_topology_t topo, const bl_plan *p,
                     const char *run_id, int node, int header,
                     const part_devices *pd)
{
    char *buf = NULL, *line, *save = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    long row = -1;

    if (!f || bl_plan_write_tsv(f, topo, p) < 0) {
        if (f)
            fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    for (line = strtok_r(buf, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), row++) {
        if (row < 0 && !header)
            continue;
        if (run_id)
            printf("%s\t", row < 0 ? "run_id" : run_id);
        if (node > 0 && row < 0)
            printf("node\t");
        else if (node > 0)
            printf("%d\t", node);
        printf("%s", line);
        if (pd->shown)
            print_device_cells(p, pd, row);
        printf("\n");
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
    part_devices pd;

    ranks_only.nthreads = 0;
    if (devices_make(o, topo, plan, &pd) < 0)
        return BL_EXIT_FAILED;
    if (o->tsv && !node) {
        if (print_tsv(topo, plan, run_id, o->node_column, pt && pt->header,
                      &pd) < 0)
            rc = BL_EXIT_FAILED;
    } else if (!o->tsv) {
        if (bl_plan_write_table(stdout, topo, pt && pt->ranks_only
                                                  ? &ranks_only : plan) < 0)
            rc = BL_EXIT_FAILED;
        printf("\n");
        if (bl_plan_write_map(stdout, topo, plan, o->width) < 0)
            rc = BL_EXIT_FAILED;
        printf("\n");
        if (pd.shown && (bl_plan_devices_write(stdout, plan, &pd.d,
                                               &pd.rd) < 0 ||
                         printf("\n") < 0))
            rc = BL_EXIT_FAILED;
    }
    if (print_warnings(topo, plan, o->tsv, pt ? pt->where : NULL, &pd) < 0)
        rc = BL_EXIT_FAILED;
    devices_free(&pd);
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
