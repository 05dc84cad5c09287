/* The OpenMP runtimes of the probed process, with the app's own detection
 * (common/omp_runtime.c): one "omp" line per loaded runtime, at the end. */
#include "probe_priv.h"

#include "omp_runtime.h"

void bp_omp_record(void)
{
    static bl_omp_runtimes r; /* 64 KiB: not on a thread's stack */
    char file[BP_PATH_TEXT], version[sizeof r.loaded[0].version * 3];
    bl_omp_runtimes_find(&r);
    for (int i = 0; i < r.nloaded; i++) {
        bp_escape(r.loaded[i].file, file, sizeof file);
        bp_escape(r.loaded[i].version[0] ? r.loaded[i].version : "-",
                  version, sizeof version);
        bp_emit("omp kind=%s version=%s file=%s serving=%d gomp=%d",
                r.loaded[i].kind, version, file, i == r.serving,
                i == r.serving_gomp);
    }
}
