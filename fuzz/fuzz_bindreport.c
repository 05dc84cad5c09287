/* libFuzzer target: the binding-report parsers. Built once per format
 * (BL_FUZZ_FORMAT: Open MPI 4, Open MPI 5, PRRTE's job map, Slurm, Hydra,
 * Intel MPI, OMP affinity, and auto detection as `bindlab bindings` uses by default).
 * The report is read against one of a few topologies, chosen by the
 * input's length so that every seed meets all of them; real node XMLs come
 * from the source tree
 * (BL_FUZZ_SOURCE_DIR). Checks the promises of bindreport.h: every binding
 * names PUs of the topology, bindings are sorted and each rank/thread
 * appears once, rejected lines carry a line number inside the input.
 * The same text is also read as a report of several nodes (bl1, bl2 and
 * the seeds' own "vm", each with another of the topologies): every
 * binding then names PUs of the topology of the node it says read it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bindreport/bindreport.h"
#include "topo.h"

#ifndef BL_FUZZ_FORMAT
#define BL_FUZZ_FORMAT BL_REPORT_AUTO
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const specs[] = {
    "pack:1 core:2 pu:1",
    "pack:2 core:14 pu:2",
    "pack:1 core:16 pu:1",
    "pack:2 core:10 pu:8",
    "pack:2 numa:2 l3:2 core:4 pu:2",
    /* Group objects: without packages Open MPI 4.1 draws no map */
    "group:2 core:2 pu:1",
    "numa:2 group:2 core:2 pu:2",
    "AMD-17h-Zen-2xEpyc-7451.xml",
    "Intel-Skylake-2xXeon6140.xml",
};
#define NTOPO (sizeof specs / sizeof specs[0])
static hwloc_topology_t topos[NTOPO];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    for (size_t i = 0; i < NTOPO; i++) {
        char path[1024];
        const char *spec = specs[i];
        bl_err err;
        if (strstr(spec, ".xml")) {
            snprintf(path, sizeof path, "%s/configs/topologies/%s",
                     BL_FUZZ_SOURCE_DIR, spec);
            spec = path;
        }
        if (bl_topo_load(spec, &topos[i], &err) < 0) {
            fprintf(stderr, "fuzz_bindreport: %s\n", err.msg);
            abort();
        }
    }
    return 0;
}

static int cmp_key(const bl_binding *a, const bl_binding *b)
{
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->rank < 0) {
        int h = strcmp(a->host, b->host);
        if (h)
            return h;
        if (a->pid != b->pid)
            return a->pid < b->pid ? -1 : 1;
    }
    return (a->thread > b->thread) - (a->thread < b->thread);
}

/* The promises of bindreport.h for r, read with t (node -1) or, per
 * binding, node k's topology nodes[k] of n. */
static void check(const bl_binding_report *r, hwloc_topology_t t,
                  const hwloc_topology_t *nodes, int n, size_t lines)
{
    for (size_t i = 0; i < r->count; i++) {
        const bl_binding *b = &r->items[i];
        hwloc_topology_t mine = b->node >= 0 && b->node < n ? nodes[b->node]
                                                            : t;
        if (b->node < -1 || b->node >= n ||
            !hwloc_bitmap_isincluded(b->cpus,
                                     hwloc_topology_get_topology_cpuset(mine)) ||
            hwloc_bitmap_iszero(b->cpus) || b->line < 1 ||
            (size_t)b->line > lines ||
            (i > 0 && cmp_key(&r->items[i - 1], b) >= 0))
            abort();
    }
    for (size_t i = 0; i < r->nrejected; i++)
        if (r->rejected[i].line < 1 || (size_t)r->rejected[i].line > lines ||
            !r->rejected[i].reason[0])
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const hosts[] = {"bl1", "bl2.cluster", "vm"};
    hwloc_topology_t nodes[3] = {topos[(size + 1) % NTOPO],
                                 topos[(size + 2) % NTOPO],
                                 topos[(size + 3) % NTOPO]};
    bl_report_topos several;
    hwloc_topology_t t = topos[size % NTOPO];
    char *text = malloc(size + 1);
    bl_binding_report r;
    bl_err err;
    size_t lines = 1;
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (bl_bindreport_parse(text, BL_FUZZ_FORMAT, t, &r, &err) == 0) {
        check(&r, t, NULL, 0, lines);
        bl_bindreport_free(&r);
    }
    several = (bl_report_topos){t, 3, hosts, nodes};
    if (bl_bindreport_parse_nodes(text, BL_FUZZ_FORMAT, &several, &r,
                                  &err) == 0) {
        check(&r, t, nodes, 3, lines);
        bl_bindreport_free(&r);
    }
    free(text);
    return 0;
}
