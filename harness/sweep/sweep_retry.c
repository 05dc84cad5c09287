#include "sweep/sweep_retry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_started.h"
#include "grow.h"

int bl_sweep_retry_max(const bl_sweep_ctx *c, const bl_sweep_item *it)
{
    return c->o->retry_given ? c->o->retry : it->layout->retry;
}

/* 1 when needle is in the kept head or tail of the stream (a line cut by
 * the gap between them is not seen: the lines looked for come first). */
static int said(const bl_launch_output *o, const char *needle)
{
    return (o->head && strstr(o->head, needle)) ||
           (o->tail && strstr(o->tail, needle));
}

/* The app's own words on stderr ("bindlab-app: --size ..."), other than
 * its MPI_Init_thread failing, which is the launch's failure. */
static int app_spoke(const bl_launch_output *o)
{
    const char *parts[2] = {o->head, o->tail};
    for (int i = 0; i < 2; i++)
        for (const char *p = parts[i]; p && (p = strstr(p, "bindlab-app:"));
             p++)
            if (strncmp(p, "bindlab-app: MPI_Init_thread failed", 35) != 0)
                return 1;
    return 0;
}

int bl_sweep_retry_died_before_start(const bl_launch_result *res,
                                     const char *appfile)
{
    if (res->timed_out || res->interrupted)
        return 0;
    if (res->exited && res->exit_status == 0)
        return 0;
    if (access(appfile, F_OK) == 0)
        return 0;
    return !said(&res->out, BL_APP_STARTED) && !app_spoke(&res->errs);
}

/* DIR/RUN.log -> DIR/RUN.tryK.log */
static void try_log_path(const char *log, int attempt, char *buf, size_t len)
{
    size_t n = strlen(log);
    if (n > 4 && strcmp(log + n - 4, ".log") == 0)
        n -= 4;
    bl_textf(buf, len, "%.*s.try%d.log", (int)n, log, attempt);
}

int bl_sweep_retry_keep(bl_sweep_ctx *c, const bl_sweep_item *it,
                        const bl_launch_result *res, const char *reason,
                        const char *log, bl_h5_harness *h, bl_err *err)
{
    char kept[PATH_MAX];
    const char *base;
    size_t cap = h->nretries;
    bl_h5_retry *row;
    try_log_path(log, h->attempts, kept, sizeof kept);
    if (renameat(c->dirfd, strrchr(log, '/') + 1, c->dirfd,
                 strrchr(kept, '/') + 1) < 0)
        kept[0] = '\0'; /* no log to keep (it could not be written) */
    if (bl_grow(&h->retries, sizeof *h->retries, h->nretries, &cap, 4) < 0)
        return bl_err_set(err, "%s: out of memory recording attempt %d",
                          it->run_id, h->attempts);
    row = &h->retries[h->nretries++];
    memset(row, 0, sizeof *row);
    base = strrchr(kept, '/');
    row->attempt = h->attempts;
    row->start_time = h->start_time;
    row->wall_s = res->wall_s;
    row->exit_status = res->exited ? res->exit_status : -1;
    row->term_signal = res->term_signal;
    row->reason = strdup(reason ? reason : "");
    row->log = strdup(base ? base + 1 : kept);
    if (!row->reason || !row->log)
        return bl_err_set(err, "%s: out of memory recording attempt %d",
                          it->run_id, h->attempts);
    if (c->o->progress) {
        fprintf(c->o->progress, "%s: retry %d/%d: %s\n", it->run_id,
                h->attempts, bl_sweep_retry_max(c, it), row->reason);
        fflush(c->o->progress);
    }
    return 0;
}
