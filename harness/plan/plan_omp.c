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
    /* Consecutive thread numbers per place; the first `rest` places hold
     * one thread more. */
    return i < rest * (s + 1) ? i / (s + 1) : rest + (i - rest * (s + 1)) / s;
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

int bl_omp_assign(hwloc_topology_t topo, int rank, hwloc_const_bitmap_t rank_pus,
                  const char *omp_places, const char *omp_proc_bind,
                  int nthreads, bl_plan *plan, bl_err *err)
{
    bl_omp_bind bind;
    hwloc_bitmap_t *places = NULL;
    bl_omp_slot *slots = NULL;
    int nplaces = 0, rc;
    int places_set = omp_places && omp_places[strspn(omp_places, " \t\n")] != '\0';

    if (nthreads < 1)
        return bl_err_set(err, "OpenMP threads: %d; accepted: 1 or more", nthreads);
    if (bl_omp_parse_bind(omp_proc_bind, &bind, err) < 0)
        return -1;
    if (!rank_pus || hwloc_bitmap_iszero(rank_pus))
        return bl_err_set(err, "rank %d: empty cpuset, no PU to place threads on", rank);

    /* libgomp reads OMP_PLACES even when it will not bind, and rejects a
     * bad value either way; so does the model. */
    if (bind != BL_OMP_BIND_FALSE || places_set) {
        if (bl_omp_places(topo, rank_pus, places_set ? omp_places : NULL, &places,
                          &nplaces, err) < 0)
            return -1;
    }
    /* OMP_PLACES set but naming none of the rank's CPUs: libgomp reports it
     * and carries on as if OMP_PLACES were unset. */
    if (places_set && nplaces == 0)
        places_set = 0;
    if (bind == BL_OMP_BIND_UNSET)
        bind = places_set ? BL_OMP_BIND_TRUE : BL_OMP_BIND_FALSE;
    if (bind != BL_OMP_BIND_FALSE && nplaces == 0) {
        /* default places: one per PU (libgomp's gomp_init_affinity) */
        if (bl_omp_places(topo, rank_pus, NULL, &places, &nplaces, err) < 0)
            return -1;
    }
    if (bind == BL_OMP_BIND_FALSE) {
        rc = append_rows(plan, rank, nthreads, NULL, NULL, rank_pus, err);
    } else if (!(slots = malloc((size_t)nthreads * sizeof *slots))) {
        rc = bl_err_set(err, "out of memory for %d threads", nthreads);
    } else {
        /* The initial thread sits on the first place (libgomp binds it
         * there before the first parallel region). */
        rc = bl_omp_team(bind, BL_OMP_LIBGOMP, nthreads, 0, 0, nplaces, slots, err);
        if (rc == 0)
            rc = append_rows(plan, rank, nthreads, places, slots, rank_pus, err);
    }
    if (rc == 0)
        snprintf(plan->runtime, sizeof plan->runtime, "libgomp");
    free(slots);
    bl_omp_places_free(places, nplaces);
    return rc;
}
