/* A memory policy as bindlab-app's --mem-policy and the sweep file's
 * mem_policy key write it: one parser for both. NUMA nodes are Linux (OS)
 * numbers, as numactl uses them. */
#ifndef BL_MEMPOL_H
#define BL_MEMPOL_H

#include "err.h"

typedef enum {
    BL_MEMPOL_FIRSTTOUCH = 0, /* leave the policy as inherited (default) */
    BL_MEMPOL_INTERLEAVE,     /* over `nodes`, or every allowed node */
    BL_MEMPOL_BIND,           /* to `nodes` */
    BL_MEMPOL_BIND_LOCAL,     /* to the NUMA nodes of the rank's cpuset */
    BL_MEMPOL_PREFERRED,      /* preferably the one node in `nodes` */
} bl_mempol_kind;

#define BL_MEMPOL_TEXT 64

typedef struct bl_mempol {
    bl_mempol_kind kind;
    char nodes[BL_MEMPOL_TEXT]; /* node list as given ("" = all / none) */
    char asked[BL_MEMPOL_TEXT]; /* the option's value, for the record */
} bl_mempol;

/* "firsttouch", "interleave", "interleave:NODES", "bind:NODES",
 * "bind:local-to-rank", "preferred:NODE"; NODES a list such as "0-1,3".
 * Syntax only: whether the nodes exist is known when applying. Messages
 * start with what ("--mem-policy", "mem_policy"). */
int bl_mempol_parse(const char *text, const char *what, bl_mempol *out,
                    bl_err *err);

#endif
