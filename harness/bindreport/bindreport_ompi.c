/* Open MPI's --report-bindings lines.
 *
 * 4.x: "[host:pid] MCW rank N bound to socket S[core C[hwt H-H]], ...:
 *      [BB/../..][../../..]". S and C are hwloc logical indexes (C counts
 *      across packages), H counts PUs inside the core, and the bracket map
 *      has one character per PU in hwloc logical order. The map is what
 *      this parser trusts: Open MPI cuts the text part of long lines (seen
 *      on a 384-PU node), never the map. The complete items of the text are
 *      still checked against the map, so a report read with the wrong
 *      topology is rejected instead of misread.
 * 5.x: "[host:pid] Rank N bound to package[P][core:LIST] package[..]..."
 *      (PRRTE; "MCW rank" in earlier 5.0 releases). See ompi5_item() for
 *      what LIST means.
 * Both: "MCW rank N is not bound (or bound to all available processors)". */
#include "bindreport/bindreport_priv.h"

#include <string.h>

#include "cpuset.h"
#include "topo.h"

#define NOT_BOUND " is not bound (or bound to all available processors)"

enum { OMPI_NOT_BOUND, OMPI_BOUND };

/* Reads "MCW rank N" / "Rank N" and what follows. Returns BL_LINE_OTHER,
 * BL_LINE_BAD, or BL_LINE_OK with *kind and *rest (the text after
 * "bound to "). */
static int ompi_head(const char *line, bl_binding *b, int *kind,
                     const char **rest, char *reason)
{
    const char *p = bl_line_ompi_prefix(line, b);
    const char *q;
    long rank;

    if (!(q = bl_line_skip(p, "MCW rank")) && !(q = bl_line_skip(p, "Rank "))) {
        /* Another prefix in front (a log time stamp, a tag). */
        if (!(p = strstr(line, "MCW rank"))) {
            /* The tail of a report line whose head went elsewhere. */
            if (strstr(line, " bound to socket ") ||
                strstr(line, " bound to package[") || strstr(line, NOT_BOUND))
                return bl_line_bad(reason, "a binding without its 'MCW rank "
                                   "N' head (output of several ranks "
                                   "interleaved or wrapped)");
            return BL_LINE_OTHER;
        }
        q = p + strlen("MCW rank");
    }
    if (*q == ' ')
        q++;
    if ((rank = bl_line_number(&q)) < 0)
        return bl_line_bad(reason, "no rank number after 'rank'");
    b->rank = (int)rank;
    /* Two ranks printing at once can share a line; reading only the first
     * of them would drop the other without a word. */
    if (strstr(q, "MCW rank") ||
        ((p = strstr(q, "bound to ")) && strstr(p + 1, "bound to ")))
        return bl_line_bad(reason, "more than one rank's binding in one line "
                           "(output of several ranks interleaved)");
    if ((p = bl_line_skip(q, " bound to "))) {
        *kind = OMPI_BOUND;
        *rest = p;
        return BL_LINE_OK;
    }
    if (strncmp(q, NOT_BOUND, strlen(NOT_BOUND)) == 0 &&
        q[strspn(q + strlen(NOT_BOUND), " ") + strlen(NOT_BOUND)] == '\0') {
        *kind = OMPI_NOT_BOUND;
        return BL_LINE_OK;
    }
    return bl_line_bad(reason,
                       "expected 'bound to ...' or 'is not bound (or bound to "
                       "all available processors)' after rank %ld (truncated?)",
                       rank);
}

static void whole_topology(hwloc_topology_t topo, bl_binding *b)
{
    b->bound = 0;
    hwloc_bitmap_copy(b->cpus, hwloc_topology_get_topology_cpuset(topo));
}

/* ---- Open MPI 4 ------------------------------------------------------ */

/* One "socket S[core C[hwt H]]" or "...[hwt H-H2]]" item; adds its PUs to
 * set. Returns 1 when read, 0 when the text is cut or not an item,
 * BL_LINE_BAD when it names something the topology does not have. */
static int ompi4_item(const char **pp, hwloc_topology_t topo,
                      hwloc_bitmap_t set, char *reason)
{
    const char *p = *pp;
    long s, c, h0, h1;
    hwloc_obj_t core, pkg;

    if (!(p = bl_line_skip(p, "socket ")) || (s = bl_line_number(&p)) < 0 ||
        !(p = bl_line_skip(p, "[core ")) || (c = bl_line_number(&p)) < 0 ||
        !(p = bl_line_skip(p, "[hwt ")) || (h0 = bl_line_number(&p)) < 0)
        return 0;
    h1 = h0;
    if (*p == '-' && (p++, (h1 = bl_line_number(&p)) < h0))
        return 0;
    if (!(p = bl_line_skip(p, "]]")))
        return 0;
    core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c);
    if (!core)
        return bl_line_bad(reason, "core %ld is not in the topology (pass "
                           "--topology for the node that printed it)", c);
    /* a topology without packages (Group objects under the machine) is
     * "socket 0" throughout */
    pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, core);
    if (pkg ? (long)pkg->logical_index != s
            : s != 0 || hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE) > 0)
        return bl_line_bad(reason, "core %ld is not in socket %ld of the "
                           "topology", c, s);
    for (long h = h0; h <= h1; h++) {
        hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(
            topo, core->cpuset, HWLOC_OBJ_PU, (unsigned)h);
        if (!pu)
            return bl_line_bad(reason, "core %ld has no hwt %ld", c, h);
        hwloc_bitmap_set(set, pu->os_index);
    }
    *pp = p;
    return 1;
}

/* The PUs the text part names; *complete is 1 when it was read to its
 * end. */
static int ompi4_text(const char *text, size_t len, hwloc_topology_t topo,
                      hwloc_bitmap_t set, int *complete, char *reason)
{
    const char *p = text, *end = text + len;
    *complete = 0;
    for (;;) {
        int rc = ompi4_item(&p, topo, set, reason);
        if (rc == BL_LINE_BAD)
            return rc;
        if (rc == 0 || p > end)
            return BL_LINE_OK;
        if (p == end) {
            *complete = 1;
            return BL_LINE_OK;
        }
        if (!(p = bl_line_skip(p, ", ")))
            return BL_LINE_OK;
    }
}

/* The bracket map, as PU OS indexes. */
static int ompi4_map(const char *map, hwloc_topology_t topo, bl_binding *b,
                     char *reason)
{
    bl_err e;
    hwloc_bitmap_t logical = hwloc_bitmap_alloc();
    int npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    int positions = 0, i;

    if (!logical)
        return bl_line_bad(reason, "out of memory");
    if (bl_cpuset_parse_brackets(map, logical, &e) < 0) {
        hwloc_bitmap_free(logical);
        return bl_line_bad(reason, "%s", e.msg);
    }
    for (const char *p = map; *p; p++)
        positions += *p == 'B' || *p == '.';
    if (positions != npus || hwloc_bitmap_iszero(logical)) {
        hwloc_bitmap_free(logical);
        if (positions != npus)
            return bl_line_bad(reason,
                               "the map has %d PUs but the topology has %d "
                               "(pass --topology for the node that printed "
                               "it)", positions, npus);
        return bl_line_bad(reason, "the map binds no PU");
    }
    hwloc_bitmap_foreach_begin(i, logical)
    {
        hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
        hwloc_bitmap_set(b->cpus, pu->os_index);
    }
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(logical);
    return BL_LINE_OK;
}

/* Whether the text's PUs agree with the map's. Where each hardware thread
 * has its own L1 cache (QEMU 7.2's CPUs), Open MPI 4.1 numbers "hwt" wrong
 * ("core 0[hwt 0]" for the map [.B/..]) while the map is right, so a text
 * that differs from the map only inside cores is accepted. */
static int ompi4_agrees(hwloc_topology_t topo, hwloc_const_bitmap_t named,
                        hwloc_const_bitmap_t map, int complete)
{
    hwloc_bitmap_t a, b;
    int ok;
    if (complete ? hwloc_bitmap_isequal(named, map)
                 : hwloc_bitmap_isincluded(named, map))
        return 1;
    a = hwloc_bitmap_alloc();
    b = hwloc_bitmap_alloc();
    ok = a && b;
    if (ok) {
        bl_topo_objs_touched(topo, named, HWLOC_OBJ_CORE, a);
        bl_topo_objs_touched(topo, map, HWLOC_OBJ_CORE, b);
        ok = complete ? hwloc_bitmap_isequal(a, b) : hwloc_bitmap_isincluded(a, b);
    }
    hwloc_bitmap_free(a);
    hwloc_bitmap_free(b);
    return ok;
}

static int ompi4_check(const char *text, size_t len, hwloc_topology_t topo,
                       bl_binding *b, char *reason)
{
    hwloc_bitmap_t named = hwloc_bitmap_alloc();
    int complete, rc;
    if (!named)
        return bl_line_bad(reason, "out of memory");
    rc = ompi4_text(text, len, topo, named, &complete, reason);
    if (rc == BL_LINE_OK && !ompi4_agrees(topo, named, b->cpus, complete)) {
        char t[64], m[64];
        bl_cpuset_format_list(named, t, sizeof t);
        bl_cpuset_format_list(b->cpus, m, sizeof m);
        rc = bl_line_bad(reason, "the text names CPUs %s but the map %s "
                         "(wrong --topology?)", t, m);
    }
    hwloc_bitmap_free(named);
    return rc;
}

/* Open MPI 4.1 draws its map package by package, core by core: where
 * cores are not found that way the map is empty ("...]]: ", a topology
 * without packages: Group objects between the machine and the cores) or
 * has empty brackets ("[B/././.][./././.][][][]"), while the text names
 * every PU.
 * The text is read then, when it is complete: BL_LINE_OK with b->cpus set,
 * BL_LINE_BAD with reason, or BL_LINE_OTHER when the map must be read. */
static int ompi4_text_only(const char *rest, const char *map,
                           hwloc_topology_t topo, bl_binding *b, char *reason)
{
    size_t len = map ? (size_t)(map - rest) : strlen(rest);
    int complete = 0, rc;
    if (map && !strstr(map, "[]"))
        return BL_LINE_OTHER;
    while (len && rest[len - 1] == ' ')
        len--;
    /* no map at all: Open MPI draws none on a topology without packages,
     * and the text is whole when it ends with the map's ':'; elsewhere
     * the line was cut */
    if (!map && (len == 0 || rest[len - 1] != ':' ||
                 hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE) > 0))
        return bl_line_bad(reason, "no ': [B./..]' map after the text "
                           "(truncated?)");
    if (!map)
        len--;
    rc = ompi4_text(rest, len, topo, b->cpus, &complete, reason);
    if (rc != BL_LINE_OK)
        return rc;
    if (complete && !hwloc_bitmap_iszero(b->cpus))
        return BL_LINE_OK;
    hwloc_bitmap_zero(b->cpus);
    if (map)
        return BL_LINE_OTHER; /* its own error says what is wrong */
    return bl_line_bad(reason, "an empty map after a text that is cut "
                       "(truncated?)");
}

int bl_bindreport_ompi4_line(const char *line, hwloc_topology_t topo,
                             bl_binding *b, char *reason)
{
    const char *rest = "", *map = NULL, *s;
    int kind = OMPI_BOUND, rc;

    /* "Rank N" without "MCW" is PRRTE's head: Open MPI 5, also in its
     * "is not bound" line, which is otherwise the same in both. */
    if (bl_line_skip(bl_line_ompi_prefix(line, b), "Rank "))
        return BL_LINE_OTHER;
    if ((rc = ompi_head(line, b, &kind, &rest, reason)) != BL_LINE_OK)
        return rc;
    if (kind == OMPI_NOT_BOUND) {
        whole_topology(topo, b);
        return BL_LINE_OK;
    }
    if (bl_line_skip(rest, "package[") || bl_line_skip(rest, "UNBOUND"))
        return BL_LINE_OTHER; /* Open MPI 5 */
    for (s = rest; (s = strstr(s, ": [")) != NULL; s++)
        map = s;
    if ((rc = ompi4_text_only(rest, map, topo, b, reason)) != BL_LINE_OTHER)
        return rc;
    if ((rc = ompi4_map(map + 2, topo, b, reason)) != BL_LINE_OK)
        return rc;
    return ompi4_check(rest, (size_t)(map - rest), topo, b, reason);
}

/* ---- Open MPI 5 ------------------------------------------------------ */

/* The core in package pkg whose OS index (Linux core_id) is id. */
static hwloc_obj_t core_by_os(hwloc_topology_t topo, hwloc_obj_t pkg,
                              unsigned id)
{
    hwloc_obj_t c = NULL;
    while ((c = hwloc_get_next_obj_inside_cpuset_by_type(
                topo, pkg->cpuset, HWLOC_OBJ_CORE, c)) != NULL)
        if (c->os_index == id)
            return c;
    return NULL;
}

/* Adds the PUs of one LIST element to b->cpus. PRRTE prints, per package:
 * "hwt:" and, on nodes without SMT, "core:": the cpuset itself, i.e. PU
 * OS indexes (also when it tags them "L", as its source shows);
 * "core:" on SMT nodes: hwloc logical core indexes, or with "P" the
 * cores' OS indexes. Everything must lie inside package pkg. */
static int ompi5_index(hwloc_topology_t topo, hwloc_obj_t pkg, int hwt,
                       char tag, long idx, bl_binding *b, char *reason)
{
    int smt = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU) !=
              hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    hwloc_obj_t core;

    if (hwt || !smt) {
        if (!hwloc_bitmap_isset(pkg->cpuset, (unsigned)idx))
            return bl_line_bad(reason, "CPU %ld is not in package %u of "
                               "the topology", idx, pkg->logical_index);
        hwloc_bitmap_set(b->cpus, (unsigned)idx);
        return BL_LINE_OK;
    }
    if (tag == 'P')
        core = core_by_os(topo, pkg, (unsigned)idx);
    else
        core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)idx);
    if (!core || !hwloc_bitmap_isincluded(core->cpuset, pkg->cpuset))
        return bl_line_bad(reason, "core %ld is not in package %u of the "
                           "topology", idx, pkg->logical_index);
    hwloc_bitmap_or(b->cpus, b->cpus, core->cpuset);
    return BL_LINE_OK;
}

/* "package[P][core:LIST]" or "[hwt:LIST]", LIST optionally tagged L/P. */
static int ompi5_item(const char **pp, hwloc_topology_t topo, bl_binding *b,
                      char *reason)
{
    const char *p = *pp, *q;
    long pk;
    int hwt;
    char tag = 0;
    hwloc_obj_t pkg;

    if (!(p = bl_line_skip(p, "package[")) || (pk = bl_line_number(&p)) < 0 ||
        !(p = bl_line_skip(p, "][")))
        return bl_line_bad(reason, "expected 'package[P][core:LIST]' "
                           "(truncated?)");
    if ((q = bl_line_skip(p, "core:")))
        hwt = 0;
    else if ((q = bl_line_skip(p, "hwt:")))
        hwt = 1;
    else
        return bl_line_bad(reason, "expected 'core:' or 'hwt:' after "
                           "package[%ld]", pk);
    if (*q == 'L' || *q == 'P')
        tag = *q++;
    if (!(pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, (unsigned)pk)))
        return bl_line_bad(reason, "package %ld is not in the topology", pk);
    for (;;) {
        long lo, hi;
        if ((lo = bl_line_number(&q)) < 0)
            return bl_line_bad(reason, "expected a number in package[%ld]'s "
                               "list (truncated?)", pk);
        hi = lo;
        if (*q == '-' && (q++, (hi = bl_line_number(&q)) < lo))
            return bl_line_bad(reason, "bad range in package[%ld]'s list",
                               pk);
        for (long i = lo; i <= hi; i++) {
            int rc = ompi5_index(topo, pkg, hwt, tag, i, b, reason);
            if (rc != BL_LINE_OK)
                return rc;
        }
        if (*q != ',')
            break;
        q++;
    }
    if (*q != ']')
        return bl_line_bad(reason, "missing ']' after package[%ld]'s list "
                           "(truncated?)", pk);
    *pp = q + 1;
    return BL_LINE_OK;
}

int bl_bindreport_ompi5_line(const char *line, hwloc_topology_t topo,
                             bl_binding *b, char *reason)
{
    const char *rest = "";
    int kind = OMPI_BOUND, rc = ompi_head(line, b, &kind, &rest, reason);

    if (rc != BL_LINE_OK)
        return rc;
    if (kind == OMPI_NOT_BOUND || strcmp(rest, "UNBOUND") == 0) {
        whole_topology(topo, b);
        return BL_LINE_OK;
    }
    if (!bl_line_skip(rest, "package["))
        return BL_LINE_OTHER; /* Open MPI 4 */
    for (;;) {
        if ((rc = ompi5_item(&rest, topo, b, reason)) != BL_LINE_OK)
            return rc;
        if (*rest == '\0')
            return BL_LINE_OK;
        if (*rest != ' ')
            return bl_line_bad(reason, "unexpected '%c' after a package "
                               "item", *rest);
        rest++;
    }
}
