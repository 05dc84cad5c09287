/* `bindlab report --html FILE.html`: a sweep's report as one self-contained
 * HTML page (docs/report.md). Nothing is fetched when it is opened: the
 * CSS, the few lines of script that sort the table, and the SVG charts
 * (drawn here, in C) are all inside the file, so it opens from a USB stick
 * with no network.
 *
 * The page: the machine (and the emulated-machine note when the file says
 * so), per kernel+unit a bar chart of the rate per layout (median over
 * repetitions, a whisker from min to max), the sortable table with one row
 * per run, and every flag that occurs explained in one sentence with links
 * to the runs it came from. Its parts (charts, runs, flags) are internal to
 * harness/report/: report_priv.h. */
#ifndef BL_REPORT_HTML_H
#define BL_REPORT_HTML_H

#include <stddef.h>

#include "err.h"
#include "h5/h5schema.h"
#include "report/report_runs.h"
#include "results/results_report.h"

/* The whole page for the report r of sweep file `input`; m (may be NULL)
 * is the file's /machine, d (may be NULL) what its runs recorded beyond
 * /summary. The caller frees the text. NULL when out of memory. */
char *bl_report_html_text(const bl_report *r, const char *input,
                          const bl_h5_machine *m, const bl_report_detail *d);

/* Reads input's /machine, builds the page and writes it to path
 * atomically (common/atomic_file.h: only a regular file or nothing is
 * replaced). 0 or -1 with err naming the problem. */
int bl_report_write_html(const char *path, const char *input,
                         const bl_report *r, bl_err *err);
/* The same; all_nodes: a run over many nodes lists every node in its
 * table, not one row per alike group (report --all-nodes). */
int bl_report_write_html_nodes(const char *path, const char *input,
                               const bl_report *r, int all_nodes,
                               bl_err *err);

/* `--plot DIR` (report_plot.c): DIR (created when missing) gets each
 * kernel's KERNEL-rate.svg and KERNEL-iterations.svg and each run's
 * map-RUN.svg, standalone SVG files written atomically; *nfiles counts
 * them. 0, or -1 with err naming the file or directory. */
int bl_report_write_plots(const char *dir, const char *input,
                          const bl_report *r, size_t *nfiles, bl_err *err);

#endif
