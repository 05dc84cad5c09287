#include "measure/placement.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <omp.h>

#include "cpuset.h"
#include "measure/pagemap.h"
#include "topo.h"

void bl_place_cpuset_text(hwloc_const_bitmap_t set, char *buf, size_t len)
{
    int n = bl_cpuset_format_list(set, buf, len);
    if (n < 0)
        snprintf(buf, len, "?");
    else if ((size_t)n >= len && len >= 2)
        buf[len - 2] = '+';
}

int bl_place_rank_cpuset(hwloc_topology_t topo, hwloc_bitmap_t out,
                         bl_err *err)
{
    int nplaces = omp_get_num_places();
    hwloc_bitmap_zero(out);
    if (nplaces > 0) {
        for (int p = 0; p < nplaces; p++) {
            int n = omp_get_place_num_procs(p);
            int *ids = malloc(sizeof *ids * (size_t)(n > 0 ? n : 1));
            if (!ids)
                return bl_err_set(err, "out of memory");
            omp_get_place_proc_ids(p, ids);
            for (int i = 0; i < n; i++)
                hwloc_bitmap_set(out, (unsigned)ids[i]);
            free(ids);
        }
        return 0;
    }
    if (hwloc_get_cpubind(topo, out, HWLOC_CPUBIND_THREAD) < 0)
        return bl_err_set(err, "hwloc_get_cpubind: %s", strerror(errno));
    return 0;
}

/* The CPU-migration count of the calling thread (se.nr_migrations in
 * /proc/self/task/TID/sched), or -1 when the kernel does not show it. */
static long long thread_migrations(void)
{
    char path[64];
    char line[256];
    long long value = -1;
    FILE *f;

    snprintf(path, sizeof path, "/proc/self/task/%ld/sched",
             (long)syscall(SYS_gettid));
    f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "se.nr_migrations", 16) == 0) {
            const char *colon = strchr(line, ':');
            if (colon)
                value = strtoll(colon + 1, NULL, 10);
            break;
        }
    fclose(f);
    return value;
}

/* The calling thread's context switches so far; -1 when unknown. */
static void thread_switches(long long *vol, long long *invol)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        *vol = ru.ru_nvcsw;
        *invol = ru.ru_nivcsw;
    } else {
        *vol = *invol = -1;
    }
}

void bl_place_thread_begin(bl_thread_place *p)
{
    p->tid = (long)syscall(SYS_gettid);
    p->pid = (long)getpid();
    p->cpu_first = sched_getcpu();
    p->mig_start = thread_migrations();
    thread_switches(&p->nvcsw_start, &p->nivcsw_start);
}

void bl_place_thread_end(hwloc_topology_t topo, bl_thread_place *p)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    long long mig = thread_migrations();
    bl_pu_where w;

    long long vol, invol;

    thread_switches(&vol, &invol);
    p->cpu_last = sched_getcpu();
    p->migrations = (mig >= 0 && p->mig_start >= 0) ? mig - p->mig_start : -1;
    p->ctx_voluntary = vol >= 0 && p->nvcsw_start >= 0
                           ? vol - p->nvcsw_start : -1;
    p->ctx_involuntary = invol >= 0 && p->nivcsw_start >= 0
                             ? invol - p->nivcsw_start : -1;
    if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0)
        bl_place_cpuset_text(set, p->cpuset, sizeof p->cpuset);
    else
        snprintf(p->cpuset, sizeof p->cpuset, "?");
    hwloc_bitmap_free(set);
    if (bl_topo_pu_where(topo, p->cpu_last, &w, NULL) == 0) {
        p->core = w.core;
        p->l3 = w.l3;
        p->numa = w.numa;
        p->package = w.package;
    } else {
        p->core = p->l3 = p->numa = p->package = -1;
    }
}

/* Maps a Linux NUMA node number to hwloc's logical index, -1 if unknown. */
static int numa_logical(hwloc_topology_t topo, int os_node)
{
    hwloc_obj_t node = NULL;
    while ((node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE,
                                              node)) != NULL)
        if ((int)node->os_index == os_node)
            return (int)node->logical_index;
    return -1;
}

/* Calls fn(logical node or -1 for not present) for every page, in batches
 * so that one system call covers thousands of pages. */
static int for_each_page(hwloc_topology_t topo, const void *base, size_t bytes,
                         void (*fn)(int node, void *arg), void *arg,
                         bl_err *err)
{
    enum { BATCH = 16384 };
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)base & ~((uintptr_t)page - 1);
    uintptr_t end = (uintptr_t)base + bytes;
    void **pages = malloc(sizeof *pages * BATCH);
    int *status = malloc(sizeof *status * BATCH);

    if (!pages || !status) {
        free(pages);
        free(status);
        return bl_err_set(err, "out of memory");
    }
    /* opened at the first page move_pages cannot see */
    bl_pagemap pm = {.fd = -1};
    int pm_tried = 0;
    while (start < end) {
        unsigned long n = 0;
        for (; n < BATCH && start < end; n++, start += (uintptr_t)page)
            pages[n] = (void *)start;
        if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0) < 0) {
            int e = errno;
            free(pages);
            free(status);
            bl_pagemap_close(&pm);
            return bl_err_set(err, "move_pages: %s", strerror(e));
        }
        for (unsigned long i = 0; i < n; i++) {
            if (status[i] < 0 && !pm_tried) {
                pm_tried = 1;
                bl_pagemap_open(&pm);
            }
            if (status[i] < 0)
                status[i] = bl_pagemap_node(&pm, (uintptr_t)pages[i]);
            fn(status[i] >= 0 ? numa_logical(topo, status[i]) : -1, arg);
        }
    }
    free(pages);
    free(status);
    bl_pagemap_close(&pm);
    return 0;
}

struct count_arg {
    long long *counts;
    int nnodes;
};

static void count_page(int node, void *arg)
{
    struct count_arg *a = arg;
    a->counts[node >= 0 && node < a->nnodes ? node : a->nnodes]++;
}

int bl_place_pages_by_node(hwloc_topology_t topo, const void *base,
                           size_t bytes, long long *counts, bl_err *err)
{
    struct count_arg a = {counts,
                          hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE)};
    return for_each_page(topo, base, bytes, count_page, &a, err);
}

struct local_arg {
    int numa;
    long long local, total;
};

static void local_page(int node, void *arg)
{
    struct local_arg *a = arg;
    if (node < 0)
        return;
    a->total++;
    if (node == a->numa)
        a->local++;
}

int bl_place_pages_local(hwloc_topology_t topo, const void *base,
                         size_t bytes, int numa, long long *local,
                         long long *total, bl_err *err)
{
    struct local_arg a = {numa, 0, 0};
    if (for_each_page(topo, base, bytes, local_page, &a, err) < 0)
        return -1;
    *local += a.local;
    *total += a.total;
    return 0;
}
