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
"  --size SIZE          triad, stencil: bytes across one rank's arrays, e.g.\n"
"                       1.5GiB, 800MB (triad: 3 arrays of doubles; default\n"
"                       256MiB)\n"
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
"  --seed S             lu: seed of the random matrix\n"
"  An option a kernel does not read is refused (exit 2), not ignored.\n"
"\n"
"Output:\n"
"  --out FILE.h5        write the run file (HDF5; written as FILE.h5.tmp.PID\n"
"                       and renamed when complete). Checked before the run:\n"
"                       its directory must exist and be writable, and only a\n"
"                       regular file is replaced (a device, directory, FIFO\n"
"                       or socket is refused)\n"
"  --show-placement     print an xthi-like table: host rank thread cpu core l3\n"
"                       numa package cpuset, one line per thread\n"
"  --help, --version\n"
"\n"
"Threads come from OMP_NUM_THREADS, their binding from OMP_PLACES and\n"
"OMP_PROC_BIND; the rank's binding from the launcher (--map-by/--bind-to).\n"
"Exit status: 0 verified, 1 run-time failure or wrong answer (or the run\n"
"file could not be written, e.g. no space left on device), 2 bad input\n"
"(including an --out that cannot be written).\n";
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

/* "AxB[xC]": the parser the sweep-file reader uses too (common/units.c). */
static int parse_grid(const char *text, bl_kernel_opts *k, bl_err *err)
{
    return bl_parse_grid(text, "--grid", k->grid, &k->grid_dims, err);
}

static int option_is(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return strncmp(arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

/* Options that only some kernels read. A kernel that would ignore one
 * refuses it instead, so `--kernel triad --radius 3` is not a silent
 * no-op. */
static const struct {
    const char *option, *kernels; /* kernels: names separated by ", " */
} kernel_options[] = {
    {"--size", "triad, stencil"}, {"--grid", "stencil, lu"},
    {"--radius", "stencil"},     {"--overlap", "stencil"},
    {"--n", "lu"},               {"--nb", "lu"},
    {"--seed", "lu"},
};
#define N_KERNEL_OPTIONS (sizeof kernel_options / sizeof kernel_options[0])

/* Bit of a kernel-only option in the "given" mask; 0 for the others. */
static unsigned kernel_option_bit(const char *arg)
{
    for (size_t i = 0; i < N_KERNEL_OPTIONS; i++) {
        size_t len = strlen(kernel_options[i].option);
        if (strncmp(arg, kernel_options[i].option, len) == 0 &&
            (arg[len] == '\0' || arg[len] == '='))
            return 1u << i;
    }
    return 0;
}

static int takes(const char *kernels, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = kernels; (p = strstr(p, name)); p += len)
        if ((p == kernels || p[-1] == ' ') && (p[len] == ',' || !p[len]))
            return 1;
    return 0;
}

static int check_kernel_options(const bl_kernel *k, unsigned given,
                                bl_err *err)
{
    for (size_t i = 0; i < N_KERNEL_OPTIONS; i++)
        if ((given & (1u << i)) && !takes(kernel_options[i].kernels, k->name))
            return bl_err_set(err, "%s: --kernel %s does not take it (it is "
                              "for: %s); drop it or choose that kernel",
                              kernel_options[i].option, k->name,
                              kernel_options[i].kernels);
    return 0;
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

/* A whole-number kernel option in the range common/units.c gives it (the
 * sweep-file reader checks the same range). */
static int parse_count_opt(const char *value, const char *name, int *out,
                           bl_err *err)
{
    long v;
    if (bl_parse_count(value, name, name, &v, err) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

int bl_app_parse(int argc, char **argv, bl_app_opts *o, bl_err *err)
{
    unsigned given = 0;
    memset(o, 0, sizeof *o);
    o->iters = BL_APP_DEFAULT_ITERS;
    o->warmup = BL_APP_DEFAULT_WARMUP;
    o->kernel = bl_kernel_find("triad");

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        long lv;
        given |= kernel_option_bit(a);
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
                parse_count_opt(v, "--iters", &o->iters, err) < 0)
                return -1;
        } else if (option_is(a, "--warmup")) {
            if (take_value(argc, argv, &i, "--warmup", &v, err) < 0 ||
                parse_count_opt(v, "--warmup", &o->warmup, err) < 0)
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
                parse_count_opt(v, "--radius", &o->k.radius, err) < 0)
                return -1;
        } else if (option_is(a, "--n")) {
            if (take_value(argc, argv, &i, "--n", &v, err) < 0 ||
                bl_parse_count(v, "--n", "--n", &o->k.n, err) < 0)
                return -1;
        } else if (option_is(a, "--nb")) {
            if (take_value(argc, argv, &i, "--nb", &v, err) < 0 ||
                parse_count_opt(v, "--nb", &o->k.nb, err) < 0)
                return -1;
        } else if (option_is(a, "--seed")) {
            if (take_value(argc, argv, &i, "--seed", &v, err) < 0 ||
                bl_parse_count(v, "--seed", "--seed", &lv, err) < 0)
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
    if (o->help || o->version)
        return 0;
    return check_kernel_options(o->kernel, given, err);
}

const char *bl_app_version(void)
{
    return BINDLAB_VERSION;
}
