/* The sink of a merge (results_merge_priv.h): the runs kept by id (a hash
 * of the session's run ids, and the runs the output held before), where
 * each ran, and the copy of one input's runs into the output under the id
 * each is kept as. */
#include "results/results_merge_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "keymap.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

static int rehash(bl_merge_sink *s)
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
static long find_row(const bl_merge_sink *s, const char *id)
{
    if (!s->nslots)
        return -1;
    for (size_t j = (size_t)bl_keymap_hash(id) & (s->nslots - 1); s->slots[j];
         j = (j + 1) & (s->nslots - 1))
        if (strcmp(s->rows[s->slots[j] - 1].run_id, id) == 0)
            return (long)(s->slots[j] - 1);
    return -1;
}

int bl_merge_sink_init(bl_merge_sink *s, hid_t out, int collect,
                       bl_err *err)
{
    memset(s, 0, sizeof *s);
    s->out = out;
    s->collect = collect;
    if (bl_merge_read_keys(out, &s->keys, NULL, &s->nkeys, err) < 0)
        return -1;
    s->capkeys = s->nkeys;
    for (size_t k = 0; k < s->nkeys; k++)
        if (bl_merge_index_key(s, k) < 0)
            return bl_err_set(err, "out of memory reading the machine "
                              "records");
    return 0;
}

void bl_merge_sink_free(bl_merge_sink *s)
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
    bl_keymap_free(&s->key_index);
    bl_keymap_free(&s->topo_index);
    memset(s, 0, sizeof *s);
}

/* Where a run is, and which record: its nodes, or for a run that never
 * ran (no machine) what its record says about why (status, reason and
 * stderr tail: an invalid r0002 of a Xeon sweep and of an EPYC sweep give
 * other reasons); then its sweep, start time and fingerprint, so that two
 * sweeps' runs on one machine under one run id are two runs, and only the
 * same record found twice (a run's file and the merged file holding it) is
 * one. Records written before those attributes leave them empty, and are
 * told apart as before. The label is left out: a label conflict between
 * two copies of one record is reported, not kept. */
static char *where_of(hid_t f, const char *group, const char *nodes,
                      const char *status)
{
    char *reason = NULL, *tail = NULL, *sweep = NULL, *print = NULL, *w;
    double start = 0.0;
    size_t len;
    if (H5Lexists(f, group, H5P_DEFAULT) > 0) {
        hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
        if (g >= 0) {
            if (!nodes || !nodes[0]) {
                reason = bl_h5_attr_get_str(g, "reason");
                tail = bl_h5_attr_get_str(g, "stderr_tail");
            }
            sweep = bl_h5_attr_get_str(g, "sweep");
            print = bl_h5_attr_get_str(g, "fingerprint");
            start = bl_h5_attr_get_f64(g, "start_time", 0.0);
            H5Gclose(g);
        }
    }
    len = strlen(nz(nodes)) + strlen(nz(status)) + strlen(nz(reason)) +
          strlen(nz(tail)) + strlen(nz(sweep)) + strlen(nz(print)) + 48;
    if ((w = malloc(len))) {
        int n = nodes && nodes[0]
                    ? snprintf(w, len, "%s", nodes)
                    : snprintf(w, len, "@%s\x1f%s\x1f%s", nz(status),
                               nz(reason), nz(tail));
        snprintf(w + n, len - (size_t)n, "\x1e%s\x1e%.6f\x1e%s", nz(sweep),
                 start, nz(print));
    }
    free(reason);
    free(tail);
    free(sweep);
    free(print);
    return w;
}

/* The sweep named in a where (where_of), into buf ("" when none). */
static void sweep_of(const char *where, char *buf, size_t len)
{
    const char *p = strchr(where, '\x1e');
    size_t n = p ? strcspn(p + 1, "\x1e") : 0;
    snprintf(buf, len, "%.*s", (int)n, p ? p + 1 : "");
}

/* A run out held before this session: where it is, NULL when none. */
static char *where_in_out(const bl_merge_sink *s, const char *id)
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

/* The hostname of the machine a where (where_of) names, "" for none. */
static const char *host_of(const bl_merge_sink *st, const char *where)
{
    unsigned long k = strtoul(where, NULL, 10);
    return where[0] != '@' && k < st->nkeys ? nz(st->keys[k].hostname) : "";
}

/* The id under which a run found at `where` is kept: its own, or, when
 * another run holds it, "<id>@<hostname>" (a run on another machine),
 * "<sweep>:<id>" (a run of another sweep on the same machine), else
 * "<id>@2", "<id>@3"...
 * -1 for a duplicate (the same record). */
static int keep_as(bl_merge_sink *st, const bl_h5_summary *row,
                   const char *where, char *id, size_t len)
{
    const char *host = host_of(st, where);
    char sweep[128], held_by[128], base[400];
    sweep_of(where, sweep, sizeof sweep);
    bl_textf(base, sizeof base, "%s", nz(row->run_id));
    bl_textf(id, len, "%s", base);
    for (int attempt = 0; attempt < 1000; attempt++) {
        long j = find_row(st, id);
        char *there = j < 0 ? where_in_out(st, id) : NULL;
        const char *w = j >= 0 ? st->where[j] : there;
        int same, same_host;
        if (!w)
            return 0;
        same = strcmp(w, where) == 0;
        sweep_of(w, held_by, sizeof held_by);
        if (same && st->conflict && j >= 0 &&
            strcmp(nz(st->rows[j].label), nz(row->label)))
            st->conflict(st->ctx, id, st->names[st->source[j]],
                         nz(st->rows[j].label), st->names[st->input],
                         nz(row->label));
        same_host = strcmp(host, host_of(st, w)) == 0;
        free(there);
        if (same)
            return -1;
        if (attempt == 0 && (same_host || !*host) && sweep[0] &&
            strcmp(sweep, held_by)) {
            bl_textf(base, sizeof base, "%s:%s", sweep, nz(row->run_id));
            bl_textf(id, len, "%s", base);
        } else if (attempt == 0 && *host) {
            bl_textf(id, len, "%s@%s", base, host);
        } else {
            bl_textf(id, len, "%s@%d", base, attempt + 2);
        }
    }
    return -1;
}

/* Keeps row (now owned by the sink) as a run of this session. */
static int remember(bl_merge_sink *st, bl_h5_summary *row, char *where,
                    bl_err *err)
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
/* The run's nodes renumbered to the output's, malloc'ed at the size of
 * the list (a run over 10,000 nodes names them all); NULL out of memory. */
static char *remapped_nodes(hid_t in, int old, const char *from,
                            const bl_h5_summary *row, const size_t *map,
                            size_t nmap)
{
    const char *given = nz(row->nodes);
    size_t len = 21 * nmap + 2;
    char *nodes = malloc(len);
    if (!nodes)
        return NULL;
    if (old && nmap > 0 && H5Lexists(in, from, H5P_DEFAULT) > 0) {
        /* written before /nodes: a run with a result ran on /machine */
        char res[600];
        snprintf(res, sizeof res, "%s/result", from);
        given = H5Lexists(in, res, H5P_DEFAULT) > 0 ? "0" : "";
    }
    if (bl_merge_remap_list(given, map, nmap, nodes, len) < 0)
        nodes[0] = '\0';
    return nodes;
}

static int add_run_as(bl_merge_sink *st, hid_t in, const char *from,
                      const char *nodes, const size_t *map, size_t nmap,
                      bl_h5_summary *row, bl_err *err)
{
    char group[512], id[400];
    char *where;
    int rc = 0;
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
        if (rc == 0)
            rc = bl_merge_remap_run_nodes(st->out, group, map, nmap, err);
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

static int add_run(bl_merge_sink *st, hid_t in, int old, const size_t *map,
                   size_t nmap, bl_h5_summary *row, bl_err *err)
{
    char from[512], *nodes;
    int rc;
    bl_h5_run_path(nz(row->run_id), from, sizeof from);
    if (!(nodes = remapped_nodes(in, old, from, row, map, nmap)))
        return bl_err_set(err, "out of memory merging the summaries");
    rc = add_run_as(st, in, from, nodes, map, nmap, row, err);
    free(nodes);
    return rc;
}

/* Adds every run of the sweep file `in` not seen yet, its machines
 * renumbered. */
static int sink_add(bl_merge_sink *st, hid_t in, bl_err *err)
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
    rc = bl_merge_map_nodes(in, st, &map, &nmap, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = add_run(st, in, old, map, nmap, &rows[i], err) < 0 ? -1 : 0;
    bl_h5_table_free(&bl_h5_summary_def, rows, n);
    free(map);
    return rc;
}

size_t bl_merge_sink_add_files(bl_merge_sink *st, size_t n,
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
