/* Is this process placed coherently? Reads the caller's own placement
 * (the CPUs it may run on, the NUMA nodes its memory may and will come
 * from, its cgroup cpuset, the OpenMP and launcher settings in its
 * environment, the kernel's NUMA balancing and transparent huge pages) and
 * names in plain words what does not fit together. Used by `bindlab check`
 * and meant for the app's `--check`.
 *
 * Two steps so that the rules can be tested on states this machine cannot
 * produce (two NUMA nodes): bl_pcheck_gather() observes, bl_pcheck_eval()
 * judges a state, however it was filled. NUMA nodes and CPUs are Linux
 * (OS) indexes, as numactl, taskset and /proc number them. */
#ifndef BL_PLACEMENT_CHECK_H
#define BL_PLACEMENT_CHECK_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"
#include "sysfs_pci.h"

#define BL_PCHECK_TEXT 256
#define BL_PCHECK_MAX_FINDINGS 24
#define BL_PCHECK_FINDING_TEXT 640

/* Memory policy modes as get_mempolicy(2) reports them (MPOL_*). */
enum {
    BL_MPOL_DEFAULT = 0,
    BL_MPOL_PREFERRED = 1,
    BL_MPOL_BIND = 2,
    BL_MPOL_INTERLEAVE = 3,
    BL_MPOL_LOCAL = 4,
    BL_MPOL_PREFERRED_MANY = 5,
    BL_MPOL_WEIGHTED_INTERLEAVE = 6,
};

/* The OpenMP runtime whose rules apply: the one this process loaded (the
 * first in the link map, whose omp_* and GOMP_* symbols the program
 * uses), or the one named by --omp-runtime. UNKNOWN is judged as libgomp. */
typedef enum bl_omp_runtime {
    BL_OMP_RT_UNKNOWN,
    BL_OMP_RT_LIBGOMP, /* GCC's libgomp.so.1 */
    BL_OMP_RT_LIBOMP,  /* LLVM's libomp.so(.5) */
    BL_OMP_RT_INTEL    /* Intel's libiomp5.so */
} bl_omp_runtime;

typedef struct bl_pcheck_state {
    hwloc_bitmap_t cpus;         /* the CPUs this job may use (allowed.h):
                                  * Cpus_allowed_list within the cgroup's */
    hwloc_bitmap_t mems_allowed; /* Mems_allowed_list */
    /* node_cpus[n]: the CPUs of NUMA node n (empty: memory only, or no
     * such node); nodes: the nodes that exist. */
    hwloc_bitmap_t nodes;
    hwloc_bitmap_t *node_cpus;
    int node_slots;
    /* core_of[c]: the core of CPU c as the first CPU of its SMT siblings
     * (hwloc's core object); NULL or -1 when unknown. malloc'ed. */
    int *core_of;
    int cpu_slots;
    int policy;                  /* BL_MPOL_*, -1 when unknown */
    unsigned policy_flags;       /* MPOL_F_STATIC_NODES etc. */
    hwloc_bitmap_t policy_nodes; /* the policy's node mask (may be empty) */
    char cgroup_cpus[BL_PCHECK_TEXT]; /* "" when there is no cpuset cgroup */
    char cgroup_mems[BL_PCHECK_TEXT];
    int slurm_cpus_on_node;       /* SLURM_CPUS_ON_NODE, -1 (or 0) unset */
    char allowed_from[BL_PCHECK_TEXT * 2]; /* the sources of cpus, one line */
    int numa_balancing;           /* /proc/sys/kernel/numa_balancing, -1 */
    char thp[32];                 /* THP "enabled" mode, "" unknown */
    /* The environment; NULL when unset. */
    const char *omp_num_threads, *omp_places, *omp_proc_bind;
    const char *kmp_affinity, *kmp_hw_subset, *gomp_cpu_affinity;
    bl_omp_runtime omp_runtime;
    /* Where omp_runtime comes from ("libomp.so.5 loaded in this process",
     * "--omp-runtime"); "" when unknown. Other runtimes loaded beside it
     * ("libgomp.so.1"), "" when none. */
    char omp_runtime_from[BL_PCHECK_TEXT];
    char omp_runtimes_also[BL_PCHECK_TEXT];
    const char *slurm_cpu_bind;
    /* The mpirun binding seen in the environment, e.g.
     * "OMPI_MCA_hwloc_base_binding_policy=core"; "" when none. */
    char mpirun_binding[BL_PCHECK_TEXT];
    /* The GPUs this process may see (gpu_visible.h: the node's GPUs in
     * sysfs, BINDLAB_SYSFS_ROOT for tests, cut by CUDA_VISIBLE_DEVICES
     * and the like); gpus_hidden: those the variables hide. */
    bl_pci_list gpus;
    int gpus_hidden;
    int gpus_given;   /* 1: each GPU kept was named by a variable (the
                       * process was given them), 0: some only because
                       * nothing chose (no variable, or UUIDs) */
    int rank;                     /* from the launcher's env, -1 if none */
    long pid;
    char host[64];
} bl_pcheck_state;

typedef enum { BL_PCHECK_NOTE, BL_PCHECK_WARNING } bl_pcheck_severity;

typedef struct bl_pcheck_finding {
    const char *id; /* stable name for scripts, e.g. "cpu-mem-nodes" */
    bl_pcheck_severity severity;
    char text[BL_PCHECK_FINDING_TEXT];
} bl_pcheck_finding;

typedef struct bl_pcheck_findings {
    bl_pcheck_finding item[BL_PCHECK_MAX_FINDINGS];
    int n;
    int warnings; /* findings that make the placement misaligned */
} bl_pcheck_findings;

/* Allocates the bitmaps of an empty state (policy -1, nothing known). */
int bl_pcheck_state_init(bl_pcheck_state *s, int node_slots, bl_err *err);
void bl_pcheck_state_free(bl_pcheck_state *s);

/* What the caller knows better than the process: NULL or zeroes for none. */
typedef struct bl_pcheck_opts {
    const char *topology;       /* hwloc XML file or synthetic description
                                 * giving the cores (SMT siblings); NULL:
                                 * this machine */
    bl_omp_runtime omp_runtime; /* UNKNOWN: detect from the process */
} bl_pcheck_opts;

/* Observes the calling process: /proc/self/status, get_mempolicy(2),
 * /sys/devices/system/node, the cgroup cpuset, the environment, the
 * OpenMP runtime loaded, the cores (hwloc), /proc/sys/kernel/numa_balancing
 * and the THP mode. s is initialised here and must be freed with
 * bl_pcheck_state_free() (also on failure). */
int bl_pcheck_gather(bl_pcheck_state *s, const bl_pcheck_opts *o, bl_err *err);

/* s->core_of from topo's cores, for the CPUs of s and of topo. */
int bl_pcheck_cores_from_topology(bl_pcheck_state *s, hwloc_topology_t topo,
                                  bl_err *err);

/* "libgomp", "libomp", "intel"; "unknown". */
const char *bl_pcheck_runtime_name(bl_omp_runtime rt);

/* The runtime named name ("libgomp", "libomp", "intel"), -1 if none. */
int bl_pcheck_runtime_parse(const char *name, bl_omp_runtime *out);

/* The NUMA nodes (with CPUs) that the CPUs of s touch, into out. */
void bl_pcheck_cpu_nodes(const bl_pcheck_state *s, hwloc_bitmap_t out);

/* Judges s. Every rule is independent; findings come in a fixed order. */
void bl_pcheck_eval(const bl_pcheck_state *s, bl_pcheck_findings *f);

/* "default", "bind", "interleave", ... as numactl --show names them;
 * "unknown" for -1. */
const char *bl_pcheck_policy_name(int policy);

/* The rank the launcher gave this process (OMPI_COMM_WORLD_RANK, PMI_RANK,
 * PMIX_RANK, SLURM_PROCID, in that order), or -1. */
int bl_pcheck_launcher_rank(void);

#endif
