/* Binding reports: what a launcher or an OpenMP runtime says about where
 * each rank (and thread) may run, read from the captured text of a launch
 * and turned into sets of PU OS indexes.
 *
 * Formats: Open MPI 4.x --report-bindings, Open MPI 5.x / PRRTE
 * --report-bindings (--display bind) and its job map (--display map, with
 * or without --do-not-launch), Slurm srun --cpu-bind=verbose,
 * MPICH Hydra HYDRA_TOPO_DEBUG=1, Intel MPI's I_MPI_DEBUG=4 pinning table,
 * and OMP_DISPLAY_AFFINITY lines (libgomp,
 * LLVM). Lines that belong to none of them are ignored; lines that look
 * like report lines but cannot be read completely are rejected with their
 * line number and a reason, never half-read. */
#ifndef BL_BINDREPORT_H
#define BL_BINDREPORT_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"

/* The OMP_AFFINITY_FORMAT bindlab launches with: every field the parser
 * needs, one token each. %n is the OpenMP thread number, %A the affinity
 * as a list of OS processor indexes. A rank is unknown to the runtime, so
 * bindlab-app may prepend "rank=R " after "bindlab-omp " itself
 * (omp_set_affinity_format); without it the lines are keyed by host and
 * pid. */
#define BL_OMP_AFFINITY_FORMAT "bindlab-omp host=%H pid=%P thread=%n affinity=%A"

/* Limits: the captured output of a launch on 10,000 ranks with 128 OMP
 * threads each stays well under them; a wrong input (/dev/zero, a core
 * dump) is refused instead of filling memory. */
#define BL_BINDREPORT_INPUT_MAX (64L << 20) /* bytes of text */
#define BL_BINDREPORT_LINE_MAX 65536        /* characters in one line */

typedef enum {
    BL_REPORT_AUTO,
    BL_REPORT_OMPI4,
    BL_REPORT_OMPI5,
    BL_REPORT_SLURM,
    BL_REPORT_HYDRA,
    BL_REPORT_OMP_AFFINITY,
    BL_REPORT_IMPI,
    BL_REPORT_PRRTE_MAP     /* "ompi5-map": PRRTE's --display map */
} bl_report_format;

typedef struct bl_binding {
    int rank;            /* MPI rank (global task id for Slurm, process
                          * index for Hydra); -1 for OMP lines without
                          * rank= (then host and pid identify the process) */
    int thread;          /* OpenMP thread number for OMP_DISPLAY_AFFINITY
                          * lines, -1 for rank lines */
    char host[64];       /* "" when the line does not say */
    int bound;           /* 0 for Open MPI's "is not bound (or bound to all
                          * available processors)" and Slurm's NONE */
    hwloc_bitmap_t cpus; /* OS (physical) PU indexes; for Open MPI's "not
                          * bound", the whole topology's cpuset */
    int line;            /* 1-based line number in the input */
    long pid;            /* process id the line names (Slurm task, OMP
                          * process, the printer of an Open MPI line),
                          * -1 when it names none */
    int local_rank;      /* Slurm's node-local task id, else -1 */
    int node;            /* bl_bindreport_parse_nodes: the index of the
                          * host whose topology read the line, -1 the
                          * fallback's (no host, or one not listed) */
} bl_binding;

typedef struct bl_rejected_line {
    int line;
    char *text;
    char reason[160];
} bl_rejected_line;

typedef struct bl_binding_report {
    bl_report_format format;       /* the detected one */
    bl_binding *items;             /* sorted by rank, then thread */
    size_t count;
    bl_rejected_line *rejected;    /* lines that look like binding lines
                                    * but could not be read */
    size_t nrejected;
} bl_binding_report;

/* text: the whole captured stdout+stderr of a launch. fmt: one format, or
 * BL_REPORT_AUTO to take the launcher format of the first line that
 * belongs to one (OMP_DISPLAY_AFFINITY lines are read as well in AUTO
 * mode, since they come from the same launch). Lines starting with '#'
 * are comments (no launcher prints a report line that way). topo: the node the report
 * came from; converts Open MPI's logical cores / hwts / bracket positions
 * into PU OS indexes, and every PU a line names must exist in it.
 * The same rank (and thread) reported twice with the same set is kept
 * once; with a different set the later line is rejected. A line longer
 * than BL_BINDREPORT_LINE_MAX is rejected unread; a line that holds more
 * than one rank's binding (interleaved output) is rejected, never read
 * for its first rank only.
 * Returns 0 (even when lines were rejected: see out->nrejected), or -1 with
 * err on a bad argument or when memory runs out. Free with
 * bl_bindreport_free(). */
int bl_bindreport_parse(const char *text, bl_report_format fmt,
                        hwloc_topology_t topo, bl_binding_report *out,
                        bl_err *err);

/* A report of several nodes: each node's own topology. A line that names
 * host H (Open MPI's "[H:pid]", Slurm's "- H, task", PRRTE's "Data for
 * node: H") is read with H's topology (names compared up to the first
 * '.', as Open MPI prints short names), any other line with fallback. */
typedef struct bl_report_topos {
    hwloc_topology_t fallback;      /* required */
    size_t n;
    const char *const *hosts;       /* [n] */
    const hwloc_topology_t *topos;  /* [n]; NULL entries use fallback */
} bl_report_topos;

/* bl_bindreport_parse with one topology per node; sets each binding's
 * node. bl_bindreport_parse is this with no hosts. */
int bl_bindreport_parse_nodes(const char *text, bl_report_format fmt,
                              const bl_report_topos *topos,
                              bl_binding_report *out, bl_err *err);

void bl_bindreport_free(bl_binding_report *r);

/* "auto", "ompi4", "ompi5", "slurm", "hydra", "omp", "impi",
 * "ompi5-map". */
const char *bl_bindreport_format_name(bl_report_format f);

/* The inverse of bl_bindreport_format_name; -1 with err naming the
 * accepted names. */
int bl_bindreport_format_parse(const char *name, bl_report_format *out,
                               bl_err *err);

#endif
