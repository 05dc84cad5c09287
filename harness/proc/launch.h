/* Running one program the way the harness runs mpirun or srun: an argv (no
 * shell), extra environment entries, stdin from /dev/null, stdout and stderr
 * captured in memory (and optionally logged to files as the output arrives),
 * a timeout that ends the whole run, and a result that says how it ended.
 *
 * The program runs under a supervisor, a fork of the calling process that
 * starts a new session (setsid; also the leader of a new process group),
 * starts the program in that group and ends with the program's exit status
 * or signal. A session rather than only a group because Open MPI's mpirun
 * puts every local rank in a process group of its own: killing mpirun's
 * group would miss the ranks, while they stay in its session. Ending a run
 * therefore signals the group and every process of the session. The
 * supervisor asks for a signal when its parent dies (PR_SET_PDEATHSIG) and
 * then SIGKILLs its whole session, so that a caller killed with SIGKILL
 * leaves no run behind; being a fork, it holds the caller's descriptors
 * (and flocks) until the run is dead. bl_launch_run must therefore be called
 * from a thread that outlives the run (the main thread).
 *
 * Not thread-safe: one run at a time per process (the harness runs
 * sequentially). */
#ifndef BL_LAUNCH_H
#define BL_LAUNCH_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

#define BL_LAUNCH_HEAD_MAX (16u << 20)  /* default bytes kept from the start */
#define BL_LAUNCH_TAIL_MAX (64u << 10)  /* default bytes kept from the end */
#define BL_LAUNCH_GRACE_S 5.0           /* default SIGTERM -> SIGKILL delay */

/* One captured stream: everything up to head_max bytes, then the last
 * tail_max bytes of the rest. head and tail are NUL-terminated (never NULL
 * after bl_launch_run returned 0). */
typedef struct bl_launch_output {
    char *head;
    size_t head_len;
    char *tail;         /* follows head after a gap of `dropped` bytes */
    size_t tail_len;
    size_t total;       /* bytes the stream carried */
    size_t dropped;     /* total - head_len - tail_len */
    /* private: capture state */
    size_t head_alloc, head_max, tail_max, tail_pos;
} bl_launch_output;

typedef struct bl_launch_opts {
    char *const *argv;        /* NULL-terminated; argv[0] looked up in PATH */
    char *const *env;         /* extra "NAME=VALUE" entries added to, or
                               * replacing, the inherited environment;
                               * NULL-terminated, or NULL for none */
    double timeout_s;         /* <= 0: no timeout */
    double grace_s;           /* SIGTERM to SIGKILL; 0: BL_LAUNCH_GRACE_S */
    const char *stdout_path;  /* also log stdout here (may be NULL) */
    const char *stderr_path;  /* may equal stdout_path: one combined log */
    const int *log_dirfd;     /* NULL: the log paths as given; else the
                               * logs' directory held open: each is made
                               * there under its last component (openat),
                               * so a swapped directory name cannot
                               * redirect it */
    size_t head_max;          /* 0: BL_LAUNCH_HEAD_MAX */
    size_t tail_max;          /* 0: BL_LAUNCH_TAIL_MAX */
} bl_launch_opts;

typedef struct bl_launch_result {
    pid_t pid;          /* the supervisor: the run's process group and
                         * session */
    int exited;         /* 1: it called exit, exit_status is valid */
    int exit_status;
    int term_signal;    /* the signal that ended it, or 0 */
    int timed_out;      /* ended by us at the timeout */
    int interrupted;    /* ended by us after bl_launch_interrupt() */
    int killed;         /* SIGKILL was needed after the grace period */
    int strays;         /* processes of its session still running when the
                         * child ended; they were killed */
    double wall_s;      /* start to the child's end */
    int log_errno;      /* first error writing a log file (0: none) */
    bl_launch_output out;
    bl_launch_output errs;
} bl_launch_result;

/* Runs opts->argv to its end and fills res. Returns 0 when the program ran,
 * whatever its exit status (see res), and -1 with err when it could not be
 * started (program not found or not executable, bad env entry, log file not
 * writable, or bl_launch_interrupt() was called before). Log files are
 * written as "PATH.part" while the run goes on and renamed to PATH at its
 * end, so PATH is always complete and a hung run's output is on disk.
 * Free res with bl_launch_result_free in both cases. */
int bl_launch_run(const bl_launch_opts *opts, bl_launch_result *res,
                  bl_err *err);

void bl_launch_result_free(bl_launch_result *res);

/* "exit status 3", "killed by signal 11 (Segmentation fault)", "timed out
 * after 10 s (ended by SIGTERM)"... Returns what snprintf returns. */
int bl_launch_describe(const bl_launch_result *res, const bl_launch_opts *opts,
                       char *buf, size_t len);

/* The last n lines of a captured stream (trailing newline dropped), into
 * buf; if they do not fit, their end. Returns the length written. */
size_t bl_launch_last_lines(const bl_launch_output *out, int n, char *buf,
                            size_t len);

/* For callers that need the program to succeed: when res says it did not
 * exit with status 0, fills err with "WHAT: HOW: LAST LINES" (how it ended,
 * then the last `lines` lines of its stderr, when there are any) and returns
 * -1; otherwise returns 0. */
int bl_launch_require_success(const bl_launch_result *res,
                              const bl_launch_opts *opts, const char *what,
                              int lines, bl_err *err);

/* The whole kept text, with "[... N bytes not kept ...]" at the gap, in a
 * malloc'ed string, or NULL when out of memory. */
char *bl_launch_output_text(const bl_launch_output *out);

/* For the harness's SIGINT/SIGTERM handler. Async-signal-safe: sends
 * SIGTERM to the running child's process group and makes the running
 * bl_launch_run end the run (SIGKILL to the whole session after the grace
 * period) and return with res->interrupted set. Later runs refuse to start
 * until bl_launch_clear_interrupt(). */
void bl_launch_interrupt(void);
int bl_launch_interrupted(void);
void bl_launch_clear_interrupt(void);

/* That handler, for a verb while it waits for its launches
 * (launch_interrupt.c): SIGINT and SIGTERM each call bl_launch_interrupt(),
 * the first one caught is kept for bl_launch_caught_signal(). The handlers
 * in place go to old_int and old_term, for bl_launch_restore_interrupts(). */
void bl_launch_catch_interrupts(struct sigaction *old_int,
                                struct sigaction *old_term);
void bl_launch_restore_interrupts(const struct sigaction *old_int,
                                  const struct sigaction *old_term);
/* SIGINT or SIGTERM: the first caught since bl_launch_catch_interrupts(),
 * or 0. */
int bl_launch_caught_signal(void);

/* Makes this process the reaper of its orphaned descendants
 * (PR_SET_CHILD_SUBREAPER), so that processes of a run whose parent died
 * are reaped by bl_launch_run instead of lingering as zombies under an init
 * that may not reap them (as in some containers). Optional. */
int bl_launch_adopt_orphans(bl_err *err);

#endif
