/* Loading a node topology (this machine, an hwloc XML file, or an hwloc
 * synthetic description) and naming where a PU sits in it: its core, L3,
 * NUMA node and package as hwloc logical indexes. */
#ifndef BL_TOPO_H
#define BL_TOPO_H

#include <hwloc.h>

#include "err.h"

/* spec NULL or "" : this machine. A path to an existing file: hwloc XML.
 * Anything else is tried as a synthetic description such as
 * "pack:2 numa:4 l3:2 core:8 pu:2". On success *out is loaded and must be
 * released with hwloc_topology_destroy(). Foreign topologies are loaded with
 * HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM unset, so nothing is ever bound. */
int bl_topo_load(const char *spec, hwloc_topology_t *out, bl_err *err);

/* A topology from hwloc XML text (a machine record's topology_xml): -1
 * with err when it is empty or hwloc cannot read it. Release with
 * hwloc_topology_destroy(). */
int bl_topo_load_xml(const char *xml, hwloc_topology_t *out, bl_err *err);

/* -1 with err saying why hwloc refused the XML file path: the line and
 * column where it is not well-formed, else that hwloc does not accept it
 * as a topology; and the fix. */
int bl_topo_refused_xml(const char *path, bl_err *err);

/* 0 when the XML file path may go to hwloc; -1 with err naming the file,
 * the object whose complete_cpuset or complete_nodeset is missing (hwloc
 * would crash on it, xml_topo_sets.h) or where it is not well-formed, and
 * the fix. */
int bl_topo_check_xml_file(const char *path, bl_err *err);

/* Where one PU sits. -1 for a level the machine does not have (e.g. no L3
 * object) or does not know. */
typedef struct bl_pu_where {
    int pu_os;      /* OS (physical) index, as Linux numbers CPUs */
    int pu;         /* hwloc logical index */
    int core;
    int l3;
    int numa;       /* logical index of the NUMA node local to the PU */
    int package;
} bl_pu_where;

/* Fills w for the PU object pu (found without a lookup by OS index, which
 * walks every PU of the node). */
void bl_topo_pu_obj_where(hwloc_topology_t topo, hwloc_obj_t pu,
                          bl_pu_where *w);

/* Fills w for the PU with OS index pu_os; -1 if the topology has no such PU. */
int bl_topo_pu_where(hwloc_topology_t topo, int pu_os, bl_pu_where *w,
                     bl_err *err);

/* The logical indexes of the objects of one type that a cpuset touches,
 * as an hwloc bitmap of logical indexes (e.g. the NUMA nodes a rank spans).
 * type is HWLOC_OBJ_CORE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_PACKAGE or
 * HWLOC_OBJ_NUMANODE. */
void bl_topo_objs_touched(hwloc_topology_t topo, hwloc_const_cpuset_t set,
                          hwloc_obj_type_t type, hwloc_bitmap_t out);

/* The same as a list of logical indexes ("0-3"), or "-" when the set
 * touches no object of that type, into buf. */
void bl_topo_objs_text(hwloc_topology_t topo, hwloc_const_cpuset_t set,
                       hwloc_obj_type_t type, char *buf, size_t len);

/* Counts: packages, NUMA nodes, L3 domains, cores, PUs. */
typedef struct bl_topo_counts {
    int packages, numa_nodes, l3_domains, cores, pus;
} bl_topo_counts;
void bl_topo_counts_get(hwloc_topology_t topo, bl_topo_counts *c);

/* The topology as hwloc XML text (a machine record's topology_xml),
 * malloc'ed; "" when hwloc cannot export it, NULL out of memory. */
char *bl_topo_xml_strdup(hwloc_topology_t topo);

#endif
