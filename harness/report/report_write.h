/* A sweep's report (results/results_report.h) as text: the aligned table
 * `bindlab report` prints, and CSV (`--csv`). */
#ifndef BL_REPORT_WRITE_H
#define BL_REPORT_WRITE_H

#include <stdio.h>

#include "results/results_report.h"

/* The aligned table, then one line per kernel naming the best layout and
 * the baseline. */
int bl_report_write_table(FILE *f, const bl_report *r);
/* CSV (RFC 4180: CRLF line ends, fields quoted when they hold a comma, a
 * double quote or a line break): every /summary column, then ratio_best,
 * ratio_baseline and baseline_run_id (empty when there is none). Text
 * cells that look like formulas are escaped (bl_report_csv_field). */
int bl_report_write_csv(FILE *f, const bl_report *r);
/* One CSV text field, quoted when RFC 4180 requires it. A value starting
 * with '=', '+', '-', '@', a tab or a carriage return gets a leading
 * apostrophe ("'=1+2"), so that a spreadsheet shows it as text instead of
 * running it as a formula (docs/schema.md). */
int bl_report_csv_field(FILE *f, const char *s);

#endif
