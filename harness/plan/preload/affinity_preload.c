/* libbindlab_preload.so: an LD_PRELOAD library for `bindlab plan`. It lets
 * mpirun bind ranks on a node it is not running on (a topology given by
 * HWLOC_XMLFILE + HWLOC_THISSYSTEM=1): every affinity change is recorded
 * instead of applied, and every affinity query answers with what was
 * recorded. Open MPI 4 prints in --report-bindings what it reads back after
 * binding, so the query must return the recorded mask, not the real one
 * (the real machine may not even have those CPUs).
 *
 * hwloc 2.x binds with sched_setaffinity (this process or thread, by tid)
 * and pthread_setaffinity_np (other threads), and reads with the matching
 * get calls; those four are covered. Masks are kept per thread: by kernel
 * thread id for the sched_* calls (0 = the caller), by pthread_t for the
 * pthread_* calls, with pthread_self() counted as the caller's tid.
 *
 * A thread nothing was recorded for is answered with BINDLAB_PRELOAD_CPUS
 * when set (a list such as "0-383": all PUs of the foreign node, so that
 * mpirun sees itself unbound there, as it would be), else with its real
 * mask.
 *
 * Not built with sanitizers: it is preloaded into mpirun and its daemons,
 * which are not instrumented. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BL_PRELOAD_SLOTS 256
#define BL_PRELOAD_MASK_BYTES 1024  /* 8192 CPUs */

typedef struct slot {
    int used;
    int by_pthread;          /* key is a pthread_t, not a tid */
    uintptr_t key;
    size_t size;
    unsigned char mask[BL_PRELOAD_MASK_BYTES];
} slot;

static slot slots[BL_PRELOAD_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static pid_t caller_tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* The slot for key (creating it when create), or NULL. Call locked. */
static slot *find(int by_pthread, uintptr_t key, int create)
{
    slot *free_slot = NULL;
    for (int i = 0; i < BL_PRELOAD_SLOTS; i++) {
        if (slots[i].used && slots[i].by_pthread == by_pthread &&
            slots[i].key == key)
            return &slots[i];
        if (!slots[i].used && !free_slot)
            free_slot = &slots[i];
    }
    if (!create || !free_slot)
        return NULL;
    free_slot->used = 1;
    free_slot->by_pthread = by_pthread;
    free_slot->key = key;
    free_slot->size = 0;
    return free_slot;
}

static int record(int by_pthread, uintptr_t key, size_t size,
                  const cpu_set_t *set)
{
    slot *s;
    if (size == 0 || size > BL_PRELOAD_MASK_BYTES)
        return EINVAL;
    pthread_mutex_lock(&lock);
    if (!(s = find(by_pthread, key, 1))) {
        pthread_mutex_unlock(&lock);
        return ENOMEM;
    }
    memcpy(s->mask, set, size);
    s->size = size;
    pthread_mutex_unlock(&lock);
    return 0;
}

/* 1 and the recorded mask in set (cut or zero-filled to size), 0 when
 * nothing was recorded for key. */
static int recall(int by_pthread, uintptr_t key, size_t size, cpu_set_t *set)
{
    slot *s;
    int found = 0;
    pthread_mutex_lock(&lock);
    if ((s = find(by_pthread, key, 0)) && s->size) {
        size_t n = s->size < size ? s->size : size;
        memset(set, 0, size);
        memcpy(set, s->mask, n);
        found = 1;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

/* BINDLAB_PRELOAD_CPUS ("0-3,8") into set; 0 when unset or unreadable
 * (then the real mask is used). No allocation: this runs inside mpirun
 * at any time. */
static int default_mask(size_t size, cpu_set_t *set)
{
    const char *p = getenv("BINDLAB_PRELOAD_CPUS");
    if (!p || !*p)
        return 0;
    memset(set, 0, size);
    while (*p) {
        char *end;
        unsigned long lo = strtoul(p, &end, 10), hi = lo;
        if (end == p)
            return 0;
        p = end;
        if (*p == '-') {
            hi = strtoul(p + 1, &end, 10);
            if (end == p + 1 || hi < lo)
                return 0;
            p = end;
        }
        for (unsigned long c = lo; c <= hi && c < 8 * size; c++)
            CPU_SET_S(c, size, set);
        if (*p == ',')
            p++;
        else if (*p)
            return 0;
    }
    return 1;
}

/* What a thread nothing was recorded for gets: the foreign node's PUs, or
 * the real mask. */
static long real_getaffinity(pid_t tid, size_t size, cpu_set_t *set)
{
    long n;
    if (default_mask(size, set))
        return 0;
    n = syscall(SYS_sched_getaffinity, tid, size, set);
    if (n < 0)
        return -1;
    /* The system call fills only the kernel's mask size; glibc zeroes
     * the rest, and so do we. */
    if ((size_t)n < size)
        memset((char *)set + n, 0, size - (size_t)n);
    return 0;
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
    int rc = record(0, (uintptr_t)(pid ? pid : caller_tid()), size, set);
    if (rc) {
        errno = rc;
        return -1;
    }
    return 0;
}

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
    pid_t tid = pid ? pid : caller_tid();
    if (size == 0) {
        errno = EINVAL;
        return -1;
    }
    if (recall(0, (uintptr_t)tid, size, set))
        return 0;
    return (int)real_getaffinity(tid, size, set);
}

int pthread_setaffinity_np(pthread_t thread, size_t size,
                           const cpu_set_t *set)
{
    if (pthread_equal(thread, pthread_self()))
        return record(0, (uintptr_t)caller_tid(), size, set);
    return record(1, (uintptr_t)thread, size, set);
}

int pthread_getaffinity_np(pthread_t thread, size_t size, cpu_set_t *set)
{
    int self = pthread_equal(thread, pthread_self());
    if (size == 0)
        return EINVAL;
    if (self ? recall(0, (uintptr_t)caller_tid(), size, set)
             : recall(1, (uintptr_t)thread, size, set))
        return 0;
    /* Another thread without a record: its tid is not reachable from a
     * pthread_t, so answer with the caller's mask, which it inherited. */
    return real_getaffinity(0, size, set) < 0 ? errno : 0;
}
