/* Internal to harness/results/: the "sink" through which `bindlab merge`
 * (results_merge.c) and the sweep's append in place (results_append.c)
 * add sweep files to an output file: what the output already holds (its
 * machines, its runs by id) and the steps that add an input's machines
 * and runs to it, renumbered (results_merge_sink.c, the machines in
 * results_merge_nodes.c). Code outside the room uses results_file.h. */
#ifndef BL_RESULTS_MERGE_PRIV_H
#define BL_RESULTS_MERGE_PRIV_H
#ifndef BL_ROOM_RESULTS
#error "results/results_merge_priv.h is internal to harness/results/: include results/results_file.h"
#endif

#include <stddef.h>

#include "keymap.h"
#include "results/results_file.h"

typedef struct bl_merge_sink {
    hid_t out;
    int collect;              /* 1: rows kept (merge: sorted at the end);
                               * 0: appended to out's /summary at once */
    bl_h5_node_key *keys;     /* of out's /nodes/<k> */
    size_t nkeys, capkeys;
    bl_keymap key_index;      /* a key's text (bl_merge_key_text) -> k */
    bl_keymap topo_index;     /* a topology digest -> its first k */
    /* runs added in this session */
    bl_h5_summary *rows;
    char **where;             /* its nodes, or for a run without nodes "@"
                               * and its record (where_nodeless) */
    size_t *source;           /* the input it came from */
    size_t nrows, cap, capwhere, capsource;
    size_t *slots;            /* run id hash: row index + 1, 0 empty */
    size_t nslots;
    const char *const *names; /* inputs, for messages */
    size_t input;
    const char *out_name;
    bl_h5_merge_conflict_fn *conflict;
    void *ctx;
    int duplicates;
} bl_merge_sink;

/* One `bindlab merge`: bl_h5_merge's arguments. */
typedef struct bl_merge_job {
    const char *out, *command;
    const char *const *inputs;
    size_t ninputs;
    bl_h5_merge_conflict_fn *conflict;
    bl_h5_merge_unreadable_fn *bad;
    void *ctx;
} bl_merge_job;

/* The merge itself, in this process (results_merge.c; bl_h5_merge runs
 * it in a child, results_merge_child.c), its callbacks conflict and bad
 * called with ctx (job's own are not used). */
int bl_merge_here(const bl_merge_job *job, bl_h5_merge_conflict_fn *conflict,
                  bl_h5_merge_unreadable_fn *bad, void *ctx, int *duplicates,
                  int *unreadable, bl_err *err);

/* Starts a sink on the open file out: its machines read (their keys);
 * collect 1 keeps the summary rows in memory (merge: written sorted at
 * the end), 0 appends each to out's /summary at once. */
int bl_merge_sink_init(bl_merge_sink *s, hid_t out, int collect,
                       bl_err *err);
void bl_merge_sink_free(bl_merge_sink *s);

/* Adds the runs of every file of st->names[0..n) to st, one input at a time
 * (opened, copied, closed). An input that cannot be read is counted in
 * *unreadable, its message kept in *first when it is the first, and passed
 * to bad when given. Returns how many inputs were read. */
size_t bl_merge_sink_add_files(bl_merge_sink *st, size_t n,
                               bl_h5_merge_unreadable_fn *bad, void *ctx,
                               int *unreadable, bl_err *first);

/* Creates the empty /runs group of a new output file. */
int bl_merge_create_runs(hid_t file, bl_err *err);

/* The machines of file: every node's key, each distinct topology read
 * and digested once (a run over 10,000 alike nodes reads one XML), in
 * *keys (*n of them, free each with bl_h5_node_key_free, then the array);
 * their records, without the XML of a node whose topology an earlier one
 * has, in *m when m is not NULL (free with bl_h5_nodes_free). */
int bl_merge_read_keys(hid_t file, bl_h5_node_key **keys, bl_h5_machine **m,
                       size_t *n, bl_err *err);

/* Adds out node k (st->keys[k]) to st's indexes; -1 out of memory. */
int bl_merge_index_key(bl_merge_sink *st, size_t k);

/* The out node index of each of in's nodes into *map (malloc'ed, *n
 * entries), the machines out does not have yet copied to it. */
int bl_merge_map_nodes(hid_t in, bl_merge_sink *st, size_t **map, size_t *n,
                       bl_err *err);

/* "0,2" renumbered through map into buf; -1 when an index is not a node
 * of the input (the run then keeps no nodes). */
int bl_merge_remap_list(const char *list, const size_t *map, size_t nmap,
                        char *buf, size_t len);

/* Renumbers the node columns of the run group `group` of out (ranks,
 * checks, traffic) through map; nothing to do when map keeps every
 * index. */
int bl_merge_remap_run_nodes(hid_t out, const char *group, const size_t *map,
                             size_t nmap, bl_err *err);

#endif
