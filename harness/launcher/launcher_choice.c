/* The launcher a sweep or plan names, found and checked; see
 * launcher_choice.h. */
#include "launcher/launcher_choice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys_util.h"

#define DETECT_TIMEOUT_S 30.0
#define ACCEPTED "openmpi, ompi4, ompi5, mpich, impi, srun, mpirun (whatever " \
                 "MPI's mpirun is in PATH), or the path of an mpirun, " \
                 "mpiexec or srun"

static const struct {
    const char *word;
    bl_launcher_kind kind;
    int major;
    const char *program;
    const char *family;     /* for messages */
} families[] = {
    {"mpirun", BL_LAUNCHER_UNKNOWN, 0, "mpirun", "an MPI"},
    {"openmpi", BL_LAUNCHER_OPENMPI, 0, "mpirun", "Open MPI"},
    {"ompi4", BL_LAUNCHER_OPENMPI, 4, "mpirun", "Open MPI 4"},
    {"ompi5", BL_LAUNCHER_OPENMPI, 5, "mpirun", "Open MPI 5"},
    {"mpich", BL_LAUNCHER_MPICH, 0, "mpiexec", "MPICH (Hydra)"},
    {"impi", BL_LAUNCHER_INTELMPI, 0, "mpiexec", "Intel MPI"},
    {"srun", BL_LAUNCHER_SLURM, 0, "srun", "Slurm"},
};
#define NFAMILIES (sizeof families / sizeof families[0])

static int family_of(const bl_launcher_want *w)
{
    for (size_t i = 0; i < NFAMILIES; i++)
        if (strcmp(families[i].word, w->value) == 0)
            return (int)i;
    return -1;
}

int bl_launcher_want_parse(const char *text, bl_launcher_want *out,
                           bl_err *err)
{
    memset(out, 0, sizeof *out);
    if (text && strchr(text, '/')) {
        const char *base = strrchr(text, '/') + 1;
        if (bl_textf(out->program, sizeof out->program, "%s", text) < 0)
            return bl_err_set(err, "launcher: the path is longer than %zu "
                              "characters", sizeof out->program - 1);
        snprintf(out->value, sizeof out->value, "path");
        /* srun takes other options than mpirun: known by its name */
        if (strcmp(base, "srun") == 0)
            out->kind = BL_LAUNCHER_SLURM;
        return 0;
    }
    for (size_t i = 0; text && i < NFAMILIES; i++)
        if (strcmp(families[i].word, text) == 0) {
            snprintf(out->value, sizeof out->value, "%s", text);
            out->kind = families[i].kind;
            out->major = families[i].major;
            return 0;
        }
    return bl_err_set(err, "'%.64s' is not a launcher bindlab knows; "
                      "accepted: " ACCEPTED, text ? text : "");
}

const char *bl_launcher_want_program(const bl_launcher_want *w)
{
    int f = family_of(w);
    if (w->program[0])
        return w->program;
    return f >= 0 ? families[f].program : "mpirun";
}

int bl_launcher_want_check(const bl_launcher_want *w,
                           const bl_launcher_info *got, const char *program,
                           bl_err *err)
{
    int f = family_of(w);
    if (w->kind == BL_LAUNCHER_UNKNOWN) {
        /* mpirun or a path: any MPI's launcher will do, not srun (it takes
         * other options, and is named as srun) */
        if (got->kind == BL_LAUNCHER_SLURM)
            return bl_err_set(err, "%s is Slurm's srun; name it with "
                              "launcher: srun", program);
        return 0;
    }
    if (got->kind == w->kind && (!w->major || got->major == w->major))
        return 0;
    if (f < 0)
        return bl_err_set(err, "%s is %s %s, not Slurm's srun", program,
                          bl_launcher_kind_name(got->kind), got->version);
    return bl_err_set(err, "%s asks for %s, but %s is %s %s; put "
                      "that MPI's bin directory first in PATH (module load, "
                      "spack load), or give its %s with --mpirun PATH (or "
                      "as launcher: PATH in the sweep file)",
                      w->value, families[f].family, program,
                      bl_launcher_kind_name(got->kind), got->version,
                      families[f].program);
}

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

int bl_find_program(const char *name, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    buf[0] = '\0';
    if (strchr(name, '/')) {
        if (!executable(name) || bl_textf(buf, len, "%s", name) < 0) {
            buf[0] = '\0';
            return -1;
        }
        return 0;
    }
    /* POSIX: an unset PATH means an implementation default; execvp uses
     * "/bin:/usr/bin" */
    if (!path)
        path = "/bin:/usr/bin";
    for (;;) {
        size_t n = strcspn(path, ":");
        /* an empty entry is the current directory */
        if (bl_textf(buf, len, "%.*s/%s", (int)(n ? n : 1), n ? path : ".",
                     name) == 0 && executable(buf))
            return 0;
        if (!path[n])
            break;
        path += n + 1;
    }
    buf[0] = '\0';
    return -1;
}

int bl_launcher_choose(const char *value, const char *where,
                       const char *path, char *program, size_t len,
                       bl_launcher_want *want, bl_launcher_info *info,
                       bl_err *err)
{
    char found[PATH_MAX];
    int rc;

    if (bl_launcher_want_parse(value ? value : "mpirun", want, err) < 0)
        return bl_err_prefix(err, "%s", where ? where : "--launcher");
    if (bl_textf(program, len, "%s",
                 path ? path : bl_launcher_want_program(want)) < 0)
        return bl_err_set(err, "launcher path too long");
    if (bl_find_program(program, found, sizeof found) < 0) {
        if (strchr(program, '/'))
            return bl_err_set(err, "%s: the launcher '%s' is not an "
                              "executable file", where ? where : "--mpirun",
                              program);
        return bl_err_set(err, "%s%s%s: no %s in PATH; load the MPI "
                          "(module load, spack load) or give the path of "
                          "its %s with --mpirun PATH (or launcher: PATH in "
                          "the sweep file)",
                          where ? where : "launcher",
                          value ? " " : "", value ? value : "", program,
                          program);
    }
    rc = want->kind == BL_LAUNCHER_SLURM
             ? bl_launcher_detect_srun(program, DETECT_TIMEOUT_S, info, err)
             : bl_launcher_detect_mpirun(program, DETECT_TIMEOUT_S, info,
                                         err);
    if (rc < 0)
        return -1;
    if (bl_launcher_want_check(want, info, program, err) < 0)
        return bl_err_prefix(err, "%s", where ? where : "--launcher");
    return 0;
}
