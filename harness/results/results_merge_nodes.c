/* The machines of a merge (results_merge_priv.h): each input's /nodes/<k>
 * kept once in the output (bl_h5_node_key_eq), and the node indexes of its
 * runs renumbered to the output's. */
#include "results/results_merge_priv.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* A node key as one string, for the sink's index. */
static char *key_text(const bl_h5_node_key *k)
{
    size_t len = strlen(k->hostname) + strlen(k->cpu_model) +
                 strlen(k->mpi_library_version) + strlen(k->kernel_release) +
                 24;
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%016llx\x1f%s\x1f%s\x1f%s\x1f%s",
                 (unsigned long long)k->topology_digest, k->hostname,
                 k->cpu_model, k->mpi_library_version, k->kernel_release);
    return s;
}

static void digest_text(uint64_t d, char *buf, size_t len)
{
    snprintf(buf, len, "%016llx", (unsigned long long)d);
}

int bl_merge_index_key(bl_merge_sink *st, size_t k)
{
    char *text = key_text(&st->keys[k]), digest[24];
    size_t r = text ? bl_keymap_put_new(&st->key_index, text, k)
                    : BL_KEYMAP_NONE;
    free(text);
    digest_text(st->keys[k].topology_digest, digest, sizeof digest);
    if (r == BL_KEYMAP_NONE ||
        bl_keymap_put_new(&st->topo_index, digest, k) == BL_KEYMAP_NONE)
        return -1;
    return 0;
}

/* The out node of key, or BL_KEYMAP_NONE. */
static size_t find_key(const bl_merge_sink *st, const bl_h5_node_key *key)
{
    char *text = key_text(key);
    size_t k = text ? bl_keymap_get(&st->key_index, text) : BL_KEYMAP_NONE;
    free(text);
    return k;
}

/* The first output node of node j's topology (j itself when none). */
static size_t same_topology(const bl_merge_sink *st, size_t j)
{
    char digest[24];
    size_t i;
    digest_text(st->keys[j].topology_digest, digest, sizeof digest);
    i = bl_keymap_get(&st->topo_index, digest);
    return i == BL_KEYMAP_NONE ? j : i;
}

int bl_merge_read_keys(hid_t file, bl_h5_node_key **keys, bl_h5_machine **m,
                       size_t *n, bl_err *err)
{
    bl_h5_machine *nodes;
    int *topo_of;
    size_t count, k;
    *keys = NULL;
    *n = 0;
    if (bl_h5_read_nodes_shared(file, &nodes, &count, &topo_of, err) < 0)
        return -1;
    *keys = calloc(count + 1, sizeof **keys);
    for (k = 0; *keys && k < count; k++) {
        size_t t = (size_t)topo_of[k];
        if (bl_h5_node_key_of(&nodes[k], &(*keys)[k]) < 0)
            break;
        /* the XML of an alike node is its first one's: its digest too */
        if (t < k)
            (*keys)[k].topology_digest = (*keys)[t].topology_digest;
    }
    free(topo_of);
    if (!*keys || k < count) {
        for (size_t i = 0; *keys && i < k; i++)
            bl_h5_node_key_free(&(*keys)[i]);
        free(*keys);
        *keys = NULL;
        bl_h5_nodes_free(nodes, count);
        return bl_err_set(err, "out of memory reading the machine records");
    }
    *n = count;
    if (m)
        *m = nodes;
    else
        bl_h5_nodes_free(nodes, count);
    return 0;
}

/* Input node src as output node j: copied whole, or, when an earlier
 * output node has its topology, written from its record m with its
 * topology_xml a link to that node's dataset (as bl_h5_write_nodes stores
 * alike nodes: a merged run over 10,000 alike nodes keeps one XML). */
static int copy_node(hid_t in, const char *src, bl_merge_sink *st, size_t j,
                     const bl_h5_machine *m, bl_err *err)
{
    size_t i = same_topology(st, j);
    char dst[64], from[96], to[96];
    hid_t lcpl, g;
    herr_t r;
    bl_h5_node_path(j, dst, sizeof dst);
    if (i < j) {
        snprintf(from, sizeof from, "nodes/%zu/topology_xml", i);
        snprintf(to, sizeof to, "%s/topology_xml", dst);
        if ((g = bl_h5_group_open_or_create(st->out, dst)) < 0)
            return bl_err_set(err, "HDF5: cannot create /%s", dst);
        H5Gclose(g);
        if (H5Lexists(st->out, from, H5P_DEFAULT) > 0 &&
            H5Lcreate_hard(st->out, from, st->out, to, H5P_DEFAULT,
                           H5P_DEFAULT) < 0)
            return bl_err_set(err, "HDF5: cannot link /%s", to);
        return bl_h5_write_node(st->out, j, m, err);
    }
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    r = H5Ocopy(in, src, st->out, dst, H5P_DEFAULT, lcpl);
    H5Pclose(lcpl);
    return r < 0 ? bl_err_set(err, "HDF5: cannot copy /%s", src) : 0;
}

/* Input node k (key, record m) as a new output node: its key kept and
 * indexed, its record copied. */
static int add_node(hid_t in, size_t k, bl_merge_sink *st,
                    bl_h5_node_key *key, const bl_h5_machine *m, bl_err *err)
{
    char buf[64], dst[64];
    const char *src = bl_h5_node_object(in, k, buf, sizeof buf);
    size_t j = st->nkeys;
    if (!src)
        return bl_err_set(err, "no machine record /nodes/%zu", k);
    if (bl_grow(&st->keys, sizeof *st->keys, st->nkeys, &st->capkeys, 4) < 0)
        return bl_err_set(err, "out of memory");
    st->keys[st->nkeys++] = *key;
    memset(key, 0, sizeof *key);
    /* copied before it is indexed: same_topology must not find itself */
    if (copy_node(in, src, st, j, m, err) < 0)
        return -1;
    if (bl_merge_index_key(st, j) < 0)
        return bl_err_set(err, "out of memory");
    bl_h5_node_path(j, dst, sizeof dst);
    if (j == 0 && H5Lexists(st->out, "machine", H5P_DEFAULT) <= 0 &&
        H5Lcreate_hard(st->out, dst, st->out, "machine", H5P_DEFAULT,
                       H5P_DEFAULT) < 0)
        return bl_err_set(err, "HDF5: cannot link /machine");
    return 0;
}

int bl_merge_map_nodes(hid_t in, bl_merge_sink *st, size_t **map, size_t *n,
                       bl_err *err)
{
    bl_h5_node_key *keys;
    bl_h5_machine *m;
    size_t count, k;
    int rc = 0;
    *n = 0;
    *map = NULL;
    if (bl_merge_read_keys(in, &keys, &m, &count, err) < 0)
        return -1;
    if (!(*map = calloc(count + 1, sizeof **map)))
        rc = bl_err_set(err, "out of memory");
    for (k = 0; rc == 0 && k < count; k++) {
        size_t j = find_key(st, &keys[k]);
        if (j == BL_KEYMAP_NONE) {
            j = st->nkeys;
            rc = add_node(in, k, st, &keys[k], &m[k], err);
        }
        (*map)[k] = j;
    }
    for (k = 0; k < count; k++)
        bl_h5_node_key_free(&keys[k]);
    free(keys);
    bl_h5_nodes_free(m, count);
    *n = rc == 0 ? count : 0;
    return rc;
}

int bl_merge_remap_list(const char *list, const size_t *map, size_t nmap,
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

int bl_merge_remap_run_nodes(hid_t out, const char *group, const size_t *map,
                             size_t nmap, bl_err *err)
{
    if (identity(map, nmap))
        return 0;
    if (remap_node_column(out, group, &bl_h5_rank_def,
                          offsetof(bl_h5_rank, node), map, nmap, err) < 0 ||
        remap_node_column(out, group, &bl_h5_check_def,
                          offsetof(bl_h5_check, node), map, nmap, err) < 0 ||
        remap_node_column(out, group, &bl_h5_traffic_def,
                          offsetof(bl_h5_traffic, node), map, nmap, err) < 0)
        return -1;
    return 0;
}
