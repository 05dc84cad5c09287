#include "app_cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstat.h"
#include "units.h"

/* The help text, in two strings: ISO C asks compilers for 4095
 * characters per string literal, no more. */
void bl_app_usage_write(FILE *f)
{
    fputs(
"Usage: mpirun [launcher options] bindlab-app [options]\n"
"\n"
"Runs one kernel on every rank, with OpenMP threads inside each rank, and\n"
"records where every rank, thread and page ran or lives.\n"
"\n"
"Kernel and work:\n"
"  --kernel NAME        kernel to run (default triad; see below)\n"
"  --size SIZE          triad, stencil: bytes across one rank's arrays, e.g.\n"
"                       1.5GiB, 800MB (triad: 3 arrays of doubles; default\n"
"                       256MiB); shared: the table (default 64MiB)\n"
"  --iters N            timed iterations (default 10)\n"
"  --warmup N           untimed iterations before them (default 2)\n"
"  --init parallel|serial\n"
"                       first touch by all threads with the compute loop's\n"
"                       schedule(static) (default), or by the master thread\n"
"                       alone (the classic mistake, kept to measure it)\n"
"  --align-shares       triad, stencil: each share starts on a huge page\n"
"                       (transparent huge page size, 2 MiB if unknown),\n"
"                       in first touch and the compute loop alike, so that\n"
"                       no huge page holds two threads' data\n"
"  --grid AxB[xC]       stencil: global grid NX[xNY[xNZ]]; lu: process grid PxQ\n"
"  --radius R           stencil: star radius 1..4 (default 2)\n"
"  --overlap            stencil: compute the interior while halos travel\n"
"  --n N, --nb NB       lu: matrix order and block size\n"
"  --seed S             lu: seed of the random matrix; shared: of the lookups\n"
"  --writes PCT         shared: percent of lookups that write (default 0)\n"
"  --huge-pages off|thp|hugetlb\n"
"                       latency: 4 KiB pages (default), transparent huge\n"
"                       pages (madvise), or MAP_HUGETLB from the reserved\n"
"                       pool (falls back to thp, saying why); latency's\n"
"                       --size defaults to 4 x the last-level cache, at\n"
"                       least 256MiB\n"
"  --access chase|lines latency: dependent loads over a random cycle, the\n"
"                       latency (default); or one independent load per\n"
"                       cache line in address order, the cost of a line in\n"
"                       a stream, as likwid-bench's clload measures it\n"
"  --round-trips N      c2c: round trips per pair of PUs and iteration\n"
"                       (default 2048, in timed batches of 64)\n"
"  --mem-policy P       where each rank's memory comes from, set in every\n"
"                       thread before the first touch: firsttouch (default),\n"
"                       interleave[:NODES], bind:NODES, bind:local-to-rank\n"
"                       (the NUMA nodes of the rank's CPUs), preferred:NODE;\n"
"                       NODES as numactl numbers them, e.g. 0-1\n"
"  --isa LEVEL          the kernels' instruction set: best (default), or a\n"
"                       lower level this CPU runs: sse2, avx2, avx512\n"
"                       (generic off x86); BINDLAB_ISA=LEVEL does the same,\n"
"                       --isa wins. A level the CPU lacks is refused (exit 2)\n"
"  An option a kernel does not read is refused (exit 2), not ignored.\n"
"\n", f);
    fputs(
"Output:\n"
"  --out FILE.h5        write the run file (HDF5; written as FILE.h5.tmp.PID\n"
"                       and renamed when complete). Checked before the run:\n"
"                       its directory must exist and be writable, and only a\n"
"                       regular file is replaced (a device, directory, FIFO\n"
"                       or socket is refused)\n"
"  --show-placement     print an xthi-like table: host rank thread cpu core l3\n"
"                       numa package cpuset, one line per thread\n"
"  --check              judge each rank's placement as `bindlab check` does\n"
"                       (CPU vs memory nodes, memory policy, OpenMP and\n"
"                       launcher settings), after --mem-policy and before the\n"
"                       first touch; findings go to stderr and to the run\n"
"                       file's findings table. The run goes on either way.\n"
"                       With or without it, rank 0 warns gpu-shared when a\n"
"                       GPU was given to two ranks of a node while another\n"
"                       of its GPUs was given to none\n"
"  --help, --version\n"
"\n"
"Threads come from OMP_NUM_THREADS, their binding from OMP_PLACES and\n"
"OMP_PROC_BIND; the rank's binding from the launcher (--map-by/--bind-to).\n"
"Exit status: 0 verified, 1 run-time failure or wrong answer (or the run\n"
"file could not be written, e.g. no space left on device), 2 bad input\n"
"(including an --out that cannot be written).\n", f);
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
    {"--size", "triad, stencil, shared, latency"},
    {"--grid", "stencil, lu"},
    {"--radius", "stencil"},     {"--overlap", "stencil"},
    {"--n", "lu"},               {"--nb", "lu"},
    {"--seed", "lu, shared, latency"}, {"--writes", "shared"},
    {"--huge-pages", "latency"}, {"--round-trips", "c2c"},
    {"--access", "latency"},     {"--align-shares", "triad, stencil"},
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

/* --test-hook N picks a deliberate fault by number; the names are the
 * kernels' own (BL_STENCIL_HOOK_* in stencil.h, BL_LU_HOOK_* in lu_mat.h)
 * and a kernel ignores numbers it does not know, so the parser only bounds
 * the number. */
#define TEST_HOOK_MAX 1000

/* The options that take a value ("--name value" or "--name=value"). */
static const char *const value_options[] = {
    "--kernel", "--size", "--iters", "--warmup", "--init", "--grid",
    "--radius", "--n",    "--nb",    "--seed",   "--test-hook", "--out",
    "--mem-policy", "--writes", "--huge-pages", "--round-trips",
    "--access",     "--isa",
};

/* The value option arg names, or NULL. */
static const char *value_option(const char *arg)
{
    for (size_t i = 0; i < sizeof value_options / sizeof value_options[0];
         i++)
        if (option_is(arg, value_options[i]))
            return value_options[i];
    return NULL;
}

static int set_kernel(bl_app_opts *o, const char *v, bl_err *err)
{
    o->kernel = bl_kernel_find(v);
    if (!o->kernel)
        return bl_err_set(err, "--kernel: '%s' is not a kernel; accepted: %s",
                          v, bl_kernel_names());
    return 0;
}

static int set_init(bl_app_opts *o, const char *v, bl_err *err)
{
    if (strcmp(v, "parallel") == 0)
        o->k.serial_init = 0;
    else if (strcmp(v, "serial") == 0)
        o->k.serial_init = 1;
    else
        return bl_err_set(err, "--init: '%s' is not accepted; use parallel "
                          "or serial", v);
    return 0;
}

static int set_huge_pages(bl_app_opts *o, const char *v, bl_err *err)
{
    static const char *const modes[] = {"off", "thp", "hugetlb"};
    for (int i = 0; i < 3; i++)
        if (strcmp(v, modes[i]) == 0) {
            o->k.huge_pages = i; /* BL_HUGE_OFF, _THP, _HUGETLB */
            return 0;
        }
    return bl_err_set(err, "--huge-pages: '%s' is not accepted; use off, "
                      "thp or hugetlb", v);
}

static int set_access(bl_app_opts *o, const char *v, bl_err *err)
{
    if (strcmp(v, "chase") == 0)
        o->k.access = BL_ACCESS_CHASE;
    else if (strcmp(v, "lines") == 0)
        o->k.access = BL_ACCESS_LINES;
    else
        return bl_err_set(err, "--access: '%s' is not accepted; use chase "
                          "(dependent loads, the latency) or lines (one "
                          "independent load per cache line)", v);
    return 0;
}

/* Checked against the CPU when the run starts (app_isa.h). */
static int set_isa(bl_app_opts *o, const char *v, bl_err *err)
{
    if (*v == '\0')
        return bl_err_set(err, "--isa: needs a level: best, sse2, avx2, "
                          "avx512 or generic");
    o->isa = v;
    return 0;
}

/* Option `name` (one of value_options) from its value v. */
static int set_value(bl_app_opts *o, const char *name, const char *v,
                     bl_err *err)
{
    long lv;
    if (strcmp(name, "--kernel") == 0)
        return set_kernel(o, v, err);
    if (strcmp(name, "--size") == 0)
        return bl_parse_size(v, name, &o->k.size_bytes, err);
    if (strcmp(name, "--iters") == 0)
        return parse_count_opt(v, name, &o->iters, err);
    if (strcmp(name, "--warmup") == 0)
        return parse_count_opt(v, name, &o->warmup, err);
    if (strcmp(name, "--init") == 0)
        return set_init(o, v, err);
    if (strcmp(name, "--grid") == 0)
        return parse_grid(v, &o->k, err);
    if (strcmp(name, "--radius") == 0)
        return parse_count_opt(v, name, &o->k.radius, err);
    if (strcmp(name, "--n") == 0)
        return bl_parse_count(v, name, name, &o->k.n, err);
    if (strcmp(name, "--nb") == 0)
        return parse_count_opt(v, name, &o->k.nb, err);
    if (strcmp(name, "--seed") == 0) {
        if (bl_parse_count(v, name, name, &lv, err) < 0)
            return -1;
        o->k.seed = (unsigned long)lv;
        return 0;
    }
    if (strcmp(name, "--test-hook") == 0)
        return parse_int_opt(v, name, 0, TEST_HOOK_MAX, &o->k.test_hook, err);
    if (strcmp(name, "--mem-policy") == 0)
        return bl_mempol_parse(v, name, &o->mem_policy, err);
    if (strcmp(name, "--writes") == 0)
        return parse_count_opt(v, name, &o->k.write_percent, err);
    if (strcmp(name, "--huge-pages") == 0)
        return set_huge_pages(o, v, err);
    if (strcmp(name, "--round-trips") == 0)
        return bl_parse_count(v, name, name, &o->k.round_trips, err);
    if (strcmp(name, "--access") == 0)
        return set_access(o, v, err);
    if (strcmp(name, "--isa") == 0)
        return set_isa(o, v, err);
    /* --out */
    if (*v == '\0')
        return bl_err_set(err, "--out: needs a file name");
    o->out = v;
    return 0;
}

/* The transparent huge page size, 2 MiB when the kernel does not say. */
static size_t huge_page_bytes(void)
{
    char mode[16];
    long long huge = 0;
    bl_thp_read(mode, sizeof mode, &huge);
    return huge > 0 ? (size_t)huge : (size_t)2 << 20;
}

/* A flag (an option without a value): 0 when arg is one, else -1. */
static int set_flag(bl_app_opts *o, const char *arg)
{
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
        o->help = 1;
    else if (strcmp(arg, "--version") == 0)
        o->version = 1;
    else if (strcmp(arg, "--show-placement") == 0)
        o->show_placement = 1;
    else if (strcmp(arg, "--check") == 0)
        o->check = 1;
    else if (strcmp(arg, "--overlap") == 0)
        o->k.overlap = 1;
    else if (strcmp(arg, "--align-shares") == 0)
        o->k.share_align = huge_page_bytes();
    else
        return -1;
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
        const char *a = argv[i], *name = value_option(a), *v = NULL;
        given |= kernel_option_bit(a);
        if (name) {
            if (take_value(argc, argv, &i, name, &v, err) < 0 ||
                set_value(o, name, v, err) < 0)
                return -1;
        } else if (set_flag(o, a) < 0) {
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
