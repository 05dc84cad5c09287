/* Every affinity change the program asks for: sched_setaffinity and
 * pthread_setaffinity_np interposed, forwarded to the next definition
 * (libc's, or another preloaded library's), and recorded with the time,
 * the calling and the target thread, the MPI phase, the sets before and
 * after (read back from the kernel: it may narrow what was asked), and the
 * shared object that made the call (the return address, through dladdr).
 * The thread table stays locked across the call so that the sampler never
 * takes the change for one made behind the interposers; the caller's
 * object is found before (dladdr takes the loader's lock, which a library
 * constructor calling these functions holds: never take it under ours). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "probe_priv.h"

typedef int (*sched_set_fn)(pid_t, size_t, const cpu_set_t *);
typedef int (*pthread_set_fn)(pthread_t, size_t, const cpu_set_t *);

typedef struct change {
    const char *call;
    char caller[BP_PATH_TEXT], by[BP_LABEL_MAX];
    long tid;                          /* the target: -1 when not known */
    char old_cpus[BP_CPUS_TEXT], new_cpus[BP_CPUS_TEXT], asked[BP_CPUS_TEXT];
    int ok;
} change;

static void pthread_mask_text(pthread_t th, char *out, size_t len)
{
    unsigned char mask[BP_MASK_BYTES];
    if (pthread_getaffinity_np(th, sizeof mask, (cpu_set_t *)mask) != 0)
        snprintf(out, len, "-");
    else
        bp_mask_text(mask, sizeof mask, out, len);
}

/* The "affinity" line of c, and the target's last known set. Locked. */
static void record_locked(const change *c)
{
    bp_thread *t = c->tid > 0 ? bp_thread_by_tid((pid_t)c->tid) : NULL;
    bp_emit("affinity t=%.6f tid=%ld target=%ld phase=%s call=%s old=%s "
            "new=%s asked=%s changed=%d ok=%d caller=%s by=%s",
            bp_now(), (long)bp_gettid(), c->tid, bp_phase_name(bp.phase),
            c->call, c->old_cpus, c->new_cpus, c->asked[0] ? c->asked : "-",
            strcmp(c->old_cpus, c->new_cpus) != 0, c->ok, c->caller, c->by);
    if (t && strcmp(c->new_cpus, "-") != 0) {
        snprintf(t->last_cpus, sizeof t->last_cpus, "%s", c->new_cpus);
        t->mask_len = 0; /* the sampler compares its next read as text */
    }
}

/* A change begins: the caller's object (before the lock: see the top),
 * then the lock. */
static void change_open(change *c, const void *ret, sigset_t *mask)
{
    bp_object_of(ret, c->caller, sizeof c->caller, c->by, sizeof c->by);
    bp_lock_blocked(mask);
}

/* The call returned: the set asked, the record, the lock released, and
 * errno as the call left it. */
static void change_close(change *c, const cpu_set_t *set, size_t size,
                         const sigset_t *mask, int err)
{
    bp_mask_text((const unsigned char *)set, size, c->asked, sizeof c->asked);
    record_locked(c);
    bp_unlock_blocked(mask);
    errno = err;
}

/* The next definitions of the two calls (libc's, or another preloaded
 * library's), found once; and whether the probe records (it forwards
 * only when off: a launcher, a forked child, after the end). */
static struct {
    sched_set_fn sched;
    pthread_set_fn pthread;
} real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void find_real(void)
{
    real.sched = (sched_set_fn)bp_next("sched_setaffinity");
    real.pthread = (pthread_set_fn)bp_next("pthread_setaffinity_np");
}

static int recording(void)
{
    pthread_once(&real_once, find_real);
    bp_ensure();
    return bp.enabled;
}

__attribute__((visibility("default"))) int
sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
    const void *ret = __builtin_return_address(0);
    change c = {.call = "sched_setaffinity"};
    sigset_t mask;
    int rc, err, on = recording();
    if (!real.sched) {
        errno = ENOSYS;
        return -1;
    }
    if (!on)
        return real.sched(pid, size, set);
    c.tid = pid ? pid : bp_gettid();
    change_open(&c, ret, &mask);
    bp_get_mask_text((pid_t)c.tid, c.old_cpus, sizeof c.old_cpus);
    rc = real.sched(pid, size, set);
    err = errno;
    c.ok = rc == 0;
    bp_get_mask_text((pid_t)c.tid, c.new_cpus, sizeof c.new_cpus);
    change_close(&c, set, size, &mask, err);
    return rc;
}

__attribute__((visibility("default"))) int
pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set)
{
    const void *ret = __builtin_return_address(0);
    change c = {.call = "pthread_setaffinity_np"};
    sigset_t mask;
    int rc, err, on = recording();
    if (!real.pthread)
        return ENOSYS;
    if (!on)
        return real.pthread(thread, size, set);
    change_open(&c, ret, &mask);
    if (pthread_equal(thread, pthread_self())) {
        c.tid = bp_gettid();
    } else {
        bp_thread *t = bp_thread_by_handle(thread);
        c.tid = t ? t->tid : -1;
    }
    pthread_mask_text(thread, c.old_cpus, sizeof c.old_cpus);
    err = errno;
    rc = real.pthread(thread, size, set);
    c.ok = rc == 0;
    pthread_mask_text(thread, c.new_cpus, sizeof c.new_cpus);
    change_close(&c, set, size, &mask, err);
    return rc;
}
