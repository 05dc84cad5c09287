/* bindlab plan --cpuset LIST / --allocation: a plan inside an allocation.
 * The node is cut to the CPUs the job may use, as a cgroup cpuset shows it
 * to every hwloc reader: Open MPI's and Hydra's mappers are asked on that
 * node (its XML, with the preload reporting the set as their affinity),
 * Intel MPI's model deals its domains from it, and a layout needing more
 * CPUs than the set holds is named. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allowed.h"
#include "cli/cli_plan_priv.h"
#include "layout/layout.h"

static int export_xml(bl_plan_cli *o, hwloc_topology_t topo, bl_err *err)
{
    const char *dir = getenv("TMPDIR");
    int fd;
    if (bl_textf(o->allowed_xml, sizeof o->allowed_xml,
                 "%s/bindlab-plan-allowed-XXXXXX.xml",
                 dir && *dir ? dir : "/tmp") < 0 ||
        (fd = mkstemps(o->allowed_xml, 4)) < 0) {
        o->allowed_xml[0] = '\0';
        return bl_err_set(err, "cannot create a temporary XML file: %s",
                          strerror(errno));
    }
    close(fd);
    if (hwloc_topology_export_xml(topo, o->allowed_xml, 0) < 0)
        return bl_err_set(err, "cannot write the allowed node as XML to %s",
                          o->allowed_xml);
    return 0;
}

int bl_plan_cli_allowed(bl_plan_cli *o, hwloc_topology_t *topo, bl_err *err)
{
    bl_allowed a;
    hwloc_topology_t cut = NULL;
    char list[256], from[300];
    int rc = o->cpuset ? bl_allowed_from_list(&a, o->cpuset, err)
                       : bl_allowed_gather(&a, NULL, err);
    if (rc == 0)
        rc = bl_allowed_restrict(&a, *topo, &cut, err);
    if (rc == 0) {
        bl_allowed_list(&a, list, sizeof list);
        bl_allowed_sources(&a, from, sizeof from);
        bl_textf(o->allowed, sizeof o->allowed, "%s (%s)", list, from);
    }
    bl_allowed_free(&a);
    if (rc < 0)
        return -1;
    o->topology_given = o->topology;
    if (!cut)
        return 0; /* the set holds the whole node: nothing to cut */
    hwloc_topology_destroy(*topo);
    *topo = cut;
    if (export_xml(o, *topo, err) < 0)
        return -1;
    o->topology = o->allowed_xml;
    return 0;
}

void bl_plan_cli_allowed_done(bl_plan_cli *o)
{
    if (o->allowed_xml[0])
        unlink(o->allowed_xml);
    o->allowed_xml[0] = '\0';
}

int bl_plan_cli_allowed_fit(const bl_plan_cli *o, hwloc_topology_t topo,
                            const bl_layout *l, const char *run_id)
{
    bl_layout_check chk;
    bl_err e;
    if (!o->allowed[0] || bl_layout_validate(l, topo, 0, &chk, &e) == 0)
        return 0;
    fprintf(o->tsv ? stderr : stdout,
            "%s%s%sdoes not fit the allowed CPUs %s: %s\n",
            o->tsv ? "bindlab plan: " : "", run_id ? run_id : "",
            run_id ? ": " : "", o->allowed, e.msg);
    return 1;
}
