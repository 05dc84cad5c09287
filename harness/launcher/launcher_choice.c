/* The launcher a sweep or plan names, found and checked; see
 * launcher_choice.h. */
#include "launcher/launcher_choice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/launcher.h"
#include "sys_util.h"

#define DETECT_TIMEOUT_S 30.0

/* A --launcher word: a table entry's name, or one of the aliases. */
typedef struct family {
    const char *word;
    bl_launcher_kind kind;
    int major;              /* 0: any version */
    const char *program;
    const char *name;       /* for messages */
    int named_only;
} family;

/* The words that name no one entry: any MPI, and any Open MPI. */
static const family aliases[] = {
    {"mpirun", BL_LAUNCHER_UNKNOWN, 0, "mpirun", "an MPI", 0},
    {"openmpi", BL_LAUNCHER_OPENMPI, 0, "mpirun", "Open MPI", 0},
};
#define NALIASES (sizeof aliases / sizeof aliases[0])

/* Family i: the aliases, then the table's entries; 0 past the last. */
static int family_at(size_t i, family *f)
{
    const bl_launcher_ops *ops;
    if (i < NALIASES) {
        *f = aliases[i];
        return 1;
    }
    if (!(ops = bl_launcher_ops_at(i - NALIASES)))
        return 0;
    *f = (family){ops->name, ops->kind, ops->family_major, ops->program,
                  ops->family, ops->named_only};
    return 1;
}

static int family_of(const char *word, family *f)
{
    for (size_t i = 0; word && family_at(i, f); i++)
        if (strcmp(f->word, word) == 0)
            return 0;
    return -1;
}

/* "openmpi, ompi4, ompi5, mpich, impi, srun, mpirun (...), or the path of
 * an mpirun, mpiexec or srun" */
static void accepted(char *buf, size_t len)
{
    family f;
    size_t used = (size_t)snprintf(buf, len, "openmpi");
    for (size_t i = NALIASES; family_at(i, &f) && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, ", %s", f.word);
    if (used < len)
        snprintf(buf + used, len - used, ", mpirun (whatever MPI's mpirun "
                 "is in PATH), or the path of an mpirun, mpiexec or srun");
}

int bl_launcher_want_parse(const char *text, bl_launcher_want *out,
                           bl_err *err)
{
    family f;
    char list[512];
    memset(out, 0, sizeof *out);
    if (text && strchr(text, '/')) {
        const char *base = strrchr(text, '/') + 1;
        if (bl_textf(out->program, sizeof out->program, "%s", text) < 0)
            return bl_err_set(err, "launcher: the path is longer than %zu "
                              "characters", sizeof out->program - 1);
        snprintf(out->value, sizeof out->value, "path");
        /* a launcher asked only when named takes other options than
         * mpirun: known by its program's name (srun) */
        for (size_t i = 0; family_at(i, &f); i++)
            if (f.named_only && strcmp(base, f.program) == 0)
                out->kind = f.kind;
        return 0;
    }
    if (family_of(text, &f) == 0) {
        snprintf(out->value, sizeof out->value, "%s", text);
        out->kind = f.kind;
        out->major = f.major;
        return 0;
    }
    accepted(list, sizeof list);
    return bl_err_set(err, "'%.64s' is not a launcher bindlab knows; "
                      "accepted: %s", text ? text : "", list);
}

const char *bl_launcher_want_program(const bl_launcher_want *w)
{
    family f;
    if (w->program[0])
        return w->program;
    return family_of(w->value, &f) == 0 ? f.program : "mpirun";
}

/* 1 when the launcher w asks for is one asked only when named (srun);
 * f: its family. */
static int named_only(const bl_launcher_want *w, family *f)
{
    for (size_t i = 0; w->kind != BL_LAUNCHER_UNKNOWN && family_at(i, f);
         i++)
        if (f->kind == w->kind && f->named_only)
            return 1;
    return 0;
}

int bl_launcher_want_check(const bl_launcher_want *w,
                           const bl_launcher_info *got, const char *program,
                           bl_err *err)
{
    const bl_launcher_ops *ops = bl_launcher_ops_of(got);
    family f;
    if (w->kind == BL_LAUNCHER_UNKNOWN) {
        /* mpirun or a path: any MPI's launcher will do, not one asked only
         * when named (srun takes other options, and is named as srun) */
        if (ops && ops->named_only)
            return bl_err_set(err, "%s is %s's %s; name it with "
                              "launcher: %s", program, ops->title,
                              ops->program, ops->name);
        return 0;
    }
    if (got->kind == w->kind && (!w->major || got->major == w->major))
        return 0;
    if (family_of(w->value, &f) < 0) {
        /* a path named as a launcher asked only when named (srun) */
        if (!named_only(w, &f))
            return bl_err_set(err, "%s is %s %s", program,
                              bl_launcher_kind_name(got->kind), got->version);
        return bl_err_set(err, "%s is %s %s, not %s's %s", program,
                          bl_launcher_kind_name(got->kind), got->version,
                          f.name, f.program);
    }
    return bl_err_set(err, "%s asks for %s, but %s is %s %s; put "
                      "that MPI's bin directory first in PATH (module load, "
                      "spack load), or give its %s with --mpirun PATH (or "
                      "as launcher: PATH in the sweep file)",
                      w->value, f.name, program,
                      bl_launcher_kind_name(got->kind), got->version,
                      f.program);
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
    family f;
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
    rc = named_only(want, &f)
             ? bl_launcher_detect_srun(program, DETECT_TIMEOUT_S, info, err)
             : bl_launcher_detect_mpirun(program, DETECT_TIMEOUT_S, info,
                                         err);
    if (rc < 0)
        return -1;
    if (bl_launcher_want_check(want, info, program, err) < 0)
        return bl_err_prefix(err, "%s", where ? where : "--launcher");
    return 0;
}
