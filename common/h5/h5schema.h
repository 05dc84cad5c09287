/* The one place that knows bindlab's HDF5 layout: group, dataset and
 * attribute names and the compound row types, for writing and reading.
 * docs/schema.md describes the same layout for users of h5dump and h5py.
 *
 * A run file (written by bindlab-app):
 *   /            attrs schema_version, bindlab_version, created, command, file_kind
 *   /machine     attrs (bl_h5_machine) + dataset topology_xml
 *   /run         attrs (kernel, args, ...) + tables env, placement, counters,
 *                memory, ranks, metrics, dataset timings[iterations][ranks],
 *                group result (attrs)
 * A sweep file (written by bindlab) holds /nodes, /runs/<run-id> (each a
 * /run group plus the harness's attributes) and /summary.
 *
 * Machines: every file holds its machine records as /nodes/<k> (k = 0, 1,
 * ...; bl_h5_machine each, hostname included), and /machine is an HDF5
 * hard link to /nodes/0, so readers of files written before /nodes (only
 * /machine) and of new ones read /machine alike. A rank row names its
 * node by index; a run of a sweep file lists its nodes ("nodes"). Files
 * written before /nodes have /machine only: it reads as node 0.
 *
 * The layout is data: each record below has one description of its members
 * (tables: bl_h5_table_def, attributes: bl_h5_attrs_def, in h5schema.c), and
 * the engine in h5table.c writes, reads and frees it from that. A new field
 * is one member here and one line in its description.
 * Who does what with it:
 *   common/h5/h5table.c     the engine (tables, attributes, strings)
 *   common/h5/h5schema.c    the descriptions; run files (machine, run) for the
 *                        app and every reader; root attributes; HDF5 files
 *                        built in memory and handed to common/atomic_file.c
 *                        (temp, fsync, rename); opening a file to read
 *   harness/results/results_file.c  the harness's own code: its record of a run,
 *                        the /summary row, sweep files and merge (the app
 *                        never writes them, so it does not link them). */
#ifndef BL_H5SCHEMA_H
#define BL_H5SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>
#include <hwloc.h>

#include "err.h"
#include "h5/h5table.h"

#define BL_H5_SCHEMA_VERSION 2 /* what each version added: docs/schema.md, "Versions" */

/* ---- rows of a run ------------------------------------------------------ */

typedef struct bl_h5_placement {
    int32_t rank, thread;
    char *host, *rank_cpuset, *cpuset;
    int32_t cpu_first, cpu_last, core, l3, numa, package;
    int64_t migrations;
    int64_t pid;
    int64_t ctx_voluntary, ctx_involuntary; /* timed region; -1 unknown */
    char *main_cpuset_init;    /* the rank's main thread's binding right
                                * after MPI_Init, before any parallel
                                * region; NULL in files written before it
                                * and in `bindlab run` records */
} bl_h5_placement;

typedef struct bl_h5_counter {
    int32_t rank, thread;
    char *name, *event;
    int64_t value;
    int8_t available;
    char *note;
} bl_h5_counter;

typedef struct bl_h5_memory {
    int32_t rank, numa_node;   /* hwloc logical index on the rank's own
                                * node (its rank row's /nodes/<k>); -1:
                                * pages not present */
    int64_t pages;
} bl_h5_memory;

typedef struct bl_h5_rank {
    int32_t rank;
    char *host;
    int32_t node;              /* index into /nodes (the machine of host);
                                * 0 in files written before /nodes */
    double median_s, min_s, rate, local_page_fraction;
    int64_t pages_local, pages_total;
    char *mem_policy;          /* get_mempolicy after --mem-policy */
    char *isa;                 /* the kernels' ISA level in this rank
                                * (kernels/isa.h); NULL in files written
                                * before it */
    char *gpus;                /* the GPUs the rank could see (PCI bus ids,
                                * comma separated; "" none): sysfs cut by
                                * its visible-device variables
                                * (gpu_visible.h); NULL in older files */
    char *gpus_far;            /* those not local to the rank's CPUs */
} bl_h5_rank;

typedef struct bl_h5_metric {
    int32_t rank;
    char *name;
    double value;
    char *unit;
} bl_h5_metric;

typedef struct bl_h5_env {
    char *name, *value;
} bl_h5_env;

/* One finding of the app's --check (common/placement_check.h) in one rank:
 * what `bindlab check` would have said inside that rank at the start. */
typedef struct bl_h5_finding {
    int32_t rank;
    char *host;
    char *id;                  /* stable name, e.g. "cpu-mem-nodes" */
    char *severity;            /* "warning" (misaligned) or "note" */
    char *text;
} bl_h5_finding;

/* /run/numa: per rank, first touch and what the kernel did after it (the
 * after-init page counts per NUMA node are /run/memory_init, rows of
 * bl_h5_memory; /run/memory holds them after the timed region). Files
 * written before it have neither (0 rows). */
typedef struct bl_h5_numa {
    int32_t rank;
    int32_t numa_balancing;    /* /proc/sys/kernel/numa_balancing, -1 */
    char *thp_enabled;         /* THP mode: always, madvise, never; "" */
    int64_t page_bytes, huge_page_bytes; /* base and huge page sizes */
    int64_t share_align;       /* --align-shares: bytes, 0 not asked */
    double huge_share;         /* arrays' mappings huge-page backed
                                * (smaps, after init), -1 unknown */
    int32_t straddles;         /* huge pages holding two threads' shares */
    double best_local_fraction; /* the best first touch can reach */
    int64_t pages_local_init, pages_total_init; /* right after first touch */
    double local_page_fraction_init; /* -1 unknown */
    /* NUMA balancing during the run (first touch to end of the timed
     * region): the rank's tasks' sched fields (-1: not exposed), and
     * /proc/vmstat's deltas (system-wide; -1 absent) */
    int64_t task_numa_pages_migrated, task_numa_faults;
    int64_t vm_numa_pages_migrated, vm_numa_hint_faults,
        vm_numa_hint_faults_local, vm_numa_pte_updates, vm_pgmigrate_success;
} bl_h5_numa;

extern const bl_h5_table_def bl_h5_placement_def, bl_h5_counter_def,
    bl_h5_memory_def, bl_h5_rank_def, bl_h5_metric_def, bl_h5_env_def,
    bl_h5_finding_def, bl_h5_memory_init_def, bl_h5_numa_def;

/* /run/time_split: a kernel's per-rank time split of its last iteration
 * (the LU's panel, broadcast, swap, update, wait, solve); written only by
 * kernels that have one. */
typedef struct bl_h5_time_split {
    int32_t rank;
    char *phase;
    double seconds;
    double total_s;            /* the rank's iteration time they split */
} bl_h5_time_split;

extern const bl_h5_table_def bl_h5_time_split_def;

/* /run/traffic: per rank, what it sent per timed iteration to
 * ranks on its own node (host) and to ranks on other nodes; written only
 * by kernels that count it (stencil, LU). Payload bytes; see each
 * kernel's traffic function for how collectives count. */
typedef struct bl_h5_traffic {
    int32_t rank;
    int32_t node;              /* the rank's /nodes/<k> */
    double bytes_same_node, bytes_other_nodes;
    double messages_same_node, messages_other_nodes;
    int32_t peers_same_node, peers_other_nodes;
} bl_h5_traffic;

extern const bl_h5_table_def bl_h5_traffic_def;

/* `bindlab run` (any program under libbindlab-probe.so): what the probe
 * saw that bindlab-app's placement rows have no place for. Written only
 * by it (empty in bindlab-app's runs, and then not written). */
/* /run/processes: one row per probed process of the run */
typedef struct bl_h5_process {
    int32_t rank;              /* the placement rows' rank */
    char *host;
    int64_t pid, ppid;
    char *exe, *rank_from;     /* rank_from: the launcher's variable, "-" */
    char *cpus_start, *cpus_init, *cpus_finalize, *cpus_exit; /* "" unseen */
    int8_t mpi_init;           /* an MPI_Init call was seen */
    int8_t complete;           /* 0: killed or _exit (a .part file) */
    int32_t notes;             /* the probe's own troubles */
    char *omp_runtime;         /* the OpenMP runtime serving the process
                                * (libgomp, libomp, intel), "" none */
    char *omp_runtimes_other;  /* every other one loaded, "" none */
} bl_h5_process;

/* /run/threads: one row per placement row: what the thread is */
typedef struct bl_h5_thread {
    int32_t rank, thread;
    int64_t tid;
    char *label;               /* main, openmp, blas, mpi, program, unknown,
                                * or the start routine's object's name */
    char *object, *phase;      /* the start routine's object; MPI phase at
                                * its start */
    char *start_cpus, *seen_cpus; /* allowed at its start; sampled on */
    int64_t samples;
} bl_h5_thread;

/* /run/affinity: every affinity change the probe recorded */
typedef struct bl_h5_affinity {
    int32_t rank;
    double t;                  /* seconds since the process's probe start */
    int64_t tid, target;       /* caller thread (-1 sampled), target */
    char *phase, *call;        /* before-init .. after-finalize; the call or
                                * "unknown" (seen by sampling) */
    char *old_cpus, *new_cpus, *caller, *by; /* caller: its object */
    int8_t changed, ok;
} bl_h5_affinity;

extern const bl_h5_table_def bl_h5_process_def, bl_h5_thread_def,
    bl_h5_affinity_def;

/* ---- machine and run ---------------------------------------------------- */

typedef struct bl_h5_machine {
    char *hostname, *cpu_model, *mpi_library_version, *compiler,
        *omp_runtime, *kernel_release, *topology_xml;
    int packages, numa_nodes, l3_domains, cores, pus;
    int numa_balancing;        /* /proc/sys/kernel/numa_balancing, -1 unknown */
    /* "" on bare metal; else "emulated: ..." (software CPU emulation: rates
     * mean nothing for speed) or "virtual machine: ..." (hypervisor, DMI). */
    char *virtualization;
    /* the ISA levels bindlab's kernels can use on this CPU, lowest first
     * ("sse2,avx2,avx512"); NULL in files written before it and in
     * records made by programs that do not run kernels */
    char *isa_levels;
} bl_h5_machine;

typedef struct bl_h5_result {
    double median_s, min_s, max_s, rate;
    char *rate_unit;
    double bytes_per_iteration, flops_per_iteration;
    char *work_model;
    int verified;
    double error, checksum;
    char *verify_detail;
    double local_page_fraction;  /* after the timed region */
    /* right after first touch, and what happened in between (all ranks;
     * files written before them: pages_total_init 0, the others their
     * defaults) */
    double local_page_fraction_init; /* -1 unknown */
    long long pages_total_init;
    long long pages_migrated;  /* by NUMA balancing during the run, -1 */
    double huge_share;         /* -1 unknown */
    double best_local_fraction; /* -1 unknown */
    int straddles;
    long long share_align;     /* --align-shares: bytes, 0 not asked */
} bl_h5_result;

/* ---- matrices (latency, bandwidth, c2c) -------------------------------- */

/* One row (= the same column) of a matrix: the NUMA node or PU it stands
 * for. Topology fields are hwloc logical indexes, -1 unknown. */
typedef struct bl_h5_matrix_index {
    int32_t index;             /* row and column number */
    int32_t os_index;          /* NUMA node (axis "numa") or PU (axis "pu")
                                * as Linux numbers it */
    int32_t logical;           /* hwloc logical index of that object */
    int32_t cpu;               /* OS index of the PU that ran the measuring
                                * thread (axis "numa": the first one) */
    int32_t core, l3, numa, package;
    char *label;               /* "node 0", "PU 3" */
} bl_h5_matrix_index;

/* An n x n matrix and what it means; written as group matrices/<kind> (a
 * file of `bindlab matrix`: /matrices/<kind>; a c2c run file:
 * /run/matrices/c2c). Cells are row-major; NaN where nothing was
 * measured (c2c's diagonal, a failed cell). */
typedef struct bl_h5_matrix {
    char *kind;                /* "latency", "bandwidth", "c2c" */
    char *unit;                /* "ns", "GB/s" */
    char *axis;                /* "numa" or "pu" */
    char *rows, *cols;         /* what a row and a column are, in words */
    char *method;              /* one line: how a cell was measured */
    char *spread;              /* what spread_lo / spread_hi are */
    char *note;                /* sampling, huge pages, failures: "" none */
    int n;
    int sampled;               /* 1: a stated subset of the PUs */
    long long size_bytes;      /* memory per cell (latency, bandwidth) */
    int threads;               /* threads per cell */
    double *values;            /* [n][n] the median */
    double *spread_lo, *spread_hi; /* [n][n] */
    double *samples;           /* [n][n] how many values the median is of */
    double *pages_on_target;   /* [n][n] fraction of the cell's pages on
                                * its memory node (axis numa), else NULL */
    bl_h5_matrix_index *order; size_t norder; /* n rows */
} bl_h5_matrix;

extern const bl_h5_table_def bl_h5_matrix_index_def;
extern const bl_h5_attrs_def bl_h5_matrix_attrs;

/* Allocates the n x n arrays (values etc. set to NaN, samples to 0,
 * pages_on_target only when with_pages) and n order rows. 0 or -1. */
int bl_h5_matrix_alloc(bl_h5_matrix *m, int n, int with_pages);
/* Writes m as loc/matrices/<kind> (an existing one is replaced). */
int bl_h5_matrix_write(hid_t loc, const bl_h5_matrix *m, bl_err *err);
/* Reads loc/matrices/<kind>; -1 with err when there is none or it is
 * malformed. */
int bl_h5_matrix_read(hid_t loc, const char *kind, bl_h5_matrix *m,
                      bl_err *err);
/* The kinds under loc/matrices, comma-separated, into buf ("" none). */
void bl_h5_matrix_kinds(hid_t loc, char *buf, size_t len);
void bl_h5_matrix_free(bl_h5_matrix *m);

typedef struct bl_h5_run {
    char *kernel, *args, *init, *status;
    char *mem_policy;          /* --mem-policy as asked ("firsttouch") */
    char *isa;                 /* the kernels' ISA level ("avx512"); ranks
                                * on different CPUs: their levels, "avx2,
                                * avx512"; NULL in files written before it */
    char *isa_asked;           /* "best", or the level BINDLAB_ISA / --isa
                                * forced */
    /* The OpenMP runtime that served the app's calls (rank 0's process,
     * common/omp_runtime.h): libgomp, libomp or intel, its version and
     * file; every other runtime loaded in the process ("kind version
     * path", "; " between, "" none); and the runtime GOMP_parallel (what
     * GCC-compiled libraries such as OpenBLAS call) resolved to. NULL in
     * files written before them and by the probe. */
    char *omp_runtime, *omp_runtime_version, *omp_runtime_path;
    char *omp_runtimes_other, *omp_gomp_runtime;
    long long size_bytes;
    int iterations, warmup, ranks, threads;
    bl_h5_result result;
    double *timings;           /* iterations x ranks, row-major */
    bl_h5_env *env;            size_t nenv;
    bl_h5_placement *placement; size_t nplacement;
    bl_h5_counter *counters;   size_t ncounters;
    bl_h5_memory *memory;      size_t nmemory;
    bl_h5_memory *memory_init; size_t nmemory_init; /* may be 0 */
    bl_h5_numa *numa;          size_t nnuma;        /* may be 0 */
    bl_h5_rank *rank_rows;     size_t nrank_rows;
    bl_h5_metric *metrics;     size_t nmetrics;
    /* --check: empty when the app was not asked (or found nothing) */
    bl_h5_finding *findings;   size_t nfindings;
    bl_h5_matrix *matrix;      /* a kernel's matrix (c2c), or NULL */
    bl_h5_time_split *time_split; size_t ntime_split; /* may be 0 */
    bl_h5_traffic *traffic;    size_t ntraffic;  /* may be 0 */
    /* bindlab run: the probe's processes, threads and affinity changes */
    bl_h5_process *processes;  size_t nprocesses;
    bl_h5_thread *thread_rows; size_t nthread_rows;
    bl_h5_affinity *affinity;  size_t naffinity;
} bl_h5_run;

/* ---- the harness's view of a run (sweep files) ----------------------- */

/* Per rank: what the launcher claimed against what the rank saw. */
typedef struct bl_h5_check {
    int32_t rank;
    char *host;
    char *claimed;             /* from the binding report, "" if none */
    char *seen;                /* the rank's cpuset as the app recorded it */
    char *source;              /* who printed the claim: "launcher", or
                                * "rank" (Open MPI 4 reports an unbound
                                * rank from its MPI_Init, after OpenMP has
                                * bound the master thread) */
    int8_t matches;            /* 1 equal, 0 differ, -1 nothing to compare */
    int32_t node;              /* the /nodes/<k> whose topology read the
                                * claim (the report line's host); -1: the
                                * harness's own machine's (no record of
                                * that host, or no claim); 0 in files
                                * written before it */
} bl_h5_check;

/* A/B comparisons: one row per noisy-neighbour process the harness ran
 * beside the run (harness/sweep/noisy.h), in /runs/<id>/neighbours. */
typedef struct bl_h5_neighbour {
    char *kind;                /* "cpu" or "mem" */
    int64_t pid;
    char *argv;                /* its command, shell-quoted to read */
    char *cpus;                /* the CPUs it was allowed to run on */
    int32_t last_cpu;          /* where it ran last, -1 unknown */
    double cpu_s;              /* its user + system CPU time */
    double wall_s;             /* start to kill */
} bl_h5_neighbour;
extern const bl_h5_table_def bl_h5_neighbour_def;

/* retry: one row per launch of a run that died before the app started and
 * was launched again (sweep --retry; <run>/retries, written only when
 * there was one) */
typedef struct bl_h5_retry {
    int32_t attempt;           /* 1, 2, ...: the launch this row is */
    double start_time;         /* seconds since the Unix epoch, UTC */
    double wall_s;             /* the launcher's wall time */
    int32_t exit_status;       /* -1 when killed by a signal */
    int32_t term_signal;
    char *reason;              /* what it died of, as a failed run's */
    char *log;                 /* its log, kept beside the run's */
} bl_h5_retry;
extern const bl_h5_table_def bl_h5_retry_def;

typedef struct bl_h5_harness {
    char *run_id, *label, *name, *status;   /* ok|failed|timeout|invalid */
    int repetition;
    int np, threads;
    int layout_nodes;               /* the layout's nodes key; 0 not given */
    char *kernel, *kernel_args;
    char *map_by, *map_by_launcher, *bind_to, *bind_to_launcher, *rank_by,
        *omp_places, *omp_proc_bind, *init;
    char *mem_policy;               /* the layout's, "firsttouch" default */
    char *launcher;                 /* "mpirun" or "srun" */
    char *launcher_version;         /* "Open MPI 5.0.11", from --version */
    char *argv;                     /* the command, shell-quoted to read */
    int exit_status, term_signal, timed_out;
    double wall_s, app_s;           /* launcher wall time; app's own time */
    char *stderr_tail, *binding_report, *flags, *reason;
    char *nodes;                    /* the /nodes/<k> the run ran on: "0",
                                     * "0,2"; "" none (never ran) */
    /* when the launch began (seconds since the Unix epoch, UTC)
     * and the sweep's repetition order (interleaved | consecutive) */
    double start_time;
    char *repetition_order;
    char *noisy;                    /* the neighbour spec, "none" */
    bl_h5_neighbour *neighbours;
    size_t nneighbours;
    bl_h5_check *checks;
    size_t nchecks;
    /* retry: launches made (1 + the rows of retries; 0 for a run never
     * launched, and in records written before it) */
    int attempts;
    bl_h5_retry *retries;
    size_t nretries;
    char *log;                      /* bindlab run: its log file, "" none */
    char *omp_runtime_asked;        /* the layout's omp_runtime: libgomp,
                                     * libomp, intel, or "default" (the app
                                     * as linked); NULL before it */
    /* the CPUs the job might use on the harness's node (common/allowed.h)
     * and where that set came from; "" in records written before it */
    char *allowed_cpus, *allowed_from;
    /* Which run this is, for --resume and merge: the sweep's name, and
     * the text of what the run is (kernel and its arguments or the app's
     * command and env, the layout's label, the repetition); NULL in
     * records written before them. */
    char *sweep;
    char *fingerprint;
} bl_h5_harness;


/* One row per run in /summary. */
typedef struct bl_h5_summary {
    char *run_id, *label, *name, *kernel, *status;
    int32_t repetition, np, threads;
    char *map_by, *bind_to, *rank_by, *omp_places, *omp_proc_bind, *init;
    char *mem_policy;          /* NULL in files written before it */
    double median_s, min_s, rate;
    char *rate_unit;
    int8_t verified;
    double local_page_fraction;
    char *flags;
    double wall_s;
    int32_t exit_status;
    char *nodes;               /* as the harness record's */
    int32_t attempts;          /* retry: as the harness record's */
    /* first touch: as the app's result (0 in files written before) */
    double local_page_fraction_init;
    int64_t pages_total_init, pages_migrated;
    double huge_share, best_local_fraction;
    int32_t straddles;
    int64_t share_align;       /* as the result's (0 in files before it) */
    char *isa;                 /* the run's isa; NULL in files written
                                * before it */
    char *omp_runtime_asked;   /* the layout's omp_runtime ("default") */
    char *omp_runtime;         /* the runtime that ran (the app's record);
                                * NULL in files written before them */
} bl_h5_summary;

extern const bl_h5_table_def bl_h5_check_def, bl_h5_summary_def;
/* The scalar attributes of each record (the harness's record shares its
 * run's group; /run/result holds bl_h5_result). Strings and datasets
 * beyond these are written by the record's own functions. */
extern const bl_h5_attrs_def bl_h5_machine_attrs, bl_h5_run_attrs,
    bl_h5_result_attrs, bl_h5_harness_attrs;

/* m's topology_xml and counts (packages .. pus) from topo. */
void bl_h5_machine_topology(bl_h5_machine *m, hwloc_topology_t topo);

/* Writes m as /nodes/0 and /machine (a hard link to it). */
int bl_h5_write_machine(hid_t file, const bl_h5_machine *m, bl_err *err);
/* Reads /machine (= /nodes/0). */
int bl_h5_read_machine(hid_t file, bl_h5_machine *m, bl_err *err);
void bl_h5_machine_free(bl_h5_machine *m);

/* ---- several machines: /nodes/<k> ------------------------------------- */

/* "nodes/<k>" */
void bl_h5_node_path(size_t k, char *buf, size_t len);
/* Writes m as /nodes/<k>; for k 0 also the hard link /machine. */
int bl_h5_write_node(hid_t file, size_t k, const bl_h5_machine *m,
                     bl_err *err);
/* Writes n machines as /nodes/0 .. /nodes/<n-1> (and /machine). */
int bl_h5_write_nodes(hid_t file, const bl_h5_machine *m, size_t n,
                      bl_err *err);
/* How many machine records file holds: the /nodes/<k> present from 0 up;
 * a file written before /nodes that has /machine holds 1; none 0. */
size_t bl_h5_count_nodes(hid_t file);
/* The object path of node k in file ("nodes/<k>", or "machine" for node 0
 * of a file written before /nodes); NULL when there is no such node. */
const char *bl_h5_node_object(hid_t file, size_t k, char *buf, size_t len);
/* Reads node k (see bl_h5_node_object). */
int bl_h5_read_node(hid_t file, size_t k, bl_h5_machine *m, bl_err *err);
/* Reads every node: *m malloc'ed (n may be 0); free with bl_h5_nodes_free. */
int bl_h5_read_nodes(hid_t file, bl_h5_machine **m, size_t *n, bl_err *err);
void bl_h5_nodes_free(bl_h5_machine *m, size_t n);
/* The same for a file of many alike nodes: every node's attributes, but
 * each distinct topology's XML read once, into its first node; (*topo_of)[k]
 * is the first node j whose topology is node k's (k itself when none: then
 * m[k].topology_xml is its XML; otherwise it is NULL). Free *m with
 * bl_h5_nodes_free and *topo_of with free. */
int bl_h5_read_nodes_shared(hid_t file, bl_h5_machine **m, size_t *n,
                            int **topo_of, bl_err *err);

/* A node's identity, for merging: two records are the same node when
 * hostname, CPU model, topology XML (by its digest), MPI library version
 * and OS kernel release are equal. */
typedef struct bl_h5_node_key {
    char *hostname, *cpu_model, *mpi_library_version, *kernel_release;
    uint64_t topology_digest;  /* FNV-1a 64 of topology_xml */
} bl_h5_node_key;
uint64_t bl_h5_topology_digest(const char *xml);
/* Fills k from m (strings copied; -1 out of memory). */
int bl_h5_node_key_of(const bl_h5_machine *m, bl_h5_node_key *k);
int bl_h5_node_key_eq(const bl_h5_node_key *a, const bl_h5_node_key *b);
void bl_h5_node_key_free(bl_h5_node_key *k);

/* Writes a run as group `name` under loc (the app: "/run"; the harness:
 * "/runs/<id>"), and reads it back. */
int bl_h5_write_run(hid_t loc, const char *name, const bl_h5_run *r,
                    bl_err *err);
int bl_h5_read_run(hid_t loc, const char *name, bl_h5_run *r, bl_err *err);
void bl_h5_run_free(bl_h5_run *r);

/* Appends a finding to r's findings (*cap: their capacity, kept by the
 * caller across calls; start it at r->nfindings). -1 when out of memory
 * (nothing appended). */
int bl_h5_run_add_finding(bl_h5_run *r, size_t *cap, int rank,
                          const char *host, const char *id,
                          const char *severity, const char *text);

/* Root attributes: schema_version, bindlab_version, created, command and
 * file_kind ("run" or "sweep"). */
int bl_h5_write_root(hid_t file, const char *kind, const char *command,
                     bl_err *err);

/* The whole run file, atomically: built in memory and written with
 * bl_atomic_write (PATH.tmp.PID beside PATH, fsync, rename), so a killed
 * run, a full disk or a bad path leaves no partial file under the final
 * name. Only a regular file (or nothing) at PATH is replaced. n machine
 * records (/nodes/0 .. /nodes/<n-1>; 1 for a run on one node), the rank
 * rows' node indexing m. */
int bl_h5_write_run_file_nodes(const char *path, const char *command,
                               const bl_h5_machine *m, size_t n,
                               const bl_h5_run *r, bl_err *err);
/* Opens a run or sweep file for reading, with a clear message when it is
 * missing, truncated (h5guard.h's quick check) or not bindlab's. Close
 * with H5Fclose. */
hid_t bl_h5_open_read(const char *path, bl_err *err);
/* The same after h5guard.h's deep check (the file read once more): for
 * files users hand to report, merge and compare, not for the merged file
 * a sweep appends to after every run. */
hid_t bl_h5_open_read_deep(const char *path, bl_err *err);
int bl_h5_read_run_file(const char *path, bl_h5_machine *m, bl_h5_run *r,
                        bl_err *err);
/* The same with every machine record of the file (*m freed with
 * bl_h5_nodes_free; *n 1 for a file written before /nodes). */
int bl_h5_read_run_file_nodes(const char *path, bl_h5_machine **m, size_t *n,
                              bl_h5_run *r, bl_err *err);

/* Atomic HDF5 writes: a new file held in memory (path only names it in
 * messages; nothing is opened or created on disk), then, when rc is 0,
 * its image written to path with bl_atomic_write (common/atomic_file.h);
 * the file is closed either way. On failure err is prefixed with path.
 * Returns 0 or -1. */
hid_t bl_h5_mem_create(const char *path, bl_err *err);
int bl_h5_mem_commit(hid_t file, const char *path, int rc, bl_err *err);
/* The same, written with bl_atomic_write_in(dirfd, path). */
int bl_h5_mem_commit_in(hid_t file, int dirfd, const char *path, int rc,
                        bl_err *err);

#endif
