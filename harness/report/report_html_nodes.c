/* A run over many nodes on the page (report_nodes.h): its nodes folded
 * into alike groups, a table of the groups (or of every node with
 * --all-nodes) and one map per group, drawn from its first node. */
#include "report/report_priv.h"

#include <stdio.h>

#include "report/report_nodemap.h"

static void local_cell(bl_strbuf *b, const bl_report_node_sum *s)
{
    if (s->pages_total > 0)
        bl_strbuf_printf(b, "<td class=\"n\">%.2f</td>",
                         (double)s->pages_local / (double)s->pages_total);
    else
        bl_strbuf_puts(b, "<td class=\"n\">-</td>");
}

static void sum_cells(bl_strbuf *b, const bl_report_node_sum *s)
{
    bl_strbuf_printf(b, "<td class=\"n\">%d</td><td class=\"n\">%d</td>"
                     "<td class=\"n\">%d</td>", s->ranks, s->threads,
                     s->off_binding);
    local_cell(b, s);
    bl_strbuf_puts(b, "</tr>\n");
}

static void node_table(bl_strbuf *b, const bl_report_nodes *o,
                       const int *gof, const bl_report_detail *d)
{
    bl_strbuf_puts(b, "<table class=\"nodes\"><tr><th>nodes</th><th>count"
                      "</th><th>group</th><th>ranks</th><th>threads</th>"
                      "<th>threads outside their rank's CPUs</th><th>local "
                      "pages</th></tr>\n");
    for (size_t g = 0; !d->all_nodes && g < o->ngroups; g++) {
        bl_strbuf_puts(b, "<tr><td>");
        bl_report_nodes_list(b, gof, o->nnodes, (int)g, d->machines);
        bl_strbuf_printf(b, "</td><td class=\"n\">%zu</td><td class=\"n\">"
                         "%zu</td>", o->groups[g].count, g + 1);
        sum_cells(b, &o->node[o->groups[g].first]);
    }
    for (size_t k = 0; d->all_nodes && k < o->nnodes; k++) {
        if (o->node[k].group < 0)
            continue;
        bl_strbuf_printf(b, "<tr><td>%zu (", k);
        bl_html_escape(b, d->machines[k].hostname);
        bl_strbuf_printf(b, ")</td><td class=\"n\">1</td><td class=\"n\">%d"
                         "</td>", o->node[k].group + 1);
        sum_cells(b, &o->node[k]);
    }
    bl_strbuf_puts(b, "</table>\n");
}

/* Group g's map: its first node's threads and pages. */
static void group_map(bl_strbuf *b, const bl_report_run *x, size_t g,
                      const int *gof, const bl_report_detail *d,
                      const bl_nodemap *maps, bl_nodemap_seen *seen)
{
    const bl_report_nodes *o = x->fold;
    const bl_report_node_group *gr = &o->groups[g];
    int k = gr->first, t = d->topo_of[k];
    bl_report_run y;
    char id[32];
    bl_strbuf_printf(b, "<p class=\"group\">Group %zu: %s ", g + 1,
                     gr->count == 1 ? "node" : "nodes");
    bl_report_nodes_list(b, gof, o->nnodes, (int)g, d->machines);
    bl_strbuf_printf(b, ", %s:</p>\n", gr->count == 1 ? "its map"
                                       : "as below (drawn: the first)");
    if (!d->topos[k]) {
        bl_strbuf_puts(b, "<p>This node has no topology that hwloc can "
                          "read: no map.</p>\n");
        return;
    }
    bl_report_run_of_group(x, g, &y);
    snprintf(id, sizeof id, "topo-%d", t);
    bl_nodemap_run_svg(b, &maps[t], id, &y, &seen[t]);
}

void bl_report_html_fold(bl_strbuf *b, const bl_report_run *x,
                         const bl_report_detail *d, const bl_nodemap *maps,
                         bl_nodemap_seen *seen)
{
    const bl_report_nodes *o = x->fold;
    const int *gof = o->group_of;
    size_t drawn = o->ngroups < BL_REPORT_FOLD_MAPS ? o->ngroups
                                                     : BL_REPORT_FOLD_MAPS;
    bl_strbuf_printf(b, "<p>Over %zu nodes, in %zu alike group%s (the same "
                     "machine, each rank's threads on the same PUs of its "
                     "node, the same pages per NUMA node): one map per "
                     "group.</p>\n", o->nused, o->ngroups,
                     o->ngroups == 1 ? "" : "s");
    node_table(b, o, gof, d);
    for (size_t g = 0; g < drawn; g++)
        group_map(b, x, g, gof, d, maps, seen);
    if (drawn < o->ngroups)
        bl_strbuf_printf(b, "<p>%zu more groups are not drawn (the table "
                         "lists them).</p>\n", o->ngroups - drawn);
}
