/* The OpenMP rules of `bindlab check`, judged for the runtime that will
 * read the variables (s->omp_runtime; unknown is judged as libgomp): what
 * each runtime does with a value is what it was seen to do, and the texts
 * quote the runtime's own message (docs/openmp-model.md, "Linting the
 * OpenMP variables"). The CPU lists (places outside the allowed CPUs, SMT
 * siblings) are in placement_check_omp_cpus.c. */
#include "placement_check.h"
#include "placement_check_priv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "omp_syntax.h"

/* The runtime's name in a sentence. */
static const char *who(const bl_pcheck_state *s)
{
    switch (s->omp_runtime) {
    case BL_OMP_RT_LIBOMP:
        return "libomp";
    case BL_OMP_RT_INTEL:
        return "Intel's libiomp5";
    default:
        return "libgomp";
    }
}

/* LLVM's parser refuses two forms libgomp takes (seen with libomp 14 and
 * libiomp5 2026): white space around a name (" threads ") and '!' inside
 * a place ("{0,1,!1}"). */
static const char *llvm_refuses(const char *places)
{
    size_t n = strlen(places);
    if (n && (isspace((unsigned char)places[0]) ||
              isspace((unsigned char)places[n - 1])))
        return "white space before or after the value";
    int inside = 0;
    for (const char *p = places; *p; p++) {
        inside += *p == '{' ? 1 : *p == '}' ? -1 : 0;
        if (inside > 0 && *p == '!')
            return "'!' inside a place";
    }
    return NULL;
}

/* What the runtime does instead of an OMP_PLACES it cannot read. */
static void places_invalid(const bl_pcheck_state *s, const char *why,
                           bl_pcheck_findings *f)
{
    if (s->omp_runtime == BL_OMP_RT_LIBOMP)
        bl_pcheck_add(f, "omp-places-invalid", BL_PCHECK_WARNING,
            "%s: libomp prints \"OMP: Warning #250: OMP_PLACES: syntax "
            "error, using \"cores\".\" and binds the threads to cores "
            "instead (spread unless OMP_PROC_BIND says otherwise)", why);
    else if (s->omp_runtime == BL_OMP_RT_INTEL)
        bl_pcheck_add(f, "omp-places-invalid", BL_PCHECK_WARNING,
            "%s: Intel's libiomp5 prints \"OMP: Warning #251: OMP_PLACES: "
            "syntax error, using threads.\" and binds the threads to "
            "hardware threads instead (spread unless OMP_PROC_BIND says "
            "otherwise)", why);
    else
        bl_pcheck_add(f, "omp-places-invalid", BL_PCHECK_WARNING,
            "%s: libgomp prints \"libgomp: Invalid value for environment "
            "variable OMP_PLACES\" and ignores OMP_PLACES (%s)", why,
            s->omp_proc_bind ? "one place per hardware thread, as unset"
                             : "threads are not bound");
}

static void check_places_syntax(const bl_pcheck_state *s, bl_pcheck_findings *f)
{
    bl_err e = {0};
    bl_omp_level lv;
    long count;
    hwloc_bitmap_t *places = NULL;
    int n = 0;
    const char *refused;
    if (!s->omp_places || !*s->omp_places)
        return;
    int named = bl_omp_places_name(s->omp_places, &lv, &count, &e);
    if (named == 0 &&
        bl_omp_places_explicit(s->omp_places, &places, &n, &e) < 0)
        named = -1;
    bl_omp_places_free(places, n);
    if (named < 0) {
        places_invalid(s, e.msg, f);
    } else if (bl_pcheck_llvm(s) && (refused = llvm_refuses(s->omp_places))) {
        char why[BL_PCHECK_TEXT * 2];
        snprintf(why, sizeof why,
                 "OMP_PLACES '%s': %s, which libgomp accepts but %s does not",
                 s->omp_places, refused, who(s));
        places_invalid(s, why, f);
    }
}

static void check_bind_syntax(const bl_pcheck_state *s, bl_pcheck_findings *f)
{
    bl_err e = {0};
    bl_omp_bind bind;
    if (!s->omp_proc_bind || bl_omp_parse_bind(s->omp_proc_bind, &bind, &e) == 0)
        return;
    if (bl_pcheck_llvm(s))
        bl_pcheck_add(f, "omp-proc-bind-invalid", BL_PCHECK_WARNING,
            "%s: %s prints \"OMP: Warning #42: OMP_PROC_BIND: \"%s\" is an "
            "invalid value; ignored.\" and runs with OMP_PROC_BIND false "
            "(as OMP_DISPLAY_ENV=true shows)", e.msg, who(s), s->omp_proc_bind);
    else
        bl_pcheck_add(f, "omp-proc-bind-invalid", BL_PCHECK_WARNING,
            "%s: libgomp prints \"libgomp: Invalid value for environment "
            "variable OMP_PROC_BIND\" and ignores it (%s)", e.msg,
            s->omp_places ? "threads are bound to OMP_PLACES, as with "
                            "OMP_PROC_BIND=true"
                          : "threads are not bound");
}

/* KMP_* under libgomp; KMP_AFFINITY and GOMP_CPU_AFFINITY overriding the
 * OMP_* variables under LLVM's runtimes. */
static void check_runtime_vars(const bl_pcheck_state *s, bl_pcheck_findings *f)
{
    const char *omp = s->omp_places && s->omp_proc_bind ? "OMP_PLACES and OMP_PROC_BIND"
                      : s->omp_places                   ? "OMP_PLACES"
                      : s->omp_proc_bind                ? "OMP_PROC_BIND"
                                                        : NULL;
    int kmp = bl_pcheck_kmp_binds(s->kmp_affinity);
    if (!bl_pcheck_llvm(s)) {
        const char *by = s->omp_places ? "OMP_PLACES and OMP_PROC_BIND"
                         : s->gomp_cpu_affinity ? "GOMP_CPU_AFFINITY"
                         : s->omp_proc_bind ? "OMP_PROC_BIND"
                                            : "no variable: they are not bound";
        if (s->kmp_affinity || s->kmp_hw_subset)
            bl_pcheck_add(f, "kmp-ignored", BL_PCHECK_WARNING,
                "%s=%s is set, but libgomp reads no KMP_* variable and "
                "ignores it: threads are placed by %s",
                s->kmp_affinity ? "KMP_AFFINITY" : "KMP_HW_SUBSET",
                s->kmp_affinity ? s->kmp_affinity : s->kmp_hw_subset, by);
        if (s->gomp_cpu_affinity && s->omp_places)
            bl_pcheck_add(f, "gomp-cpu-affinity-ignored", BL_PCHECK_WARNING,
                "GOMP_CPU_AFFINITY='%s' is set, but OMP_PLACES is too and "
                "libgomp uses OMP_PLACES only", s->gomp_cpu_affinity);
        return;
    }
    if (kmp && omp)
        bl_pcheck_add(f, "kmp-affinity-overrides", BL_PCHECK_WARNING,
            "KMP_AFFINITY=%s decides the binding: %s prints \"OMP: Warning "
            "#182: %s: ignored because KMP_AFFINITY has been defined\", so "
            "%s %s no effect; unset one of them",
            s->kmp_affinity, who(s), s->omp_places ? "OMP_PLACES" : "OMP_PROC_BIND",
            omp, strchr(omp, ' ') ? "have" : "has");
    if (kmp && s->gomp_cpu_affinity)
        bl_pcheck_add(f, "gomp-cpu-affinity-ignored", BL_PCHECK_WARNING,
            "GOMP_CPU_AFFINITY='%s' is set, but %s prints \"OMP: Warning "
            "#182: GOMP_CPU_AFFINITY: ignored because KMP_AFFINITY has been "
            "defined\" and binds as KMP_AFFINITY=%s says",
            s->gomp_cpu_affinity, who(s), s->kmp_affinity);
    else if (s->gomp_cpu_affinity && omp)
        bl_pcheck_add(f, "gomp-cpu-affinity-overrides", BL_PCHECK_WARNING,
            "GOMP_CPU_AFFINITY='%s' decides the binding: %s binds thread i "
            "to its i-th CPU and prints \"OMP: Warning #182: %s: ignored "
            "because GOMP_CPU_AFFINITY has been defined\", so %s %s no effect",
            s->gomp_cpu_affinity, who(s),
            s->omp_places ? "OMP_PLACES" : "OMP_PROC_BIND", omp,
            strchr(omp, ' ') ? "have" : "has");
    if (s->kmp_hw_subset)
        bl_pcheck_add(f, "kmp-hw-subset",
            omp || kmp ? BL_PCHECK_WARNING : BL_PCHECK_NOTE,
            "KMP_HW_SUBSET=%s: %s sees only that part of the machine and "
            "builds %s from it, so threads may share the CPUs it keeps "
            "while the others stay idle (KMP_HW_SUBSET=1c with "
            "OMP_PROC_BIND=close puts two threads on one CPU)",
            s->kmp_hw_subset, who(s),
            omp ? "the places of OMP_PLACES and OMP_PROC_BIND"
                : kmp ? "KMP_AFFINITY's places" : "its places");
}

/* The rules that read OMP_PROC_BIND and OMP_NUM_THREADS as values. */
static void check_values(const bl_pcheck_state *s, bl_pcheck_findings *f)
{
    char bind[64] = "";
    if (s->omp_proc_bind)
        bl_pcheck_first_item(s->omp_proc_bind, bind, sizeof bind);
    int places = s->omp_places && *s->omp_places;
    if (places && !s->omp_proc_bind)
        bl_pcheck_add(f, "omp-places-without-bind", BL_PCHECK_WARNING,
            "OMP_PLACES=%s is set but OMP_PROC_BIND is not: whether threads "
            "are bound to those places is up to the OpenMP runtime (%s: %s); "
            "set OMP_PROC_BIND=close or spread to say it",
            s->omp_places, who(s), bl_pcheck_llvm(s) ? "spread" : "true, as close");
    if (s->omp_proc_bind && strcasecmp(bind, "false") == 0)
        bl_pcheck_add(f, "omp-proc-bind-false", BL_PCHECK_WARNING,
            "OMP_PROC_BIND=%s: OpenMP threads are not bound and may move "
            "between the process's CPUs, leaving their first-touched "
            "memory behind%s; set OMP_PROC_BIND=close or spread",
            s->omp_proc_bind, places ? " (OMP_PLACES is ignored)" : "");
    if (!s->omp_num_threads)
        return;
    char first[64];
    char *end;
    bl_pcheck_first_item(s->omp_num_threads, first, sizeof first);
    long n = strtol(first, &end, 10);
    int ncpus = hwloc_bitmap_weight(s->cpus), granted = 0;
    if (s->slurm_cpus_on_node > 0 && s->slurm_cpus_on_node < ncpus) {
        ncpus = s->slurm_cpus_on_node; /* what the job was granted */
        granted = 1;
    }
    if (end == first || *end || n < 1)
        bl_pcheck_add(f, "omp-num-threads-invalid", BL_PCHECK_WARNING,
            "OMP_NUM_THREADS=%s is not a positive number: the OpenMP "
            "runtime ignores it and starts one thread per CPU",
            s->omp_num_threads);
    else if (ncpus > 0 && n > ncpus)
        bl_pcheck_add(f, "omp-threads-exceed-cpus", BL_PCHECK_WARNING,
            "OMP_NUM_THREADS=%ld but this process may run on %d CPU%s "
            "(%s%s): threads share CPUs and take turns; use at most %d "
            "thread%s or give the process more CPUs",
            n, ncpus, ncpus == 1 ? "" : "s",
            granted ? "SLURM_CPUS_ON_NODE, of " : "",
            bl_pcheck_list_text(s->cpus).s, ncpus, ncpus == 1 ? "" : "s");
    else
        bl_pcheck_smt(s, n, f);
}

void bl_pcheck_openmp(const bl_pcheck_state *s, bl_pcheck_findings *f)
{
    check_places_syntax(s, f);
    check_bind_syntax(s, f);
    check_runtime_vars(s, f);
    bl_pcheck_places_outside(s, f);
    check_values(s, f);
}
