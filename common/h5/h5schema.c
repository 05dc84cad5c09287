/* bindlab's HDF5 layout as data (see h5schema.h): the description of every
 * table and attribute set, the run file's records (/machine, /run) written,
 * read and freed from those descriptions by the engine in h5table.c, and
 * the file-level steps (root attributes, files built in memory and handed
 * to atomic_file.c, opening a file to read). The harness's own records and
 * sweep files are in harness/results/results_file.c. */
#include "h5/h5schema.h"

#include "atomic_file.h"
#include "h5/h5guard.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- tables: one column per line, in the file's column order ------------ */

#define F(type, member, kind) BL_H5_COLUMN(type, member, kind)

static const bl_h5_field placement_fields[] = {
    F(bl_h5_placement, rank, BL_H5_I32),
    F(bl_h5_placement, thread, BL_H5_I32),
    F(bl_h5_placement, host, BL_H5_STR),
    F(bl_h5_placement, rank_cpuset, BL_H5_STR),
    F(bl_h5_placement, cpuset, BL_H5_STR),
    F(bl_h5_placement, cpu_first, BL_H5_I32),
    F(bl_h5_placement, cpu_last, BL_H5_I32),
    F(bl_h5_placement, core, BL_H5_I32),
    F(bl_h5_placement, l3, BL_H5_I32),
    F(bl_h5_placement, numa, BL_H5_I32),
    F(bl_h5_placement, package, BL_H5_I32),
    F(bl_h5_placement, migrations, BL_H5_I64),
    F(bl_h5_placement, pid, BL_H5_I64),
    /* A/B comparisons: context switches in the timed region */
    F(bl_h5_placement, ctx_voluntary, BL_H5_I64),
    F(bl_h5_placement, ctx_involuntary, BL_H5_I64),
    F(bl_h5_placement, main_cpuset_init, BL_H5_STR),
};
static const bl_h5_field counter_fields[] = {
    F(bl_h5_counter, rank, BL_H5_I32),
    F(bl_h5_counter, thread, BL_H5_I32),
    F(bl_h5_counter, name, BL_H5_STR),
    F(bl_h5_counter, event, BL_H5_STR),
    F(bl_h5_counter, value, BL_H5_I64),
    F(bl_h5_counter, available, BL_H5_I8),
    F(bl_h5_counter, note, BL_H5_STR),
};
static const bl_h5_field memory_fields[] = {
    F(bl_h5_memory, rank, BL_H5_I32),
    F(bl_h5_memory, numa_node, BL_H5_I32),
    F(bl_h5_memory, pages, BL_H5_I64),
};
static const bl_h5_field numa_fields[] = {
    F(bl_h5_numa, rank, BL_H5_I32),
    F(bl_h5_numa, numa_balancing, BL_H5_I32),
    F(bl_h5_numa, thp_enabled, BL_H5_STR),
    F(bl_h5_numa, page_bytes, BL_H5_I64),
    F(bl_h5_numa, huge_page_bytes, BL_H5_I64),
    F(bl_h5_numa, share_align, BL_H5_I64),
    F(bl_h5_numa, huge_share, BL_H5_F64),
    F(bl_h5_numa, straddles, BL_H5_I32),
    F(bl_h5_numa, best_local_fraction, BL_H5_F64),
    F(bl_h5_numa, pages_local_init, BL_H5_I64),
    F(bl_h5_numa, pages_total_init, BL_H5_I64),
    F(bl_h5_numa, local_page_fraction_init, BL_H5_F64),
    F(bl_h5_numa, task_numa_pages_migrated, BL_H5_I64),
    F(bl_h5_numa, task_numa_faults, BL_H5_I64),
    F(bl_h5_numa, vm_numa_pages_migrated, BL_H5_I64),
    F(bl_h5_numa, vm_numa_hint_faults, BL_H5_I64),
    F(bl_h5_numa, vm_numa_hint_faults_local, BL_H5_I64),
    F(bl_h5_numa, vm_numa_pte_updates, BL_H5_I64),
    F(bl_h5_numa, vm_pgmigrate_success, BL_H5_I64),
};
static const bl_h5_field rank_fields[] = {
    F(bl_h5_rank, rank, BL_H5_I32),
    F(bl_h5_rank, host, BL_H5_STR),
    F(bl_h5_rank, node, BL_H5_I32),
    F(bl_h5_rank, median_s, BL_H5_F64),
    F(bl_h5_rank, min_s, BL_H5_F64),
    F(bl_h5_rank, rate, BL_H5_F64),
    F(bl_h5_rank, local_page_fraction, BL_H5_F64),
    F(bl_h5_rank, pages_local, BL_H5_I64),
    F(bl_h5_rank, pages_total, BL_H5_I64),
    F(bl_h5_rank, mem_policy, BL_H5_STR),
    F(bl_h5_rank, isa, BL_H5_STR),
    F(bl_h5_rank, gpus, BL_H5_STR),
    F(bl_h5_rank, gpus_far, BL_H5_STR),
};
static const bl_h5_field metric_fields[] = {
    F(bl_h5_metric, rank, BL_H5_I32),
    F(bl_h5_metric, name, BL_H5_STR),
    F(bl_h5_metric, value, BL_H5_F64),
    F(bl_h5_metric, unit, BL_H5_STR),
};
static const bl_h5_field env_fields[] = {
    F(bl_h5_env, name, BL_H5_STR),
    F(bl_h5_env, value, BL_H5_STR),
};

static const bl_h5_field finding_fields[] = {
    F(bl_h5_finding, rank, BL_H5_I32),
    F(bl_h5_finding, host, BL_H5_STR),
    F(bl_h5_finding, id, BL_H5_STR),
    F(bl_h5_finding, severity, BL_H5_STR),
    F(bl_h5_finding, text, BL_H5_STR),
};

static const bl_h5_field check_fields[] = {
    F(bl_h5_check, rank, BL_H5_I32),
    F(bl_h5_check, host, BL_H5_STR),
    F(bl_h5_check, claimed, BL_H5_STR),
    F(bl_h5_check, seen, BL_H5_STR),
    F(bl_h5_check, source, BL_H5_STR),
    F(bl_h5_check, matches, BL_H5_I8),
    /* multi-node runs: the node whose topology read the claim */
    F(bl_h5_check, node, BL_H5_I32),
};
static const bl_h5_field summary_fields[] = {
    F(bl_h5_summary, run_id, BL_H5_STR),
    F(bl_h5_summary, label, BL_H5_STR),
    F(bl_h5_summary, name, BL_H5_STR),
    F(bl_h5_summary, kernel, BL_H5_STR),
    F(bl_h5_summary, status, BL_H5_STR),
    F(bl_h5_summary, repetition, BL_H5_I32),
    F(bl_h5_summary, np, BL_H5_I32),
    F(bl_h5_summary, threads, BL_H5_I32),
    F(bl_h5_summary, map_by, BL_H5_STR),
    F(bl_h5_summary, bind_to, BL_H5_STR),
    F(bl_h5_summary, rank_by, BL_H5_STR),
    F(bl_h5_summary, omp_places, BL_H5_STR),
    F(bl_h5_summary, omp_proc_bind, BL_H5_STR),
    F(bl_h5_summary, init, BL_H5_STR),
    F(bl_h5_summary, mem_policy, BL_H5_STR),
    F(bl_h5_summary, median_s, BL_H5_F64),
    F(bl_h5_summary, min_s, BL_H5_F64),
    F(bl_h5_summary, rate, BL_H5_F64),
    F(bl_h5_summary, rate_unit, BL_H5_STR),
    F(bl_h5_summary, verified, BL_H5_I8),
    F(bl_h5_summary, local_page_fraction, BL_H5_F64),
    F(bl_h5_summary, flags, BL_H5_STR),
    F(bl_h5_summary, wall_s, BL_H5_F64),
    F(bl_h5_summary, exit_status, BL_H5_I32),
    F(bl_h5_summary, nodes, BL_H5_STR),
    /* retry: launches the run took (0 in files written before it) */
    F(bl_h5_summary, attempts, BL_H5_I32),
    /* first touch and what the kernel did after it */
    F(bl_h5_summary, local_page_fraction_init, BL_H5_F64),
    F(bl_h5_summary, pages_total_init, BL_H5_I64),
    F(bl_h5_summary, pages_migrated, BL_H5_I64),
    F(bl_h5_summary, huge_share, BL_H5_F64),
    F(bl_h5_summary, best_local_fraction, BL_H5_F64),
    F(bl_h5_summary, straddles, BL_H5_I32),
    F(bl_h5_summary, share_align, BL_H5_I64),
    F(bl_h5_summary, isa, BL_H5_STR),
    F(bl_h5_summary, omp_runtime_asked, BL_H5_STR),
    F(bl_h5_summary, omp_runtime, BL_H5_STR),
};

/* ---- the kernels' time split (its own block: written only when a kernel
 * gives one, so runs of the other kernels have no such dataset) --------- */
static const bl_h5_field time_split_fields[] = {
    F(bl_h5_time_split, rank, BL_H5_I32),
    F(bl_h5_time_split, phase, BL_H5_STR),
    F(bl_h5_time_split, seconds, BL_H5_F64),
    F(bl_h5_time_split, total_s, BL_H5_F64),
};

/* multi-node runs: what each rank sent per step inside and between nodes (its own
 * block: written only by kernels that count it) */
static const bl_h5_field traffic_fields[] = {
    F(bl_h5_traffic, rank, BL_H5_I32),
    F(bl_h5_traffic, node, BL_H5_I32),
    F(bl_h5_traffic, bytes_same_node, BL_H5_F64),
    F(bl_h5_traffic, bytes_other_nodes, BL_H5_F64),
    F(bl_h5_traffic, messages_same_node, BL_H5_F64),
    F(bl_h5_traffic, messages_other_nodes, BL_H5_F64),
    F(bl_h5_traffic, peers_same_node, BL_H5_I32),
    F(bl_h5_traffic, peers_other_nodes, BL_H5_I32),
};

/* A/B comparisons: the noisy neighbours of a run */
static const bl_h5_field neighbour_fields[] = {
    F(bl_h5_neighbour, kind, BL_H5_STR),
    F(bl_h5_neighbour, pid, BL_H5_I64),
    F(bl_h5_neighbour, argv, BL_H5_STR),
    F(bl_h5_neighbour, cpus, BL_H5_STR),
    F(bl_h5_neighbour, last_cpu, BL_H5_I32),
    F(bl_h5_neighbour, cpu_s, BL_H5_F64),
    F(bl_h5_neighbour, wall_s, BL_H5_F64),
};

/* retry: the launches of a run that died before the app started (its own
 * block: written only for a run launched again) */
static const bl_h5_field retry_fields[] = {
    F(bl_h5_retry, attempt, BL_H5_I32),
    F(bl_h5_retry, start_time, BL_H5_F64),
    F(bl_h5_retry, wall_s, BL_H5_F64),
    F(bl_h5_retry, exit_status, BL_H5_I32),
    F(bl_h5_retry, term_signal, BL_H5_I32),
    F(bl_h5_retry, reason, BL_H5_STR),
    F(bl_h5_retry, log, BL_H5_STR),
};

/* bindlab run: the probe's view (blocks written only when it has rows) */
static const bl_h5_field process_fields[] = {
    F(bl_h5_process, rank, BL_H5_I32),
    F(bl_h5_process, host, BL_H5_STR),
    F(bl_h5_process, pid, BL_H5_I64),
    F(bl_h5_process, ppid, BL_H5_I64),
    F(bl_h5_process, exe, BL_H5_STR),
    F(bl_h5_process, rank_from, BL_H5_STR),
    F(bl_h5_process, cpus_start, BL_H5_STR),
    F(bl_h5_process, cpus_init, BL_H5_STR),
    F(bl_h5_process, cpus_finalize, BL_H5_STR),
    F(bl_h5_process, cpus_exit, BL_H5_STR),
    F(bl_h5_process, mpi_init, BL_H5_I8),
    F(bl_h5_process, complete, BL_H5_I8),
    F(bl_h5_process, notes, BL_H5_I32),
    F(bl_h5_process, omp_runtime, BL_H5_STR),
    F(bl_h5_process, omp_runtimes_other, BL_H5_STR),
};
static const bl_h5_field thread_fields[] = {
    F(bl_h5_thread, rank, BL_H5_I32),
    F(bl_h5_thread, thread, BL_H5_I32),
    F(bl_h5_thread, tid, BL_H5_I64),
    F(bl_h5_thread, label, BL_H5_STR),
    F(bl_h5_thread, object, BL_H5_STR),
    F(bl_h5_thread, phase, BL_H5_STR),
    F(bl_h5_thread, start_cpus, BL_H5_STR),
    F(bl_h5_thread, seen_cpus, BL_H5_STR),
    F(bl_h5_thread, samples, BL_H5_I64),
};
static const bl_h5_field affinity_fields[] = {
    F(bl_h5_affinity, rank, BL_H5_I32),
    F(bl_h5_affinity, t, BL_H5_F64),
    F(bl_h5_affinity, tid, BL_H5_I64),
    F(bl_h5_affinity, target, BL_H5_I64),
    F(bl_h5_affinity, phase, BL_H5_STR),
    F(bl_h5_affinity, call, BL_H5_STR),
    F(bl_h5_affinity, old_cpus, BL_H5_STR),
    F(bl_h5_affinity, new_cpus, BL_H5_STR),
    F(bl_h5_affinity, caller, BL_H5_STR),
    F(bl_h5_affinity, by, BL_H5_STR),
    F(bl_h5_affinity, changed, BL_H5_I8),
    F(bl_h5_affinity, ok, BL_H5_I8),
};

#define DEF(var, dset, type, fields) \
    const bl_h5_table_def var = BL_H5_TABLE(dset, type, fields)
DEF(bl_h5_placement_def, "placement", bl_h5_placement, placement_fields);
DEF(bl_h5_counter_def, "counters", bl_h5_counter, counter_fields);
DEF(bl_h5_memory_def, "memory", bl_h5_memory, memory_fields);
DEF(bl_h5_memory_init_def, "memory_init", bl_h5_memory, memory_fields);
DEF(bl_h5_numa_def, "numa", bl_h5_numa, numa_fields);
DEF(bl_h5_rank_def, "ranks", bl_h5_rank, rank_fields);
DEF(bl_h5_metric_def, "metrics", bl_h5_metric, metric_fields);
DEF(bl_h5_env_def, "env", bl_h5_env, env_fields);
DEF(bl_h5_finding_def, "findings", bl_h5_finding, finding_fields);
DEF(bl_h5_check_def, "checks", bl_h5_check, check_fields);
DEF(bl_h5_summary_def, "summary", bl_h5_summary, summary_fields);
DEF(bl_h5_time_split_def, "time_split", bl_h5_time_split,
    time_split_fields);
DEF(bl_h5_neighbour_def, "neighbours", bl_h5_neighbour, neighbour_fields);
DEF(bl_h5_traffic_def, "traffic", bl_h5_traffic, traffic_fields);
DEF(bl_h5_retry_def, "retries", bl_h5_retry, retry_fields);
DEF(bl_h5_process_def, "processes", bl_h5_process, process_fields);
DEF(bl_h5_thread_def, "threads", bl_h5_thread, thread_fields);
DEF(bl_h5_affinity_def, "affinity", bl_h5_affinity, affinity_fields);


/* ---- attribute sets: one attribute per line, in the file's order -------- */

#define A(type, member, kind, dflt) BL_H5_ATTR(type, #member, member, kind, dflt)

static const bl_h5_attr machine_attrs[] = {
    A(bl_h5_machine, hostname, BL_A_STR, 0),
    A(bl_h5_machine, cpu_model, BL_A_STR, 0),
    A(bl_h5_machine, packages, BL_A_INT, -1),
    A(bl_h5_machine, numa_nodes, BL_A_INT, -1),
    A(bl_h5_machine, l3_domains, BL_A_INT, -1),
    A(bl_h5_machine, cores, BL_A_INT, -1),
    A(bl_h5_machine, pus, BL_A_INT, -1),
    A(bl_h5_machine, mpi_library_version, BL_A_STR, 0),
    A(bl_h5_machine, compiler, BL_A_STR, 0),
    A(bl_h5_machine, omp_runtime, BL_A_STR, 0),
    A(bl_h5_machine, kernel_release, BL_A_STR, 0),
    A(bl_h5_machine, numa_balancing, BL_A_INT, -1),
    A(bl_h5_machine, virtualization, BL_A_STR, 0),
    A(bl_h5_machine, isa_levels, BL_A_STR, 0),
};
static const bl_h5_attr run_attrs[] = {
    A(bl_h5_run, kernel, BL_A_STR, 0),
    A(bl_h5_run, args, BL_A_STR, 0),
    A(bl_h5_run, init, BL_A_STR, 0),
    A(bl_h5_run, status, BL_A_STR, 0),
    A(bl_h5_run, size_bytes, BL_A_LLONG, 0),
    A(bl_h5_run, iterations, BL_A_INT, 0),
    A(bl_h5_run, warmup, BL_A_INT, 0),
    A(bl_h5_run, ranks, BL_A_INT, 0),
    A(bl_h5_run, threads, BL_A_INT, 0),
    A(bl_h5_run, mem_policy, BL_A_STR, 0),
    A(bl_h5_run, isa, BL_A_STR, 0),
    A(bl_h5_run, isa_asked, BL_A_STR, 0),
    A(bl_h5_run, omp_runtime, BL_A_STR, 0),
    A(bl_h5_run, omp_runtime_version, BL_A_STR, 0),
    A(bl_h5_run, omp_runtime_path, BL_A_STR, 0),
    A(bl_h5_run, omp_runtimes_other, BL_A_STR, 0),
    A(bl_h5_run, omp_gomp_runtime, BL_A_STR, 0),
};
static const bl_h5_attr result_attrs[] = {
    A(bl_h5_result, median_s, BL_A_F64, 0),
    A(bl_h5_result, min_s, BL_A_F64, 0),
    A(bl_h5_result, max_s, BL_A_F64, 0),
    A(bl_h5_result, rate, BL_A_F64, 0),
    A(bl_h5_result, rate_unit, BL_A_STR, 0),
    A(bl_h5_result, bytes_per_iteration, BL_A_F64, 0),
    A(bl_h5_result, flops_per_iteration, BL_A_F64, 0),
    A(bl_h5_result, work_model, BL_A_STR, 0),
    A(bl_h5_result, verified, BL_A_INT, 0),
    A(bl_h5_result, error, BL_A_F64, 0),
    A(bl_h5_result, checksum, BL_A_F64, 0),
    A(bl_h5_result, verify_detail, BL_A_STR, 0),
    A(bl_h5_result, local_page_fraction, BL_A_F64, -1),
    /* first touch and what the kernel did after it */
    A(bl_h5_result, local_page_fraction_init, BL_A_F64, -1),
    A(bl_h5_result, pages_total_init, BL_A_LLONG, 0),
    A(bl_h5_result, pages_migrated, BL_A_LLONG, -1),
    A(bl_h5_result, huge_share, BL_A_F64, -1),
    A(bl_h5_result, best_local_fraction, BL_A_F64, -1),
    A(bl_h5_result, straddles, BL_A_INT, 0),
    A(bl_h5_result, share_align, BL_A_LLONG, 0),
};
static const bl_h5_attr harness_attrs[] = {
    A(bl_h5_harness, run_id, BL_A_STR, 0),
    A(bl_h5_harness, label, BL_A_STR, 0),
    A(bl_h5_harness, name, BL_A_STR, 0),
    A(bl_h5_harness, status, BL_A_STR, 0),
    A(bl_h5_harness, repetition, BL_A_INT, 0),
    A(bl_h5_harness, np, BL_A_INT, 0),
    A(bl_h5_harness, threads, BL_A_INT, 0),
    A(bl_h5_harness, layout_nodes, BL_A_INT, 0),
    A(bl_h5_harness, kernel, BL_A_STR, 0),
    A(bl_h5_harness, kernel_args, BL_A_STR, 0),
    A(bl_h5_harness, map_by, BL_A_STR, 0),
    A(bl_h5_harness, map_by_launcher, BL_A_STR, 0),
    A(bl_h5_harness, bind_to, BL_A_STR, 0),
    A(bl_h5_harness, bind_to_launcher, BL_A_STR, 0),
    A(bl_h5_harness, rank_by, BL_A_STR, 0),
    A(bl_h5_harness, omp_places, BL_A_STR, 0),
    A(bl_h5_harness, omp_proc_bind, BL_A_STR, 0),
    A(bl_h5_harness, init, BL_A_STR, 0),
    A(bl_h5_harness, mem_policy, BL_A_STR, 0),
    A(bl_h5_harness, launcher, BL_A_STR, 0),
    A(bl_h5_harness, launcher_version, BL_A_STR, 0),
    BL_H5_ATTR(bl_h5_harness, "launcher_argv", argv, BL_A_STR, 0),
    A(bl_h5_harness, exit_status, BL_A_INT, 0),
    A(bl_h5_harness, term_signal, BL_A_INT, 0),
    A(bl_h5_harness, timed_out, BL_A_INT, 0),
    A(bl_h5_harness, wall_s, BL_A_F64, 0),
    A(bl_h5_harness, app_s, BL_A_F64, 0),
    A(bl_h5_harness, stderr_tail, BL_A_STR, 0),
    A(bl_h5_harness, flags, BL_A_STR, 0),
    A(bl_h5_harness, reason, BL_A_STR, 0),
    A(bl_h5_harness, nodes, BL_A_STR, 0),
    /* A/B comparisons */
    A(bl_h5_harness, start_time, BL_A_F64, 0),
    A(bl_h5_harness, repetition_order, BL_A_STR, 0),
    A(bl_h5_harness, noisy, BL_A_STR, 0),
    /* retry: launches made (0: never launched, or written before it) */
    A(bl_h5_harness, attempts, BL_A_INT, 0),
    A(bl_h5_harness, log, BL_A_STR, 0),
    A(bl_h5_harness, omp_runtime_asked, BL_A_STR, 0),
    /* the job's CPUs ("" before they were recorded) */
    A(bl_h5_harness, allowed_cpus, BL_A_STR, 0),
    A(bl_h5_harness, allowed_from, BL_A_STR, 0),
    /* what the run is: --resume and merge tell runs apart by them */
    A(bl_h5_harness, sweep, BL_A_STR, 0),
    A(bl_h5_harness, fingerprint, BL_A_STR, 0),
};

const bl_h5_attrs_def bl_h5_machine_attrs = BL_H5_ATTRS(machine_attrs);
const bl_h5_attrs_def bl_h5_run_attrs = BL_H5_ATTRS(run_attrs);
const bl_h5_attrs_def bl_h5_result_attrs = BL_H5_ATTRS(result_attrs);
const bl_h5_attrs_def bl_h5_harness_attrs = BL_H5_ATTRS(harness_attrs);

/* The tables of a run: where each one's rows and row count live in
 * bl_h5_run, in the order they are written. */
typedef struct run_table {
    const bl_h5_table_def *def;
    size_t rows, count;        /* offsetof(bl_h5_run, ...) */
} run_table;

#define RT(def, rows, count) \
    {&def, offsetof(bl_h5_run, rows), offsetof(bl_h5_run, count)}
static const run_table run_tables[] = {
    RT(bl_h5_env_def, env, nenv),
    RT(bl_h5_placement_def, placement, nplacement),
    RT(bl_h5_counter_def, counters, ncounters),
    RT(bl_h5_memory_def, memory, nmemory),
    RT(bl_h5_rank_def, rank_rows, nrank_rows),
    RT(bl_h5_metric_def, metrics, nmetrics),
    RT(bl_h5_finding_def, findings, nfindings),
};
#define NRUN_TABLES (sizeof run_tables / sizeof run_tables[0])
/* Written only when they have rows: first touch's (bindlab-app), and
 * bindlab run's */
static const run_table probe_tables[] = {
    RT(bl_h5_memory_init_def, memory_init, nmemory_init),
    RT(bl_h5_numa_def, numa, nnuma),
    RT(bl_h5_process_def, processes, nprocesses),
    RT(bl_h5_thread_def, thread_rows, nthread_rows),
    RT(bl_h5_affinity_def, affinity, naffinity),
};
#define NPROBE_TABLES (sizeof probe_tables / sizeof probe_tables[0])

static void **rt_rows(const run_table *t, bl_h5_run *r)
{
    return (void **)((char *)r + t->rows);
}

static size_t *rt_count(const run_table *t, bl_h5_run *r)
{
    return (size_t *)((char *)r + t->count);
}

/* ---- run --------------------------------------------------------------- */

static int write_result(hid_t run, const bl_h5_result *r)
{
    hid_t g = H5Gcreate2(run, "result", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc;
    if (g < 0)
        return -1;
    rc = bl_h5_attrs_write(g, &bl_h5_result_attrs, r);
    H5Gclose(g);
    return rc;
}

static void read_result(hid_t run, bl_h5_result *r)
{
    hid_t g;
    if (H5Lexists(run, "result", H5P_DEFAULT) <= 0)
        return;
    g = H5Gopen2(run, "result", H5P_DEFAULT);
    bl_h5_attrs_read(g, &bl_h5_result_attrs, r);
    H5Gclose(g);
}

static int write_timings(hid_t run, const bl_h5_run *r)
{
    hsize_t dims[2] = {(hsize_t)r->iterations, (hsize_t)r->ranks};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(run, "timings", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
                         H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = d < 0 ? -1 : 0;
    if (rc == 0 && dims[0] * dims[1] > 0 && r->timings)
        rc = H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                      r->timings);
    if (d >= 0) {
        bl_h5_attr_put_str(d, "unit", "s");
        bl_h5_attr_put_str(d, "dims", "iteration, rank");
        H5Dclose(d);
    }
    H5Sclose(space);
    return rc < 0 ? -1 : 0;
}

static void read_timings(hid_t run, bl_h5_run *r)
{
    hid_t d, space;
    hsize_t dims[2] = {0, 0};
    if (H5Lexists(run, "timings", H5P_DEFAULT) <= 0)
        return;
    d = H5Dopen2(run, "timings", H5P_DEFAULT);
    space = H5Dget_space(d);
    if (H5Sget_simple_extent_ndims(space) == 2) {
        H5Sget_simple_extent_dims(space, dims, NULL);
        r->timings = calloc(dims[0] * dims[1] + 1, sizeof *r->timings);
        if (r->timings && dims[0] * dims[1] > 0)
            H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    r->timings);
    }
    H5Sclose(space);
    H5Dclose(d);
}

int bl_h5_write_run(hid_t loc, const char *name, const bl_h5_run *r,
                    bl_err *err)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    hid_t g;
    int rc = 0;

    H5Pset_create_intermediate_group(lcpl, 1);
    g = H5Gcreate2(loc, name, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot create group '%s'", name);
    rc |= bl_h5_attrs_write(g, &bl_h5_run_attrs, r);
    rc |= write_result(g, &r->result);
    rc |= write_timings(g, r);
    for (size_t i = 0; rc == 0 && i < NRUN_TABLES; i++) {
        const run_table *t = &run_tables[i];
        rc = bl_h5_table_write(g, t->def,
                               *(void *const *)((const char *)r + t->rows),
                               *(const size_t *)((const char *)r + t->count),
                               err);
    }
    if (rc == 0 && r->matrix)
        rc = bl_h5_matrix_write(g, r->matrix, err);
    if (rc == 0 && r->ntime_split > 0)
        rc = bl_h5_table_write(g, &bl_h5_time_split_def, r->time_split,
                               r->ntime_split, err);
    if (rc == 0 && r->ntraffic > 0)
        rc = bl_h5_table_write(g, &bl_h5_traffic_def, r->traffic,
                               r->ntraffic, err);
    for (size_t i = 0; rc == 0 && i < NPROBE_TABLES; i++) {
        const run_table *t = &probe_tables[i];
        size_t n = *(const size_t *)((const char *)r + t->count);
        if (n > 0)
            rc = bl_h5_table_write(g, t->def,
                                   *(void *const *)((const char *)r + t->rows),
                                   n, err);
    }
    H5Gclose(g);
    return rc ? bl_err_set(err, "HDF5: cannot write run '%s'", name) : 0;
}

/* A kernel's matrix in the run group (c2c), when there is one: the first
 * kind under matrices/. */
static void read_run_matrix(hid_t run, bl_h5_run *r)
{
    char kinds[256], *comma;
    bl_err e;
    bl_h5_matrix_kinds(run, kinds, sizeof kinds);
    if (!kinds[0] || !(r->matrix = calloc(1, sizeof *r->matrix)))
        return;
    if ((comma = strchr(kinds, ',')))
        *comma = '\0';
    if (bl_h5_matrix_read(run, kinds, r->matrix, &e) < 0) {
        free(r->matrix);
        r->matrix = NULL;
    }
}

int bl_h5_read_run(hid_t loc, const char *name, bl_h5_run *r, bl_err *err)
{
    hid_t g;
    int rc = 0;
    memset(r, 0, sizeof *r);
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0)
        return bl_err_set(err, "no run group '%s'", name);
    g = H5Gopen2(loc, name, H5P_DEFAULT);
    if (g < 0)
        return bl_err_set(err, "HDF5: cannot open run group '%s'", name);
    bl_h5_attrs_read(g, &bl_h5_run_attrs, r);
    read_result(g, &r->result);
    read_timings(g, r);
    /* Every table is read even after one fails, as before: what reads is
     * kept (and freed by bl_h5_run_free). */
    for (size_t i = 0; i < NRUN_TABLES; i++)
        rc |= bl_h5_table_read(g, run_tables[i].def,
                               rt_rows(&run_tables[i], r),
                               rt_count(&run_tables[i], r), err);
    read_run_matrix(g, r);
    rc |= bl_h5_table_read(g, &bl_h5_time_split_def, (void **)&r->time_split,
                           &r->ntime_split, err);
    rc |= bl_h5_table_read(g, &bl_h5_traffic_def, (void **)&r->traffic,
                           &r->ntraffic, err);
    for (size_t i = 0; i < NPROBE_TABLES; i++)
        rc |= bl_h5_table_read(g, probe_tables[i].def,
                               rt_rows(&probe_tables[i], r),
                               rt_count(&probe_tables[i], r), err);
    H5Gclose(g);
    return rc ? -1 : 0;
}

void bl_h5_run_free(bl_h5_run *r)
{
    bl_h5_attrs_free(&bl_h5_run_attrs, r);
    bl_h5_attrs_free(&bl_h5_result_attrs, &r->result);
    free(r->timings);
    for (size_t i = 0; i < NRUN_TABLES; i++)
        bl_h5_table_free(run_tables[i].def, *rt_rows(&run_tables[i], r),
                         *rt_count(&run_tables[i], r));
    if (r->matrix)
        bl_h5_matrix_free(r->matrix);
    free(r->matrix);
    bl_h5_table_free(&bl_h5_time_split_def, r->time_split, r->ntime_split);
    bl_h5_table_free(&bl_h5_traffic_def, r->traffic, r->ntraffic);
    for (size_t i = 0; i < NPROBE_TABLES; i++)
        bl_h5_table_free(probe_tables[i].def, *rt_rows(&probe_tables[i], r),
                         *rt_count(&probe_tables[i], r));
    memset(r, 0, sizeof *r);
}
