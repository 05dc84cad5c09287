/* Test helper: prints what the probe files of one run say (read with
 * bl_probe_dir_read, so in rank order), one record per line, fields
 * separated by tabs, "-" for what is not there, for the integration
 * scripts to assert on with awk:
 *   process RANK SIZE RANK_FROM HOST PID COMPLETE START INIT FINALIZE PAGES
 *       (PAGES: node:pages,... of the last moment recorded, "-" none)
 *   thread RANK TID LABEL START_CPUS END_CPUS SEEN MIGRATIONS
 *   affinity RANK TID TARGET PHASE CALL CALLER OLD NEW CHANGED
 *   probe_dump DIR */
#include <stdio.h>
#include <string.h>

#include "results/probe_file.h"

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

/* The pages of the last "at" recorded (finalize, else exit). */
static void print_pages(const bl_probe_file *f)
{
    const char *at = f->npages ? f->pages[f->npages - 1].at : NULL;
    int first = 1;
    for (size_t i = 0; i < f->npages; i++) {
        if (!at || strcmp(f->pages[i].at, at) != 0)
            continue;
        printf("%s%ld:%lld", first ? "" : ",", f->pages[i].node, f->pages[i].pages);
        first = 0;
    }
    printf("%s\n", first ? "-" : "");
}

static void print_file(const bl_probe_file *f)
{
    printf("process\t%ld\t%ld\t%s\t%s\t%ld\t%d\t%s\t%s\t%s\t", f->rank, f->size,
           or_dash(f->rank_from), or_dash(f->host), f->pid, f->complete,
           or_dash(f->cpus[BL_PROBE_START]), or_dash(f->cpus[BL_PROBE_INIT]),
           or_dash(f->cpus[BL_PROBE_FINALIZE]));
    print_pages(f);
    if (f->pstart > 0) /* the exec chain, on a line of its own */
        printf("image\t%ld\t%s\t%ld\t%lld\t%s\t%d\t%d\n", f->rank,
               or_dash(f->host), f->pid, f->pstart, or_dash(f->exe),
               f->execed, f->earlier_image);
    for (size_t i = 0; i < f->nthreads; i++) {
        const bl_probe_thread *t = &f->threads[i];
        printf("thread\t%ld\t%ld\t%s\t%s\t%s\t%s\t%lld\n", f->rank, t->tid,
               or_dash(t->label), or_dash(t->start_cpus), or_dash(t->end_cpus),
               or_dash(t->seen_cpus), t->migrations);
    }
    for (size_t i = 0; i < f->nchanges; i++) {
        const bl_probe_change *c = &f->changes[i];
        printf("affinity\t%ld\t%ld\t%ld\t%s\t%s\t%s\t%s\t%s\t%d\n", f->rank, c->tid,
               c->target, or_dash(c->phase), or_dash(c->call), or_dash(c->caller),
               or_dash(c->old_cpus), or_dash(c->new_cpus), c->changed);
    }
}

int main(int argc, char **argv)
{
    bl_probe_set set;
    bl_err err;
    if (argc != 2) {
        fprintf(stderr, "usage: probe_dump DIR\n");
        return 2;
    }
    if (bl_probe_dir_read(argv[1], &set, &err) < 0) {
        fprintf(stderr, "probe_dump: %s\n", err.msg);
        bl_probe_set_free(&set);
        return 1;
    }
    for (size_t i = 0; i < set.n; i++)
        print_file(&set.files[i]);
    bl_probe_set_free(&set);
    return 0;
}
