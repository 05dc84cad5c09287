/* Folding a run's nodes (report_nodes.h): the machines alike, each node's
 * placement hashed relative to the node, chunk by chunk. */
#include "report/report_nodes.h"

#include <stdlib.h>
#include <string.h>

#include "cpuset.h"

/* Rows of the thread table read at once: 1.3 M rows never held whole. */
enum { CHUNK = 65536 };

/* The thread table's columns the folding and the maps use: not the host
 * (the rank rows say the node), pid or context switches, whose strings
 * and conversions would cost a third of the read. */
#define COL(m, t) BL_H5_COLUMN(bl_h5_placement, m, t)
static const bl_h5_field thread_columns[] = {
    COL(rank, BL_H5_I32),      COL(thread, BL_H5_I32),
    COL(rank_cpuset, BL_H5_STR), COL(cpuset, BL_H5_STR),
    COL(cpu_first, BL_H5_I32), COL(cpu_last, BL_H5_I32),
    COL(core, BL_H5_I32),      COL(l3, BL_H5_I32),
    COL(numa, BL_H5_I32),      COL(package, BL_H5_I32),
    COL(migrations, BL_H5_I64)};
static const bl_h5_table_def thread_def =
    BL_H5_TABLE("placement", bl_h5_placement, thread_columns);

static const char *str(const char *s)
{
    return s ? s : "";
}

static int machines_alike(const bl_h5_machine *a, int ta,
                          const bl_h5_machine *b, int tb)
{
    return ta == tb && a->packages == b->packages &&
           a->numa_nodes == b->numa_nodes && a->cores == b->cores &&
           a->pus == b->pus && a->numa_balancing == b->numa_balancing &&
           strcmp(str(a->cpu_model), str(b->cpu_model)) == 0 &&
           strcmp(str(a->mpi_library_version),
                  str(b->mpi_library_version)) == 0 &&
           strcmp(str(a->kernel_release), str(b->kernel_release)) == 0 &&
           strcmp(str(a->virtualization), str(b->virtualization)) == 0 &&
           strcmp(str(a->isa_levels), str(b->isa_levels)) == 0;
}

size_t bl_report_machines_fold(const bl_h5_machine *m, const int *topo_of,
                               size_t n, int **group_of)
{
    int *first = calloc(n + 1, sizeof *first);
    size_t ng = 0;
    *group_of = calloc(n + 1, sizeof **group_of);
    if (!first || !*group_of) {
        free(first);
        free(*group_of);
        *group_of = NULL;
        return 0;
    }
    /* a scan of the groups so far: few groups in a job of alike nodes */
    for (size_t k = 0; k < n; k++) {
        size_t g = 0;
        while (g < ng && !machines_alike(&m[first[g]], topo_of[first[g]],
                                         &m[k], topo_of[k]))
            g++;
        if (g == ng)
            first[ng++] = (int)k;
        (*group_of)[k] = (int)g;
    }
    free(first);
    return ng;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)str(s); *p; p++)
        h = bl_cpuset_hash_mix(h, *p);
    return bl_cpuset_hash_mix(h, 0xff);
}

/* The rank rows: each rank's node, each node's lowest rank and its rank
 * count and pages. */
typedef struct rank_index {
    int *node_of;               /* per rank; -1 unknown */
    int *first_rank;            /* per node */
    size_t nranks;
} rank_index;

static int read_ranks(hid_t g, bl_report_nodes *o, rank_index *ix,
                      bl_err *err)
{
    bl_h5_rank *rows = NULL;
    size_t n = 0;
    int32_t top = -1;
    if (bl_h5_table_read(g, &bl_h5_rank_def, (void **)&rows, &n, err) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        top = rows[i].rank > top ? rows[i].rank : top;
    /* a damaged file may claim any rank: an index of 2^31 ranks is none */
    if ((size_t)top + 1 > 4 * n + 1024) {
        bl_h5_table_free(&bl_h5_rank_def, rows, n);
        return bl_err_set(err, "rank %d in a table of %zu rank rows", top, n);
    }
    ix->nranks = (size_t)top + 1;
    ix->node_of = malloc((ix->nranks + 1) * sizeof *ix->node_of);
    ix->first_rank = malloc((o->nnodes + 1) * sizeof *ix->first_rank);
    if (!ix->node_of || !ix->first_rank) {
        bl_h5_table_free(&bl_h5_rank_def, rows, n);
        return bl_err_set(err, "out of memory reading the rank rows");
    }
    memset(ix->node_of, 0xff, (ix->nranks + 1) * sizeof *ix->node_of);
    memset(ix->first_rank, 0x7f, (o->nnodes + 1) * sizeof *ix->first_rank);
    for (size_t i = 0; i < n; i++) {
        const bl_h5_rank *q = &rows[i];
        bl_report_node_sum *s;
        if (q->rank < 0 || q->node < 0 || (size_t)q->node >= o->nnodes)
            continue;
        s = &o->node[q->node];
        ix->node_of[q->rank] = q->node;
        if (q->rank < ix->first_rank[q->node])
            ix->first_rank[q->node] = q->rank;
        s->ranks++;
        s->pages_local += q->pages_local;
        s->pages_total += q->pages_total;
    }
    bl_h5_table_free(&bl_h5_rank_def, rows, n);
    return 0;
}

/* The node of rank `rank`, -1 when the rank rows do not name one. */
static int node_of(const rank_index *ix, int32_t rank)
{
    return rank >= 0 && (size_t)rank < ix->nranks ? ix->node_of[rank] : -1;
}

/* Is the thread's last CPU one of its rank's? The rank's set parsed once
 * for its consecutive rows (a rank's threads come together). */
typedef struct set_cache {
    char *text;
    hwloc_bitmap_t set;
    int ok;
} set_cache;

static int off_binding(set_cache *c, const bl_h5_placement *p)
{
    bl_err e;
    if (!p->rank_cpuset || p->cpu_last < 0)
        return 0;
    if (!c->text || strcmp(c->text, p->rank_cpuset) != 0) {
        free(c->text);
        c->text = strdup(p->rank_cpuset);
        c->ok = bl_cpuset_parse(p->rank_cpuset, c->set, &e) == 0;
    }
    return c->ok && !hwloc_bitmap_isset(c->set, (unsigned)p->cpu_last);
}

static uint64_t placement_hash(const bl_h5_placement *p, int32_t rel)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    int64_t v[] = {rel, p->thread, p->cpu_first, p->cpu_last, p->core,
                   p->l3, p->numa, p->package};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        h = bl_cpuset_hash_mix(h, (uint64_t)v[i]);
    return hash_str(hash_str(h, p->rank_cpuset), p->cpuset);
}

/* Pass 1 over the thread rows: every node's pattern and counts. The
 * pattern is a sum of row hashes, so the rows' order does not matter. */
static int hash_placement(hid_t g, bl_report_nodes *o, const rank_index *ix,
                          bl_err *err)
{
    set_cache c = {NULL, hwloc_bitmap_alloc(), 0};
    int rc = 0;
    for (size_t first = 0;; first += CHUNK) {
        bl_h5_placement *rows = NULL;
        size_t n = 0;
        if (bl_h5_table_read_range(g, &thread_def, first, CHUNK,
                                   (void **)&rows, &n, err) < 0) {
            rc = -1;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            int k = node_of(ix, rows[i].rank);
            if (k < 0)
                continue;
            o->node[k].threads++;
            o->node[k].off_binding += off_binding(&c, &rows[i]);
            o->node[k].pattern += placement_hash(
                &rows[i], rows[i].rank - ix->first_rank[k]);
        }
        bl_h5_table_free(&thread_def, rows, n);
        H5garbage_collect();   /* HDF5's free lists of the chunk */
        if (n < CHUNK)
            break;
    }
    free(c.text);
    hwloc_bitmap_free(c.set);
    return rc;
}

static void hash_memory(const bl_h5_memory *m, size_t n, bl_report_nodes *o,
                        const rank_index *ix)
{
    for (size_t i = 0; i < n; i++) {
        int k = node_of(ix, m[i].rank);
        uint64_t h = 0x5bd1e9955bd1e995ULL;
        if (k < 0)
            continue;
        h = bl_cpuset_hash_mix(h, (uint64_t)(m[i].rank - ix->first_rank[k]));
        h = bl_cpuset_hash_mix(h, (uint64_t)m[i].numa_node);
        o->node[k].pattern += bl_cpuset_hash_mix(h, (uint64_t)m[i].pages);
    }
}

/* Nodes with the same machine group, counts and pattern are one group. */
static int group_nodes(bl_report_nodes *o, const int *machine_group)
{
    size_t cap = 16;
    if (!(o->groups = calloc(cap, sizeof *o->groups)))
        return -1;
    for (size_t k = 0; k < o->nnodes; k++) {
        bl_report_node_sum *s = &o->node[k];
        size_t g = 0;
        s->group = -1;
        if (s->ranks == 0)
            continue;
        o->nused++;
        for (; g < o->ngroups; g++) {
            const bl_report_node_sum *f = &o->node[o->groups[g].first];
            if (f->pattern == s->pattern && f->ranks == s->ranks &&
                f->threads == s->threads &&
                machine_group[o->groups[g].first] == machine_group[k])
                break;
        }
        if (g == o->ngroups) {
            if (g == cap) {
                void *p = realloc(o->groups, 2 * cap * sizeof *o->groups);
                if (!p)
                    return -1;
                o->groups = p;
                cap *= 2;
            }
            memset(&o->groups[g], 0, sizeof o->groups[g]);
            o->groups[g].first = (int)k;
            o->ngroups++;
        }
        o->groups[g].count++;
        s->group = (int)g;
    }
    if (!(o->group_of = malloc((o->nnodes + 1) * sizeof *o->group_of)))
        return -1;
    for (size_t k = 0; k < o->nnodes; k++)
        o->group_of[k] = o->node[k].group;
    return 0;
}

/* The drawn group whose first node is k, or NULL. */
static bl_report_node_group *drawn(bl_report_nodes *o, int k)
{
    int g = k >= 0 ? o->node[k].group : -1;
    if (g < 0 || g >= BL_REPORT_FOLD_MAPS || o->groups[g].first != k)
        return NULL;
    return &o->groups[g];
}

static int keep_rows(bl_report_node_group *gr, bl_h5_placement *p)
{
    void *q = realloc(gr->placement, (gr->nplacement + 1) * sizeof *p);
    if (!q)
        return -1;
    gr->placement = q;
    gr->placement[gr->nplacement++] = *p;
    memset(p, 0, sizeof *p);     /* its strings now the group's */
    return 0;
}

/* Pass 2: the rows of each drawn group's first node. */
static int collect_rows(hid_t g, bl_report_nodes *o, const rank_index *ix,
                        const bl_h5_memory *mem, size_t nmem, bl_err *err)
{
    for (size_t i = 0; i < nmem; i++) {
        bl_report_node_group *gr = drawn(o, node_of(ix, mem[i].rank));
        void *q;
        if (!gr)
            continue;
        q = realloc(gr->memory, (gr->nmemory + 1) * sizeof *gr->memory);
        if (!q)
            return bl_err_set(err, "out of memory");
        gr->memory = q;
        gr->memory[gr->nmemory++] = mem[i];
    }
    for (size_t first = 0;; first += CHUNK) {
        bl_h5_placement *rows = NULL;
        size_t n = 0;
        int rc = 0;
        if (bl_h5_table_read_range(g, &thread_def, first, CHUNK,
                                   (void **)&rows, &n, err) < 0)
            return -1;
        for (size_t i = 0; i < n && rc == 0; i++) {
            bl_report_node_group *gr = drawn(o, node_of(ix, rows[i].rank));
            if (gr)
                rc = keep_rows(gr, &rows[i]);
        }
        bl_h5_table_free(&thread_def, rows, n);
        if (rc < 0)
            return bl_err_set(err, "out of memory");
        if (n < CHUNK)
            return 0;
    }
}

int bl_report_nodes_read(hid_t g, const int *machine_group, size_t nmachines,
                         bl_report_nodes *out, bl_err *err)
{
    rank_index ix = {0};
    bl_h5_memory *mem = NULL;
    size_t nmem = 0;
    int rc;
    memset(out, 0, sizeof *out);
    out->nnodes = nmachines;
    if (!(out->node = calloc(nmachines + 1, sizeof *out->node)))
        return bl_err_set(err, "out of memory");
    rc = read_ranks(g, out, &ix, err);
    if (rc == 0)
        rc = hash_placement(g, out, &ix, err);
    if (rc == 0)
        rc = bl_h5_table_read(g, &bl_h5_memory_def, (void **)&mem, &nmem,
                              err);
    if (rc == 0) {
        hash_memory(mem, nmem, out, &ix);
        if (group_nodes(out, machine_group) < 0)
            rc = bl_err_set(err, "out of memory");
    }
    if (rc == 0)
        rc = collect_rows(g, out, &ix, mem, nmem, err);
    bl_h5_table_free(&bl_h5_memory_def, mem, nmem);
    free(ix.node_of);
    free(ix.first_rank);
    if (rc < 0)
        bl_report_nodes_free(out);
    return rc;
}

void bl_report_nodes_free(bl_report_nodes *n)
{
    for (size_t g = 0; n->groups && g < n->ngroups; g++) {
        bl_h5_table_free(&thread_def, n->groups[g].placement,
                         n->groups[g].nplacement);
        free(n->groups[g].memory);
    }
    free(n->groups);
    free(n->node);
    free(n->group_of);
    memset(n, 0, sizeof *n);
}
