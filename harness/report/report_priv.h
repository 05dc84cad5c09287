/* Internal to harness/report/: the parts of `report --html` and `--plot`
 * that the page (report_html.c) and the plots (report_plot.c) put
 * together: the charts (report_svg.c, report_dist.c), the runs section
 * (report_html_runs.c) and the flags explained (report_flags.c). Code
 * outside the room uses report_html.h. */
#ifndef BL_REPORT_PRIV_H
#define BL_REPORT_PRIV_H
#ifndef BL_ROOM_REPORT
#error "report/report_priv.h is internal to harness/report/: include report/report_html.h"
#endif

#include <stddef.h>

#include "h5/h5schema.h"
#include "report/html_page.h"
#include "report/report_runs.h"
#include "results/results_report.h"
#include "strbuf.h"

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

/* Appends matrix m's heatmap (matrix/matrix_svg.c) inline, without its
 * xmlns (HTML needs none, and the page names no URL at all). */
void bl_report_html_matrix(bl_strbuf *b, const bl_h5_matrix *m);

/* A run over many nodes (x->fold): its groups' table and one map per
 * group (report_html_nodes.c); maps and seen per machine, as the runs
 * section builds them (a machine's by its topo_of). */
struct bl_nodemap;
struct bl_nodemap_seen;
void bl_report_html_fold(bl_strbuf *b, const bl_report_run *x,
                         const bl_report_detail *d,
                         const struct bl_nodemap *maps,
                         struct bl_nodemap_seen *seen);

/* The sentence that explains flag (one per flag of docs/schema.md). */
const char *bl_report_flag_why(const char *flag);

/* The next comma-separated flag of s from *pos into buf (empty ones
 * skipped); 0 when there is none left. */
int bl_report_flag_next(const char *s, size_t *pos, char *buf, size_t len);

#endif
