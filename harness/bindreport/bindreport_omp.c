/* OMP_DISPLAY_AFFINITY lines.
 * - bindlab's own format (BL_OMP_AFFINITY_FORMAT, optionally with rank=R):
 *   "bindlab-omp [rank=R ]host=H pid=P thread=N affinity=LIST"
 * - LLVM libomp's and Intel's default format:
 *   "OMP: pid P tid T thread N bound to OS proc set {LIST}"
 * - their KMP_AFFINITY=verbose lines, one per thread bound:
 *   "OMP: Info #NNN: VAR: pid P tid T thread N bound to OS proc set LIST"
 *   (VAR KMP_AFFINITY, OMP_PROC_BIND, KMP_HW_SUBSET or OMP_PLACES; the
 *   message number differs by version: #254 in libomp 14, #255 in Intel's
 *   2026). There N is the runtime's global thread id: the OpenMP thread
 *   number in Intel's runtime and in libomp 14's balanced lines, shifted
 *   by libomp 14's eight hidden helper threads in its other lines; kept
 *   as printed (OMP_DISPLAY_AFFINITY gives the thread number itself).
 * - libgomp's default format, "level L thread 0x7f.. affinity LIST", names
 *   no OpenMP thread number (only the pthread handle) and no process, so
 *   its lines are rejected with a pointer to BL_OMP_AFFINITY_FORMAT
 *   instead of being numbered by the order they happen to print in. */
#include "bindreport/bindreport_priv.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"

static int affinity_list(const char *text, size_t len, hwloc_topology_t topo,
                         bl_binding *b, char *reason)
{
    char buf[1024];
    bl_err e;
    if (len == 0 || len >= sizeof buf)
        return bl_line_bad(reason, "affinity list of %zu characters", len);
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (bl_cpuset_parse_list(buf, b->cpus, &e) < 0)
        return bl_line_bad(reason, "%s", e.msg);
    return bl_line_check_pus(topo, b->cpus, reason);
}

/* One "key=value" token of bindlab's format; the value ends at a space. */
static int bindlab_field(const char *key, size_t klen, const char *val,
                         size_t vlen, hwloc_topology_t topo, bl_binding *b,
                         int *seen, char *reason)
{
    static const char *const keys[] = {"rank", "host", "pid", "thread",
                                       "affinity"};
    const char *q = val;
    long v = 0;
    int k;

    for (k = 0; k < 5; k++)
        if (strlen(keys[k]) == klen && strncmp(keys[k], key, klen) == 0)
            break;
    if (k == 5)
        return bl_line_bad(reason, "unknown field '%.*s' (expected rank, "
                           "host, pid, thread, affinity)", (int)klen, key);
    if (*seen & (1 << k))
        return bl_line_bad(reason, "field '%s' given twice", keys[k]);
    *seen |= 1 << k;
    if (k == 1)
        return bl_line_host(b->host, val, vlen, reason);
    if (k == 4)
        return affinity_list(val, vlen, topo, b, reason);
    if ((v = bl_line_number(&q)) < 0 || q != val + vlen)
        return bl_line_bad(reason, "%s='%.*s' is not a number", keys[k],
                           (int)vlen, val);
    if (k == 0)
        b->rank = (int)v;
    else if (k == 2)
        b->pid = v;
    else
        b->thread = (int)v;
    return BL_LINE_OK;
}

static int bindlab_line(const char *p, hwloc_topology_t topo, bl_binding *b,
                        char *reason)
{
    int seen = 0;
    while (*p) {
        const char *eq = strchr(p, '='), *end;
        int rc;
        if (!eq || memchr(p, ' ', (size_t)(eq - p)))
            return bl_line_bad(reason, "expected key=value at '%.30s'", p);
        end = strchr(eq + 1, ' ');
        if (!end)
            end = eq + 1 + strlen(eq + 1);
        rc = bindlab_field(p, (size_t)(eq - p), eq + 1,
                           (size_t)(end - eq - 1), topo, b, &seen, reason);
        if (rc != BL_LINE_OK)
            return rc;
        p = *end ? end + 1 : end;
    }
    /* host, pid, thread and affinity are required; rank is not. */
    if ((seen & 0x1e) != 0x1e)
        return bl_line_bad(reason, "missing field(s): need host, pid, "
                           "thread and affinity (truncated?)");
    return BL_LINE_OK;
}

/* "P tid T thread N bound to OS proc set {LIST}" (braces: the
 * OMP_DISPLAY_AFFINITY form) or "... set LIST" (verbose). */
static int llvm_line(const char *p, int braces, hwloc_topology_t topo,
                     bl_binding *b, char *reason)
{
    long pid, tid, thread;
    const char *close;
    if ((pid = bl_line_number(&p)) < 0 || !(p = bl_line_skip(p, " tid ")) ||
        (tid = bl_line_number(&p)) < 0 || !(p = bl_line_skip(p, " thread ")) ||
        (thread = bl_line_number(&p)) < 0 ||
        !(p = bl_line_skip(p, braces ? " bound to OS proc set {"
                                     : " bound to OS proc set ")))
        return bl_line_bad(reason, "expected '%spid P tid T thread N "
                           "bound to OS proc set %s' (truncated?)",
                           braces ? "OMP: " : "OMP: Info #N: VAR: ",
                           braces ? "{LIST}" : "LIST");
    if (!braces) {
        close = p + strlen(p);
        while (close > p && close[-1] == ' ')
            close--;
    } else if (!(close = strchr(p, '}')) || close[1] != '\0') {
        return bl_line_bad(reason, "missing '}' at the end (truncated?)");
    }
    (void)tid;
    b->pid = pid;
    b->thread = (int)thread;
    return affinity_list(p, (size_t)(close - p), topo, b, reason);
}

/* After "OMP: Info #NNN: VAR: pid " of a verbose binding line, or NULL
 * for the other Info lines (topology, warnings). */
static const char *verbose_binding(const char *p)
{
    static const char *const vars[] = {"KMP_AFFINITY", "OMP_PROC_BIND",
                                       "KMP_HW_SUBSET", "OMP_PLACES"};
    p += strlen("OMP: Info #");
    if (bl_line_number(&p) < 0 || !(p = bl_line_skip(p, ": ")))
        return NULL;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *q = bl_line_skip(p, vars[i]);
        if (q && (q = bl_line_skip(q, ": pid ")) && strstr(q, " bound to "))
            return q;
    }
    return NULL;
}

int bl_bindreport_omp_line(const char *line, hwloc_topology_t topo,
                           bl_binding *b, char *reason)
{
    const char *p;
    /* Searched anywhere: mpirun --tag-output puts "[1,0]<stderr>:" first. */
    if ((p = strstr(line, "bindlab-omp ")))
        return bindlab_line(p + strlen("bindlab-omp "), topo, b, reason);
    if ((p = strstr(line, "OMP: pid ")))
        return llvm_line(p + strlen("OMP: pid "), 1, topo, b, reason);
    if ((p = strstr(line, "OMP: Info #")) && (p = verbose_binding(p)))
        return llvm_line(p, 0, topo, b, reason);
    if ((p = bl_line_skip(line, "level ")) && bl_line_number(&p) >= 0 &&
        bl_line_skip(p, " thread 0x"))
        return bl_line_bad(reason, "libgomp's default affinity format has no "
                           "thread number; set OMP_AFFINITY_FORMAT='%s'",
                           BL_OMP_AFFINITY_FORMAT);
    return BL_LINE_OTHER;
}
