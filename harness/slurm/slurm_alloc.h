/* The nodes of the Slurm allocation a sweep runs in (SLURM_JOB_NODELIST,
 * expanded by scontrol), for layouts that name their nodes: the first N
 * become mpirun's --host list. */
#ifndef BL_SLURM_ALLOC_H
#define BL_SLURM_ALLOC_H

#include <stddef.h>

#include "err.h"

typedef struct bl_slurm_alloc {
    char **hosts;   /* in the allocation's order; malloc'ed */
    int n;          /* 0: not inside an allocation */
} bl_slurm_alloc;

/* Expands nodelist ("bl[1-3]"; NULL or "" = not in an allocation: n = 0)
 * with `SCONTROL show hostnames NODELIST` (scontrol: NULL = "scontrol" in
 * PATH). A host name must be letters, digits, '.', '-' or '_'. 0, or -1
 * with err naming what failed. */
int bl_slurm_alloc_read(const char *nodelist, const char *scontrol,
                        bl_slurm_alloc *out, bl_err *err);

/* Reads scontrol's output (one host per line) into out. */
int bl_slurm_alloc_parse(const char *text, bl_slurm_alloc *out, bl_err *err);

/* The longest host list a command can carry: Linux takes one argument of
 * at most 32 pages (MAX_ARG_STRLEN), some 10,000 hosts of short names.
 * Callers allocate it. */
#define BL_SLURM_HOST_LIST_MAX 131072

/* "h1:S,h2:S,...": the first `nodes` hosts, S slots each ("h1,h2,..."
 * when slots is 0: Hydra's -hosts with -ppn). 0, or -1 when
 * the allocation has fewer nodes (the message has the arithmetic) or buf
 * is too small. */
int bl_slurm_alloc_host_list(const bl_slurm_alloc *a, int nodes, int slots,
                             char *buf, size_t len, bl_err *err);

/* The same with each node's own slots: "h1:S1,h2:S2,...". */
int bl_slurm_alloc_host_slots(const bl_slurm_alloc *a, int nodes,
                              const int *slots, char *buf, size_t len,
                              bl_err *err);

void bl_slurm_alloc_free(bl_slurm_alloc *a);

#endif
