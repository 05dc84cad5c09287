/* Putting sweep files together (results_file.h): `bindlab merge` (a new
 * file built from its inputs, read one at a time) and the sweep's merged
 * file grown in place by one run at a time (bl_h5_append, through a twin
 * file; docs/sweep-runs.md). Both go through one "sink": what an output
 * file already holds (its machines, its runs by id) and the steps that add
 * an input's machines and runs to it, renumbered. */
#include "results/results_file.h"

#include "atomic_file.h"
#include "grow.h"
#include "keymap.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* ---- the sink ------------------------------------------------------------ */

typedef struct sink {
    hid_t out;
    int collect;              /* 1: rows kept (merge: sorted at the end);
                               * 0: appended to out's /summary at once */
    bl_h5_node_key *keys;     /* of out's /nodes/<k> */
    size_t nkeys, capkeys;
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
} sink;

static int rehash(sink *s)
{
    size_t n = s->nslots ? 2 * s->nslots : 1024;
    size_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < s->nrows; i++) {
        size_t j = (size_t)bl_keymap_hash(s->rows[i].run_id) & (n - 1);
        while (slots[j])
            j = (j + 1) & (n - 1);
        slots[j] = i + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = n;
    return 0;
}

/* The session row holding id, or -1. */
static long find_row(const sink *s, const char *id)
{
    if (!s->nslots)
        return -1;
    for (size_t j = (size_t)bl_keymap_hash(id) & (s->nslots - 1); s->slots[j];
         j = (j + 1) & (s->nslots - 1))
        if (strcmp(s->rows[s->slots[j] - 1].run_id, id) == 0)
            return (long)(s->slots[j] - 1);
    return -1;
}

static int sink_init(sink *s, hid_t out, int collect, bl_err *err)
{
    bl_h5_machine *m = NULL;
    size_t n = 0;
    memset(s, 0, sizeof *s);
    s->out = out;
    s->collect = collect;
    if (bl_h5_read_nodes(out, &m, &n, err) < 0)
        return -1;
    s->keys = calloc(n + 1, sizeof *s->keys);
    for (size_t k = 0; s->keys && k < n; k++)
        if (bl_h5_node_key_of(&m[k], &s->keys[s->nkeys]) == 0)
            s->nkeys++;
    s->capkeys = n + 1;
    bl_h5_nodes_free(m, n);
    if (!s->keys || s->nkeys != n)
        return bl_err_set(err, "out of memory reading the machine records");
    return 0;
}

static void sink_free(sink *s)
{
    bl_h5_table_free(&bl_h5_summary_def, s->rows, s->nrows);
    for (size_t i = 0; i < s->nrows; i++)
        free(s->where[i]);
    free(s->where);
    free(s->source);
    free(s->slots);
    for (size_t k = 0; k < s->nkeys; k++)
        bl_h5_node_key_free(&s->keys[k]);
    free(s->keys);
    memset(s, 0, sizeof *s);
}

/* The out node index of each of in's nodes, adding the new ones to out. */
static int map_nodes(hid_t in, sink *st, size_t **map, size_t *n,
                     bl_err *err)
{
    *n = bl_h5_count_nodes(in);
    if (!(*map = calloc(*n + 1, sizeof **map)))
        return bl_err_set(err, "out of memory");
    for (size_t k = 0; k < *n; k++) {
        char buf[64], dst[64];
        const char *src = bl_h5_node_object(in, k, buf, sizeof buf);
        bl_h5_machine m;
        bl_h5_node_key key;
        size_t j;
        hid_t lcpl;
        herr_t r;
        if (bl_h5_read_node(in, k, &m, err) < 0)
            return -1;
        j = (size_t)bl_h5_node_key_of(&m, &key);
        bl_h5_machine_free(&m);
        if (j != 0)
            return bl_err_set(err, "out of memory");
        for (j = 0; j < st->nkeys && !bl_h5_node_key_eq(&st->keys[j], &key);
             j++)
            ;
        (*map)[k] = j;
        if (j < st->nkeys) {
            bl_h5_node_key_free(&key);
            continue;
        }
        if (bl_grow(&st->keys, sizeof *st->keys, st->nkeys, &st->capkeys,
                    4) < 0) {
            bl_h5_node_key_free(&key);
            return bl_err_set(err, "out of memory");
        }
        st->keys[st->nkeys++] = key;
        bl_h5_node_path(j, dst, sizeof dst);
        lcpl = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_create_intermediate_group(lcpl, 1);
        r = H5Ocopy(in, src, st->out, dst, H5P_DEFAULT, lcpl);
        H5Pclose(lcpl);
        if (r < 0)
            return bl_err_set(err, "HDF5: cannot copy /%s", src);
        if (j == 0 && H5Lexists(st->out, "machine", H5P_DEFAULT) <= 0 &&
            H5Lcreate_hard(st->out, dst, st->out, "machine", H5P_DEFAULT,
                           H5P_DEFAULT) < 0)
            return bl_err_set(err, "HDF5: cannot link /machine");
    }
    return 0;
}

/* "0,2" renumbered through map into buf; -1 when an index is not a node
 * of the input (the run then keeps no nodes). */
static int remap_list(const char *list, const size_t *map, size_t nmap,
                      char *buf, size_t len)
{
    size_t used = 0;
    const char *p = list;
    buf[0] = '\0';
    while (*p) {
        char *end;
        unsigned long k = strtoul(p, &end, 10);
        if (end == p || k >= nmap)
            return -1;
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
                                 "%s%zu", used ? "," : "", map[k]);
        if (*end && *end != ',')
            return -1;
        p = *end == ',' ? end + 1 : end;
    }
    return used < len ? 0 : -1;
}

static int identity(const size_t *map, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (map[k] != k)
            return 0;
    return 1;
}

/* Renumbers the node column (an int32 at offset `at` of each row) of
 * group's table `def` through map: the ranks (the rank's machine), checks
 * (the node whose topology read the claim) and traffic tables. -1 stays
 * -1, an index the input does not have becomes -1. A table written before
 * the column existed holds the rows of node 0. */
static int remap_node_column(hid_t out, const char *group,
                             const bl_h5_table_def *def, size_t at,
                             const size_t *map, size_t nmap, bl_err *err)
{
    hid_t g = H5Gopen2(out, group, H5P_DEFAULT);
    char *rows = NULL;
    size_t n = 0;
    int rc = 0;
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot open %s", group);
    if (H5Lexists(g, def->name, H5P_DEFAULT) > 0 &&
        (rc = bl_h5_table_read(g, def, (void **)&rows, &n, err)) == 0) {
        for (size_t i = 0; i < n; i++) {
            int32_t node;
            memcpy(&node, rows + i * def->row_size + at, sizeof node);
            node = node >= 0 && (size_t)node < nmap ? (int32_t)map[node] : -1;
            memcpy(rows + i * def->row_size + at, &node, sizeof node);
        }
        if (H5Ldelete(g, def->name, H5P_DEFAULT) < 0)
            rc = bl_err_set(err, "HDF5: cannot rewrite %s/%s", group,
                            def->name);
        else
            rc = bl_h5_table_write(g, def, rows, n, err);
        bl_h5_table_free(def, rows, n);
    }
    H5Gclose(g);
    return rc;
}

static int remap_run_nodes(hid_t out, const char *group, const size_t *map,
                           size_t nmap, bl_err *err)
{
    if (remap_node_column(out, group, &bl_h5_rank_def,
                          offsetof(bl_h5_rank, node), map, nmap, err) < 0 ||
        remap_node_column(out, group, &bl_h5_check_def,
                          offsetof(bl_h5_check, node), map, nmap, err) < 0 ||
        remap_node_column(out, group, &bl_h5_traffic_def,
                          offsetof(bl_h5_traffic, node), map, nmap, err) < 0)
        return -1;
    return 0;
}

/* Where a run that never ran (no nodes) is: it has no machine, so it is
 * told apart by what its record says about why: status, reason and stderr
 * tail (an invalid r0002 of a Xeon sweep and of an EPYC sweep give other
 * reasons; the same run found twice gives the same). The label is left
 * out, as for runs with nodes: a label conflict is reported, not kept. */
static char *where_of(hid_t f, const char *group, const char *nodes,
                      const char *status)
{
    char *reason = NULL, *tail = NULL, *w;
    size_t len;
    if (nodes && nodes[0])
        return strdup(nodes);
    if (H5Lexists(f, group, H5P_DEFAULT) > 0) {
        hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
        if (g >= 0) {
            reason = bl_h5_attr_get_str(g, "reason");
            tail = bl_h5_attr_get_str(g, "stderr_tail");
            H5Gclose(g);
        }
    }
    len = strlen(nz(status)) + strlen(nz(reason)) + strlen(nz(tail)) + 8;
    if ((w = malloc(len)))
        snprintf(w, len, "@%s\x1f%s\x1f%s", nz(status), nz(reason), nz(tail));
    free(reason);
    free(tail);
    return w;
}

/* A run out held before this session: where it is, NULL when none. */
static char *where_in_out(const sink *s, const char *id)
{
    char group[512], *nodes, *status, *w;
    hid_t g;
    bl_h5_run_path(id, group, sizeof group);
    if (s->collect || H5Lexists(s->out, group, H5P_DEFAULT) <= 0)
        return NULL;
    if ((g = H5Gopen2(s->out, group, H5P_DEFAULT)) < 0)
        return NULL;
    nodes = bl_h5_attr_get_str(g, "nodes");
    status = bl_h5_attr_get_str(g, "status");
    H5Gclose(g);
    w = where_of(s->out, group, nodes, status);
    free(nodes);
    free(status);
    return w ? w : strdup("");
}

/* The id under which a run found at `where` is kept: its own, or, when
 * another run holds it, "<id>@<hostname>" (a run on another machine),
 * else "<id>@2", "<id>@3"... -1 for a duplicate (same id, same place). */
static int keep_as(sink *st, const bl_h5_summary *row, const char *where,
                   char *id, size_t len)
{
    unsigned long k = strtoul(where, NULL, 10);
    const char *host = where[0] != '@' && k < st->nkeys
                           ? st->keys[k].hostname : "";
    snprintf(id, len, "%s", nz(row->run_id));
    for (int attempt = 0; attempt < 1000; attempt++) {
        long j = find_row(st, id);
        char *there = j < 0 ? where_in_out(st, id) : NULL;
        const char *w = j >= 0 ? st->where[j] : there;
        int same;
        if (!w)
            return 0;
        same = strcmp(w, where) == 0;
        if (same && st->conflict && j >= 0 &&
            strcmp(nz(st->rows[j].label), nz(row->label)))
            st->conflict(st->ctx, id, st->names[st->source[j]],
                         nz(st->rows[j].label), st->names[st->input],
                         nz(row->label));
        free(there);
        if (same)
            return -1;
        if (attempt == 0 && *host)
            snprintf(id, len, "%s@%s", nz(row->run_id), host);
        else
            snprintf(id, len, "%s@%d", nz(row->run_id), attempt + 2);
    }
    return -1;
}

/* Keeps row (now owned by the sink) as a run of this session. */
static int remember(sink *st, bl_h5_summary *row, char *where, bl_err *err)
{
    if ((st->nrows + 1) * 2 > st->nslots && rehash(st) < 0)
        return bl_err_set(err, "out of memory merging the summaries");
    if (bl_grow(&st->where, sizeof *st->where, st->nrows, &st->capwhere,
                64) < 0 ||
        bl_grow(&st->source, sizeof *st->source, st->nrows, &st->capsource,
                64) < 0 ||
        bl_grow(&st->rows, sizeof *st->rows, st->nrows, &st->cap, 64) < 0)
        return bl_err_set(err, "out of memory merging the summaries");
    st->where[st->nrows] = where;
    st->source[st->nrows] = st->input;
    st->rows[st->nrows] = *row;
    {
        size_t j = (size_t)bl_keymap_hash(row->run_id) & (st->nslots - 1);
        while (st->slots[j])
            j = (j + 1) & (st->nslots - 1);
        st->slots[j] = st->nrows + 1;
    }
    st->nrows++;
    memset(row, 0, sizeof *row);
    return 0;
}

/* Copies one run of `in` (summary row `row`) into the sink under its
 * kept id; 1 when it was a duplicate. */
static int add_run(sink *st, hid_t in, int old, const size_t *map,
                   size_t nmap, bl_h5_summary *row, bl_err *err)
{
    char group[512], from[512], id[400], nodes[256], given[256];
    char *where;
    int rc = 0;
    bl_h5_run_path(nz(row->run_id), from, sizeof from);
    if (old && nmap > 0 && H5Lexists(in, from, H5P_DEFAULT) > 0) {
        /* written before /nodes: a run with a result ran on /machine */
        char res[600];
        snprintf(res, sizeof res, "%s/result", from);
        snprintf(given, sizeof given, "%s",
                 H5Lexists(in, res, H5P_DEFAULT) > 0 ? "0" : "");
    } else {
        snprintf(given, sizeof given, "%s", nz(row->nodes));
    }
    if (remap_list(given, map, nmap, nodes, sizeof nodes) < 0)
        nodes[0] = '\0';
    if (!(where = where_of(in, from, nodes, row->status)))
        return bl_err_set(err, "out of memory merging the summaries");
    if (keep_as(st, row, where, id, sizeof id) < 0) {
        free(where);
        st->duplicates++;
        return 1;
    }
    bl_h5_run_path(id, group, sizeof group);
    if (H5Lexists(in, from, H5P_DEFAULT) > 0) {
        hid_t g;
        if (H5Ocopy(in, from, st->out, group, H5P_DEFAULT, H5P_DEFAULT) < 0) {
            free(where);
            return bl_err_set(err, "HDF5: cannot copy %s", from);
        }
        g = H5Gopen2(st->out, group, H5P_DEFAULT);
        if (g < 0 ||
            (strcmp(id, nz(row->run_id)) &&
             bl_h5_attr_put_str(g, "run_id", id) < 0) ||
            (strcmp(nodes, nz(row->nodes)) &&
             bl_h5_attr_put_str(g, "nodes", nodes) < 0))
            rc = bl_err_set(err, "HDF5: cannot renumber %s", group);
        if (g >= 0)
            H5Gclose(g);
        if (rc == 0 && !identity(map, nmap))
            rc = remap_run_nodes(st->out, group, map, nmap, err);
        if (rc < 0) {
            free(where);
            return rc;
        }
    }
    free(row->run_id);
    free(row->nodes);
    row->run_id = strdup(id);
    row->nodes = strdup(nodes);
    if (!row->run_id || !row->nodes) {
        free(where);
        return bl_err_set(err, "out of memory merging the summaries");
    }
    if (!st->collect &&
        bl_h5_table_append(st->out, &bl_h5_summary_def, row, 1, err) < 0) {
        free(where);
        return -1;
    }
    return remember(st, row, where, err);
}

/* Adds every run of the sweep file `in` not seen yet, its machines
 * renumbered. */
static int sink_add(sink *st, hid_t in, bl_err *err)
{
    bl_h5_summary *rows;
    size_t n, *map = NULL, nmap = 0;
    int rc, old = H5Lexists(in, "nodes", H5P_DEFAULT) <= 0;
    if (H5Lexists(in, "summary", H5P_DEFAULT) <= 0)
        return bl_err_set(err, "%s: no /summary table (a bindlab-app run "
                          "file? use a sweep file, results/NAME.h5)",
                          st->names[st->input]);
    if (bl_h5_table_read(in, &bl_h5_summary_def, (void **)&rows, &n, err) < 0)
        return bl_err_prefix(err, "%s", st->names[st->input]);
    rc = map_nodes(in, st, &map, &nmap, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = add_run(st, in, old, map, nmap, &rows[i], err) < 0 ? -1 : 0;
    bl_h5_table_free(&bl_h5_summary_def, rows, n);
    free(map);
    return rc;
}

static int by_run_id(const void *a, const void *b)
{
    return strcmp(((const bl_h5_summary *)a)->run_id,
                  ((const bl_h5_summary *)b)->run_id);
}

/* ---- bindlab merge -------------------------------------------------------- */

static int create_runs(hid_t file, bl_err *err)
{
    hid_t g = H5Gcreate2(file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot create /runs");
    H5Gclose(g);
    return 0;
}

/* Adds the runs of every file of st->names[0..n) to st, one input at a time
 * (opened, copied, closed). An input that cannot be read is counted in
 * *unreadable, its message kept in *first when it is the first, and passed
 * to bad when given. Returns how many inputs were read. */
static size_t sink_add_files(sink *st, size_t n,
                             bl_h5_merge_unreadable_fn *bad, void *ctx,
                             int *unreadable, bl_err *first)
{
    size_t readable = 0;
    for (size_t i = 0; i < n; i++) {
        bl_err e;
        hid_t in = bl_h5_open_read_deep(st->names[i], &e);
        st->input = i;
        if (in < 0 || sink_add(st, in, &e) < 0) {
            if (bad)
                bad(ctx, st->names[i], e.msg);
            if (!(*unreadable)++)
                snprintf(first->msg, sizeof first->msg, "%s", e.msg);
        } else {
            readable++;
        }
        if (in >= 0)
            H5Fclose(in);
    }
    return readable;
}

int bl_h5_merge(const char *out, const char *command,
                const char *const *inputs, size_t ninputs, int *duplicates,
                int *unreadable, bl_err *err)
{
    return bl_h5_merge_ex(out, command, inputs, ninputs, NULL, NULL, NULL,
                          duplicates, unreadable, err);
}

int bl_h5_merge_ex(const char *out, const char *command,
                   const char *const *inputs, size_t ninputs,
                   bl_h5_merge_conflict_fn *conflict,
                   bl_h5_merge_unreadable_fn *bad, void *ctx,
                   int *duplicates, int *unreadable, bl_err *err)
{
    sink st;
    int rc = 0;
    size_t readable = 0;
    hid_t file;
    bl_err first = {""};

    *duplicates = 0;
    *unreadable = 0;
    /* Built in memory and written through bl_atomic_write: HDF5 1.10 writing
     * straight to a file crashes in H5Ocopy's error path when the disk fills
     * (test_full_disk); a full disk must be an error message, not a crash. */
    if (bl_atomic_check_target(out, err) < 0 ||
        (file = bl_h5_mem_create(out, err)) < 0)
        return -1;
    rc = bl_h5_write_root(file, "sweep", command, err);
    if (rc == 0)
        rc = create_runs(file, err);
    if (rc == 0)
        rc = sink_init(&st, file, 1, err);
    else
        memset(&st, 0, sizeof st);
    st.names = inputs;
    st.out_name = out;
    st.conflict = conflict;
    st.ctx = ctx;
    if (rc == 0)
        readable = sink_add_files(&st, ninputs, bad, ctx, unreadable, &first);
    if (rc == 0 && readable == 0 && ninputs > 0)
        rc = bl_err_set(err, "no readable input; %s not written", out);
    if (rc == 0) {
        /* the summary rows (a few hundred bytes a run) are all that is
         * kept in memory: sorted by run id, written once */
        if (st.nrows > 1) /* qsort(NULL, 0, ...) is undefined */
            qsort(st.rows, st.nrows, sizeof *st.rows, by_run_id);
        /* growable, so that a sweep can go on appending to it */
        rc = bl_h5_table_create_growable(file, &bl_h5_summary_def, err);
        if (rc == 0)
            rc = bl_h5_table_append(file, &bl_h5_summary_def, st.rows,
                                    st.nrows, err);
    }
    *duplicates = st.duplicates;
    sink_free(&st);
    if (rc == 0 && *unreadable)
        *err = first; /* reported, but the merge still lands */
    if (rc < 0 && readable == 0 && ninputs > 0) {
        H5Fclose(file); /* nothing to write: OUT left as it was */
        return -1;
    }
    return bl_h5_mem_commit(file, out, rc, err);
}

/* ---- the sweep's merged file, grown in place ------------------------------ */

/* fsync of a file by name (HDF5's sec2 driver never syncs). */
static int sync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc;
    if (fd < 0)
        return -1;
    rc = fsync(fd);
    close(fd);
    return rc;
}

static void sync_dir_of(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    int fd;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path) + 1, path);
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* An empty merged file: root attributes, /runs, an empty /summary. */
static int create_empty(const char *path, const char *command, bl_err *err)
{
    hid_t file = bl_h5_mem_create(path, err);
    int rc;
    if (file < 0)
        return -1;
    rc = bl_h5_write_root(file, "sweep", command, err);
    if (rc == 0)
        rc = create_runs(file, err);
    if (rc == 0)
        rc = bl_h5_table_create_growable(file, &bl_h5_summary_def, err);
    return bl_h5_mem_commit(file, path, rc, err);
}

/* The twin as a byte copy of path (a new file, renamed into place). */
static int copy_file(const char *from, const char *to, bl_err *err)
{
    FILE *in = fopen(from, "rb");
    char *buf = NULL;
    long len;
    int rc;
    if (!in)
        return bl_err_set(err, "%s: %s", from, strerror(errno));
    if (fseek(in, 0, SEEK_END) < 0 || (len = ftell(in)) < 0 ||
        fseek(in, 0, SEEK_SET) < 0 || !(buf = malloc((size_t)len + 1)) ||
        fread(buf, 1, (size_t)len, in) != (size_t)len) {
        fclose(in);
        free(buf);
        return bl_err_set(err, "%s: cannot read it", from);
    }
    fclose(in);
    rc = bl_atomic_write(to, buf, (size_t)len, err);
    free(buf);
    return rc;
}

static const char STATE[] = "append_state";

/* Opens the twin for writing when it holds a prefix of the runs of main
 * (rows and machines in the same order, and was left complete); else
 * makes it anew as a copy of main. *rows, *nodes: what the twin holds. */
static hid_t open_twin(const char *main_path, hid_t main, const char *twin,
                       size_t *rows, size_t *nodes, bl_err *err)
{
    long long m_rows = bl_h5_table_rows(main, "summary");
    size_t m_nodes = bl_h5_count_nodes(main);
    hid_t t = H5I_INVALID_HID;

    if (access(twin, F_OK) == 0)
        t = H5Fopen(twin, H5F_ACC_RDWR, H5P_DEFAULT);
    if (t >= 0) {
        char *state = bl_h5_attr_get_str(t, STATE);
        long long t_rows = bl_h5_table_rows(t, "summary");
        size_t t_nodes = bl_h5_count_nodes(t);
        int ok = (!state || strcmp(state, "writing") != 0) && t_rows >= 0 &&
                 m_rows >= 0 && t_rows <= m_rows && t_nodes <= m_nodes;
        free(state);
        if (ok && t_rows > 0) {
            /* the last run they share is the same run */
            bl_h5_summary *a = NULL, *b = NULL;
            size_t na = 0, nb = 0;
            bl_err e;
            ok = bl_h5_table_read_range(t, &bl_h5_summary_def,
                                        (size_t)t_rows - 1, 1, (void **)&a,
                                        &na, &e) == 0 &&
                 bl_h5_table_read_range(main, &bl_h5_summary_def,
                                        (size_t)t_rows - 1, 1, (void **)&b,
                                        &nb, &e) == 0 &&
                 na == 1 && nb == 1 &&
                 strcmp(nz(a[0].run_id), nz(b[0].run_id)) == 0;
            bl_h5_table_free(&bl_h5_summary_def, a, na);
            bl_h5_table_free(&bl_h5_summary_def, b, nb);
        }
        if (ok) {
            *rows = (size_t)t_rows;
            *nodes = t_nodes;
            return t;
        }
        H5Fclose(t);
    }
    /* missing, damaged by a kill in the middle of an append, held open
     * by a reader (HDF5 locks files), or of another history: copied */
    if (copy_file(main_path, twin, err) < 0)
        return H5I_INVALID_HID;
    if ((t = H5Fopen(twin, H5F_ACC_RDWR, H5P_DEFAULT)) < 0) {
        bl_err_set(err, "%s: HDF5 cannot open it for writing", twin);
        return H5I_INVALID_HID;
    }
    *rows = m_rows > 0 ? (size_t)m_rows : 0;
    *nodes = m_nodes;
    return t;
}

/* Brings the twin up to main: the machines and runs main has after the
 * twin's last ones, copied from main in main's order. */
static int catch_up(hid_t main, hid_t twin, size_t rows, size_t nodes,
                    bl_err *err)
{
    size_t m_nodes = bl_h5_count_nodes(main), n = 0;
    bl_h5_summary *tail = NULL;
    int rc = 0;
    for (size_t k = nodes; rc == 0 && k < m_nodes; k++) {
        char path[64];
        hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
        bl_h5_node_path(k, path, sizeof path);
        H5Pset_create_intermediate_group(lcpl, 1);
        if (H5Ocopy(main, path, twin, path, H5P_DEFAULT, lcpl) < 0 ||
            (k == 0 && H5Lexists(twin, "machine", H5P_DEFAULT) <= 0 &&
             H5Lcreate_hard(twin, path, twin, "machine", H5P_DEFAULT,
                            H5P_DEFAULT) < 0))
            rc = bl_err_set(err, "HDF5: cannot copy /%s", path);
        H5Pclose(lcpl);
    }
    if (rc == 0 &&
        bl_h5_table_read_range(main, &bl_h5_summary_def, rows, SIZE_MAX,
                               (void **)&tail, &n, err) < 0)
        return -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char group[512];
        bl_h5_run_path(nz(tail[i].run_id), group, sizeof group);
        if (H5Lexists(main, group, H5P_DEFAULT) > 0 &&
            H5Ocopy(main, group, twin, group, H5P_DEFAULT, H5P_DEFAULT) < 0)
            rc = bl_err_set(err, "HDF5: cannot copy %s", group);
    }
    if (rc == 0 && n > 0)
        rc = bl_h5_table_append(twin, &bl_h5_summary_def, tail, n, err);
    bl_h5_table_free(&bl_h5_summary_def, tail, n);
    return rc;
}

/* The twin becomes the merged file and the merged file the twin, each
 * step leaving a complete file under the merged file's name: link the
 * old one as PREV, rename the twin over it, rename PREV to the twin. */
static int swap_in(const char *path, const char *twin, bl_err *err)
{
    char prev[4200];
    snprintf(prev, sizeof prev, "%s.prev", twin);
    unlink(prev);
    if (link(path, prev) < 0)
        return bl_err_set(err, "%s: cannot link it as %s: %s", path, prev,
                          strerror(errno));
    if (rename(twin, path) < 0) {
        int e = errno;
        unlink(prev);
        return bl_err_set(err, "%s: cannot rename it to %s: %s", twin, path,
                          strerror(e));
    }
    if (rename(prev, twin) < 0)
        unlink(prev); /* the next append copies a new twin */
    sync_dir_of(path);
    return 0;
}

int bl_h5_append(const char *path, const char *twin, const char *command,
                 const char *const *records, size_t nrecords,
                 int *duplicates, int *unreadable, bl_err *err)
{
    sink st;
    hid_t main_f, twin_f;
    size_t rows = 0, nodes = 0;
    int rc = 0;
    bl_err first = {""};

    *duplicates = 0;
    *unreadable = 0;
    if (access(path, F_OK) != 0 && create_empty(path, command, err) < 0)
        return -1;
    if ((main_f = bl_h5_open_read(path, err)) < 0)
        return -1;
    twin_f = open_twin(path, main_f, twin, &rows, &nodes, err);
    if (twin_f < 0) {
        H5Fclose(main_f);
        return -1;
    }
    /* a kill from here to the end leaves the twin marked: it is copied
     * anew by the next append; the merged file is not touched */
    rc = bl_h5_attr_put_str(twin_f, STATE, "writing") < 0 ||
                 H5Fflush(twin_f, H5F_SCOPE_GLOBAL) < 0
             ? bl_err_set(err, "%s: cannot write", twin)
             : 0;
    if (rc == 0)
        rc = catch_up(main_f, twin_f, rows, nodes, err);
    H5Fclose(main_f);
    if (rc == 0)
        rc = sink_init(&st, twin_f, 0, err);
    else
        memset(&st, 0, sizeof st);
    st.names = records;
    st.out_name = path;
    if (rc == 0)
        sink_add_files(&st, nrecords, NULL, NULL, unreadable, &first);
    *duplicates = st.duplicates;
    sink_free(&st);
    if (rc == 0 && bl_h5_attr_put_str(twin_f, STATE, "complete") < 0)
        rc = bl_err_set(err, "%s: cannot write", twin);
    if (H5Fclose(twin_f) < 0 && rc == 0)
        rc = bl_err_set(err, "%s: HDF5 could not write it (no space left on "
                        "device?)", twin);
    if (rc == 0 && sync_path(twin) < 0)
        rc = bl_err_set(err, "%s: %s", twin, strerror(errno));
    if (rc == 0)
        rc = swap_in(path, twin, err);
    if (rc == 0 && *unreadable)
        *err = first;
    return rc;
}
