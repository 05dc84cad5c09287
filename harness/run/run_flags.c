/* bindlab run: the flags only the probe can give (run.h), each with one
 * note per finding naming the rank, thread, caller and time. */
#include "run/run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "grow.h"

/* Per-thread notes of one kind shown before "and N more". */
#define BL_RUN_NOTES_MAX 32

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

static int change_in(const bl_h5_affinity *a, const char *phase)
{
    return a->changed && strcmp(a->phase, phase) == 0;
}

static int same_thread(const bl_h5_affinity *a, const bl_h5_affinity *b)
{
    return a->rank == b->rank && a->target == b->target;
}

/* Changes made in one phase, thread by thread (the rows are in time
 * order within a rank): "after-init", once MPI_Init had returned, or
 * "before-init", the OpenMP runtime binding the initial thread before
 * main (libgomp does so in its constructor under OMP_PROC_BIND) or a
 * program without MPI. Changes up to the last one that puts the thread
 * back on the set it had before the first are not drift: libraries
 * detecting the CPUs (hwloc, GROMACS) bind the calling thread to each
 * CPU in turn and restore it; one note says so. The changes after that
 * leave the thread elsewhere: drift, each named. */
static int drift(const bl_h5_run *r, const char *phase, bl_run_outcome *out)
{
    int n = 0;
    for (size_t i = 0; i < r->naffinity; i++) {
        const bl_h5_affinity *a = &r->affinity[i], *back = NULL;
        size_t count = 0, undone = 0, j;
        if (!change_in(a, phase))
            continue;
        for (j = 0; j < i; j++) /* the thread's first change only */
            if (change_in(&r->affinity[j], phase) &&
                same_thread(&r->affinity[j], a))
                break;
        if (j < i)
            continue;
        for (j = i; j < r->naffinity; j++) {
            if (!change_in(&r->affinity[j], phase) ||
                !same_thread(&r->affinity[j], a))
                continue;
            count++;
            if (strcmp(r->affinity[j].new_cpus, a->old_cpus) == 0) {
                back = &r->affinity[j];
                undone = count;
            }
        }
        if (back)
            note(out, "affinity-restored: rank %d tid %lld: %zu changes "
                 "%s from t=%.3f to %.3f s, back on %s (first by "
                 "%s, last by %s)", a->rank, (long long)a->target, undone,
                 strcmp(phase, "after-init") ? "before init" : "after init",
                 a->t, back->t, a->old_cpus, a->caller, back->caller);
        for (j = back ? (size_t)(back - r->affinity) + 1 : i;
             j < r->naffinity; j++)
            if (change_in(&r->affinity[j], phase) &&
                same_thread(&r->affinity[j], a)) {
                const bl_h5_affinity *c = &r->affinity[j];
                note(out, "drift-%s: rank %d tid %lld: %s -> %s at "
                     "t=%.3f s by %s (%s)", phase, c->rank,
                     (long long)c->target, c->old_cpus, c->new_cpus, c->t,
                     c->caller, c->call);
                n++;
            }
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

int bl_run_busy_thread(const bl_h5_run *r, size_t i)
{
    const char *l = i < r->nthread_rows ? r->thread_rows[i].label : "";
    return !strcmp(l, "main") || !strcmp(l, "openmp") ||
           !strcmp(l, "program") || !strcmp(l, "blas");
}

/* Placement rows by host, then the one PU they ran on. */
static const bl_h5_placement *sort_rows;
static int by_host_pu(const void *a, const void *b)
{
    const bl_h5_placement *x = &sort_rows[*(const size_t *)a];
    const bl_h5_placement *y = &sort_rows[*(const size_t *)b];
    int c = strcmp(x->host, y->host);
    return c ? c : (x->cpu_last > y->cpu_last) - (x->cpu_last < y->cpu_last);
}

/* pu-shared, one note per PU (a program may have thousands of threads):
 * the compute threads seen on that PU only, sorted by host and PU. */
static void pu_shared_notes(const bl_h5_run *r, bl_run_outcome *out)
{
    size_t *idx = malloc((r->nplacement + 1) * sizeof *idx), n = 0;
    for (size_t i = 0; idx && i < r->nplacement; i++) {
        const bl_h5_placement *p = &r->placement[i];
        if (bl_run_busy_thread(r, i) && p->cpu_last >= 0 &&
            p->cpu_first == p->cpu_last)
            idx[n++] = i;
    }
    sort_rows = r->placement;
    if (n)
        qsort(idx, n, sizeof *idx, by_host_pu);
    for (size_t i = 0, j; i < n; i = j) {
        char who[200] = "";
        size_t used = 0;
        for (j = i; j < n && by_host_pu(&idx[i], &idx[j]) == 0; j++)
            if (j - i < 8 && used < sizeof who)
                used += (size_t)snprintf(who + used, sizeof who - used,
                                         "%s%d.%d", j > i ? ", " : "",
                                         r->placement[idx[j]].rank,
                                         r->placement[idx[j]].thread);
        if (j - i < 2)
            continue;
        const bl_h5_placement *a = &r->placement[idx[i]];
        if (j - i > 8)
            note(out, "pu-shared: %s and %zu more ran only on CPU %d of %s",
                 who, j - i - 8, a->cpu_last, a->host);
        else
            note(out, "pu-shared: %s ran only on CPU %d of %s", who,
                 a->cpu_last, a->host);
    }
    free(idx);
}

/* What the cross-check's flags found, thread by thread (it gives the
 * flags only): compute threads on one PU, migrations, remote pages. */
static void details(const bl_h5_run *r, const char *flags,
                    bl_run_outcome *out)
{
    if (strstr(flags, "pu-shared"))
        pu_shared_notes(r, out);
    size_t moved = 0;
    for (size_t i = 0; strstr(flags, "migrated") && i < r->nplacement; i++)
        if (r->placement[i].migrations > 0 && moved++ < BL_RUN_NOTES_MAX)
            note(out, "migrated: %d.%d (%s) moved %lld times",
                 r->placement[i].rank, r->placement[i].thread,
                 i < r->nthread_rows ? r->thread_rows[i].label : "-",
                 (long long)r->placement[i].migrations);
    if (moved > BL_RUN_NOTES_MAX)
        note(out, "migrated: and %zu more threads", moved - BL_RUN_NOTES_MAX);
    for (size_t i = 0; strstr(flags, "remote-pages") && i < r->nrank_rows; i++)
        if (r->rank_rows[i].pages_local < r->rank_rows[i].pages_total)
            note(out, "remote-pages: rank %d: %lld of %lld pages on NUMA "
                 "nodes its set does not touch", r->rank_rows[i].rank,
                 (long long)(r->rank_rows[i].pages_total -
                             r->rank_rows[i].pages_local),
                 (long long)r->rank_rows[i].pages_total);
}

/* Removes flag from the comma-separated flags, when it is there. */
static void drop_flag(char *flags, const char *flag)
{
    size_t n = strlen(flag);
    for (char *p = flags; (p = strstr(p, flag)) != NULL; p++)
        if ((p == flags || p[-1] == ',') && (p[n] == ',' || !p[n])) {
            if (p[n] == ',')
                n++;
            else if (p > flags)
                p--, n++; /* the last one: its comma before it */
            memmove(p, p + n, strlen(p + n) + 1);
            return;
        }
}

static int has_label(const bl_h5_run *r, const char *label)
{
    for (size_t i = 0; i < r->nthread_rows; i++)
        if (strcmp(r->thread_rows[i].label, label) == 0)
            return 1;
    return 0;
}

void bl_run_flags(const bl_h5_run *r, char *flags, size_t len,
                  bl_run_outcome *out)
{
    /* unbound OpenMP threads need OpenMP threads */
    if (!has_label(r, "openmp"))
        drop_flag(flags, "omp-unbound");
    details(r, flags, out);
    if (r->nprocesses == 0) {
        /* files there but unreadable are not "no file" (bl_run_collect) */
        const char *why = out->h.reason ? strstr(out->h.reason, "probe files: ")
                                        : NULL;
        add_flag(flags, len, "not-probed");
        if (why)
            note(out, "not-probed: the probe's files could not be read (%s)",
                 why + strlen("probe files: "));
        else
            note(out, "not-probed: no process wrote a probe file (a setuid "
                 "program, LD_PRELOAD removed on the way, or none started)");
    }
    if (drift(r, "before-init", out))
        add_flag(flags, len, "drift-before-init");
    if (drift(r, "after-init", out))
        add_flag(flags, len, "drift-after-init");
    if (outside(r, out))
        add_flag(flags, len, "thread-outside-rank");
    for (size_t i = 0; i < r->nprocesses; i++) {
        const bl_h5_process *p = &r->processes[i];
        if (!p->omp_runtimes_other || !p->omp_runtimes_other[0])
            continue;
        add_flag(flags, len, "two-omp-runtimes");
        note(out, "two-omp-runtimes: rank %d (pid %lld): %s serves it, also "
             "loaded: %s (docs/openmp-runtimes.md)", p->rank,
             (long long)p->pid, p->omp_runtime ? p->omp_runtime : "-",
             p->omp_runtimes_other);
    }
    for (size_t i = 0; i < r->nfindings; i++) { /* run_gpus.c's */
        const bl_h5_finding *f = &r->findings[i];
        if (strcmp(f->id, "gpu-shared") && strcmp(f->id, "gpu-not-local"))
            continue;
        add_flag(flags, len, f->id);
        note(out, "%s: rank %d (%s): %s", f->id, f->rank, f->host, f->text);
    }
    for (size_t i = 0; i < r->nprocesses; i++)
        if (!r->processes[i].complete)
            note(out, "incomplete: rank %d (pid %lld) left no end line "
                 "(killed, a signal, _exit, or an exec into a program the "
                 "probe cannot enter)", r->processes[i].rank,
                 (long long)r->processes[i].pid);
}
