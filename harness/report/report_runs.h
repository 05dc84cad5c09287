/* What `bindlab report --html` and `--plot` draw beyond /summary, read
 * once per run from the sweep file: where each rank and thread ran
 * (placement), its pages per NUMA node (memory), its iteration times,
 * and the machine each run ran on with its topology loaded from the
 * recorded hwloc XML. */
#ifndef BL_REPORT_RUNS_H
#define BL_REPORT_RUNS_H

#include <hwloc.h>

#include "h5/h5schema.h"
#include "report/report_nodes.h"
#include "results/results_report.h"

enum { BL_REPORT_MAX_NODES = 16 };

typedef struct bl_report_run {
    const bl_h5_summary *s;        /* the run's /summary row */
    int machine;                   /* index into machines of its first
                                    * node, -1 none */
    int nodes[BL_REPORT_MAX_NODES];  /* every node it ran on (its
                                      * summary's `nodes`; the first 16) */
    size_t nnodes;
    bl_h5_placement *placement;    size_t nplacement;
    bl_h5_memory *memory;          size_t nmemory;
    /* per timed iteration the slowest rank's time, seconds (the iteration
     * ends when every rank is done) */
    double *iter_s;                size_t niter;
    /* the run's own matrices (<run>/matrices/<kind>: a c2c run's) */
    bl_h5_matrix *matrices;        size_t nmatrices;
    /* the launches before its last (sweep --retry), oldest first */
    bl_h5_retry *retries;          size_t nretries;
    /* a run over more than BL_REPORT_FOLD_NODES nodes: its nodes folded
     * (then placement and memory are not read: each group keeps its first
     * node's rows); NULL otherwise */
    bl_report_nodes *fold;
} bl_report_run;

typedef struct bl_report_detail {
    bl_report_run *runs;           /* one per report row, in row order */
    size_t nruns;
    bl_h5_machine *machines;       /* the file's machine records
                                    * (/nodes/<k>, or /machine) */
    hwloc_topology_t *topos;       /* per machine; NULL when its XML does
                                    * not load (then no map is drawn);
                                    * alike machines share one */
    int *topo_of;                  /* per machine: the first machine of its
                                    * topology (its XML, topos owner) */
    int *machine_group;            /* per machine: its alike group
                                    * (bl_report_machines_fold) */
    size_t nmachine_groups;
    int all_nodes;                 /* the page lists every node of a
                                    * folded run (report --all-nodes) */
    size_t nmachines;
    /* the file's /matrices/<kind> (`bindlab matrix`), in kind order */
    bl_h5_matrix *matrices;        size_t nmatrices;
} bl_report_detail;

/* Run group g's retries table (the launches before its last, sweep
 * --retry) into *t and *n; 0 rows when it has none or it does not read.
 * Free with bl_h5_table_free(&bl_h5_retry_def, *t, *n). */
void bl_report_read_retries(hid_t g, bl_h5_retry **t, size_t *n);

/* Reads every row's run from sweep file path. A run group that is
 * missing or unreadable gives a run with nothing recorded (its map says
 * so); only an unopenable file or no memory is an error (-1, err set). */
int bl_report_detail_read(const char *path, const bl_report *r,
                          bl_report_detail *d, bl_err *err);
/* The same from an open file. */
int bl_report_detail_read_file(hid_t f, const bl_report *r,
                               bl_report_detail *d, bl_err *err);
void bl_report_detail_free(bl_report_detail *d);

/* The usable runs of d that belong to layout `label` of group g (its
 * kernel, and its machine in a file of several), their iteration times
 * concatenated into *out (malloc'ed; the caller frees it). Returns the
 * count; *nruns gets the runs that had any. */
size_t bl_report_layout_iters(const bl_report *r, const bl_report_detail *d,
                              const bl_report_group *g, const char *label,
                              double **out, size_t *nruns);

/* The part of run x that ran on machine m: its threads on m's host and
 * the pages of their ranks (a run on one machine: all of it, shared with
 * x). 0, or -1 when out of memory; free with bl_report_run_on_node_free. */
int bl_report_run_on_node(const bl_report_run *x, const bl_h5_machine *m,
                          bl_report_run *y);
void bl_report_run_on_node_free(const bl_report_run *x, bl_report_run *y);

/* Of a folded run x: group g's first node as a run of its own (its rows
 * shared with x->fold; nothing to free), for a map. */
void bl_report_run_of_group(const bl_report_run *x, size_t g,
                            bl_report_run *y);

#endif
