/* libbindlab-probe.so's internals, shared by its files (probe/ only). The
 * probe is preloaded into programs it knows nothing of, so it depends on
 * libc, libdl and pthread alone: no hwloc, no MPI headers, no bindlab
 * library. Names start with bp_. The record file's format:
 * docs/probe-format.md; what the probe can and cannot see:
 * docs/any-application.md. */
#ifndef BP_PROBE_PRIV_H
#define BP_PROBE_PRIV_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BP_FORMAT_VERSION 1
#define BP_MAX_CPUS 8192                  /* masks of 1024 bytes */
#define BP_MASK_BYTES (BP_MAX_CPUS / 8)
#define BP_CPUS_TEXT 2048                 /* a list that does not fit ends in '+' */
#define BP_MAX_THREADS 1024
#define BP_LABEL_MAX 64
#define BP_PATH_TEXT 512
#define BP_LINE_MAX 8192
#define BP_DEFAULT_PERIOD_MS 5
#define BP_FD_FLOOR 100                   /* above the descriptors programs pick by number */
#define BP_STAT_FDS 128                   /* stat files kept open for the sampler */
#define BP_RESCAN_ROUNDS 10               /* /proc/self/task listed every 10th sample */

/* Where the program is relative to MPI, for affinity changes. */
enum bp_phase {
    BP_BEFORE_INIT,
    BP_IN_INIT,
    BP_AFTER_INIT,
    BP_IN_FINALIZE,
    BP_AFTER_FINALIZE
};

/* What one read of /proc/self/task/TID gives; -1 for what was not there. */
typedef struct bp_task_sample {
    int cpu;                           /* stat field 39: last CPU */
    long long migrations;              /* sched: se.nr_migrations */
    long long vcsw, ivcsw;             /* status: (non)voluntary_ctxt_switches */
    char allowed[BP_CPUS_TEXT];        /* sched_getaffinity as a list ("" unread) */
} bp_task_sample;

/* One thread of the process the probe follows. */
typedef struct bp_thread {
    pid_t tid;
    int has_handle;
    pthread_t handle;
    char label[BP_LABEL_MAX];
    char object[BP_PATH_TEXT];         /* escaped path of its start routine's object */
    char last_cpus[BP_CPUS_TEXT];      /* last known allowed set */
    unsigned char seen[BP_MASK_BYTES]; /* CPUs it was sampled on */
    /* The sampler's own: its stat file kept open (-1: none; the inode
     * tells it from a program's file that took its number after the
     * program closed it) and the allowed mask it last read, formatted
     * only when it differs. */
    int stat_fd;
    unsigned long stat_ino;
    unsigned char mask[BP_MASK_BYTES];
    long mask_len;
    long long samples;
    long long mig_start, mig_last, vcsw, ivcsw;
} bp_thread;

/* The process-wide state (probe_main.c). */
typedef struct bp_state {
    volatile int enabled;              /* 0: every hook only forwards */
    pid_t pid;
    long long pstart;                  /* bp_self_starttime */
    int period_ms;
    volatile int phase;                /* enum bp_phase */
    int finalize_seen;
    pthread_mutex_t lock;              /* the thread table */
    /* Which slots are in use (their tid, 0 free), apart from the slots
     * themselves: a scan then touches one page, not every slot's, and the
     * probe's own pages stay few in the program's numa_maps. */
    pid_t slot_tid[BP_MAX_THREADS];
    bp_thread threads[BP_MAX_THREADS];
    volatile int pending_creates;      /* pthread_create calls not yet registered */
    int stat_fds;                      /* stat files kept open */
    pid_t sampler_tid;
    /* The probe's fixed work, timed where it is done (the "cost" line):
     * its start, and the MPI_Finalize hook's (moment, pages, sample). */
    double cost_start_s, cost_finalize_s;
} bp_state;

extern bp_state bp;

/* The thread table's lock, taken on a program's thread with every signal
 * blocked: a signal handler that calls an interposed function while its
 * thread holds the lock would otherwise wait for itself. */
void bp_lock_blocked(sigset_t *saved);
void bp_unlock_blocked(const sigset_t *saved);

/* probe_main.c */
void bp_ensure(void);                  /* initialises once, from any first hook */
double bp_now(void);                   /* seconds since the probe started */
const char *bp_phase_name(int phase);
void bp_record_moment(const char *moment);
pid_t bp_gettid(void);

/* probe_out.c: the record file */
/* The file of this process; an earlier image's file of the same name (the
 * process exec'd) is set aside first, marked (probe_out.c). */
int bp_out_open(const char *dir, const char *host, pid_t pid,
                const char *exe);
void bp_emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bp_out_finish(void);              /* "end" line, fsync, rename */
void bp_out_forget(void);              /* in a forked child: close, write nothing */
void bp_escape(const char *in, char *out, size_t len);

/* probe_visible.c: the "visible" line (visible-device variables) */
void bp_visible_record(void);

/* probe_omp.c: one "omp" line per OpenMP runtime loaded in the process */
void bp_omp_record(void);
void bp_mask_text(const unsigned char *mask, size_t bytes, char *out, size_t len);
int bp_get_mask_text(pid_t tid, char *out, size_t len);

/* probe_proc.c: /proc readers */
/* CPU and allowed set of thread tid; with counters, also its migrations
 * and context switches (two more files: at a thread's start and end only).
 * -1 when the thread is gone. */
int bp_task_read(pid_t tid, bp_task_sample *s, int counters);
/* The sampler's read of t: its last CPU from its stat file kept open
 * (pread), and its allowed set into s->allowed only when the mask differs
 * from the last one read ("" when not). -1 when the thread is gone. */
int bp_task_sample_fast(bp_thread *t, bp_task_sample *s);
/* t's kept stat file closed, when it is still the probe's. */
void bp_task_forget(bp_thread *t);
/* In a forked child: every kept stat file closed (async-signal-safe). */
void bp_task_forget_all(void);
void bp_pages_record(const char *at);
int bp_self_argv0(char *out, size_t len);
/* The process's start time (/proc/self/stat field 22, clock ticks since
 * boot), which an exec keeps: 0 when unknown. */
long long bp_self_starttime(void);

/* The next definition of name after the probe's (dlsym(RTLD_NEXT)), as a
 * function pointer to be cast to its type; NULL when there is none. */
typedef void (*bp_fn)(void);
bp_fn bp_next(const char *name);
/* The same, else the definition in the scope of the object holding caller
 * (an MPI library loaded with RTLD_LOCAL under the calling module). */
bp_fn bp_next_from(const char *name, const void *caller);

/* probe_label.c: which object an address belongs to, and its label */
void bp_object_of(const void *addr, char *path, size_t len, char *label,
                  size_t label_len);
void bp_label_init(void);

/* probe_threads.c */
void bp_threads_init(void);
void bp_register_main(void);            /* tid = pid, label "main" */
int bp_sampler_start(void);
/* Samples every thread now: at each MPI phase boundary, so that a change
 * behind the interposers is recorded in the phase it happened in. */
void bp_sample_all(void);
void bp_threads_finish(void);          /* stops the sampler, ends every thread */
bp_thread *bp_thread_by_tid(pid_t tid);          /* locked */
bp_thread *bp_thread_by_handle(pthread_t handle); /* locked */
void bp_seen_add(bp_thread *t, int cpu);

#endif
