/* Writing the scripts and handing them to sbatch. */
#include "slurm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch.h"

int bl_slurm_write_script(const char *path, const char *text, bl_err *err)
{
    char tmp[4096];
    size_t len = strlen(text), off = 0;
    int fd;
    if (bl_textf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) < 0)
        return bl_err_set(err, "%s: path too long", path);
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    if (fd < 0)
        return bl_err_set(err, "%s: cannot create: %s", tmp, strerror(errno));
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return bl_err_set(err, "%s: cannot write: %s", tmp, strerror(e));
        }
        off += (size_t)n;
    }
    /* The umask may have taken the execute bits away: the script is run
     * by sbatch, which does not need them, but users also run it by hand. */
    if (fchmod(fd, 0755) < 0 || fsync(fd) < 0 || close(fd) < 0 ||
        rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return bl_err_set(err, "%s: cannot write: %s", path, strerror(e));
    }
    return 0;
}

int bl_slurm_parse_jobid(const char *text, char *jobid, size_t len,
                         bl_err *err)
{
    size_t n = strspn(text, "0123456789");
    const char *rest = text + n;
    if (n == 0 || n >= len ||
        !(*rest == '\0' || *rest == '\n' || *rest == ';'))
        return bl_err_set(err, "sbatch --parsable printed '%.80s', not a job "
                          "id (expected JOBID or JOBID;CLUSTER)", text);
    memcpy(jobid, text, n);
    jobid[n] = '\0';
    return 0;
}

int bl_slurm_submit(const char *program, const char *script,
                    const char *dependency, const char *arg, char *jobid,
                    size_t len, bl_err *err)
{
    char dep[128], what[4200];
    char *argv[6];
    int argc = 0, rc;
    bl_launch_opts lo = {0};
    bl_launch_result res;

    argv[argc++] = (char *)(program ? program : "sbatch");
    argv[argc++] = "--parsable";
    if (dependency) {
        if (bl_textf(dep, sizeof dep, "--dependency=%s", dependency) < 0)
            return bl_err_set(err, "dependency '%s' too long", dependency);
        argv[argc++] = dep;
    }
    argv[argc++] = (char *)script;
    if (arg)
        argv[argc++] = (char *)arg;
    argv[argc] = NULL;
    lo.argv = argv;
    lo.timeout_s = 60.0;
    if (bl_launch_run(&lo, &res, err) < 0) {
        bl_launch_result_free(&res);
        return -1;
    }
    snprintf(what, sizeof what, "sbatch %s", script);
    if (bl_launch_require_success(&res, &lo, what, 2, err) < 0) {
        bl_launch_result_free(&res);
        return -1;
    }
    rc = bl_slurm_parse_jobid(res.out.head, jobid, len, err);
    bl_launch_result_free(&res);
    return rc;
}
