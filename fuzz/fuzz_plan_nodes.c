/* libFuzzer target: the readers of a plan of several nodes
 * (harness/plan/plan_ranks_nodes.c): Open MPI 4/5's job map over the made-up
 * hosts (which node each rank is on) and MPICH Hydra's labelled output
 * (each rank's node, its binding line). The first two bytes pick the node
 * and rank counts. Checks what they promise: on success every rank is on
 * one of the nodes, and Hydra's report names only ranks below np; on
 * failure the error says so and nothing is left allocated. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_ranks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_nodes(const int *rank_node, int nodes, int np)
{
    for (int r = 0; r < np; r++)
        if (rank_node[r] < 0 || rank_node[r] >= nodes)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int nodes, np, rank_node[16];
    char *text, *report;
    bl_err err;

    if (size < 2)
        return 0;
    nodes = 1 + data[0] % 4;
    np = 1 + data[1] % 16;
    if (!(text = malloc(size - 1)))
        return 0;
    memcpy(text, data + 2, size - 2);
    text[size - 2] = '\0';
    if (bl_plan_ranks_nodes_read(text, nodes, np, rank_node, &err) == 0)
        check_nodes(rank_node, nodes, np);
    else if (!err.msg[0])
        abort();
    report = bl_plan_ranks_hydra_nodes(text, nodes, np, rank_node, &err);
    if (report) {
        const char *p = report;
        check_nodes(rank_node, nodes, np);
        while (*p) {
            int r;
            if (sscanf(p, "process %d binding:", &r) != 1 || r < 0 || r >= np)
                abort();
            p += strcspn(p, "\n");
            p += *p == '\n';
        }
        free(report);
    } else if (!err.msg[0])
        abort();
    free(text);
    return 0;
}
