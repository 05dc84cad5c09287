/* The one command builder (launcher/launcher.h) for the sweep and the
 * plan: for every launcher of the table and every layout of every shipped
 * sweep (and hand-made ones for ppr, PE, numa, hwthread, no binding and
 * nodes), the plan's command is the run's command with the ranks' program
 * replaced and exactly the plan mode's additions, written out here per
 * launcher, so that the two cannot drift apart. */
#include "bl_test.h"
#include "bl_test_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindreport/bindreport.h"
#include "launcher/launcher.h"
#include "layout/layout.h"
#include "sweep/sweep_file.h"
#include "topo.h"

#define NODE "pack:2 numa:2 l3:1 core:4 pu:2"
#define HOSTS "plan-node1:16,plan-node2:16"

/* One detected launcher per table entry, as their --version answers. */
static const bl_launcher_info launchers[] = {
    {BL_LAUNCHER_OPENMPI, 4, 1, 4, "4.1.4"},
    {BL_LAUNCHER_OPENMPI, 5, 0, 6, "5.0.6"},
    {BL_LAUNCHER_MPICH, 4, 3, 0, "4.3.0"},
    {BL_LAUNCHER_INTELMPI, 2021, 8, 0, "2021.8"},
    {BL_LAUNCHER_SLURM, 22, 5, 8, "22.05.8"},
};
#define NLAUNCHERS (sizeof launchers / sizeof launchers[0])

/* Commands built per launcher: each must build some. */
static int built[NLAUNCHERS];

static const char *source_dir(void)
{
    const char *d = getenv("BINDLAB_SOURCE_DIR");
    return d ? d : ".";
}

static void add(const char **list, size_t *n, const char *word)
{
    list[(*n)++] = word;
}

/* The words a plan adds to the run's command, as docs/plan.md lists them
 * per launcher; np_text: "localhost:NP". */
static size_t plan_words(const bl_launcher_ops *ops, const bl_plan_mode *m,
                         const bl_layout_argv_opts *o, const char *np_text,
                         const char **want)
{
    size_t n = 0;
    int ompi = !strcmp(ops->name, "ompi4") || !strcmp(ops->name, "ompi5");
    if (ompi && !o->hosts) {
        add(want, &n, "--host");
        add(want, &n, np_text);
    }
    if (ompi && !m->launched)
        add(want, &n, "--do-not-launch");
    if (!strcmp(ops->name, "ompi5") && !m->launched) {
        add(want, &n, "--display");
        add(want, &n, "map");
    }
    if (!strcmp(ops->name, "mpich") && m->nodes > 1) {
        add(want, &n, "-launcher");
        add(want, &n, "fork");
    }
    return n;
}

/* The environment a plan adds, in order. */
static size_t plan_env(const bl_launcher_ops *ops, const bl_plan_mode *m,
                       const char **want)
{
    size_t n = 0;
    int ompi = !strcmp(ops->name, "ompi4") || !strcmp(ops->name, "ompi5");
    if (ompi)
        add(want, &n, "OMPI_MCA_rmaps_base_oversubscribe=0");
    if (!strcmp(ops->name, "ompi4") && m->nodes > 1)
        add(want, &n, "OMPI_MCA_orte_no_vm=1");
    add(want, &n, "HWLOC_XMLFILE=/nodes/x.xml");
    add(want, &n, "HWLOC_THISSYSTEM=1");
    add(want, &n, "LD_PRELOAD=/lib/preload.so");
    add(want, &n, "BINDLAB_PRELOAD_CPUS=0-15");
    return n;
}

static int was_planned(const bl_command *c, size_t i)
{
    for (size_t k = 0; k < c->nplanned; k++)
        if (c->planned[k] == i)
            return 1;
    return 0;
}

/* The plan's command against the run's, for one plan mode. */
static void compare(const char *what, const bl_launcher_ops *ops,
                    const bl_command *run, const bl_command *plan,
                    const bl_plan_mode *m, const bl_layout_argv_opts *o,
                    int np)
{
    const char *want[16];
    char np_text[32];
    size_t nwant, r = 0, i;

    snprintf(np_text, sizeof np_text, "localhost:%d", np);
    /* the run's words, the plan's own words taken out */
    for (i = 0; i < plan->app_at; i++) {
        if (was_planned(plan, i))
            continue;
        if (r >= run->app_at || strcmp(run->argv[r], plan->argv[i]))
            fail_msg("%s: plan word %zu '%s' is not the run's '%s'", what, i,
                     plan->argv[i], r < run->app_at ? run->argv[r] : "(end)");
        r++;
    }
    if (r != run->app_at)
        fail_msg("%s: the plan lacks the run's '%s'", what, run->argv[r]);
    /* the plan's own words are exactly the mode's additions */
    nwant = plan_words(ops, m, o, np_text, want);
    if (nwant != plan->nplanned)
        fail_msg("%s: the plan added %zu words, expected %zu", what,
                 plan->nplanned, nwant);
    for (i = 0; i < nwant; i++)
        if (strcmp(plan->argv[plan->planned[i]], want[i]))
            fail_msg("%s: plan addition %zu is '%s', expected '%s'", what, i,
                     plan->argv[plan->planned[i]], want[i]);
    /* the ranks' program, and nothing after it */
    assert_string_equal(run->argv[run->app_at], o->app);
    assert_string_equal(plan->argv[plan->app_at], m->program);
    assert_null(plan->argv[plan->app_at + 1]);
    assert_null(run->env);
    nwant = plan_env(ops, m, want);
    for (i = 0; i < nwant; i++) {
        if (!plan->env || !plan->env[i])
            fail_msg("%s: the plan's environment lacks %s", what, want[i]);
        assert_string_equal(plan->env[i], want[i]);
    }
    assert_null(plan->env[nwant]);
}

/* Run and plan commands of l for launcher li, every plan mode. */
static void check_layout(const char *label, const bl_launcher_info *li,
                         size_t li_index, const bl_layout *layout,
                         const bl_kernel_spec *k, hwloc_topology_t topo)
{
    const bl_launcher_ops *ops = bl_launcher_ops_of(li);
    bl_layout l = *layout;
    bl_layout_argv_opts o = {.launcher = NULL, .app = "/bin/bindlab-app",
                             .out_file = "r/x.h5", .threads = 2,
                             .is_root = 1};
    bl_err err;
    char what[256];

    assert_non_null(ops);
    if (bl_launcher_translate(&l, li, topo, &err) < 0)
        return; /* this launcher cannot express it: nothing to build */
    if (l.nodes > 1 && ops->hosts != BL_HOSTS_NONE)
        o.hosts = HOSTS;
    for (int launched = 0; launched < 2; launched++) {
        bl_plan_mode m = {.launched = launched, .nodes = l.nodes,
                          .program = "/bin/true", .xml = "/nodes/x.xml",
                          .preload = "/lib/preload.so",
                          .preload_cpus = "0-15"};
        bl_command run, plan;
        int rrc = bl_launcher_command(li, &l, k, &o, NULL, &run, &err);
        int prc;
        snprintf(what, sizeof what, "%s, %s %s%s", label, ops->name,
                 li->version, launched ? ", launched" : "");
        if (l.nodes > 1 && ops->plan_nodes_program)
            m.program = ops->plan_nodes_program;
        prc = bl_launcher_command(li, &l, k, &o, &m, &plan, &err);
        /* a layout the launcher cannot express is refused by both */
        assert_int_equal(rrc, prc);
        if (rrc == 0) {
            compare(what, ops, &run, &plan, &m, &o, l.np);
            built[li_index]++;
        }
        bl_command_free(&run);
        bl_command_free(&plan);
    }
}

static void check_every_launcher(const char *label, const bl_layout *l,
                                 const bl_kernel_spec *k,
                                 hwloc_topology_t topo)
{
    for (size_t i = 0; i < NLAUNCHERS; i++)
        check_layout(label, &launchers[i], i, l, k, topo);
}

static hwloc_topology_t node(void)
{
    hwloc_topology_t t;
    bl_err err;
    assert_int_equal(bl_topo_load(NODE, &t, &err), 0);
    return t;
}

static int is_yaml(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".yaml") == 0;
}

static void shipped_sweeps_plan_what_they_run(void **state)
{
    char dir[4096], path[4600];
    hwloc_topology_t t = node();
    struct dirent *e;
    DIR *d;
    int files = 0;
    (void)state;
    memset(built, 0, sizeof built);
    snprintf(dir, sizeof dir, "%s/configs/sweeps", source_dir());
    assert_non_null(d = opendir(dir));
    while ((e = readdir(d)) != NULL) {
        bl_sweep s;
        bl_err err;
        if (!is_yaml(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (bl_sweep_file_load(path, &s, &err) < 0)
            fail_msg("%s", err.msg);
        for (int i = 0; i < s.nlayouts; i++) {
            char label[1100];
            snprintf(label, sizeof label, "%s: %s", e->d_name,
                     s.layouts[i].label);
            check_every_launcher(label, &s.layouts[i],
                                 &s.kernels[s.layouts[i].kernel], t);
        }
        bl_sweep_free(&s);
        files++;
    }
    closedir(d);
    hwloc_topology_destroy(t);
    assert_true(files > 0);
    /* every launcher spelled some of them (srun and Hydra refuse a few) */
    for (size_t i = 0; i < NLAUNCHERS; i++)
        if (!built[i])
            fail_msg("%s: no shipped layout built a command",
                     bl_launcher_ops_of(&launchers[i])->name);
}

static bl_layout make(const char *np, const char *nodes, const char *map,
                      const char *bind)
{
    bl_layout l;
    bl_err err;
    bl_layout_defaults(&l);
    assert_int_equal(bl_layout_set(&l, BL_F_NP, np, &err), 0);
    if (nodes)
        assert_int_equal(bl_layout_set(&l, BL_F_NODES, nodes, &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_MAP_BY, map, &err), 0);
    assert_int_equal(bl_layout_set(&l, BL_F_BIND_TO, bind, &err), 0);
    snprintf(l.label, sizeof l.label, "np %s nodes %s map_by %s bind_to %s",
             np, nodes ? nodes : "-", map, bind);
    return l;
}

static void hand_made_layouts_plan_what_they_run(void **state)
{
    static const char *const cases[][4] = {
        {"4", NULL, "ppr:2:package", "core"},
        {"4", NULL, "ppr:4:node", "core"},
        {"2", NULL, "core:PE=2", "core"},
        {"2", NULL, "numa", "numa"},
        {"4", NULL, "hwthread", "hwthread"},
        {"2", NULL, "package", "none"},
        {"3", NULL, "core:OVERSUBSCRIBE", "core"},
        {"4", "2", "ppr:2:node", "core"},
        {"4", "2", "node", "core"},
        {"6", "2", "core", "core"},
    };
    bl_kernel_spec k = {.name = "triad"};
    hwloc_topology_t t = node();
    (void)state;
    memset(built, 0, sizeof built);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bl_layout l = make(cases[i][0], cases[i][1], cases[i][2],
                           cases[i][3]);
        check_every_launcher(l.label, &l, &k, t);
    }
    hwloc_topology_destroy(t);
    for (size_t i = 0; i < NLAUNCHERS; i++)
        assert_true(built[i] > 0);
}

/* The overload rule of a real launch holds in the plan too: Open MPI binds
 * two ranks to one core only when the binding allows overload. */
static void oversubscribed_plan_allows_overload(void **state)
{
    bl_layout l = make("3", NULL, "core:OVERSUBSCRIBE", "core");
    bl_kernel_spec k = {.name = "triad"};
    bl_layout_argv_opts o = {.app = "app", .out_file = "o.h5", .threads = 1};
    bl_plan_mode m = {.program = "/bin/true"};
    hwloc_topology_t t = node();
    bl_command c;
    bl_err err;
    int seen = 0;
    (void)state;
    assert_int_equal(bl_launcher_translate(&l, &launchers[0], t, &err), 0);
    assert_int_equal(bl_launcher_command(&launchers[0], &l, &k, &o, &m, &c,
                                         &err), 0);
    for (char **a = c.argv; *a; a++)
        seen += strcmp(*a, "core:overload-allowed") == 0;
    assert_int_equal(seen, 1);
    bl_command_free(&c);
    hwloc_topology_destroy(t);
}

/* bindlab run: any program (and its arguments, last and in order) in
 * place of bindlab-app, and the probe's variables given to every rank in
 * each launcher's own export words. */
static void program_and_rank_env_in_every_launcher(void **state)
{
    static char *const program[] = {"/usr/bin/prog", "--flag", "x y", NULL};
    static char *const env[] = {"LD_PRELOAD=/lib/probe.so",
                                "BINDLAB_PROBE_DIR=/tmp/p d", NULL};
    static const char *const words[] = {"-x", "-x", "-genv", "-genv", NULL};
    bl_layout l = make("2", NULL, "core", "core");
    bl_kernel_spec k = {.name = "triad"};
    bl_layout_argv_opts o = {.threads = 2, .program = program,
                             .rank_env = env};
    hwloc_topology_t t = node();
    bl_err err;
    (void)state;
    for (size_t i = 0; i < NLAUNCHERS; i++) {
        const char *name = bl_launcher_ops_of(&launchers[i])->name;
        bl_command c;
        int preload = 0, dir = 0;
        size_t n = 0;
        assert_int_equal(bl_launcher_translate(&l, &launchers[i], t, &err), 0);
        assert_int_equal(bl_launcher_command(&launchers[i], &l, &k, &o, NULL,
                                             &c, &err), 0);
        while (c.argv[n])
            n++;
        assert_true(n == c.app_at + 3);
        for (int w = 0; w < 3; w++)
            assert_string_equal(c.argv[c.app_at + (size_t)w], program[w]);
        for (size_t a = 0; a < c.app_at; a++) {
            const char *prev = a ? c.argv[a - 1] : "";
            int exported = strcmp(name, "srun") == 0
                ? strstr(c.argv[a], "--export=") == c.argv[a]
                : i < 4 && strcmp(prev, words[i]) == 0;
            if (strcmp(name, "srun") == 0 || strncmp(name, "ompi", 4) == 0) {
                preload += exported && strstr(c.argv[a], env[0]) != NULL;
                dir += exported && strstr(c.argv[a], env[1]) != NULL;
            } else { /* -genv NAME VALUE */
                preload += exported && strcmp(c.argv[a], "LD_PRELOAD") == 0 &&
                           strcmp(c.argv[a + 1], "/lib/probe.so") == 0;
                dir += exported && strcmp(c.argv[a], "BINDLAB_PROBE_DIR") == 0 &&
                       strcmp(c.argv[a + 1], "/tmp/p d") == 0;
            }
        }
        if (preload != 1 || dir != 1)
            fail_msg("%s: LD_PRELOAD exported %d times, BINDLAB_PROBE_DIR %d",
                     name, preload, dir);
        bl_command_free(&c);
    }
    hwloc_topology_destroy(t);
}

/* What each launcher printed, captured: a run's report and its answer to
 * a plan (Open MPI 4's job map is turned into report lines first). */
static const char *const captured[][3] = {
    {"ompi4", "ompi4-vm-core.txt", "ompi4-vm-core.txt"},
    {"ompi5", "ompi5-vm-core.txt", "ompi5-vm-map.txt"},
    {"mpich", "hydra-vm-core.txt", "hydra-vm-core.txt"},
    {"impi", "impi-vm-pin-domain-core.txt", NULL},
    {"srun", "slurm-docs.txt", NULL},
};

/* The format bindreport finds in file. */
static bl_report_format format_in(const char *file, hwloc_topology_t t)
{
    char *text = bl_test_fixture("bindreport", file);
    bl_binding_report rep;
    bl_report_format f;
    bl_err err;
    assert_int_equal(bl_bindreport_parse(text, BL_REPORT_AUTO, t, &rep,
                                         &err), 0);
    f = rep.format;
    bl_bindreport_free(&rep);
    free(text);
    return f;
}

/* The format an entry names for its report (and its plan's answer) is the
 * one bindreport finds in that launcher's real output. */
static void report_formats_are_what_the_launchers_print(void **state)
{
    hwloc_topology_t t;
    bl_err err;
    (void)state;
    assert_int_equal(bl_topo_load("pack:1 core:2 pu:1", &t, &err), 0);
    for (size_t i = 0; i < sizeof captured / sizeof captured[0]; i++) {
        const bl_launcher_ops *ops = bl_launcher_ops_named(captured[i][0]);
        const char *names[2];
        assert_non_null(ops);
        names[0] = ops->report_format;
        names[1] = ops->plan_report_format;
        for (int k = 0; k < 2; k++) {
            bl_report_format want, got;
            if (!captured[i][k + 1]) {
                assert_null(names[k]);
                continue;
            }
            assert_int_equal(bl_bindreport_format_parse(names[k], &want,
                                                        &err), 0);
            got = format_in(captured[i][k + 1], t);
            if (got != want)
                fail_msg("%s: %s reads as %s, not %s", ops->name,
                         captured[i][k + 1], bl_bindreport_format_name(got),
                         names[k]);
        }
    }
    /* every built-in launcher has its captured output here */
    for (size_t i = 0; bl_launcher_ops_at(i); i++) {
        size_t j = 0;
        while (j < sizeof captured / sizeof captured[0] &&
               strcmp(captured[j][0], bl_launcher_ops_at(i)->name))
            j++;
        assert_true(j < sizeof captured / sizeof captured[0]);
    }
    hwloc_topology_destroy(t);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest sweeps[] = {
        cmocka_unit_test(shipped_sweeps_plan_what_they_run),
    };
    static const struct CMUnitTest hand[] = {
        cmocka_unit_test(hand_made_layouts_plan_what_they_run),
        cmocka_unit_test(oversubscribed_plan_allows_overload),
        cmocka_unit_test(program_and_rank_env_in_every_launcher),
        cmocka_unit_test(report_formats_are_what_the_launchers_print),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("sweeps", sweeps),
        BL_GROUP("hand", hand),
    };
    return bl_run_groups(argc, argv, groups);
}
