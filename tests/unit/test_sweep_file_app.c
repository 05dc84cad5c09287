/* The app: block of sweep files: a good file read into the sweep (the
 * program's argv and env templates, the rate), every error at its
 * FILE:LINE:COL, and the placeholders filled for one layout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bl_test.h"
#include "sweep/sweep_app.h"
#include "sweep/sweep_file.h"
#include "sweep_file_expect.h"

static const char good[] =
    "app:\n"
    "  command: [/opt/LAMMPS/lmp, -in, in.lj, -var, n, \"{np}\"]\n"
    "  env: {OPENBLAS_NUM_THREADS: \"{threads}\", TAG: \"x{{y}}\"}\n"
    "  rate: {regex: 'Performance: ([0-9.]+) tau/day', unit: tau/day,\n"
    "         higher_is_better: true}\n"
    "sweep: {np: 2, bind_to: [core, none]}\n";

static void app_file_reads_command_env_and_rate(void **state)
{
    bl_sweep s;
    bl_err err;
    (void)state;
    if (bl_sweep_file_load_string(good, "t.yaml", &s, &err) < 0)
        fail_msg("%s", err.msg);
    assert_non_null(s.app);
    assert_int_equal(s.app->ncommand, 6);
    assert_string_equal(s.app->command[0], "/opt/LAMMPS/lmp");
    assert_string_equal(s.app->command[5], "{np}");
    assert_null(s.app->command[6]);
    assert_int_equal(s.app->nenv, 2);
    assert_string_equal(s.app->env_names[1], "TAG");
    assert_string_equal(s.app->rate_regex, "Performance: ([0-9.]+) tau/day");
    assert_string_equal(s.app->rate_unit, "tau/day");
    assert_int_equal(s.app->higher_is_better, 1);
    /* one kernel entry standing for the program, two layouts */
    assert_int_equal(s.nkernels, 1);
    assert_string_equal(s.kernels[0].name, "lmp");
    assert_int_equal(s.nlayouts, 2);
    assert_string_equal(s.layouts[1].bind_to, "none");
    bl_sweep_free(&s);
}

static void app_without_rate_is_timed_in_runs_per_second(void **state)
{
    bl_sweep s;
    bl_err err;
    (void)state;
    if (bl_sweep_file_load_string("app: {command: [./My.App]}\n"
                                  "layouts: [{np: 1}]\n",
                                  "t.yaml", &s, &err) < 0)
        fail_msg("%s", err.msg);
    assert_null(s.app->rate_regex);
    assert_string_equal(s.app->rate_unit, "runs/s");
    assert_string_equal(s.kernels[0].name, "my.app");
    bl_sweep_free(&s);
}

static void placeholders_are_filled_from_the_layout(void **state)
{
    bl_sweep s;
    bl_err err;
    bl_app_values v;
    char *out;
    (void)state;
    if (bl_sweep_file_load_string(good, "t.yaml", &s, &err) < 0)
        fail_msg("%s", err.msg);
    v.layout = &s.layouts[0];
    v.threads = 3;
    v.repetition = 2;
    out = bl_app_substitute("n={np} t={threads} b={bind_to} r={run_id}"
                            "/{repetition} {{np}}", &v, &err);
    assert_non_null(out);
    assert_string_equal(out, "n=2 t=3 b=core r=r0000/2 {np}");
    free(out);
    assert_null(bl_app_substitute("{nope}", &v, &err));
    bl_sweep_free(&s);
}

static void app_errors_are_named_where_written(void **state)
{
    (void)state;
    expect_error("kernels: [triad]\napp: {command: [x]}\nlayouts: [{np: 1}]\n",
                 "t.yaml:2:6: app: and kernels: cannot both be given: a "
                 "sweep runs bindlab's kernels or a program of yours");
    expect_error("app: {command: [x]}\nkernels: [triad]\nlayouts: [{np: 1}]\n",
                 "t.yaml:2:10: kernels: and app: cannot both be given: a "
                 "sweep runs bindlab's kernels or a program of yours");
    expect_error("app: {command: [x, \"{nps}\"]}\nlayouts: [{np: 1}]\n",
                 "t.yaml:1:20: app: command '{nps}': unknown placeholder "
                 "{nps}; accepted: {np}, {threads}, {nodes}, {map_by}, "
                 "{bind_to}, {rank_by}, {omp_places}, {omp_proc_bind}, "
                 "{run_id}, {repetition}");
    expect_error("app: {command: [x], env: {A: \"{np\"}}\nlayouts: [{np: 1}]\n",
                 "t.yaml:1:30: app: env: A '{np': '{' without its '}' "
                 "(write {{ for the brace itself)");
    expect_error("app: {command: [x], env: {1A: b}}\nlayouts: [{np: 1}]\n",
                 "t.yaml:1:27: app: env: '1A' is not a variable name; "
                 "accepted: letters, digits and '_', not starting with a "
                 "digit");
    expect_error("app: {command: []}\nlayouts: [{np: 1}]\n",
                 "t.yaml:1:16: app: command: the list is empty; give the "
                 "program and its arguments, e.g. [lmp, -in, in.lj]");
    expect_error("app: {env: {A: b}}\nlayouts: [{np: 1}]\n",
                 "t.yaml:1:6: app: no command; accepted: {command: [lmp, "
                 "-in, in.lj, -var, n, \"{np}\"]}");
    expect_error("app: {command: [x], rate: {regex: 'a[0-9'}}\n"
                 "layouts: [{np: 1}]\n",
                 "t.yaml:1:35: app: rate: regex 'a[0-9': Unmatched [, [^, "
                 "[:, [., or [= (POSIX extended syntax)");
    expect_error("app: {command: [x], rate: {regex: 'Perf: [0-9.]+'}}\n"
                 "layouts: [{np: 1}]\n",
                 "t.yaml:1:35: app: rate: regex 'Perf: [0-9.]+' has no "
                 "group; put the number in one, e.g. 'Performance: "
                 "([0-9.]+) tau/day'");
    /* fuzz_sweep_file: regcomp took 2 GB on a hundred '+' after a letter */
    expect_error("app: {command: [x], rate: {regex: 'P(a++++++++++++++++++"
                 "++++++++++++)'}}\nlayouts: [{np: 1}]\n",
                 "t.yaml:1:35: app: rate: regex 'P(a++++++++++++++++++"
                 "++++++++++++)' is too large for regcomp once its repeats "
                 "are written out: 2147483649 parts (at most 100000), "
                 "1073741823 of them optional (at most 500: each '?', '*', "
                 "'+', '|' and each copy a {m,n} may skip); use fewer or "
                 "smaller repeats, e.g. '([0-9.]+)' for the number");
    expect_error("app: {command: [x], rate: {regex: '((((((((((((((((((((("
                 "((((((((((((((((((((((((((((((((((((((((((((a)'}}\n"
                 "layouts: [{np: 1}]\n",
                 "t.yaml:1:35: app: rate: regex '((((((((((((((((((((("
                 "((((((((((((((((((((((((((((((((((((((((((((a)': groups "
                 "nested more than 64 deep; a rate needs one group around "
                 "the number, e.g. 'Performance: ([0-9.]+) tau/day'");
    expect_error("app: {command: [x], rate: {unit: s}}\nlayouts: [{np: 1}]\n",
                 "t.yaml:1:27: app: rate: no regex; accepted: {regex: "
                 "'Performance: ([0-9.]+) tau/day', unit: tau/day}");
    expect_error("app: {command: [x], rate: {regex: '(a)', "
                 "higher_is_better: yes}}\nlayouts: [{np: 1}]\n",
                 "t.yaml:1:60: higher_is_better 'yes': accepted: true or "
                 "false");
}

static void app_unknown_keys_are_listed(void **state)
{
    bl_sweep s;
    bl_err err;
    (void)state;
    assert_int_equal(bl_sweep_file_load_string(
                         "app: {command: [x], argv: [y]}\nlayouts: [{np: 1}]\n",
                         "t.yaml", &s, &err), -1);
    assert_non_null(strstr(err.msg, "t.yaml:1:21:"));
    assert_non_null(strstr(err.msg, "command"));
    assert_non_null(strstr(err.msg, "rate"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest reader[] = {
        cmocka_unit_test(app_file_reads_command_env_and_rate),
        cmocka_unit_test(app_without_rate_is_timed_in_runs_per_second),
        cmocka_unit_test(placeholders_are_filled_from_the_layout),
        cmocka_unit_test(app_errors_are_named_where_written),
        cmocka_unit_test(app_unknown_keys_are_listed),
    };
    const bl_test_group groups[] = {
        BL_GROUP("reader", reader),
    };
    return bl_run_groups(argc, argv, groups);
}
