/* Sweep files: good files, every error path of the parser with its
 * FILE:LINE:COL, and the shipped sweeps loading and validating on the
 * nodes they are written for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bl_test.h"
#include "kernel.h"
#include "kernel_names.h"
#include "sweep/sweep_file.h"
#include "sweep_file_expect.h"
#include "topo.h"

/* The source tree: from CTest's environment, else from this file's path
 * (so the program also runs by hand). */
/* snprintf that fails the test instead of cutting a path or message. */
#define FMT(buf, len, ...)                                      \
    do {                                                        \
        if (snprintf(buf, len, __VA_ARGS__) >= (int)(len))      \
            fail_msg("text longer than %zu bytes", (size_t)(len)); \
    } while (0)

static const char *source_dir(void)
{
    static char dir[1024];
    const char *d = getenv("BINDLAB_SOURCE_DIR");
    char *cut;
    if (d)
        return d;
    FMT(dir, sizeof dir, "%s", __FILE__);
    if ((cut = strstr(dir, "/tests/unit/")) != NULL)
        *cut = '\0';
    return dir;
}

static const char *fixtures(void)
{
    static char dir[1100];
    const char *d = getenv("BINDLAB_FIXTURES");
    if (d)
        return d;
    FMT(dir, sizeof dir, "%s/tests/fixtures", source_dir());
    return dir;
}

/* A real node's hwloc XML, shipped under configs/topologies/: part of the
 * source tree, so a missing one is a failure, never a skip. */
static const char *real_topology(const char *name, char *buf, size_t len)
{
    if (snprintf(buf, len, "%s/configs/topologies/%s", source_dir(), name) >=
        (int)len)
        fail_msg("path too long");
    if (access(buf, R_OK) != 0)
        fail_msg("%s: missing from the source tree", buf);
    return buf;
}

static void load_fixture(const char *name, bl_sweep *s, int want_rc,
                         bl_err *err)
{
    char path[1024];
    FMT(path, sizeof path, "%s/sweeps/%s", fixtures(), name);
    if (bl_sweep_file_load(path, s, err) != want_rc)
        fail_msg("%s: expected %d: %s", name, want_rc,
                 want_rc ? "success" : err->msg);
}

static int count_kernel(const bl_sweep *s, int k)
{
    int n = 0;
    for (int i = 0; i < s->nlayouts; i++)
        n += s->layouts[i].kernel == k;
    return n;
}

/* --- good files --------------------------------------------------------- */

static void config_loads_every_feature(void **state)
{
    bl_sweep s;
    bl_err err;
    const bl_layout *l;
    (void)state;
    load_fixture("good.yaml", &s, 0, &err);
    assert_string_equal(s.name, "good");
    assert_string_equal(s.description, "all features");
    assert_int_equal(s.nkernels, 3);
    assert_string_equal(s.kernels[0].name, "triad");
    assert_int_equal(s.kernels[0].nargs, 0);
    assert_string_equal(s.kernels[1].label, "stencil-big");
    assert_int_equal(s.kernels[1].nargs, 7);
    assert_string_equal(s.kernels[1].args[0], "--grid");
    assert_string_equal(s.kernels[1].args[1], "4096x4096");
    assert_string_equal(s.kernels[1].args[4], "--overlap");
    assert_string_equal(s.kernels[1].args[5], "--iters");
    assert_string_equal(s.kernels[1].args[6], "5");
    assert_null(s.kernels[1].args[7]);
    assert_string_equal(s.kernels[2].args[1], "2048");
    /* 2 np x 2 bind x 2 proc_bind x 2 init = 16 per kernel, minus 4 for
     * none+spread = 12, minus 6 serial for lu; then per-package (triad
     * only) and no-omp (every kernel). */
    assert_int_equal(s.nlayouts, 12 + 2 + 12 + 1 + 6 + 1);
    assert_int_equal(count_kernel(&s, 0), 14);
    assert_int_equal(count_kernel(&s, 1), 13);
    assert_int_equal(count_kernel(&s, 2), 7);
    l = &s.layouts[0];
    assert_string_equal(l->run_id, "r0000");
    assert_string_equal(l->label, "triad np1 map=core bind=core places=cores "
                                  "proc_bind=close t=fill init=parallel");
    assert_true(l->timeout_s == 60);
    assert_int_equal(l->src_line, 19); /* the sweep: mapping's first key */
    l = &s.layouts[12];
    assert_string_equal(l->name, "per-package");
    assert_string_equal(l->map_by, "ppr:1:package:PE=2");
    assert_string_equal(l->omp_places, "{0:1},{1:1}");
    assert_string_equal(l->omp_proc_bind, "spread,close");
    assert_int_equal(l->repetitions, 3);
    assert_int_equal(l->src_line, 28);
    assert_int_equal(l->src_col, 5);
    l = &s.layouts[13];
    assert_string_equal(l->name, "no-omp");
    assert_string_equal(l->omp_places, "");
    assert_string_equal(l->omp_proc_bind, "");
    assert_string_equal(l->label, "triad np1 map=core bind=none places=unset "
                                  "proc_bind=unset t=fill init=parallel");
    assert_string_equal(s.layouts[33].run_id, "r0033");
    assert_int_equal(s.layouts[33].kernel, 2);
    for (int i = 0; i < s.nlayouts; i++) {
        assert_false(!strcmp(s.layouts[i].bind_to, "none") &&
                     !strcmp(s.layouts[i].omp_proc_bind, "spread") &&
                     s.layouts[i].name[0] == '\0');
        assert_false(s.layouts[i].kernel == 2 && s.layouts[i].serial_init);
    }
    bl_sweep_free(&s);
}

static void config_names_a_sweep_after_its_file(void **state)
{
    bl_sweep s;
    bl_err err;
    (void)state;
    load_fixture("minimal.yaml", &s, 0, &err);
    assert_string_equal(s.name, "minimal");
    assert_int_equal(s.nlayouts, 1);
    assert_string_equal(s.layouts[0].label, "triad np1 map=core bind=core "
                        "places=unset proc_bind=unset t=1 init=parallel");
    bl_sweep_free(&s);
}

/* --- broken files ------------------------------------------------------- */

static void config_reports_yaml_syntax_with_position(void **state)
{
    bl_sweep s;
    bl_err err;
    char want[256];
    (void)state;
    load_fixture("broken-indent.yaml", &s, -1, &err);
    FMT(want, sizeof want, "%s/sweeps/broken-indent.yaml:6:3: YAML "
             "syntax: did not find expected key while parsing a block "
             "mapping; accepted:", fixtures());
    assert_memory_equal(err.msg, want, strlen(want));
    expect_error("kernels: [triad\nsweep: {np: 1}\n",
                 "t.yaml:2:6: YAML syntax: did not find expected ',' or ']' "
                 "while parsing a flow sequence; accepted: a mapping of "
                 "sweep keys (see docs/sweep-files.md)");
}

static void config_rejects_unknown_keys_listing_accepted(void **state)
{
    bl_sweep s;
    bl_err err;
    char want[512];
    (void)state;
    load_fixture("broken-unknown-key.yaml", &s, -1, &err);
    FMT(want, sizeof want, "%s/sweeps/broken-unknown-key.yaml:6:5: "
             "layouts: unknown key 'map-by'; accepted: kernel, np, map_by, "
             "bind_to, rank_by, omp_places, omp_proc_bind, threads, init, "
             "repetitions, timeout, mem_policy, nodes, noisy, retry, "
             "omp_runtime, gpu_bind, gpus_per_rank, name", fixtures());
    assert_string_equal(err.msg, want);
    expect_error("kernels: [triad]\nsweeps: {np: 1}\n",
                 "t.yaml:2:1: sweep file: unknown key 'sweeps'; accepted: "
                 "name, description, kernels, defaults, sweep, exclude, "
                 "layouts, launcher, repetition_order, max_runs, app");
    expect_error("kernels:\n  - {name: triad, sizes: 1GiB}\n",
                 "t.yaml:2:19: kernels entry: unknown key 'sizes'; accepted: "
                 "name, label, size, iters, warmup, grid, radius, overlap, "
                 "align_shares, "
                 "n, nb, seed, writes");
    expect_error("kernels: [triad]\nsweep:\n  np: 1\n  np: 2\n",
                 "t.yaml:4:3: sweep: key 'np' is given twice (first at 3:3); "
                 "keep one");
    expect_error("kernels: [triad]\nsweep:\n  [a]: 1\n",
                 "t.yaml:3:3: sweep: keys must be plain words");
}

/* repetition_order: absent reads as unset (the sweep runs interleaved),
 * the two words as themselves, anything else at its line and column. */
static void config_reads_the_repetition_order(void **state)
{
    static const char *const texts[] = {
        "kernels: [triad]\nlayouts: [{np: 1}]\n",
        "kernels: [triad]\nlayouts: [{np: 1}]\nrepetition_order: interleaved\n",
        "kernels: [triad]\nlayouts: [{np: 1}]\nrepetition_order: consecutive\n",
    };
    static const bl_rep_order want[] = {BL_REP_ORDER_UNSET, BL_REP_INTERLEAVED,
                                        BL_REP_CONSECUTIVE};
    (void)state;
    for (int i = 0; i < 3; i++) {
        bl_sweep s;
        bl_err err;
        if (bl_sweep_file_load_string(texts[i], "t.yaml", &s, &err) < 0)
            fail_msg("%s: %s", texts[i], err.msg);
        assert_int_equal(s.repetition_order, want[i]);
        bl_sweep_free(&s);
    }
    expect_error("kernels: [triad]\nrepetition_order: ABAB\nlayouts: [{np: 1}]\n",
                 "t.yaml:2:19: repetition_order: 'ABAB' is not accepted; use "
                 "interleaved (A B A B, the default) or consecutive (A A B B)");
    expect_error("kernels: [triad]\nrepetition_order: [a]\nlayouts: [{np: 1}]\n",
                 "t.yaml:2:19: repetition_order: expected a single value, "
                 "found a list");
}

static void config_rejects_wrong_shapes(void **state)
{
    (void)state;
    expect_error("- a\n- b\n", "t.yaml:1:1: sweep file: expected a mapping "
                               "(key: value), found a list");
    expect_error("kernels: {name: triad}\n",
                 "t.yaml:1:10: kernels: expected a list, found a mapping");
    expect_error("kernels: []\n", "t.yaml:1:10: kernels: the list is empty; "
                 "give at least one, e.g. [{name: triad, size: 256MiB}]");
    expect_error("kernels: [triad]\ndefaults:\n  np: [1, 2]\n",
                 "t.yaml:3:7: np: expected a single value, found a list");
    expect_error("kernels: [triad]\nsweep:\n  np: 1\n  omp_places: {0:4}\n",
                 "t.yaml:4:15: omp_places: expected a single value, found a "
                 "mapping (quote explicit place lists: \"{0:4},{4:4}\")");
    expect_error("kernels: [triad]\nlayouts: {np: 1}\n",
                 "t.yaml:2:10: layouts: expected a list, found a mapping");
    expect_error("kernels: [triad]\nlayouts: []\n",
                 "t.yaml:2:10: layouts: the list is empty (remove the key, "
                 "or give entries)");
    expect_error("kernels: [triad]\nname: [a]\nlayouts: [{np: 1}]\n",
                 "t.yaml:2:7: name: expected a single value, found a list");
}

/* A kernel bindlab-app does not have is refused when the file is read, at
 * the name, with the kernels there are; the list the harness holds is the
 * app's registry's. */
static void config_refuses_an_unknown_kernel_at_its_name(void **state)
{
    (void)state;
    expect_error("name: s\nkernels:\n  - {name: triadd, size: 1MiB}\n"
                 "layouts: [{np: 1}]\n",
                 "t.yaml:3:12: kernel name 'triadd': no such kernel; "
                 "accepted: triad, stencil, lu, shared, latency, c2c");
    expect_error("kernels: [stencil, tirad]\nlayouts: [{np: 1}]\n",
                 "t.yaml:1:20: kernel name 'tirad': no such kernel; "
                 "accepted: " BL_KERNEL_NAMES);
    expect_error("kernels:\n  - {name: Triad}\n",
                 "t.yaml:2:12: kernel name 'Triad': no such kernel; "
                 "accepted: " BL_KERNEL_NAMES);
    assert_string_equal(BL_KERNEL_NAMES, bl_kernel_names());
    for (const char *p = BL_KERNEL_NAMES; *p; p += strspn(p, ", ")) {
        char one[32];
        size_t n = strcspn(p, ", ");
        snprintf(one, sizeof one, "%.*s", (int)n, p);
        assert_true(bl_kernel_name_known(one));
        assert_non_null(bl_kernel_find(one));
        p += n;
    }
    assert_false(bl_kernel_name_known("tri"));
    assert_false(bl_kernel_name_known(""));
}

static void config_rejects_bad_kernel_entries(void **state)
{
    (void)state;
    expect_error("kernels:\n  - {size: 1GiB}\nlayouts: [{np: 1}]\n",
                 "t.yaml:2:5: kernels entry: no name; accepted: {name: "
                 "triad, size: 256MiB, ...}");
    expect_error("kernels:\n  - {name: triad, size: lots}\n",
                 "t.yaml:2:25: size: 'lots' is not a size like 1.5GiB, "
                 "512MiB, 800MB or 4096 (units B, KiB/MiB/GiB/TiB, "
                 "KB/MB/GB/TB, K/M/G/T)");
    expect_error("kernels:\n  - {name: stencil, grid: 4096x0}\n",
                 "t.yaml:2:27: grid: '4096x0' is not N, AxB or AxBxC with "
                 "whole numbers from 1 to 1000000 (e.g. 4096, 4096x2048, "
                 "256x256x256, or 2x1 for lu)");
    expect_error("kernels:\n  - {name: triad, iters: 0}\n",
                 "t.yaml:2:26: iters: 0 is out of range (1 to 1000000)");
    expect_error("kernels:\n  - {name: triad, size: 1e30GiB}\n",
                 "t.yaml:2:25: size: '1e30GiB' is too large");
    expect_error("kernels:\n  - {name: stencil, radius: 65}\n",
                 "t.yaml:2:29: radius: 65 is out of range (1 to 64)");
    expect_error("kernels:\n  - {name: stencil, overlap: maybe}\n",
                 "t.yaml:2:30: overlap 'maybe': accepted: true or false");
    expect_error("kernels:\n  - {name: triad, label: Big}\n",
                 "t.yaml:2:26: kernel label 'Big': accepted: lower-case "
                 "letters, digits, '_', '-', '.', up to 47 characters");
    expect_error("kernels: [triad, triad]\nlayouts: [{np: 1}]\n",
                 "t.yaml:1:18: kernels: 'triad' appears twice; give entries "
                 "of one kernel a label: each");
}

static void config_rejects_bad_values_where_written(void **state)
{
    (void)state;
    expect_error("kernels: [triad]\nsweep:\n  np: [1, 2]\n"
                 "  map_by: [core, \"ppr:x:core\"]\n",
                 "t.yaml:4:18: map_by 'ppr:x:core': ppr needs a positive "
                 "count, as in ppr:2:package");
    expect_error("kernels: [triad]\nsweep:\n  np: ~\n",
                 "t.yaml:3:7: np: a value is needed (only rank_by, "
                 "omp_places and omp_proc_bind may be left unset)");
    expect_error("kernels: [triad]\ndefaults:\n  omp_proc_bind: tight\n"
                 "layouts: [{np: 1}]\n",
                 "t.yaml:3:18: omp_proc_bind 'tight': accepted: false, true, "
                 "close, spread, primary, master (or a comma list of the last "
                 "four, e.g. spread,close), or unset");
    expect_error("kernels: [triad]\nlayouts:\n  - {np: 1, threads: all}\n",
                 "t.yaml:3:22: threads 'all': accepted: a number of threads "
                 "per rank (1 or more) or fill");
    expect_error("kernels: [triad]\nsweep:\n  np: []\n",
                 "t.yaml:3:7: sweep: np: the list is empty");
    expect_error("kernels: [triad]\nsweep:\n  np: [1, 1]\n",
                 "t.yaml:3:11: sweep: np: '1' is listed twice");
}

/* launcher: a family or a path, kept as written with its position;
 * whether it is installed is the sweep's question (launcher_choice.c) */
static void config_reads_the_launcher_key(void **state)
{
    bl_sweep s;
    bl_err err;
    (void)state;
    assert_int_equal(bl_sweep_file_load_string(
        "kernels: [triad]\nlauncher: mpich\nlayouts: [{np: 1}]\n", "t.yaml",
        &s, &err), 0);
    assert_string_equal(s.launcher, "mpich");
    assert_int_equal(s.launcher_line, 2);
    assert_int_equal(s.launcher_col, 11);
    bl_sweep_free(&s);
    assert_int_equal(bl_sweep_file_load_string(
        "kernels: [triad]\nlauncher: /opt/mpi/bin/mpiexec\n"
        "layouts: [{np: 1}]\n", "t.yaml", &s, &err), 0);
    assert_string_equal(s.launcher, "/opt/mpi/bin/mpiexec");
    bl_sweep_free(&s);
    assert_int_equal(bl_sweep_file_load_string(
        "kernels: [triad]\nlayouts: [{np: 1}]\n", "t.yaml", &s, &err), 0);
    assert_string_equal(s.launcher, "");
    bl_sweep_free(&s);
    expect_error("kernels: [triad]\nlauncher: intelmpi\nlayouts: [{np: 1}]\n",
                 "t.yaml:2:11: launcher: 'intelmpi' is not a launcher "
                 "bindlab knows; accepted: openmpi, ompi4, ompi5, mpich, "
                 "impi, srun, mpirun (whatever MPI's mpirun is in PATH), or "
                 "the path of an mpirun, mpiexec or srun");
    expect_error("kernels: [triad]\nlauncher: [mpich, impi]\n"
                 "layouts: [{np: 1}]\n",
                 "t.yaml:2:11: launcher: expected a single value, found a "
                 "list");
}

static void config_rejects_keys_in_the_wrong_section(void **state)
{
    (void)state;
    expect_error("kernels: [triad]\nsweep:\n  np: 1\n  kernel: triad\n",
                 "t.yaml:4:3: sweep: 'kernel' cannot be given here; every "
                 "layout runs each entry of kernels:");
    expect_error("kernels: [triad]\nsweep: {np: 1}\nexclude:\n  - {name: x}\n",
                 "t.yaml:4:6: exclude: 'name' cannot be given here; accepted: "
                 "kernel, np, map_by, bind_to, rank_by, omp_places, "
                 "omp_proc_bind, threads, init, repetitions, timeout, "
                 "mem_policy, nodes, noisy, retry, omp_runtime, gpu_bind, "
                 "gpus_per_rank");
    expect_error("kernels: [triad]\ndefaults: {kernel: triad}\n"
                 "layouts: [{np: 1}]\n",
                 "t.yaml:2:12: defaults: 'kernel' cannot be given here; "
                 "accepted: kernel, np, map_by, bind_to, rank_by, omp_places, "
                 "omp_proc_bind, threads, init, repetitions, timeout, "
                 "mem_policy, nodes, noisy, retry, omp_runtime, gpu_bind, "
                 "gpus_per_rank");
}

static void config_rejects_sweeps_that_expand_wrong(void **state)
{
    (void)state;
    expect_error("", "t.yaml:1:1: the file is empty; a sweep needs kernels: "
                     "and sweep: or layouts:");
    expect_error("# nothing\n", "t.yaml:1:1: the file is empty; a sweep "
                                "needs kernels: and sweep: or layouts:");
    expect_error("sweep: {np: 1}\n",
                 "t.yaml:1:1: kernels: missing; accepted: a list such as "
                 "[{name: triad, size: 256MiB, iters: 20}], or app: "
                 "{command: [PROGRAM, ARG...]}");
    expect_error("kernels: [triad]\n",
                 "t.yaml:1:1: no layouts: give a sweep: mapping (crossed) or "
                 "a layouts: list (or both)");
    expect_error("kernels: [triad]\nsweep:\n  bind_to: [core, none]\n",
                 "t.yaml:3:3: no np for this layout; give np under "
                 "defaults:, sweep: or the layout itself");
    expect_error("kernels: [triad]\nsweep:\n  np: [1, 2]\nexclude:\n"
                 "  - {np: 1}\n  - {np: 2, init: serial}\n",
                 "t.yaml:6:5: this exclude entry matches no layout of the "
                 "sweep: check its keys and values");
    expect_error("kernels: [triad]\nlayouts: [{np: 1}]\nexclude: [{np: 1}]\n",
                 "t.yaml:3:10: exclude: only applies to sweep:, and there is "
                 "none");
    expect_error("kernels: [triad]\nlayouts:\n  - {np: 1, kernel: lu}\n",
                 "t.yaml:3:5: kernel 'lu' is not one of the sweep's kernels: "
                 "entries; give a name or label listed there");
    expect_error("kernels: [triad]\nsweep: {np: [1, 2]}\nlayouts:\n"
                 "  - {np: 1}\n  - {np: 2, name: again}\n",
                 "t.yaml:4:5: layout 'triad np1 map=core bind=core "
                 "places=unset proc_bind=unset t=1 init=parallel' is the same "
                 "as the one defined at line 2; each layout may appear once");
}

static void config_refuses_huge_cross_products(void **state)
{
    char text[4096];
    size_t len;
    (void)state;
    len = (size_t)snprintf(text, sizeof text,
                           "kernels: [triad]\nsweep:\n  np: [");
    for (int i = 1; i <= 101; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%d",
                                i > 1 ? ", " : "", i);
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "]\n  threads: [");
    for (int i = 1; i <= 100; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%d",
                                i > 1 ? ", " : "", i);
    snprintf(text + len, sizeof text - len, "]\n");
    expect_error(text, "t.yaml: the sweep expands to more than 10000 "
                       "layouts; narrow the axes or add exclude entries");
}

static void config_names_a_missing_file(void **state)
{
    bl_sweep s;
    bl_err err;
    (void)state;
    assert_int_equal(bl_sweep_file_load("/nonexistent/x.yaml", &s, &err), -1);
    assert_string_equal(err.msg, "/nonexistent/x.yaml: cannot open: No such "
                                 "file or directory");
}

/* --- the shipped sweeps --------------------------------------------------- */

/* Loads configs/sweeps/NAME.yaml and validates each layout on topo_spec;
 * returns how many are invalid, with the first message in first_err. */
static int shipped(const char *name, const char *topo_spec, int nlayouts,
                   char *first_err, size_t len)
{
    char path[1024];
    bl_sweep s;
    bl_err err;
    hwloc_topology_t t;
    int bad = 0;
    FMT(path, sizeof path, "%s/configs/sweeps/%s.yaml", source_dir(),
             name);
    if (bl_sweep_file_load(path, &s, &err) < 0)
        fail_msg("%s", err.msg);
    assert_string_equal(s.name, name);
    assert_int_equal(s.nlayouts, nlayouts);
    if (bl_topo_load(topo_spec, &t, &err) < 0)
        fail_msg("%s", err.msg);
    for (int i = 0; i < s.nlayouts; i++) {
        bl_layout_check c;
        bl_layout_argv_opts o = {.app = "bindlab-app", .out_file = "x.h5"};
        char **argv;
        if (bl_layout_validate(&s.layouts[i], t, 0, &c, &err) < 0) {
            if (!bad++)
                FMT(first_err, len, "%s: %s", s.layouts[i].label,
                         err.msg);
            continue;
        }
        o.threads = c.threads;
        assert_int_equal(bl_layout_translate(&s.layouts[i], 4, 1, &err), 0);
        argv = bl_layout_mpirun_argv(&s.layouts[i],
                                     &s.kernels[s.layouts[i].kernel], &o,
                                     &err);
        assert_non_null(argv);
        bl_argv_free(argv);
    }
    hwloc_topology_destroy(t);
    bl_sweep_free(&s);
    return bad;
}

static void shipped_sweeps_validate_on_their_nodes(void **state)
{
    static const struct {
        const char *name, *topo;
        int nlayouts;
    } cases[] = {
        {"default", "pack:1 l3:1 numa:1 core:2 pu:1", 8},
        {"workshop", "pack:1 l3:1 numa:1 core:2 pu:1", 6},
        {"workshop", "AMD-19h-Zen3-2xEpyc-7763.xml", 6},
        {"epyc-2s", "AMD-19h-Zen3-2xEpyc-7763.xml", 14},
        {"xeon-2s", "pack:2 l3:1 numa:1 core:20 pu:2", 13},
        {"pinned-vs-free", "pack:1 l3:1 numa:1 core:2 pu:1", 8},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char topo[1024], msg[BL_ERR_MSG_MAX + 512] = "";
        if (!strstr(cases[i].topo, ".xml"))
            snprintf(topo, sizeof topo, "%s", cases[i].topo);
        else
            real_topology(cases[i].topo, topo, sizeof topo);
        if (shipped(cases[i].name, topo, cases[i].nlayouts, msg, sizeof msg))
            fail_msg("%s on %s: %s", cases[i].name, cases[i].topo, msg);
    }
}

static void xeon_per_numa_is_refused_on_the_numa_less_capture(void **state)
{
    char buf[1024], msg[BL_ERR_MSG_MAX + 512] = "";
    const char *topo = real_topology("Intel-CascadeLake-2xXeon6230.xml", buf,
                                     sizeof buf);
    (void)state;
    assert_int_equal(shipped("xeon-2s", topo, 13, msg, sizeof msg), 1);
    assert_string_equal(msg, "triad np2 map=ppr:1:numa:PE=20 bind=core "
                        "places=cores proc_bind=close t=20 init=parallel: "
                        "map_by 'ppr:1:numa:PE=20': 1 per NUMA node x 1 NUMA "
                        "node = 1 rank, but np is 2");
}

/* --- values as bindlab-app reads them ------------------------------------- */

/* One kernel argument in a sweep file: 0 when the file loads. */
static int sweep_takes(const char *kernel, const char *key, const char *value)
{
    char text[512];
    bl_sweep s;
    bl_err err;
    FMT(text, sizeof text,
        "kernels:\n  - {name: %s, %s: \"%s\"}\nlayouts: [{np: 1}]\n", kernel,
        key, value);
    if (bl_sweep_file_load_string(text, "t.yaml", &s, &err) < 0)
        return -1;
    bl_sweep_free(&s);
    return 0;
}

/* Values written by hand from bindlab-app's --help (sizes with K/M/G/T
 * letters, grids with 'x' or 'X'), each with the verdict the app gives it:
 * the sweep must give the same one. */
static void config_accepts_what_the_app_accepts(void **state)
{
    static const struct {
        const char *kernel, *key, *value;
        int ok;
    } cases[] = {
        {"triad", "size", "2G", 0},        {"triad", "size", "1.5 GiB", 0},
        {"triad", "size", "800mb", 0},     {"triad", "size", "1e30GiB", -1},
        {"triad", "size", "0", -1},        {"triad", "size", "-1GiB", -1},
        {"stencil", "grid", "4X2", 0},     {"stencil", "grid", "64x64x64", 0},
        {"stencil", "grid", "010", -1},    {"stencil", "grid", "4x", -1},
        {"stencil", "grid", "1x2x3x4", -1}, {"stencil", "grid", "2000000", -1},
        {"triad", "iters", "1000000", 0},  {"triad", "iters", "1000001", -1},
        {"triad", "warmup", "0", 0},       {"lu", "nb", "0", -1},
        {"lu", "n", "100000000", 0},       {"lu", "seed", "2147483648", -1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (sweep_takes(cases[i].kernel, cases[i].key, cases[i].value) !=
            cases[i].ok)
            fail_msg("%s: %s '%s': expected %s", cases[i].kernel,
                     cases[i].key, cases[i].value,
                     cases[i].ok ? "refused" : "accepted");
}

/* --- names and limits ------------------------------------------------------ */

static void config_refuses_names_that_are_paths(void **state)
{
    static const char *const bad[] = {"../../victim", "a/b", "/etc", ".",
                                      "..", ".hidden", "-rf", "a b",
                                      "a*b", "a:b", ""};
    bl_sweep s;
    bl_err err;
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256], want[256];
        FMT(text, sizeof text, "kernels: [triad]\nname: \"%s\"\n"
            "layouts: [{np: 1}]\n", bad[i]);
        FMT(want, sizeof want, "t.yaml:2:7: name '%s': accepted: 1 to 63 "
            "letters, digits, '.', '_' or '-'", bad[i]);
        if (bl_sweep_file_load_string(text, "t.yaml", &s, &err) == 0) {
            bl_sweep_free(&s);
            fail_msg("name '%s' accepted", bad[i]);
        }
        assert_memory_equal(err.msg, want, strlen(want));
    }
    expect_error("kernels: [triad]\nname: "
                 "a234567890123456789012345678901234567890123456789012345678901234"
                 "\nlayouts: [{np: 1}]\n",
                 "t.yaml:2:7: name "
                 "'a234567890123456789012345678901234567890123456789012345678901234'"
                 ": accepted: 1 to 63 letters, digits, '.', '_' or '-', not "
                 "starting with '.' or '-' (the name becomes a file name "
                 "under the results directory, so no '/')");
    assert_int_equal(bl_sweep_file_load_string("kernels: [triad]\nname: "
                                           "My_sweep-2.v1\nlayouts: [{np: 1}]\n",
                                           "t.yaml", &s, &err), 0);
    assert_string_equal(s.name, "My_sweep-2.v1");
    bl_sweep_free(&s);
}

/* A file named ".yaml" or "my sweep.yaml" gives no usable name. */
static void config_refuses_an_unsafe_name_taken_from_the_file(void **state)
{
    char dir[] = "/tmp/bl-test-config-XXXXXX", path[128];
    bl_sweep s;
    bl_err err;
    FILE *f;
    (void)state;
    assert_non_null(mkdtemp(dir));
    FMT(path, sizeof path, "%s/my sweep.yaml", dir);
    assert_non_null(f = fopen(path, "w"));
    fputs("kernels: [triad]\nlayouts: [{np: 1}]\n", f);
    fclose(f);
    assert_int_equal(bl_sweep_file_load(path, &s, &err), -1);
    assert_non_null(strstr(err.msg, ":1:1: the sweep takes its name from "
                                    "the file name, and 'my sweep' cannot "
                                    "be one; give name:"));
    unlink(path);
    rmdir(dir);
}

static void config_refuses_devices_and_oversized_files(void **state)
{
    char dir[] = "/tmp/bl-test-config-XXXXXX", path[128];
    bl_sweep s;
    bl_err err;
    FILE *f;
    (void)state;
    assert_int_equal(bl_sweep_file_load("/dev/zero", &s, &err), -1);
    assert_string_equal(err.msg, "/dev/zero: not a regular file; give the "
                                 "path of a sweep file (YAML)");
    assert_int_equal(bl_sweep_file_load("/", &s, &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file"));

    assert_non_null(mkdtemp(dir));
    FMT(path, sizeof path, "%s/big.yaml", dir);
    assert_non_null(f = fopen(path, "w"));
    /* 1 MiB + 1 byte of comment lines: one over the limit. */
    for (int i = 0; i < 16384; i++)
        fputs("# 34567890123456789012345678901234567890123456789012345678901"
              "23\n", f);
    fputs("x", f);
    fclose(f);
    assert_int_equal(bl_sweep_file_load(path, &s, &err), -1);
    assert_non_null(strstr(err.msg, "big.yaml: larger than 1048576 bytes "
                                    "(1 MiB), the most a sweep file may "
                                    "have"));
    unlink(path);
    rmdir(dir);
}

static void config_refuses_long_lines_at_their_position(void **state)
{
    char *text = malloc(5000);
    (void)state;
    assert_non_null(text);
    strcpy(text, "kernels: [triad]\nname: ");
    memset(text + strlen(text), 'a', 4100);
    strcpy(text + 23 + 4100, "\n");
    expect_error(text, "t.yaml:2:4097: line longer than 4096 characters, "
                       "the most a sweep file line may have (is this a "
                       "sweep file?)");
    free(text);
}

/* align_shares: true passes --align-shares, false passes nothing. */
static void align_shares_key_passes_the_app_flag(void **state)
{
    bl_sweep s;
    bl_err err;
    (void)state;
    assert_int_equal(bl_sweep_file_load_string(
                         "kernels:\n  - {name: triad, align_shares: true}\n"
                         "  - {name: triad, label: plain, align_shares: false}\n"
                         "sweep: {np: 1}\n", "t.yaml", &s, &err), 0);
    assert_int_equal(s.kernels[0].nargs, 1);
    assert_string_equal(s.kernels[0].args[0], "--align-shares");
    assert_int_equal(s.kernels[1].nargs, 0);
    bl_sweep_free(&s);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest parser[] = {
        cmocka_unit_test(config_loads_every_feature),
        cmocka_unit_test(config_names_a_sweep_after_its_file),
        cmocka_unit_test(config_reports_yaml_syntax_with_position),
        cmocka_unit_test(config_rejects_unknown_keys_listing_accepted),
        cmocka_unit_test(config_rejects_wrong_shapes),
        cmocka_unit_test(config_reads_the_repetition_order),
        cmocka_unit_test(config_rejects_bad_kernel_entries),
        cmocka_unit_test(config_refuses_an_unknown_kernel_at_its_name),
        cmocka_unit_test(align_shares_key_passes_the_app_flag),
        cmocka_unit_test(config_rejects_bad_values_where_written),
        cmocka_unit_test(config_reads_the_launcher_key),
        cmocka_unit_test(config_rejects_keys_in_the_wrong_section),
        cmocka_unit_test(config_rejects_sweeps_that_expand_wrong),
        cmocka_unit_test(config_refuses_huge_cross_products),
        cmocka_unit_test(config_names_a_missing_file),
        cmocka_unit_test(config_accepts_what_the_app_accepts),
        cmocka_unit_test(config_refuses_names_that_are_paths),
        cmocka_unit_test(config_refuses_an_unsafe_name_taken_from_the_file),
        cmocka_unit_test(config_refuses_devices_and_oversized_files),
        cmocka_unit_test(config_refuses_long_lines_at_their_position),
    };
    /* The shipped topologies are in the source tree: nothing to skip. */
    const struct CMUnitTest shipped_sweeps[] = {
        cmocka_unit_test(shipped_sweeps_validate_on_their_nodes),
        cmocka_unit_test(xeon_per_numa_is_refused_on_the_numa_less_capture),
    };
    const bl_test_group groups[] = {
        BL_GROUP("parser", parser),
        BL_GROUP("shipped", shipped_sweeps),
    };
    return bl_run_groups(argc, argv, groups);
}
