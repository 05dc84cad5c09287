/* The harness's HDF5 files (results_file.h): its record of a run written
 * into the run's group beside the app's /run, the /summary row, per-run
 * sweep files, merge, and the /summary reader. */
#include "results_file.h"

#include "atomic_file.h"
#include "grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void bl_h5_run_path(const char *run_id, char *buf, size_t len)
{
    snprintf(buf, len, "runs/%s", run_id);
}

/* ---- the harness's record of a run ------------------------------------- */

int bl_h5_write_harness(hid_t file, const char *group, const bl_h5_harness *h,
                        bl_err *err)
{
    hid_t g = bl_h5_group_open_or_create(file, group);
    int rc = 0;
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot create '%s'", group);
    rc |= bl_h5_attrs_write(g, &bl_h5_harness_attrs, h);
    if (H5Lexists(g, "binding_report", H5P_DEFAULT) <= 0)
        rc |= bl_h5_string_write(g, "binding_report", h->binding_report);
    if (rc == 0 && H5Lexists(g, "checks", H5P_DEFAULT) <= 0)
        rc |= bl_h5_table_write(g, &bl_h5_check_def, h->checks, h->nchecks,
                                err);
    H5Gclose(g);
    return rc ? bl_err_set(err, "HDF5: cannot write the harness record of "
                           "'%s'", group) : 0;
}

int bl_h5_read_harness(hid_t file, const char *group, bl_h5_harness *h,
                       bl_err *err)
{
    hid_t g;
    int rc;
    memset(h, 0, sizeof *h);
    if (H5Lexists(file, group, H5P_DEFAULT) <= 0)
        return bl_err_set(err, "no run group '%s'", group);
    g = H5Gopen2(file, group, H5P_DEFAULT);
    bl_h5_attrs_read(g, &bl_h5_harness_attrs, h);
    h->binding_report = bl_h5_string_read(g, "binding_report");
    rc = bl_h5_table_read(g, &bl_h5_check_def, (void **)&h->checks,
                          &h->nchecks, err);
    H5Gclose(g);
    return rc;
}

void bl_h5_harness_free(bl_h5_harness *h)
{
    bl_h5_attrs_free(&bl_h5_harness_attrs, h);
    free(h->binding_report);
    bl_h5_table_free(&bl_h5_check_def, h->checks, h->nchecks);
    memset(h, 0, sizeof *h);
}

/* ---- the /summary row ---------------------------------------------------- */

/* One value on its way from an attribute member to a summary column. */
typedef struct cell {
    char *s;
    long long i;
    double d;
} cell;

static cell cell_of(const bl_h5_attr *a, const void *rec)
{
    const char *p = (const char *)rec + a->offset;
    cell c = {NULL, 0, 0};
    switch (a->type) {
    case BL_A_INT: c.i = *(const int *)p; break;
    case BL_A_LLONG: c.i = *(const long long *)p; break;
    case BL_A_F64: c.d = *(const double *)p; break;
    case BL_A_STR: c.s = *(char *const *)p; break;
    }
    if (a->type == BL_A_INT || a->type == BL_A_LLONG)
        c.d = (double)c.i;
    return c;
}

static void cell_put(const bl_h5_field *f, void *row, cell c)
{
    static char empty[] = "";
    char *p = (char *)row + f->offset;
    switch (f->type) {
    case BL_H5_I8: *(int8_t *)p = (int8_t)c.i; break;
    case BL_H5_I32: *(int32_t *)p = (int32_t)c.i; break;
    case BL_H5_I64: *(int64_t *)p = c.i; break;
    case BL_H5_F64: *(double *)p = c.d; break;
    case BL_H5_STR: *(char **)p = c.s ? c.s : empty; break;
    }
}

/* Each column takes the member of the same name: from the harness's record,
 * else from the app's result, which without an app reads as that
 * attribute's default (local_page_fraction -1: unknown). A new summary
 * column that names a field of either record needs no code here. */
void bl_h5_summary_row(const bl_h5_run *app, const bl_h5_harness *h,
                       bl_h5_summary *row)
{
    const bl_h5_table_def *def = &bl_h5_summary_def;
    memset(row, 0, sizeof *row);
    for (size_t i = 0; i < def->nfields; i++) {
        const bl_h5_field *f = &def->fields[i];
        const bl_h5_attr *a;
        cell c = {NULL, 0, 0};
        if ((a = bl_h5_attrs_find(&bl_h5_harness_attrs, f->name)))
            c = cell_of(a, h);
        else if ((a = bl_h5_attrs_find(&bl_h5_result_attrs, f->name))) {
            if (app)
                c = cell_of(a, &app->result);
            else
                c.i = (long long)(c.d = a->dflt);
        }
        cell_put(f, row, c);
    }
    /* The threads the app saw beat the ones the harness asked for. */
    if (app && app->threads > 0)
        row->threads = app->threads;
}

/* ---- sweep files ---------------------------------------------------------- */

void bl_h5_run_nodes(const bl_h5_run *r, size_t nmachines, char *buf,
                     size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (nmachines == 0)
        return;
    if (!r || r->nrank_rows == 0) {
        snprintf(buf, len, "0");
        return;
    }
    /* distinct indexes in increasing order: a run spans a few nodes */
    for (long last = -1;;) {
        long next = -1;
        for (size_t i = 0; i < r->nrank_rows; i++) {
            long v = r->rank_rows[i].node;
            if (v > last && (next < 0 || v < next))
                next = v;
        }
        if (next < 0)
            break;
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
                                 "%s%ld", used ? "," : "", next);
        last = next;
    }
    if (used >= len && len > 0)
        buf[len - 1] = '\0';
}

int bl_h5_write_sweep_run(const char *path, const char *command,
                          const bl_h5_machine *machines, size_t nmachines,
                          const bl_h5_run *app, const bl_h5_harness *h,
                          bl_err *err)
{
    char group[512], nodes[256];
    bl_h5_harness rec = *h;
    bl_h5_summary row;
    hid_t file;
    int rc;

    if (!machines)
        nmachines = 0;
    if (!rec.nodes || !rec.nodes[0]) {
        bl_h5_run_nodes(app, nmachines, nodes, sizeof nodes);
        rec.nodes = nodes;
    }
    bl_h5_run_path(h->run_id, group, sizeof group);
    if (bl_atomic_check_target(path, err) < 0 ||
        (file = bl_h5_mem_create(path, err)) < 0)
        return -1;
    rc = bl_h5_write_root(file, "sweep", command, err);
    if (rc == 0)
        rc = bl_h5_write_nodes(file, machines, nmachines, err);
    if (rc == 0 && app)
        rc = bl_h5_write_run(file, group, app, err);
    if (rc == 0)
        rc = bl_h5_write_harness(file, group, &rec, err);
    bl_h5_summary_row(app, &rec, &row);
    if (rc == 0)
        rc = bl_h5_table_write(file, &bl_h5_summary_def, &row, 1, err);
    return bl_h5_mem_commit(file, path, rc, err);
}

static int by_run_id(const void *a, const void *b)
{
    return strcmp(((const bl_h5_summary *)a)->run_id,
                  ((const bl_h5_summary *)b)->run_id);
}

/* ---- merge --------------------------------------------------------------- */

/* What the merged file holds so far. */
typedef struct merge_state {
    hid_t out;
    bl_h5_summary *all;
    char **where;             /* per row of all: its nodes, or for a run
                               * without nodes "@" and the nodes of the
                               * file it came from (what tells two
                               * machines' failed r0003 apart) */
    size_t *source;           /* per row of all: its input's index */
    size_t nall, cap, capwhere, capsource;
    const char *const *inputs;
    size_t input;             /* the input being merged */
    bl_h5_merge_conflict_fn *conflict;
    void *ctx;
    bl_h5_node_key *keys;     /* of out's /nodes/<k> */
    size_t nkeys, capkeys;
    int duplicates;
} merge_state;

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* The out node index of each of in's nodes, adding the new ones to out. */
static int map_nodes(hid_t in, merge_state *st, size_t **map, size_t *n,
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
        bl_h5_node_path(j, dst, sizeof dst);
        if (bl_grow(&st->keys, sizeof *st->keys, st->nkeys, &st->capkeys,
                    4) < 0) {
            bl_h5_node_key_free(&key);
            return bl_err_set(err, "out of memory");
        }
        st->keys[st->nkeys++] = key;
        {
            hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
            herr_t r;
            H5Pset_create_intermediate_group(lcpl, 1);
            r = H5Ocopy(in, src, st->out, dst, H5P_DEFAULT, lcpl);
            H5Pclose(lcpl);
            if (r < 0)
                return bl_err_set(err, "HDF5: cannot copy /%s", src);
        }
        if (j == 0 && H5Lcreate_hard(st->out, dst, st->out, "machine",
                                     H5P_DEFAULT, H5P_DEFAULT) < 0)
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
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
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

/* Renumbers the "node" column of group's ranks table through map. A table
 * written before the column existed holds the rows of node 0. */
static int remap_rank_rows(hid_t out, const char *group, const size_t *map,
                           size_t nmap, bl_err *err)
{
    hid_t g = H5Gopen2(out, group, H5P_DEFAULT);
    bl_h5_rank *rows = NULL;
    size_t n = 0;
    int rc = 0;
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot open %s", group);
    if (H5Lexists(g, bl_h5_rank_def.name, H5P_DEFAULT) > 0 &&
        (rc = bl_h5_table_read(g, &bl_h5_rank_def, (void **)&rows, &n,
                               err)) == 0) {
        for (size_t i = 0; i < n; i++)
            rows[i].node = rows[i].node >= 0 && (size_t)rows[i].node < nmap
                               ? (int32_t)map[rows[i].node] : -1;
        if (H5Ldelete(g, bl_h5_rank_def.name, H5P_DEFAULT) < 0)
            rc = bl_err_set(err, "HDF5: cannot rewrite %s/ranks", group);
        else
            rc = bl_h5_table_write(g, &bl_h5_rank_def, rows, n, err);
        bl_h5_table_free(&bl_h5_rank_def, rows, n);
    }
    H5Gclose(g);
    return rc;
}

/* The id under which a run found at `where` (see merge_state) is kept:
 * its own, or, when another run holds it, "<id>@<hostname>" (a run on
 * another machine), else "<id>@2", "<id>@3"... -1 for a duplicate (same
 * id, same place). */
static int keep_as(merge_state *st, const bl_h5_summary *row,
                   const char *where, char *id, size_t len)
{
    unsigned long k = strtoul(where, NULL, 10);
    const char *host = where[0] != '@' && k < st->nkeys
                           ? st->keys[k].hostname : "";
    snprintf(id, len, "%s", nz(row->run_id));
    for (int attempt = 0; attempt < 1000; attempt++) {
        size_t j;
        for (j = 0; j < st->nall && strcmp(st->all[j].run_id, id); j++)
            ;
        if (j == st->nall)
            return 0;
        if (strcmp(st->where[j], where) == 0) {
            if (st->conflict && strcmp(nz(st->all[j].label), nz(row->label)))
                st->conflict(st->ctx, id, st->inputs[st->source[j]],
                             nz(st->all[j].label), st->inputs[st->input],
                             nz(row->label));
            return -1;
        }
        if (attempt == 0 && *host)
            snprintf(id, len, "%s@%s", nz(row->run_id), host);
        else
            snprintf(id, len, "%s@%d", nz(row->run_id), attempt + 2);
    }
    return -1;
}

/* Where a run that never ran (no nodes) is: it has no machine, so it is
 * told apart by what its record says about why: status, reason and stderr
 * tail (an invalid r0002 of a Xeon sweep and of an EPYC sweep give other
 * reasons; the same run found twice gives the same). The label is left
 * out, as for runs with nodes: a label conflict is reported, not kept. */
static char *where_nodeless(hid_t in, const char *from,
                            const bl_h5_summary *row)
{
    char *reason = NULL, *tail = NULL, *w;
    size_t len;
    if (H5Lexists(in, from, H5P_DEFAULT) > 0) {
        hid_t g = H5Gopen2(in, from, H5P_DEFAULT);
        if (g >= 0) {
            reason = bl_h5_attr_get_str(g, "reason");
            tail = bl_h5_attr_get_str(g, "stderr_tail");
            H5Gclose(g);
        }
    }
    len = strlen(nz(row->status)) + strlen(nz(reason)) + strlen(nz(tail)) +
          8;
    if ((w = malloc(len)))
        snprintf(w, len, "@%s\x1f%s\x1f%s", nz(row->status), nz(reason),
                 nz(tail));
    free(reason);
    free(tail);
    return w;
}

/* Copies /runs/<id> of `in` into st->out for each summary row not seen
 * yet, its nodes renumbered; appends the rows it took to st->all. */
static int merge_one(hid_t in, merge_state *st, bl_err *err)
{
    bl_h5_summary *rows;
    size_t n, *map = NULL, nmap = 0;
    int rc = 0, old = H5Lexists(in, "nodes", H5P_DEFAULT) <= 0;
    if (bl_h5_table_read(in, &bl_h5_summary_def, (void **)&rows, &n, err) < 0)
        return -1;
    rc = map_nodes(in, st, &map, &nmap, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char group[512], from[512], id[400], nodes[256];
        char *where;
        bl_h5_summary *row = &rows[i];
        bl_h5_run_path(nz(row->run_id), from, sizeof from);
        if (old && nmap > 0 && H5Lexists(in, from, H5P_DEFAULT) > 0) {
            /* written before /nodes: a run with a result ran on /machine */
            char res[600];
            snprintf(res, sizeof res, "%s/result", from);
            snprintf(nodes, sizeof nodes, "%s",
                     H5Lexists(in, res, H5P_DEFAULT) > 0 ? "0" : "");
        } else {
            snprintf(nodes, sizeof nodes, "%s", nz(row->nodes));
        }
        {
            char given[256];
            snprintf(given, sizeof given, "%s", nodes);
            if (remap_list(given, map, nmap, nodes, sizeof nodes) < 0)
                nodes[0] = '\0';
        }
        where = nodes[0] ? strdup(nodes) : where_nodeless(in, from, row);
        if (!where) {
            rc = bl_err_set(err, "out of memory merging the summaries");
            break;
        }
        if (keep_as(st, row, where, id, sizeof id) < 0) {
            free(where);
            st->duplicates++;
            continue;
        }
        bl_h5_run_path(id, group, sizeof group);
        if (H5Lexists(in, from, H5P_DEFAULT) > 0) {
            hid_t g;
            if (H5Ocopy(in, from, st->out, group, H5P_DEFAULT,
                        H5P_DEFAULT) < 0) {
                rc = bl_err_set(err, "HDF5: cannot copy %s", from);
                break;
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
                rc = remap_rank_rows(st->out, group, map, nmap, err);
            if (rc < 0) {
                free(where);
                break;
            }
        }
        if (bl_grow(&st->where, sizeof *st->where, st->nall, &st->capwhere,
                    64) < 0 ||
            bl_grow(&st->source, sizeof *st->source, st->nall,
                    &st->capsource, 64) < 0 ||
            bl_grow(&st->all, sizeof *st->all, st->nall, &st->cap, 64) < 0 ||
            !(row->run_id = (free(row->run_id), strdup(id))) ||
            !(row->nodes = (free(row->nodes), strdup(nodes)))) {
            free(where);
            rc = bl_err_set(err, "out of memory merging the summaries");
            break;
        }
        st->where[st->nall] = where;
        st->source[st->nall] = st->input;
        st->all[st->nall++] = *row;
        memset(row, 0, sizeof *row); /* now owned by st->all */
    }
    bl_h5_table_free(&bl_h5_summary_def, rows, n);
    free(map);
    return rc;
}

int bl_h5_merge(const char *out, const char *command,
                const char *const *inputs, size_t ninputs, int *duplicates,
                int *unreadable, bl_err *err)
{
    return bl_h5_merge_ex(out, command, inputs, ninputs, NULL, NULL,
                          duplicates, unreadable, err);
}

int bl_h5_merge_ex(const char *out, const char *command,
                   const char *const *inputs, size_t ninputs,
                   bl_h5_merge_conflict_fn *conflict, void *ctx,
                   int *duplicates, int *unreadable, bl_err *err)
{
    merge_state st = {0};
    int rc = 0;
    hid_t file, lcpl;
    bl_err first = {""};

    *duplicates = 0;
    *unreadable = 0;
    if (bl_atomic_check_target(out, err) < 0 ||
        (file = bl_h5_mem_create(out, err)) < 0)
        return -1;
    st.out = file;
    st.inputs = inputs;
    st.conflict = conflict;
    st.ctx = ctx;
    rc = bl_h5_write_root(file, "sweep", command, err);
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    if (rc == 0) {
        hid_t g = H5Gcreate2(file, "runs", lcpl, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0)
            rc = bl_err_set(err, "HDF5: cannot create /runs");
        else
            H5Gclose(g);
    }
    H5Pclose(lcpl);
    for (size_t i = 0; rc == 0 && i < ninputs; i++) {
        bl_err e;
        hid_t in = bl_h5_open_read(inputs[i], &e);
        st.input = i;
        if (in < 0 || merge_one(in, &st, &e) < 0) {
            if (!(*unreadable)++)
                snprintf(first.msg, sizeof first.msg, "%s", e.msg);
        }
        if (in >= 0)
            H5Fclose(in);
    }
    if (rc == 0) {
        if (st.nall > 1) /* qsort(NULL, 0, ...) is undefined */
            qsort(st.all, st.nall, sizeof *st.all, by_run_id);
        rc = bl_h5_table_write(file, &bl_h5_summary_def, st.all, st.nall,
                               err);
    }
    *duplicates = st.duplicates;
    bl_h5_table_free(&bl_h5_summary_def, st.all, st.nall);
    for (size_t i = 0; i < st.nall; i++)
        free(st.where[i]);
    free(st.where);
    free(st.source);
    for (size_t k = 0; k < st.nkeys; k++)
        bl_h5_node_key_free(&st.keys[k]);
    free(st.keys);
    if (rc == 0 && *unreadable)
        *err = first; /* reported, but the merge still lands */
    return bl_h5_mem_commit(file, out, rc, err);
}

int bl_h5_read_summary(const char *path, bl_h5_summary **rows, size_t *n,
                       bl_err *err)
{
    hid_t file = bl_h5_open_read(path, err);
    int rc;
    if (file < 0)
        return -1;
    if (H5Lexists(file, "summary", H5P_DEFAULT) <= 0) {
        H5Fclose(file);
        return bl_err_set(err, "%s: no /summary table (a bindlab-app run "
                          "file? use a sweep file, results/NAME.h5)", path);
    }
    rc = bl_h5_table_read(file, &bl_h5_summary_def, (void **)rows, n, err);
    H5Fclose(file);
    return rc < 0 ? bl_err_prefix(err, "%s", path) : 0;
}
