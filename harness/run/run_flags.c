/* bindlab run: the flags only the probe can give (run.h), each with one
 * note per finding naming the rank, thread, caller and time. */
#include "run/run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "grow.h"

static void add_flag(char *flags, size_t len, const char *flag)
{
    size_t used = strlen(flags);
    if (strstr(flags, flag))
        return;
    snprintf(flags + used, len - used, "%s%s", used ? "," : "", flag);
}

static void note(bl_run_outcome *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(bl_run_outcome *out, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (bl_grow(&out->notes, sizeof *out->notes, out->nnotes,
                &out->notes_cap, 8) == 0 &&
        (out->notes[out->nnotes] = strdup(line)))
        out->nnotes++;
}

/* Changes that took effect once MPI_Init had returned. */
static int drift(const bl_h5_run *r, bl_run_outcome *out)
{
    int n = 0;
    for (size_t i = 0; i < r->naffinity; i++) {
        const bl_h5_affinity *a = &r->affinity[i];
        if (!a->changed || strcmp(a->phase, "after-init") != 0)
            continue;
        note(out, "drift-after-init: rank %d tid %lld: %s -> %s at "
             "t=%.3f s by %s (%s)", a->rank, (long long)a->target,
             a->old_cpus, a->new_cpus, a->t, a->caller, a->call);
        n++;
    }
    return n;
}

/* Threads allowed CPUs their rank was not given. */
static int outside(const bl_h5_run *r, bl_run_outcome *out)
{
    hwloc_bitmap_t rank = hwloc_bitmap_alloc(), mine = hwloc_bitmap_alloc();
    int n = 0;
    for (size_t i = 0; rank && mine && i < r->nplacement; i++) {
        const bl_h5_placement *p = &r->placement[i];
        if (bl_cpuset_parse_list(p->rank_cpuset, rank, NULL) < 0 ||
            bl_cpuset_parse_list(p->cpuset, mine, NULL) < 0 ||
            hwloc_bitmap_iszero(rank) || hwloc_bitmap_isincluded(mine, rank))
            continue;
        note(out, "thread-outside-rank: rank %d thread %d allowed %s, its "
             "rank was given %s", p->rank, p->thread, p->cpuset,
             p->rank_cpuset);
        n++;
    }
    hwloc_bitmap_free(rank);
    hwloc_bitmap_free(mine);
    return n;
}

void bl_run_flags(const bl_h5_run *r, char *flags, size_t len,
                  bl_run_outcome *out)
{
    if (drift(r, out))
        add_flag(flags, len, "drift-after-init");
    if (outside(r, out))
        add_flag(flags, len, "thread-outside-rank");
    for (size_t i = 0; i < r->nprocesses; i++)
        if (!r->processes[i].complete)
            note(out, "incomplete: rank %d (pid %lld) left no end line "
                 "(killed, a signal, or _exit)", r->processes[i].rank,
                 (long long)r->processes[i].pid);
}
