/* The rules of `bindlab check`: given an observed placement, what does not
 * fit together. Texts say what happens to the memory or threads, and what
 * to change; the ids are stable for scripts. */
#include "placement_check.h"
#include "placement_check_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpuset.h"
#include "gpu_visible.h"

int bl_pcheck_state_init(bl_pcheck_state *s, int node_slots, bl_err *err)
{
    memset(s, 0, sizeof *s);
    s->policy = -1;
    s->numa_balancing = -1;
    s->rank = -1;
    s->cpus = hwloc_bitmap_alloc();
    s->mems_allowed = hwloc_bitmap_alloc();
    s->nodes = hwloc_bitmap_alloc();
    s->policy_nodes = hwloc_bitmap_alloc();
    s->node_cpus = calloc((size_t)(node_slots > 0 ? node_slots : 1),
                          sizeof *s->node_cpus);
    if (!s->cpus || !s->mems_allowed || !s->nodes || !s->policy_nodes ||
        !s->node_cpus)
        return bl_err_set(err, "placement check: out of memory");
    s->node_slots = node_slots;
    for (int n = 0; n < node_slots; n++)
        if (!(s->node_cpus[n] = hwloc_bitmap_alloc()))
            return bl_err_set(err, "placement check: out of memory");
    return 0;
}

void bl_pcheck_state_free(bl_pcheck_state *s)
{
    hwloc_bitmap_free(s->cpus);
    hwloc_bitmap_free(s->mems_allowed);
    hwloc_bitmap_free(s->nodes);
    hwloc_bitmap_free(s->policy_nodes);
    if (s->node_cpus)
        for (int n = 0; n < s->node_slots; n++)
            hwloc_bitmap_free(s->node_cpus[n]);
    free(s->node_cpus);
    free(s->core_of);
    bl_pci_list_free(&s->gpus);
    memset(s, 0, sizeof *s);
}

const char *bl_pcheck_policy_name(int policy)
{
    static const char *const names[] = {
        "default", "preferred", "bind", "interleave",
        "local", "preferred-many", "weighted-interleave"};
    if (policy < 0 || policy >= (int)(sizeof names / sizeof names[0]))
        return "unknown";
    return names[policy];
}

void bl_pcheck_cpu_nodes(const bl_pcheck_state *s, hwloc_bitmap_t out)
{
    hwloc_bitmap_zero(out);
    for (int n = 0; n < s->node_slots; n++)
        if (hwloc_bitmap_intersects(s->node_cpus[n], s->cpus))
            hwloc_bitmap_set(out, (unsigned)n);
}

/* ---- building findings ------------------------------------------------ */

static bl_pcheck_list lt(hwloc_const_bitmap_t set)
{
    return bl_pcheck_list_text(set);
}

/* ---- memory nodes vs CPU nodes ---------------------------------------- */

/* Default or local policy: memory follows the CPU, inside the cpuset's
 * memory nodes. */
static void check_local(const bl_pcheck_state *s, hwloc_const_bitmap_t cpun,
                        bl_pcheck_findings *f)
{
    hwloc_bitmap_t miss = hwloc_bitmap_alloc();
    hwloc_bitmap_andnot(miss, cpun, s->mems_allowed);
    if (!hwloc_bitmap_iszero(miss)) {
        int none = !hwloc_bitmap_intersects(cpun, s->mems_allowed);
        bl_pcheck_add(f, "cpu-mem-nodes", BL_PCHECK_WARNING,
            "CPUs on NUMA node%s %s, but memory is allowed only on node%s %s "
            "(Mems_allowed_list, the cpuset): %s; give the cpuset the "
            "memory of its CPUs' nodes (cpuset.mems) or run on CPUs of "
            "node%s %s",
            bl_pcheck_plural(cpun), lt(cpun).s, bl_pcheck_plural(s->mems_allowed),
            lt(s->mems_allowed).s,
            none ? "every page is remote"
                 : "threads on the other nodes get remote memory",
            bl_pcheck_plural(s->mems_allowed), lt(s->mems_allowed).s);
    } else if (!hwloc_bitmap_isequal(cpun, s->mems_allowed) &&
               !hwloc_bitmap_iszero(cpun)) {
        bl_pcheck_add(f, "local-mask-wider", BL_PCHECK_NOTE,
            "memory policy %s: pages come from the node of the CPU that "
            "first touches them (node%s %s), but the memory mask allows "
            "node%s %s; programs that size their NUMA use from the memory "
            "mask (the JVM's UseNUMA) count nodes this process does not "
            "run on (numactl --membind=%s makes the masks agree)",
            bl_pcheck_policy_name(s->policy), bl_pcheck_plural(cpun), lt(cpun).s,
            bl_pcheck_plural(s->mems_allowed), lt(s->mems_allowed).s, lt(cpun).s);
    }
    hwloc_bitmap_free(miss);
}

static void check_bind(const bl_pcheck_state *s, hwloc_const_bitmap_t cpun,
                       hwloc_const_bitmap_t mem, bl_pcheck_findings *f)
{
    const char *pol = bl_pcheck_policy_name(s->policy);
    hwloc_bitmap_t d = hwloc_bitmap_alloc();
    if (!hwloc_bitmap_intersects(mem, cpun)) {
        bl_pcheck_add(f, "cpu-mem-nodes", BL_PCHECK_WARNING,
            "memory policy %s to node%s %s, but the CPUs are on node%s %s: "
            "every page is remote (numactl --cpunodebind=N --membind=N with "
            "the same N)",
            pol, bl_pcheck_plural(mem), lt(mem).s, bl_pcheck_plural(cpun), lt(cpun).s);
    } else if (hwloc_bitmap_andnot(d, cpun, mem), !hwloc_bitmap_iszero(d)) {
        bl_pcheck_add(f, "cpu-mem-nodes", BL_PCHECK_WARNING,
            "memory policy %s to node%s %s, but the CPUs are on node%s %s: "
            "threads on node%s %s get remote memory (bind memory to the "
            "CPUs' nodes, or the CPUs to the memory's)",
            pol, bl_pcheck_plural(mem), lt(mem).s, bl_pcheck_plural(cpun), lt(cpun).s,
            bl_pcheck_plural(d), lt(d).s);
    } else if (hwloc_bitmap_andnot(d, mem, cpun), !hwloc_bitmap_iszero(d)) {
        bl_pcheck_add(f, "mem-nodes-wider", BL_PCHECK_NOTE,
            "memory policy %s to node%s %s while the CPUs are on node%s %s: "
            "when those are full, pages come from node%s %s, where none of "
            "this process's CPUs are",
            pol, bl_pcheck_plural(mem), lt(mem).s, bl_pcheck_plural(cpun), lt(cpun).s,
            bl_pcheck_plural(d), lt(d).s);
    }
    hwloc_bitmap_free(d);
}

static void check_preferred(const bl_pcheck_state *s,
                            hwloc_const_bitmap_t cpun, bl_pcheck_findings *f)
{
    int p = hwloc_bitmap_first(s->policy_nodes);
    if (p < 0)
        return; /* preferred with no node is local allocation */
    if (!hwloc_bitmap_isset(cpun, (unsigned)p)) {
        bl_pcheck_add(f, "preferred-remote", BL_PCHECK_WARNING,
            "memory preferred on node %d, but the CPUs are on node%s %s: "
            "pages are remote as long as node %d has free memory "
            "(numactl --preferred=N with N among the CPUs' nodes)",
            p, bl_pcheck_plural(cpun), lt(cpun).s, p);
    } else if (hwloc_bitmap_weight(cpun) > 1) {
        hwloc_bitmap_t d = hwloc_bitmap_dup(cpun);
        hwloc_bitmap_clr(d, (unsigned)p);
        bl_pcheck_add(f, "preferred-remote", BL_PCHECK_WARNING,
            "memory preferred on node %d, but the CPUs are on nodes %s: "
            "threads on node%s %s get remote memory (--localalloc, or "
            "bind the CPUs to node %d)",
            p, lt(cpun).s, bl_pcheck_plural(d), lt(d).s, p);
        hwloc_bitmap_free(d);
    }
}

static void check_interleave(const bl_pcheck_state *s,
                             hwloc_const_bitmap_t cpun,
                             hwloc_const_bitmap_t mem, bl_pcheck_findings *f)
{
    const char *pol = bl_pcheck_policy_name(s->policy);
    if (!hwloc_bitmap_intersects(mem, cpun)) {
        bl_pcheck_add(f, "cpu-mem-nodes", BL_PCHECK_WARNING,
            "memory %s over node%s %s, none of which holds a CPU of this "
            "process (CPUs on node%s %s): every page is remote",
            pol, bl_pcheck_plural(mem), lt(mem).s, bl_pcheck_plural(cpun), lt(cpun).s);
        return;
    }
    if (!hwloc_bitmap_isequal(mem, cpun) || hwloc_bitmap_weight(mem) > 1)
        bl_pcheck_add(f, "interleave-remote", BL_PCHECK_NOTE,
            "memory %s over node%s %s while the CPUs are on node%s %s: a "
            "thread on one of those nodes finds %d of every %d pages "
            "remote (on any other node, all of them); interleaving spreads "
            "bandwidth for data all threads share, it does not make memory "
            "local",
            pol, bl_pcheck_plural(mem), lt(mem).s, bl_pcheck_plural(cpun), lt(cpun).s,
            hwloc_bitmap_weight(mem) - 1, hwloc_bitmap_weight(mem));
}

static void check_memory(const bl_pcheck_state *s, bl_pcheck_findings *f)
{
    hwloc_bitmap_t cpun = hwloc_bitmap_alloc(), mem = hwloc_bitmap_alloc();
    bl_pcheck_cpu_nodes(s, cpun);
    /* The kernel only ever uses the policy's nodes inside the cpuset's. */
    hwloc_bitmap_and(mem, s->policy_nodes, s->mems_allowed);
    if (hwloc_bitmap_iszero(mem))
        hwloc_bitmap_copy(mem, s->policy_nodes);
    switch (s->policy) {
    case BL_MPOL_DEFAULT:
    case BL_MPOL_LOCAL:
        check_local(s, cpun, f);
        break;
    case BL_MPOL_BIND:
    case BL_MPOL_PREFERRED_MANY:
        check_bind(s, cpun, mem, f);
        break;
    case BL_MPOL_PREFERRED:
        check_preferred(s, cpun, f);
        break;
    case BL_MPOL_INTERLEAVE:
    case BL_MPOL_WEIGHTED_INTERLEAVE:
        check_interleave(s, cpun, mem, f);
        break;
    default:
        break;
    }
    if (hwloc_bitmap_weight(cpun) > 1)
        bl_pcheck_add(f, "cpus-cross-nodes", BL_PCHECK_WARNING,
            "this process may run on CPUs %s of %d NUMA nodes (%s): a "
            "thread that moves to another node leaves its memory behind; "
            "bind the process to one node (numactl --cpunodebind=%d "
            "--membind=%d) or one rank per node, or pin every thread "
            "(OMP_PROC_BIND) and first-touch in parallel",
            lt(s->cpus).s, hwloc_bitmap_weight(cpun), lt(cpun).s,
            hwloc_bitmap_first(cpun), hwloc_bitmap_first(cpun));
    hwloc_bitmap_free(cpun);
    hwloc_bitmap_free(mem);
}

/* ---- launchers -------------------------------------------------------- */

/* Does a SLURM_CPU_BIND value bind? "quiet,cores" yes; "none",
 * "verbose,none" no. */
static int slurm_binds(const char *v)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    int binds = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "none") == 0 || strcmp(t, "no") == 0)
            return 0;
        if (strcmp(t, "quiet") && strcmp(t, "q") && strcmp(t, "verbose") &&
            strcmp(t, "v"))
            binds = 1;
    }
    return binds;
}

static void check_launchers(const bl_pcheck_state *s, bl_pcheck_findings *f)
{
    if (s->slurm_cpu_bind && slurm_binds(s->slurm_cpu_bind) &&
        s->mpirun_binding[0])
        bl_pcheck_add(f, "double-binding", BL_PCHECK_WARNING,
            "Slurm binds (SLURM_CPU_BIND=%s) and mpirun binds too (%s): "
            "mpirun's binding is applied inside Slurm's, so ranks get the "
            "intersection or fewer CPUs than asked; let one of them bind "
            "(SLURM_CPU_BIND=none under mpirun, or srun alone)",
            s->slurm_cpu_bind, s->mpirun_binding);
    int ncpus = hwloc_bitmap_weight(s->cpus);
    if (s->slurm_cpus_on_node > 0 && s->slurm_cpus_on_node < ncpus)
        bl_pcheck_add(f, "allocation-unenforced", BL_PCHECK_NOTE,
            "Slurm grants this job %d CPU%s on this node "
            "(SLURM_CPUS_ON_NODE) but the process may run on %d (%s): "
            "nothing confines it (TaskPlugin without task/affinity or "
            "task/cgroup), so other jobs' tasks may share these CPUs",
            s->slurm_cpus_on_node, s->slurm_cpus_on_node == 1 ? "" : "s",
            ncpus, lt(s->cpus).s);
}

/* ---- the kernel ------------------------------------------------------- */

static void check_kernel(const bl_pcheck_state *s, bl_pcheck_findings *f)
{
    int nodes = hwloc_bitmap_weight(s->nodes);
    if (s->numa_balancing > 0)
        bl_pcheck_add(f, "numa-balancing", nodes > 1 ? BL_PCHECK_WARNING : BL_PCHECK_NOTE,
            "automatic NUMA balancing is on (/proc/sys/kernel/numa_balancing "
            "= %d): %s",
            s->numa_balancing,
            nodes > 1 ? "the kernel moves pages and threads during the run, "
                        "so the placement measured is not the one set: "
                        "pages migrate towards the threads that use them "
                        "after first touch, so a serial first touch can read "
                        "as mostly local once the run is over (bindlab-app "
                        "records the pages right after first touch and "
                        "after the run, and flags pages-migrated); "
                        "echo 0 > /proc/sys/kernel/numa_balancing for "
                        "placement experiments"
                      : "with one NUMA node it has nothing to move");
    if (strcmp(s->thp, "always") == 0)
        bl_pcheck_add(f, "thp-always", BL_PCHECK_NOTE,
            "transparent huge pages: always: a 2 MiB page lands whole on one "
            "node, so first touch places memory in 2 MiB steps and a "
            "thread's share can straddle nodes; 'madvise' or 'never' gives "
            "4 KiB placement");
}

/* A GPU this process was given (by CUDA_VISIBLE_DEVICES and the like)
 * whose locality holds none of its CPUs. A process that sees every GPU
 * was given none: which it uses is its own choice, not judged here. The
 * judgement is gpu_visible.h's, which bindlab run's records share. */
static void check_gpus(const bl_pcheck_state *s, bl_pcheck_findings *f)
{
    char text[600];
    if (s->gpus_given && bl_gpu_not_local(&s->gpus, s->cpus, text, sizeof text))
        bl_pcheck_add(f, "gpu-not-local", BL_PCHECK_WARNING, "%s", text);
}

void bl_pcheck_eval(const bl_pcheck_state *s, bl_pcheck_findings *f)
{
    memset(f, 0, sizeof *f);
    check_memory(s, f);
    bl_pcheck_openmp(s, f);
    check_launchers(s, f);
    check_kernel(s, f);
    check_gpus(s, f);
}
