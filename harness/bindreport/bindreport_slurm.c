/* Slurm's srun --cpu-bind=verbose lines, as slurmstepd's
 * task_slurm_chkaffinity() prints them on the task's stderr:
 *   cpu-bind[-UNITS]=TYPE - NODE, task GTID LTID [PID]: mask 0xHEX[ set][ FAILED]
 * UNITS is threads, cores, sockets or ldoms; TYPE is MASK, MAP, RANK,
 * LDMASK, LDMAP, LDRANK, UNK, NONE or NULL. Releases before 17.11 spelled
 * it cpu_bind (and cpu_bind_cores). The mask holds OS CPU indexes. */
#include "bindreport/bindreport_priv.h"

#include <ctype.h>
#include <string.h>

#include "cpuset.h"

static const char *const types[] = {"LDMASK", "LDMAP", "LDRANK", "MASK",
                                    "MAP",    "RANK",  "UNK",    "NONE",
                                    "NULL"};

/* Claims the line only when "cpu-bind...=TYPE - " is there, so that srun's
 * own warnings that quote --cpu-bind= are left alone. Returns the text
 * after " - ", or NULL; *unbound for NONE/NULL. */
static const char *slurm_head(const char *line, int *unbound)
{
    const char *p = strstr(line, "cpu-bind");
    if (!p)
        p = strstr(line, "cpu_bind");
    if (!p)
        return NULL;
    p += strlen("cpu-bind");
    if (*p == '-' || *p == '_')
        while (*++p && islower((unsigned char)*p))
            ;
    if (*p++ != '=')
        return NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        const char *q = bl_line_skip(p, types[i]);
        if (!q)
            continue;
        while (*q == ' ')
            q++;
        if (!(q = bl_line_skip(q, "- ")))
            return NULL;
        *unbound = strcmp(types[i], "NONE") == 0 ||
                   strcmp(types[i], "NULL") == 0;
        return q;
    }
    return NULL;
}

/* "mask 0xHEX" and its tail; fills b->cpus. */
static int slurm_mask(const char *p, bl_binding *b, char *reason)
{
    char hex[1100];
    size_t n = 0;
    bl_err e;

    if (!(p = bl_line_skip(p, "mask 0x")))
        return bl_line_bad(reason, "expected 'mask 0x...' after the pid");
    while (isxdigit((unsigned char)p[n]))
        n++;
    if (n == 0 || n >= sizeof hex)
        return bl_line_bad(reason, "mask with %zu hexadecimal digits "
                           "(truncated?)", n);
    memcpy(hex, p, n);
    hex[n] = '\0';
    p += n;
    if (*p && *p != ' ')
        return bl_line_bad(reason, "'%c' is not a hexadecimal digit in the "
                           "mask", *p);
    if (bl_cpuset_parse_mask(hex, b->cpus, &e) < 0)
        return bl_line_bad(reason, "%s", e.msg);
    if (strstr(p, "FAILED"))
        return bl_line_bad(reason, "Slurm says setting this mask FAILED");
    if (*p && strcmp(p, " set") != 0)
        return bl_line_bad(reason, "unexpected text after the mask: '%.40s'",
                           p + 1);
    return BL_LINE_OK;
}

int bl_bindreport_slurm_line(const char *line, hwloc_topology_t topo,
                             bl_binding *b, char *reason)
{
    int unbound = 0, rc;
    const char *p = slurm_head(line, &unbound), *comma;
    long gtid, ltid, pid;

    if (!p)
        return BL_LINE_OTHER;
    if (!(comma = strstr(p, ", task ")))
        return bl_line_bad(reason, "expected 'NODE, task ...' (truncated?)");
    if ((rc = bl_line_host(b->host, p, (size_t)(comma - p), reason)) !=
        BL_LINE_OK)
        return rc;
    p = comma + strlen(", task ");
    while (*p == ' ')
        p++;
    if ((gtid = bl_line_number(&p)) < 0)
        return bl_line_bad(reason, "no task id after 'task' (truncated?)");
    while (*p == ' ')
        p++;
    if ((ltid = bl_line_number(&p)) < 0 || !(p = bl_line_skip(p, " [")) ||
        (pid = bl_line_number(&p)) < 0 || !(p = bl_line_skip(p, "]: ")))
        return bl_line_bad(reason, "expected 'task G L [PID]: ' "
                           "(truncated?)");
    b->rank = (int)gtid;
    b->local_rank = (int)ltid;
    b->pid = pid;
    b->bound = !unbound;
    if ((rc = slurm_mask(p, b, reason)) != BL_LINE_OK)
        return rc;
    return bl_line_check_pus(topo, b->cpus, reason);
}
