#include "topo.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cpuset.h"
#include "xml_topo_sets.h"
#include "xml_where.h"

int bl_topo_load(const char *spec, hwloc_topology_t *out, bl_err *err)
{
    hwloc_topology_t topo;
    struct stat st;

    if (hwloc_topology_init(&topo) < 0)
        return bl_err_set(err, "hwloc: cannot initialise a topology");
    /* Keep caches and everything else hwloc sees; PCI I/O is not needed. */
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (spec && *spec) {
        if (stat(spec, &st) == 0) {
            if (bl_topo_check_xml_file(spec, err) < 0) {
                hwloc_topology_destroy(topo);
                return -1;
            }
            if (hwloc_topology_set_xml(topo, spec) < 0) {
                hwloc_topology_destroy(topo);
                return bl_topo_refused_xml(spec, err);
            }
        } else if (hwloc_topology_set_synthetic(topo, spec) < 0) {
            hwloc_topology_destroy(topo);
            return bl_err_set(err,
                              "topology '%s': no such file, and not an hwloc "
                              "synthetic description (e.g. \"pack:2 numa:4 "
                              "l3:2 core:8 pu:2\")",
                              spec);
        }
    }
    if (hwloc_topology_load(topo) < 0) {
        hwloc_topology_destroy(topo);
        if (spec && *spec && stat(spec, &st) == 0)
            return bl_topo_refused_xml(spec, err);
        return bl_err_set(err, "topology '%s': hwloc could not load it",
                          spec && *spec ? spec : "this machine");
    }
    *out = topo;
    return 0;
}

int bl_topo_refused_xml(const char *path, bl_err *err)
{
    char where[512];
    if (bl_xml_where(path, where, sizeof where))
        return bl_err_set(err, "topology %s; make one with lstopo --of xml "
                          "FILE", where);
    return bl_err_set(err, "topology '%s': well-formed XML, but not a "
                      "topology hwloc accepts (HWLOC_XML_VERBOSE=1 shows "
                      "why); make one with lstopo --of xml FILE", path);
}

int bl_topo_check_xml_file(const char *path, bl_err *err)
{
    char why[160], where[512];
    if (!bl_xml_topo_sets_check_file(path, why, sizeof why))
        return 0;
    /* not well-formed XML: its line and column say more */
    if (bl_xml_where(path, where, sizeof where))
        return bl_topo_refused_xml(path, err);
    return bl_err_set(err, "topology '%s': %s, which hwloc cannot read "
                      "(a damaged or hand-edited file); make one with "
                      "lstopo --of xml FILE", path, why);
}

int bl_topo_load_xml(const char *xml, hwloc_topology_t *out, bl_err *err)
{
    hwloc_topology_t topo;
    char why[160];
    if (!xml || !strstr(xml, "<object"))
        return bl_err_set(err, "no hwloc topology in the XML text");
    if (bl_xml_topo_sets_check(xml, why, sizeof why))
        return bl_err_set(err, "the recorded topology XML is damaged: %s",
                          why);
    if (hwloc_topology_init(&topo) < 0)
        return bl_err_set(err, "hwloc: cannot initialise a topology");
    if (hwloc_topology_set_xmlbuffer(topo, xml, (int)strlen(xml) + 1) < 0 ||
        hwloc_topology_load(topo) < 0) {
        hwloc_topology_destroy(topo);
        return bl_err_set(err, "hwloc cannot read the topology XML");
    }
    *out = topo;
    return 0;
}

static int ancestor_index(hwloc_topology_t topo, hwloc_obj_t pu,
                          hwloc_obj_type_t type)
{
    hwloc_obj_t o = hwloc_get_ancestor_obj_by_type(topo, type, pu);
    return o ? (int)o->logical_index : -1;
}

/* NUMA nodes are memory children in hwloc 2, not ancestors: the local node
 * is the first one whose cpuset contains the PU. */
static int local_numa(hwloc_topology_t topo, hwloc_obj_t pu)
{
    hwloc_obj_t node = NULL;
    while ((node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE,
                                              node)) != NULL)
        if (hwloc_bitmap_isset(node->cpuset, pu->os_index))
            return (int)node->logical_index;
    return -1;
}

int bl_topo_pu_where(hwloc_topology_t topo, int pu_os, bl_pu_where *w,
                     bl_err *err)
{
    hwloc_obj_t pu;
    if (pu_os < 0 ||
        !(pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)pu_os)))
        return bl_err_set(err, "CPU %d is not a PU of this topology", pu_os);
    bl_topo_pu_obj_where(topo, pu, w);
    return 0;
}

void bl_topo_pu_obj_where(hwloc_topology_t topo, hwloc_obj_t pu,
                          bl_pu_where *w)
{
    w->pu_os = (int)pu->os_index;
    w->pu = (int)pu->logical_index;
    w->core = ancestor_index(topo, pu, HWLOC_OBJ_CORE);
    w->l3 = ancestor_index(topo, pu, HWLOC_OBJ_L3CACHE);
    w->package = ancestor_index(topo, pu, HWLOC_OBJ_PACKAGE);
    w->numa = local_numa(topo, pu);
}

void bl_topo_objs_touched(hwloc_topology_t topo, hwloc_const_cpuset_t set,
                          hwloc_obj_type_t type, hwloc_bitmap_t out)
{
    hwloc_obj_t o = NULL;
    hwloc_bitmap_zero(out);
    while ((o = hwloc_get_next_obj_by_type(topo, type, o)) != NULL)
        if (o->cpuset && hwloc_bitmap_intersects(o->cpuset, set))
            hwloc_bitmap_set(out, o->logical_index);
}

void bl_topo_objs_text(hwloc_topology_t topo, hwloc_const_cpuset_t set,
                       hwloc_obj_type_t type, char *buf, size_t len)
{
    hwloc_bitmap_t objs = hwloc_bitmap_alloc();
    bl_topo_objs_touched(topo, set, type, objs);
    if (hwloc_bitmap_iszero(objs))
        snprintf(buf, len, "-");
    else
        bl_cpuset_format_list(objs, buf, len);
    hwloc_bitmap_free(objs);
}

void bl_topo_counts_get(hwloc_topology_t topo, bl_topo_counts *c)
{
    c->packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    c->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    c->l3_domains = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_L3CACHE);
    c->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    c->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
}

char *bl_topo_xml_strdup(hwloc_topology_t topo)
{
    char *xml = NULL, *copy;
    int len = 0;
    if (hwloc_topology_export_xmlbuffer(topo, &xml, &len, 0) < 0)
        return strdup("");
    copy = strdup(xml);
    hwloc_free_xmlbuffer(topo, xml);
    return copy;
}
