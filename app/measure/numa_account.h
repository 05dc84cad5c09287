/* The kernel's account of one rank's memory around a run: the
 * NUMA-balancing counters before first touch and after the timed region
 * (the rank's tasks' sched fields and /proc/vmstat's), the balancing and
 * transparent-huge-page settings, and after first touch the share of the
 * arrays' mappings that huge pages back (/proc/self/smaps). A fixed-size
 * record, so that it travels to rank 0 as bytes. */
#ifndef BL_NUMA_ACCOUNT_H
#define BL_NUMA_ACCOUNT_H

#include <stddef.h>

#include "kstat.h"

typedef struct bl_numa_account {
    int numa_balancing;          /* -1 unknown */
    char thp[16];                /* THP mode, "" unknown */
    long long page_bytes, huge_page_bytes, share_align;
    double huge_share;           /* -1 unknown */
    int straddles;
    double best_local_fraction;  /* -1 unknown */
    long long pages_local_init, pages_total_init;
    /* at begin: the readings; after end: the deltas (-1 unknown) */
    long long task_migrated, task_faults;
    bl_vm_numa vm;
} bl_numa_account;

/* Before first touch: settings and the counters' first reading. */
void bl_numa_account_begin(bl_numa_account *a, size_t share_align);

/* After the timed region: the counters become what the run added. */
void bl_numa_account_end(bl_numa_account *a);

/* After first touch: the share of spans[0..n) huge pages back. */
void bl_numa_account_huge(bl_numa_account *a, const bl_span *spans,
                          size_t n);

#endif
