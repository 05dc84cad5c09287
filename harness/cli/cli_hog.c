/* bindlab hog cpu|mem: a noisy neighbour that runs until it is killed
 * (noisy.h). The harness starts it for `sweep --noisy` / `noisy:`; it is a
 * verb so that it is one program with the harness, and so that it can be
 * run by hand beside anything else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/cli_util.h"
#include "units.h"

#define VERB "hog"

static const char help[] =
    "usage: bindlab hog cpu|mem [--size BYTES] [--ready-fd FD] [--parent PID]\n"
    "\n"
    "A noisy neighbour: keeps one CPU busy until it is killed. cpu spins on\n"
    "arithmetic in registers (no memory traffic); mem streams through a\n"
    "buffer (--size, default 512MiB, well past a last-level cache) reading\n"
    "and writing it, taking memory bandwidth from whatever shares the node.\n"
    "Run it pinned with taskset, or let 'bindlab sweep --noisy' start it.\n"
    "\n"
    "--ready-fd FD: write one byte to FD once running (the buffer touched)\n"
    "and close it. --parent PID: end when PID is no longer the parent (the\n"
    "harness that started it died).\n"
    "\n"
    "Exit status: it does not end by itself; 2 bad usage, 1 no memory.\n";

static void ready(int fd)
{
    char c = 1;
    if (fd >= 0) {
        if (write(fd, &c, 1) != 1) {
            /* nobody waits: carry on, the harness kills us anyway */
        }
        close(fd);
    }
}

static int orphaned(long parent)
{
    return parent > 0 && (long)getppid() != parent;
}

static int hog_cpu(int fd, long parent)
{
    double x = 1.0, y = 0.5;
    ready(fd);
    while (!orphaned(parent)) {
        for (long i = 0; i < 20000000; i++) {
            x = x * 0.999999 + y;
            y = y * 0.999999 + 1e-9;
        }
        /* keep the result alive without a store per iteration */
        if (x < 0)
            fprintf(stderr, "%g\n", x);
    }
    return 0;
}

static int hog_mem(size_t bytes, int fd, long parent)
{
    size_t n = bytes / sizeof(double);
    double *a = mmap(NULL, n * sizeof *a, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED) {
        fprintf(stderr, "bindlab hog: mem: cannot map %zu bytes\n", bytes);
        return BL_EXIT_FAILED;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = (double)i;
    ready(fd);
    while (!orphaned(parent))
        for (size_t i = 0; i + 1 < n; i += 2)  /* one read, one write */
            a[i] = a[i + 1] * 1.000001 + 1.0;
    return 0;
}

typedef struct options {
    const char *kind;
    size_t size;
    long fd, parent;
} options;

static int set_size(void *opts, const char *v, bl_err *err)
{
    return bl_parse_size(v, "--size", &((options *)opts)->size, err);
}

static int set_ready_fd(void *opts, const char *v, bl_err *err)
{
    return bl_parse_long(v, "--ready-fd", 0, 1 << 20, &((options *)opts)->fd,
                         err);
}

static int set_parent(void *opts, const char *v, bl_err *err)
{
    return bl_parse_long(v, "--parent", 1, 1L << 30,
                         &((options *)opts)->parent, err);
}

static int set_kind(void *opts, const char *v, bl_err *err)
{
    options *o = opts;
    if (o->kind || (strcmp(v, "cpu") && strcmp(v, "mem")))
        return bl_err_set(err, "'%s': give cpu or mem", v);
    o->kind = v;
    return 0;
}

static const bl_cli_opt hog_options[] = {
    {"--size", BL_OPT_VALUE, "BYTES", "mem: the buffer streamed through",
     BL_OPT_NO_SLOT, set_size, NULL},
    {"--ready-fd", BL_OPT_VALUE, "FD", "write one byte to FD once running",
     BL_OPT_NO_SLOT, set_ready_fd, NULL},
    {"--parent", BL_OPT_VALUE, "PID", "end when PID is no longer the parent",
     BL_OPT_NO_SLOT, set_parent, NULL},
};

static const char *const help_parts[] = {help, NULL};

static const bl_cli_spec spec = {
    .verb = VERB, .help = help_parts, .opts = hog_options,
    .nopts = BL_CLI_NOPTS(hog_options), .positional = set_kind};

int bl_cli_hog(int argc, char **argv)
{
    options o = {NULL, (size_t)512 << 20, -1, 0};
    int rc = bl_cli_parse(&spec, argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (!o.kind)
        return bl_cli_usage_error(VERB, "give cpu or mem");
    if (!strcmp(o.kind, "cpu"))
        return hog_cpu((int)o.fd, o.parent);
    return hog_mem(o.size, (int)o.fd, o.parent);
}
