#include "report/report_retries.h"

#include <hdf5.h>

#include "report/report_runs.h"
#include "results/results_file.h"

/* The launches before the last one, from the run's retries table. */
static void write_attempts(FILE *out, hid_t f, const char *run_id)
{
    char group[512];
    bl_h5_retry *t;
    size_t n;
    hid_t g;
    bl_h5_run_path(run_id, group, sizeof group);
    if (H5Lexists(f, group, H5P_DEFAULT) <= 0 ||
        (g = H5Gopen2(f, group, H5P_DEFAULT)) < 0)
        return;
    bl_report_read_retries(g, &t, &n);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "    launch %d: %s%s%s%s\n", (int)t[i].attempt,
                t[i].reason ? t[i].reason : "",
                t[i].log && *t[i].log ? " (log " : "",
                t[i].log ? t[i].log : "",
                t[i].log && *t[i].log ? ")" : "");
    bl_h5_table_free(&bl_h5_retry_def, t, n);
    H5Gclose(g);
}

void bl_report_write_retries(FILE *out, const char *path, const bl_report *r)
{
    hid_t f = H5I_INVALID_HID;
    int heading = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const bl_h5_summary *s = r->rows[i].s;
        if (s->attempts <= 1 || !s->run_id)
            continue;
        if (!heading++) {
            fprintf(out, "runs launched again (their earlier launches died "
                    "before the app started):\n");
            f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        }
        fprintf(out, "  %s %s after %d launches\n", s->run_id,
                s->status ? s->status : "", (int)s->attempts);
        if (f >= 0)
            write_attempts(out, f, s->run_id);
    }
    if (f >= 0)
        H5Fclose(f);
}
