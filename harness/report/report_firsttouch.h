/* Under the report's table and in the HTML page: the pages of each run at
 * its two moments (right after first touch, after the timed region), the
 * difference, what NUMA balancing and huge pages did, and the sentences of
 * the pages-migrated and huge-page-straddle flags. Runs of files written
 * before the first moment was recorded are left out (nothing when none). */
#ifndef BL_REPORT_FIRSTTOUCH_H
#define BL_REPORT_FIRSTTOUCH_H

#include <stdio.h>

#include "results/results_report.h"
#include "strbuf.h"

void bl_report_write_first_touch(FILE *out, const bl_report *r);

/* The same as an HTML section (id "first-touch"). */
void bl_report_html_first_touch(bl_strbuf *b, const bl_report *r);

#endif
