/* The nodes of the Slurm allocation the harness runs in. */
#include "slurm/slurm_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/launch.h"

void bl_slurm_alloc_free(bl_slurm_alloc *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->hosts[i]);
    free(a->hosts);
    a->hosts = NULL;
    a->n = 0;
}

static int host_ok(const char *s, size_t len)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
                             "TUVWXYZ0123456789.-_";
    if (len == 0 || len > 255 || s[0] == '-')
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!memchr(ok, s[i], sizeof ok - 1))
            return 0;
    return 1;
}

int bl_slurm_alloc_parse(const char *text, bl_slurm_alloc *out, bl_err *err)
{
    memset(out, 0, sizeof *out);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char **grown;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        if (len > 0) {
            if (!host_ok(line, len)) {
                bl_err_set(err, "scontrol show hostnames: '%.*s' is not a "
                           "host name (letters, digits, '.', '-', '_')",
                           (int)(len > 80 ? 80 : len), line);
                bl_slurm_alloc_free(out);
                return -1;
            }
            grown = realloc(out->hosts, (size_t)(out->n + 1) * sizeof *grown);
            if (!grown || !(grown[out->n] = strndup(line, len))) {
                if (grown)
                    out->hosts = grown;
                bl_slurm_alloc_free(out);
                return bl_err_set(err, "out of memory");
            }
            out->hosts = grown;
            out->n++;
        }
        line = nl ? nl + 1 : NULL;
    }
    return 0;
}

int bl_slurm_alloc_read(const char *nodelist, const char *scontrol,
                        bl_slurm_alloc *out, bl_err *err)
{
    char *argv[] = {(char *)(scontrol ? scontrol : "scontrol"), "show",
                    "hostnames", (char *)nodelist, NULL};
    bl_launch_opts lo = {0};
    bl_launch_result res;
    int rc;
    memset(out, 0, sizeof *out);
    if (!nodelist || !*nodelist)
        return 0;
    lo.argv = argv;
    lo.timeout_s = 30.0;
    if (bl_launch_run(&lo, &res, err) < 0 ||
        bl_launch_require_success(&res, &lo, "scontrol show hostnames", 3,
                                  err) < 0) {
        bl_launch_result_free(&res);
        return bl_err_prefix(err, "SLURM_JOB_NODELIST '%s'", nodelist);
    }
    rc = bl_slurm_alloc_parse(res.out.head, out, err);
    bl_launch_result_free(&res);
    if (rc == 0 && out->n == 0)
        return bl_err_set(err, "SLURM_JOB_NODELIST '%s': scontrol show "
                          "hostnames printed no host", nodelist);
    return rc;
}

/* slots > 0: "h:slots" each; each: node i's own; else bare names. */
static int host_list(const bl_slurm_alloc *a, int nodes, int slots,
                     const int *each, char *buf, size_t len, bl_err *err)
{
    size_t used = 0;
    if (nodes > a->n)
        return bl_err_set(err, "nodes %d, but this Slurm allocation has %d "
                          "(%s%s); ask for %d (salloc -N %d, or bindlab "
                          "slurm --nodes %d)", nodes, a->n,
                          a->n > 0 ? a->hosts[0] : "none",
                          a->n > 1 ? ", ..." : "", nodes, nodes, nodes);
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < nodes; i++) {
        int w;
        if (each)
            slots = each[i];
        w = slots > 0 ? snprintf(buf + used, len - used, "%s%s:%d",
                                 i ? "," : "", a->hosts[i], slots)
                      : snprintf(buf + used, len - used, "%s%s",
                                 i ? "," : "", a->hosts[i]);
        if (w < 0 || (size_t)w >= len - used)
            return bl_err_set(err, "nodes %d: the host list is longer than "
                              "%zu characters", nodes, len - 1);
        used += (size_t)w;
    }
    return 0;
}

int bl_slurm_alloc_host_list(const bl_slurm_alloc *a, int nodes, int slots,
                             char *buf, size_t len, bl_err *err)
{
    return host_list(a, nodes, slots, NULL, buf, len, err);
}

int bl_slurm_alloc_host_slots(const bl_slurm_alloc *a, int nodes,
                              const int *slots, char *buf, size_t len,
                              bl_err *err)
{
    return host_list(a, nodes, 0, slots, buf, len, err);
}
