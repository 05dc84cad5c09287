/* What bindlab-app prints on rank 0: the run header, the rate per rank and
 * in total, the machine-readable result line, and with --show-placement an
 * xthi-like table. */
#ifndef BL_APP_PRINT_H
#define BL_APP_PRINT_H

#include <stdio.h>

#include "app_cli.h"
#include "h5/h5schema.h"

void bl_print_run(FILE *out, const bl_app_opts *o, const bl_h5_machine *m,
                  const bl_h5_run *r, const bl_work *w);

#endif
