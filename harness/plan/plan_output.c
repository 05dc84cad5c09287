#include "plan/plan_output.h"

#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "topo.h"

/* One row of output: a thread, or a whole rank when the plan has no thread
 * rows (thread -1). */
typedef struct row {
    int rank, thread, place;
    hwloc_const_bitmap_t pus;
} row;

static size_t nrows(const bl_plan *p)
{
    return p->nthreads ? p->nthreads : (size_t)(p->nranks > 0 ? p->nranks : 0);
}

static row get_row(const bl_plan *p, size_t i)
{
    row r;
    if (p->nthreads) {
        const bl_plan_thread *t = &p->threads[i];
        r.rank = bl_plan_rank_number(p, t->rank);
        r.thread = t->thread;
        r.place = t->place;
        r.pus = t->pus;
    } else {
        r.rank = bl_plan_rank_number(p, (int)i);
        r.thread = -1;
        r.place = p->rank_bound && p->rank_bound[i] ? 0 : -1;
        r.pus = p->rank_pus[i];
    }
    return r;
}

static void row_label(const row *r, char *buf, size_t len)
{
    if (r->thread >= 0)
        snprintf(buf, len, "%d.%d", r->rank, r->thread);
    else
        snprintf(buf, len, "%d", r->rank);
}

enum { COL_RANK, COL_THREAD, COL_PLACE, COL_PUS, COL_CORE, COL_L3, COL_NUMA,
       COL_PACKAGE, NCOLS };
static const hwloc_obj_type_t col_types[] = {
    HWLOC_OBJ_CORE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_PACKAGE};

/* The text of every column of row i; cells[c] are malloc'ed. */
static int row_cells(hwloc_topology_t topo, const bl_plan *p, size_t i,
                     char *cells[NCOLS])
{
    row r = get_row(p, i);
    char buf[8192];

    memset(cells, 0, NCOLS * sizeof *cells);
    snprintf(buf, sizeof buf, "%d", r.rank);
    cells[COL_RANK] = strdup(buf);
    if (r.thread >= 0)
        snprintf(buf, sizeof buf, "%d", r.thread);
    else
        snprintf(buf, sizeof buf, "-");
    cells[COL_THREAD] = strdup(buf);
    if (r.place >= 0 && p->nthreads)
        snprintf(buf, sizeof buf, "%d", r.place);
    else
        snprintf(buf, sizeof buf, "-");
    cells[COL_PLACE] = strdup(buf);
    cells[COL_PUS] = bl_cpuset_list_strdup(r.pus);
    for (int c = 0; c < 4; c++) {
        bl_topo_objs_text(topo, r.pus, col_types[c], buf, sizeof buf);
        cells[COL_CORE + c] = strdup(buf);
    }
    for (int c = 0; c < NCOLS; c++)
        if (!cells[c])
            return -1;
    return 0;
}

static void free_cells(char *cells[NCOLS])
{
    for (int c = 0; c < NCOLS; c++)
        free(cells[c]);
}

int bl_plan_write_table(FILE *f, hwloc_topology_t topo, const bl_plan *p)
{
    static const char *const head[NCOLS] = {
        "rank", "thread", "place", "PUs", "core", "L3", "NUMA", "package"};
    size_t n = nrows(p), w[NCOLS];
    char *(*cells)[NCOLS] = calloc(n ? n : 1, sizeof *cells);
    int rc = cells ? 0 : -1;

    for (int c = 0; c < NCOLS; c++)
        w[c] = strlen(head[c]);
    /* Two passes: the widths first, so that every column lines up. */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (row_cells(topo, p, i, cells[i]) < 0)
            rc = -1;
        for (int c = 0; rc == 0 && c < NCOLS; c++)
            if (strlen(cells[i][c]) > w[c])
                w[c] = strlen(cells[i][c]);
    }
    for (int c = 0; rc == 0 && c < NCOLS; c++)
        fprintf(f, c < COL_PUS ? "%*s%s" : "%-*s%s", (int)w[c], head[c],
                c + 1 < NCOLS ? "  " : "\n");
    for (size_t i = 0; rc == 0 && i < n; i++)
        for (int c = 0; c < NCOLS; c++) {
            /* The last column is not padded: no trailing blanks. */
            int pad = c + 1 < NCOLS ? (int)w[c] : 0;
            fprintf(f, c < COL_PUS ? "%*s%s" : "%-*s%s", pad, cells[i][c],
                    c + 1 < NCOLS ? "  " : "\n");
        }
    for (size_t i = 0; cells && i < n; i++)
        free_cells(cells[i]);
    free(cells);
    return rc == 0 && !ferror(f) ? 0 : -1;
}

int bl_plan_write_tsv(FILE *f, hwloc_topology_t topo, const bl_plan *p)
{
    static const int cols[] = {COL_RANK, COL_THREAD, COL_PUS, COL_CORE,
                               COL_L3, COL_NUMA, COL_PACKAGE};
    char *cells[NCOLS];
    int rc = 0;

    if (rc == 0)
        fputs("rank\tthread\tpus\tcore\tl3\tnuma\tpackage\n", f);
    for (size_t i = 0; rc == 0 && i < nrows(p); i++) {
        if (row_cells(topo, p, i, cells) < 0)
            rc = -1;
        for (size_t c = 0; rc == 0 && c < sizeof cols / sizeof cols[0]; c++)
            fprintf(f, "%s%c", cells[cols[c]],
                    c + 1 < sizeof cols / sizeof cols[0] ? '\t' : '\n');
        free_cells(cells);
    }
    return rc == 0 && !ferror(f) ? 0 : -1;
}

/* --- the node map ----------------------------------------------------- */

/* The map's unit: cores, or PUs on a topology without cores. */
typedef struct cell {
    hwloc_obj_t obj;
    int package, numa, l3;
    char text[32];
} cell;

static hwloc_obj_type_t cell_type(hwloc_topology_t topo)
{
    return hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0
               ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

/* Who runs on one core: pinned threads first, then threads bound to a
 * wider place, then ranks whose unbound threads float over it. */
static void cell_text(const bl_plan *p, hwloc_obj_t o,
                      char *buf, size_t len)
{
    char first[24] = "";
    int kind = 3, others = -1, last_float_rank = -1;
    size_t n = nrows(p);

    for (size_t i = 0; i < n; i++) {
        row r = get_row(p, i);
        int k;
        if (!hwloc_bitmap_intersects(r.pus, o->cpuset))
            continue;
        if (hwloc_bitmap_isincluded(r.pus, o->cpuset))
            k = 0;              /* pinned to this core */
        else if (r.place >= 0)
            k = 1;
        else {
            /* A floating rank counts once, whatever its thread count. */
            if (r.rank == last_float_rank)
                continue;
            last_float_rank = r.rank;
            k = 2;
        }
        others++;
        if (k < kind) {
            kind = k;
            if (k == 2)
                snprintf(first, sizeof first, "%d.*", r.rank);
            else
                row_label(&r, first, sizeof first);
            if (k == 1)
                strcat(first, "~");
        }
    }
    if (others < 0)
        snprintf(buf, len, ".");
    else if (others == 0)
        snprintf(buf, len, "%s", first);
    else
        snprintf(buf, len, "%s+%d", first, others);
}

static int where_of(hwloc_topology_t topo, hwloc_obj_t o, cell *c)
{
    bl_pu_where w;
    hwloc_obj_t pu = o;
    /* the cell's first PU: its first leaf below (a core's PUs are its
     * children) */
    while (pu && pu->type != HWLOC_OBJ_PU)
        pu = pu->first_child;
    if (!pu) {
        c->package = c->numa = c->l3 = -1;
        return -1;
    }
    bl_topo_pu_obj_where(topo, pu, &w);
    c->package = w.package;
    c->numa = w.numa;
    c->l3 = w.l3;
    return 0;
}

/* Distinct values of one field among cells[a..b). */
static int distinct(const cell *cells, int a, int b, size_t off,
                    hwloc_bitmap_t out)
{
    hwloc_bitmap_zero(out);
    for (int i = a; i < b; i++) {
        int v = *(const int *)((const char *)&cells[i] + off);
        if (v >= 0)
            hwloc_bitmap_set(out, (unsigned)v);
    }
    return hwloc_bitmap_weight(out);
}

/* Line state of one package block. */
typedef struct line {
    FILE *f;
    int width, used, prefixw;
} line;

static void line_start(line *l, const char *prefix)
{
    if (l->used > 0)
        fputc('\n', l->f);
    l->used = fprintf(l->f, "  %-*s", l->prefixw, prefix);
}

static void line_end(line *l)
{
    if (l->used > 0)
        fputc('\n', l->f);
    l->used = 0;
}

/* One group ("L3 5 [c c c]"); wrapped over lines when too wide. */
static void put_group(line *l, const char *name, int namew, const cell *cells,
                      int a, int b, int cw)
{
    int n = b - a, avail = l->width - 2 - l->prefixw;
    int per_line = (avail - namew - 2) / (cw + 1);
    int tokw = namew + 2 + n * (cw + 1);

    if (per_line < 1)
        per_line = 1;
    if (n <= per_line) {
        if (l->used > 2 + l->prefixw && l->used + 1 + tokw > l->width)
            line_start(l, "");
        else if (l->used > 2 + l->prefixw)
            l->used += fprintf(l->f, " ");
        l->used += fprintf(l->f, "%-*s [", namew, name);
        for (int i = a; i < b; i++)
            l->used += fprintf(l->f, "%*s%s", cw, cells[i].text,
                               i + 1 < b ? " " : "]");
        return;
    }
    /* Balanced chunks read better than a full line and a stub. */
    int chunks = (n + per_line - 1) / per_line, per = (n + chunks - 1) / chunks;
    if (l->used > 2 + l->prefixw)
        line_start(l, "");
    l->used += fprintf(l->f, "%-*s [", namew, name);
    for (int i = a; i < b; i++) {
        if (i > a && (i - a) % per == 0) {
            line_start(l, "");
            l->used += fprintf(l->f, "%*s", namew + 2, "");
        } else if (i > a)
            l->used += fprintf(l->f, " ");
        l->used += fprintf(l->f, "%*s", cw, cells[i].text);
    }
    l->used += fprintf(l->f, "]");
}

static void level_text(const char *name, hwloc_bitmap_t set, char *buf,
                       size_t len)
{
    char list[256];
    bl_cpuset_format_list(set, list, sizeof list);
    snprintf(buf, len, ", %s %s", name, list);
}

static void put_package(FILE *f, const cell *cells, int ncells, int a,
                        int b, int cw, int width, hwloc_bitmap_t tmp,
                        const char *unit)
{
    int nnuma = distinct(cells, a, b, offsetof(cell, numa), tmp);
    char numa_txt[300] = "", l3_txt[300] = "", name[32];
    int nl3, by_l3, by_numa, namew = 0, prefixw;
    line l = {f, width, 0, 0};

    if (nnuma)
        level_text("NUMA", tmp, numa_txt, sizeof numa_txt);
    nl3 = distinct(cells, a, b, offsetof(cell, l3), tmp);
    if (nl3)
        level_text("L3", tmp, l3_txt, sizeof l3_txt);
    if (cells[a].package >= 0)
        fprintf(f, "package %d: %d %s%s%s\n", cells[a].package, b - a, unit,
                numa_txt, l3_txt);
    else
        fprintf(f, "node: %d %s%s%s\n", b - a, unit, numa_txt, l3_txt);
    by_l3 = nl3 > 1;
    by_numa = !by_l3 && nnuma > 1;
    /* With L3 groups inside several NUMA nodes, each NUMA node starts its
     * own line, named in a prefix column. */
    prefixw = by_l3 && nnuma > 1 ? (int)strlen("NUMA ") + 3 : 0;
    l.prefixw = prefixw;
    /* Names as wide as the node's widest, so that packages line up. */
    for (int i = 0; i < ncells; i++) {
        int v = by_l3 ? cells[i].l3 : by_numa ? cells[i].numa : -1;
        int len = by_l3 || by_numa
                      ? snprintf(name, sizeof name, "%s %d",
                                 by_l3 ? "L3" : "NUMA", v)
                      : (int)strlen(unit);
        if (len > namew)
            namew = len;
    }
    for (int i = a; i < b;) {
        int j = i + 1;
        char prefix[32] = "";
        while (j < b && cells[j].l3 == cells[i].l3 &&
               cells[j].numa == cells[i].numa)
            j++;
        if (by_l3)
            snprintf(name, sizeof name, "L3 %d", cells[i].l3);
        else if (by_numa)
            snprintf(name, sizeof name, "NUMA %d", cells[i].numa);
        else
            snprintf(name, sizeof name, "%s", unit);
        if (prefixw && (i == a || cells[i].numa != cells[i - 1].numa)) {
            snprintf(prefix, sizeof prefix, "NUMA %d", cells[i].numa);
            line_start(&l, prefix);
        } else if (i == a)
            line_start(&l, "");
        put_group(&l, name, namew, cells, i, j, cw);
        i = j;
    }
    line_end(&l);
}

int bl_plan_write_map(FILE *f, hwloc_topology_t topo, const bl_plan *p,
                      int width)
{
    hwloc_obj_type_t type = cell_type(topo);
    int n = hwloc_get_nbobjs_by_type(topo, type), cw = 1;
    cell *cells = calloc(n > 0 ? (size_t)n : 1, sizeof *cells);
    hwloc_bitmap_t tmp = hwloc_bitmap_alloc();
    const char *unit = type == HWLOC_OBJ_CORE ? "cores" : "PUs";

    if (!cells || !tmp) {
        free(cells);
        hwloc_bitmap_free(tmp);
        return -1;
    }
    if (width < 40)
        width = 40;
    for (int i = 0; i < n; i++) {
        cells[i].obj = hwloc_get_obj_by_type(topo, type, (unsigned)i);
        where_of(topo, cells[i].obj, &cells[i]);
        cell_text(p, cells[i].obj, cells[i].text, sizeof cells[i].text);
        if ((int)strlen(cells[i].text) > cw)
            cw = (int)strlen(cells[i].text);
    }
    /* Cores come in logical order, package by package. */
    for (int a = 0; a < n;) {
        int b = a + 1;
        while (b < n && cells[b].package == cells[a].package)
            b++;
        put_package(f, cells, n, a, b, cw, width, tmp, unit);
        a = b;
    }
    fprintf(f, "(r.t: thread t of rank r; +n: n more share the %s; "
               "~: bound to a wider place;\n"
               " r.*: rank r's threads are not bound; .: idle)\n",
            type == HWLOC_OBJ_CORE ? "core" : "PU");
    free(cells);
    hwloc_bitmap_free(tmp);
    return ferror(f) ? -1 : 0;
}
