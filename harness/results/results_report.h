/* The results table of a sweep: the /summary rows ranked by rate, each with
 * its ratio to the best run and to the `bind_to none` baseline, and the
 * layouts of each kernel (the model `bindlab report` and `bindlab compare`
 * show; written as text or CSV by report/report_write.h, as HTML by
 * report/report_html.h).
 *
 * Rates compare only within one kernel and one rate unit (a GB/s triad
 * rate says nothing about an LU GFLOP/s rate), and on one machine: in a
 * merged file of several machines (/nodes), each machine's runs are
 * ranked among themselves (`bindlab compare` puts machines side by
 * side). A run is ranked when it is
 * "usable": status ok, verified, and a positive rate; the others (failed,
 * timeout, invalid, wrong answer) sort after the usable runs of their
 * kernel and have no ratios. */
#ifndef BL_RESULTS_REPORT_H
#define BL_RESULTS_REPORT_H

#include <stddef.h>

#include "err.h"
#include "h5/h5schema.h"

typedef enum {
    BL_REPORT_SORT_RATE,   /* kernel groups in run order; best rate first */
    BL_REPORT_SORT_LABEL,  /* by layout label, then run id */
    BL_REPORT_SORT_RUN     /* by run id */
} bl_report_sort;

typedef struct bl_report_row {
    const bl_h5_summary *s;    /* points into the caller's summary rows */
    int usable;                /* ok, verified, rate > 0 */
    double ratio_best;         /* rate / best rate of kernel+unit; NAN if not usable */
    double ratio_baseline;     /* rate / baseline rate; NAN without a baseline */
    const bl_h5_summary *best;     /* best run of its kernel+unit, or NULL */
    const bl_h5_summary *baseline; /* its bind_to none baseline, or NULL */
    /* Ties: the run's layout (the usable runs of its kernel+unit
     * with its label) and the 95% interval of that layout's median rate
     * (bl_stats_median_ci: [min, max] below 6 runs; NAN with one run).
     * Layouts are ranked by median; tie_group 1 holds the best layout and
     * every layout whose interval overlaps the best's, group 2 starts at
     * the next layout that does not and takes those overlapping its
     * interval, and so on. A layout of one run has no interval and is a
     * group of its own. 0 for a run that is not usable. The text report
     * shows it as "rank" (1=, 1=, 2 ...), the CSV as tie_group, the HTML
     * page marks the same groups. */
    int tie_group;
    int tied;                      /* its group has more than one layout */
    size_t layout_runs;
    double layout_median, ci_lo, ci_hi;
} bl_report_row;

/* One kernel+unit: its best run and that run's baseline (for the closing
 * lines), and how many runs were not usable. */
typedef struct bl_report_group {
    const char *kernel, *rate_unit;  /* rate_unit "" when no run has a rate */
    long node;                 /* the machine (first of the run's nodes,
                                * an index into /nodes); -1 none */
    const bl_h5_summary *best, *baseline;
    size_t nruns, nunusable;
    size_t nlayouts, ntied_best;     /* layouts; of them in tie group 1 */
} bl_report_group;

typedef struct bl_report {
    bl_report_row *rows;
    size_t nrows;
    bl_report_group *groups;
    size_t ngroups;
    int several_nodes;         /* runs of more than one machine: the table
                                * gets a node column, groups name theirs */
} bl_report;

/* "rate", "label" or "run"; fills err naming the accepted values. */
int bl_report_sort_parse(const char *s, bl_report_sort *sort, bl_err *err);

/* Builds the report of rows[0..n) (kept alive by the caller while r is
 * used). kernel, when not NULL, keeps only that kernel's runs; naming a
 * kernel the file lacks is an error that lists the kernels it has. */
int bl_report_build(const bl_h5_summary *rows, size_t n, const char *kernel,
                    bl_report_sort sort, bl_report *r, bl_err *err);
void bl_report_free(bl_report *r);

/* The machine of a summary row: the first index of its "nodes", -1 when
 * it has none (never ran, or a file written before /nodes). */
long bl_report_node(const bl_h5_summary *s);

/* True when a summary row is usable (see above). */
int bl_report_usable(const bl_h5_summary *s);

/* One layout's rates over its usable repetitions. */
typedef struct bl_report_layout {
    const char *label;
    const bl_h5_summary *first;   /* its first usable run (link target) */
    double min, median, max;
    size_t n;
} bl_report_layout;

/* The layouts (by label) of group g's usable runs, best median first
 * (results_report_layouts.c). Returns the count (0 when none) and sets
 * *out (freed by the caller), or -1 when out of memory. */
long bl_report_layouts(const bl_report *r, const bl_report_group *g,
                       bl_report_layout **out);

#endif
