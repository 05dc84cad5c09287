/* The reader of the files libbindlab-probe.so writes, one per process
 * (format: docs/probe-format.md): the process, its cpusets at the four
 * moments, its threads, every affinity change and its pages per NUMA node.
 * A file without its "end" line (a ".part" file left by a process that
 * was killed or called _exit) is read as far as it goes and marked
 * incomplete. Cpusets are kept as the list text of the file ("0-3,8");
 * bl_cpuset_parse_list turns one into a bitmap. */
#ifndef BL_PROBE_FILE_H
#define BL_PROBE_FILE_H

#include <stddef.h>

#include "err.h"

#define BL_PROBE_FORMAT_VERSION 1
#define BL_PROBE_FILE_MAX (256L << 20) /* bytes */

/* The moments a process's cpuset is recorded at ("cpus moment=..."). */
enum bl_probe_moment {
    BL_PROBE_START,    /* the probe's start, before main */
    BL_PROBE_INIT,     /* return of MPI_Init / MPI_Init_thread */
    BL_PROBE_FINALIZE, /* entry of MPI_Finalize */
    BL_PROBE_EXIT,     /* exit() or the return from main */
    BL_PROBE_MOMENTS
};

/* The visible-device variables of a "visible" line, in this order. */
#define BL_PROBE_VISIBLE_VARS 4
extern const char *const bl_probe_visible_names[BL_PROBE_VISIBLE_VARS];

typedef struct bl_probe_thread {
    long tid;
    char *label;            /* main, openmp, blas, mpi, program, unknown, or an object's name */
    char *object;           /* the start routine's shared object, "-" unknown */
    char *phase;            /* MPI phase when it started */
    double t_start, t_end;  /* seconds since the probe started; t_end -1: no end line */
    char *start_cpus;       /* allowed CPUs when it started */
    char *end_cpus;         /* allowed CPUs at its end; NULL without an end line */
    char *seen_cpus;        /* CPUs it was sampled on ("-": none); NULL without an end line */
    long long samples, migrations, ctx_voluntary, ctx_involuntary; /* -1 unknown */
    int ended;
} bl_probe_thread;

typedef struct bl_probe_change {
    double t;
    long tid;               /* the calling thread; -1 for a sampled change */
    long target;            /* the thread (or process) whose set changed; -1 unknown */
    char *phase;            /* before-init, init, after-init, finalize, after-finalize */
    char *call;             /* sched_setaffinity, pthread_setaffinity_np, unknown */
    char *old_cpus, *new_cpus;
    char *asked;            /* the set asked for, "-" unknown */
    char *caller;           /* shared object that made the call, "-" unknown */
    char *by;               /* its label */
    int changed, ok;
} bl_probe_change;

typedef struct bl_probe_pages {
    long node;
    long long pages;
    long page_kb;           /* kernelpagesize_kB of these pages */
    char *at;               /* finalize or exit */
} bl_probe_pages;

typedef struct bl_probe_file {
    int version;
    long pid, ppid;
    char *host, *exe, *argv0;
    long rank, size;        /* -1: the launcher set no such variable */
    char *rank_from, *size_from; /* the variable read, "-" none */
    long period_ms;
    double start_unix;
    char *cpus[BL_PROBE_MOMENTS]; /* NULL: moment not reached */
    int mpi_init, mpi_finalize;   /* an init / finalize call was seen */
    int pages_unavailable;        /* no numa_maps */
    bl_probe_thread *threads;
    size_t nthreads, threads_cap;
    bl_probe_change *changes;
    size_t nchanges, changes_cap;
    bl_probe_pages *pages;
    size_t npages, pages_cap;
    size_t notes;           /* "note" lines: the probe's own troubles */
    /* "omp" lines: the runtime serving omp_get_num_threads (kind, version,
     * file; NULL none), the one GOMP_parallel went to, and every other
     * one loaded ("kind version file", "; " between; NULL none) */
    char *omp_runtime, *omp_version, *omp_file, *omp_gomp, *omp_other;
    int complete;           /* ended with its "end" line, or "exec" */
    long long pstart;       /* the process's start time (kept by exec); 0 unknown */
    int execed;             /* ended with an "exec" line: the process went on
                             * in a new image, in another file */
    int earlier_image;      /* an image the process left by exec (execed, or
                             * a file of the same pid and pstart started
                             * before another): not a process of its own */
    /* "visible": the visible-device variables it started with
     * (bl_probe_visible_names): NULL unset, "" set empty (hides every GPU
     * of its vendor). visible_recorded 0: no such line (an older probe). */
    int visible_recorded;
    char *visible[BL_PROBE_VISIBLE_VARS];
} bl_probe_file;

/* The recorded value of visible-device variable name: NULL when it was
 * unset, or is not one of bl_probe_visible_names. */
const char *bl_probe_visible_get(const bl_probe_file *f, const char *name);

/* Reads path into *out (released with bl_probe_file_free, also after a
 * failure). Malformed input fails with err naming path:line. */
int bl_probe_file_read(const char *path, bl_probe_file *out, bl_err *err);

/* The same from len bytes of text; name stands for the file in messages. */
int bl_probe_file_parse(const char *text, size_t len, const char *name,
                        bl_probe_file *out, bl_err *err);

void bl_probe_file_free(bl_probe_file *f);

/* The probe files of one run: every process's, ordered by rank (processes
 * without a rank last), then by host and pid. */
typedef struct bl_probe_set {
    bl_probe_file *files;
    size_t n, cap;
} bl_probe_set;

/* Reads every bindlab-probe.* file of dir, finished or ".part", into *out
 * (released with bl_probe_set_free, also after a failure). A malformed
 * file fails the whole read, with err naming it. The files of a process
 * that exec'd (one per image, under two host names when the host was
 * renamed in between) are paired by pid and start time: all but the last
 * image are marked earlier_image. */
int bl_probe_dir_read(const char *dir, bl_probe_set *out, bl_err *err);

void bl_probe_set_free(bl_probe_set *s);

/* Name of a moment ("start", "init", "finalize", "exit"). */
const char *bl_probe_moment_name(int moment);

#endif
