#include "sweep/sweep_omp.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omp_runtime.h"
#include "proc/launch.h"
#include "strbuf.h"
#include "sys_util.h"

#define ALIAS_NAME "libgomp.so.1"

static int asked(const bl_sweep_ctx *c, const char *runtime)
{
    for (int i = 0; i < c->sweep.nlayouts; i++)
        if (strcmp(c->sweep.layouts[i].omp_runtime, runtime) == 0)
            return 1;
    return 0;
}

/* opt, else the variable, into buf ("" neither). */
static int pick(const char *opt, const char *var, char *buf, size_t len,
                const char *what, bl_err *err)
{
    const char *v = opt ? opt : getenv(var);
    if (bl_textf(buf, len, "%s", v ? v : "") < 0)
        return bl_err_set(err, "%s: path too long", what);
    return 0;
}

/* The runtime that serves app, from its --version ("openmp runtime: KIND
 * VERSION FILE"): its file into file when it is want. */
static int serving_runtime(const char *app, const char *want, char *file,
                           size_t len, bl_err *err)
{
    char *const argv[] = {(char *)app, "--version", NULL};
    bl_launch_opts o = {.argv = argv, .timeout_s = 30, .grace_s = 1};
    bl_launch_result r;
    char kind[32] = "", version[96] = "";
    const char *line;
    int rc = -1;
    if (bl_launch_run(&o, &r, err) == 0) {
        line = r.out.head ? strstr(r.out.head, "openmp runtime: ") : NULL;
        if (line && sscanf(line, "openmp runtime: %31s %95s %4095s", kind,
                           version, file) == 3 && strlen(file) < len)
            rc = 0;
        else
            bl_err_set(err, "'%s --version' names no OpenMP runtime (a "
                       "bindlab-app older than this bindlab?)", app);
    }
    bl_launch_result_free(&r);
    if (rc == 0 && strcmp(kind, want) != 0)
        rc = bl_err_set(err, "'%s': its OpenMP calls go to %s %s, not %s",
                        app, kind, file, want);
    return rc;
}

static int need_libomp(bl_sweep_ctx *c, bl_err *err)
{
    char file[PATH_MAX];
    if (!c->app_libomp[0] || access(c->app_libomp, X_OK) != 0 ||
        serving_runtime(c->app_libomp, BL_OMP_LIBOMP, file, sizeof file,
                        err) < 0)
        return bl_err_set(err, "omp_runtime libomp: %s; a layout asks for "
                          "LLVM's runtime, which runs bindlab-app built with "
                          "clang: cmake -S SRC -B build-omp-libomp "
                          "-DCMAKE_C_COMPILER=clang && cmake --build "
                          "build-omp-libomp --target bindlab-app, then "
                          "--app-libomp build-omp-libomp/bindlab-app (or "
                          "BINDLAB_APP_LIBOMP)",
                          !c->app_libomp[0]
                              ? "no --app-libomp given and BINDLAB_APP_LIBOMP "
                                "unset"
                          : access(c->app_libomp, X_OK) != 0
                              ? "that app is not an executable"
                              : err->msg);
    return bl_textf(c->libomp, sizeof c->libomp, "%s", file);
}

int bl_sweep_omp_setup(bl_sweep_ctx *c, const char *app_libomp,
                       const char *libiomp5, bl_err *err)
{
    if (pick(app_libomp, "BINDLAB_APP_LIBOMP", c->app_libomp,
             sizeof c->app_libomp, "--app-libomp", err) < 0 ||
        pick(libiomp5, "BINDLAB_LIBIOMP5", c->libiomp5, sizeof c->libiomp5,
             "--libiomp5", err) < 0)
        return -1;
    if (c->sweep.app && (asked(c, BL_OMP_LIBOMP) || asked(c, BL_OMP_INTEL) ||
                         asked(c, BL_OMP_LIBGOMP)))
        return bl_err_set(err, "omp_runtime: only for sweeps of bindlab-app "
                          "(kernels:); a program of app: runs with the "
                          "runtime it links");
    if (asked(c, BL_OMP_LIBOMP) && need_libomp(c, err) < 0)
        return -1;
    if (asked(c, BL_OMP_INTEL) &&
        (!c->libiomp5[0] || access(c->libiomp5, R_OK) != 0))
        return bl_err_set(err, "omp_runtime intel: %s; a layout asks for "
                          "Intel's runtime, which runs bindlab-app with "
                          "libiomp5.so preloaded: install it (python3 -m "
                          "venv DIR && DIR/bin/pip install intel-openmp, or "
                          "scripts/omp_runtimes.sh) and give --libiomp5 "
                          "DIR/lib/libiomp5.so (or BINDLAB_LIBIOMP5)",
                          c->libiomp5[0] ? "that library cannot be read"
                                         : "no --libiomp5 given and "
                                           "BINDLAB_LIBIOMP5 unset");
    return 0;
}

const char *bl_sweep_omp_app(const bl_sweep_ctx *c, const bl_layout *l)
{
    return strcmp(l->omp_runtime, BL_OMP_LIBOMP) == 0 ? c->app_libomp
                                                      : c->app;
}

/* The runtime libgomp.so.1 stands for in a layout's ranks, NULL: none. */
static const char *alias_target(const bl_sweep_ctx *c, const bl_layout *l)
{
    if (strcmp(l->omp_runtime, BL_OMP_LIBOMP) == 0)
        return c->libomp;
    if (strcmp(l->omp_runtime, BL_OMP_INTEL) == 0)
        return c->libiomp5;
    return NULL;
}

static void alias_dir(const bl_sweep_ctx *c, const bl_layout *l, char *buf,
                      size_t len)
{
    bl_textf(buf, len, "%s/omp-alias/%s", c->dir, l->omp_runtime);
}

int bl_sweep_omp_prepare(const bl_sweep_ctx *c, const bl_layout *l,
                         bl_err *err)
{
    const char *target = alias_target(c, l);
    char dir[PATH_MAX], link[PATH_MAX + 16], abs[PATH_MAX], now[PATH_MAX];
    ssize_t n;
    if (!target)
        return 0;
    if (!realpath(target, abs))
        return bl_err_set(err, "omp_runtime %s: %s: %s", l->omp_runtime,
                          target, strerror(errno));
    alias_dir(c, l, dir, sizeof dir);
    bl_textf(link, sizeof link, "%s/" ALIAS_NAME, dir);
    n = readlink(link, now, sizeof now - 1);
    if (n > 0 && (now[n] = '\0', strcmp(now, abs) == 0))
        return 0;
    if (bl_mkdir_p(dir, err) < 0)
        return -1;
    unlink(link);
    if (symlink(abs, link) < 0)
        return bl_err_set(err, "omp_runtime %s: %s: %s", l->omp_runtime,
                          link, strerror(errno));
    return 0;
}

char *const *bl_sweep_omp_env(const bl_sweep_ctx *c, const bl_layout *l,
                              bl_sweep_omp_words *w)
{
    const char *old = getenv("LD_LIBRARY_PATH");
    char dir[PATH_MAX];
    int n = 0;
    if (!alias_target(c, l))
        return NULL;
    alias_dir(c, l, dir, sizeof dir);
    if (bl_textf(w->path, sizeof w->path, "LD_LIBRARY_PATH=%s%s%s", dir,
                 old && *old ? ":" : "", old ? old : "") < 0)
        return NULL;
    w->env[n++] = w->path;
    if (strcmp(l->omp_runtime, BL_OMP_INTEL) == 0 &&
        bl_textf(w->preload, sizeof w->preload, "LD_PRELOAD=%s",
                 c->libiomp5) == 0)
        w->env[n++] = w->preload;
    w->env[n] = NULL;
    return w->env;
}

static void add_flag(char *flags, size_t len, const char *flag)
{
    size_t used = strlen(flags);
    if (!bl_list_has(flags, ",", flag, strlen(flag)))
        snprintf(flags + used, len - used, "%s%s", used ? "," : "", flag);
}

void bl_sweep_omp_judge(const bl_layout *l, const bl_h5_run *ap,
                        bl_h5_harness *h, char *flags, size_t len)
{
    char why[1024];
    if (!ap || !ap->omp_runtime)
        return;
    if (ap->omp_runtimes_other && ap->omp_runtimes_other[0])
        add_flag(flags, len, "two-omp-runtimes");
    if (!l->omp_runtime[0] || strcmp(l->omp_runtime, ap->omp_runtime) == 0)
        return;
    add_flag(flags, len, "omp-runtime-mismatch");
    if (!h->status || strcmp(h->status, "ok") != 0)
        return;
    snprintf(why, sizeof why, "omp_runtime: asked %s, but the ranks' OpenMP "
             "calls went to %s %s (%s)", l->omp_runtime, ap->omp_runtime,
             ap->omp_runtime_version ? ap->omp_runtime_version : "",
             ap->omp_runtime_path ? ap->omp_runtime_path : "");
    free(h->status);
    free(h->reason);
    h->status = strdup("failed");
    h->reason = strdup(why);
}
