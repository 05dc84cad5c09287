/* The CPUs the OpenMP variables name, for `bindlab check`: which of
 * OMP_PLACES, GOMP_CPU_AFFINITY and KMP_AFFINITY's proclist is in effect
 * for the runtime, CPUs it names outside the process's allowed set, and
 * threads given SMT siblings of one core while whole cores idle. */
#include "placement_check.h"
#include "placement_check_priv.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpuset.h"
#include "omp_syntax.h"

/* Which variable places the threads. */
typedef enum { BY_OMP, BY_GOMP, BY_KMP } source;

static source in_effect(const bl_pcheck_state *s)
{
    if (bl_pcheck_llvm(s))
        return bl_pcheck_kmp_binds(s->kmp_affinity) ? BY_KMP
               : s->gomp_cpu_affinity              ? BY_GOMP
                                                   : BY_OMP;
    /* libgomp: OMP_PLACES first, then GOMP_CPU_AFFINITY */
    return s->gomp_cpu_affinity && !s->omp_places ? BY_GOMP : BY_OMP;
}

/* "N", "N-M" or "N-M:S" at *p, each CPU as a place of its own. */
static int cpu_range(const char **p, bl_omp_place_list *l)
{
    char *end;
    long lo = strtol(*p, &end, 10), hi = lo, stride = 1;
    if (end == *p || lo < 0)
        return -1;
    if (*end == '-') {
        const char *q = end + 1;
        hi = strtol(q, &end, 10);
        if (end == q || hi < lo)
            return -1;
        if (*end == ':') {
            q = end + 1;
            stride = strtol(q, &end, 10);
            if (end == q || stride < 1)
                return -1;
        }
    }
    if (hi > BL_CPUSET_MAX_INDEX)
        return -1;
    for (long c = lo; c <= hi; c += stride) {
        hwloc_bitmap_t one = hwloc_bitmap_alloc();
        if (one)
            hwloc_bitmap_only(one, (unsigned)c);
        if (bl_omp_place_push(l, one) < 0)
            return -1;
    }
    *p = end;
    return 0;
}

/* GOMP_CPU_AFFINITY ("0 3 1-2 4-15:2", blanks or commas between): one
 * place per CPU in the order given, as libgomp makes them. */
static int gomp_places(const char *text, bl_omp_place_list *l)
{
    const char *p = text;
    for (;;) {
        p += strspn(p, " \t,");
        if (!*p)
            return l->n ? 0 : -1;
        if (!isdigit((unsigned char)*p) || cpu_range(&p, l) < 0)
            return -1;
        if (*p && !strchr(" \t,", *p))
            return -1;
    }
}

/* The CPUs of KMP_AFFINITY's "proclist=[0,{1,2},4-7]"; 0 when none. */
static int kmp_proclist(const char *kmp, hwloc_bitmap_t cpus)
{
    const char *p = kmp ? strstr(kmp, "proclist=[") : NULL;
    bl_omp_place_list l = {0};
    int rc = 0;
    if (!p)
        return 0;
    for (p += strlen("proclist=["); rc == 0 && *p && *p != ']';) {
        if (strchr("{}, \t", *p))
            p++;
        else if (cpu_range(&p, &l) < 0)
            rc = -1;
    }
    for (int i = 0; i < l.n; i++)
        hwloc_bitmap_or(cpus, cpus, l.v[i]);
    bl_omp_places_free(l.v, l.n);
    return rc == 0 && *p == ']' ? 0 : -1;
}

/* What the runtime does with CPUs outside the allowed set. */
static void outside(const bl_pcheck_state *s, const char *var, const char *value,
                    hwloc_const_bitmap_t out, int nplaces, int kept,
                    bl_pcheck_findings *f)
{
    char head[BL_PCHECK_TEXT * 2], did[BL_PCHECK_TEXT * 2];
    snprintf(head, sizeof head, "%s='%s' names CPU%s %s, outside the CPUs this "
             "process may use (%s)", var, value, bl_pcheck_plural(out),
             bl_pcheck_list_text(out).s, bl_pcheck_list_text(s->cpus).s);
    if (bl_pcheck_llvm(s))
        snprintf(did, sizeof did, "%s prints \"OMP: Warning #124: Ignoring "
                 "invalid OS proc ID %d.\" for each%s",
                 s->omp_runtime == BL_OMP_RT_INTEL ? "Intel's libiomp5" : "libomp",
                 hwloc_bitmap_first(out),
                 kept ? " and binds to the others"
                      : " and then \"OMP: Warning #125: No valid OS proc IDs "
                        "specified - not using affinity.\": threads are not bound");
    else if (strcmp(var, "GOMP_CPU_AFFINITY") == 0)
        snprintf(did, sizeof did, "libgomp binds threads there anyway, "
                 "outside the binding taskset or mpirun gave; where a cgroup "
                 "cpuset excludes the CPU or it does not exist, the program "
                 "stops with \"libgomp: Thread creation failed: Invalid "
                 "argument\"");
    else if (kept == 0)
        snprintf(did, sizeof did, "libgomp prints \"libgomp: None of the "
                 "places contain usable logical CPUs\" and ignores OMP_PLACES");
    else if (kept < nplaces)
        snprintf(did, sizeof did, "libgomp prints \"libgomp: Number of places "
                 "reduced from %d to %d because some places didn't contain any "
                 "usable logical CPUs\" and binds to the %d left",
                 nplaces, kept, kept);
    else
        snprintf(did, sizeof did, "libgomp cuts them out of their places "
                 "without a word");
    bl_pcheck_add(f, "places-outside-allowed", BL_PCHECK_WARNING, "%s: %s",
                  head, did);
}

void bl_pcheck_places_outside(const bl_pcheck_state *s, bl_pcheck_findings *f)
{
    bl_omp_place_list l = {0};
    hwloc_bitmap_t named = hwloc_bitmap_alloc(), out = hwloc_bitmap_alloc();
    const char *var = NULL, *value = NULL;
    int kept = 0, ok = -1;
    bl_omp_level lv;
    long count;
    bl_err e;
    switch (in_effect(s)) {
    case BY_KMP:
        var = "KMP_AFFINITY", value = s->kmp_affinity;
        ok = kmp_proclist(value, named);
        break;
    case BY_GOMP:
        var = "GOMP_CPU_AFFINITY", value = s->gomp_cpu_affinity;
        ok = gomp_places(value, &l);
        break;
    case BY_OMP:
        var = "OMP_PLACES", value = s->omp_places;
        if (value && bl_omp_places_name(value, &lv, &count, &e) == 0) {
            int n = 0;
            ok = bl_omp_places_explicit(value, &l.v, &n, &e);
            l.n = n;
        }
        break;
    }
    for (int i = 0; ok == 0 && i < l.n; i++) {
        hwloc_bitmap_or(named, named, l.v[i]);
        kept += hwloc_bitmap_intersects(l.v[i], s->cpus);
    }
    if (ok == 0 && l.n == 0) /* a proclist: one set */
        kept = hwloc_bitmap_intersects(named, s->cpus);
    hwloc_bitmap_andnot(out, named, s->cpus);
    if (ok == 0 && !hwloc_bitmap_iszero(out) && !hwloc_bitmap_iszero(s->cpus))
        outside(s, var, value, out, l.n, kept, f);
    else if (ok < 0 && var && value && strcmp(var, "GOMP_CPU_AFFINITY") == 0)
        bl_pcheck_add(f, "gomp-cpu-affinity-invalid", BL_PCHECK_WARNING,
            "GOMP_CPU_AFFINITY='%s' is not a list of CPUs (\"0 3 1-2 "
            "4-15:2\"): %s", value,
            bl_pcheck_llvm(s) ? "LLVM's runtime prints \"OMP: Warning #65: "
                      "GOMP_CPU_AFFINITY: syntax error, not using "
                      "affinity.\" (libomp 14 then crashed: \"munmap_chunk(): "
                      "invalid pointer\")"
                    : "libgomp prints \"libgomp: Invalid value for enviroment "
                      "variable GOMP_CPU_AFFINITY\" and binds nothing");
    bl_omp_places_free(l.v, l.n);
    hwloc_bitmap_free(named);
    hwloc_bitmap_free(out);
}

/* ---- SMT siblings ------------------------------------------------------ */

/* The core of CPU c, -1 when unknown. */
static int core(const bl_pcheck_state *s, int c)
{
    return c >= 0 && c < s->cpu_slots ? s->core_of[c] : -1;
}

/* OMP_PLACES=threads as libgomp and libiomp5 order it: the allowed CPUs
 * core by core, cores by their first CPU. */
static int thread_places(const bl_pcheck_state *s, bl_omp_place_list *l)
{
    hwloc_bitmap_t left = hwloc_bitmap_dup(s->cpus);
    int c, rc = 0;
    while (rc == 0 && (c = hwloc_bitmap_first(left)) >= 0) {
        int k = core(s, c), d, from = l->n;
        hwloc_bitmap_foreach_begin(d, left)
            if (d == c || (k >= 0 && core(s, d) == k)) {
                hwloc_bitmap_t one = hwloc_bitmap_alloc();
                if (one)
                    hwloc_bitmap_only(one, (unsigned)d);
                if (bl_omp_place_push(l, one) < 0)
                    rc = -1;
            }
        hwloc_bitmap_foreach_end();
        for (int i = from; i < l->n; i++)
            hwloc_bitmap_andnot(left, left, l->v[i]);
        hwloc_bitmap_clr(left, (unsigned)c); /* also when out of memory */
    }
    hwloc_bitmap_free(left);
    return rc;
}

/* The places the threads are bound to, cut to the allowed CPUs; 0 places
 * when the rule does not apply (cores, sockets: no two threads share a
 * core while cores idle; KMP_AFFINITY: its own model). */
static int smt_places(const bl_pcheck_state *s, bl_omp_place_list *l,
                      const char **what)
{
    bl_omp_level lv;
    long count;
    bl_err e;
    source by = in_effect(s);
    if (by == BY_KMP)
        return 0;
    if (by == BY_GOMP) {
        *what = "GOMP_CPU_AFFINITY";
        return gomp_places(s->gomp_cpu_affinity, l) < 0 ? -1 : 0;
    }
    int named = bl_omp_places_name(s->omp_places, &lv, &count, &e);
    if (named < 0) /* ignored (libgomp), cores (libomp), threads (Intel) */
        named = 1, lv = s->omp_runtime == BL_OMP_RT_LIBOMP
                            ? BL_OMP_LEVEL_CORES : BL_OMP_LEVEL_THREADS;
    if (named && !(s->omp_places && *s->omp_places) && bl_pcheck_llvm(s))
        lv = BL_OMP_LEVEL_CORES; /* LLVM's default places are cores */
    *what = s->omp_places && *s->omp_places ? "OMP_PLACES" : "OMP_PLACES unset";
    if (!named) {
        int n = 0, rc = bl_omp_places_explicit(s->omp_places, &l->v, &n, &e);
        l->n = n;
        return rc;
    }
    return lv == BL_OMP_LEVEL_THREADS ? thread_places(s, l) : 0;
}

/* The place of thread i of n over p places: close deals them out in order,
 * spread (n <= p) gives each a partition of p/n places (the first p%n one
 * more) and its first place, as libgomp does. */
static int place_of(int i, int n, int p, int spread)
{
    if (!spread)
        return i % p;
    int size = p / n, rest = p % n;
    return i * size + (i < rest ? i : rest);
}

/* n threads over the places of l: the cores two of them share (each on a
 * place inside that core) and the allowed cores none of them touches. */
static void smt_judge(const bl_pcheck_state *s, const bl_omp_place_list *l,
                      long n, int spread, hwloc_bitmap_t shared,
                      hwloc_bitmap_t idle, hwloc_bitmap_t cpus)
{
    hwloc_bitmap_t once = hwloc_bitmap_alloc(), touched = hwloc_bitmap_alloc();
    int c;
    for (long i = 0; i < n; i++) {
        hwloc_const_bitmap_t pl = l->v[place_of((int)i, (int)n, l->n, spread)];
        int k = -2, one_core = 1;
        hwloc_bitmap_foreach_begin(c, pl)
            hwloc_bitmap_set(touched, (unsigned)(core(s, c) < 0 ? c : core(s, c)));
            one_core &= k == -2 || core(s, c) == k;
            k = core(s, c);
        hwloc_bitmap_foreach_end();
        if (!one_core || k < 0)
            continue;
        if (hwloc_bitmap_isset(once, (unsigned)k))
            hwloc_bitmap_set(shared, (unsigned)k);
        hwloc_bitmap_set(once, (unsigned)k);
        hwloc_bitmap_or(cpus, cpus, pl);
    }
    hwloc_bitmap_foreach_begin(c, s->cpus)
        if (core(s, c) >= 0 && !hwloc_bitmap_isset(touched, (unsigned)core(s, c)))
            hwloc_bitmap_set(idle, (unsigned)core(s, c));
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(once);
    hwloc_bitmap_free(touched);
}

void bl_pcheck_smt(const bl_pcheck_state *s, long n, bl_pcheck_findings *f)
{
    char bind[64] = "";
    bl_omp_bind b = BL_OMP_BIND_UNSET;
    bl_err e;
    if (!s->core_of || n < 2)
        return;
    if (s->omp_proc_bind && bl_omp_parse_bind(s->omp_proc_bind, &b, &e) == 0)
        bl_pcheck_first_item(s->omp_proc_bind, bind, sizeof bind);
    int spread = b == BL_OMP_BIND_SPREAD ||
                 (b == BL_OMP_BIND_UNSET && bl_pcheck_llvm(s) && s->omp_places);
    int bound = b == BL_OMP_BIND_CLOSE || b == BL_OMP_BIND_TRUE || spread ||
                (b == BL_OMP_BIND_UNSET && s->omp_places) ||
                in_effect(s) == BY_GOMP;
    bl_omp_place_list l = {0};
    const char *what = "";
    if (!bound || b == BL_OMP_BIND_PRIMARY || b == BL_OMP_BIND_FALSE ||
        smt_places(s, &l, &what) < 0 || l.n == 0 || n > l.n) {
        bl_omp_places_free(l.v, l.n);
        return;
    }
    if (in_effect(s) == BY_GOMP)
        spread = 0;
    for (int i = 0; i < l.n; i++) /* as the runtimes do: allowed CPUs only */
        hwloc_bitmap_and(l.v[i], l.v[i], s->cpus);
    int kept = 0;
    for (int i = 0; i < l.n; i++)
        if (hwloc_bitmap_iszero(l.v[i]))
            hwloc_bitmap_free(l.v[i]);
        else
            l.v[kept++] = l.v[i];
    l.n = kept;
    hwloc_bitmap_t shared = hwloc_bitmap_alloc(), idle = hwloc_bitmap_alloc(),
                   cpus = hwloc_bitmap_alloc();
    if (l.n >= n)
        smt_judge(s, &l, n, spread, shared, idle, cpus);
    char src[BL_PCHECK_TEXT];
    if (strcmp(what, "OMP_PLACES") == 0)
        snprintf(src, sizeof src, "OMP_PLACES=%s", s->omp_places);
    else if (strcmp(what, "GOMP_CPU_AFFINITY") == 0)
        snprintf(src, sizeof src, "GOMP_CPU_AFFINITY='%s'", s->gomp_cpu_affinity);
    else
        snprintf(src, sizeof src, "OMP_PLACES unset (one place per CPU)");
    if (!hwloc_bitmap_iszero(shared) && !hwloc_bitmap_iszero(idle))
        bl_pcheck_add(f, "smt-siblings", BL_PCHECK_WARNING,
            "%s with OMP_PROC_BIND=%s puts the %ld threads on CPUs %s, two "
            "or more sharing core%s %s (one CPU or its SMT siblings), while "
            "core%s %s of the process stay%s idle (cores named by their "
            "first CPU); use OMP_PLACES=cores or OMP_PROC_BIND=spread",
            src, bind[0] ? bind : spread ? "spread (the default)" : "true", n,
            bl_pcheck_list_text(cpus).s, bl_pcheck_plural(shared),
            bl_pcheck_list_text(shared).s, bl_pcheck_plural(idle),
            bl_pcheck_list_text(idle).s,
            hwloc_bitmap_weight(idle) == 1 ? "s" : "");
    bl_omp_places_free(l.v, l.n);
    hwloc_bitmap_free(shared);
    hwloc_bitmap_free(idle);
    hwloc_bitmap_free(cpus);
}
