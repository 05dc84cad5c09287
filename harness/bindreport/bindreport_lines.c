/* The helpers every line parser of bindreport_<format>.c uses
 * (bindreport_priv.h): numbers, prefixes, host names, PU checks and the
 * reason of a rejected line. A leaf: the parsers depend on it and the
 * dispatcher (bindreport.c) on the parsers, never the other way. */
#include "bindreport/bindreport_priv.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bl_line_bad(char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, BL_REASON_MAX, fmt, ap);
    va_end(ap);
    return BL_LINE_BAD;
}

long bl_line_number(const char **p)
{
    const char *s = *p;
    long v = 0;
    int n = 0;
    while (isdigit((unsigned char)*s)) {
        if (++n > 9)
            return -1;
        v = v * 10 + (*s++ - '0');
    }
    if (n == 0)
        return -1;
    *p = s;
    return v;
}

const char *bl_line_skip(const char *s, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

int bl_line_check_pus(hwloc_topology_t topo, hwloc_const_bitmap_t set,
                      char *reason)
{
    int i;
    /* the PU lookup by OS index walks every PU: only for a set that has
     * one the topology lacks, to name it */
    if (hwloc_bitmap_isincluded(set, hwloc_topology_get_complete_cpuset(topo)))
        return BL_LINE_OK;
    hwloc_bitmap_foreach_begin(i, set)
    {
        if (!hwloc_get_pu_obj_by_os_index(topo, (unsigned)i))
            return bl_line_bad(reason,
                               "CPU %d is not a PU of the topology (pass "
                               "--topology for the node that printed it)",
                               i);
    }
    hwloc_bitmap_foreach_end();
    return BL_LINE_OK;
}

int bl_line_host(char host[64], const char *s, size_t len, char *reason)
{
    if (len == 0 || len >= 64)
        return bl_line_bad(reason, "host name of %zu characters "
                           "(expected 1 to 63)", len);
    memcpy(host, s, len);
    host[len] = '\0';
    return BL_LINE_OK;
}

const char *bl_line_ompi_prefix(const char *line, bl_binding *b)
{
    /* "[host:pid] " as opal_output prints it; the host may contain ':'
     * only in theory, so take the last ':' before ']'. */
    const char *close, *colon;
    if (line[0] != '[' || !(close = strstr(line, "] ")))
        return line;
    colon = close;
    while (colon > line && *colon != ':')
        colon--;
    if (colon <= line + 1 || (size_t)(colon - line - 1) >= sizeof b->host)
        return line;
    for (const char *d = colon + 1; d < close; d++)
        if (!isdigit((unsigned char)*d))
            return line;
    memcpy(b->host, line + 1, (size_t)(colon - line - 1));
    b->host[colon - line - 1] = '\0';
    /* The pid says who printed it: mpirun/orted, or (Open MPI 4 without a
     * launcher binding) the rank itself from MPI_Init. */
    b->pid = strtol(colon + 1, NULL, 10);
    return close + 2;
}
