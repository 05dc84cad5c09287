/* Where an XML file stops being well-formed, for a message that names the
 * line and column of a topology file hwloc refused (hwloc itself says
 * only that it failed). */
#ifndef BL_XML_WHERE_H
#define BL_XML_WHERE_H

#include <stddef.h>

/* 1 with "PATH:LINE:COLUMN: not well-formed XML (WHAT)" in buf when path
 * is not well-formed XML; 0 (buf "") when it is, or cannot be read. */
int bl_xml_where(const char *path, char *buf, size_t len);

#endif
