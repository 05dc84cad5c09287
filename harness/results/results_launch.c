/* How a launch ended, into the harness's record of the run: the fields
 * every launch fills alike (bindlab sweep and bindlab run), before each
 * judges the run by its own rules. */
#include "results/results_file.h"

#include <stdlib.h>
#include <string.h>

void bl_h5_harness_launched(bl_h5_harness *h, const bl_launch_result *res,
                            const bl_launch_opts *lo, char *how, size_t len)
{
    char tail[1024];
    bl_launch_describe(res, lo, how, len);
    bl_launch_last_lines(&res->errs, 12, tail, sizeof tail);
    h->stderr_tail = strdup(tail);
    h->exit_status = res->exited ? res->exit_status : -1;
    h->term_signal = res->term_signal;
    h->timed_out = res->timed_out;
    h->wall_s = res->wall_s;
}
