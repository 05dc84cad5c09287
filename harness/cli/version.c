/* The report of version.h. The commit and MPI compiler are fixed when
 * CMake configures (cmake/Install.cmake); the MPI library line is asked of
 * the library actually loaded, which may differ from the one built against. */
#include "cli/version.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/datadir.h"
#include "plan/plan_ranks.h"
#include "sys_util.h"

#ifndef BL_GIT_DESCRIBE
#define BL_GIT_DESCRIBE "unknown"
#endif
#ifndef BL_MPI_COMPILER
#define BL_MPI_COMPILER "unknown"
#endif

/* The first line of MPI_Get_library_version (legal before MPI_Init). */
static void mpi_library(char *buf, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    if (MPI_Get_library_version(v, &n) != MPI_SUCCESS || n <= 0) {
        bl_textf(buf, len, "unknown");
        return;
    }
    v[n < (int)sizeof v ? n : (int)sizeof v - 1] = '\0';
    v[strcspn(v, "\r\n")] = '\0';
    /* Open MPI's line goes on with ", package: ..., ident: ...": keep the
     * name and version. */
    char *comma = strchr(v, ',');
    if (comma)
        *comma = '\0';
    bl_textf(buf, len, "%s", v);
}

void bl_version_print(FILE *f)
{
    char mpi[256], path[PATH_MAX], real[PATH_MAX];
    bl_err err = {""};

    fprintf(f, "bindlab %s\n", BINDLAB_VERSION);
    fprintf(f, "commit:   %s\n", BL_GIT_DESCRIBE);
    mpi_library(mpi, sizeof mpi);
    fprintf(f, "MPI:      %s (built with %s)\n", mpi, BL_MPI_COMPILER);
    if (bl_self_path(path, sizeof path, NULL) == 0)
        fprintf(f, "program:  %s\n", path);
    if (bl_beside_self("bindlab-app", path, sizeof path, NULL) == 0)
        fprintf(f, "app:      %s%s\n", path,
                access(path, X_OK) == 0 ? "" : " (missing)");
    if (bl_plan_ranks_preload_path(path, sizeof path, &err) == 0)
        fprintf(f, "preload:  %s\n", realpath(path, real) ? real : path);
    else
        fprintf(f, "preload:  missing (%s)\n", err.msg);
    if (bl_data_dir(path, sizeof path, &err) == 0)
        fprintf(f, "data:     %s (sweeps/, topologies/)\n", path);
    else
        fprintf(f, "data:     missing (%s)\n", err.msg);
}
