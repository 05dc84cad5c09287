/* The node map of a run, drawn as SVG from what the run recorded: the
 * machine's packages, NUMA nodes, cores and PUs from its topology XML,
 * each thread on the PU it ended the timed region on, coloured by rank
 * and labelled rank.thread, and below the map each rank's pages per NUMA
 * node. The machine's boxes are drawn once (a template, by id) and each
 * run adds only its threads, so a page of 1,000 runs stays small. */
#ifndef BL_REPORT_NODEMAP_H
#define BL_REPORT_NODEMAP_H

#include <stdint.h>

#include <hwloc.h>

#include "report/report_runs.h"
#include "strbuf.h"

/* Where a machine's PUs are drawn, and its boxes as SVG elements. */
typedef struct bl_nodemap {
    int npu;                /* PUs, by hwloc logical index */
    double *x, *y;          /* top-left corner of each PU's cell */
    int *core, *numa, *package;   /* logical indexes, -1 unknown */
    int *os;                /* OS index of each PU */
    int numa_nodes;
    double width, height;
    char *boxes;            /* SVG elements: packages, NUMA nodes, cores */
} bl_nodemap;

/* Lays out topology t. 0, or -1 when out of memory. */
int bl_nodemap_build(hwloc_topology_t t, bl_nodemap *m);
void bl_nodemap_free(bl_nodemap *m);

/* Appends m's boxes as a reusable group <g id="id"> (inside <defs>). */
void bl_nodemap_template(bl_strbuf *b, const bl_nodemap *m, const char *id);

/* The maps already written on a page: a run whose threads and pages are
 * drawn exactly as an earlier run's (the repetitions of a bound layout)
 * refers to that drawing instead of repeating it. Zero it to start. */
typedef struct bl_nodemap_seen {
    uint64_t *hash;
    char **body;
    size_t n, cap_hash, cap_body;
} bl_nodemap_seen;
void bl_nodemap_seen_free(bl_nodemap_seen *seen);

/* Appends the map of run x as one <svg> element (class "map"): the boxes
 * by reference to template id `use_id`, or, when it is NULL, inline in a
 * standalone SVG (xmlns, its own <style>: a file of its own), then the
 * threads and the pages per NUMA node (by reference when `seen`, may be
 * NULL, holds the same drawing). Returns the threads not drawn (their PU
 * is not on the map). */
size_t bl_nodemap_run_svg(bl_strbuf *b, const bl_nodemap *m,
                          const char *use_id, const bl_report_run *x,
                          bl_nodemap_seen *seen);

/* The CSS of the maps' classes (inline in the page, or in a standalone
 * SVG's <style>). */
extern const char bl_nodemap_css[];

#endif
