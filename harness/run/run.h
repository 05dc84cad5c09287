/* bindlab run: one launch of any dynamically linked program under
 * libbindlab-probe.so, with a layout in the sweep's words. The command is
 * the sweep's (bl_launcher_command, the program in place of bindlab-app,
 * the probe's variables in the launcher's export words); the probe files
 * become one run record in the sweep's schema (the placement table, pages
 * per NUMA node, the processes, threads and affinity changes the probe
 * saw), cross-checked against the launcher's binding report
 * (bindreport/crosscheck.h) plus the probe's own flags (drift after init,
 * threads outside their rank's set). docs/any-application.md. */
#ifndef BL_RUN_H
#define BL_RUN_H

#include <stddef.h>

#include "err.h"
#include "h5/h5schema.h"
#include "launcher/launcher.h"
#include "layout/layout.h"
#include "proc/launch.h"

/* More flags than the cross-check's (crosscheck.h):
 *   drift-after-init      a rank's thread left on another set by
 *                         affinity changes after MPI_Init returned (each
 *                         change's caller named in a note; changes that
 *                         end where they began are one note, no flag)
 *   drift-before-init     the same before MPI_Init (or in a program
 *                         without MPI): the OpenMP runtime binding the
 *                         initial thread at load, named; the launcher's
 *                         report is checked against the set given before
 *   thread-outside-rank   a thread allowed CPUs outside its rank's set
 *   not-probed            no probe file at all
 *   gpu-not-local         a process given a GPU (a visible-device variable
 *                         named it) far from its CPUs (run_gpus.c)
 *   gpu-shared            a GPU given to two processes of this host while
 *                         another of its GPUs is given to none */

typedef struct bl_run_opts {
    bl_layout layout;           /* np, map_by, bind_to, threads, OpenMP */
    const char *launcher;       /* --launcher value, NULL: mpirun */
    const char *mpirun;         /* --mpirun: the launcher program, or NULL */
    char *const *program;       /* the ranks' argv, program resolved */
    const char *out;            /* the record to write (must not exist) */
    const char *probe;          /* path of libbindlab-probe.so */
    const char *command;        /* bindlab's own command line (root attr) */
    double timeout_s;           /* <= 0: none */
    int period_ms;              /* BINDLAB_PROBE_PERIOD_MS, 0: default */
} bl_run_opts;

/* What a launch left, for the caller to show (the record is on disk). */
typedef struct bl_run_outcome {
    bl_h5_run run;              /* the probe's rows (placement, threads...) */
    bl_h5_harness h;            /* status, exit, flags, checks, argv, log */
    char **notes;               /* one line per flag detail */
    size_t nnotes, notes_cap;
    char log[4096];             /* the launcher's output, beside the record */
    char probe_dir[4096];       /* the probe files (kept) */
    int interrupted_by;         /* SIGINT or SIGTERM that ended the
                                 * launch (status failed), or 0 */
} bl_run_outcome;

/* One launch under the probe, as `bindlab run` and a sweep's app: runs
 * make it: the layout translated and checked by the caller. */
typedef struct bl_run_launch {
    const bl_launcher_info *li;
    const bl_layout *layout;    /* translated for li */
    hwloc_topology_t topo;      /* this machine's: names the rows */
    bl_layout_argv_opts argv;   /* launcher, is_root, threads, pus_per_rank,
                                 * hosts, oversubscribe, program; rank_env:
                                 * more "NAME=VALUE" for every rank, or
                                 * NULL (the probe's are added) */
    const char *probe;          /* path of libbindlab-probe.so */
    const char *probe_dir;      /* where its files go (exists) */
    int period_ms;              /* BINDLAB_PROBE_PERIOD_MS, 0: default */
} bl_run_launch;

/* The command of rl: the launcher's argv with the probe preloaded in
 * every rank. 0, or -1 with err. */
int bl_run_command(const bl_run_launch *rl, bl_command *cmd, bl_err *err);

/* After the launch: out->h's status (ok, failed, timeout) and reason
 * from how it ended (out->interrupted_by set: failed, "interrupted by
 * SIGINT ..."), the probe files of rl->probe_dir into out->run (a
 * failure to read them added to the reason), the OpenMP variables, *m
 * this machine (free with bl_h5_machine_free), and the cross-check and
 * probe flags into out->h. out->h's layout fields are the caller's. */
void bl_run_collect(const bl_run_launch *rl, const bl_launch_result *res,
                    const bl_launch_opts *lo, bl_run_outcome *out,
                    bl_h5_machine *m);

/* The probe's files of dir and dir itself removed (once a record holds
 * them). */
void bl_run_probe_dir_remove(const char *dir);

/* 1 when dir holds a probe file: the program started. */
int bl_run_probe_dir_used(const char *dir);

/* Is path a program the probe can see: an ELF executable with a program
 * interpreter or needed libraries (a static one is refused with a line
 * saying why). 0, or -1 with err. */
int bl_run_program_check(const char *path, bl_err *err);

/* name as execvp would find it (a name with '/' is itself), into buf:
 * 0, or -1 with err when it is missing or not executable. */
int bl_run_program_find(const char *name, char *buf, size_t len,
                        bl_err *err);

/* The probe library: BINDLAB_PROBE, or libbindlab-probe.so beside the
 * bindlab executable, or in ../lib/bindlab/ from it. 0 or -1 with err. */
int bl_run_probe_path(char *buf, size_t len, bl_err *err);

/* Launches, reads, checks and writes. 0 when a record was written
 * (whatever the program's fate: out->h.status), -1 with err when the
 * launch could not be made or the record could not be written, -2 with
 * err when the launcher or the layout is refused (bad input). SIGINT or
 * SIGTERM during the launch ends it and is kept in out->interrupted_by;
 * the record is still written with what the probe files hold. Free out
 * with bl_run_outcome_free in both cases. */
int bl_run(const bl_run_opts *o, bl_run_outcome *out, bl_err *err);
void bl_run_outcome_free(bl_run_outcome *out);

/* The probe files of dir into r's rows (placement, memory, ranks,
 * processes, threads, affinity) with topo (this machine) naming cores
 * and NUMA nodes; r->ranks the processes kept (children that are not
 * ranks are left out). 0 or -1 with err. */
int bl_run_record_read(const char *dir, hwloc_topology_t topo, bl_h5_run *r,
                       bl_err *err);

/* The probe's flags of r added to flags (comma-separated: the
 * cross-check's so far), and one note per finding of either appended to
 * out's notes. */
void bl_run_flags(const bl_h5_run *r, char *flags, size_t len,
                  bl_run_outcome *out);

/* 1 when placement row i of r is a compute thread (main, openmp,
 * program, blas): who counts when threads share a PU (MPI's helper
 * threads mostly sleep). */
int bl_run_busy_thread(const bl_h5_run *r, size_t i);

#endif
