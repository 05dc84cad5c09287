/* The NUMA node of a page move_pages(2) cannot see. With NUMA balancing
 * on, the kernel marks pages PROT_NONE to take hinting faults, and
 * move_pages in query mode then reports them as absent (Linux 6.1), so
 * right after first touch most pages can look untouched. /proc/self/
 * pagemap still shows them present with their frame number (to root
 * only: other users read frame 0), and the frame's memory block names its
 * node (/sys/devices/system/node/nodeN/memoryB). */
#ifndef BL_PAGEMAP_H
#define BL_PAGEMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct bl_pagemap {
    int fd;                    /* /proc/self/pagemap, -1 unusable */
    unsigned long long block_pages; /* pages per memory block */
    int *block_node;           /* [nblocks]: OS node, -1 none */
    size_t nblocks;
} bl_pagemap;

/* 0 when frames can be read and mapped to nodes, else -1 (pm is then
 * unusable but may be closed). */
int bl_pagemap_open(bl_pagemap *pm);

/* The OS index of the node holding the page at addr, -1 when it is not
 * present or its frame cannot be read. */
int bl_pagemap_node(const bl_pagemap *pm, uintptr_t addr);

void bl_pagemap_close(bl_pagemap *pm);

#endif
