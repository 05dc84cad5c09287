/* The nodes of a run (app_nodes.h): hosts by name, one machine record per
 * node sent to rank 0 as packed bytes, the kernel's traffic sorted into
 * this node and the others. */
#include "app_nodes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_machine.h"
#include "measure/placement.h"

#define TAG_MACHINE_LEN 0x6d6c
#define TAG_MACHINE 0x6d6d

int bl_app_nodes_find(MPI_Comm comm, bl_app_nodes *nodes, bl_err *err)
{
    char mine[BL_HOST_MAX] = "", *all;
    int rank, nranks, ok;

    memset(nodes, 0, sizeof *nodes);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    gethostname(mine, sizeof mine - 1);
    all = malloc((size_t)nranks * BL_HOST_MAX);
    nodes->node_of = calloc((size_t)nranks, sizeof *nodes->node_of);
    nodes->leader = calloc((size_t)nranks, sizeof *nodes->leader);
    ok = all && nodes->node_of && nodes->leader;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    if (!ok) {
        free(all);
        bl_app_nodes_free(nodes);
        return bl_err_set(err, "rank %d: out of memory for the hosts of %d "
                          "ranks", rank, nranks);
    }
    MPI_Allgather(mine, BL_HOST_MAX, MPI_CHAR, all, BL_HOST_MAX, MPI_CHAR,
                  comm);
    /* Each rank's node is the first rank with the same name: every rank
     * numbers the nodes alike, rank 0's first. O(ranks x nodes). */
    for (int q = 0; q < nranks; q++) {
        const char *h = all + (size_t)q * BL_HOST_MAX;
        int k = 0;
        while (k < nodes->n &&
               strncmp(all + (size_t)nodes->leader[k] * BL_HOST_MAX, h,
                       BL_HOST_MAX) != 0)
            k++;
        if (k == nodes->n)
            nodes->leader[nodes->n++] = q;
        nodes->node_of[q] = k;
    }
    nodes->mine = nodes->node_of[rank];
    free(all);
    return 0;
}

void bl_app_nodes_free(bl_app_nodes *nodes)
{
    free(nodes->node_of);
    free(nodes->leader);
    memset(nodes, 0, sizeof *nodes);
}

/* ---- machine records travel as bytes: the integers, then the strings
 * one after the other, each with its NUL ------------------------------- */

#define MACHINE_STRINGS(X)                                                   \
    X(hostname) X(cpu_model) X(mpi_library_version) X(compiler)             \
    X(omp_runtime) X(kernel_release) X(topology_xml) X(virtualization)     \
    X(isa_levels)
#define MACHINE_INTS(X)                                                      \
    X(packages) X(numa_nodes) X(l3_domains) X(cores) X(pus) X(numa_balancing)
#define COUNT(x) +1
enum { NINTS = 0 MACHINE_INTS(COUNT) };

static char *pack_machine(const bl_h5_machine *m, size_t *len)
{
    int ints[NINTS], i = 0;
    size_t n = sizeof ints;
    char *buf, *p;
#define INT_IN(x) ints[i++] = m->x;
    MACHINE_INTS(INT_IN)
#undef INT_IN
#define STR_LEN(x) n += strlen(m->x ? m->x : "") + 1;
    MACHINE_STRINGS(STR_LEN)
#undef STR_LEN
    if (!(buf = malloc(n)))
        return NULL;
    memcpy(buf, ints, sizeof ints);
    p = buf + sizeof ints;
#define STR_IN(x)                                                            \
    {                                                                        \
        size_t l = strlen(m->x ? m->x : "") + 1;                             \
        memcpy(p, m->x ? m->x : "", l);                                      \
        p += l;                                                              \
    }
    MACHINE_STRINGS(STR_IN)
#undef STR_IN
    *len = n;
    return buf;
}

/* -1 when buf is not a whole record (every string NUL-terminated within
 * len) or memory runs out; m is then freed. */
static int unpack_machine(const char *buf, size_t len, bl_h5_machine *m)
{
    int ints[NINTS], i = 0, bad = 0;
    const char *p = buf + sizeof ints, *end = buf + len;
    memset(m, 0, sizeof *m);
    if (len < sizeof ints)
        return -1;
    memcpy(ints, buf, sizeof ints);
#define INT_OUT(x) m->x = ints[i++];
    MACHINE_INTS(INT_OUT)
#undef INT_OUT
#define STR_OUT(x)                                                           \
    if (!bad) {                                                              \
        const char *nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL; \
        if (!nul || !(m->x = strdup(p)))                                     \
            bad = 1;                                                         \
        else                                                                 \
            p = nul + 1;                                                     \
    }
    MACHINE_STRINGS(STR_OUT)
#undef STR_OUT
    if (bad)
        bl_h5_machine_free(m);
    return bad ? -1 : 0;
}

/* A node's leader (not rank 0): its record, length first. A record that
 * could not be built goes as length 0, so rank 0 never waits for it. */
static void send_machine(MPI_Comm comm, hwloc_topology_t topo)
{
    bl_h5_machine m;
    size_t len = 0;
    char *buf;
    int n;
    bl_machine_describe(topo, &m);
    buf = pack_machine(&m, &len);
    bl_h5_machine_free(&m);
    n = buf && len <= (size_t)INT32_MAX ? (int)len : 0;
    MPI_Send(&n, 1, MPI_INT, 0, TAG_MACHINE_LEN, comm);
    if (n > 0)
        MPI_Send(buf, n, MPI_BYTE, 0, TAG_MACHINE, comm);
    free(buf);
}

static int recv_machine(MPI_Comm comm, int from, bl_h5_machine *m)
{
    char *buf;
    int n = 0, rc;
    MPI_Recv(&n, 1, MPI_INT, from, TAG_MACHINE_LEN, comm, MPI_STATUS_IGNORE);
    if (n <= 0)
        return -1;
    buf = malloc((size_t)n);
    if (!buf) {
        /* matched all the same (truncated to nothing), so that the leader
         * is not left in its send; the run file then lacks this node */
        char sink;
        MPI_Errhandler was;
        MPI_Comm_get_errhandler(comm, &was);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        MPI_Recv(&sink, 0, MPI_BYTE, from, TAG_MACHINE, comm,
                 MPI_STATUS_IGNORE);
        MPI_Comm_set_errhandler(comm, was);
        MPI_Errhandler_free(&was);
        return -1;
    }
    MPI_Recv(buf, n, MPI_BYTE, from, TAG_MACHINE, comm, MPI_STATUS_IGNORE);
    rc = unpack_machine(buf, (size_t)n, m);
    free(buf);
    return rc;
}

int bl_app_nodes_machines(MPI_Comm comm, const bl_app_nodes *nodes,
                          hwloc_topology_t topo, bl_h5_machine **m,
                          bl_err *err)
{
    int rank, rc = 0;
    MPI_Comm_rank(comm, &rank);
    *m = NULL;
    if (rank != 0) {
        if (nodes->leader[nodes->mine] == rank)
            send_machine(comm, topo);
        return 0;
    }
    *m = calloc((size_t)nodes->n + 1, sizeof **m);
    if (*m)
        bl_machine_describe(topo, &(*m)[0]);
    /* every leader's record is received even when one fails, so that no
     * leader is left in a send */
    for (int k = 1; k < nodes->n; k++) {
        bl_h5_machine tmp;
        if (recv_machine(comm, nodes->leader[k], &tmp) < 0) {
            rc = bl_err_set(err, "the machine record of node %d (rank %d) "
                            "did not arrive whole", k, nodes->leader[k]);
            continue;
        }
        if (*m)
            (*m)[k] = tmp;
        else
            bl_h5_machine_free(&tmp);
    }
    if (!*m)
        rc = bl_err_set(err, "the machine records on rank 0: out of memory");
    if (rc < 0) {
        bl_h5_nodes_free(*m, *m ? (size_t)nodes->n : 0);
        *m = NULL;
    }
    return rc;
}

/* ---- traffic --------------------------------------------------------- */

/* bytes, messages and peers per step: [0] same node, [1] other nodes */
typedef struct traffic_sums {
    double bytes[2], messages[2], peers[2];
} traffic_sums;

static void sum_traffic(const bl_app_nodes *nodes, int nranks,
                        const bl_peer_traffic *t, size_t n, traffic_sums *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < n; i++) {
        int other;
        if (t[i].peer < 0 || t[i].peer >= nranks)
            continue;
        other = nodes->node_of[t[i].peer] != nodes->mine;
        s->bytes[other] += t[i].bytes;
        s->messages[other] += t[i].messages;
        s->peers[other] += t[i].bytes > 0 || t[i].messages > 0;
    }
}

int bl_app_nodes_traffic(MPI_Comm comm, const bl_app_nodes *nodes,
                         const bl_kernel *k, bl_kernel_ctx *ctx,
                         bl_h5_run *r, bl_err *err)
{
    bl_peer_traffic *mine;
    traffic_sums s, *all = NULL;
    int rank, nranks, ok = 1;
    size_t n = 0;
    if (!k->traffic)
        return 0; /* the same kernel on every rank: none of them calls MPI */
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    mine = calloc((size_t)nranks, sizeof *mine);
    if (mine)
        n = k->traffic(ctx, mine, (size_t)nranks);
    if (n > (size_t)nranks)
        n = (size_t)nranks;
    sum_traffic(nodes, nranks, mine ? mine : NULL, mine ? n : 0, &s);
    free(mine);
    if (rank == 0) {
        all = calloc((size_t)nranks, sizeof *all);
        r->traffic = calloc((size_t)nranks + 1, sizeof *r->traffic);
        ok = all && r->traffic;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok)
        MPI_Gather(&s, (int)sizeof s, MPI_BYTE, all, (int)sizeof s, MPI_BYTE,
                   0, comm);
    if (rank == 0 && ok) {
        for (int q = 0; q < nranks; q++) {
            bl_h5_traffic *t = &r->traffic[q];
            t->rank = q;
            t->node = nodes->node_of[q];
            t->bytes_same_node = all[q].bytes[0];
            t->bytes_other_nodes = all[q].bytes[1];
            t->messages_same_node = all[q].messages[0];
            t->messages_other_nodes = all[q].messages[1];
            t->peers_same_node = (int32_t)all[q].peers[0];
            t->peers_other_nodes = (int32_t)all[q].peers[1];
        }
        r->ntraffic = (size_t)nranks;
    }
    free(all);
    if (rank == 0 && !ok) {
        free(r->traffic);
        r->traffic = NULL;
        return bl_err_set(err, "recording the traffic on rank 0: out of "
                          "memory");
    }
    return 0;
}
