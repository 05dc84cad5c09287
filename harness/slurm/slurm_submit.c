/* Writing the scripts and handing them to sbatch. */
#include "slurm/slurm.h"

#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "proc/launch.h"

int bl_slurm_write_script(const char *path, const char *text, bl_err *err)
{
    /* 0755 whatever the umask: sbatch does not need the execute bits, but
     * users also run the script by hand. The shared writer refuses to
     * replace anything but a regular file (a device at path, as root). */
    return bl_atomic_write_mode(path, text, strlen(text), 0755, err);
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
