/* Machine records of h5schema.h: /nodes/<k> (one per machine of a file),
 * /machine as a link to /nodes/0, and the key that tells two machines
 * apart. */
#include "h5/h5schema.h"

#include "atomic_file.h"
#include "h5/h5guard.h"
#include "topo.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- machine and nodes ------------------------------------------------- */

void bl_h5_node_path(size_t k, char *buf, size_t len)
{
    snprintf(buf, len, "nodes/%zu", k);
}

int bl_h5_write_node(hid_t file, size_t k, const bl_h5_machine *m,
                     bl_err *err)
{
    char path[64];
    hid_t g;
    int rc = 0;
    bl_h5_node_path(k, path, sizeof path);
    g = bl_h5_group_open_or_create(file, path);
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot create /%s", path);
    rc |= bl_h5_attrs_write(g, &bl_h5_machine_attrs, m);
    if (H5Lexists(g, "topology_xml", H5P_DEFAULT) <= 0)
        rc |= bl_h5_string_write(g, "topology_xml", m->topology_xml);
    H5Gclose(g);
    /* old readers (and h5py users) read /machine: the first node */
    if (rc == 0 && k == 0 && H5Lexists(file, "machine", H5P_DEFAULT) <= 0 &&
        H5Lcreate_hard(file, path, file, "machine", H5P_DEFAULT,
                       H5P_DEFAULT) < 0)
        rc = -1;
    return rc ? bl_err_set(err, "HDF5: cannot write /%s", path) : 0;
}

/* Node k's topology_xml as a hard link to node j's (the same dataset
 * under two names): a job of 10,000 alike nodes stores its XML once, and
 * every reader of /nodes/<k>/topology_xml still reads it. */
static int link_topology(hid_t file, size_t j, size_t k)
{
    char from[96], to[96];
    snprintf(from, sizeof from, "nodes/%zu/topology_xml", j);
    snprintf(to, sizeof to, "nodes/%zu/topology_xml", k);
    return H5Lcreate_hard(file, from, file, to, H5P_DEFAULT, H5P_DEFAULT) < 0
               ? -1 : 0;
}

/* The first node before k whose topology is m[k]'s, among the distinct
 * ones met so far (first[0..*ndistinct)); k itself when none. */
static size_t same_topology(const bl_h5_machine *m, size_t k, size_t *first,
                            uint64_t *digest, size_t *ndistinct)
{
    uint64_t d = bl_h5_topology_digest(m[k].topology_xml);
    for (size_t i = 0; i < *ndistinct; i++)
        if (digest[i] == d && strcmp(m[first[i]].topology_xml
                                         ? m[first[i]].topology_xml : "",
                                     m[k].topology_xml ? m[k].topology_xml
                                                       : "") == 0)
            return first[i];
    first[*ndistinct] = k;
    digest[(*ndistinct)++] = d;
    return k;
}

int bl_h5_write_nodes(hid_t file, const bl_h5_machine *m, size_t n,
                      bl_err *err)
{
    size_t *first = calloc(n + 1, sizeof *first), ndistinct = 0;
    uint64_t *digest = calloc(n + 1, sizeof *digest);
    int rc = 0;
    if (!first || !digest)
        rc = bl_err_set(err, "out of memory writing /nodes");
    for (size_t k = 0; k < n && rc == 0; k++) {
        size_t j = same_topology(m, k, first, digest, &ndistinct);
        char path[64];
        hid_t g;
        if (j == k) {
            rc = bl_h5_write_node(file, k, &m[k], err);
            continue;
        }
        /* the group first, then its XML as the earlier node's dataset */
        bl_h5_node_path(k, path, sizeof path);
        g = bl_h5_group_open_or_create(file, path);
        if (g < 0 || link_topology(file, j, k) < 0)
            rc = bl_err_set(err, "HDF5: cannot write /%s", path);
        if (g >= 0)
            H5Gclose(g);
        if (rc == 0)
            rc = bl_h5_write_node(file, k, &m[k], err);
    }
    free(first);
    free(digest);
    return rc;
}

int bl_h5_write_machine(hid_t file, const bl_h5_machine *m, bl_err *err)
{
    return bl_h5_write_node(file, 0, m, err);
}

const char *bl_h5_node_object(hid_t file, size_t k, char *buf, size_t len)
{
    bl_h5_node_path(k, buf, len);
    if (H5Lexists(file, "nodes", H5P_DEFAULT) > 0) {
        if (H5Lexists(file, buf, H5P_DEFAULT) > 0)
            return buf;
        return NULL;
    }
    if (k == 0 && H5Lexists(file, "machine", H5P_DEFAULT) > 0)
        return "machine";
    return NULL;
}

size_t bl_h5_count_nodes(hid_t file)
{
    char buf[64];
    size_t n = 0;
    while (bl_h5_node_object(file, n, buf, sizeof buf))
        n++;
    return n;
}

static void read_machine_at(hid_t file, const char *path, bl_h5_machine *m)
{
    hid_t g = H5Gopen2(file, path, H5P_DEFAULT);
    memset(m, 0, sizeof *m);
    if (g < 0)
        return;
    bl_h5_attrs_read(g, &bl_h5_machine_attrs, m);
    m->topology_xml = bl_h5_string_read(g, "topology_xml");
    H5Gclose(g);
}

int bl_h5_read_node(hid_t file, size_t k, bl_h5_machine *m, bl_err *err)
{
    char buf[64];
    const char *path = bl_h5_node_object(file, k, buf, sizeof buf);
    memset(m, 0, sizeof *m);
    if (!path)
        return bl_err_set(err, "no machine record /nodes/%zu", k);
    read_machine_at(file, path, m);
    return 0;
}

int bl_h5_read_nodes(hid_t file, bl_h5_machine **m, size_t *n, bl_err *err)
{
    size_t count = bl_h5_count_nodes(file);
    *n = 0;
    if (!(*m = calloc(count + 1, sizeof **m)))
        return bl_err_set(err, "out of memory reading /nodes");
    for (size_t k = 0; k < count; k++)
        if (bl_h5_read_node(file, k, &(*m)[k], err) < 0) {
            bl_h5_nodes_free(*m, k);
            *m = NULL;
            return -1;
        }
    *n = count;
    return 0;
}

/* Where node k's topology_xml is stored: the same bytes for two nodes
 * whose XML is one dataset under two names (bl_h5_write_nodes' links). */
typedef struct xml_where {
    unsigned char id[16];
} xml_where;

static int xml_dataset(hid_t file, const char *node, xml_where *w)
{
    char path[96];
    memset(w, 0, sizeof *w);
    snprintf(path, sizeof path, "%s/topology_xml", node);
#if H5_VERSION_GE(1, 12, 0)
    H5O_info2_t info;
    if (H5Oget_info_by_name3(file, path, &info, H5O_INFO_BASIC,
                             H5P_DEFAULT) < 0)
        return -1;
    memcpy(w->id, &info.token, sizeof info.token < sizeof w->id
                                   ? sizeof info.token : sizeof w->id);
#else
    H5O_info_t info;
    if (H5Oget_info_by_name2(file, path, &info, H5O_INFO_BASIC,
                             H5P_DEFAULT) < 0)
        return -1;
    memcpy(w->id, &info.addr, sizeof info.addr);
#endif
    return 0;
}

/* Node k's topology: an earlier node's (same dataset, or same text: a
 * file whose writer did not link them), else its own XML read. */
static void shared_topology(hid_t file, const char *node, bl_h5_machine *m,
                            size_t k, xml_where *where, uint64_t *digest,
                            int *topo_of)
{
    int linked = xml_dataset(file, node, &where[k]) == 0;
    hid_t g;
    topo_of[k] = (int)k;
    for (size_t j = 0; linked && j < k; j++)
        if (topo_of[j] == (int)j &&
            memcmp(where[j].id, where[k].id, sizeof where[k].id) == 0) {
            topo_of[k] = (int)j;
            return;
        }
    if ((g = H5Gopen2(file, node, H5P_DEFAULT)) < 0)
        return;
    m[k].topology_xml = bl_h5_string_read(g, "topology_xml");
    H5Gclose(g);
    digest[k] = bl_h5_topology_digest(m[k].topology_xml);
    for (size_t j = 0; j < k; j++)
        if (topo_of[j] == (int)j && digest[j] == digest[k] &&
            strcmp(m[j].topology_xml ? m[j].topology_xml : "",
                   m[k].topology_xml ? m[k].topology_xml : "") == 0) {
            free(m[k].topology_xml);
            m[k].topology_xml = NULL;
            topo_of[k] = (int)j;
            return;
        }
}

int bl_h5_read_nodes_shared(hid_t file, bl_h5_machine **m, size_t *n,
                            int **topo_of, bl_err *err)
{
    size_t count = bl_h5_count_nodes(file);
    xml_where *where = calloc(count + 1, sizeof *where);
    uint64_t *digest = calloc(count + 1, sizeof *digest);
    *n = 0;
    *m = calloc(count + 1, sizeof **m);
    *topo_of = calloc(count + 1, sizeof **topo_of);
    if (!where || !digest || !*m || !*topo_of) {
        free(where);
        free(digest);
        free(*m);
        free(*topo_of);
        *m = NULL;
        *topo_of = NULL;
        return bl_err_set(err, "out of memory reading /nodes");
    }
    for (size_t k = 0; k < count; k++) {
        char buf[64];
        const char *path = bl_h5_node_object(file, k, buf, sizeof buf);
        hid_t g = path ? H5Gopen2(file, path, H5P_DEFAULT) : -1;
        if (g >= 0) {
            bl_h5_attrs_read(g, &bl_h5_machine_attrs, &(*m)[k]);
            H5Gclose(g);
            shared_topology(file, path, *m, k, where, digest, *topo_of);
        } else {
            (*topo_of)[k] = (int)k;
        }
    }
    free(where);
    free(digest);
    /* HDF5 keeps what it freed for reuse (free lists): 10,000 nodes'
     * attributes would stay in the process as tens of MB; a few nodes'
     * are not worth the collection (a merge of 10,000 one-node files
     * reads them once a file) */
    if (count > 64)
        H5garbage_collect();
    *n = count;
    return 0;
}

void bl_h5_nodes_free(bl_h5_machine *m, size_t n)
{
    for (size_t k = 0; m && k < n; k++)
        bl_h5_machine_free(&m[k]);
    free(m);
}

int bl_h5_read_machine(hid_t file, bl_h5_machine *m, bl_err *err)
{
    memset(m, 0, sizeof *m);
    if (H5Lexists(file, "machine", H5P_DEFAULT) <= 0)
        return bl_err_set(err, "no /machine group (not a bindlab file?)");
    read_machine_at(file, "machine", m);
    return 0;
}

void bl_h5_machine_free(bl_h5_machine *m)
{
    bl_h5_attrs_free(&bl_h5_machine_attrs, m);
    free(m->topology_xml);
    memset(m, 0, sizeof *m);
}

/* FNV-1a, 64 bits: not cryptographic, only to tell topologies apart
 * without comparing kilobytes of XML for every input of a merge. */
uint64_t bl_h5_topology_digest(const char *xml)
{
    uint64_t h = 14695981039346656037ULL;
    for (const unsigned char *p = (const unsigned char *)(xml ? xml : "");
         *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    return h;
}

static char *dup0(const char *s)
{
    return strdup(s ? s : "");
}

int bl_h5_node_key_of(const bl_h5_machine *m, bl_h5_node_key *k)
{
    k->hostname = dup0(m->hostname);
    k->cpu_model = dup0(m->cpu_model);
    k->mpi_library_version = dup0(m->mpi_library_version);
    k->kernel_release = dup0(m->kernel_release);
    k->topology_digest = bl_h5_topology_digest(m->topology_xml);
    if (!k->hostname || !k->cpu_model || !k->mpi_library_version ||
        !k->kernel_release) {
        bl_h5_node_key_free(k);
        return -1;
    }
    return 0;
}

int bl_h5_node_key_eq(const bl_h5_node_key *a, const bl_h5_node_key *b)
{
    return a->topology_digest == b->topology_digest &&
           strcmp(a->hostname, b->hostname) == 0 &&
           strcmp(a->cpu_model, b->cpu_model) == 0 &&
           strcmp(a->mpi_library_version, b->mpi_library_version) == 0 &&
           strcmp(a->kernel_release, b->kernel_release) == 0;
}

void bl_h5_node_key_free(bl_h5_node_key *k)
{
    free(k->hostname);
    free(k->cpu_model);
    free(k->mpi_library_version);
    free(k->kernel_release);
    memset(k, 0, sizeof *k);
}

void bl_h5_machine_topology(bl_h5_machine *m, hwloc_topology_t topo)
{
    bl_topo_counts c;
    m->topology_xml = bl_topo_xml_strdup(topo);
    bl_topo_counts_get(topo, &c);
    m->packages = c.packages;
    m->numa_nodes = c.numa_nodes;
    m->l3_domains = c.l3_domains;
    m->cores = c.cores;
    m->pus = c.pus;
}
