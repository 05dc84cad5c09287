/* A run over many nodes, folded: the nodes that are alike (the same
 * machine and topology, each rank's threads on the same PUs relative to
 * the node, the same pages per NUMA node) make one group, drawn and
 * listed once with its node list ("nodes 0-9997 (n00000-n09997)"); a
 * node that differs (a thread off its rank's CPUs, remote pages) is a
 * group of its own. Read streaming: the thread rows are hashed chunk by
 * chunk and only the first node of each group keeps its rows. */
#ifndef BL_REPORT_NODES_H
#define BL_REPORT_NODES_H

#include <stdint.h>
#include <stdio.h>

#include <hdf5.h>

#include "h5/h5schema.h"
#include "results/results_report.h"
#include "strbuf.h"

/* A run over more nodes than this is folded (report --html draws one map
 * per group, report lists one line per group). */
enum { BL_REPORT_FOLD_NODES = 16, BL_REPORT_FOLD_MAPS = 64 };

typedef struct bl_report_node_sum {
    int ranks, threads;
    int off_binding;            /* threads whose last CPU is not one of
                                 * their rank's */
    int64_t pages_local, pages_total;  /* the rank rows' sums */
    uint64_t pattern;           /* the placement and pages, node-relative */
    int group;                  /* its group; -1: the run has no rank on it */
} bl_report_node_sum;

typedef struct bl_report_node_group {
    int first;                  /* its lowest node (index into /nodes) */
    size_t count;               /* its nodes */
    /* the first node's rows (the first BL_REPORT_FOLD_MAPS groups only) */
    bl_h5_placement *placement; size_t nplacement;
    bl_h5_memory *memory;       size_t nmemory;
} bl_report_node_group;

typedef struct bl_report_nodes {
    bl_report_node_sum *node;   /* per machine of the file */
    size_t nnodes;
    bl_report_node_group *groups;
    size_t ngroups;
    size_t nused;               /* nodes the run had ranks on */
    int *group_of;              /* per node: node[k].group, as
                                 * bl_report_nodes_list takes it */
} bl_report_nodes;

/* Folds the machines of a file: (*group_of)[k] is machine k's group, the
 * groups numbered in order of their first machine; machines are alike
 * when everything but the host name is (topo_of: bl_h5_read_nodes_shared).
 * Returns the group count; 0 when out of memory. */
size_t bl_report_machines_fold(const bl_h5_machine *m, const int *topo_of,
                               size_t n, int **group_of);

/* Reads run group g's ranks, placement and memory tables and folds its
 * nodes (machine_group: bl_report_machines_fold's). 0, or -1 (err set)
 * when out of memory or the tables do not read. */
int bl_report_nodes_read(hid_t g, const int *machine_group, size_t nmachines,
                         bl_report_nodes *out, bl_err *err);
void bl_report_nodes_free(bl_report_nodes *n);

/* The members of group `group` of `group_of` (n entries) as index ranges
 * with their host names: "0,2-99 (n00000, n00002-n00099)". */
void bl_report_nodes_list(bl_strbuf *b, const int *group_of, size_t n,
                          int group, const bl_h5_machine *m);

/* One node's or group's summary in words: "8 ranks, 128 threads, 1 thread
 * outside its rank's CPUs, local pages 0.88". */
void bl_report_node_words(bl_strbuf *b, const bl_report_node_sum *s);

/* Text report: for each run over more than BL_REPORT_FOLD_NODES nodes,
 * its nodes folded (one line per group), or every node (all_nodes); a
 * file of more machines than that: its machines folded the same way. Returns -1 when path does not
 * read (nothing printed). */
int bl_report_write_nodes(FILE *out, const char *path, const bl_report *r,
                          int all_nodes);

#endif
