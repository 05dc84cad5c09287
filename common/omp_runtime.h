/* Which OpenMP runtimes a process has loaded, read from the process itself
 * (no OpenMP call, so any program can ask, the probe included):
 *   - every loaded object whose file name is an OpenMP runtime's
 *     (libgomp.so*, libomp.so*, libomp-N.so*, libomp5.so, libiomp5.so),
 *     from dl_iterate_phdr; its family from its own "@(#) Intel(R) OMP" or
 *     "@(#) LLVM OMP" lines when it has them (so that an alias
 *     libgomp.so.1 -> libiomp5.so counts as Intel's), else from the name;
 *   - which of them serves the program's calls: the object that holds the
 *     address omp_get_num_threads resolves to in the global scope (dladdr),
 *     and the same for GOMP_parallel (what GCC-compiled code, OpenBLAS's
 *     included, calls);
 *   - each one's version, from the library's own bytes: LLVM's and Intel's
 *     runtimes carry "@(#) ... OMP version: 5.0.YYYYMMDD" in their
 *     read-only segment; libgomp has no such string, so its version is the
 *     highest GOMP_x.y version node it defines (.gnu.version_d), which
 *     names the OpenMP level of the GCC release it comes from.
 * docs/openmp-runtimes.md says what each runtime shows. */
#ifndef BL_OMP_RUNTIME_H
#define BL_OMP_RUNTIME_H

#include <stddef.h>

#define BL_OMP_RUNTIMES_MAX 8

/* The runtime families, as the sweep key omp_runtime names them. */
#define BL_OMP_LIBGOMP "libgomp"
#define BL_OMP_LIBOMP "libomp"
#define BL_OMP_INTEL "intel"

typedef struct bl_omp_lib {
    char kind[16];      /* libgomp, libomp, intel */
    char path[4096];    /* as the dynamic linker loaded it */
    char file[4096];    /* that path with its links resolved: the file */
    char version[96];   /* "5.0.20140926", "GOMP_5.1"; "" unknown */
} bl_omp_lib;

typedef struct bl_omp_runtimes {
    bl_omp_lib loaded[BL_OMP_RUNTIMES_MAX];
    int nloaded;
    int serving;        /* index of omp_get_num_threads's object, -1 none */
    int serving_gomp;   /* index of GOMP_parallel's object, -1 none */
} bl_omp_runtimes;

/* The family of a runtime's file name (a path or a base name): "libgomp",
 * "libomp", "intel", or NULL when it is no OpenMP runtime. */
const char *bl_omp_runtime_kind(const char *path);

/* Fills out from this process. Never fails: what cannot be read is left
 * empty (nloaded 0, serving -1). */
void bl_omp_runtimes_find(bl_omp_runtimes *out);

/* The version text found in the len bytes at p: the word after
 * "OMP version: " in an "@(#)" line, into buf; 1 found, 0 not. */
int bl_omp_version_in(const char *p, size_t len, char *buf, size_t buflen);

/* Every loaded runtime but the serving one, "kind version file" each,
 * separated by "; ", into buf ("" none). */
void bl_omp_runtimes_others(const bl_omp_runtimes *r, char *buf,
                            size_t len);

#endif
