/* bindlab run: the GPUs each process could see, judged as bindlab-app
 * judges its ranks (app/app_gpus.c): the node's GPUs from sysfs
 * (bl_sysfs_root()) cut by the visible-device variables the probe recorded
 * at the process's start (common/gpu_visible.h), far from the CPUs it was
 * given; gpu-not-local for a process given a far GPU, gpu-shared
 * (common/gpu_shared.h) over the processes of this host. Only this host's
 * sysfs is at hand: processes on other hosts get no GPUs (their columns
 * stay empty) and are not judged, rather than judged by another node's
 * devices. */
#include "run/run_priv.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuset.h"
#include "gpu_shared.h"
#include "gpu_visible.h"

typedef struct finding_ctx {
    bl_h5_run *r;
    size_t cap;
} finding_ctx;

/* dropped when out of memory, as the app drops its own */
static void add_finding(finding_ctx *c, int rank, const char *host,
                        const char *id, const char *text)
{
    (void)bl_h5_run_add_finding(c->r, &c->cap, rank, host, id, "warning",
                                text);
}

static const char *host_of(const bl_h5_run *r, int rank)
{
    for (size_t i = 0; i < r->nprocesses; i++)
        if (r->processes[i].rank == rank)
            return r->processes[i].host;
    return "";
}

static void shared_found(void *p, int rank, const char *text)
{
    finding_ctx *c = p;
    add_finding(c, rank, host_of(c->r, rank), "gpu-shared", text);
}

static const char *recorded(void *ctx, const char *name)
{
    return bl_probe_visible_get(ctx, name);
}

/* Process p's view (into *seen) and its rank row's gpus and gpus_far; a
 * gpu-not-local finding when it was given a far GPU. 0 when its CPUs
 * cannot be read (not judged). */
static int view_of(const bl_pci_list *node, const bl_run_gpu_proc *p,
                   bl_h5_rank *row, bl_gpu_seen *seen, finding_ctx *c)
{
    char not_local[600];
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    bl_err e;
    int ok = cpus && bl_cpuset_parse_list(p->cpus, cpus, NULL) == 0 &&
             bl_gpu_seen_of(node, cpus, recorded, (void *)p->file, seen,
                            not_local, sizeof not_local, &e) == 0;
    hwloc_bitmap_free(cpus);
    if (!ok)
        return 0;
    free(row->gpus);
    free(row->gpus_far);
    row->gpus = strdup(seen->seen);
    row->gpus_far = strdup(seen->far);
    if (not_local[0])
        add_finding(c, row->rank, p->file->host, "gpu-not-local", not_local);
    return 1;
}

void bl_run_gpus(bl_h5_run *r, const bl_run_gpu_proc *procs)
{
    char host[256] = "";
    bl_pci_list node;
    bl_err e;
    finding_ctx c = {r, r->nfindings};
    size_t n = 0;
    gethostname(host, sizeof host - 1);
    if (bl_pci_gpus_read(bl_sysfs_root(), &node, &e) < 0)
        return;
    bl_gpu_seen *seen = calloc(r->nrank_rows + 1, sizeof *seen);
    bl_gpu_rank_view *v = calloc(r->nrank_rows + 1, sizeof *v);
    for (size_t i = 0; seen && v && i < r->nrank_rows; i++) {
        const bl_run_gpu_proc *p = &procs[i];
        if (!p->file->visible_recorded || strcmp(p->file->host, host) != 0 ||
            !view_of(&node, p, &r->rank_rows[i], &seen[n], &c))
            continue;
        v[n] = (bl_gpu_rank_view){r->rank_rows[i].rank, 0, seen[n].given,
                                  seen[n].seen, seen[n].node};
        n++;
    }
    if (n)
        bl_gpu_shared_judge(v, (int)n, shared_found, &c);
    free(seen);
    free(v);
    bl_pci_list_free(&node);
}
