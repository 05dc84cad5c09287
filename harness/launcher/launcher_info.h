/* Which launcher is installed, and which version: the harness spells
 * layouts the way that version accepts (Open MPI 4.1 rejects
 * ppr:N:package, 5.x deprecates socket). Detection runs `mpirun --version`
 * or `srun --version` through bl_launch_run; the parsers take the text, so
 * they are tested on captured outputs. */
#ifndef BL_LAUNCHER_INFO_H
#define BL_LAUNCHER_INFO_H

#include "err.h"

typedef enum bl_launcher_kind {
    BL_LAUNCHER_UNKNOWN = 0,
    BL_LAUNCHER_OPENMPI,   /* mpirun (Open MPI) 4.1.4 / 5.0.3 */
    BL_LAUNCHER_MPICH,     /* MPICH's Hydra (also MVAPICH's) */
    BL_LAUNCHER_INTELMPI,  /* Intel MPI (Hydra underneath, its own version) */
    BL_LAUNCHER_SLURM,     /* srun */
    BL_LAUNCHER_REGISTERED /* one added at run time (bl_launcher_register:
                            * a test's fake launcher) */
} bl_launcher_kind;

typedef struct bl_launcher_info {
    bl_launcher_kind kind;
    /* numeric version; Intel's "2019 Update 2" is 2019.2.0 and "2021.8"
     * is 2021.8.0 */
    int major, minor, patch;
    char version[48];      /* as printed: "4.1.4", "2019 Update 2" */
} bl_launcher_info;

/* "Open MPI", "MPICH (Hydra)", "Intel MPI", "Slurm", "unknown". */
const char *bl_launcher_kind_name(bl_launcher_kind kind);

/* Output of `mpirun --version` (or mpiexec's) from Open MPI 1.x-5.x, MPICH
 * Hydra or Intel MPI. Returns 0, or -1 with err quoting the first line and
 * naming the recognised forms (callers prefix where the text came from). */
int bl_launcher_parse_mpirun_version(const char *text, bl_launcher_info *out,
                                     bl_err *err);

/* Output of `srun --version`: "slurm 22.05.8", or Debian's
 * "slurm-wlm 22.05.8". */
int bl_launcher_parse_srun_version(const char *text, bl_launcher_info *out,
                                   bl_err *err);

/* Runs `program --version` (program: "mpirun", "srun" or a path) with a
 * timeout in seconds (<= 0: 10 s) and parses what it printed. */
int bl_launcher_detect_mpirun(const char *program, double timeout_s,
                              bl_launcher_info *out, bl_err *err);
int bl_launcher_detect_srun(const char *program, double timeout_s,
                            bl_launcher_info *out, bl_err *err);

/* 1 when running as root (effective uid 0). */
int bl_launcher_is_root(void);

#endif
