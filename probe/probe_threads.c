/* The threads of the process: pthread_create interposed (each new thread
 * labelled by the object of its start routine, registered by itself before
 * that routine runs, ended by a thread-specific-data destructor), and the
 * sampler thread, which every period reads each thread's CPU and allowed
 * set (migrations and context switches are read at its start and end) and
 * finds threads made without pthread_create (label "unknown"). The
 * sampler itself is never reported.
 * "thread" and "thread_end" lines: docs/probe-format.md. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "probe_priv.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
                         void *(*)(void *), void *);

typedef struct start_args {
    void *(*fn)(void *);
    void *arg;
    char label[BP_LABEL_MAX];
    char object[BP_PATH_TEXT];
} start_args;

static create_fn real_create;
static pthread_key_t end_key;
static pthread_t sampler;
static int sampler_running, sampler_stop;
static long long sampler_rounds;
static double sampler_cpu_s;               /* its user + system time */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond;

static void end_thread(void *unused);

void bp_threads_init(void)
{
    pthread_condattr_t ca;
    pthread_key_create(&end_key, end_thread);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&stop_cond, &ca);
    pthread_condattr_destroy(&ca);
}

bp_thread *bp_thread_by_tid(pid_t tid)
{
    for (int i = 0; i < BP_MAX_THREADS; i++)
        if (bp.slot_tid[i] == tid && tid != 0)
            return &bp.threads[i];
    return NULL;
}

bp_thread *bp_thread_by_handle(pthread_t handle)
{
    for (int i = 0; i < BP_MAX_THREADS; i++)
        if (bp.slot_tid[i] && bp.threads[i].has_handle &&
            pthread_equal(bp.threads[i].handle, handle))
            return &bp.threads[i];
    return NULL;
}

void bp_seen_add(bp_thread *t, int cpu)
{
    if (cpu >= 0 && cpu < BP_MAX_CPUS)
        t->seen[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
}

/* A slot for tid with its first sample, and its "thread" line. Locked. */
static bp_thread *add_locked(pid_t tid, const char *label, const char *object,
                             const bp_task_sample *s)
{
    bp_thread *t = NULL;
    int i = 0;
    while (i < BP_MAX_THREADS && bp.slot_tid[i])
        i++;
    if (i < BP_MAX_THREADS && tid > 0)
        t = &bp.threads[i];
    if (!t) {
        bp_emit("note what=thread_table_full tid=%ld", (long)tid);
        return NULL;
    }
    memset(t, 0, sizeof *t);
    t->stat_fd = -1;
    __atomic_store_n(&bp.slot_tid[i], tid, __ATOMIC_RELAXED);
    t->tid = tid;
    snprintf(t->label, sizeof t->label, "%s", label);
    snprintf(t->object, sizeof t->object, "%s", object);
    if (s->allowed[0])
        snprintf(t->last_cpus, sizeof t->last_cpus, "%s", s->allowed);
    else
        bp_get_mask_text(tid, t->last_cpus, sizeof t->last_cpus);
    bp_seen_add(t, s->cpu);
    t->mig_start = t->mig_last = s->migrations;
    t->vcsw = s->vcsw;
    t->ivcsw = s->ivcsw;
    bp_emit("thread tid=%ld label=%s object=%s t=%.6f phase=%s cpus=%s",
            (long)tid, t->label, t->object, bp_now(), bp_phase_name(bp.phase),
            t->last_cpus);
    return t;
}

/* Registers thread tid (the caller when self), with its first sample. */
static void register_tid(pid_t tid, const char *label, const char *object,
                         int self)
{
    bp_task_sample s;
    sigset_t mask;
    bp_task_read(tid, &s, 1);
    bp_lock_blocked(&mask);
    bp_thread *t = add_locked(tid, label, object, &s);
    if (t && self) {
        t->has_handle = 1;
        t->handle = pthread_self();
    }
    bp_unlock_blocked(&mask);
}

void bp_register_main(void)
{
    register_tid(bp.pid, "main", "-", bp_gettid() == bp.pid);
}

/* A sample into t: CPUs seen, counters, and an allowed set that differs
 * from the last known one, which no interposed call made: "unknown". */
static void apply_locked(bp_thread *t, const bp_task_sample *s)
{
    bp_seen_add(t, s->cpu);
    t->samples++;
    if (s->migrations >= 0)
        t->mig_last = s->migrations;
    if (s->vcsw >= 0)
        t->vcsw = s->vcsw;
    if (s->ivcsw >= 0)
        t->ivcsw = s->ivcsw;
    if (s->allowed[0] && strcmp(s->allowed, t->last_cpus) != 0) {
        bp_emit("affinity t=%.6f tid=- target=%ld phase=%s call=unknown "
                "old=%s new=%s changed=1 ok=1 caller=- by=unknown",
                bp_now(), (long)t->tid, bp_phase_name(bp.phase), t->last_cpus,
                s->allowed);
        snprintf(t->last_cpus, sizeof t->last_cpus, "%s", s->allowed);
    }
}

/* The "thread_end" line of t, and its slot freed; counters -1 when the
 * thread was gone before its last read (a thread not made by
 * pthread_create, ended between samples). Locked. */
static void end_locked(bp_thread *t, int last_read)
{
    char seen[BP_CPUS_TEXT];
    long long mig = t->mig_start >= 0 && t->mig_last >= 0
                        ? t->mig_last - t->mig_start : -1;
    if (!last_read)
        mig = t->vcsw = t->ivcsw = -1;
    bp_mask_text(t->seen, sizeof t->seen, seen, sizeof seen);
    bp_emit("thread_end tid=%ld t=%.6f cpus=%s seen=%s samples=%lld "
            "migrations=%lld vcsw=%lld ivcsw=%lld",
            (long)t->tid, bp_now(), t->last_cpus, seen[0] ? seen : "-",
            t->samples, mig, t->vcsw, t->ivcsw);
    bp_task_forget(t);
    __atomic_store_n(&bp.slot_tid[t - bp.threads], 0, __ATOMIC_RELAXED);
}

/* A thread's own last sample (a live thread: its files are there), then
 * its end. From the thread-specific-data destructor: pthread_exit or a
 * return from the start routine, in the ending thread. */
static void end_thread(void *unused)
{
    bp_task_sample s;
    sigset_t mask;
    pid_t tid = bp_gettid();
    (void)unused;
    if (!bp.enabled) /* after the end, or in a forked child */
        return;
    int ok = bp_task_read(tid, &s, 1) == 0;
    bp_lock_blocked(&mask);
    bp_thread *t = bp_thread_by_tid(tid);
    if (t) {
        if (ok)
            apply_locked(t, &s);
        end_locked(t, ok);
    }
    bp_unlock_blocked(&mask);
}

static void *trampoline(void *p)
{
    start_args a = *(start_args *)p;
    int saved = errno; /* the start routine finds errno as the thread began */
    free(p);
    register_tid(bp_gettid(), a.label, a.object, 1);
    __atomic_sub_fetch(&bp.pending_creates, 1, __ATOMIC_SEQ_CST);
    pthread_setspecific(end_key, &end_key); /* any non-NULL value */
    errno = saved;
    return a.fn(a.arg);
}

/* A function's address for dladdr (ISO C has no cast to an object pointer). */
static const void *fn_address(void *(*fn)(void *))
{
    const void *p;
    memcpy(&p, &fn, sizeof p);
    return p;
}

__attribute__((visibility("default"))) int
pthread_create(pthread_t *thread, const pthread_attr_t *attr,
               void *(*fn)(void *), void *arg)
{
    start_args *a;
    int rc, saved = errno;
    if (!real_create) /* also when the probe is off: a launcher, a forked child */
        real_create = (create_fn)bp_next("pthread_create");
    bp_ensure();
    if (!real_create)
        return EAGAIN;
    if (!bp.enabled || !(a = malloc(sizeof *a)))
        return real_create(thread, attr, fn, arg);
    a->fn = fn;
    a->arg = arg;
    bp_object_of(fn_address(fn), a->object, sizeof a->object, a->label,
                 sizeof a->label);
    __atomic_add_fetch(&bp.pending_creates, 1, __ATOMIC_SEQ_CST);
    errno = saved;
    rc = real_create(thread, attr, trampoline, a);
    if (rc != 0) {
        saved = errno;
        __atomic_sub_fetch(&bp.pending_creates, 1, __ATOMIC_SEQ_CST);
        free(a);
        errno = saved;
    }
    return rc;
}

/* Threads in /proc/self/task that nobody registered: made by clone(2)
 * directly or by libc's internal thread creation. Skipped while a
 * pthread_create is between its call and the new thread's registration. */
static void find_unknown_threads(void)
{
    struct dirent *e;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return;
    while ((e = readdir(d))) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        bp_task_sample s;
        if (end == e->d_name || *end || tid == bp.sampler_tid)
            continue;
        if (__atomic_load_n(&bp.pending_creates, __ATOMIC_SEQ_CST) > 0)
            break;
        pthread_mutex_lock(&bp.lock);
        if (!bp_thread_by_tid((pid_t)tid) && bp_task_read((pid_t)tid, &s, 1) == 0)
            add_locked((pid_t)tid, "unknown", "-", &s);
        pthread_mutex_unlock(&bp.lock);
    }
    closedir(d);
}

/* Locks slot by slot without touching the signal mask: the sampler
 * blocks every signal for good, other callers block them around the call. */
void bp_sample_all(void)
{
    for (int i = 0; i < BP_MAX_THREADS; i++) {
        bp_task_sample s;
        if (!__atomic_load_n(&bp.slot_tid[i], __ATOMIC_RELAXED))
            continue; /* checked again under the lock */
        pthread_mutex_lock(&bp.lock);
        bp_thread *t = &bp.threads[i];
        if (bp.slot_tid[i]) {
            if (bp_task_sample_fast(t, &s) == 0)
                apply_locked(t, &s);
            else
                end_locked(t, 0); /* ended without its destructor (clone) */
        }
        pthread_mutex_unlock(&bp.lock);
    }
}

static void *sampler_main(void *unused)
{
    struct timespec next;
    struct rusage ru;
    (void)unused;
    bp.sampler_tid = bp_gettid();
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&stop_lock);
    while (!sampler_stop) {
        next.tv_nsec += (long)bp.period_ms * 1000000L;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        if (pthread_cond_timedwait(&stop_cond, &stop_lock, &next) != ETIMEDOUT)
            continue;
        pthread_mutex_unlock(&stop_lock);
        if (sampler_rounds++ % BP_RESCAN_ROUNDS == 0)
            find_unknown_threads();
        bp_sample_all();
        pthread_mutex_lock(&stop_lock);
    }
    pthread_mutex_unlock(&stop_lock);
    if (getrusage(RUSAGE_THREAD, &ru) == 0)
        sampler_cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                        (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    return NULL;
}

/* Started with every signal blocked, so that no signal of the program's
 * is ever handled on the probe's thread. */
int bp_sampler_start(void)
{
    sigset_t all, old;
    int rc;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (!real_create)
        real_create = (create_fn)bp_next("pthread_create");
    rc = real_create ? real_create(&sampler, NULL, sampler_main, NULL) : -1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    sampler_running = rc == 0;
    return rc == 0 ? 0 : -1;
}

void bp_threads_finish(void)
{
    if (sampler_running) {
        pthread_mutex_lock(&stop_lock);
        sampler_stop = 1;
        pthread_cond_signal(&stop_cond);
        pthread_mutex_unlock(&stop_lock);
        pthread_join(sampler, NULL);
        sampler_running = 0;
        bp_emit("sampler rounds=%lld cpu_s=%.6f per_round_us=%.2f",
                sampler_rounds, sampler_cpu_s,
                sampler_rounds ? sampler_cpu_s * 1e6 / (double)sampler_rounds
                               : 0.0);
    }
    pthread_mutex_lock(&bp.lock);
    for (int i = 0; i < BP_MAX_THREADS; i++) {
        bp_task_sample s;
        bp_thread *t = &bp.threads[i];
        if (!bp.slot_tid[i])
            continue;
        int ok = bp_task_read(t->tid, &s, 1) == 0;
        if (ok)
            apply_locked(t, &s);
        end_locked(t, ok);
    }
    pthread_mutex_unlock(&bp.lock);
}
