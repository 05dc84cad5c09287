/* Under the report's table: the runs that took more than one launch (sweep
 * --retry: the earlier launches died before the app started), each with
 * what its earlier launches died of and where their logs are. */
#ifndef BL_REPORT_RETRIES_H
#define BL_REPORT_RETRIES_H

#include <stdio.h>

#include "results/results_report.h"

/* Nothing when no run of r took more than one launch. */
void bl_report_write_retries(FILE *out, const char *path, const bl_report *r);

#endif
