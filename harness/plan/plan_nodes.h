/* A plan of several nodes seen node by node: which ranks each node holds,
 * where each rank's thread rows start, and which nodes are placed alike
 * (the same share: a plan of 10,000 identical nodes has one). Built once
 * in time linear in ranks and threads, so that showing every node, or one
 * block per share, costs what it writes. */
#ifndef BL_PLAN_NODES_H
#define BL_PLAN_NODES_H

#include <stddef.h>

#include "err.h"
#include "plan/plan.h"

typedef struct bl_plan_nodes {
    int nnodes;
    int *first;     /* [nnodes + 1]: node k's ranks are rank[first[k]] up
                     * to rank[first[k + 1] - 1] */
    int *rank;      /* [nranks]: the ranks node by node, ascending on each */
    size_t *row;    /* [nranks + 1]: rank r's thread rows are threads[row[r]]
                     * up to threads[row[r + 1] - 1] */
    int *share;     /* [nnodes]: the first node placed exactly like node k
                     * (k itself when none before it is) */
    int *last;      /* [nnodes]: for a node that starts a share, the last
                     * node of that share */
    int *count;     /* [nnodes]: ... and how many nodes it has */
    int nshares;
} bl_plan_nodes;

/* Indexes p (p->rank_node set, threads ordered by rank). fold 0: every
 * node is its own share (nodes of different topologies). Nodes are alike
 * when they hold as many ranks, the i-th rank of each with the same PUs,
 * bound or not alike, and the same thread rows (thread, place, PUs).
 * -1 with err when out of memory. */
int bl_plan_nodes_index(const bl_plan *p, int fold, bl_plan_nodes *ix,
                        bl_err *err);

/* Node k's part of p: its ranks only, entry i being rank ix->rank[first[k]
 * + i] (out->rank_id says which), with their thread rows, thread rows
 * naming the entry. out->nnodes 1, no rank_node. -1 when out of memory. */
int bl_plan_nodes_part(const bl_plan *p, const bl_plan_nodes *ix, int k,
                       bl_plan *out);

/* "1-3,7" (1-based) for the nodes of the share that node k starts, cut
 * with ",..." to fit len. */
void bl_plan_nodes_list(const bl_plan_nodes *ix, int k, char *buf,
                        size_t len);

void bl_plan_nodes_free(bl_plan_nodes *ix);

#endif
