/* The folded nodes in words (report_nodes.h): node lists, one group's
 * summary, and the text report's lines. */
#include "report/report_nodes.h"

#include <stdlib.h>
#include <string.h>

#include "results/results_file.h"

/* Ranges written in full before "... and N more nodes": a list of 10,000
 * nodes of which every other is odd stays one line. */
enum { MAX_RANGES = 24 };

static const char *host(const bl_h5_machine *m, size_t k)
{
    return m && m[k].hostname && m[k].hostname[0] ? m[k].hostname : "?";
}

void bl_report_nodes_list(bl_strbuf *b, const int *group_of, size_t n,
                          int group, const bl_h5_machine *m)
{
    size_t from[MAX_RANGES], to[MAX_RANGES], nr = 0, more = 0;
    for (size_t a = 0; a < n; a++) {
        size_t z = a;
        if (group_of[a] != group)
            continue;
        while (z + 1 < n && group_of[z + 1] == group)
            z++;
        if (nr < MAX_RANGES) {
            from[nr] = a;
            to[nr++] = z;
        } else {
            more += z - a + 1;
        }
        a = z;
    }
    for (size_t i = 0; i < nr; i++)
        bl_strbuf_printf(b, to[i] > from[i] ? "%s%zu-%zu" : "%s%zu",
                         i ? "," : "", from[i], to[i]);
    bl_strbuf_puts(b, " (");
    for (size_t i = 0; i < nr; i++) {
        bl_strbuf_printf(b, "%s%s", i ? ", " : "", host(m, from[i]));
        if (to[i] > from[i])
            bl_strbuf_printf(b, "-%s", host(m, to[i]));
    }
    bl_strbuf_puts(b, ")");
    if (more)
        bl_strbuf_printf(b, " and %zu more node%s", more,
                         more == 1 ? "" : "s");
}

void bl_report_node_words(bl_strbuf *b, const bl_report_node_sum *s)
{
    bl_strbuf_printf(b, "%d rank%s, %d thread%s, %d thread%s outside %s "
                     "rank's CPUs, local pages ", s->ranks,
                     s->ranks == 1 ? "" : "s", s->threads,
                     s->threads == 1 ? "" : "s", s->off_binding,
                     s->off_binding == 1 ? "" : "s",
                     s->off_binding == 1 ? "its" : "their");
    if (s->pages_total > 0)
        bl_strbuf_printf(b, "%.2f", (double)s->pages_local /
                                        (double)s->pages_total);
    else
        bl_strbuf_puts(b, "-");
}

/* The file's machines, alike ones on one line. */
static void machines_text(bl_strbuf *b, const bl_h5_machine *m, size_t n,
                          const int *group_of, size_t ng)
{
    for (size_t g = 0; g < ng; g++) {
        size_t k = 0, count = 0;
        while (group_of[k] != (int)g)
            k++;
        for (size_t j = k; j < n; j++)
            count += group_of[j] == (int)g;
        bl_strbuf_printf(b, "%s ", count == 1 ? "node" : "nodes");
        bl_report_nodes_list(b, group_of, n, (int)g, m);
        bl_strbuf_printf(b, ": %s, %d package%s, %d NUMA node%s, %d cores, "
                         "%s\n", m[k].cpu_model ? m[k].cpu_model : "",
                         m[k].packages, m[k].packages == 1 ? "" : "s",
                         m[k].numa_nodes, m[k].numa_nodes == 1 ? "" : "s",
                         m[k].cores, m[k].mpi_library_version
                                         ? m[k].mpi_library_version : "");
    }
}

/* One run's nodes: a line per group, or per node. */
static void run_text(bl_strbuf *b, const char *run_id,
                     const bl_report_nodes *o, const bl_h5_machine *m,
                     int all_nodes)
{
    const int *gof = o->group_of;
    bl_strbuf_printf(b, "run %s: %zu nodes, %zu alike group%s (same machine, "
                     "each rank's threads on the same PUs of its node, the "
                     "same pages)%s:\n", run_id, o->nused, o->ngroups,
                     o->ngroups == 1 ? "" : "s",
                     all_nodes ? "" : "; --all-nodes: every node");
    for (size_t g = 0; !all_nodes && g < o->ngroups; g++) {
        bl_strbuf_printf(b, "  %s ", o->groups[g].count == 1 ? "node"
                                                             : "nodes");
        bl_report_nodes_list(b, gof, o->nnodes, (int)g, m);
        bl_strbuf_puts(b, ": ");
        bl_report_node_words(b, &o->node[o->groups[g].first]);
        bl_strbuf_puts(b, "\n");
    }
    for (size_t k = 0; all_nodes && k < o->nnodes; k++) {
        if (o->node[k].group < 0)
            continue;
        bl_strbuf_printf(b, "  node %zu (%s), group %d: ", k, host(m, k),
                         o->node[k].group + 1);
        bl_report_node_words(b, &o->node[k]);
        bl_strbuf_puts(b, "\n");
    }
}

static void runs_text(bl_strbuf *b, hid_t f, const bl_report *r,
                      const bl_h5_machine *m, size_t n, const int *group_of,
                      int all_nodes)
{
    for (size_t i = 0; i < r->nrows; i++) {
        const bl_h5_summary *s = r->rows[i].s;
        const char *p = s->nodes ? s->nodes : "";
        size_t commas = 0;
        char group[600];
        bl_report_nodes o;
        bl_err e;
        hid_t g;
        while ((p = strchr(p, ',')))
            commas++, p++;
        if (commas < BL_REPORT_FOLD_NODES || !s->run_id)
            continue;
        bl_h5_run_path(s->run_id, group, sizeof group);
        if (H5Lexists(f, group, H5P_DEFAULT) <= 0 ||
            (g = H5Gopen2(f, group, H5P_DEFAULT)) < 0)
            continue;
        if (bl_report_nodes_read(g, group_of, n, &o, &e) == 0) {
            run_text(b, s->run_id, &o, m, all_nodes);
            bl_report_nodes_free(&o);
        }
        H5Gclose(g);
    }
}

int bl_report_write_nodes(FILE *out, const char *path, const bl_report *r,
                          int all_nodes)
{
    bl_h5_machine *m = NULL;
    int *topo_of = NULL, *group_of = NULL;
    size_t n = 0, ng;
    bl_strbuf b = {0};
    bl_err e;
    char *text;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return -1;
    if (bl_h5_read_nodes_shared(f, &m, &n, &topo_of, &e) < 0) {
        H5Fclose(f);
        return -1;
    }
    ng = bl_report_machines_fold(m, topo_of, n, &group_of);
    if (n > BL_REPORT_FOLD_NODES && ng)
        machines_text(&b, m, n, group_of, ng);
    if (ng)
        runs_text(&b, f, r, m, n, group_of, all_nodes);
    H5Fclose(f);
    if ((text = bl_strbuf_take(&b))) {
        fputs(text, out);
        free(text);
    }
    free(group_of);
    free(topo_of);
    bl_h5_nodes_free(m, n);
    return 0;
}
