#include "app_cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

const char *bl_app_usage(void)
{
    return
"Usage: mpirun [launcher options] bindlab-app [options]\n"
"\n"
"Runs one kernel on every rank, with OpenMP threads inside each rank, and\n"
"records where every rank, thread and page ran or lives.\n"
"\n"
"Kernel and work:\n"
"  --kernel NAME        kernel to run (default triad; see below)\n"
"  --size SIZE          bytes across one rank's arrays, e.g. 1.5GiB, 800MB\n"
"                       (triad: 3 arrays of doubles; default 256MiB)\n"
"  --iters N            timed iterations (default 10)\n"
"  --warmup N           untimed iterations before them (default 2)\n"
"  --init parallel|serial\n"
"                       first touch by all threads with the compute loop's\n"
"                       schedule(static) (default), or by the master thread\n"
"                       alone (the classic mistake, kept to measure it)\n"
"  --grid AxB[xC]       stencil: global grid NX[xNY[xNZ]]; lu: process grid PxQ\n"
"  --radius R           stencil: star radius 1..4 (default 2)\n"
"  --overlap            stencil: compute the interior while halos travel\n"
"  --n N, --nb NB       lu: matrix order and block size\n"
"  --seed S             seed for kernels with random input\n"
"\n"
"Output:\n"
"  --out FILE.h5        write the run file (HDF5; written as FILE.h5.tmp.PID\n"
"                       and renamed when complete)\n"
"  --show-placement     print an xthi-like table: host rank thread cpu core l3\n"
"                       numa package cpuset, one line per thread\n"
"  --help, --version\n"
"\n"
"Threads come from OMP_NUM_THREADS, their binding from OMP_PLACES and\n"
"OMP_PROC_BIND; the rank's binding from the launcher (--map-by/--bind-to).\n"
"Exit status: 0 verified, 1 run-time failure or wrong answer, 2 bad input.\n";
}

/* The value of option `name` at argv[*i]: "--name=value" or "--name value". */
static int take_value(int argc, char **argv, int *i, const char *name,
                      const char **value, bl_err *err)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 0;
    }
    if (*i + 1 >= argc)
        return bl_err_set(err, "%s: needs a value", name);
    *value = argv[++*i];
    return 0;
}

/* "AxB[xC]" with whole numbers >= 1. */
static int parse_grid(const char *text, bl_kernel_opts *k, bl_err *err)
{
    const char *p = text;
    int dims = 0;
    for (;;) {
        char *end;
        long v;
        if (!isdigit((unsigned char)*p) || dims == 3)
            break;
        errno = 0;
        v = strtol(p, &end, 10);
        if (errno || v < 1)
            break;
        k->grid[dims++] = v;
        p = end;
        if (*p == '\0') {
            k->grid_dims = dims;
            return 0;
        }
        if (*p != 'x' && *p != 'X')
            break;
        p++;
    }
    return bl_err_set(err,
                      "--grid: '%s' is not AxB[xC] with whole numbers >= 1 "
                      "(e.g. 4096, 4096x2048, 256x256x256, or 2x1 for lu)",
                      text);
}

static int option_is(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return strncmp(arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

static int parse_int_opt(const char *value, const char *name, long min,
                         long max, int *out, bl_err *err)
{
    long v;
    if (bl_parse_long(value, name, min, max, &v, err) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

int bl_app_parse(int argc, char **argv, bl_app_opts *o, bl_err *err)
{
    memset(o, 0, sizeof *o);
    o->iters = BL_APP_DEFAULT_ITERS;
    o->warmup = BL_APP_DEFAULT_WARMUP;
    o->kernel = bl_kernel_find("triad");

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        long lv;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = 1;
        } else if (strcmp(a, "--version") == 0) {
            o->version = 1;
        } else if (strcmp(a, "--show-placement") == 0) {
            o->show_placement = 1;
        } else if (strcmp(a, "--overlap") == 0) {
            o->k.overlap = 1;
        } else if (option_is(a, "--kernel")) {
            if (take_value(argc, argv, &i, "--kernel", &v, err) < 0)
                return -1;
            o->kernel = bl_kernel_find(v);
            if (!o->kernel)
                return bl_err_set(err, "--kernel: '%s' is not a kernel; "
                                  "accepted: %s", v, bl_kernel_names());
        } else if (option_is(a, "--size")) {
            if (take_value(argc, argv, &i, "--size", &v, err) < 0 ||
                bl_parse_size(v, "--size", &o->k.size_bytes, err) < 0)
                return -1;
        } else if (option_is(a, "--iters")) {
            if (take_value(argc, argv, &i, "--iters", &v, err) < 0 ||
                parse_int_opt(v, "--iters", 1, 1000000, &o->iters, err) < 0)
                return -1;
        } else if (option_is(a, "--warmup")) {
            if (take_value(argc, argv, &i, "--warmup", &v, err) < 0 ||
                parse_int_opt(v, "--warmup", 0, 1000000, &o->warmup, err) < 0)
                return -1;
        } else if (option_is(a, "--init")) {
            if (take_value(argc, argv, &i, "--init", &v, err) < 0)
                return -1;
            if (strcmp(v, "parallel") == 0)
                o->k.serial_init = 0;
            else if (strcmp(v, "serial") == 0)
                o->k.serial_init = 1;
            else
                return bl_err_set(err, "--init: '%s' is not accepted; "
                                  "use parallel or serial", v);
        } else if (option_is(a, "--grid")) {
            if (take_value(argc, argv, &i, "--grid", &v, err) < 0 ||
                parse_grid(v, &o->k, err) < 0)
                return -1;
        } else if (option_is(a, "--radius")) {
            if (take_value(argc, argv, &i, "--radius", &v, err) < 0 ||
                parse_int_opt(v, "--radius", 1, 64, &o->k.radius, err) < 0)
                return -1;
        } else if (option_is(a, "--n")) {
            if (take_value(argc, argv, &i, "--n", &v, err) < 0 ||
                bl_parse_long(v, "--n", 1, 100000000L, &o->k.n, err) < 0)
                return -1;
        } else if (option_is(a, "--nb")) {
            if (take_value(argc, argv, &i, "--nb", &v, err) < 0 ||
                parse_int_opt(v, "--nb", 1, 1000000, &o->k.nb, err) < 0)
                return -1;
        } else if (option_is(a, "--seed")) {
            if (take_value(argc, argv, &i, "--seed", &v, err) < 0 ||
                bl_parse_long(v, "--seed", 0, 2147483647L, &lv, err) < 0)
                return -1;
            o->k.seed = (unsigned long)lv;
        } else if (option_is(a, "--test-hook")) {
            if (take_value(argc, argv, &i, "--test-hook", &v, err) < 0 ||
                parse_int_opt(v, "--test-hook", 0, 1000, &o->k.test_hook,
                              err) < 0)
                return -1;
        } else if (option_is(a, "--out")) {
            if (take_value(argc, argv, &i, "--out", &v, err) < 0)
                return -1;
            if (*v == '\0')
                return bl_err_set(err, "--out: needs a file name");
            o->out = v;
        } else {
            return bl_err_set(err, "unknown option '%s' (see --help)", a);
        }
    }
    o->k.iters = o->iters;
    return 0;
}

const char *bl_app_version(void)
{
    return BINDLAB_VERSION;
}
