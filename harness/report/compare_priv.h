/* Internal to harness/report/: how `bindlab compare` matches layouts
 * (compare_match.c), what their runs recorded beyond the rate
 * (compare_tails.c) and its HTML body (compare_html.c), shared by the
 * text, CSV and HTML writers and by `report --html`. Code outside the
 * room uses compare.h. */
#ifndef BL_COMPARE_PRIV_H
#define BL_COMPARE_PRIV_H
#ifndef BL_ROOM_REPORT
#error "report/compare_priv.h is internal to harness/report/: include report/compare.h"
#endif

#include <stdio.h>

#include "report/compare.h"
#include "strbuf.h"

/* The letter of machine i in every view: A (the reference), B, ... Z. */
char bl_cmp_tag(size_t i);

/* The layout of other matching ref's layout r (NULL when none); *by is
 * set to "numa", "package" or "l3", what matched. */
const bl_cmp_layout *bl_cmp_match(const bl_cmp_layout *r,
                                  const bl_cmp_machine *other,
                                  const char **by);

/* True when layout x of machine ms[j] matches no layout of the others
 * (for j > 0: none of the reference's, which is what the table pairs). */
int bl_cmp_only_here(const bl_cmp_machine *ms, size_t n, size_t j,
                     const bl_cmp_layout *x);

/* The meaning of a layout in words, e.g. "triad 1/NUMA 1/pkg threads 1
 * bind=core places=cores proc_bind=close init=parallel". */
void bl_cmp_meaning(const bl_cmp_layout *c, char *buf, size_t len);

/* With 2 repetitions or more on both sides: the 95% bootstrap interval
 * [lo, hi] of median(o) / median(r), the rank test's p and the run
 * counts; else -1. */
typedef struct bl_cmp_stat {
    double lo, hi, p;
    size_t na, nb;
} bl_cmp_stat;
int bl_cmp_stats(const bl_cmp_machine *ref, const bl_cmp_layout *r,
                 const bl_cmp_machine *om, const bl_cmp_layout *o,
                 bl_cmp_stat *st);

/* The machines, the matches and the best layouts as HTML elements (the
 * body of bl_cmp_write_html's page, also a section of `report --html`
 * when a file holds several machines; compare_html.c). */
void bl_cmp_html_body(bl_strbuf *b, const bl_cmp_machine *ms, size_t n);

/* The lines under a pair of layouts, r (of ref) and o (of om): p50, p90,
 * p99 and max of their iteration times, then what the scheduler did to
 * their threads in the timed region (migrations, context switches); each
 * only when both sides recorded it. btag is o's letter. */
void bl_cmp_write_tails(FILE *f, const bl_cmp_machine *ref,
                        const bl_cmp_layout *r, const bl_cmp_machine *om,
                        const bl_cmp_layout *o, char btag);

#endif
