/* `bindlab --version`: what was built, from which commit, against which
 * MPI, and where this bindlab finds its app, preload library and data. */
#ifndef BL_VERSION_H
#define BL_VERSION_H

#include <stdio.h>

void bl_version_print(FILE *f);

#endif
