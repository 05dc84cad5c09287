/* The CPUs this job may use: the one notion every part of bindlab judges
 * a placement against. Inside an allocation (Slurm, a cgroup cpuset,
 * taskset, a container's CPU limit) a process may run on some of the
 * node's CPUs only, and "not bound" means "anywhere in that set", not
 * "anywhere on the node".
 *
 * The set is the process's own affinity (Cpus_allowed_list) within its
 * cgroup cpuset (cpuset.cpus.effective, v2 or v1) when one is read.
 * Slurm's view is kept beside it: SLURM_CPUS_ON_NODE (how many CPUs the
 * job holds on this node, which caps how many it may use even when no
 * task plugin enforces it), SLURM_JOB_CPUS_PER_NODE and the step's
 * SLURM_CPU_BIND. CPUs are Linux (OS) indexes, as taskset numbers them. */
#ifndef BL_ALLOWED_H
#define BL_ALLOWED_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"

#define BL_ALLOWED_TEXT 256

typedef struct bl_allowed {
    hwloc_bitmap_t cpus;              /* affinity within the cgroup's CPUs */
    char affinity[BL_ALLOWED_TEXT];   /* Cpus_allowed_list */
    char cgroup_cpus[BL_ALLOWED_TEXT]; /* "" when no cpuset cgroup was read */
    char cgroup_mems[BL_ALLOWED_TEXT];
    int slurm_cpus_on_node;           /* SLURM_CPUS_ON_NODE, -1 unset */
    char slurm_job_cpus[64];          /* SLURM_JOB_CPUS_PER_NODE, "" unset */
    char slurm_cpu_bind[BL_ALLOWED_TEXT]; /* SLURM_CPU_BIND, "" unset */
    char from[32];                    /* "process", or "--cpuset" */
} bl_allowed;

/* The calling process's set. root "" or NULL reads /proc/self and
 * /sys/fs/cgroup; tests give a directory holding proc/self/status,
 * proc/self/cgroup and sys/fs/cgroup/... instead. Slurm's values come from
 * the environment. Free with bl_allowed_free (also on failure). */
int bl_allowed_gather(bl_allowed *a, const char *root, bl_err *err);

/* A set given as a list ("0-3,8", as taskset -c takes it): --cpuset. */
int bl_allowed_from_list(bl_allowed *a, const char *list, bl_err *err);

void bl_allowed_free(bl_allowed *a);

/* How many CPUs the job may use at once: the set's size, capped by
 * SLURM_CPUS_ON_NODE when Slurm grants fewer than the set holds. */
int bl_allowed_usable(const bl_allowed *a);

/* The set as a list ("0-3") into buf. */
void bl_allowed_list(const bl_allowed *a, char *buf, size_t len);

/* Where the set comes from, in one line: "affinity 0-3, cgroup cpuset
 * 0-7, SLURM_CPUS_ON_NODE 4". */
void bl_allowed_sources(const bl_allowed *a, char *buf, size_t len);

/* topo cut to the set: a copy holding only the allowed PUs (and the
 * cores, caches and nodes around them), so that counting cores or dealing
 * ranks on it counts what the job may use. *out is NULL (and 0 returned)
 * when the set holds every PU of topo; -1 with err when it holds none of
 * them. Release *out with hwloc_topology_destroy(). */
int bl_allowed_restrict(const bl_allowed *a, hwloc_topology_t topo,
                        hwloc_topology_t *out, bl_err *err);

/* The calling process's set for a run's record: the list ("0-3") and its
 * sources (bl_allowed_sources), malloc'ed; both "" when unreadable. */
void bl_allowed_record(char **cpus, char **from);

/* The cpuset cgroup of the calling process (root as bl_allowed_gather):
 * cgroup v2 (the "0::" line, cpuset.cpus.effective) or v1 (the line
 * naming the cpuset controller, cpuset.effective_cpus). cpus and mems stay
 * "" when neither can be read. */
void bl_allowed_cgroup(const char *root, char *cpus, size_t cpus_len,
                       char *mems, size_t mems_len);

#endif
