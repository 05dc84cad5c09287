/* Layouts: map_by parsing, field values, cross-product expansion and
 * exclude, validation arithmetic, Open MPI spelling, mpirun/srun argv, and
 * agreement of the validation with the installed mpirun on this node. */
#include "bl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "bindreport/bindreport.h"
#include "launcher/launcher_info.h"
#include "layout/layout.h"
#include "topo.h"

/* Synthetic nodes: this CI VM (1 package, 2 cores, 1 PU each), and a
 * two-socket SMT node: 2 NUMA nodes per package, 2 L3 domains per NUMA
 * node, 4 cores per L3, 2 PUs per core (4 NUMA, 8 L3, 32 cores, 64 PUs). */
#define VM_TOPO "pack:1 l3:1 numa:1 core:2 pu:1"
#define SMT_TOPO "pack:2 numa:2 l3:2 core:4 pu:2"
#define NO_L3_TOPO "pack:1 core:2 pu:1"

static hwloc_topology_t topo(const char *spec)
{
    hwloc_topology_t t;
    bl_err err;
    assert_int_equal(bl_topo_load(spec, &t, &err), 0);
    return t;
}

static bl_layout make(int np, const char *map, const char *bind, const char *threads)
{
    bl_layout l;
    bl_err err;
    char buf[16];
    bl_layout_defaults(&l);
    snprintf(buf, sizeof buf, "%d", np);
    assert_int_equal(bl_layout_set(&l, BL_F_NP, buf, &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_MAP_BY, map, &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_BIND_TO, bind, &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_THREADS, threads, &err), 0);
    return l;
}

/* --- map_by and field values ------------------------------------------- */

static void map_by_parses_ppr_with_pe(void **state)
{
    bl_mapby m;
    bl_err err;
    (void)state;
    assert_int_equal(bl_layout_parse_map_by("ppr:2:package:PE=4", &m, &err), 0);
    assert_int_equal(m.ppr, 2);
    assert_int_equal(m.res, BL_RES_PACKAGE);
    assert_int_equal(m.pe, 4);
    assert_int_equal(bl_layout_parse_map_by("socket:pe=3:oversubscribe", &m, &err), 0);
    assert_int_equal(m.res, BL_RES_PACKAGE);
    assert_int_equal(m.pe, 3);
    assert_int_equal(m.ppr, 0);
    assert_int_equal(m.oversubscribe, 1);
}

static void map_by_rejects_bad_values_naming_what_is_accepted(void **state)
{
    bl_mapby m;
    bl_err err;
    (void)state;
    assert_int_equal(bl_layout_parse_map_by("ppr:0:core", &m, &err), -1);
    assert_string_equal(err.msg, "map_by 'ppr:0:core': ppr needs a positive "
                                 "count, as in ppr:2:package");
    assert_int_equal(bl_layout_parse_map_by("ppr:2:slot", &m, &err), -1);
    assert_non_null(strstr(err.msg, "ppr resource must be"));
    assert_int_equal(bl_layout_parse_map_by("core:PE=0", &m, &err), -1);
    assert_non_null(strstr(err.msg, "PE= needs a positive"));
    assert_int_equal(bl_layout_parse_map_by("core:bogus", &m, &err), -1);
    assert_string_equal(err.msg, "map_by 'core:bogus': unknown modifier "
                                 "'bogus' (accepted: PE=n, oversubscribe, span)");
    assert_int_equal(bl_layout_parse_map_by("cores", &m, &err), -1);
    assert_non_null(strstr(err.msg, "accepted: hwthread, core"));
}

static void field_values_are_checked(void **state)
{
    bl_layout l;
    bl_err err;
    (void)state;
    bl_layout_defaults(&l);
    assert_int_equal(bl_layout_set(&l, BL_F_THREADS, "fill", &err), 0);
    assert_int_equal(l.threads, BL_THREADS_FILL);
    assert_int_equal(bl_layout_set(&l, BL_F_THREADS, "0", &err), -1);
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PLACES, "{0:4},{4:4}", &err), 0);
    assert_string_equal(l.omp_places, "{0:4},{4:4}");
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PLACES, "cores(4)", &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PLACES, "unset", &err), 0);
    assert_string_equal(l.omp_places, "");
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PLACES, "{0:4", &err), -1);
    assert_non_null(strstr(err.msg, "unbalanced braces"));
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PLACES, "{}", &err), -1);
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PLACES, "corez", &err), -1);
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PROC_BIND, "spread,close", &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PROC_BIND, "true,close", &err), -1);
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PROC_BIND, "close,", &err), -1);
    assert_int_equal(bl_layout_set(&l, BL_F_BIND_TO, "slot", &err), -1);
    assert_string_equal(err.msg, "bind_to 'slot': accepted: none, hwthread, "
                                 "core, l3cache, numa, package, socket");
    assert_int_equal(bl_layout_set(&l, BL_F_INIT, "lazy", &err), -1);
    assert_int_equal(bl_layout_set(&l, BL_F_TIMEOUT, "0", &err), -1);
    assert_int_equal(bl_layout_set(&l, BL_F_TIMEOUT, "2.5", &err), 0);
    assert_true(l.timeout_s == 2.5);
    /* retry: 0 (the default) to BL_RETRY_MAX (10) more launches */
    assert_int_equal(l.retry, 0);
    assert_int_equal(bl_layout_set(&l, BL_F_RETRY, "10", &err), 0);
    assert_int_equal(l.retry, 10);
    assert_int_equal(bl_layout_set(&l, BL_F_RETRY, "0", &err), 0);
    assert_int_equal(l.retry, 0);
    assert_int_equal(bl_layout_set(&l, BL_F_RETRY, "11", &err), -1);
    assert_string_equal(err.msg, "retry '11': accepted: 0 to 10 launches "
                                 "more for a run that dies before the app "
                                 "starts");
    assert_int_equal(bl_layout_set(&l, BL_F_RETRY, "-1", &err), -1);
    assert_int_equal(bl_layout_set(&l, BL_F_RETRY, "two", &err), -1);
    assert_int_equal(bl_layout_set(&l, BL_F_NP, "2x", &err), -1);
}

/* --- expansion --------------------------------------------------------- */

static char *np_vals[] = {"1", "2"};
static char *bind_vals[] = {"core", "none"};
static char *pb_vals[] = {"close", "spread"};

static void spec_init(bl_sweep_spec *s, bl_kernel_spec *k, int nk)
{
    memset(s, 0, sizeof *s);
    memset(k, 0, (size_t)nk * sizeof *k);
    strcpy(k[0].name, "triad");
    strcpy(k[0].label, "triad");
    if (nk > 1) {
        strcpy(k[1].name, "stencil");
        strcpy(k[1].label, "stencil");
    }
    s->kernels = k;
    s->nkernels = nk;
    s->file = "t.yaml";
    s->have_axes = 1;
    s->axes_line = 3;
    s->axes_col = 3;
    s->axes[BL_F_NP] = (bl_axis){np_vals, 2};
    s->axes[BL_F_BIND_TO] = (bl_axis){bind_vals, 2};
    s->axes[BL_F_OMP_PROC_BIND] = (bl_axis){pb_vals, 2};
}

static void expand_crosses_every_axis_and_kernel(void **state)
{
    bl_sweep_spec s;
    bl_kernel_spec k[2];
    bl_layout *v;
    int n;
    bl_err err;
    (void)state;
    spec_init(&s, k, 2);
    assert_int_equal(bl_layout_expand(&s, &v, &n, &err), 0);
    assert_int_equal(n, 16);
    /* The last field varies fastest, kernels slowest. */
    assert_string_equal(v[0].label, "triad np1 map=core bind=core "
                        "places=unset proc_bind=close t=1 init=parallel");
    assert_string_equal(v[1].omp_proc_bind, "spread");
    assert_string_equal(v[2].bind_to, "none");
    assert_int_equal(v[4].np, 2);
    assert_int_equal(v[8].kernel, 1);
    assert_string_equal(v[0].run_id, "r0000");
    assert_string_equal(v[15].run_id, "r0015");
    assert_int_equal(v[15].src_line, 3);
    free(v);
}

static void expand_drops_excluded_combinations(void **state)
{
    bl_sweep_spec s;
    bl_kernel_spec k[2];
    bl_partial ex[2];
    bl_layout *v;
    int n;
    bl_err err;
    (void)state;
    spec_init(&s, k, 2);
    memset(ex, 0, sizeof ex);
    ex[0].v[BL_F_BIND_TO] = "none";
    ex[0].v[BL_F_OMP_PROC_BIND] = "spread";
    ex[1].v[BL_F_KERNEL] = "stencil";
    ex[1].v[BL_F_NP] = "1";
    s.exclude = ex;
    s.nexclude = 2;
    assert_int_equal(bl_layout_expand(&s, &v, &n, &err), 0);
    /* 16 - 4 (none+spread, both kernels) - 4 (stencil np1) + 1 (both) */
    assert_int_equal(n, 9);
    for (int i = 0; i < n; i++) {
        assert_false(!strcmp(v[i].bind_to, "none") &&
                     !strcmp(v[i].omp_proc_bind, "spread"));
        assert_false(v[i].kernel == 1 && v[i].np == 1);
    }
    free(v);
}

static void expand_rejects_exclude_that_matches_nothing(void **state)
{
    bl_sweep_spec s;
    bl_kernel_spec k[1];
    bl_partial ex = {0};
    bl_layout *v;
    int n;
    bl_err err;
    (void)state;
    spec_init(&s, k, 1);
    ex.v[BL_F_NP] = "4";
    ex.line = 12;
    ex.col = 5;
    s.exclude = &ex;
    s.nexclude = 1;
    assert_int_equal(bl_layout_expand(&s, &v, &n, &err), -1);
    assert_string_equal(err.msg, "t.yaml:12:5: this exclude entry matches no "
                                 "layout of the sweep: check its keys and values");
}

static void expand_appends_explicit_layouts_and_rejects_duplicates(void **state)
{
    bl_sweep_spec s;
    bl_kernel_spec k[2];
    bl_partial lay[2];
    bl_layout *v;
    int n;
    bl_err err;
    (void)state;
    spec_init(&s, k, 2);
    memset(lay, 0, sizeof lay);
    strcpy(lay[0].name, "pe2");
    lay[0].v[BL_F_NP] = "1";
    lay[0].v[BL_F_MAP_BY] = "slot:PE=2";
    lay[0].v[BL_F_KERNEL] = "stencil";
    lay[0].line = 20;
    s.explicit_layouts = lay;
    s.nexplicit = 1;
    assert_int_equal(bl_layout_expand(&s, &v, &n, &err), 0);
    assert_int_equal(n, 17);
    assert_string_equal(v[16].name, "pe2");
    assert_string_equal(v[16].map_by, "slot:PE=2");
    assert_int_equal(v[16].kernel, 1);
    free(v);

    /* The same as a crossed layout: refused, pointing at both. */
    lay[1] = (bl_partial){0};
    lay[1].v[BL_F_NP] = "2";
    lay[1].v[BL_F_BIND_TO] = "none";
    lay[1].v[BL_F_OMP_PROC_BIND] = "close";
    lay[1].line = 24;
    lay[1].col = 5;
    s.nexplicit = 2;
    assert_int_equal(bl_layout_expand(&s, &v, &n, &err), -1);
    assert_string_equal(err.msg, "t.yaml:24:5: layout 'triad np2 map=core "
                        "bind=none places=unset proc_bind=close t=1 "
                        "init=parallel' is the same as the one defined at "
                        "line 3; each layout may appear once");
}

static void expand_requires_np(void **state)
{
    bl_sweep_spec s;
    bl_kernel_spec k[1];
    bl_layout *v;
    int n;
    bl_err err;
    (void)state;
    spec_init(&s, k, 1);
    s.axes[BL_F_NP] = (bl_axis){NULL, 0};
    assert_int_equal(bl_layout_expand(&s, &v, &n, &err), -1);
    assert_string_equal(err.msg, "t.yaml:3:3: no np for this layout; give np "
                                 "under defaults:, sweep: or the layout itself");
}

/* --- validation arithmetic --------------------------------------------- */

static void expect_invalid(const char *spec, bl_layout l, int over,
                           const char *msg)
{
    hwloc_topology_t t = topo(spec);
    bl_layout_check c;
    bl_err err;
    int rc = bl_layout_validate(&l, t, over, &c, &err);
    hwloc_topology_destroy(t);
    assert_int_equal(rc, -1);
    assert_string_equal(err.msg, msg);
}

static bl_layout_check expect_valid(const char *spec, bl_layout l, int over)
{
    hwloc_topology_t t = topo(spec);
    bl_layout_check c;
    bl_err err;
    int rc = bl_layout_validate(&l, t, over, &c, &err);
    hwloc_topology_destroy(t);
    if (rc)
        fail_msg("%s", err.msg);
    return c;
}

static void validate_counts_slots_per_core_or_hwthread(void **state)
{
    (void)state;
    expect_invalid(VM_TOPO, make(3, "core", "core", "1"), 0,
                   "np 3 needs 3 slots, but this node has 2 (one per core; "
                   "add oversubscribe to share cores)");
    expect_valid(VM_TOPO, make(3, "core", "core", "1"), 1);
    expect_valid(VM_TOPO, make(3, "core:oversubscribe", "none", "1"), 0);
    /* Mapping by hwthread, Open MPI takes each hwthread as a slot (32
     * cores, 64 hwthreads); msg NULL: valid. */
    static const struct {
        int np;
        const char *map, *msg;
    } smt[] = {
        {64, "hwthread", NULL},
        {65, "hwthread", "np 65 needs 65 slots, but this node has 64 (one per "
                         "hwthread; add oversubscribe to share hwthreads)"},
        {33, "core", "np 33 needs 33 slots, but this node has 32 (one per "
                     "core; add oversubscribe to share cores)"},
    };
    for (size_t i = 0; i < sizeof smt / sizeof smt[0]; i++) {
        bl_layout l = make(smt[i].np, smt[i].map, "hwthread", "1");
        if (smt[i].msg)
            expect_invalid(SMT_TOPO, l, 0, smt[i].msg);
        else
            expect_valid(SMT_TOPO, l, 0);
    }
}

static void validate_states_pe_arithmetic(void **state)
{
    (void)state;
    expect_invalid(VM_TOPO, make(2, "slot:PE=2", "core", "1"), 0,
                   "np 2 x PE 2 = 4 cores, but this node has 2 (add "
                   "oversubscribe to share cores)");
    expect_invalid(VM_TOPO, make(1, "core:PE=2", "core", "1"), 0,
                   "map_by 'core:PE=2': PE=2 asks for 2 cores per rank, but "
                   "one core holds 1 core (with PE= map by slot, l3cache, "
                   "numa or package)");
    expect_invalid(VM_TOPO, make(1, "numa:PE=3", "core", "1"), 0,
                   "map_by 'numa:PE=3': PE=3 cores per rank, but one NUMA "
                   "node has 2 cores");
    expect_invalid(SMT_TOPO, make(1, "l3cache:PE=5", "core", "1"), 0,
                   "map_by 'l3cache:PE=5': PE=5 cores per rank, but one L3 "
                   "domain has 4 cores");
}

static void validate_states_ppr_arithmetic(void **state)
{
    (void)state;
    expect_invalid(VM_TOPO, make(2, "ppr:1:socket", "core", "1"), 0,
                   "map_by 'ppr:1:socket': 1 per package x 1 package = 1 "
                   "rank, but np is 2");
    expect_invalid(SMT_TOPO, make(9, "ppr:2:numa", "core", "1"), 0,
                   "map_by 'ppr:2:numa': 2 per NUMA node x 4 NUMA nodes = 8 "
                   "ranks, but np is 9");
    expect_invalid(VM_TOPO, make(2, "ppr:2:socket:PE=2", "core", "1"), 0,
                   "map_by 'ppr:2:socket:PE=2': 2 ranks x 2 cores = 4 cores "
                   "on one package, but it has 2 (add oversubscribe to share "
                   "cores)");
    expect_valid(SMT_TOPO, make(4, "ppr:2:package:PE=4", "core", "fill"), 0);
}

static void validate_checks_threads_against_the_binding(void **state)
{
    bl_layout_check c;
    (void)state;
    expect_invalid(VM_TOPO, make(1, "core", "core", "2"), 0,
                   "threads 2, but one rank's binding (bind_to core) has 1 PU");
    expect_invalid(SMT_TOPO, make(2, "ppr:1:package:PE=2", "core", "5"), 0,
                   "threads 5, but one rank's binding (ppr:1:package:PE=2, "
                   "bind_to core) has 4 PUs");
    expect_invalid(VM_TOPO, make(2, "core", "none", "2"), 0,
                   "np 2 x 2 threads = 4 threads, but this node has 2 PUs "
                   "(bind_to none: the ranks share the node)");
    /* fill: PE counts cores, each with two hwthreads. */
    c = expect_valid(SMT_TOPO, make(2, "ppr:1:package:PE=4", "core", "fill"), 0);
    assert_int_equal(c.threads, 8);
    assert_int_equal(c.pus_per_rank, 8);
    c = expect_valid(SMT_TOPO, make(2, "numa", "l3cache", "fill"), 0);
    assert_int_equal(c.threads, 8);
    /* bind_to none: the ranks share the node's 64 PUs. */
    c = expect_valid(SMT_TOPO, make(4, "core", "none", "fill"), 0);
    assert_int_equal(c.threads, 16);
    c = expect_valid(VM_TOPO, make(1, "package", "package", "fill"), 0);
    assert_int_equal(c.threads, 2);
}

static void validate_requires_core_binding_with_pe(void **state)
{
    (void)state;
    expect_invalid(VM_TOPO, make(1, "package:PE=2", "package", "1"), 0,
                   "map_by 'package:PE=2' with bind_to package: Open MPI "
                   "binds PE= ranks to their cores; accepted with PE=: "
                   "bind_to core, hwthread or none");
    expect_valid(VM_TOPO, make(1, "package:PE=2", "none", "1"), 0);
}

static void validate_rejects_missing_l3(void **state)
{
    (void)state;
    expect_invalid(NO_L3_TOPO, make(1, "l3cache", "core", "1"), 0,
                   "map_by 'l3cache': this node has no L3 cache objects");
    expect_invalid(NO_L3_TOPO, make(1, "core", "l3cache", "1"), 0,
                   "bind_to 'l3cache': this node has no L3 cache objects");
}

/* --- translation and argv ---------------------------------------------- */

static void translate_uses_socket_for_4_and_package_for_5(void **state)
{
    bl_layout l = make(2, "ppr:1:package:pe=4", "package", "1");
    bl_err err;
    (void)state;
    assert_int_equal(bl_layout_set(&l, BL_F_RANK_BY, "socket", &err), 0);
    assert_int_equal(bl_layout_translate(&l, 4, 1, &err), 0);
    assert_string_equal(l.map_by_launcher, "ppr:1:socket:PE=4");
    assert_string_equal(l.bind_to_launcher, "socket");
    assert_string_equal(l.rank_by_launcher, "socket");
    assert_string_equal(l.map_by, "ppr:1:package:pe=4"); /* user's kept */
    assert_int_equal(bl_layout_translate(&l, 5, 0, &err), 0);
    assert_string_equal(l.map_by_launcher, "ppr:1:package:PE=4");
    assert_string_equal(l.bind_to_launcher, "package");
    assert_string_equal(l.rank_by_launcher, "package");

    l = make(1, "numa:oversubscribe:span", "none", "1");
    assert_int_equal(bl_layout_translate(&l, 4, 1, &err), 0);
    assert_string_equal(l.map_by_launcher, "numa:OVERSUBSCRIBE:SPAN");
    assert_string_equal(l.bind_to_launcher, "none");
    assert_string_equal(l.rank_by_launcher, "");
    assert_int_equal(bl_layout_translate(&l, 1, 10, &err), -1);
}

static bl_kernel_spec kspec(void)
{
    bl_kernel_spec k = {0};
    strcpy(k.name, "triad");
    strcpy(k.label, "triad");
    k.args[0] = strdup("--size");
    k.args[1] = strdup("64MiB");
    k.nargs = 2;
    return k;
}

static void assert_argv(char **got, const char *const *want)
{
    int i;
    assert_non_null(got);
    for (i = 0; want[i]; i++) {
        assert_non_null(got[i]);
        assert_string_equal(got[i], want[i]);
    }
    assert_null(got[i]);
}

static void mpirun_argv_has_every_option(void **state)
{
    bl_layout l = make(2, "ppr:1:package:PE=2", "core", "fill");
    bl_kernel_spec k = kspec();
    bl_layout_argv_opts o = {.app = "/bin/app", .out_file = "r/x.h5",
                        .is_root = 1, .threads = 2};
    bl_err err;
    char **argv;
    static const char *const want[] = {
        "mpirun", "--allow-run-as-root", "-np", "2", "--map-by",
        "ppr:1:socket:PE=2", "--bind-to", "core", "--rank-by", "core",
        "--report-bindings", "-x", "OMP_NUM_THREADS=2", "-x",
        "OMP_PLACES={0:2},{2:2}", "-x", "OMP_PROC_BIND=spread,close", "-x",
        "OMP_DISPLAY_AFFINITY=true", "-x",
        "OMP_AFFINITY_FORMAT=" BL_OMP_AFFINITY_FORMAT, "/bin/app", "--kernel", "triad",
        "--size", "64MiB", "--init", "serial", "--out", "r/x.h5", NULL};
    (void)state;
    assert_int_equal(bl_layout_set(&l, BL_F_RANK_BY, "core", &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PLACES, "{0:2},{2:2}", &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PROC_BIND, "spread,close", &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_INIT, "serial", &err), 0);
    /* Untranslated layouts are refused. */
    assert_null(bl_layout_mpirun_argv(&l, &k, &o, &err));
    assert_non_null(strstr(err.msg, "bl_layout_translate"));
    assert_int_equal(bl_layout_translate(&l, 4, 1, &err), 0);
    argv = bl_layout_mpirun_argv(&l, &k, &o, &err);
    assert_argv(argv, want);
    bl_argv_free(argv);
    bl_kernel_spec_clear(&k);
}

static void mpirun_argv_oversubscribes_and_leaves_unset_vars_out(void **state)
{
    bl_layout l = make(3, "core", "core", "1");
    bl_kernel_spec k = kspec();
    bl_layout_argv_opts o = {.launcher = "/usr/bin/mpirun", .app = "app",
                        .out_file = "o.h5", .oversubscribe = 1, .threads = 1};
    bl_err err;
    char **argv;
    static const char *const want[] = {
        "/usr/bin/mpirun", "-np", "3", "--map-by", "core", "--bind-to",
        "core:overload-allowed", "--oversubscribe", "--report-bindings", "-x",
        "OMP_NUM_THREADS=1", "-x", "OMP_DISPLAY_AFFINITY=true", "-x",
        "OMP_AFFINITY_FORMAT=" BL_OMP_AFFINITY_FORMAT, "app",
        "--kernel", "triad", "--size", "64MiB", "--init", "parallel", "--out",
        "o.h5", NULL};
    (void)state;
    assert_int_equal(bl_layout_translate(&l, 4, 1, &err), 0);
    argv = bl_layout_mpirun_argv(&l, &k, &o, &err);
    assert_argv(argv, want);
    bl_argv_free(argv);
    bl_kernel_spec_clear(&k);
}

static void srun_argv_translates_binding_and_distribution(void **state)
{
    bl_layout l = make(4, "ppr:2:socket:PE=2", "core", "fill");
    bl_kernel_spec k = kspec();
    bl_layout_argv_opts o = {.app = "app", .out_file = "o.h5", .threads = 4,
                        .pus_per_rank = 4};
    bl_err err;
    char **argv;
    static const char *const want[] = {
        "srun", "--mpi=pmix", "-n", "4", "-c", "4", "--cpu-bind=verbose,cores",
        "--distribution=block:block", "--ntasks-per-socket=2",
        "--export=ALL,OMP_NUM_THREADS=4,OMP_PLACES=cores,"
        "OMP_PROC_BIND=close,OMP_DISPLAY_AFFINITY=true,OMP_AFFINITY_FORMAT="
        BL_OMP_AFFINITY_FORMAT,
        "app", "--kernel", "triad", "--size", "64MiB", "--init", "parallel",
        "--out", "o.h5", NULL};
    static const char *const want_rr[] = {
        "srun", "--mpi=pmix", "-n", "2", "-c", "1", "--cpu-bind=verbose,none",
        "--distribution=block:cyclic", "--export=ALL,OMP_NUM_THREADS=1,"
        "OMP_DISPLAY_AFFINITY=true,OMP_AFFINITY_FORMAT=" BL_OMP_AFFINITY_FORMAT,
        "app", "--kernel", "triad", "--size",
        "64MiB", "--init", "parallel", "--out", "o.h5", NULL};
    (void)state;
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PLACES, "cores", &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PROC_BIND, "close", &err), 0);
    assert_int_equal(bl_layout_translate(&l, 4, 1, &err), 0);
    argv = bl_layout_srun_argv(&l, &k, &o, &err);
    assert_argv(argv, want);
    bl_argv_free(argv);

    l = make(2, "numa", "none", "1");
    o.threads = 1;
    o.pus_per_rank = 1;
    assert_int_equal(bl_layout_translate(&l, 5, 0, &err), 0);
    argv = bl_layout_srun_argv(&l, &k, &o, &err);
    assert_argv(argv, want_rr);
    bl_argv_free(argv);
    bl_kernel_spec_clear(&k);
}

static void srun_argv_refuses_what_srun_cannot_express(void **state)
{
    bl_layout l = make(2, "core", "l3cache", "1");
    bl_kernel_spec k = kspec();
    bl_layout_argv_opts o = {.app = "app", .out_file = "o.h5", .threads = 1};
    bl_err err;
    (void)state;
    assert_int_equal(bl_layout_translate(&l, 4, 1, &err), 0);
    assert_null(bl_layout_srun_argv(&l, &k, &o, &err));
    assert_string_equal(err.msg, "bind_to 'l3cache': srun cannot bind to it; "
                        "accepted with srun: none, hwthread, core, numa, "
                        "package/socket");
    l = make(2, "core", "core", "1");
    assert_int_equal(bl_layout_set(&l, BL_F_OMP_PLACES, "{0},{1}", &err), 0);
    assert_int_equal(bl_layout_translate(&l, 4, 1, &err), 0);
    assert_null(bl_layout_srun_argv(&l, &k, &o, &err));
    assert_non_null(strstr(err.msg, "cannot carry a value with commas"));
    l = make(2, "ppr:1:numa", "core", "1");
    assert_int_equal(bl_layout_translate(&l, 4, 1, &err), 0);
    assert_null(bl_layout_srun_argv(&l, &k, &o, &err));
    assert_non_null(strstr(err.msg, "no tasks-per-numa option"));
    bl_kernel_spec_clear(&k);
}

/* --- the installed mpirun agrees --------------------------------------- */

/* Runs the layout's mpirun line with /bin/true as the app; 0 if mpirun
 * accepted it. Open MPI's test default of oversubscription is removed so
 * that mpirun applies its own slot rules. */
static int mpirun_accepts(const bl_layout *l, const bl_layout_check *c,
                          int over)
{
    bl_kernel_spec k = kspec();
    bl_layout_argv_opts o = {.app = "/bin/true", .out_file = "/dev/null",
                        .is_root = getuid() == 0, .oversubscribe = over,
                        .threads = c->threads > 0 ? c->threads : 1};
    bl_err err;
    char **argv = bl_layout_mpirun_argv(l, &k, &o, &err);
    int status = -1;
    pid_t pid;
    assert_non_null(argv);
    pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        dup2(fd, 2);
        unsetenv("OMPI_MCA_rmaps_base_oversubscribe");
        execvp(argv[0], argv);
        _exit(127);
    }
    waitpid(pid, &status, 0);
    bl_argv_free(argv);
    bl_kernel_spec_clear(&k);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* bindlab's verdict and mpirun's must agree on this node, whatever its
 * size: np is given as a fixed count plus a multiple of the node's cores,
 * so that the cases straddle the limits on 1, 2 or 64 cores alike, and the
 * Open MPI spellings are the ones for the installed mpirun's version. */
static void validation_agrees_with_installed_mpirun(void **state)
{
    static const struct {
        int np, per_core; /* np + per_core x cores */
        const char *map, *bind;
        int over;
    } cases[] = {
        {1, 1, "core", "core", 1},        {1, 1, "core:oversubscribe", "core", 0},
        {0, 2, "slot:PE=2", "core", 1},   {1, 1, "core", "none", 1},
        {1, 0, "core", "core", 0},        {0, 1, "core", "core", 0},
        {1, 1, "core", "core", 0},        {2, 0, "core", "core", 0},
        {3, 0, "core", "core", 0},        {2, 0, "slot:PE=2", "core", 0},
        {1, 0, "slot:PE=2", "core", 0},   {1, 0, "core:PE=2", "core", 0},
        {1, 0, "numa:PE=3", "core", 0},   {1, 0, "ppr:1:package", "core", 0},
        {2, 0, "ppr:1:package", "core", 0}, {2, 0, "ppr:2:socket:PE=2", "core", 0},
        {2, 0, "numa", "numa", 0},        {1, 0, "package:PE=2", "package", 0},
        {2, 0, "node", "core", 0},        {4, 0, "hwthread", "hwthread", 0},
        {0, 2, "hwthread", "hwthread", 0},
        {1, 0, "package:PE=2", "none", 0}, {1, 0, "package:PE=2", "hwthread", 0},
        {1, 0, "package:PE=1", "numa", 0}, {1, 0, "package:PE=1", "l3cache", 0},
    };
    char where[4096];
    bl_launcher_info li;
    bl_err derr;
    bl_topo_counts n;
    (void)state;
    if (!bl_test_find_program("mpirun", where, sizeof where))
        BL_SKIP("no mpirun in PATH to compare the validation with");
    if (bl_launcher_detect_mpirun(NULL, 30, &li, &derr) != 0)
        fail_msg("%s", derr.msg); /* an mpirun that cannot say its version */
    if (li.kind != BL_LAUNCHER_OPENMPI)
        BL_SKIP("mpirun at %s is %s %s; the validation models Open MPI's "
                "mapper", where, bl_launcher_kind_name(li.kind), li.version);
    hwloc_topology_t t = topo(NULL);
    bl_topo_counts_get(t, &n);
    printf("node: %d packages, %d cores, %d PUs; mpirun: Open MPI %s\n",
           n.packages, n.cores, n.pus, li.version);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int np = cases[i].np + cases[i].per_core * n.cores, seen = 0;
        /* On some core counts two rows are the same case: ask mpirun once
         * (each answer costs a launch). */
        for (size_t j = 0; j < i && !seen; j++)
            seen = cases[j].np + cases[j].per_core * n.cores == np &&
                   !strcmp(cases[j].map, cases[i].map) &&
                   !strcmp(cases[j].bind, cases[i].bind) &&
                   cases[j].over == cases[i].over;
        if (seen)
            continue;
        bl_layout l = make(np, cases[i].map, cases[i].bind, "1");
        bl_layout_check c = {0};
        bl_err err;
        int valid = bl_layout_validate(&l, t, cases[i].over, &c, &err) == 0;
        int accepted;
        bl_err terr;
        if (bl_layout_translate(&l, li.major, li.minor, &terr) != 0)
            fail_msg("%s", terr.msg);
        accepted = mpirun_accepts(&l, &c, cases[i].over) == 0;
        if (valid != accepted)
            fail_msg("np %d --map-by %s --bind-to %s%s: bindlab says %s, "
                     "Open MPI %s's mpirun %s", np, l.map_by_launcher,
                     l.bind_to_launcher,
                     cases[i].over ? " --oversubscribe" : "",
                     valid ? "valid" : err.msg, li.version,
                     accepted ? "accepts it" : "refuses it");
    }
    hwloc_topology_destroy(t);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest rules[] = {
        cmocka_unit_test(map_by_parses_ppr_with_pe),
        cmocka_unit_test(map_by_rejects_bad_values_naming_what_is_accepted),
        cmocka_unit_test(field_values_are_checked),
        cmocka_unit_test(expand_crosses_every_axis_and_kernel),
        cmocka_unit_test(expand_drops_excluded_combinations),
        cmocka_unit_test(expand_rejects_exclude_that_matches_nothing),
        cmocka_unit_test(expand_appends_explicit_layouts_and_rejects_duplicates),
        cmocka_unit_test(expand_requires_np),
        cmocka_unit_test(validate_counts_slots_per_core_or_hwthread),
        cmocka_unit_test(validate_states_pe_arithmetic),
        cmocka_unit_test(validate_states_ppr_arithmetic),
        cmocka_unit_test(validate_checks_threads_against_the_binding),
        cmocka_unit_test(validate_requires_core_binding_with_pe),
        cmocka_unit_test(validate_rejects_missing_l3),
        cmocka_unit_test(translate_uses_socket_for_4_and_package_for_5),
        cmocka_unit_test(mpirun_argv_has_every_option),
        cmocka_unit_test(mpirun_argv_oversubscribes_and_leaves_unset_vars_out),
        cmocka_unit_test(srun_argv_translates_binding_and_distribution),
        cmocka_unit_test(srun_argv_refuses_what_srun_cannot_express),
    };
    static const struct CMUnitTest installed_mpirun[] = {
        cmocka_unit_test(validation_agrees_with_installed_mpirun),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("rules", rules),
        BL_MACHINE_GROUP("mpirun", installed_mpirun),
    };
    return bl_run_groups(argc, argv, groups);
}
