/* Layouts across nodes: the nodes key, its per-node validation arithmetic
 * (worked out by hand in each case), the launchers' options for it (mpirun
 * --host, srun -N), the allocation's host list from scontrol, and what a
 * batch job needs for a sweep whose layouts name their nodes. */
#include "bl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "launcher/layout_hydra.h"
#include "plan/plan_ranks.h"
#include "slurm/slurm.h"
#include "slurm/slurm_alloc.h"
#include "sweep/sweep_file.h"
#include "topo.h"

/* Each node: 1 package, 2 cores, 1 PU each (as the test cluster's). */
#define NODE_TOPO "pack:1 l3:1 numa:1 core:2 pu:1"

static hwloc_topology_t topo(void)
{
    hwloc_topology_t t;
    bl_err err;
    assert_int_equal(bl_topo_load(NODE_TOPO, &t, &err), 0);
    return t;
}

static bl_layout make(int np, int nodes, const char *map, const char *threads)
{
    bl_layout l;
    bl_err err;
    char buf[16];
    bl_layout_defaults(&l);
    snprintf(buf, sizeof buf, "%d", np);
    assert_int_equal(bl_layout_set(&l, BL_F_NP, buf, &err), 0);
    if (nodes) {
        snprintf(buf, sizeof buf, "%d", nodes);
        assert_int_equal(bl_layout_set(&l, BL_F_NODES, buf, &err), 0);
    }
    assert_int_equal(bl_layout_set(&l, BL_F_MAP_BY, map, &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_THREADS, threads, &err), 0);
    return l;
}

static int validate(bl_layout l, bl_layout_check *c, bl_err *err)
{
    hwloc_topology_t t = topo();
    int rc = bl_layout_validate(&l, t, 0, c, err);
    hwloc_topology_destroy(t);
    return rc;
}

static void nodes_key_is_checked_and_labelled(void **state)
{
    bl_layout l;
    bl_err err;
    char text[16];
    (void)state;
    bl_layout_defaults(&l);
    assert_int_equal(bl_layout_set(&l, BL_F_NODES, "0", &err), -1);
    assert_string_equal(err.msg, "nodes '0': accepted: a whole number of "
                                 "nodes, 1 or more");
    assert_int_equal(bl_layout_set(&l, BL_F_NODES, "two", &err), -1);
    assert_string_equal(bl_field_key(BL_F_NODES), "nodes");
    bl_layout_field_text(&l, BL_F_NODES, text, sizeof text);
    assert_string_equal(text, ""); /* not given */
    l = make(4, 2, "ppr:2:node", "1");
    bl_layout_field_text(&l, BL_F_NODES, text, sizeof text);
    assert_string_equal(text, "2");
    bl_layout_make_label(&l, "stencil");
    assert_string_equal(l.label, "stencil np4 nodes=2 map=ppr:2:node "
                                 "bind=core places=unset proc_bind=unset "
                                 "t=1 init=parallel");
    /* a layout without nodes keeps its one-node label */
    l = make(2, 0, "core", "1");
    bl_layout_make_label(&l, "triad");
    assert_string_equal(l.label, "triad np2 map=core bind=core places=unset "
                                 "proc_bind=unset t=1 init=parallel");
}

/* Each row: a layout on the 2-core nodes and the verdict worked out by
 * hand (rc; the message when refused; the PUs per rank and threads when
 * given, 0 for not checked). */
static const struct {
    int np, nodes;
    const char *map, *threads;
    int rc;
    const char *msg;
    int pus_per_rank, nthreads;
} validations[] = {
    /* 4 ranks on 2 nodes of 2 cores: 2 per node, fits; on 1 node it would not */
    {4, 2, "core", "1", 0, NULL, 0, 0},
    {4, 0, "core", "1", -1, NULL, 0, 0},
    /* 5 over 2 nodes: ceil(5/2) = 3 on the busiest, 3 > 2 cores */
    {5, 2, "node", "1", -1,
     "np 5 over 2 nodes = 3 per node: np 3 needs 3 slots, but this node has 2 "
     "(one per core; add oversubscribe to share cores)", 0, 0},
    /* ppr:1:node x 2 nodes = 2 ranks < np 3 */
    {3, 2, "ppr:1:node", "1", -1,
     "map_by 'ppr:1:node': 1 per node x 2 nodes = 2 ranks, but np is 3", 0, 0},
    /* ppr:2:node on 3 nodes: 2 per node, 6 ranks, each node's 2 cores */
    {6, 3, "ppr:2:node", "1", 0, NULL, 1, 0},
    /* ppr:1:node with 2 threads filling the node: 1 rank x 2 PUs each */
    {2, 2, "ppr:1:node:PE=2", "fill", 0, NULL, 0, 2},
    /* ppr:3:node: 3 ranks on one node of 2 cores */
    {6, 2, "ppr:3:node", "1", -1,
     "np 6 over 2 nodes = 3 per node: map_by 'ppr:3:node': 3 ranks x 1 core = "
     "3 cores on one node, but it has 2 (add oversubscribe to share cores)",
     0, 0},
    /* more nodes than ranks */
    {1, 2, "core", "1", -1,
     "np 1 on nodes 2: 1 node would get no rank (give np 2 or more, or fewer "
     "nodes)", 0, 0},
};

static void validation_counts_ranks_per_node(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof validations / sizeof validations[0]; i++) {
        bl_layout_check c;
        bl_err err;
        int rc;
        print_message("np %d nodes %d map %s\n", validations[i].np,
                      validations[i].nodes, validations[i].map);
        rc = validate(make(validations[i].np, validations[i].nodes,
                           validations[i].map, validations[i].threads),
                      &c, &err);
        assert_int_equal(rc, validations[i].rc);
        if (validations[i].msg)
            assert_string_equal(err.msg, validations[i].msg);
        if (validations[i].pus_per_rank)
            assert_int_equal(c.pus_per_rank, validations[i].pus_per_rank);
        if (validations[i].nthreads)
            assert_int_equal(c.threads, validations[i].nthreads);
    }
}

static bl_kernel_spec kspec(void)
{
    bl_kernel_spec k = {0};
    strcpy(k.name, "stencil");
    strcpy(k.label, "stencil");
    return k;
}

static void launchers_get_the_nodes(void **state)
{
    bl_layout l = make(4, 2, "ppr:2:node", "1");
    bl_kernel_spec k = kspec();
    bl_layout_argv_opts o = {.app = "app", .out_file = "o.h5", .threads = 1,
                             .pus_per_rank = 1, .hosts = "bl1:2,bl2:2"};
    bl_err err;
    char **argv;
    (void)state;
    assert_int_equal(bl_layout_translate(&l, 4, 1, &err), 0);
    argv = bl_layout_mpirun_argv(&l, &k, &o, &err);
    assert_non_null(argv);
    assert_string_equal(argv[1], "-np");
    assert_string_equal(argv[2], "4");
    assert_string_equal(argv[3], "--host");
    assert_string_equal(argv[4], "bl1:2,bl2:2");
    assert_string_equal(argv[5], "--map-by");
    assert_string_equal(argv[6], "ppr:2:node");
    bl_argv_free(argv);
    argv = bl_layout_srun_argv(&l, &k, &o, &err);
    assert_non_null(argv);
    /* srun --mpi=pmix -n 4 -N 2 -c 1 ... --ntasks-per-node=2 */
    assert_string_equal(argv[2], "-n");
    assert_string_equal(argv[3], "4");
    assert_string_equal(argv[4], "-N");
    assert_string_equal(argv[5], "2");
    int per_node = 0;
    for (char **a = argv; *a; a++)
        per_node |= !strcmp(*a, "--ntasks-per-node=2");
    assert_true(per_node);
    bl_argv_free(argv);
    /* no nodes key, no hosts: no -N, no --host */
    l = make(2, 0, "core", "1");
    o.hosts = NULL;
    assert_int_equal(bl_layout_translate(&l, 4, 1, &err), 0);
    argv = bl_layout_srun_argv(&l, &k, &o, &err);
    for (char **a = argv; *a; a++)
        assert_string_not_equal(*a, "-N");
    bl_argv_free(argv);
    argv = bl_layout_mpirun_argv(&l, &k, &o, &err);
    for (char **a = argv; *a; a++)
        assert_string_not_equal(*a, "--host");
    bl_argv_free(argv);
}

/* argv of the launcher li for l on the 2-core nodes, hosts "bl1,bl2",
 * joined by spaces from -hosts to the first -genv; "" when refused (the
 * reason in why). */
static void hydra_line(bl_layout l, bl_launcher_kind kind, char *buf,
                       size_t len, char *why, size_t wlen)
{
    bl_launcher_info li = {0};
    bl_kernel_spec k = kspec();
    bl_layout_argv_opts o = {.app = "app", .out_file = "o.h5", .threads = 1,
                             .pus_per_rank = 1, .hosts = "bl1,bl2"};
    hwloc_topology_t t = topo();
    bl_err err;
    char **argv;
    size_t used = 0;
    li.kind = kind;
    buf[0] = why[0] = '\0';
    if (bl_layout_translate_for(&l, &li, t, &err) < 0) {
        snprintf(why, wlen, "%s", err.msg);
        hwloc_topology_destroy(t);
        return;
    }
    hwloc_topology_destroy(t);
    argv = bl_layout_hydra_argv(&l, &k, &o, &li, &err);
    assert_non_null(argv);
    for (char **a = argv; *a && strcmp(*a, "-genv") != 0; a++)
        if (strcmp(*a, "env") && strcmp(*a, "HYDRA_TOPO_DEBUG=1") &&
            strcmp(*a, "mpiexec"))
            used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                     used ? " " : "", *a);
    /* Intel MPI's pinning variables: the first two -genv pairs */
    for (char **a = argv; kind == BL_LAUNCHER_INTELMPI && *a; a++)
        if (!strcmp(*a, "-genv") && !strncmp(a[1], "I_MPI_PIN", 9))
            used += (size_t)snprintf(buf + used, len - used, " %s=%s", a[1],
                                     a[2]);
    bl_argv_free(argv);
}

/* Lines written from docs/launchers.md's nodes rows (2 nodes of 2
 * cores): ppr:K:node is -ppn K, map_by node -ppn 1 (Hydra's round robin
 * over hosts of one rank each), any other mapping -ppn 2 (a node's cores
 * filled before the next, as Open MPI's --host H:2). A refused layout has
 * no line and a reason that contains why. */
static const struct {
    int np, nodes;
    const char *map, *threads;
    bl_launcher_kind kind;
    const char *line, *why;
} hydra_lines[] = {
    {4, 2, "ppr:2:node", "1", BL_LAUNCHER_MPICH,
     "-l -hosts bl1,bl2 -np 4 -ppn 2 -bind-to core -map-by core", NULL},
    {4, 2, "node", "1", BL_LAUNCHER_MPICH,
     "-l -hosts bl1,bl2 -np 4 -ppn 1 -bind-to core -map-by core", NULL},
    {3, 2, "core", "1", BL_LAUNCHER_MPICH,
     "-l -hosts bl1,bl2 -np 3 -ppn 2 -bind-to core -map-by core", NULL},
    {2, 2, "ppr:1:node:PE=2", "2", BL_LAUNCHER_MPICH,
     "-l -hosts bl1,bl2 -np 2 -ppn 1 -bind-to core:2 -map-by core:2", NULL},
    {4, 2, "ppr:2:node", "1", BL_LAUNCHER_INTELMPI,
     "-bootstrap slurm -hosts bl1,bl2 -np 4 -ppn 2 I_MPI_PIN_DOMAIN=core "
     "I_MPI_PIN_ORDER=compact", NULL},
    {4, 2, "node", "1", BL_LAUNCHER_INTELMPI,
     "-bootstrap slurm -hosts bl1,bl2 -np 4 -ppn 1 I_MPI_PIN_DOMAIN=core "
     "I_MPI_PIN_ORDER=compact", NULL},
    /* refused, with the reason: PE over nodes without ppr, ppr below the
     * node, map_by node on no nodes */
    {2, 2, "core:PE=2", "2", BL_LAUNCHER_MPICH, "", "give ppr:N:node:PE=2"},
    {2, 2, "ppr:1:package", "1", BL_LAUNCHER_INTELMPI, "", "no ppr over package"},
    {2, 0, "node", "1", BL_LAUNCHER_MPICH, "", "give nodes"},
};

static void hydra_and_impi_spell_nodes(void **state)
{
    char line[512], why[1100];
    (void)state;
    for (size_t i = 0; i < sizeof hydra_lines / sizeof hydra_lines[0]; i++) {
        print_message("np %d nodes %d map %s launcher %d\n", hydra_lines[i].np,
                      hydra_lines[i].nodes, hydra_lines[i].map,
                      (int)hydra_lines[i].kind);
        hydra_line(make(hydra_lines[i].np, hydra_lines[i].nodes,
                        hydra_lines[i].map, hydra_lines[i].threads),
                   hydra_lines[i].kind, line, sizeof line, why, sizeof why);
        assert_string_equal(line, hydra_lines[i].line);
        if (hydra_lines[i].why)
            assert_non_null(strstr(why, hydra_lines[i].why));
        else
            assert_string_equal(why, "");
    }
}

static void allocation_hosts_from_scontrol(void **state)
{
    bl_slurm_alloc a;
    bl_err err;
    char buf[64];
    (void)state;
    assert_int_equal(bl_slurm_alloc_parse("bl1\nbl2\nnode-03.site\n", &a, &err), 0);
    assert_int_equal(a.n, 3);
    assert_string_equal(a.hosts[2], "node-03.site");
    assert_int_equal(bl_slurm_alloc_host_list(&a, 2, 4, buf, sizeof buf, &err), 0);
    assert_string_equal(buf, "bl1:4,bl2:4");
    assert_int_equal(bl_slurm_alloc_host_list(&a, 4, 4, buf, sizeof buf, &err), -1);
    assert_string_equal(err.msg, "nodes 4, but this Slurm allocation has 3 "
                                 "(bl1, ...); ask for 4 (salloc -N 4, or "
                                 "bindlab slurm --nodes 4)");
    assert_int_equal(bl_slurm_alloc_host_list(&a, 3, 4, buf, 12, &err), -1);
    bl_slurm_alloc_free(&a);
    /* a name that would change the meaning of --host */
    assert_int_equal(bl_slurm_alloc_parse("bl1\nbl2,bl3\n", &a, &err), -1);
    assert_string_equal(err.msg, "scontrol show hostnames: 'bl2,bl3' is not a "
                                 "host name (letters, digits, '.', '-', '_')");
    assert_int_equal(a.n, 0);
    /* not in an allocation: nothing to run */
    assert_int_equal(bl_slurm_alloc_read(NULL, "/nonexistent/scontrol", &a, &err), 0);
    assert_int_equal(a.n, 0);
    /* scontrol missing: an error naming the node list */
    assert_int_equal(bl_slurm_alloc_read("bl[1-2]", "/nonexistent/scontrol", &a,
                                         &err), -1);
    assert_non_null(strstr(err.msg, "SLURM_JOB_NODELIST 'bl[1-2]'"));
}

static void batch_job_takes_the_layouts_nodes(void **state)
{
    static const char yaml[] =
        "name: n\n"
        "kernels: [{name: stencil}]\n"
        "layouts:\n"
        "  - {name: one, np: 2, map_by: core}\n"
        "  - {name: spread, np: 3, nodes: 3, map_by: ppr:1:node}\n"
        "  - {name: pairs, np: 4, nodes: 2, map_by: ppr:2:node}\n";
    bl_sweep s;
    bl_slurm_needs n;
    bl_err err;
    hwloc_topology_t t = topo();
    (void)state;
    assert_int_equal(bl_sweep_file_load_string(yaml, "n.yaml", &s, &err), 0);
    assert_int_equal(bl_slurm_needs_compute(&s, t, 1, 0, &n, &err), 0);
    /* the widest layout names 3 nodes; "pairs" puts 2 ranks on a node,
     * and so does "one" (no nodes key: on the --nodes asked, 1) */
    assert_int_equal(n.nodes, 3);
    assert_int_equal(n.ntasks_per_node, 2);
    assert_int_equal(n.nruns, 3);
    hwloc_topology_destroy(t);
    bl_sweep_free(&s);
}

/* Ranks per node counted from each node's own counts, by hand: a 2x EPYC
 * 7763 (128 cores), a 2x Xeon E5-2680 v3 (24 cores), a 1-package node of
 * 4 cores. Each row: a layout over the first `nodes` of them and the
 * ranks each gets. */
static const struct {
    int np, nodes;
    const char *map;
    int ranks[3];
} node_ranks[] = {
    /* ppr:K:node: K on each in turn */
    {64, 2, "ppr:32:node", {32, 32}},
    {40, 2, "ppr:32:node", {32, 8}},
    /* round robin by node: 7 = 3 + 2 + 2, whatever the shapes */
    {7, 3, "node", {3, 2, 2}},
    /* by core: node 0's 128 slots first, the rest on node 1 */
    {140, 2, "core", {128, 12}},
    {20, 2, "core", {20, 0}},
    /* PE=4: 128 / 4 = 32 ranks, then 24 / 4 = 6 (4 wanted) */
    {36, 2, "package:PE=4", {32, 4}},
    /* ppr:4:package: 8 on a 2-package node, 4 on the 1-package one */
    {20, 3, "ppr:4:package", {8, 8, 4}},
    /* more than 128 + 24: the 8 left dealt round robin (oversubscribed) */
    {160, 2, "core", {132, 28}},
    /* by hwthread: a slot per hwthread, 256 on node 0, then node 1's 48 */
    {300, 2, "hwthread", {256, 44}},
    {260, 3, "hwthread", {256, 4, 0}},
};

static void node_ranks_follow_each_nodes_shape(void **state)
{
    static const bl_topo_counts c[3] = {{2, 2, 16, 128, 256},
                                        {2, 2, 2, 24, 48},
                                        {1, 1, 1, 4, 4}};
    (void)state;
    for (size_t i = 0; i < sizeof node_ranks / sizeof node_ranks[0]; i++) {
        bl_layout l = make(node_ranks[i].np, node_ranks[i].nodes,
                           node_ranks[i].map, "1");
        int r[3] = {-1, -1, -1};
        print_message("np %d nodes %d map %s\n", node_ranks[i].np,
                      node_ranks[i].nodes, node_ranks[i].map);
        bl_layout_node_ranks(&l, c, node_ranks[i].nodes, r);
        for (int k = 0; k < node_ranks[i].nodes; k++)
            assert_int_equal(r[k], node_ranks[i].ranks[k]);
    }
}

/* Each node checked against its own topology; the message names it. */
static void each_node_checked_against_its_own(void **state)
{
    hwloc_topology_t big, small, t[2];
    const char *hosts[2] = {"bl1", "bl2"};
    bl_layout_check chk;
    bl_layout l;
    bl_err err;
    bl_slurm_alloc a;
    char buf[64];
    int slots[2] = {16, 4};
    (void)state;
    assert_int_equal(bl_topo_load("pack:2 core:8 pu:2", &big, &err), 0);
    assert_int_equal(bl_topo_load("pack:1 core:4 pu:1", &small, &err), 0);
    t[0] = big;
    t[1] = small;
    l = make(12, 2, "ppr:6:node", "1");
    assert_int_equal(bl_layout_validate_nodes(&l, t, hosts, 0, &chk, &err), -1);
    assert_string_equal(err.msg, "node bl2 (4 cores) with 6 of np 12 over 2 "
                        "nodes: map_by 'ppr:6:node': 6 ranks x 1 core = 6 "
                        "cores on one node, but it has 4 (add oversubscribe "
                        "to share cores)");
    t[1] = big;
    assert_int_equal(bl_layout_validate_nodes(&l, t, hosts, 0, &chk, &err), 0);
    /* fill: bl1's 16 cores, then 2 on bl2 (2 of its 4) */
    t[1] = small;
    l = make(18, 2, "core", "fill");
    assert_int_equal(bl_layout_validate_nodes(&l, t, hosts, 0, &chk, &err), 0);
    assert_int_equal(chk.threads, 2);  /* bl1 (rank 0's): 2 PUs per core */
    l = make(21, 2, "core", "1");
    assert_int_equal(bl_layout_validate_nodes(&l, t, hosts, 0, &chk, &err), -1);
    assert_string_equal(err.msg, "np 21 over 2 nodes, but they hold 20 ranks "
                        "with map_by 'core' (bl1 (16 cores): 16; bl2 (4 "
                        "cores): 4); give a smaller np, more nodes, or "
                        "oversubscribe");
    assert_int_equal(bl_layout_validate_nodes(&l, t, hosts, 1, &chk, &err), 0);
    /* round robin: 5 each, one more than bl2's 4 cores */
    l = make(10, 2, "node", "1");
    assert_int_equal(bl_layout_validate_nodes(&l, t, hosts, 0, &chk, &err), -1);
    assert_non_null(strstr(err.msg, "node bl2 (4 cores) with 5 of np 10"));
    /* mpirun's --host with each node's own slots */
    assert_int_equal(bl_slurm_alloc_parse("bl1\nbl2\n", &a, &err), 0);
    assert_int_equal(bl_slurm_alloc_host_slots(&a, 2, slots, buf, sizeof buf,
                                               &err), 0);
    assert_string_equal(buf, "bl1:16,bl2:4");
    bl_slurm_alloc_free(&a);
    hwloc_topology_destroy(big);
    hwloc_topology_destroy(small);
}

/* Hydra's labelled output (MPICH 5.0.2, two plan nodes, -ppn 1 -np 3, cut
 * as fuzz/seeds/plan_nodes/hydra-ppn1): each proxy's "process L binding"
 * line becomes rank R's, and the PMI_HOSTNAME line names R's node. */
static const char hydra_ppn1[] =
    "[0] process 0 binding: 11000000\n[0] PMI_HOSTNAME=plan-node1\n"
    "[0] PMI_RANK=0\n[2] process 1 binding: 00110000\n"
    "[2] PMI_HOSTNAME=plan-node1\n[2] PMI_RANK=2\n"
    "[1] process 0 binding: 11000000\n[1] PMI_HOSTNAME=plan-node2\n"
    "[1] PMI_RANK=1\n";

static void hydra_report_names_each_ranks_node_and_binding(void **state)
{
    int rank_node[3];
    bl_err err;
    char *report;
    (void)state;
    report = bl_plan_ranks_hydra_nodes(hydra_ppn1, 2, 3, rank_node, &err);
    assert_non_null(report);
    assert_string_equal(report, "process 0 binding: 11000000\n"
                                "process 2 binding: 00110000\n"
                                "process 1 binding: 11000000\n");
    assert_int_equal(rank_node[0], 0);
    assert_int_equal(rank_node[1], 1);
    assert_int_equal(rank_node[2], 0);
    free(report);
    /* a rank with no PMI_HOSTNAME line: the error names it */
    assert_null(bl_plan_ranks_hydra_nodes(hydra_ppn1, 2, 4, (int[4]){0},
                                          &err));
    assert_non_null(strstr(err.msg, "rank 3 on none of the 2 nodes"));
}

/* More binding text than the report's first room (the fuzzer's find: a
 * line cut mid-word was left in it): every line is kept whole. */
static void hydra_report_keeps_every_long_binding_line(void **state)
{
    char text[4096], mask[385], *report, *p; /* 384 PUs */
    int rank_node[1], lines = 0;
    size_t used = 0;
    bl_err err;
    (void)state;
    memset(mask, '1', sizeof mask - 1);
    mask[sizeof mask - 1] = '\0';
    used += (size_t)snprintf(text, sizeof text, "[0] PMI_HOSTNAME=plan-node1\n");
    for (int i = 0; i < 6; i++)
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "[0] process 0 binding: %s\n", mask);
    report = bl_plan_ranks_hydra_nodes(text, 1, 1, rank_node, &err);
    assert_non_null(report);
    for (p = report; *p; lines++) {
        assert_int_equal(strncmp(p, "process 0 binding: ", 19), 0);
        assert_int_equal(strspn(p + 19, "1"), sizeof mask - 1);
        p += strcspn(p, "\n") + 1;
    }
    assert_int_equal(lines, 6);
    free(report);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest rules[] = {
        cmocka_unit_test(nodes_key_is_checked_and_labelled),
        cmocka_unit_test(validation_counts_ranks_per_node),
        cmocka_unit_test(launchers_get_the_nodes),
        cmocka_unit_test(hydra_and_impi_spell_nodes),
        cmocka_unit_test(allocation_hosts_from_scontrol),
        cmocka_unit_test(batch_job_takes_the_layouts_nodes),
        cmocka_unit_test(node_ranks_follow_each_nodes_shape),
        cmocka_unit_test(each_node_checked_against_its_own),
        cmocka_unit_test(hydra_report_names_each_ranks_node_and_binding),
        cmocka_unit_test(hydra_report_keeps_every_long_binding_line),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("rules", rules),
    };
    return bl_run_groups(argc, argv, groups);
}
