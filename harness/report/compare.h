/* `bindlab compare`: the layouts of sweeps on different machines matched
 * by what they mean, not by how they are spelled (docs/report.md).
 *
 * A layout (the usable runs with one label: its repetitions) is described
 * relative to its machine: ranks per package, per NUMA node and per L3
 * domain, and threads x ranks as a fraction of the node's cores, plus what
 * does not depend on the machine (kernel, bind_to, places, proc_bind,
 * init). Two layouts on two machines match when the machine-free part and
 * the thread fraction are equal and their ranks per NUMA node are equal;
 * failing that, ranks per package; failing that, ranks per L3. The first
 * machine is the reference: every other machine's layouts are matched to
 * its layouts, and the ratio is other / reference. The matching itself
 * and the HTML body are internal to harness/report/: compare_priv.h. */
#ifndef BL_COMPARE_H
#define BL_COMPARE_H

#include <stdio.h>

#include "err.h"
#include "h5/h5schema.h"
#include "results/results_report.h"

/* A fraction p/q in lowest terms (q > 0). */
typedef struct bl_frac {
    long p, q;
} bl_frac;

typedef struct bl_cmp_layout {
    const bl_report_layout *l;   /* label, first run, median... */
    const char *unit;
    bl_frac per_package, per_numa, per_l3, thread_share;
} bl_cmp_layout;

typedef struct bl_cmp_machine {
    const char *path;
    long node;                 /* its /nodes/<k> in a file of several
                                * machines; -1 the whole file */
    char *source;              /* what to show: "path", "path /nodes/1" */
    bl_h5_machine m;
    bl_h5_summary *rows;
    size_t nrows;
    bl_report report;
    bl_report_layout **group_layouts;  /* per report group */
    bl_cmp_layout *layouts;
    size_t nlayouts;
} bl_cmp_machine;

/* Reads path's /machine and /summary and describes its layouts. Fills
 * err (the file and the problem) and returns -1 on failure. */
int bl_cmp_load(const char *path, bl_cmp_machine *c, bl_err *err);
/* The machine /nodes/<node> of a merged file holding several, with the
 * runs whose first node it is (a run never ran has none: left out). */
int bl_cmp_load_node(const char *path, size_t node, bl_cmp_machine *c,
                     bl_err *err);
/* How many machine records path holds (0 when it cannot be read). */
size_t bl_cmp_count_machines(const char *path);
void bl_cmp_free(bl_cmp_machine *c);

/* The machines, the layouts matched and the best layouts as one
 * self-contained HTML page (no network; like report --html), written
 * atomically to path (compare_html.c). */
int bl_cmp_write_html(const char *path, const bl_cmp_machine *ms, size_t n,
                      bl_err *err);

/* A/B of two layouts of one sweep (--ab): the layout m's argument names
 * (its name, label or run id without the repetition; NULL when none), and
 * the two side by side: medians, ratio B/A, interval and rank test, tails,
 * migrations and context switches. */
const bl_cmp_layout *bl_cmp_find(const bl_cmp_machine *m, const char *which);
int bl_cmp_write_ab(FILE *f, const bl_cmp_machine *m, const bl_cmp_layout *a,
                    const bl_cmp_layout *b);

/* The side-by-side table (text), or CSV (one row per layout and
 * machine); compare_text.c, like --ab's. */
int bl_cmp_write_text(FILE *f, const bl_cmp_machine *ms, size_t n);
int bl_cmp_write_csv(FILE *f, const bl_cmp_machine *ms, size_t n);

#endif
