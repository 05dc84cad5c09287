/* --node-topologies DIR: the topology of each node of the allocation, so
 * that a layout with nodes is checked against every node's own shape. */
#include "sweep/sweep_nodes.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout/layout_allowed.h"
#include "layout/node_topos.h"
#include "topo.h"

/* A topology file loaded once: hosts whose file is the same one (a link)
 * or holds the same bytes (a job record's nodes/HOST/lstopo.xml of alike
 * nodes) share it, so that 10,000 nodes cost one parse, not 10,000. */
typedef struct loaded {
    dev_t dev;
    ino_t ino;
    off_t size;
    uint64_t hash;
    char *path_copy;    /* the first host's file */
    hwloc_topology_t topo;
} loaded;

/* FNV-1a of the file's bytes; -1 when it cannot be read. */
static int file_hash(const char *path, uint64_t *out)
{
    unsigned char buf[65536];
    uint64_t h = 1469598103934665603ULL;
    size_t n;
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 1099511628211ULL;
    int bad = ferror(f);
    fclose(f);
    *out = h;
    return bad ? -1 : 0;
}

static int same_bytes(const char *a, const char *b)
{
    static unsigned char x[65536], y[65536];
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    size_t na, nb;
    while (same && (na = fread(x, 1, sizeof x, fa)) > 0) {
        nb = fread(y, 1, na, fb);
        same = nb == na && memcmp(x, y, na) == 0;
    }
    same = same && fgetc(fb) == EOF;
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* The topology of an earlier host with the same file, or NULL (then *st
 * and *hash describe path for a new entry). */
static hwloc_topology_t already(const loaded *l, int n, const char *path,
                                struct stat *st, uint64_t *hash)
{
    int hashed = 0;
    if (stat(path, st) != 0)
        return NULL;
    for (int i = 0; i < n; i++)
        if (l[i].dev == st->st_dev && l[i].ino == st->st_ino)
            return l[i].topo;
    for (int i = 0; i < n; i++) {
        if (l[i].size != st->st_size)
            continue;
        if (!hashed && file_hash(path, hash) < 0)
            return NULL;
        hashed = 1;
        if (l[i].hash == *hash && same_bytes(l[i].path_copy, path))
            return l[i].topo;
    }
    if (!hashed && file_hash(path, hash) < 0)
        *hash = 0;
    return NULL;
}

int bl_sweep_nodes_load(bl_sweep_ctx *c, const char *dir, FILE *note,
                        bl_err *err)
{
    if (!dir)
        return 0;
    if (access(dir, X_OK) != 0)
        return bl_err_set(err, "--node-topologies %s: no such directory "
                          "(give the directory holding HOST.xml for each "
                          "node, or a bindlab slurm job's record with "
                          "nodes/HOST/lstopo.xml)", dir);
    if (c->alloc.n == 0) {
        if (note)
            fprintf(note, "bindlab sweep: --node-topologies: not inside a "
                    "Slurm allocation (SLURM_JOB_NODELIST unset): every node "
                    "is checked with this machine's topology\n");
        return 0;
    }
    c->node_topos = calloc((size_t)c->alloc.n, sizeof *c->node_topos);
    loaded *l = calloc((size_t)c->alloc.n, sizeof *l);
    int n = 0, rc = 0;
    if (!c->node_topos || !l)
        rc = bl_err_set(err, "out of memory");
    for (int k = 0; rc == 0 && k < c->alloc.n; k++) {
        char path[PATH_MAX];
        struct stat st;
        if (bl_node_topos_path(dir, c->alloc.hosts[k], path, sizeof path) < 0) {
            if (note)
                fprintf(note, "bindlab sweep: --node-topologies: no %s/%s.xml "
                        "(nor nodes/%s/lstopo.xml): node %s is checked with "
                        "this machine's topology\n", dir, c->alloc.hosts[k],
                        c->alloc.hosts[k], c->alloc.hosts[k]);
            continue;
        }
        if ((c->node_topos[k] = already(l, n, path, &st, &l[n].hash)))
            continue;
        if (bl_topo_load(path, &c->node_topos[k], err) < 0) {
            rc = bl_err_prefix(err, "--node-topologies: node %s (%s)",
                               c->alloc.hosts[k], path);
            break;
        }
        l[n].dev = st.st_dev;
        l[n].ino = st.st_ino;
        l[n].size = st.st_size;
        l[n].topo = c->node_topos[k];
        if (!(l[n++].path_copy = strdup(path)))
            rc = bl_err_set(err, "out of memory");
    }
    for (int i = 0; l && i < n; i++)
        free(l[i].path_copy);
    free(l);
    return rc;
}

hwloc_topology_t bl_sweep_node_topo(const bl_sweep_ctx *c, int k)
{
    if (c->node_topos && k >= 0 && k < c->alloc.n && c->node_topos[k])
        return c->node_topos[k];
    return c->topo;
}

int bl_sweep_nodes_validate(const bl_sweep_ctx *c, const bl_layout *l,
                            bl_layout_check *out, bl_err *err)
{
    hwloc_topology_t *topos;
    int rc;
    /* more nodes than the allocation has: check_nodes says so */
    if (l->nodes <= 1 && c->job_topo)
        return bl_layout_validate_job(l, c->topo, c->job_topo, c->job_cpus,
                                      c->o->oversubscribe, out, err);
    if (!c->node_topos || l->nodes <= 1 || l->nodes > c->alloc.n)
        return bl_layout_validate(l, c->topo, c->o->oversubscribe, out, err);
    topos = calloc((size_t)l->nodes, sizeof *topos);
    if (!topos)
        return bl_err_set(err, "out of memory");
    for (int k = 0; k < l->nodes; k++)
        topos[k] = bl_sweep_node_topo(c, k);
    rc = bl_layout_validate_nodes(l, topos,
                                  (const char *const *)c->alloc.hosts,
                                  c->o->oversubscribe, out, err);
    free(topos);
    return rc;
}

int bl_sweep_nodes_load_job(bl_sweep_ctx *c, bl_err *err)
{
    return bl_layout_job_load(c->topo, &c->job_topo, c->job_cpus,
                              sizeof c->job_cpus, err);
}

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(const hwloc_topology_t *)a;
    uintptr_t y = (uintptr_t)*(const hwloc_topology_t *)b;
    return x < y ? -1 : x > y;
}

void bl_sweep_nodes_free(bl_sweep_ctx *c)
{
    if (c->job_topo)
        hwloc_topology_destroy(c->job_topo);
    c->job_topo = NULL;
    /* hosts share a topology loaded once: each destroyed once */
    if (c->node_topos)
        qsort(c->node_topos, (size_t)c->alloc.n, sizeof *c->node_topos,
              by_address);
    for (int k = 0; c->node_topos && k < c->alloc.n; k++)
        if (c->node_topos[k] && (k == 0 || c->node_topos[k] !=
                                               c->node_topos[k - 1]))
            hwloc_topology_destroy(c->node_topos[k]);
    free(c->node_topos);
    c->node_topos = NULL;
}
