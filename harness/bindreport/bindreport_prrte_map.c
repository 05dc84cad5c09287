/* PRRTE's job map (Open MPI 5: mpirun --display map, also with
 * --do-not-launch), captured in tests/fixtures/bindreport/ompi5-*-map*.txt:
 *
 *   Data for node: HOST<TAB>State: 3<TAB>Flags: ...
 *           Data for proc: [JOBID,R]
 *                   Pid: 0<TAB>Local rank: 0<TAB>Node rank: 0<TAB>App rank: 0
 *                   State: INITIALIZED<TAB>App_context: 0
 *           <TAB>Binding: package[0][core:L0-3]
 *
 * One rank's record spans lines, so this parser keeps a state: the node of
 * the block, and the rank whose Binding: line is awaited. R (the vpid) is
 * the rank in MPI_COMM_WORLD; "App rank" counts inside one app context of
 * an MPMD launch, so it is not used. The Binding: text is PRRTE's
 * --report-bindings text and is read by the same code (bindreport_ompi.c);
 * "UNBOUND" is the whole node, not bound. The Pid: field names the rank's
 * process (0 before a launch), not the printer, so bindings carry no pid. */
#include "bindreport/bindreport_priv.h"

#include <stdio.h>
#include <string.h>

#define PROC_HEAD "Data for proc: ["
#define NODE_HEAD "Data for node: "
#define BINDING_HEAD "Binding: "

static const char *trim(const char *s)
{
    return s + strspn(s, " \t");
}

int bl_bindreport_prrte_map_claims(const char *line)
{
    return bl_line_skip(trim(line), PROC_HEAD) != NULL;
}

/* "[JOBID,R]" after PROC_HEAD: R, or -1. The job id may hold anything but
 * ',' and ']' ("prterun-vm-21583@1"). */
static long proc_rank(const char *p)
{
    const char *close = strchr(p, ']'), *comma;
    long r;
    if (!close)
        return -1;
    comma = close;
    while (comma > p && *comma != ',')
        comma--;
    if (*comma != ',' || comma == p)
        return -1;
    comma++;
    if ((r = bl_line_number(&comma)) < 0 || comma != close)
        return -1;
    return r;
}

static int node_line(bl_prrte_map_state *st, const char *p, char *reason)
{
    size_t n = strcspn(p, " \t");
    st->host[0] = '\0';
    return bl_line_host(st->host, p, n, reason) == BL_LINE_OK ? BL_LINE_OTHER
                                                              : BL_LINE_BAD;
}

int bl_bindreport_prrte_map_line(bl_prrte_map_state *st, const char *line,
                                 hwloc_topology_t topo, bl_binding *b,
                                 char *reason)
{
    const char *t = trim(line), *p;
    char head[48];
    int rc;

    if ((p = bl_line_skip(t, NODE_HEAD)))
        return node_line(st, p, reason);
    if ((p = bl_line_skip(t, PROC_HEAD))) {
        long r = proc_rank(p);
        int open = st->rank >= 0;
        int was = st->rank, at = st->line;
        st->rank = (int)r; /* -1 when the head is cut */
        st->line = b->line;
        if (open)
            return bl_line_bad(reason, "rank %d (line %d) has no 'Binding:' "
                               "line before the next rank (truncated?)", was,
                               at);
        if (r < 0)
            return bl_line_bad(reason, "expected 'Data for proc: [JOB,RANK]' "
                               "(truncated?)");
        return BL_LINE_OTHER;
    }
    if (!(p = bl_line_skip(t, BINDING_HEAD)))
        return BL_LINE_OTHER;
    if (st->rank < 0)
        return bl_line_bad(reason, "a 'Binding:' line outside a 'Data for "
                           "proc' record (or its second one)");
    b->rank = st->rank;
    st->rank = -1;
    snprintf(b->host, sizeof b->host, "%s", st->host);
    if (strcmp(p, "UNBOUND") == 0) {
        b->bound = 0;
        hwloc_bitmap_copy(b->cpus, hwloc_topology_get_topology_cpuset(topo));
        return BL_LINE_OK;
    }
    if (!bl_line_skip(p, "package["))
        return bl_line_bad(reason, "expected 'package[P][core:LIST]' or "
                           "'UNBOUND' after 'Binding:'");
    /* the text is PRRTE's --report-bindings text: read it by that parser */
    {
        size_t n = strlen(p);
        char buf[BL_BINDREPORT_LINE_MAX + 64];
        if (n > BL_BINDREPORT_LINE_MAX)
            return bl_line_bad(reason, "a Binding: line too long");
        snprintf(head, sizeof head, "Rank %d bound to ", b->rank);
        snprintf(buf, sizeof buf, "%s%s", head, p);
        rc = bl_bindreport_ompi5_line(buf, topo, b, reason);
    }
    return rc == BL_LINE_OTHER ? bl_line_bad(reason, "an unreadable Binding:")
                               : rc;
}

int bl_bindreport_prrte_map_end(bl_prrte_map_state *st, char *reason)
{
    if (st->rank < 0)
        return BL_LINE_OTHER;
    return bl_line_bad(reason, "rank %d has no 'Binding:' line (the map is "
                       "cut short)", st->rank);
}
