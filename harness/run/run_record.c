/* bindlab run: the probe files of one launch as the rows of a run record
 * (common/h5/h5schema.h): the placement table bindlab-app writes (one row
 * per rank and thread, cores and NUMA nodes named by this machine's
 * hwloc), pages per NUMA node and per rank, and the probe's own tables
 * (processes, threads, affinity changes). */
#include "run/run.h"
#include "run/run_priv.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuset.h"
#include "grow.h"
#include "results/probe_file.h"
#include "topo.h"

static char *dup0(const char *s)
{
    return strdup(s ? s : "");
}

/* A process started by a rank that is no rank itself (a shell of
 * system()): its parent is another probed process of its host. */
static int is_child(const bl_probe_set *s, const bl_probe_file *f)
{
    if (f->mpi_init)
        return 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->files[i].pid == f->ppid &&
            strcmp(s->files[i].host, f->host) == 0)
            return 1;
    return 0;
}

/* The set the process was given: libgomp may re-bind the main thread
 * before main, so the old set of the first change made to it, when there
 * is one before init, else the probe's start. */
static const char *given_cpus(const bl_probe_file *f)
{
    for (size_t i = 0; i < f->nchanges; i++) {
        const bl_probe_change *c = &f->changes[i];
        if (c->target == f->pid && strcmp(c->phase, "before-init") == 0 &&
            c->old_cpus && strcmp(c->old_cpus, "-") != 0)
            return c->old_cpus;
    }
    return f->cpus[BL_PROBE_START] ? f->cpus[BL_PROBE_START] : "";
}

/* Lowest and highest CPU a thread was seen on (the probe records the
 * set, not the order), and where the highest sits. */
static void seen_where(hwloc_topology_t topo, const char *seen,
                       bl_h5_placement *p)
{
    hwloc_bitmap_t s = hwloc_bitmap_alloc();
    bl_pu_where w;
    bl_err e;
    p->cpu_first = p->cpu_last = -1;
    p->core = p->l3 = p->numa = p->package = -1;
    if (s && seen && bl_cpuset_parse_list(seen, s, NULL) == 0 &&
        !hwloc_bitmap_iszero(s)) {
        p->cpu_first = hwloc_bitmap_first(s);
        p->cpu_last = hwloc_bitmap_last(s);
        if (bl_topo_pu_where(topo, p->cpu_last, &w, &e) == 0) {
            p->core = w.core;
            p->l3 = w.l3;
            p->numa = w.numa;
            p->package = w.package;
        }
    }
    hwloc_bitmap_free(s);
}

typedef struct rows {
    bl_h5_run *r;
    size_t placement_cap, thread_cap, affinity_cap, memory_cap;
    hwloc_topology_t topo;
    int failed;
} rows;

static void add_thread(rows *w, const bl_probe_file *f,
                       const bl_probe_thread *t, int rank, int index)
{
    bl_h5_run *r = w->r;
    bl_h5_placement *p;
    bl_h5_thread *tr;
    if (bl_grow(&r->placement, sizeof *r->placement, r->nplacement,
                &w->placement_cap, 16) < 0 ||
        bl_grow(&r->thread_rows, sizeof *r->thread_rows, r->nthread_rows,
                &w->thread_cap, 16) < 0) {
        w->failed = 1;
        return;
    }
    p = &r->placement[r->nplacement++];
    memset(p, 0, sizeof *p);
    p->rank = rank;
    p->thread = index;
    p->host = dup0(f->host);
    p->rank_cpuset = dup0(given_cpus(f));
    p->cpuset = dup0(t->end_cpus ? t->end_cpus : t->start_cpus);
    seen_where(w->topo, t->seen_cpus, p);
    p->migrations = t->migrations;
    p->pid = f->pid;
    p->ctx_voluntary = t->ctx_voluntary;
    p->ctx_involuntary = t->ctx_involuntary;
    tr = &r->thread_rows[r->nthread_rows++];
    tr->rank = rank;
    tr->thread = index;
    tr->tid = t->tid;
    tr->label = dup0(t->label);
    tr->object = dup0(t->object);
    tr->phase = dup0(t->phase);
    tr->start_cpus = dup0(t->start_cpus);
    tr->seen_cpus = dup0(t->seen_cpus ? t->seen_cpus : "-");
    tr->samples = t->samples;
}

/* The main thread first (thread 0), then the others as the file lists
 * them. */
static void add_threads(rows *w, const bl_probe_file *f, int rank)
{
    int index = 1;
    for (size_t i = 0; i < f->nthreads; i++)
        if (f->threads[i].tid == f->pid)
            add_thread(w, f, &f->threads[i], rank, 0);
    for (size_t i = 0; i < f->nthreads; i++)
        if (f->threads[i].tid != f->pid)
            add_thread(w, f, &f->threads[i], rank, index++);
}

static void add_changes(rows *w, const bl_probe_file *f, int rank)
{
    bl_h5_run *r = w->r;
    for (size_t i = 0; i < f->nchanges; i++) {
        const bl_probe_change *c = &f->changes[i];
        bl_h5_affinity *a;
        if (bl_grow(&r->affinity, sizeof *r->affinity, r->naffinity,
                    &w->affinity_cap, 16) < 0) {
            w->failed = 1;
            return;
        }
        a = &r->affinity[r->naffinity++];
        a->rank = rank;
        a->t = c->t;
        a->tid = c->tid;
        a->target = c->target;
        a->phase = dup0(c->phase);
        a->call = dup0(c->call);
        a->old_cpus = dup0(c->old_cpus);
        a->new_cpus = dup0(c->new_cpus);
        a->caller = dup0(c->caller);
        a->by = dup0(c->by);
        a->changed = (int8_t)c->changed;
        a->ok = (int8_t)c->ok;
    }
}

/* Pages per NUMA node (hwloc logical index), in base pages. */
static void add_pages(rows *w, const bl_probe_file *f, int rank)
{
    bl_h5_run *r = w->r;
    long base_kb = sysconf(_SC_PAGESIZE) / 1024;
    for (size_t i = 0; i < f->npages; i++) {
        const bl_probe_pages *pg = &f->pages[i];
        hwloc_obj_t numa = hwloc_get_numanode_obj_by_os_index(
            w->topo, (unsigned)pg->node);
        int32_t node = numa ? (int32_t)numa->logical_index : -1;
        long long n = pg->pages * (pg->page_kb > 0 ? pg->page_kb : base_kb) /
                      (base_kb > 0 ? base_kb : 4);
        size_t k = 0;
        while (k < r->nmemory &&
               (r->memory[k].rank != rank || r->memory[k].numa_node != node))
            k++;
        if (k == r->nmemory) {
            if (bl_grow(&r->memory, sizeof *r->memory, r->nmemory,
                        &w->memory_cap, 8) < 0) {
                w->failed = 1;
                return;
            }
            r->memory[r->nmemory++] = (bl_h5_memory){rank, node, 0};
        }
        r->memory[k].pages += n;
    }
}

static void add_process(bl_h5_process *p, const bl_probe_file *f, int rank)
{
    p->rank = rank;
    p->host = dup0(f->host);
    p->pid = f->pid;
    p->ppid = f->ppid;
    p->exe = dup0(f->exe);
    p->rank_from = dup0(f->rank_from);
    p->cpus_start = dup0(f->cpus[BL_PROBE_START]);
    p->cpus_init = dup0(f->cpus[BL_PROBE_INIT]);
    p->cpus_finalize = dup0(f->cpus[BL_PROBE_FINALIZE]);
    p->cpus_exit = dup0(f->cpus[BL_PROBE_EXIT]);
    p->mpi_init = (int8_t)f->mpi_init;
    p->complete = (int8_t)f->complete;
    p->notes = (int32_t)f->notes;
    p->omp_runtime = dup0(f->omp_runtime);
    p->omp_runtimes_other = dup0(f->omp_other);
}

/* The run's OpenMP runtime: its first process's (rank order) that has
 * one, as bindlab-app records its rank 0's. */
static void run_runtime(bl_h5_run *r, const bl_probe_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const bl_probe_file *f = &s->files[i];
        if (!f->omp_runtime || is_child(s, f))
            continue;
        r->omp_runtime = dup0(f->omp_runtime);
        r->omp_runtime_version = dup0(f->omp_version);
        r->omp_runtime_path = dup0(f->omp_file);
        r->omp_runtimes_other = dup0(f->omp_other);
        r->omp_gomp_runtime = dup0(f->omp_gomp);
        return;
    }
}

/* Per rank: its pages on the NUMA nodes its given set touches. */
static void rank_rows(rows *w)
{
    bl_h5_run *r = w->r;
    long long local_all = 0, total_all = 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
    r->rank_rows = calloc(r->nprocesses + 1, sizeof *r->rank_rows);
    for (size_t i = 0; r->rank_rows && set && nodes && i < r->nprocesses;
         i++) {
        const bl_h5_process *p = &r->processes[i];
        bl_h5_rank *row = &r->rank_rows[r->nrank_rows++];
        const char *given = "";
        for (size_t k = 0; k < r->nplacement; k++)
            if (r->placement[k].rank == p->rank && r->placement[k].thread == 0)
                given = r->placement[k].rank_cpuset;
        hwloc_bitmap_zero(nodes);
        if (bl_cpuset_parse_list(given, set, NULL) == 0)
            bl_topo_objs_touched(w->topo, set, HWLOC_OBJ_NUMANODE, nodes);
        row->rank = p->rank;
        row->host = dup0(p->host);
        row->mem_policy = dup0("");
        for (size_t k = 0; k < r->nmemory; k++) {
            const bl_h5_memory *m = &r->memory[k];
            if (m->rank != p->rank)
                continue;
            row->pages_total += m->pages;
            if (m->numa_node >= 0 && hwloc_bitmap_isset(nodes, (unsigned)m->numa_node))
                row->pages_local += m->pages;
        }
        row->local_page_fraction = row->pages_total > 0
            ? (double)row->pages_local / (double)row->pages_total : -1.0;
        local_all += row->pages_local;
        total_all += row->pages_total;
    }
    r->result.local_page_fraction =
        total_all > 0 ? (double)local_all / (double)total_all : -1.0;
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(nodes);
}

int bl_run_record_read(const char *dir, hwloc_topology_t topo, bl_h5_run *r,
                       bl_err *err)
{
    bl_probe_set s;
    rows w = {.r = r, .topo = topo};
    int next = 0;
    if (bl_probe_dir_read(dir, &s, err) < 0) {
        bl_probe_set_free(&s);
        return -1;
    }
    for (size_t i = 0; i < s.n; i++)
        if (s.files[i].rank >= next)
            next = (int)s.files[i].rank + 1;
    r->processes = calloc(s.n + 1, sizeof *r->processes);
    bl_run_gpu_proc *procs = calloc(s.n + 1, sizeof *procs);
    for (size_t i = 0; r->processes && procs && i < s.n && !w.failed; i++) {
        const bl_probe_file *f = &s.files[i];
        if (f->earlier_image) /* the process is its last image */
            continue;
        int rank = f->rank >= 0 ? (int)f->rank : next++;
        if (is_child(&s, f))
            continue;
        procs[r->nprocesses] = (bl_run_gpu_proc){f, given_cpus(f)};
        add_process(&r->processes[r->nprocesses++], f, rank);
        add_threads(&w, f, rank);
        add_changes(&w, f, rank);
        add_pages(&w, f, rank);
        if (rank + 1 > r->ranks)
            r->ranks = rank + 1;
    }
    if (r->processes && procs) {
        rank_rows(&w);
        bl_run_gpus(r, procs);
    }
    run_runtime(r, &s);
    free(procs);
    bl_probe_set_free(&s);
    if (!r->processes || !procs || w.failed)
        return bl_err_set(err, "out of memory reading %s", dir);
    return 0;
}
