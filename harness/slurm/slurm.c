/* What a sweep needs from Slurm nodes, and what the partition has. */
#include "slurm/slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/launch.h"

static int ceil_div(int a, int b)
{
    return (a + b - 1) / b;
}

int bl_slurm_needs_compute(const bl_sweep *s, hwloc_topology_t topo,
                           int nodes, int oversubscribe, bl_slurm_needs *out,
                           bl_err *err)
{
    memset(out, 0, sizeof *out);
    out->widest = -1;
    if (nodes < 1)
        return bl_err_set(err, "--nodes %d: give 1 or more", nodes);
    out->nodes = nodes;
    for (int i = 0; i < s->nlayouts; i++) {
        bl_layout l_spread = s->layouts[i], *l = &l_spread;
        bl_layout_check chk;
        int per_node, per_rank, cpus;
        /* a layout without a nodes key spreads over the job's nodes */
        if (l->nodes <= 0)
            l->nodes = nodes;
        if (l->nodes > out->nodes)
            out->nodes = l->nodes;
        per_node = l->map.ppr && l->map.res == BL_RES_NODE
                       ? (l->map.ppr < l->np ? l->map.ppr : l->np)
                       : ceil_div(l->np, l->nodes);
        if (bl_layout_validate(l, topo, oversubscribe, &chk, err) < 0)
            return bl_err_prefix(err, "layout %s (%s%s%s)", l->run_id,
                                 l->name, l->name[0] ? " " : "", l->label);
        /* Every thread wants a CPU of its own; a PE binding reserves its
         * PUs even for fewer threads. An unbound rank's "PUs" are the whole
         * node, which says nothing about what it needs. */
        per_rank = chk.threads;
        if (l->map.pe && chk.pus_per_rank > per_rank)
            per_rank = chk.pus_per_rank;
        cpus = per_node * per_rank;
        if (per_node > out->ntasks_per_node)
            out->ntasks_per_node = per_node;
        if (cpus > out->cpus_per_node) {
            out->cpus_per_node = cpus;
            out->widest = i;
            out->widest_ranks = per_node;
            out->widest_per_rank = per_rank;
        }
        out->nruns += l->repetitions > 0 ? l->repetitions : 1;
    }
    if (out->ntasks_per_node < 1)
        return bl_err_set(err, "%s: no layouts", s->file);
    out->cpus_per_task = ceil_div(out->cpus_per_node, out->ntasks_per_node);
    return 0;
}

/* One "NAME|CPUS|S:C:T" line; returns 0, or -1 when it is not one. */
static int parse_sinfo_line(const char *line, size_t len,
                            bl_slurm_partition *p)
{
    char buf[256], *bar1, *bar2, *end;
    long cpus;
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    bar1 = strchr(buf, '|');
    bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
    if (!bar2 || bar1 == buf || (size_t)(bar1 - buf) >= sizeof p->name)
        return -1;
    *bar1 = '\0';
    bl_textf(p->name, sizeof p->name, "%s", buf);
    cpus = strtol(bar1 + 1, &end, 10);
    /* sinfo writes "128+" when nodes of the line differ */
    if (end == bar1 + 1 || cpus < 1 || cpus > 1 << 20 ||
        (*end != '|' && *end != '+'))
        return -1;
    p->cpus = (int)cpus;
    if (sscanf(bar2 + 1, "%d:%d:%d", &p->sockets, &p->cores, &p->threads) !=
            3 ||
        p->sockets < 1 || p->cores < 1 || p->threads < 1)
        p->sockets = p->cores = p->threads = 0; /* shape unknown */
    return 0;
}

int bl_slurm_parse_sinfo(const char *text, const char *partition,
                         bl_slurm_partition *out, bl_err *err)
{
    char seen[256] = "";
    size_t seen_len = 0;
    int found = 0;
    memset(out, 0, sizeof *out);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        bl_slurm_partition p = {{0}, 0, 0, 0, 0};
        if (parse_sinfo_line(line, len, &p) == 0) {
            size_t n = strlen(p.name);
            int dflt = n > 0 && p.name[n - 1] == '*';
            if (dflt)
                p.name[n - 1] = '\0';
            if (seen_len + n + 3 < sizeof seen && !strstr(seen, p.name))
                seen_len += (size_t)snprintf(seen + seen_len,
                                             sizeof seen - seen_len, "%s%s",
                                             seen_len ? ", " : "", p.name);
            if ((partition && *partition) ? strcmp(p.name, partition) == 0
                                          : dflt) {
                /* several node shapes: the largest node decides */
                if (!found || p.cpus > out->cpus)
                    *out = p;
                found = 1;
            }
        } else if (len > 0) {
            return bl_err_set(err, "sinfo: unexpected line '%.*s' (expected "
                              "PARTITION|CPUS|S:C:T)", (int)(len > 80 ? 80 : len),
                              line);
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!found) {
        if (partition && *partition)
            return bl_err_set(err, "--partition '%s': sinfo shows no such "
                              "partition (partitions: %s)", partition,
                              seen_len ? seen : "none");
        return bl_err_set(err, "sinfo shows no default partition "
                          "(partitions: %s); give --partition",
                          seen_len ? seen : "none");
    }
    return 0;
}

int bl_slurm_query_partition(const char *program, const char *partition,
                             bl_slurm_partition *out, bl_err *err)
{
    char *argv[] = {(char *)(program ? program : "sinfo"), "-h", "-o",
                    "%P|%c|%z", NULL};
    bl_launch_opts lo = {0};
    bl_launch_result res;
    int rc;
    lo.argv = argv;
    lo.timeout_s = 30.0;
    if (bl_launch_run(&lo, &res, err) < 0) {
        bl_launch_result_free(&res);
        return -1;
    }
    if (bl_launch_require_success(&res, &lo, argv[0], 1, err) < 0) {
        bl_launch_result_free(&res);
        return -1;
    }
    rc = bl_slurm_parse_sinfo(res.out.head, partition, out, err) < 0 ? -2 : 0;
    bl_launch_result_free(&res);
    return rc;
}

int bl_slurm_partition_synthetic(const bl_slurm_partition *p, char *buf,
                                 size_t len)
{
    if (p->sockets < 1 || p->cores < 1 || p->threads < 1)
        return -1;
    return bl_textf(buf, len, "pack:%d core:%d pu:%d", p->sockets, p->cores,
                    p->threads);
}

int bl_slurm_check_fit(const bl_sweep *s, const bl_slurm_needs *n,
                       const bl_slurm_partition *p, bl_err *err)
{
    const bl_layout *l;
    if (n->cpus_per_node <= p->cpus || n->widest < 0)
        return 0;
    l = &s->layouts[n->widest];
    return bl_err_set(err, "layout %s (%s%s%s) needs %d CPUs per node (%d "
                      "ranks x %d CPUs), but partition %s's largest node "
                      "has %d (sinfo)",
                      l->run_id, l->name, l->name[0] ? " " : "", l->label,
                      n->cpus_per_node, n->widest_ranks, n->widest_per_rank,
                      p->name,
                      p->cpus);
}
