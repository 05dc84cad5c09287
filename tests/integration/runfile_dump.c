/* Test helper: prints what a run file (or run RUN_ID of a sweep file)
 * says, one fact per line, for the integration scripts to compare with
 * what the launcher printed.
 *   ranks N / threads T / verified 0|1 / local_page_fraction F / status S
 *   rank R cpus LIST          (the rank's binding as the rank saw it)
 *   gpus R seen BUSES far BUSES (the GPUs it could see; "-" none)
 *   finding R SEVERITY ID TEXT (the findings table)
 *   thread R.T cpus LIST cpu C (each thread's binding and last CPU)
 *   migrations R.T M           (each thread's se.nr_migrations, -1 unknown)
 *   counter NAME available A   (thread 0 of rank 0)
 *   counter_value NAME V event E   (same counter: value, source "-" if none)
 *   counter_note NAME NOTE     (same counter, when it has a note) */
#include <stdio.h>
#include <string.h>

#include "h5/h5schema.h"

int main(int argc, char **argv)
{
    bl_h5_machine m;
    bl_h5_run r;
    bl_err err;
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: runfile_dump FILE.h5 [RUN_ID]\n");
        return 2;
    }
    memset(&m, 0, sizeof m);
    if (argc == 3) {            /* a sweep file's run: no machine record */
        char group[96];
        hid_t f = bl_h5_open_read(argv[1], &err);
        snprintf(group, sizeof group, "/runs/%.80s", argv[2]);
        if (f < 0 || bl_h5_read_run(f, group, &r, &err) < 0) {
            fprintf(stderr, "runfile_dump: %s\n", err.msg);
            return 1;
        }
        H5Fclose(f);
    } else if (bl_h5_read_run_file(argv[1], &m, &r, &err) < 0) {
        fprintf(stderr, "runfile_dump: %s\n", err.msg);
        return 1;
    }
    printf("ranks %d\nthreads %d\nverified %d\nstatus %s\n", r.ranks,
           r.threads, r.result.verified, r.status);
    printf("local_page_fraction %.6f\n", r.result.local_page_fraction);
    printf("timings %d\n", r.iterations);
    printf("topology_xml_bytes %zu\n", m.topology_xml ? strlen(m.topology_xml) : 0);
    for (size_t i = 0; i < r.nplacement; i++)
        if (r.placement[i].thread == 0)
            printf("rank %d cpus %s\n", r.placement[i].rank,
                   r.placement[i].rank_cpuset);
    for (size_t i = 0; i < r.nrank_rows; i++)
        printf("gpus %d seen %s far %s\n", r.rank_rows[i].rank,
               r.rank_rows[i].gpus && *r.rank_rows[i].gpus
                   ? r.rank_rows[i].gpus : "-",
               r.rank_rows[i].gpus_far && *r.rank_rows[i].gpus_far
                   ? r.rank_rows[i].gpus_far : "-");
    for (size_t i = 0; i < r.nfindings; i++)
        printf("finding %d %s %s %s\n", r.findings[i].rank,
               r.findings[i].severity, r.findings[i].id, r.findings[i].text);
    for (size_t i = 0; i < r.nplacement; i++)
        printf("thread %d.%d cpus %s cpu %d\n", r.placement[i].rank,
               r.placement[i].thread, r.placement[i].cpuset,
               r.placement[i].cpu_last);
    for (size_t i = 0; i < r.nplacement; i++)
        printf("migrations %d.%d %lld\n", r.placement[i].rank,
               r.placement[i].thread, (long long)r.placement[i].migrations);
    for (size_t i = 0; i < r.ncounters; i++) {
        const bl_h5_counter *c = &r.counters[i];
        if (c->rank != 0 || c->thread != 0)
            continue;
        printf("counter %s available %d\n", c->name, c->available);
        printf("counter_value %s %lld event %s\n", c->name,
               (long long)c->value, c->event && *c->event ? c->event : "-");
        if (c->note && *c->note)
            printf("counter_note %s %s\n", c->name, c->note);
    }
    bl_h5_run_free(&r);
    bl_h5_machine_free(&m);
    return 0;
}
