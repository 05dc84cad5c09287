/* Page frames to NUMA nodes through /proc/self/pagemap (pagemap.h). */
#include "measure/pagemap.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "kstat.h"

#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)

/* Every memoryB entry of /sys/devices/system/node/nodeN: block B on N. */
static int read_blocks(bl_pagemap *pm)
{
    DIR *nodes = opendir("/sys/devices/system/node");
    struct dirent *n;
    size_t cap = 0;
    if (!nodes)
        return -1;
    while ((n = readdir(nodes)) != NULL) {
        char path[300];
        DIR *d;
        struct dirent *m;
        int node;
        if (strncmp(n->d_name, "node", 4) != 0 || !n->d_name[4])
            continue;
        node = atoi(n->d_name + 4);
        snprintf(path, sizeof path, "/sys/devices/system/node/%s", n->d_name);
        if (!(d = opendir(path)))
            continue;
        while ((m = readdir(d)) != NULL) {
            char *end;
            unsigned long b;
            if (strncmp(m->d_name, "memory", 6) != 0)
                continue;
            b = strtoul(m->d_name + 6, &end, 10);
            if (end == m->d_name + 6 || *end || b > (1UL << 24))
                continue;
            while (b >= cap) {
                size_t old = cap;
                if (bl_grow(&pm->block_node, sizeof *pm->block_node, cap,
                            &cap, 64) < 0)
                    break;
                for (size_t i = old; i < cap; i++)
                    pm->block_node[i] = -1;
            }
            if (b >= cap)
                break;
            if (b >= pm->nblocks)
                pm->nblocks = b + 1;
            pm->block_node[b] = node;
        }
        closedir(d);
    }
    closedir(nodes);
    return pm->nblocks ? 0 : -1;
}

int bl_pagemap_open(bl_pagemap *pm)
{
    char *text = bl_kstat_read("/sys/devices/system/memory/block_size_bytes");
    unsigned long long block = text ? strtoull(text, NULL, 16) : 0;
    long page = sysconf(_SC_PAGESIZE);
    uint64_t e;
    memset(pm, 0, sizeof *pm);
    free(text);
    pm->fd = -1;
    if (block == 0 || page <= 0 || block % (unsigned long long)page)
        return -1;
    pm->block_pages = block / (unsigned long long)page;
    if (read_blocks(pm) < 0)
        return -1;
    pm->fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (pm->fd < 0)
        return -1;
    /* Without CAP_SYS_ADMIN every frame reads 0: the stack's page shows. */
    e = 0;
    if (pread(pm->fd, &e, sizeof e,
              (off_t)((uintptr_t)&e / (uintptr_t)page * sizeof e)) !=
            (ssize_t)sizeof e ||
        !(e & PM_PRESENT) || (e & PM_PFN_MASK) == 0) {
        close(pm->fd);
        pm->fd = -1;
        return -1;
    }
    return 0;
}

int bl_pagemap_node(const bl_pagemap *pm, uintptr_t addr)
{
    long page = sysconf(_SC_PAGESIZE);
    uint64_t e = 0, block;
    if (pm->fd < 0 || page <= 0 ||
        pread(pm->fd, &e, sizeof e,
              (off_t)(addr / (uintptr_t)page * sizeof e)) != (ssize_t)sizeof e ||
        !(e & PM_PRESENT))
        return -1;
    block = (e & PM_PFN_MASK) / pm->block_pages;
    return block < pm->nblocks ? pm->block_node[block] : -1;
}

void bl_pagemap_close(bl_pagemap *pm)
{
    if (pm->fd >= 0)
        close(pm->fd);
    free(pm->block_node);
    memset(pm, 0, sizeof *pm);
    pm->fd = -1;
}
