/* The omp_runtime layout key: which OpenMP runtime a run's ranks use, and
 * the check afterwards that it is the one that ran.
 *   libgomp  bindlab-app as built (GCC: libgomp)
 *   libomp   the app built with clang (LLVM's libomp): --app-libomp PATH
 *            or BINDLAB_APP_LIBOMP
 *   intel    bindlab-app with Intel's libiomp5 preloaded (its GOMP_ entry
 *            points serve GCC's calls): --libiomp5 PATH or BINDLAB_LIBIOMP5
 * libomp and intel also get libgomp.so.1 aliased to their runtime (see
 * bl_sweep_omp_prepare).
 * The preload goes to the ranks with the launcher's own export words (one
 * command builder, bl_launcher_command), never to the launcher itself. */
#ifndef BL_SWEEP_OMP_H
#define BL_SWEEP_OMP_H

#include <limits.h>
#include <stddef.h>

#include "err.h"
#include "h5/h5schema.h"
#include "layout/layout.h"
#include "sweep/sweep_item.h"

/* The runtimes' paths from the options, else the environment; -1 with err
 * naming how to get a runtime a layout asks for that cannot be had. */
int bl_sweep_omp_setup(bl_sweep_ctx *c, const char *app_libomp,
                       const char *libiomp5, bl_err *err);

/* The program a layout's ranks run. */
const char *bl_sweep_omp_app(const bl_sweep_ctx *c, const bl_layout *l);

/* libomp and intel: a directory of the sweep (DIR/omp-alias/RUNTIME)
 * holding libgomp.so.1 -> the runtime, made (or checked) before a run.
 * A GCC-built library in the ranks (OpenBLAS) needs libgomp.so.1; loaded
 * for real, libgomp binds the main thread to the first of OMP_PLACES at
 * load time, and the runtime that then serves the app finds one CPU
 * (docs/openmp-runtimes.md). The alias makes it the same runtime. 0, or
 * -1 with err. */
int bl_sweep_omp_prepare(const bl_sweep_ctx *c, const bl_layout *l,
                         bl_err *err);

/* The text of the ranks' extra environment. */
typedef struct bl_sweep_omp_words {
    char path[2 * PATH_MAX + 32], preload[PATH_MAX + 16];
    char *env[3];
} bl_sweep_omp_words;

/* The ranks' extra environment for the layout's runtime (in w):
 * LD_LIBRARY_PATH with the alias directory first, and for intel
 * LD_PRELOAD of libiomp5; NULL when the layout needs none. */
char *const *bl_sweep_omp_env(const bl_sweep_ctx *c, const bl_layout *l,
                              bl_sweep_omp_words *w);

/* After a run with the app's record ap (or NULL; h->omp_runtime_asked
 * is the record's already): flag two-omp-runtimes
 * when the ranks loaded more than one runtime; when the layout asked for
 * one and another ran, flag omp-runtime-mismatch and fail the run with a
 * reason naming both. */
void bl_sweep_omp_judge(const bl_layout *l, const bl_h5_run *ap,
                        bl_h5_harness *h, char *flags, size_t len);

#endif
