/* The flags of a run explained (report_priv.h): one sentence per flag of
 * docs/schema.md, and the flags of a summary row one by one. */
#include "report/report_priv.h"

#include <string.h>

/* One sentence per flag of docs/schema.md. */
static const struct {
    const char *flag, *why;
} flag_text[] = {
    {"binding-mismatch", "A rank's recorded cpuset differs from the one the "
                         "launcher reported, so the binding asked for is not "
                         "the binding that ran."},
    {"outside-allowed", "A rank's binding reached CPUs outside the ones the "
                        "job may use (allowed_cpus): the launcher bound past "
                        "taskset, which does not confine it as a cgroup "
                        "does."},
    {"rank-spans-numa", "One rank's threads ran on more than one NUMA node, "
                        "so some of them reach their memory remotely."},
    {"pu-shared", "Two threads ended on the same hardware thread (PU) and "
                  "shared it instead of running side by side."},
    {"omp-unbound", "OMP_PROC_BIND was unset or false, so the OpenMP threads "
                    "were free to move between the rank's CPUs."},
    {"remote-pages", "Less than 90% of the ranks' pages were on their own "
                     "NUMA node (local_page_fraction < 0.9)."},
    {"pages-migrated", "The kernel (NUMA balancing) moved at least 1% of "
                       "the pages after first touch, or the local page "
                       "fraction changed by 0.01 or more: the placement "
                       "measured after the run is not the one first touch "
                       "made (both are in the run's first-touch line)."},
    {"huge-page-straddle", "Transparent huge pages back the arrays and some "
                           "straddle two threads' shares: a huge page lands "
                           "whole on one node, so first touch cannot make "
                           "every page local; --align-shares (sweep key "
                           "align_shares) fixes it."},
    {"numa-balancing", "The kernel's automatic NUMA balancing was on and may "
                       "have moved pages or threads during the run."},
    {"migrated", "A thread moved to another CPU during the timed region."},
    {"two-omp-runtimes", "The ranks loaded two OpenMP runtimes (the run's "
                         "omp_runtimes_other names the second). Each keeps "
                         "its own threads; libgomp, merely loaded with "
                         "OMP_PLACES set, binds the main thread to the "
                         "first place, and the runtime serving the app "
                         "then sees one CPU (docs/openmp-runtimes.md)."},
    {"omp-runtime-mismatch", "The layout asked for one OpenMP runtime "
                             "(omp_runtime) and the app recorded another "
                             "serving its calls: the run is failed."},
    {"gpu-shared", "One GPU was given to two ranks of a node while another "
                   "GPU of that node was given to none (the run's findings "
                   "name them): deal GPUs with gpu_bind closest or "
                   "round-robin and gpus_per_rank (docs/devices.md)."},
    {"gpu-not-local", "A process was given a GPU (a visible-device variable "
                      "named it) whose local CPUs hold none of its own: "
                      "every transfer crosses to another NUMA node or "
                      "package (the run's findings name it; "
                      "docs/devices.md)."},
};

const char *bl_report_flag_why(const char *flag)
{
    for (size_t i = 0; i < sizeof flag_text / sizeof flag_text[0]; i++)
        if (strcmp(flag, flag_text[i].flag) == 0)
            return flag_text[i].why;
    return "A flag this version of bindlab does not know; see docs/schema.md "
           "of the version that wrote the file.";
}

int bl_report_flag_next(const char *s, size_t *pos, char *buf, size_t len)
{
    while (s[*pos] == ',' || s[*pos] == ' ')
        (*pos)++;
    if (!s[*pos])
        return 0;
    size_t n = strcspn(s + *pos, ",");
    size_t k = n < len - 1 ? n : len - 1;
    memcpy(buf, s + *pos, k);
    buf[k] = '\0';
    while (k > 0 && buf[k - 1] == ' ')
        buf[--k] = '\0';
    *pos += n;
    return 1;
}
