/* The bitmap pairs an hwloc topology XML must carry before hwloc may read
 * it. hwloc 2.9 crashes (a null bitmap in hwloc_insert_object_by_parent)
 * on an object that has `cpuset` but no `complete_cpuset`, or `nodeset`
 * but no `complete_nodeset`: a damaged or hand-edited file, or a record
 * whose XML was cut, would take `report`, `merge` or `plan` down with it.
 * Checked on the text before hwloc sees it. */
#ifndef BL_XML_TOPO_SETS_H
#define BL_XML_TOPO_SETS_H

#include <stddef.h>

/* 1 with "object K (type "T"): cpuset without complete_cpuset" in why
 * when an <object> of text lacks the pair, 0 (why "") when every object
 * is whole. */
int bl_xml_topo_sets_check(const char *text, char *why, size_t len);

/* The same on a file; 0 when it cannot be read (hwloc then says so). */
int bl_xml_topo_sets_check_file(const char *path, char *why, size_t len);

#endif
