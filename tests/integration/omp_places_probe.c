/* Test helper for test_omp_places_libgomp.sh: the same one-line answer from
 * the real OpenMP runtime and from bindlab's model, for comparison.
 *
 *   omp_places_probe run
 *       one parallel region under the environment's OMP_PLACES,
 *       OMP_PROC_BIND, OMP_NUM_THREADS; prints what libgomp did.
 *   omp_places_probe model [CPUS] < cases
 *       one case per stdin line, "PLACES<TAB>BIND<TAB>T" ("-" = unset);
 *       prints what bl_omp_assign() says for a rank bound to CPUS (default:
 *       this process's binding).
 *
 * Output line: "places=LIST;LIST;... threads=TID:PLACE:LIST ..." where the
 * places are the runtime's place list (empty when threads are unbound) and
 * each thread shows its place number and the CPUs it may run on. */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "cpuset.h"
#include "plan/plan_omp.h"

#define MAX_THREADS 64
#define LINE 8192

static void addf(char *line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void addf(char *line, const char *fmt, ...)
{
    size_t n = strlen(line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, LINE - n, fmt, ap);
    va_end(ap);
}

static int run_real(void)
{
    static char pus[MAX_THREADS][256];
    static int place[MAX_THREADS];
    int nthreads = 0;
    char line[LINE] = "places=";

#pragma omp parallel
    {
        int t = omp_get_thread_num();
        cpu_set_t set;
        hwloc_bitmap_t b = hwloc_bitmap_alloc();
        CPU_ZERO(&set);
        sched_getaffinity(0, sizeof set, &set);
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                hwloc_bitmap_set(b, (unsigned)c);
        if (t < MAX_THREADS) {
            bl_cpuset_format_list(b, pus[t], sizeof pus[t]);
            place[t] = omp_get_place_num();
        }
        hwloc_bitmap_free(b);
#pragma omp single
        nthreads = omp_get_num_threads();
    }
    /* Asked after the region: libgomp builds its default places lazily. */
    for (int p = 0; p < omp_get_num_places() && place[0] >= 0; p++) {
        int ids[1024], n = omp_get_place_num_procs(p);
        char buf[256];
        hwloc_bitmap_t b = hwloc_bitmap_alloc();
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < n && i < 1024; i++)
            hwloc_bitmap_set(b, (unsigned)ids[i]);
        bl_cpuset_format_list(b, buf, sizeof buf);
        addf(line, "%s%s", p ? ";" : "", buf);
        hwloc_bitmap_free(b);
    }
    strcat(line, " threads=");
    for (int t = 0; t < nthreads && t < MAX_THREADS; t++) {
        addf(line, "%s%d:%d:%s", t ? " " : "", t, place[t], pus[t]);
    }
    puts(line);
    return 0;
}

static const char *unset_dash(const char *s)
{
    return strcmp(s, "-") == 0 ? NULL : s;
}

static int model_case(hwloc_topology_t topo, hwloc_const_bitmap_t cpus,
                      const char *places, const char *bind, int nthreads)
{
    bl_plan plan;
    bl_err err;
    char line[LINE] = "places=";
    memset(&plan, 0, sizeof plan);
    if (bl_omp_assign(topo, 0, cpus, places, bind, nthreads, &plan, &err) < 0) {
        printf("error: %s\n", err.msg);
        return 0;
    }
    if (plan.threads[0].place >= 0) {
        /* bound: the places libgomp uses, the default when OMP_PLACES
         * names none of our CPUs */
        hwloc_bitmap_t *pl;
        int np;
        if (bl_omp_places(topo, cpus, places, &pl, &np, &err) < 0)
            return fprintf(stderr, "omp_places_probe: %s\n", err.msg), 1;
        if (np == 0 && bl_omp_places(topo, cpus, NULL, &pl, &np, &err) < 0)
            return fprintf(stderr, "omp_places_probe: %s\n", err.msg), 1;
        for (int p = 0; p < np; p++) {
            char buf[256];
            bl_cpuset_format_list(pl[p], buf, sizeof buf);
            addf(line, "%s%s", p ? ";" : "", buf);
        }
        bl_omp_places_free(pl, np);
    }
    strcat(line, " threads=");
    for (size_t t = 0; t < plan.nthreads; t++) {
        char buf[256];
        bl_cpuset_format_list(plan.threads[t].pus, buf, sizeof buf);
        addf(line, "%s%d:%d:%s", t ? " " : "", plan.threads[t].thread,
             plan.threads[t].place, buf);
    }
    puts(line);
    bl_plan_free(&plan);
    return 0;
}

static int run_model(const char *cpulist)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    char in[1024];
    bl_err err;
    int rc = 0;
    hwloc_topology_init(&topo);
    hwloc_topology_load(topo);
    if (cpulist ? bl_cpuset_parse_list(cpulist, cpus, &err) < 0
                : hwloc_get_cpubind(topo, cpus, HWLOC_CPUBIND_PROCESS) < 0) {
        fprintf(stderr, "omp_places_probe: no cpuset: %s\n", cpulist ? err.msg : "hwloc");
        rc = 1;
    }
    while (rc == 0 && fgets(in, sizeof in, stdin)) {
        char *places = strtok(in, "\t\n"), *bind = strtok(NULL, "\t\n");
        char *t = strtok(NULL, "\t\n");
        if (!places || !bind || !t) {
            fprintf(stderr, "omp_places_probe: bad case line\n");
            rc = 1;
            break;
        }
        rc = model_case(topo, cpus, unset_dash(places), unset_dash(bind), atoi(t));
    }
    hwloc_bitmap_free(cpus);
    hwloc_topology_destroy(topo);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "run") == 0)
        return run_real();
    if (argc >= 2 && strcmp(argv[1], "model") == 0)
        return run_model(argc > 2 ? argv[2] : NULL);
    fprintf(stderr, "usage: omp_places_probe run | model [CPUS] < cases\n");
    return 2;
}
