/* OMP_PLACES into a list of places (plan_omp.h; the binding policy and the
 * thread assignment are in plan_omp.c). The syntax and the place order follow
 * libgomp (libgomp/env.c, config/linux/affinity.c), which accepts what the
 * OpenMP 5.x grammar allows (docs/openmp-model.md). */
#include "plan/plan_omp.h"

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
/* The PU objects by OS index (NULL where none): hwloc's own lookup walks
 * every PU, too slow once per core of a 16,384-PU node. */
static hwloc_obj_t *pus_by_os(hwloc_topology_t topo)
{
    int last = hwloc_bitmap_last(hwloc_topology_get_topology_cpuset(topo));
    hwloc_obj_t *by_os = calloc((size_t)(last > 0 ? last : 0) + 1,
                                sizeof *by_os), pu = NULL;
    while (by_os &&
           (pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu)) != NULL)
        if ((int)pu->os_index <= last)
            by_os[pu->os_index] = pu;
    return by_os;
}

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
    hwloc_obj_t *by_os = pus_by_os(topo);
    if (!left || !by_os) {
        hwloc_bitmap_free(left);
        free(by_os);
        return bl_err_set(err, "out of memory");
    }
    hwloc_bitmap_and(left, left, hwloc_topology_get_topology_cpuset(topo));
    while (rc == 0 && l->n < count && (cpu = hwloc_bitmap_first(left)) >= 0) {
        hwloc_obj_t pu = by_os[cpu];
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
    free(by_os);
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
