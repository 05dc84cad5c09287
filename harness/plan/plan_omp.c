/* OMP_PROC_BIND into a policy, and the policy into one place per thread
 * (OMP_PLACES into places is plan_omp_places.c; the syntax of both is
 * common/omp_syntax.c). The assignment follows the
 * specification's close/spread/primary rules with libgomp's choices where
 * the specification leaves one (docs/openmp-model.md). */
#include "plan/plan_omp.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpuset.h"
#include "grow.h"
#include "plan/plan_kmp.h"

/* ---- the team ---------------------------------------------------------- */

/* Which of the P places (counted from the parent's) thread i of T > P gets. */
static int crowded_index(bl_omp_flavour fl, int i, int T, int P)
{
    int s = T / P, rest = T % P;
    if (fl == BL_OMP_LIBGOMP) {
        /* s threads per place, then the last `rest` threads one per place
         * from the parent's place again (team.c: "if (i == nthreads - rest)
         * s = 1"). */
        int full = T - rest;
        return i < full ? i / s : i - full;
    }
    if (fl == BL_OMP_LLVM) {
        /* Consecutive thread numbers per place; the places 0, gap,
         * 2 gap, ... (rest of them) hold one thread more
         * (kmp_runtime.cpp, __kmp_partition_places). */
        int gap = rest ? P / rest : P, p = 0, first = 0;
        for (;; p++) {
            int n = s + (rest && p % gap == 0 && p / gap < rest);
            if (i < first + n)
                return p;
            first += n;
        }
    }
    /* Consecutive thread numbers per place; the first `rest` places hold
     * one thread more. */
    return i < rest * (s + 1) ? i / (s + 1) : rest + (i - rest * (s + 1)) / s;
}

/* LLVM's spread, T <= P: thread i starts at floor(i (P+1) / T) places
 * from the parent's, added up in double as the runtime does (the exact
 * S = P / T steps when T divides P); its partition runs to the place
 * before the next thread's. */
static void llvm_spread(int T, int P, int part_off, int rel, bl_omp_slot *out)
{
    double step = (double)(P + 1) / T, cur = rel;
    for (int i = 0; i < T; i++) {
        int first = P % T == 0 ? rel + i * (P / T) : (int)cur;
        int next = P % T == 0 ? first + P / T : (int)(cur + step);
        out[i].place = part_off + first % P;
        out[i].part_off = out[i].place;
        out[i].part_len = next - first < 1 ? 1 : next - first;
        if (out[i].place + out[i].part_len > part_off + P)
            out[i].part_len = part_off + P - out[i].place;
        cur += step;
    }
}

int bl_omp_team(bl_omp_bind bind, bl_omp_flavour flavour, int nthreads,
                int parent, int part_off, int part_len, bl_omp_slot *out,
                bl_err *err)
{
    int T = nthreads, P = part_len;
    if (T < 1 || P < 1 || part_off < 0 || parent < part_off || parent >= part_off + P)
        return bl_err_set(err, "OpenMP team of %d threads, parent on place %d of "
                               "partition %d..%d: need threads >= 1 and the parent "
                               "inside a non-empty partition",
                          T, parent, part_off, part_off + P - 1);
    if (bind != BL_OMP_BIND_TRUE && bind != BL_OMP_BIND_PRIMARY &&
        bind != BL_OMP_BIND_CLOSE && bind != BL_OMP_BIND_SPREAD)
        return bl_err_set(err, "OpenMP team: proc_bind must be true, primary, close or spread");
    int rel = parent - part_off;
    if (flavour == BL_OMP_LLVM && T <= P && bind == BL_OMP_BIND_SPREAD) {
        llvm_spread(T, P, part_off, rel, out);
        return 0;
    }
    for (int i = 0; i < T; i++) {
        bl_omp_slot *s = &out[i];
        s->part_off = part_off;
        s->part_len = P;
        if (bind == BL_OMP_BIND_PRIMARY) {
            s->place = parent;
        } else if (T > P) {
            s->place = part_off + (rel + crowded_index(flavour, i, T, P)) % P;
            if (bind == BL_OMP_BIND_SPREAD) { /* one-place subpartitions */
                s->part_off = s->place;
                s->part_len = 1;
            }
        } else if (bind != BL_OMP_BIND_SPREAD) {
            s->place = part_off + (rel + i) % P;
        } else {
            /* T subpartitions of q or q+1 consecutive places, the larger
             * ones first (libgomp; the specification leaves it open). The
             * parent keeps its place in the subpartition holding it, the
             * next threads take the first place of the following ones. */
            int q = P / T, r = P % T;
            int k0 = rel < r * (q + 1) ? rel / (q + 1) : r + (rel - r * (q + 1)) / q;
            int k = (k0 + i) % T;
            s->part_off = part_off + k * q + (k < r ? k : r);
            s->part_len = q + (k < r);
            s->place = i == 0 ? parent : s->part_off;
        }
    }
    return 0;
}

/* ---- one rank ---------------------------------------------------------- */

static int append_rows(bl_plan *plan, int rank, int nthreads,
                       hwloc_bitmap_t *places, const bl_omp_slot *slots,
                       hwloc_const_bitmap_t rank_pus, bl_err *err)
{
    bl_plan_thread *t = realloc(plan->threads, (plan->nthreads + (size_t)nthreads) * sizeof *t);
    if (!t)
        return bl_err_set(err, "out of memory for %d thread rows", nthreads);
    plan->threads = t;
    t += plan->nthreads;
    for (int i = 0; i < nthreads; i++) {
        t[i].rank = rank;
        t[i].thread = i;
        t[i].place = slots ? slots[i].place : -1;
        t[i].pus = hwloc_bitmap_dup(slots ? places[slots[i].place] : rank_pus);
        if (!t[i].pus) {
            while (i-- > 0)
                hwloc_bitmap_free(t[i].pus);
            return bl_err_set(err, "out of memory for %d thread rows", nthreads);
        }
    }
    plan->nthreads += (size_t)nthreads;
    return 0;
}

int bl_omp_runtime_parse(const char *name, bl_omp_runtime *out, bl_err *err)
{
    static const struct {
        const char *name;
        bl_omp_runtime rt;
    } names[] = {{"libgomp", BL_OMP_RT_LIBGOMP}, {"gnu", BL_OMP_RT_LIBGOMP},
                 {"libomp", BL_OMP_RT_LIBOMP},   {"llvm", BL_OMP_RT_LIBOMP},
                 {"intel", BL_OMP_RT_INTEL},     {"iomp5", BL_OMP_RT_INTEL},
                 {"libiomp5", BL_OMP_RT_INTEL}};
    for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i].name) == 0) {
            *out = names[i].rt;
            return 0;
        }
    return bl_err_set(err, "OpenMP runtime '%s': accepted: libgomp, libomp, "
                      "intel", name ? name : "");
}

const char *bl_omp_runtime_name(bl_omp_runtime rt)
{
    return rt == BL_OMP_RT_LIBOMP ? "libomp"
           : rt == BL_OMP_RT_INTEL ? "intel" : "libgomp";
}

static int is_set(const char *v)
{
    return v && v[strspn(v, " \t\n")] != '\0';
}

/* Which places and policy the runtime uses; *places NULL with
 * *bind FALSE: unbound. */
static int choose_places(hwloc_topology_t topo, hwloc_const_bitmap_t rank_pus,
                         const bl_omp_env *env, const char *gran_places,
                         bl_omp_bind *bind, hwloc_bitmap_t **places,
                         int *nplaces, bl_err *err)
{
    int llvm = env->runtime != BL_OMP_RT_LIBGOMP;
    int places_set = is_set(env->places);
    /* libgomp reads OMP_PLACES even when it will not bind, and rejects a
     * bad value either way; so does the model. */
    if (*bind != BL_OMP_BIND_FALSE || places_set) {
        if (bl_omp_places(topo, rank_pus, places_set ? env->places : NULL,
                          places, nplaces, err) < 0)
            return -1;
    }
    /* OMP_PLACES set but naming none of the rank's CPUs: libgomp reports
     * it and carries on as if OMP_PLACES were unset; libomp and Intel's
     * say "No valid OS proc IDs specified - not using affinity". */
    if (places_set && *nplaces == 0) {
        places_set = 0;
        if (llvm)
            *bind = BL_OMP_BIND_FALSE;
    }
    if (*bind == BL_OMP_BIND_UNSET)
        *bind = places_set ? BL_OMP_BIND_TRUE : BL_OMP_BIND_FALSE;
    /* true means spread to libomp and Intel's, close to libgomp */
    if (llvm && *bind == BL_OMP_BIND_TRUE)
        *bind = BL_OMP_BIND_SPREAD;
    if (*bind != BL_OMP_BIND_FALSE && !places_set) {
        /* default places: one per PU for libgomp (gomp_init_affinity),
         * one per core for libomp and Intel's (granularity=core), or the
         * KMP_AFFINITY granularity's */
        bl_omp_places_free(*places, *nplaces);
        *places = NULL;
        *nplaces = 0;
        if (bl_omp_places(topo, rank_pus, llvm ? gran_places : NULL, places,
                          nplaces, err) < 0)
            return -1;
    }
    return 0;
}

static int append_masks(bl_plan *plan, int rank, int nthreads,
                        hwloc_bitmap_t *masks, hwloc_const_bitmap_t rank_pus,
                        bl_err *err)
{
    bl_omp_slot *slots = NULL;
    int rc;
    if (masks && !(slots = malloc((size_t)nthreads * sizeof *slots)))
        return bl_err_set(err, "out of memory for %d threads", nthreads);
    for (int i = 0; masks && i < nthreads; i++)
        slots[i] = (bl_omp_slot){i, 0, nthreads};
    rc = append_rows(plan, rank, nthreads, masks, slots, rank_pus, err);
    free(slots);
    return rc;
}

/* The granularity of KMP_AFFINITY as the default OMP_PLACES name. */
static const char *gran_places(const bl_kmp_affinity *k)
{
    return k->gran == BL_KMP_GRAN_THREAD   ? "threads"
           : k->gran == BL_KMP_GRAN_SOCKET ? "sockets" : "cores";
}

/* KMP_HW_SUBSET: into seen, the PUs the runtime sees. Ignored by libgomp
 * and, with affinity disabled, by libomp; Intel's runtime (2026.2) stops
 * on an assertion there. */
static int hw_subset(hwloc_topology_t topo, hwloc_const_bitmap_t rank_pus,
                     const bl_omp_env *env, const bl_kmp_affinity *kmp,
                     hwloc_bitmap_t seen, bl_err *err)
{
    bl_omp_runtime rt = env->runtime;
    if (is_set(env->kmp_hw_subset) && kmp->type == BL_KMP_DISABLED) {
        if (rt == BL_OMP_RT_INTEL)
            return bl_err_set(err, "KMP_HW_SUBSET '%s' with KMP_AFFINITY "
                              "disabled: Intel's runtime stops with an "
                              "assertion failure (OMP: Error #13)",
                              env->kmp_hw_subset);
        rt = BL_OMP_RT_LIBGOMP; /* read by neither */
    }
    return bl_omp_hw_subset(topo, rank_pus, rt, env->kmp_hw_subset, seen,
                            NULL, 0, err);
}

int bl_omp_assign_env(hwloc_topology_t topo, int rank,
                      hwloc_const_bitmap_t rank_pus, const bl_omp_env *env,
                      int nthreads, bl_plan *plan, bl_err *err)
{
    bl_omp_bind bind;
    bl_kmp_affinity kmp = {0};
    hwloc_bitmap_t *places = NULL;
    bl_omp_slot *slots = NULL;
    int nplaces = 0, rc, llvm = env->runtime != BL_OMP_RT_LIBGOMP;

    if (nthreads < 1)
        return bl_err_set(err, "OpenMP threads: %d; accepted: 1 or more", nthreads);
    if (bl_omp_parse_bind(env->proc_bind, &bind, err) < 0 ||
        (llvm && bl_kmp_affinity_parse(env->kmp_affinity, &kmp, err) < 0))
        return -1;
    if (!rank_pus || hwloc_bitmap_iszero(rank_pus))
        return bl_err_set(err, "rank %d: empty cpuset, no PU to place threads on", rank);
    hwloc_bitmap_t seen = hwloc_bitmap_alloc();
    if (!seen)
        return bl_err_set(err, "out of memory");
    if (hw_subset(topo, rank_pus, env, &kmp, seen, err) < 0) {
        hwloc_bitmap_free(seen);
        return -1;
    }
    rank_pus = seen; /* the runtime sees no other PU from here on */
    if (llvm && kmp.type != BL_KMP_UNSET) {
        /* a KMP_AFFINITY type overrides OMP_PROC_BIND and OMP_PLACES
         * ("OMP_PROC_BIND: ignored because KMP_AFFINITY has been
         * defined") */
        hwloc_bitmap_t *masks = NULL;
        rc = bl_omp_kmp_masks(topo, rank_pus, env->kmp_affinity, nthreads,
                              &masks, err);
        if (rc == 0)
            rc = append_masks(plan, rank, nthreads, masks, rank_pus, err);
        bl_omp_places_free(masks, masks ? nthreads : 0);
    } else if ((rc = choose_places(topo, rank_pus, env, gran_places(&kmp),
                                   &bind, &places, &nplaces, err)) < 0) {
        /* nothing to add */
    } else if (bind == BL_OMP_BIND_FALSE) {
        rc = append_rows(plan, rank, nthreads, NULL, NULL, rank_pus, err);
    } else if (!(slots = malloc((size_t)nthreads * sizeof *slots))) {
        rc = bl_err_set(err, "out of memory for %d threads", nthreads);
    } else {
        /* The initial thread sits on the first place (libgomp binds it
         * there before the first parallel region; so do the others). */
        rc = bl_omp_team(bind, llvm ? BL_OMP_LLVM : BL_OMP_LIBGOMP, nthreads,
                         0, 0, nplaces, slots, err);
        if (rc == 0)
            rc = append_rows(plan, rank, nthreads, places, slots, rank_pus, err);
    }
    if (rc == 0)
        snprintf(plan->runtime, sizeof plan->runtime, "%s%s",
                 env->runtime == BL_OMP_RT_INTEL ? "Intel" : bl_omp_runtime_name(env->runtime),
                 llvm ? " (modelled by bindlab)" : "");
    free(slots);
    bl_omp_places_free(places, nplaces);
    hwloc_bitmap_free(seen);
    return rc;
}

int bl_omp_assign(hwloc_topology_t topo, int rank, hwloc_const_bitmap_t rank_pus,
                  const char *omp_places, const char *omp_proc_bind,
                  int nthreads, bl_plan *plan, bl_err *err)
{
    bl_omp_env env = {BL_OMP_RT_LIBGOMP, omp_places, omp_proc_bind, NULL, NULL};
    return bl_omp_assign_env(topo, rank, rank_pus, &env, nthreads, plan, err);
}
