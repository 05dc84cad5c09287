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

/* The first output node before j of node j's topology, or j. */
static size_t same_topology(const bl_merge_sink *st, size_t j)
{
    for (size_t i = 0; i < j; i++)
        if (st->keys[i].topology_digest == st->keys[j].topology_digest)
            return i;
    return j;
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

int bl_merge_map_nodes(hid_t in, bl_merge_sink *st, size_t **map, size_t *n,
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
        int r;
        if (bl_h5_read_node(in, k, &m, err) < 0)
            return -1;
        if (bl_h5_node_key_of(&m, &key) != 0) {
            bl_h5_machine_free(&m);
            return bl_err_set(err, "out of memory");
        }
        for (j = 0; j < st->nkeys && !bl_h5_node_key_eq(&st->keys[j], &key);
             j++)
            ;
        (*map)[k] = j;
        if (j < st->nkeys) {
            bl_h5_node_key_free(&key);
            bl_h5_machine_free(&m);
            continue;
        }
        if (bl_grow(&st->keys, sizeof *st->keys, st->nkeys, &st->capkeys,
                    4) < 0) {
            bl_h5_node_key_free(&key);
            bl_h5_machine_free(&m);
            return bl_err_set(err, "out of memory");
        }
        st->keys[st->nkeys++] = key;
        r = copy_node(in, src, st, j, &m, err);
        bl_h5_machine_free(&m);
        if (r < 0)
            return -1;
        bl_h5_node_path(j, dst, sizeof dst);
        if (j == 0 && H5Lexists(st->out, "machine", H5P_DEFAULT) <= 0 &&
            H5Lcreate_hard(st->out, dst, st->out, "machine", H5P_DEFAULT,
                           H5P_DEFAULT) < 0)
            return bl_err_set(err, "HDF5: cannot link /machine");
    }
    return 0;
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
