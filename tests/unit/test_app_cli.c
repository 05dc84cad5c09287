/* bindlab-app's option parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "app_cli.h"

/* Splits a command line on spaces (test inputs have no quoting). */
static int parse(bl_app_opts *o, bl_err *err, const char *line)
{
    static char buf[512];
    char *argv[64] = {"bindlab-app"};
    int argc = 1;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
        argv[argc++] = t;
    return bl_app_parse(argc, argv, o, err);
}

static void app_cli_reads_every_option(void **state)
{
    bl_app_opts o;
    bl_err err;
    (void)state;
    assert_int_equal(parse(&o, &err, "--kernel triad --size=1.5GiB --iters 7 --warmup=0 --init serial --out x.h5 --show-placement --check"),
                     0);
    assert_string_equal(o.kernel->name, "triad");
    assert_int_equal(o.k.size_bytes, 1610612736ULL);
    assert_int_equal(o.iters, 7);
    assert_int_equal(o.k.iters, 7);
    assert_int_equal(o.warmup, 0);
    assert_int_equal(o.k.serial_init, 1);
    assert_string_equal(o.out, "x.h5");
    assert_int_equal(o.show_placement, 1);
    assert_int_equal(o.check, 1);
    assert_int_equal(parse(&o, &err, "--kernel=stencil --grid 64x32 --radius 3 --overlap --size 1MiB"),
                     0);
    assert_string_equal(o.kernel->name, "stencil");
    assert_int_equal(o.k.grid_dims, 2);
    assert_int_equal(o.k.grid[0], 64);
    assert_int_equal(o.k.grid[1], 32);
    assert_int_equal(o.k.radius, 3);
    assert_int_equal(o.k.overlap, 1);
    assert_int_equal(o.k.size_bytes, 1048576);
    assert_int_equal(parse(&o, &err, "--kernel lu --n 1000 --nb=64 --seed 5 --grid 2x1"),
                     0);
    assert_string_equal(o.kernel->name, "lu");
    assert_null(o.isa); /* not given: BINDLAB_ISA or the best level */
    assert_int_equal(o.k.n, 1000);
    assert_int_equal(o.k.nb, 64);
    assert_int_equal(o.k.seed, 5);
    assert_int_equal(o.k.grid_dims, 2);
    /* --isa is every kernel's; the CPU is asked when the run starts */
    assert_int_equal(parse(&o, &err, "--kernel stencil --isa avx2"), 0);
    assert_string_equal(o.isa, "avx2");
    assert_int_equal(parse(&o, &err, "--kernel lu --isa=sse2"), 0);
    assert_string_equal(o.isa, "sse2");
}

/* The documented defaults (README, --help): triad, 10 timed iterations
 * after 2 warm-up ones, no file. */
static void app_cli_defaults(void **state)
{
    bl_app_opts o;
    bl_err err;
    (void)state;
    assert_int_equal(parse(&o, &err, "--show-placement"), 0);
    assert_string_equal(o.kernel->name, "triad");
    assert_int_equal(o.iters, 10);
    assert_int_equal(o.k.iters, 10);
    assert_int_equal(o.warmup, 2);
    assert_int_equal(o.k.size_bytes, 0); /* 0: the kernel's own default */
    assert_int_equal(o.k.serial_init, 0);
    assert_int_equal(o.check, 0);
    assert_null(o.out);
}

/* An option the chosen kernel does not read is refused, naming the option
 * and the kernels that take it, whatever the order on the line. */
static void app_cli_refuses_options_of_other_kernels(void **state)
{
    static const struct {
        const char *line, *option, *takers;
    } cases[] = {
        {"--kernel triad --radius 3", "--radius", "stencil"},
        {"--radius 3", "--radius", "stencil"}, /* triad by default */
        {"--overlap --kernel triad", "--overlap", "stencil"},
        {"--kernel triad --grid 64", "--grid", "stencil, lu"},
        {"--kernel triad --seed=4", "--seed", "lu"},
        {"--kernel stencil --n 100", "--n", "lu"},
        {"--kernel stencil --nb 8", "--nb", "lu"},
        {"--kernel lu --size 1MiB", "--size", "triad, stencil"},
        {"--kernel lu --radius 1", "--radius", "stencil"},
    };
    bl_app_opts o;
    bl_err err;
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err.msg[0] = '\0';
        if (parse(&o, &err, cases[i].line) != -1)
            fail_msg("'%s' was accepted", cases[i].line);
        if (strncmp(err.msg, cases[i].option, strlen(cases[i].option)) ||
            !strstr(err.msg, cases[i].takers))
            fail_msg("'%s': %s", cases[i].line, err.msg);
    }
    /* --help still works with any mix */
    assert_int_equal(parse(&o, &err, "--kernel triad --radius 3 --help"), 0);
    assert_int_equal(o.help, 1);
}

static void app_cli_errors_name_the_option(void **state)
{
    bl_app_opts o;
    bl_err err;
    (void)state;
    assert_int_equal(parse(&o, &err, "--bogus"), -1);
    assert_non_null(strstr(err.msg, "--bogus"));
    assert_int_equal(parse(&o, &err, "--kernel fft"), -1);
    assert_non_null(strstr(err.msg, "triad"));
    assert_int_equal(parse(&o, &err, "--iters ten"), -1);
    assert_non_null(strstr(err.msg, "--iters"));
    assert_int_equal(parse(&o, &err, "--iters 0"), -1);
    assert_int_equal(parse(&o, &err, "--init lazy"), -1);
    assert_non_null(strstr(err.msg, "parallel or serial"));
    assert_int_equal(parse(&o, &err, "--grid 64x"), -1);
    assert_non_null(strstr(err.msg, "--grid"));
    assert_int_equal(parse(&o, &err, "--grid 0x4"), -1);
    assert_int_equal(parse(&o, &err, "--grid 1x2x3x4"), -1);
    assert_int_equal(parse(&o, &err, "--size"), -1);
    assert_non_null(strstr(err.msg, "needs a value"));
    assert_int_equal(parse(&o, &err, "--out="), -1);
    assert_int_equal(parse(&o, &err, "--isa="), -1);
    assert_non_null(strstr(err.msg, "--isa"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(app_cli_reads_every_option),
        cmocka_unit_test(app_cli_defaults),
        cmocka_unit_test(app_cli_refuses_options_of_other_kernels),
        cmocka_unit_test(app_cli_errors_name_the_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
