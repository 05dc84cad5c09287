/* Layouts checked against the CPUs this job may use (layout_allowed.h). */
#include "layout/layout_allowed.h"

#include "allowed.h"

int bl_layout_job_load(hwloc_topology_t topo, hwloc_topology_t *job,
                       char *desc, size_t len, bl_err *err)
{
    bl_allowed a;
    char list[256], from[256];
    int rc = bl_allowed_gather(&a, NULL, err);
    *job = NULL;
    if (len)
        desc[0] = '\0';
    if (rc == 0)
        rc = bl_allowed_restrict(&a, topo, job, err);
    if (rc == 0) {
        bl_allowed_list(&a, list, sizeof list);
        bl_allowed_sources(&a, from, sizeof from);
        bl_textf(desc, len, "%s (%s)", list, from);
    }
    bl_allowed_free(&a);
    return rc < 0 ? bl_err_prefix(err, "the CPUs this job may use") : 0;
}

int bl_layout_validate_job(const bl_layout *l, hwloc_topology_t topo,
                           hwloc_topology_t job, const char *desc,
                           int oversubscribe, bl_layout_check *out,
                           bl_err *err)
{
    if (!job)
        return bl_layout_validate(l, topo, oversubscribe, out, err);
    if (bl_layout_validate(l, job, oversubscribe, out, err) == 0)
        return 0;
    return bl_err_prefix(err, "inside the allowed CPUs %s", desc);
}
