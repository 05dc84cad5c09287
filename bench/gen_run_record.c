/* A made-up run record of a large job, for bench/report_scale.sh and the
 * report's folding test: one per-run sweep file of N nodes x R ranks x T
 * threads written through the harness's own writer (one schema,
 * docs/schema.md), every node of one topology (stored once: the writer
 * links alike nodes' topology_xml to one dataset).
 *
 *   bindlab-gen-record OUT.h5 TOPOLOGY.xml NODES RANKS THREADS [--odd]
 *
 * Rank r runs on node r / RANKS (host n00000, n00001, ...), its threads
 * each on one PU of the rank's equal share of the node's PUs, its pages
 * on the NUMA node of its first PU. --odd makes two nodes differ (with 4
 * nodes or more): on node 1 thread 0 of its first rank ran outside its
 * rank's CPUs, on node NODES/2 the first rank's pages are on another NUMA
 * node (remote); a report must not fold them with the others. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results_file.h"
#include "topo.h"

typedef struct shape {
    int nodes, ranks, threads, odd;
    int npu, nnuma;
    int *os, *core, *numa, *package, *l3;   /* per PU, by logical index */
    char **pu_set;          /* "7": each PU's OS index as a cpuset */
    char **rank_set;        /* per rank of a node: its PUs' cpuset */
    char **host;            /* per node */
} shape;

static int ancestor(hwloc_topology_t t, hwloc_obj_t pu, hwloc_obj_type_t ty)
{
    hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(t, ty, pu);
    return a ? (int)a->logical_index : -1;
}

static int numa_of(hwloc_topology_t t, hwloc_obj_t pu)
{
    hwloc_obj_t n = hwloc_get_obj_covering_cpuset(t, pu->cpuset);
    while (n && !n->memory_arity)
        n = n->parent;
    return n ? (int)n->memory_first_child->logical_index : 0;
}

static char *fmt(const char *f, int a, int b)
{
    char buf[64];
    snprintf(buf, sizeof buf, f, a, b);
    return strdup(buf);
}

/* Each PU's place in topology t, and the strings the rows share. */
static int shape_build(hwloc_topology_t t, shape *s)
{
    int per;
    s->npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    s->nnuma = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    per = s->npu / s->ranks;
    if (per < s->threads || s->nnuma < 1) {
        fprintf(stderr, "bindlab-gen-record: %d ranks x %d threads do not "
                "fit %d PUs\n", s->ranks, s->threads, s->npu);
        return -1;
    }
    s->os = calloc((size_t)s->npu, sizeof *s->os);
    s->core = calloc((size_t)s->npu, sizeof *s->core);
    s->numa = calloc((size_t)s->npu, sizeof *s->numa);
    s->package = calloc((size_t)s->npu, sizeof *s->package);
    s->l3 = calloc((size_t)s->npu, sizeof *s->l3);
    s->pu_set = calloc((size_t)s->npu, sizeof *s->pu_set);
    s->rank_set = calloc((size_t)s->ranks, sizeof *s->rank_set);
    s->host = calloc((size_t)s->nodes, sizeof *s->host);
    if (!s->os || !s->core || !s->numa || !s->package || !s->l3 ||
        !s->pu_set || !s->rank_set || !s->host)
        return -1;
    for (int i = 0; i < s->npu; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, (unsigned)i);
        s->os[i] = (int)pu->os_index;
        s->core[i] = ancestor(t, pu, HWLOC_OBJ_CORE);
        s->package[i] = ancestor(t, pu, HWLOC_OBJ_PACKAGE);
        s->l3[i] = ancestor(t, pu, HWLOC_OBJ_L3CACHE);
        s->numa[i] = numa_of(t, pu);
        s->pu_set[i] = fmt("%d", s->os[i], 0);
    }
    /* OS indexes of a share need not be consecutive: the set as a list */
    for (int r = 0; r < s->ranks; r++) {
        char buf[4096];
        size_t used = 0;
        buf[0] = '\0';
        for (int i = r * per; i < (r + 1) * per && used + 16 < sizeof buf; i++)
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%d",
                                     used ? "," : "", s->os[i]);
        s->rank_set[r] = strdup(buf);
    }
    for (int k = 0; k < s->nodes; k++)
        s->host[k] = fmt("n%05d", k, 0);
    return 0;
}

static void shape_free(shape *s)
{
    for (int i = 0; s->pu_set && i < s->npu; i++)
        free(s->pu_set[i]);
    for (int r = 0; s->rank_set && r < s->ranks; r++)
        free(s->rank_set[r]);
    for (int k = 0; s->host && k < s->nodes; k++)
        free(s->host[k]);
    free(s->os);
    free(s->core);
    free(s->numa);
    free(s->package);
    free(s->l3);
    free(s->pu_set);
    free(s->rank_set);
    free(s->host);
}

/* The placement, memory and rank rows of node k into app (rows from
 * index k * ranks (* threads) on). */
static void node_rows(const shape *s, int k, bl_h5_run *app)
{
    int per = s->npu / s->ranks;
    for (int l = 0; l < s->ranks; l++) {
        int r = k * s->ranks + l, first = l * per;
        int numa = s->numa[first];
        for (int th = 0; th < s->threads; th++) {
            bl_h5_placement *p = &app->placement[(size_t)r * s->threads + th];
            int pu = first + th;
            if (s->odd && k == 1 && l == 0 && th == 0)
                pu = (first + per) % s->npu;      /* outside its rank's set */
            p->rank = r;
            p->thread = th;
            p->host = s->host[k];
            p->rank_cpuset = s->rank_set[l];
            p->cpuset = s->pu_set[pu];
            p->cpu_first = p->cpu_last = s->os[pu];
            p->core = s->core[pu];
            p->l3 = s->l3[pu];
            p->numa = s->numa[pu];
            p->package = s->package[pu];
            p->pid = 1000 + l;
            p->ctx_voluntary = p->ctx_involuntary = -1;
        }
        if (s->odd && k == s->nodes / 2 && l == 0)
            numa = (numa + 1) % s->nnuma;          /* remote pages */
        app->memory[r] = (bl_h5_memory){r, numa, 4096};
        bl_h5_rank *q = &app->rank_rows[r];
        q->rank = r;
        q->host = s->host[k];
        q->node = k;
        q->median_s = q->min_s = 0.01;
        q->rate = 10.0;
        q->local_page_fraction = numa == s->numa[first] ? 1.0 : 0.0;
        q->pages_total = 4096;
        q->pages_local = numa == s->numa[first] ? 4096 : 0;
        q->mem_policy = "default";
    }
}

static int write_record(const char *out, const shape *s, const char *xml,
                        hwloc_topology_t t)
{
    size_t nranks = (size_t)s->nodes * s->ranks;
    bl_h5_machine *m = calloc((size_t)s->nodes, sizeof *m);
    bl_h5_run app = {0};
    bl_h5_harness h = {0};
    bl_topo_counts c;
    bl_err err;
    char label[128];
    int rc;
    app.placement = calloc(nranks * s->threads, sizeof *app.placement);
    app.memory = calloc(nranks, sizeof *app.memory);
    app.rank_rows = calloc(nranks, sizeof *app.rank_rows);
    app.timings = calloc(3 * nranks, sizeof *app.timings);
    if (!m || !app.placement || !app.memory || !app.rank_rows || !app.timings)
        return -1;
    bl_topo_counts_get(t, &c);
    for (int k = 0; k < s->nodes; k++) {
        m[k] = (bl_h5_machine){.hostname = s->host[k], .cpu_model = "made up",
            .mpi_library_version = "Open MPI v4.1.4",
            .kernel_release = "6.1.0", .topology_xml = (char *)xml,
            .packages = c.packages, .numa_nodes = c.numa_nodes,
            .l3_domains = c.l3_domains, .cores = c.cores, .pus = c.pus,
            .virtualization = ""};
        node_rows(s, k, &app);
    }
    for (size_t i = 0; i < 3 * nranks; i++)
        app.timings[i] = 0.01;
    app.kernel = app.status = "triad";
    app.status = "ok";
    app.iterations = 3;
    app.ranks = (int)nranks;
    app.threads = s->threads;
    app.result = (bl_h5_result){.rate = 10.0 * nranks, .rate_unit = "GB/s",
                                .median_s = 0.01, .verified = 1,
                                .local_page_fraction = 1.0};
    app.nplacement = nranks * s->threads;
    app.nmemory = app.nrank_rows = nranks;
    snprintf(label, sizeof label, "triad np%zu ppr:%d:node threads %d",
             nranks, s->ranks, s->threads);
    h = (bl_h5_harness){.run_id = "r0000", .label = label, .status = "ok",
        .repetition = 1, .np = (int)nranks, .threads = s->threads,
        .layout_nodes = s->nodes, .kernel = "triad", .map_by = "ppr",
        .bind_to = "core", .launcher = "mpirun", .attempts = 1};
    rc = bl_h5_write_sweep_run(AT_FDCWD, out, "bindlab-gen-record", m,
                               (size_t)s->nodes, &app, &h, &err);
    if (rc < 0)
        fprintf(stderr, "bindlab-gen-record: %s\n", err.msg);
    free(m);
    free(app.placement);
    free(app.memory);
    free(app.rank_rows);
    free(app.timings);
    return rc;
}

int main(int argc, char **argv)
{
    shape s = {0};
    hwloc_topology_t t;
    bl_err err;
    char *xml = NULL;
    int len, rc;
    if (argc < 6 || argc > 7 || (argc == 7 && strcmp(argv[6], "--odd"))) {
        fprintf(stderr, "usage: bindlab-gen-record OUT.h5 TOPOLOGY.xml "
                "NODES RANKS THREADS [--odd]\n");
        return 2;
    }
    s.nodes = atoi(argv[3]);
    s.ranks = atoi(argv[4]);
    s.threads = atoi(argv[5]);
    s.odd = argc == 7 && s.nodes >= 4;
    if (s.nodes < 1 || s.ranks < 1 || s.threads < 1)
        return 2;
    if (bl_topo_load(argv[2], &t, &err) < 0) {
        fprintf(stderr, "bindlab-gen-record: %s\n", err.msg);
        return 1;
    }
    if (shape_build(t, &s) < 0 ||
        hwloc_topology_export_xmlbuffer(t, &xml, &len, 0) < 0) {
        shape_free(&s);
        hwloc_topology_destroy(t);
        return 1;
    }
    rc = write_record(argv[1], &s, xml, t);
    hwloc_free_xmlbuffer(t, xml);
    hwloc_topology_destroy(t);
    shape_free(&s);
    return rc < 0 ? 1 : 0;
}
