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

#include "h5schema.h"
#include "results_report.h"
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

/* Appends group g's bar chart as an inline <svg> element. */
int bl_report_svg_bars(bl_strbuf *b, const bl_report *r,
                       const bl_report_group *g);

/* The whole page for the report r of sweep file `input`; m (may be NULL)
 * is the file's /machine. The caller frees the text. NULL when out of
 * memory. */
char *bl_report_html_text(const bl_report *r, const char *input,
                          const bl_h5_machine *m);

/* Reads input's /machine, builds the page and writes it to path
 * atomically (common/atomic_file.h: only a regular file or nothing is
 * replaced). 0 or -1 with err naming the problem. */
int bl_report_write_html(const char *path, const char *input,
                         const bl_report *r, bl_err *err);

#endif
