/* bindlab-app's command line: parsing (no MPI; nothing printed but the
 * help text), so tests call it directly. */
#ifndef BL_APP_CLI_H
#define BL_APP_CLI_H

#include <stdio.h>

#include "app_mempolicy.h"
#include "err.h"
#include "kernel.h"

#define BL_APP_DEFAULT_ITERS 10
#define BL_APP_DEFAULT_WARMUP 2

typedef struct bl_app_opts {
    const bl_kernel *kernel;
    bl_kernel_opts k;
    int iters, warmup;
    const char *out;          /* --out FILE.h5, NULL: no file */
    int show_placement;
    int check;                /* --check: placement findings in the file */
    bl_mempol mem_policy;     /* --mem-policy, default firsttouch */
    const char *isa;          /* --isa LEVEL, NULL: BINDLAB_ISA or best */
    int help, version;
} bl_app_opts;

/* Parses argv (argv[0] is the program). Accepts "--opt value" and
 * "--opt=value". On error returns -1 with a message naming the option and
 * what it accepts. */
int bl_app_parse(int argc, char **argv, bl_app_opts *o, bl_err *err);

/* The --help text. */
void bl_app_usage_write(FILE *f);

const char *bl_app_version(void);

#endif
