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

int bl_cli_hog(int argc, char **argv)
{
    const char *kind = NULL;
    size_t size = (size_t)512 << 20;
    long fd = -1, parent = 0;
    bl_err err;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(help, stdout);
            return BL_EXIT_OK;
        } else if (next && !strcmp(a, "--size")) {
            if (bl_parse_size(argv[++i], "--size", &size, &err) < 0)
                return bl_cli_usage_error(VERB, "%s", err.msg);
        } else if (next && !strcmp(a, "--ready-fd")) {
            if (bl_parse_long(argv[++i], "--ready-fd", 0, 1 << 20, &fd,
                              &err) < 0)
                return bl_cli_usage_error(VERB, "%s", err.msg);
        } else if (next && !strcmp(a, "--parent")) {
            if (bl_parse_long(argv[++i], "--parent", 1, 1L << 30, &parent,
                              &err) < 0)
                return bl_cli_usage_error(VERB, "%s", err.msg);
        } else if (a[0] == '-') {
            return bl_cli_usage_error(VERB, "unknown option '%s'", a);
        } else if (!kind && (!strcmp(a, "cpu") || !strcmp(a, "mem"))) {
            kind = a;
        } else {
            return bl_cli_usage_error(VERB, "'%s': give cpu or mem", a);
        }
    }
    if (!kind)
        return bl_cli_usage_error(VERB, "give cpu or mem");
    if (!strcmp(kind, "cpu"))
        return hog_cpu((int)fd, parent);
    return hog_mem(size, (int)fd, parent);
}
