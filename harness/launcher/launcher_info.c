#include "launcher/launcher_info.h"
#include "launcher/launcher_priv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/launch.h"

#define DETECT_TIMEOUT_S 10.0

const char *bl_launcher_kind_name(bl_launcher_kind kind)
{
    const bl_launcher_ops *ops;
    for (size_t i = 0; (ops = bl_launcher_ops_at(i)) != NULL; i++)
        if (ops->kind == kind)
            return ops->title;
    return "unknown";
}

/* Copies the line starting at p (without its newline) into buf. */
static void copy_line(const char *p, char *buf, size_t len)
{
    size_t n = strcspn(p, "\r\n");
    if (n >= len)
        n = len - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
}

int bl_launcher_parse_mpirun_version(const char *text, bl_launcher_info *out,
                                     bl_err *err)
{
    const bl_launcher_ops *ops;
    for (size_t i = 0; (ops = bl_launcher_ops_at(i)) != NULL; i++) {
        memset(out, 0, sizeof *out);
        if (!ops->named_only && ops->parse_version(text, out) == 0)
            return 0;
    }
    memset(out, 0, sizeof *out);
    char first[120];
    copy_line(text + strspn(text, " \t\r\n"), first, sizeof first);
    return bl_err_set(err, "cannot tell the MPI from '%s'; "
                      "recognised: 'mpirun (Open MPI) 4.1.4', 'HYDRA build "
                      "details: ... Version: 4.0.2' (MPICH), 'Intel(R) MPI "
                      "Library ..., Version 2021.8'", first);
}

int bl_launcher_parse_srun_version(const char *text, bl_launcher_info *out,
                                   bl_err *err)
{
    const bl_launcher_ops *srun = bl_launcher_ops_named("srun");
    const char *p = text + strspn(text, " \t\r\n");
    char first[120];
    memset(out, 0, sizeof *out);
    if (srun && srun->parse_version(text, out) == 0)
        return 0;
    memset(out, 0, sizeof *out);
    copy_line(p, first, sizeof first);
    return bl_err_set(err, "expected 'slurm 22.05.8' "
                      "(or 'slurm-wlm 22.05.8'), got '%s'", first);
}

typedef int (*parse_fn)(const char *, bl_launcher_info *, bl_err *);

static int detect(const char *program, double timeout_s, parse_fn parse,
                  bl_launcher_info *out, bl_err *err)
{
    char *const argv[] = {(char *)program, "--version", NULL};
    bl_launch_opts o = {.argv = argv,
                        .timeout_s = timeout_s > 0 ? timeout_s
                                                   : DETECT_TIMEOUT_S,
                        .grace_s = 1, .head_max = 1 << 16};
    bl_launch_result r;
    memset(out, 0, sizeof *out);
    if (bl_launch_run(&o, &r, err) != 0) {
        bl_launch_result_free(&r);
        return bl_err_prefix(err, "finding the launcher");
    }
    /* the version normally goes to stdout; accept it on stderr too */
    int rc = parse(r.out.head, out, err);
    if (rc != 0 && parse(r.errs.head, out, NULL) == 0)
        rc = 0;
    if (rc != 0 && (r.timed_out || !r.exited || r.exit_status != 0)) {
        char what[300];
        snprintf(what, sizeof what, "'%s --version' failed", program);
        rc = bl_launch_require_success(&r, &o, what, 3, err);
    } else if (rc != 0) {
        bl_err_prefix(err, "'%s --version'", program);
    }
    bl_launch_result_free(&r);
    return rc;
}

int bl_launcher_detect_mpirun(const char *program, double timeout_s,
                              bl_launcher_info *out, bl_err *err)
{
    return detect(program ? program : "mpirun", timeout_s,
                  bl_launcher_parse_mpirun_version, out, err);
}

int bl_launcher_detect_srun(const char *program, double timeout_s,
                            bl_launcher_info *out, bl_err *err)
{
    return detect(program ? program : "srun", timeout_s,
                  bl_launcher_parse_srun_version, out, err);
}

int bl_launcher_is_root(void) { return geteuid() == 0; }
