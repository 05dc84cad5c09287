/* bindlab slurm: batch scripts that run a sweep under Slurm, either as one
 * job or as a job array (one shard of the sweep per task) followed by a
 * merge job. What the layouts need from a node (tasks, CPUs) is worked out
 * here, checked against what sinfo says the partition's nodes have, and
 * written as #SBATCH lines; every other value lands in the script body
 * shell-quoted. Running sinfo and sbatch goes through launch.h (argv, no
 * shell). See slurm/README.md for the binding background. */
#ifndef BL_SLURM_H
#define BL_SLURM_H

#include <stddef.h>

#include <hwloc.h>

#include "sweep/sweep_file.h"
#include "err.h"

/* What the layouts of a sweep need from each node of the allocation. */
typedef struct bl_slurm_needs {
    int ntasks_per_node;  /* the most ranks a layout puts on one node: Open
                           * MPI takes its slot count from it */
    int cpus_per_task;    /* so that ntasks x cpus covers cpus_per_node */
    int cpus_per_node;    /* the most CPUs one layout keeps busy on a node:
                           * ranks x max(threads, PUs of a PE binding) */
    int widest;           /* the layout that needs cpus_per_node, */
    int widest_ranks;     /* with this many ranks per node */
    int widest_per_rank;  /* of this many CPUs each */
    int nruns;            /* runs, repetitions counted */
    int nodes;            /* nodes per job: the most a layout names (its
                           * nodes key), at least the nodes asked for */
} bl_slurm_needs;

/* Works out the needs of every layout of s on nodes of topology topo (the
 * partition's node shape, or this machine), ranks spread over `nodes`
 * nodes, or over the nodes a layout names.
 * Fails with bl_layout_validate's arithmetic for a layout such a node
 * cannot run. */
int bl_slurm_needs_compute(const bl_sweep *s, hwloc_topology_t topo,
                           int nodes, int oversubscribe, bl_slurm_needs *out,
                           bl_err *err);

/* A partition as sinfo shows it. */
typedef struct bl_slurm_partition {
    char name[64];
    int cpus;             /* CPUs of its largest node */
    int sockets, cores, threads; /* that node's S:C:T */
} bl_slurm_partition;

/* Parses `sinfo -h -o "%P|%c|%z"`: one line per partition and node
 * shape ("debug*|2|1:2:1", "big|128+|2:32:2"). partition NULL or "" picks
 * the default one (marked '*'). Fails naming the partitions seen. */
int bl_slurm_parse_sinfo(const char *text, const char *partition,
                         bl_slurm_partition *out, bl_err *err);

/* Runs sinfo (program: path or NULL for "sinfo") and parses it. Returns
 * -1 with err when sinfo cannot run or fails (Slurm not reachable), -2
 * when the partition is unknown. */
int bl_slurm_query_partition(const char *program, const char *partition,
                             bl_slurm_partition *out, bl_err *err);

/* An hwloc synthetic description of the partition's node, for
 * bl_slurm_needs_compute: "pack:2 core:32 pu:2". */
int bl_slurm_partition_synthetic(const bl_slurm_partition *p, char *buf,
                                 size_t len);

/* Refuses needs that do not fit the partition's nodes, with the
 * arithmetic ("layout r0003 (...) needs 4 ranks x 2 CPUs = 8 CPUs per
 * node; partition debug's nodes have 2 (sinfo)"). */
int bl_slurm_check_fit(const bl_sweep *s, const bl_slurm_needs *n,
                       const bl_slurm_partition *p, bl_err *err);

/* --- scripts ------------------------------------------------------------ */

typedef struct bl_slurm_opts {
    const char *bindlab;     /* absolute path of bindlab, run by the job */
    const char *app;         /* absolute path of bindlab-app */
    const char *sweep_file;  /* absolute path of the sweep file */
    const char *results;     /* absolute results directory */
    const char *partition;   /* NULL: the cluster's default */
    const char *account;     /* NULL: the user's default */
    const char *time_limit;  /* NULL: the partition's default */
    const char *const *modules; /* `module load` each, in order */
    int nmodules;
    const char *launcher;    /* "mpirun" (NULL) or "srun" */
    int nodes;               /* >= 1 */
    int array;               /* 0: one job; K >= 1: K array tasks */
    int oversubscribe;
    const char *command;     /* the generating command, for the header */
    const char *workdir;     /* an app: sweep's program runs here (cd), or
                              * NULL: the job's own directory */
    const char *app_libomp;  /* omp_runtime libomp's app and intel's
                              * libiomp5 (sweep_omp.h), absolute; NULL
                              * when no layout asks for them */
    const char *libiomp5;
} bl_slurm_opts;

/* Checks a value that goes into an #SBATCH line, which sbatch reads with
 * its own rules (no shell quoting there): letters, digits and _ . : , / +
 * @ % = -, not starting with '-'. what names the option in the message. */
int bl_slurm_check_sbatch_value(const char *what, const char *value,
                                bl_err *err);

/* The job name: "bindlab-NAME" with every character outside
 * [A-Za-z0-9_.-] written as '_'. */
void bl_slurm_job_name(const char *sweep_name, char *buf, size_t len);

/* The batch script (one job, or the array when o->array > 0), malloc'ed;
 * NULL with err for a bad value or out of memory. */
char *bl_slurm_script(const bl_slurm_opts *o, const bl_sweep *s,
                      const bl_slurm_needs *n, bl_err *err);

/* The merge job of an array: takes the array's job id as its argument,
 * reports shards with no exit status (never ran, cancelled, out of time)
 * or a non-zero one, and runs bindlab merge into RESULTS/NAME.h5. Exit
 * status 1 when a shard is missing or failed, or the merge failed. */
char *bl_slurm_merge_script(const bl_slurm_opts *o, const bl_sweep *s,
                            bl_err *err);

/* The merge script's path beside the array script: X.sbatch ->
 * X.merge.sbatch, anything else -> X.merge. */
int bl_slurm_merge_path(const char *script_path, char *buf, size_t len,
                        bl_err *err);

/* --- files and submission ---------------------------------------------- */

/* Writes text to path atomically (path.tmp.PID, then rename), mode 0755. */
int bl_slurm_write_script(const char *path, const char *text, bl_err *err);

/* Reads `sbatch --parsable` output: "JOBID" or "JOBID;CLUSTER". */
int bl_slurm_parse_jobid(const char *text, char *jobid, size_t len,
                         bl_err *err);

/* Runs sbatch --parsable [--dependency=DEP] SCRIPT [ARG] (program: path or
 * NULL for "sbatch") and returns the job id. */
int bl_slurm_submit(const char *program, const char *script,
                    const char *dependency, const char *arg, char *jobid,
                    size_t len, bl_err *err);

#endif
