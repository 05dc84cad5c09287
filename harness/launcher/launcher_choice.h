/* Which launcher a sweep or a plan uses: the sweep file's `launcher:` key
 * or the command line's --launcher (a family: openmpi, ompi4, ompi5, mpich,
 * impi, srun; or mpirun = whatever mpirun is in PATH; or the path of a
 * launcher program), and --mpirun PATH. The program is found, asked for
 * its --version, and refused with the reason when it is missing or of
 * another family than the one named. */
#ifndef BL_LAUNCHER_CHOICE_H
#define BL_LAUNCHER_CHOICE_H

#include <limits.h>
#include <stddef.h>

#include "err.h"
#include "launcher/launcher_info.h"

typedef struct bl_launcher_want {
    char value[64];          /* the family word as written: "mpich",
                              * "mpirun" (any), or "path" for a path */
    bl_launcher_kind kind;   /* the family asked for; UNKNOWN: any MPI's */
    int major;               /* ompi4 / ompi5: the major version; 0 any */
    char program[PATH_MAX];  /* the path given as the value, else "" */
} bl_launcher_want;

/* "openmpi", "ompi4", "ompi5", "mpich", "impi", "srun", "mpirun", or a
 * path (it holds a '/'). -1 with err naming the accepted values. */
int bl_launcher_want_parse(const char *text, bl_launcher_want *out,
                           bl_err *err);

/* The program a family is started as when no path is given: mpirun (Open
 * MPI, or any), mpiexec (MPICH, Intel MPI), srun. */
const char *bl_launcher_want_program(const bl_launcher_want *w);

/* 0 when what the program answered is what w asks for; else -1 with err
 * saying what was asked, what was found and how to fix it. */
int bl_launcher_want_check(const bl_launcher_want *w,
                           const bl_launcher_info *got, const char *program,
                           bl_err *err);

/* name with a '/' : itself when executable; otherwise the first
 * executable PATH entry DIR/name. 0 with buf set, or -1 (buf "") when
 * none. */
int bl_find_program(const char *name, char *buf, size_t len);

/* The whole choice: value (the command line's --launcher, else the file's
 * launcher:, else NULL = "mpirun"), where (how to name the value's origin
 * in messages: "--launcher", "sweep.yaml:3:11: launcher"), path (--mpirun,
 * or NULL). Fills program (as given, or the default name; a name is left
 * for execvp to find, so command lines read as the user wrote them), want
 * and info. -1 with err when the value is unknown, the program cannot be
 * found or run, or it is another family than asked. */
int bl_launcher_choose(const char *value, const char *where,
                       const char *path, char *program, size_t len,
                       bl_launcher_want *want, bl_launcher_info *info,
                       bl_err *err);

#endif
