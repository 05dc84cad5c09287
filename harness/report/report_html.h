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
 * to the runs it came from. */
#ifndef BL_REPORT_HTML_H
#define BL_REPORT_HTML_H

#include "h5/h5schema.h"
#include "report/report_runs.h"
#include "results/results_report.h"
#include "strbuf.h"

/* Appends s with &, <, >, " and ' escaped (text and attribute values). */
void bl_html_escape(bl_strbuf *b, const char *s);

/* One layout's rates over its usable repetitions. */
typedef struct bl_report_layout {
    const char *label;
    const bl_h5_summary *first;   /* its first usable run (link target) */
    double min, median, max;
    size_t n;
} bl_report_layout;

/* The layouts (by label) of group g's usable runs, best median first.
 * Returns the count (0 when none) and sets *out (freed by the caller), or
 * -1 when out of memory. */
long bl_report_layouts(const bl_report *r, const bl_report_group *g,
                       bl_report_layout **out);

/* Appends group g's bar chart as an <svg> element: inline in the page
 * (wrapped in a scrolling <div>, labels linking to the runs), or, when
 * standalone, a whole SVG file's element (xmlns, its own <style>, no
 * links) for `report --plot`. */
int bl_report_svg_bars(bl_strbuf *b, const bl_report *r,
                       const bl_report_group *g, int standalone);

/* The CSS of the charts' shapes (in the page's <style>, and in each
 * standalone SVG). */
extern const char bl_report_svg_css[];

/* Opens a chart's <svg> of class cls and size w x h: in the page inside
 * <div class="wrap">, standalone with xmlns and bl_report_svg_css (and
 * `extra_css`, may be NULL). bl_report_svg_close ends it. */
void bl_report_svg_open(bl_strbuf *b, const char *cls, double w, double h,
                        int standalone, const char *extra_css);
void bl_report_svg_close(bl_strbuf *b, int standalone);

/* Appends group g's iteration-time chart (report_dist.c): per layout a
 * box plot of its per-iteration times over its usable repetitions. */
int bl_report_svg_iters(bl_strbuf *b, const bl_report *r,
                        const bl_report_detail *d, const bl_report_group *g,
                        int standalone);

/* Appends the section "Where each run ran" (report_html_runs.c): per run a
 * collapsed <details id="map-RUN"> with its node map, pages per NUMA node
 * and its flags explained. */
int bl_report_html_runs(bl_strbuf *b, const bl_report *r,
                        const bl_report_detail *d);

/* Appends matrix m's heatmap (harness/matrix_svg.c) inline, without its
 * xmlns (HTML needs none, and the page names no URL at all). */
void bl_report_html_matrix(bl_strbuf *b, const bl_h5_matrix *m);

/* The sentence that explains flag (one per flag of docs/schema.md). */
const char *bl_report_flag_why(const char *flag);

/* The next comma-separated flag of s from *pos into buf (empty ones
 * skipped); 0 when there is none left. */
int bl_report_flag_next(const char *s, size_t *pos, char *buf, size_t len);

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

/* `--plot DIR` (report_plot.c): DIR (created when missing) gets each
 * kernel's KERNEL-rate.svg and KERNEL-iterations.svg and each run's
 * map-RUN.svg, standalone SVG files written atomically; *nfiles counts
 * them. 0, or -1 with err naming the file or directory. */
int bl_report_write_plots(const char *dir, const char *input,
                          const bl_report *r, size_t *nfiles, bl_err *err);

#endif
