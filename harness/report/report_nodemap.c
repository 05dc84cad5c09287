/* Node maps of `bindlab report --html` and `--plot` (report_nodemap.h):
 * the machine laid out once from its hwloc topology, each run's threads
 * and pages drawn over it. */
#include "report/report_nodemap.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "report/html_page.h"

enum { PU_W = 28, PU_H = 20, CP = 2, G = 6, HEAD = 16, MAXCOLS = 8,
       NCOLOURS = 12, NNUMA_COLOURS = 8, ROW = 16 };

const char bl_nodemap_css[] =
    "svg.map{width:100%;height:auto;font-size:10px}"
    ".pk{fill:#f4f4f4;stroke:#999}.nu{fill:#e8eef6;stroke:#7a8fa8}"
    ".co{fill:#fff;stroke:#bbb}.pu{fill:#fff;stroke:#e2e2e2}"
    ".os{fill:#aaa;font-size:7px}.hd{fill:#333;font-size:10px}"
    ".th text{font-size:9px;fill:#000;text-anchor:middle}"
    ".from{fill:none;stroke-width:2;stroke-dasharray:3 2}"
    ".k0{fill:#8cb4e0}.k1{fill:#f7b267}.k2{fill:#f08080}.k3{fill:#9fd8d0}"
    ".k4{fill:#8fd18a}.k5{fill:#f3dc6b}.k6{fill:#cfa3c8}.k7{fill:#ffc2c8}"
    ".k8{fill:#c9a98e}.k9{fill:#d0ccc8}.k10{fill:#b5e3dc}.k11{fill:#e8c6de}"
    ".s0{stroke:#3d6fa8}.s1{stroke:#c7761e}.s2{stroke:#c03b3b}"
    ".s3{stroke:#3f9a8f}.s4{stroke:#3e8f38}.s5{stroke:#a88d12}"
    ".s6{stroke:#8a4f83}.s7{stroke:#c96773}.s8{stroke:#7d5a3c}"
    ".s9{stroke:#777}.s10{stroke:#3c9488}.s11{stroke:#9d5e8d}"
    ".n0{fill:#5b8cc9}.n1{fill:#e39b52}.n2{fill:#6bb36b}.n3{fill:#c77dc0}"
    ".n4{fill:#d9c55a}.n5{fill:#69c1c9}.n6{fill:#c96b6b}.n7{fill:#8f8f8f}"
    ".np{fill:#ddd}";

static int logical(hwloc_obj_t o)
{
    return o ? (int)o->logical_index : -1;
}

/* The NUMA node (logical index) whose cpuset holds PU p, -1 if none. */
static int numa_of(hwloc_topology_t t, hwloc_obj_t p)
{
    hwloc_obj_t n = NULL;
    while ((n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n)))
        if (hwloc_bitmap_isset(n->cpuset, p->os_index))
            return (int)n->logical_index;
    return -1;
}

/* Lays out the cores of `set` (one package's part of one NUMA node) as a
 * box at (x, y) labelled `name`; returns its size in *w, *h. */
static void numa_box(hwloc_topology_t t, hwloc_const_cpuset_t set,
                     const char *name, double x, double y, bl_nodemap *m,
                     bl_strbuf *b, double *w, double *h)
{
    hwloc_obj_type_t ct = hwloc_get_nbobjs_inside_cpuset_by_type(
                              t, set, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
                                                          : HWLOC_OBJ_PU;
    int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(t, set, ct), k = 1;
    hwloc_obj_t c = NULL;
    while ((c = hwloc_get_next_obj_inside_cpuset_by_type(t, set, ct, c))) {
        int n = hwloc_get_nbobjs_inside_cpuset_by_type(t, c->cpuset,
                                                       HWLOC_OBJ_PU);
        if (n > k)
            k = n;
    }
    double cw = k * PU_W + 2 * CP, ch = PU_H + 2 * CP;
    int cols = ncores < MAXCOLS ? (ncores > 0 ? ncores : 1) : MAXCOLS;
    int rows = (ncores + cols - 1) / cols;
    *w = G + cols * (cw + G);
    *h = HEAD + rows * (ch + G);
    bl_strbuf_printf(b, "<rect class=\"nu\" x=\"%g\" y=\"%g\" width=\"%g\" "
                     "height=\"%g\"/><text class=\"hd\" x=\"%g\" y=\"%g\">%s"
                     "</text>\n", x, y, *w, *h, x + 4, y + 12, name);
    int i = 0;
    c = NULL;
    while ((c = hwloc_get_next_obj_inside_cpuset_by_type(t, set, ct, c))) {
        double cx = x + G + (i % cols) * (cw + G);
        double cy = y + HEAD + (double)(i / cols) * (ch + G);
        hwloc_obj_t p = NULL;
        int j = 0;
        bl_strbuf_printf(b, "<rect class=\"co\" x=\"%g\" y=\"%g\" width=\"%g\""
                         " height=\"%g\"/>", cx, cy, cw, ch);
        while ((p = hwloc_get_next_obj_inside_cpuset_by_type(t, c->cpuset,
                                                             HWLOC_OBJ_PU, p))) {
            int l = (int)p->logical_index;
            double px = cx + CP + j * PU_W, py = cy + CP;
            if (l < m->npu) {
                m->x[l] = px;
                m->y[l] = py;
            }
            bl_strbuf_printf(b, "<rect class=\"pu\" x=\"%g\" y=\"%g\" "
                             "width=\"%d\" height=\"%d\"/><text class=\"os\" "
                             "x=\"%g\" y=\"%g\">%u</text>", px, py, PU_W, PU_H,
                             px + 2, py + PU_H - 2, p->os_index);
            j++;
        }
        bl_strbuf_puts(b, "\n");
        i++;
    }
}

/* One package (or the whole machine when it has none) at height y;
 * returns its height. */
static double package_box(hwloc_topology_t t, hwloc_obj_t pk, double y,
                          bl_nodemap *m, bl_strbuf *b)
{
    hwloc_const_cpuset_t pset = pk ? pk->cpuset
                                   : hwloc_topology_get_topology_cpuset(t);
    hwloc_bitmap_t part = hwloc_bitmap_alloc();
    bl_strbuf inner = {0};
    double x = G, rowh = 0, w, h;
    char name[64];
    hwloc_obj_t n = NULL;
    int any = 0;
    while ((n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n))) {
        hwloc_bitmap_and(part, n->cpuset, pset);
        if (hwloc_bitmap_iszero(part))
            continue;
        snprintf(name, sizeof name, "NUMA %u", n->logical_index);
        numa_box(t, part, name, x, y + HEAD, m, &inner, &w, &h);
        x += w + G;
        rowh = h > rowh ? h : rowh;
        any = 1;
    }
    if (!any) {
        numa_box(t, pset, "", x, y + HEAD, m, &inner, &w, &h);
        x += w + G;
        rowh = h;
    }
    hwloc_bitmap_free(part);
    if (pk)
        snprintf(name, sizeof name, "package %u", pk->logical_index);
    else
        snprintf(name, sizeof name, "machine");
    bl_strbuf_printf(b, "<rect class=\"pk\" x=\"0\" y=\"%g\" width=\"%g\" "
                     "height=\"%g\"/><text class=\"hd\" x=\"4\" y=\"%g\">%s"
                     "</text>\n", y, x, HEAD + rowh + G, y + 12, name);
    char *s = bl_strbuf_take(&inner);
    bl_strbuf_puts(b, s ? s : "");
    free(s);
    if (x > m->width)
        m->width = x;
    return HEAD + rowh + G;
}

int bl_nodemap_build(hwloc_topology_t t, bl_nodemap *m)
{
    bl_strbuf b = {0};
    double y = 0;
    int npk = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);

    memset(m, 0, sizeof *m);
    m->npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    m->numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    m->x = calloc((size_t)m->npu + 1, sizeof *m->x);
    m->y = calloc((size_t)m->npu + 1, sizeof *m->y);
    m->core = calloc((size_t)m->npu + 1, sizeof *m->core);
    m->numa = calloc((size_t)m->npu + 1, sizeof *m->numa);
    m->package = calloc((size_t)m->npu + 1, sizeof *m->package);
    m->os = calloc((size_t)m->npu + 1, sizeof *m->os);
    if (!m->x || !m->y || !m->core || !m->numa || !m->package || !m->os) {
        bl_nodemap_free(m);
        return -1;
    }
    for (int i = 0; i < m->npu; i++) {
        hwloc_obj_t p = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, (unsigned)i);
        m->x[i] = m->y[i] = -1;
        m->os[i] = (int)p->os_index;
        m->core[i] = logical(hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, p));
        m->package[i] = logical(hwloc_get_ancestor_obj_by_type(
                            t, HWLOC_OBJ_PACKAGE, p));
        m->numa[i] = numa_of(t, p);
    }
    if (npk <= 0)
        y += package_box(t, NULL, y, m, &b) + G;
    for (int p = 0; p < npk; p++)
        y += package_box(t, hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE,
                                                  (unsigned)p), y, m, &b) + G;
    m->height = y;
    if (!(m->boxes = bl_strbuf_take(&b))) {
        bl_nodemap_free(m);
        return -1;
    }
    return 0;
}

void bl_nodemap_free(bl_nodemap *m)
{
    free(m->x);
    free(m->y);
    free(m->core);
    free(m->numa);
    free(m->package);
    free(m->os);
    free(m->boxes);
    memset(m, 0, sizeof *m);
}

void bl_nodemap_template(bl_strbuf *b, const bl_nodemap *m, const char *id)
{
    bl_strbuf_printf(b, "<g id=\"%s\">\n%s</g>\n", id, m->boxes);
}

/* The map's PU (logical index) of OS index os, -1 when it has none. */
static int pu_of_os(const bl_nodemap *m, int os)
{
    for (int i = 0; os >= 0 && i < m->npu; i++)
        if (m->os[i] == os)
            return i;
    return -1;
}

/* A thread's title: where it ran, and how it moved or shared its PU. */
static void thread_title(bl_strbuf *b, const bl_nodemap *m,
                         const bl_h5_placement *p, int l, int from, int on)
{
    bl_strbuf_printf(b, "<title>rank %d thread %d: PU %d (core %d, NUMA %d, "
                     "package %d)", (int)p->rank, (int)p->thread, m->os[l],
                     m->core[l], m->numa[l], m->package[l]);
    if (from >= 0)
        bl_strbuf_printf(b, ", started on PU %d", m->os[from]);
    if (p->migrations > 0)
        bl_strbuf_printf(b, ", %lld migration%s", (long long)p->migrations,
                         p->migrations == 1 ? "" : "s");
    if (on > 1)
        bl_strbuf_printf(b, ", shares the PU with %d other thread%s", on - 1,
                         on == 2 ? "" : "s");
    bl_strbuf_puts(b, "</title>");
}

/* A rank's threads drawn compactly (a run of more than DETAILED
 * threads): its cells as one path, the PUs its threads started on (when
 * they moved) as another, its labels, and one title counting them. */
typedef struct rank_draw {
    bl_strbuf cells, from, texts;
    int rank, n, moved;
} rank_draw;

static void rank_flush(bl_strbuf *b, rank_draw *r)
{
    char *c = bl_strbuf_take(&r->cells), *f = bl_strbuf_take(&r->from),
         *t = bl_strbuf_take(&r->texts);
    int k = r->rank >= 0 ? r->rank % NCOLOURS : 0;
    if (r->n > 0) {
        bl_strbuf_printf(b, "<g class=\"th k%d\"><title>rank %d: %d thread%s,"
                         " %d moved</title><path d=\"%s\"/>%s", k, r->rank,
                         r->n, r->n == 1 ? "" : "s", r->moved, c ? c : "",
                         t ? t : "");
        if (f && f[0])
            bl_strbuf_printf(b, "<path class=\"from s%d\" d=\"%s\"/>", k, f);
        bl_strbuf_puts(b, "</g>\n");
    }
    free(c);
    free(f);
    free(t);
    r->n = r->moved = 0;
}

/* Each thread's cell: the PU it ended the timed region on (where it
 * started, when that differs, as a dashed outline); threads that ended
 * on one PU share its cell side by side. One group per rank carries its
 * colour. Up to DETAILED threads, each thread is an element with its own
 * title (hover: PU, core, NUMA node, package, migrations); above, each
 * rank is drawn compactly (rank_draw), so that a page of 1,000 runs of
 * 128 threads stays small. Returns the threads that are not on the map. */
enum { DETAILED = 64 };
static size_t threads_part(bl_strbuf *b, const bl_nodemap *m,
                           const bl_report_run *x)
{
    rank_draw rd = {.rank = -1};
    int *pu = malloc((x->nplacement + 1) * sizeof *pu);
    int *on = calloc((size_t)m->npu + 1, sizeof *on);
    int *done = calloc((size_t)m->npu + 1, sizeof *done);
    size_t off = 0;
    int open_rank = -1, detailed = x->nplacement <= DETAILED;
    if (!pu || !on || !done) {
        free(pu);
        free(on);
        free(done);
        return x->nplacement;
    }
    for (size_t i = 0; i < x->nplacement; i++) {
        const bl_h5_placement *p = &x->placement[i];
        pu[i] = pu_of_os(m, p->cpu_last >= 0 ? p->cpu_last : p->cpu_first);
        if (pu[i] >= 0 && m->x[pu[i]] >= 0)
            on[pu[i]]++;
        else
            pu[i] = -1, off++;
    }
    for (size_t i = 0; i < x->nplacement; i++) {
        const bl_h5_placement *p = &x->placement[i];
        int l = pu[i], k = p->rank >= 0 ? p->rank % NCOLOURS : 0;
        if (l < 0)
            continue;
        double w = (double)PU_W / on[l], cx = m->x[l] + w * done[l]++;
        int from = p->cpu_last >= 0 && p->cpu_first >= 0 &&
                   p->cpu_first != p->cpu_last ? pu_of_os(m, p->cpu_first) : -1;
        if (!detailed) {
            if (p->rank != rd.rank)
                rank_flush(b, &rd);
            rd.rank = p->rank;
            rd.n++;
            rd.moved += from >= 0;
            bl_strbuf_printf(&rd.cells, "M%g %gh%gv%dh%gz", cx, m->y[l], w,
                             PU_H, -w);
            bl_strbuf_printf(&rd.texts, "<text x=\"%g\" y=\"%g\">%d.%d"
                             "</text>", cx + w / 2, m->y[l] + 13,
                             (int)p->rank, (int)p->thread);
            if (from >= 0 && m->x[from] >= 0)
                bl_strbuf_printf(&rd.from, "M%g %gh%dv%dh%dz", m->x[from] + 1,
                                 m->y[from] + 1, PU_W - 2, PU_H - 2,
                                 -(PU_W - 2));
            continue;
        }
        int titled = 1;
        if (p->rank != open_rank) {
            bl_strbuf_printf(b, "%s<g class=\"th k%d\">",
                             open_rank >= 0 ? "</g>\n" : "", k);
            open_rank = p->rank;
        }
        if (titled) {
            bl_strbuf_puts(b, "<g>");
            thread_title(b, m, p, l, from, on[l]);
        }
        bl_strbuf_printf(b, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%d\""
                         "/><text x=\"%g\" y=\"%g\">%d.%d</text>", cx, m->y[l],
                         w, PU_H, cx + w / 2, m->y[l] + 13, (int)p->rank,
                         (int)p->thread);
        if (from >= 0 && m->x[from] >= 0)
            bl_strbuf_printf(b, "<rect class=\"from s%d\" x=\"%g\" y=\"%g\" "
                             "width=\"%d\" height=\"%d\"/>", k, m->x[from] + 1,
                             m->y[from] + 1, PU_W - 2, PU_H - 2);
        bl_strbuf_puts(b, titled ? "</g>\n" : "\n");
    }
    if (open_rank >= 0)
        bl_strbuf_puts(b, "</g>\n");
    rank_flush(b, &rd);
    free(pu);
    free(on);
    free(done);
    return off;
}

static int cmp_memory(const void *a, const void *b)
{
    const bl_h5_memory *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    /* "not present" (-1) after the nodes */
    if (x->numa_node != y->numa_node)
        return (unsigned)x->numa_node < (unsigned)y->numa_node ? -1 : 1;
    return 0;
}

/* The ranks' pages per NUMA node at height y: per rank a bar split by
 * node, and the shares as text. Returns its height. */
static double pages_part(bl_strbuf *b, const bl_report_run *x, double y,
                         double width)
{
    bl_h5_memory *mem;
    /* the bar, then its text (up to ~280 units: "NUMA 0 98% ... pages") */
    double bw = width - 340 < 120 ? 120 : width - 340 > 400 ? 400 : width - 340;
    double h = 0;
    if (x->nmemory == 0)
        return 0;
    if (!(mem = malloc(x->nmemory * sizeof *mem)))
        return 0;
    memcpy(mem, x->memory, x->nmemory * sizeof *mem);
    qsort(mem, x->nmemory, sizeof *mem, cmp_memory);
    bl_strbuf_printf(b, "<text class=\"hd\" x=\"0\" y=\"%g\">pages per NUMA "
                     "node</text>\n", y + 12);
    h = ROW;
    for (size_t i = 0; i < x->nmemory;) {
        size_t j = i;
        long long total = 0;
        double at = 56, ty = y + h;
        while (j < x->nmemory && mem[j].rank == mem[i].rank)
            total += mem[j++].pages;
        bl_strbuf_printf(b, "<g class=\"pg\"><rect class=\"k%d\" x=\"0\" "
                         "y=\"%g\" width=\"10\" height=\"10\"/><text x=\"14\" "
                         "y=\"%g\">rank %d</text>", mem[i].rank >= 0 ?
                         mem[i].rank % NCOLOURS : 0, ty + 2, ty + 11,
                         (int)mem[i].rank);
        bl_strbuf_printf(b, "<text x=\"%g\" y=\"%g\">", 60 + bw, ty + 11);
        for (size_t k = i; k < j; k++) {
            double share = total > 0 ? (double)mem[k].pages / (double)total : 0;
            if (mem[k].pages <= 0)
                continue;
            if (mem[k].numa_node >= 0)
                bl_strbuf_printf(b, "NUMA %d %.0f%% ", (int)mem[k].numa_node,
                                 100 * share);
            else
                bl_strbuf_printf(b, "not present %.0f%% ", 100 * share);
        }
        bl_strbuf_printf(b, "(%lld pages)</text>", total);
        for (size_t k = i; k < j; k++) {
            double w = total > 0 ? bw * (double)mem[k].pages / (double)total : 0;
            if (w <= 0)
                continue;
            if (mem[k].numa_node >= 0)
                bl_strbuf_printf(b, "<rect class=\"n%d\" x=\"%.1f\" y=\"%g\" "
                                 "width=\"%.1f\" height=\"12\"/>",
                                 mem[k].numa_node % NNUMA_COLOURS, at, ty + 1,
                                 w);
            else
                bl_strbuf_printf(b, "<rect class=\"np\" x=\"%.1f\" y=\"%g\" "
                                 "width=\"%.1f\" height=\"12\"/>", at, ty + 1,
                                 w);
            at += w;
        }
        bl_strbuf_puts(b, "</g>\n");
        h += ROW;
        i = j;
    }
    free(mem);
    return h;
}

/* FNV-1a: enough to find equal maps (the texts are compared too). */
static uint64_t hash_text(const char *t)
{
    uint64_t h = 14695981039346656037ULL;
    for (; *t; t++)
        h = (h ^ (unsigned char)*t) * 1099511628211ULL;
    return h;
}

/* Appends body once per distinct text: the first time as a group with an
 * id, later as a reference to it. Without `seen`, or out of memory, as
 * is. */
static void body_once(bl_strbuf *b, bl_nodemap_seen *seen, char *body)
{
    uint64_t h = hash_text(body);
    size_t j;
    if (!seen) {
        bl_strbuf_puts(b, body);
        free(body);
        return;
    }
    for (j = 0; j < seen->n; j++)
        if (seen->hash[j] == h && strcmp(seen->body[j], body) == 0) {
            bl_strbuf_printf(b, "<use href=\"#b-%zu\"/>\n", j);
            free(body);
            return;
        }
    if (bl_grow(&seen->hash, sizeof *seen->hash, seen->n, &seen->cap_hash,
                64) < 0 ||
        bl_grow(&seen->body, sizeof *seen->body, seen->n, &seen->cap_body,
                64) < 0) {
        bl_strbuf_puts(b, body);
        free(body);
        return;
    }
    bl_strbuf_printf(b, "<g id=\"b-%zu\">\n%s</g>\n", seen->n, body);
    seen->hash[seen->n] = h;
    seen->body[seen->n++] = body;
}

void bl_nodemap_seen_free(bl_nodemap_seen *seen)
{
    for (size_t j = 0; j < seen->n; j++)
        free(seen->body[j]);
    free(seen->body);
    free(seen->hash);
    memset(seen, 0, sizeof *seen);
}

size_t bl_nodemap_run_svg(bl_strbuf *b, const bl_nodemap *m,
                          const char *use_id, const bl_report_run *x,
                          bl_nodemap_seen *seen)
{
    bl_strbuf body = {0};
    size_t nranks = 0;
    for (size_t i = 0; i < x->nmemory; i++)
        if (i == 0 || x->memory[i].rank != x->memory[i - 1].rank)
            nranks++;
    double width = m->width < 640 ? 640 : m->width;
    double height = m->height + (x->nmemory ? ROW * (double)(nranks + 1) + 4
                                            : 0);
    if (use_id)
        bl_strbuf_printf(b, "<svg class=\"map\" role=\"img\" viewBox=\"0 0 "
                         "%g %g\" style=\"max-width:%gpx\">", width, height,
                         width * 1.2);
    else
        bl_strbuf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                         "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\""
                         " viewBox=\"0 0 %g %g\" width=\"%g\" height=\"%g\">\n"
                         "<style>svg{font:10px sans-serif}text{fill:#222}%s"
                         "</style>\n<rect width=\"100%%\" height=\"100%%\" "
                         "fill=\"#fff\"/>\n", width, height, width, height,
                         bl_nodemap_css);
    bl_strbuf_puts(b, "<title>run ");
    bl_html_escape(b, x->s->run_id);
    bl_strbuf_puts(b, ": where each rank.thread ran, pages per NUMA node"
                      "</title>\n");
    if (use_id)
        bl_strbuf_printf(b, "<use href=\"#%s\"/>\n", use_id);
    else
        bl_strbuf_puts(b, m->boxes);
    size_t off = threads_part(&body, m, x);
    pages_part(&body, x, m->height, width);
    char *text = bl_strbuf_take(&body);
    if (text)
        body_once(b, seen, text);
    bl_strbuf_puts(b, "</svg>\n");
    return off;
}
