/* Intel MPI's pinning table (I_MPI_DEBUG=4 or more), printed by rank 0 in
 * MPI_Init:
 *   [0] MPI startup(): ===== CPU pinning =====
 *   [0] MPI startup(): Rank    Pid      Node name  Pin cpu
 *   [0] MPI startup(): 0       21752    vm         {0}
 *   [0] MPI startup(): 1       21753    vm         {1,3-5}
 * The braces hold PU OS indexes (Intel numbers CPUs as Linux does). Without
 * pinning (I_MPI_PIN=0) the table still lists each rank, with the mask it
 * inherited. Other "MPI startup():" lines are ignored. */
#include "bindreport/bindreport_priv.h"

#include <ctype.h>
#include <string.h>

#include "cpuset.h"

#define TAG "MPI startup(): "

/* The text after "[N] MPI startup(): ", or NULL. */
static const char *after_tag(const char *line)
{
    const char *p = line;
    if (*p != '[')
        return NULL;
    p++;
    if (bl_line_number(&p) < 0 || *p != ']')
        return NULL;
    return bl_line_skip(p + 1, " " TAG);
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

int bl_bindreport_impi_line(const char *line, hwloc_topology_t topo,
                            bl_binding *b, char *reason)
{
    const char *p = after_tag(line), *host, *close;
    long rank, pid;
    char list[4096];
    bl_err err;

    /* A table row starts with the rank; headers and the library's other
     * startup lines start with a word. */
    if (!p || !isdigit((unsigned char)*p))
        return BL_LINE_OTHER;
    if ((rank = bl_line_number(&p)) < 0 || (*p != ' ' && *p != '\t'))
        return BL_LINE_OTHER;
    p = skip_blanks(p);
    if ((pid = bl_line_number(&p)) < 0 || (*p != ' ' && *p != '\t'))
        return bl_line_bad(reason, "pinning row of rank %ld: expected "
                           "'RANK PID HOST {CPUS}' (truncated?)", rank);
    host = skip_blanks(p);
    p = host + strcspn(host, " \t");
    if (bl_line_host(b->host, host, (size_t)(p - host), reason) != BL_LINE_OK)
        return BL_LINE_BAD;
    p = skip_blanks(p);
    if (*p != '{' || !(close = strchr(p, '}')))
        return bl_line_bad(reason, "pinning row of rank %ld: no '{CPUS}' "
                           "after the host (truncated?)", rank);
    if (*skip_blanks(close + 1) != '\0')
        return bl_line_bad(reason, "pinning row of rank %ld: text after "
                           "'}' (output of several ranks interleaved?)",
                           rank);
    if ((size_t)(close - p - 1) >= sizeof list)
        return bl_line_bad(reason, "pinning row of rank %ld: CPU list over "
                           "%zu characters", rank, sizeof list - 1);
    memcpy(list, p + 1, (size_t)(close - p - 1));
    list[close - p - 1] = '\0';
    if (bl_cpuset_parse_list(list, b->cpus, &err) != 0)
        return bl_line_bad(reason, "pinning row of rank %ld: %s", rank,
                           err.msg);
    if (hwloc_bitmap_iszero(b->cpus))
        return bl_line_bad(reason, "pinning row of rank %ld: no CPU", rank);
    b->rank = (int)rank;
    b->pid = pid;
    return bl_line_check_pus(topo, b->cpus, reason);
}
