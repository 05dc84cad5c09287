#include "measure/omp_record.h"

#include <stdlib.h>
#include <string.h>

#include "omp_runtime.h"

int bl_omp_record(bl_h5_run *run)
{
    bl_omp_runtimes r;
    char others[2048];
    const bl_omp_lib *s, *g;
    bl_omp_runtimes_find(&r);
    s = r.serving >= 0 ? &r.loaded[r.serving] : NULL;
    g = r.serving_gomp >= 0 ? &r.loaded[r.serving_gomp] : NULL;
    bl_omp_runtimes_others(&r, others, sizeof others);
    run->omp_runtime = strdup(s ? s->kind : "unknown");
    run->omp_runtime_version = strdup(s ? s->version : "");
    run->omp_runtime_path = strdup(s ? s->file : "");
    run->omp_runtimes_other = strdup(others);
    run->omp_gomp_runtime = strdup(g ? g->kind : "");
    return run->omp_runtime && run->omp_runtime_version &&
                   run->omp_runtime_path && run->omp_runtimes_other &&
                   run->omp_gomp_runtime
               ? 0
               : -1;
}

void bl_omp_record_print(FILE *out, const bl_h5_run *run, int detail)
{
    if (!run->omp_runtime)
        return;
    if (detail)
        fprintf(out, "openmp runtime: %s %s (%s); GOMP_ calls go to %s\n",
                run->omp_runtime,
                *run->omp_runtime_version ? run->omp_runtime_version : "-",
                run->omp_runtime_path,
                *run->omp_gomp_runtime ? run->omp_gomp_runtime : "-");
    if (run->omp_runtimes_other && *run->omp_runtimes_other)
        fprintf(out,
                "bindlab-app: warning: two-omp-runtimes: the app's OpenMP "
                "calls go to %s, but this process also loaded %s; "
                "GCC-compiled code (GOMP_parallel, as OpenBLAS calls it) "
                "goes to %s. Each runtime keeps its own threads and reads "
                "OMP_PLACES/OMP_PROC_BIND (and KMP_AFFINITY) for itself: a "
                "library whose calls reach the other one runs a second team "
                "on the same CPUs. Keep one runtime: build with the compiler "
                "whose runtime the libraries use, or use libraries built "
                "for this one (Debian: libopenblas0-pthread instead of "
                "libopenblas0-openmp)\n",
                run->omp_runtime, run->omp_runtimes_other,
                *run->omp_gomp_runtime ? run->omp_gomp_runtime : "-");
}

void bl_omp_record_print_loaded(FILE *out)
{
    bl_omp_runtimes r;
    bl_omp_runtimes_find(&r);
    for (int i = 0; i < r.nloaded; i++)
        fprintf(out, "openmp %s: %s %s %s\n",
                i == r.serving ? "runtime" : "also loaded", r.loaded[i].kind,
                r.loaded[i].version[0] ? r.loaded[i].version : "-",
                r.loaded[i].file);
}
