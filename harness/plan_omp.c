/* OMP_PLACES into a list of places, OMP_PROC_BIND into a policy, and the
 * policy into one place per thread. The syntax and the place order follow
 * libgomp (libgomp/env.c, config/linux/affinity.c), which accepts what the
 * OpenMP 5.x grammar allows; the assignment follows the specification's
 * close/spread/primary rules with libgomp's choices where the specification
 * leaves one (docs/openmp-model.md). */
#include "plan_omp.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpuset.h"
#include "grow.h"

#define ACCEPTED_PLACES                                                      \
    "threads, cores, ll_caches, numa_domains or sockets, optionally with a " \
    "count (\"cores(4)\"), or an explicit list such as \"{0:4},{4:4}\", "    \
    "\"{0,1,2,3}\", \"{0:4:2}\" or \"{0:4}:2:8\""
#define ACCEPTED_BIND                                                       \
    "false, true, primary, master, close or spread, or a list of the last " \
    "four such as \"spread,close\""
/* libgomp refuses lists of more places than this. */
#define MAX_PLACES 65536

/* ---- a growing list of places ------------------------------------------ */

typedef struct place_list {
    hwloc_bitmap_t *v;
    int n;
    size_t cap;
} place_list;

/* Takes b; frees it when the list cannot grow. */
static int list_push(place_list *l, hwloc_bitmap_t b)
{
    if (!b)
        return -1;
    if (bl_grow(&l->v, sizeof *l->v, (size_t)l->n, &l->cap, 16) < 0) {
        hwloc_bitmap_free(b);
        return -1;
    }
    l->v[l->n++] = b;
    return 0;
}

void bl_omp_places_free(hwloc_bitmap_t *places, int nplaces)
{
    for (int i = 0; places && i < nplaces; i++)
        hwloc_bitmap_free(places[i]);
    free(places);
}

/* ---- explicit lists: "{0:4}:2:8,!{4,5},3" ------------------------------ */

typedef struct cursor {
    const char *text, *p;
    bl_err *err;
} cursor;

static void skip_ws(cursor *c)
{
    while (isspace((unsigned char)*c->p))
        c->p++;
}

static int syntax(const cursor *c, const char *what)
{
    return bl_err_set(c->err, "OMP_PLACES '%s': %s at character %d; accepted: %s",
                      c->text, what, (int)(c->p - c->text) + 1, ACCEPTED_PLACES);
}

/* A decimal number, signed only when allow_sign; |value| <= 2^20 keeps the
 * arithmetic below far from overflow. */
static int number(cursor *c, int allow_sign, long *out, const char *what)
{
    long v = 0, sign = 1;
    skip_ws(c);
    if (allow_sign && (*c->p == '-' || *c->p == '+'))
        sign = *c->p++ == '-' ? -1 : 1;
    if (!isdigit((unsigned char)*c->p))
        return syntax(c, what);
    while (isdigit((unsigned char)*c->p)) {
        v = v * 10 + (*c->p++ - '0');
        if (v > (1L << 20))
            return syntax(c, "number too large");
    }
    *out = sign * v;
    skip_ws(c);
    return 0;
}

/* ":len" and ":len:stride" after a CPU or a place; len >= 1. */
static int interval(cursor *c, long *len, long *stride)
{
    *len = 1;
    *stride = 1;
    if (*c->p != ':')
        return 0;
    c->p++;
    if (number(c, 0, len, "expected a count after ':'") < 0)
        return -1;
    if (*len < 1)
        return syntax(c, "a count must be at least 1");
    if (*c->p == ':') {
        c->p++;
        if (number(c, 1, stride, "expected a stride after ':'") < 0)
            return -1;
    }
    return 0;
}

static int cpu_ok(cursor *c, long cpu)
{
    if (cpu < 0 || cpu > BL_CPUSET_MAX_INDEX) {
        bl_err_set(c->err, "OMP_PLACES '%s': CPU %ld is out of range 0-%d",
                   c->text, cpu, BL_CPUSET_MAX_INDEX);
        return -1;
    }
    return 0;
}

/* "{0:4,!2}" or a bare "3" into place. CPUs after '!' are removed once all
 * others are added, so their position inside the braces does not matter
 * (libgomp's two passes). */
static int one_place(cursor *c, hwloc_bitmap_t place)
{
    long num, len, stride;
    hwloc_bitmap_zero(place);
    if (*c->p != '{') {
        if (number(c, 0, &num, "expected '{' or a CPU number") < 0 || cpu_ok(c, num) < 0)
            return -1;
        hwloc_bitmap_set(place, (unsigned)num);
        return 0;
    }
    c->p++;
    hwloc_bitmap_t removed = hwloc_bitmap_alloc();
    if (!removed)
        return bl_err_set(c->err, "out of memory");
    for (;;) {
        skip_ws(c);
        int negate = *c->p == '!';
        if (negate)
            c->p++;
        if (number(c, 0, &num, "expected a CPU number") < 0)
            goto fail;
        if (negate && *c->p == ':') {
            syntax(c, "an excluded CPU '!N' takes no count");
            goto fail;
        }
        if (interval(c, &len, &stride) < 0)
            goto fail;
        for (long i = 0; i < len; i++) {
            if (cpu_ok(c, num + i * stride) < 0)
                goto fail;
            hwloc_bitmap_set(negate ? removed : place, (unsigned)(num + i * stride));
        }
        if (*c->p == '}')
            break;
        if (*c->p != ',') {
            syntax(c, "expected ',' or '}'");
            goto fail;
        }
        c->p++;
    }
    c->p++;
    skip_ws(c);
    if (!hwloc_bitmap_isincluded(removed, place)) {
        hwloc_bitmap_andnot(removed, removed, place);
        bl_err_set(c->err, "OMP_PLACES '%s': CPU %d is excluded with '!' but is not in its place",
                   c->text, hwloc_bitmap_first(removed));
        goto fail;
    }
    hwloc_bitmap_andnot(place, place, removed);
    hwloc_bitmap_free(removed);
    return 0;
fail:
    hwloc_bitmap_free(removed);
    return -1;
}

/* place shifted by stride CPUs, or NULL (message in c->err). */
static hwloc_bitmap_t shifted(cursor *c, hwloc_const_bitmap_t place, long stride)
{
    hwloc_bitmap_t out = hwloc_bitmap_alloc();
    int i;
    if (!out) {
        bl_err_set(c->err, "out of memory");
        return NULL;
    }
    hwloc_bitmap_foreach_begin(i, place) {
        if (cpu_ok(c, i + stride) < 0) {
            hwloc_bitmap_free(out);
            return NULL;
        }
        hwloc_bitmap_set(out, (unsigned)(i + stride));
    } hwloc_bitmap_foreach_end();
    return out;
}

/* "!{4,5}" removes the first equal place listed before it. */
static int exclude_place(cursor *c, place_list *l, hwloc_const_bitmap_t place)
{
    for (int i = 0; i < l->n; i++)
        if (hwloc_bitmap_isequal(l->v[i], place)) {
            hwloc_bitmap_free(l->v[i]);
            memmove(&l->v[i], &l->v[i + 1], (size_t)(l->n - i - 1) * sizeof l->v[0]);
            l->n--;
            return 0;
        }
    char buf[128];
    bl_cpuset_format_list(place, buf, sizeof buf);
    return bl_err_set(c->err, "OMP_PLACES '%s': the excluded place {%s} is not in the list before it",
                      c->text, buf);
}

static int explicit_list(cursor *c, place_list *l)
{
    for (;;) {
        long len, stride;
        skip_ws(c);
        int negate = *c->p == '!';
        if (negate)
            c->p++;
        skip_ws(c);
        hwloc_bitmap_t place = hwloc_bitmap_alloc();
        if (!place)
            return bl_err_set(c->err, "out of memory");
        if (one_place(c, place) < 0) {
            hwloc_bitmap_free(place);
            return -1;
        }
        if (negate) {
            int rc = *c->p == ':' ? syntax(c, "an excluded place '!{..}' takes no count")
                                  : exclude_place(c, l, place);
            hwloc_bitmap_free(place);
            if (rc < 0)
                return -1;
        } else {
            if (interval(c, &len, &stride) < 0) {
                hwloc_bitmap_free(place);
                return -1;
            }
            if (l->n + len > MAX_PLACES) {
                hwloc_bitmap_free(place);
                return bl_err_set(c->err, "OMP_PLACES '%s': more than %d places",
                                  c->text, MAX_PLACES);
            }
            if (list_push(l, place) < 0)
                return bl_err_set(c->err, "out of memory");
            for (long i = 1; i < len; i++) {
                hwloc_bitmap_t next = shifted(c, l->v[l->n - 1], stride);
                if (!next)
                    return -1;
                if (list_push(l, next) < 0)
                    return bl_err_set(c->err, "out of memory");
            }
        }
        if (*c->p == '\0')
            return 0;
        if (*c->p != ',')
            return syntax(c, "expected ',' between places");
        c->p++;
    }
}

/* ---- abstract names ---------------------------------------------------- */

enum level { L_THREADS, L_CORES, L_LL_CACHES, L_NUMA, L_SOCKETS };
static const char *const level_names[] = {"threads", "cores", "ll_caches",
                                          "numa_domains", "sockets"};

/* The last-level cache above pu: its highest-level cache ancestor. */
static hwloc_obj_t last_cache(hwloc_obj_t pu)
{
    hwloc_obj_t best = NULL;
    for (hwloc_obj_t o = pu->parent; o; o = o->parent)
        if (hwloc_obj_type_is_cache(o->type) &&
            (!best || o->attr->cache.depth >= best->attr->cache.depth))
            best = o;
    return best;
}

/* The object whose PUs make one place around pu, or NULL. As on Linux
 * without the object (no core, no package), the PU stands alone / the whole
 * machine is one package. */
static hwloc_obj_t group_of(hwloc_topology_t topo, hwloc_obj_t pu, enum level lv)
{
    hwloc_obj_t o;
    switch (lv) {
    case L_THREADS:
    case L_CORES:
        o = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
        return o ? o : pu;
    case L_SOCKETS:
        o = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
        return o ? o : hwloc_get_root_obj(topo);
    case L_LL_CACHES:
        return last_cache(pu);
    default:
        return NULL;
    }
}

/* libgomp walks the CPUs in ascending order and makes a place of the first
 * CPU's core (package, cache) not yet used, so places are ordered by their
 * lowest CPU; "threads" lists the PUs core by core. NUMA domains come in
 * node number order. */
static int abstract_places(hwloc_topology_t topo, hwloc_const_bitmap_t mask,
                           enum level lv, long count, place_list *l, bl_err *err)
{
    if (lv == L_NUMA) {
        unsigned prev = 0;
        for (int first = 1; l->n < count; first = 0) {
            hwloc_obj_t node = NULL, o = NULL; /* next node by number */
            while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o)))
                if ((first || o->os_index > prev) && (!node || o->os_index < node->os_index))
                    node = o;
            if (!node)
                break;
            prev = node->os_index;
            hwloc_bitmap_t p = hwloc_bitmap_dup(node->cpuset);
            if (!p)
                return bl_err_set(err, "out of memory");
            hwloc_bitmap_and(p, p, mask);
            if (hwloc_bitmap_iszero(p))
                hwloc_bitmap_free(p);
            else if (list_push(l, p) < 0)
                return bl_err_set(err, "out of memory");
        }
        return 0;
    }
    hwloc_bitmap_t left = hwloc_bitmap_dup(mask);
    int cpu, rc = 0;
    if (!left)
        return bl_err_set(err, "out of memory");
    hwloc_bitmap_and(left, left, hwloc_topology_get_topology_cpuset(topo));
    while (rc == 0 && l->n < count && (cpu = hwloc_bitmap_first(left)) >= 0) {
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)cpu);
        hwloc_obj_t g = pu ? group_of(topo, pu, lv) : NULL;
        if (!g) { /* libgomp drops a CPU whose cache it cannot read */
            hwloc_bitmap_clr(left, (unsigned)cpu);
            continue;
        }
        hwloc_bitmap_t set = hwloc_bitmap_dup(g->cpuset);
        if (!set) {
            rc = bl_err_set(err, "out of memory");
            break;
        }
        hwloc_bitmap_and(set, set, left);
        hwloc_bitmap_andnot(left, left, set);
        if (lv != L_THREADS) {
            if (list_push(l, set) < 0)
                rc = bl_err_set(err, "out of memory");
            continue;
        }
        int i;
        hwloc_bitmap_foreach_begin(i, set) {
            if (rc == 0 && l->n < count) {
                hwloc_bitmap_t one = hwloc_bitmap_alloc();
                if (one)
                    hwloc_bitmap_only(one, (unsigned)i);
                if (list_push(l, one) < 0)
                    rc = bl_err_set(err, "out of memory");
            }
        } hwloc_bitmap_foreach_end();
        hwloc_bitmap_free(set);
    }
    hwloc_bitmap_free(left);
    if (rc == 0 && l->n == 0 && lv == L_LL_CACHES)
        return bl_err_set(err, "OMP_PLACES 'll_caches': the topology shows no cache above "
                               "the rank's PUs; use cores, sockets or numa_domains");
    return rc;
}

/* "cores", "CORES ( 4 )": the level and count, 0 when text is no name. */
static int abstract_name(cursor *c, enum level *lv, long *count)
{
    for (int i = 0; i < 5; i++) {
        size_t n = strlen(level_names[i]);
        if (strncasecmp(c->p, level_names[i], n) != 0)
            continue;
        c->p += n;
        *lv = (enum level)i;
        *count = LONG_MAX;
        skip_ws(c);
        if (*c->p == '(') {
            c->p++;
            if (number(c, 0, count, "expected a place count") < 0)
                return -1;
            if (*count < 1)
                return syntax(c, "the place count must be at least 1");
            if (*c->p != ')')
                return syntax(c, "expected ')'");
            c->p++;
            skip_ws(c);
        }
        if (*c->p != '\0')
            return syntax(c, "unexpected text after the name");
        return 1;
    }
    if (isalpha((unsigned char)*c->p))
        return bl_err_set(c->err, "OMP_PLACES '%s': unknown name; accepted: %s",
                          c->text, ACCEPTED_PLACES);
    return 0;
}

int bl_omp_places(hwloc_topology_t topo, hwloc_const_bitmap_t rank_pus,
                  const char *omp_places, hwloc_bitmap_t **places,
                  int *nplaces, bl_err *err)
{
    place_list l = {0};
    cursor c = {omp_places ? omp_places : "", omp_places ? omp_places : "", err};
    enum level lv = L_THREADS;
    long count = LONG_MAX;
    int named = 1, rc;

    *places = NULL;
    *nplaces = 0;
    if (!rank_pus || hwloc_bitmap_iszero(rank_pus))
        return bl_err_set(err, "OMP_PLACES: the rank's cpuset is empty");
    skip_ws(&c);
    if (*c.p != '\0') {
        named = abstract_name(&c, &lv, &count);
        if (named < 0)
            return -1;
    }
    rc = named ? abstract_places(topo, rank_pus, lv, count, &l, err)
               : explicit_list(&c, &l);
    if (rc < 0) {
        bl_omp_places_free(l.v, l.n);
        return -1;
    }
    /* libgomp keeps only the CPUs the process may use and drops places
     * left empty (affinity.c, gomp_affinity_finalize_place_list). */
    int kept = 0;
    for (int i = 0; i < l.n; i++) {
        hwloc_bitmap_and(l.v[i], l.v[i], rank_pus);
        if (hwloc_bitmap_iszero(l.v[i]))
            hwloc_bitmap_free(l.v[i]);
        else
            l.v[kept++] = l.v[i];
    }
    if (kept == 0) {
        free(l.v);
        return 0;
    }
    *places = l.v;
    *nplaces = kept;
    return 0;
}

/* ---- OMP_PROC_BIND ----------------------------------------------------- */

int bl_omp_parse_bind(const char *text, bl_omp_bind *out, bl_err *err)
{
    static const struct {
        const char *name;
        bl_omp_bind bind;
        int alone; /* true/false cannot start a nesting list */
    } words[] = {{"false", BL_OMP_BIND_FALSE, 1},     {"true", BL_OMP_BIND_TRUE, 1},
                 {"primary", BL_OMP_BIND_PRIMARY, 0}, {"master", BL_OMP_BIND_PRIMARY, 0},
                 {"close", BL_OMP_BIND_CLOSE, 0},     {"spread", BL_OMP_BIND_SPREAD, 0}};
    const char *p = text ? text : "";
    int first = 1;
    *out = BL_OMP_BIND_UNSET;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0')
        return 0;
    for (;;) {
        size_t i, n = 0;
        for (i = 0; i < sizeof words / sizeof words[0]; i++) {
            n = strlen(words[i].name);
            if (strncasecmp(p, words[i].name, n) == 0 &&
                !isalnum((unsigned char)p[n]) && p[n] != '_')
                break;
        }
        if (i == sizeof words / sizeof words[0] || (words[i].alone && !first))
            break;
        if (first)
            *out = words[i].bind;
        p += n;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            return 0;
        if (*p != ',' || words[i].alone)
            break;
        p++;
        while (isspace((unsigned char)*p))
            p++;
        first = 0;
    }
    *out = BL_OMP_BIND_UNSET;
    return bl_err_set(err, "OMP_PROC_BIND '%s': not understood; accepted: %s", text,
                      ACCEPTED_BIND);
}

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
