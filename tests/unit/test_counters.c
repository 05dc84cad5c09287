/* The counters module against events the test causes itself and against
 * what the kernel says through other doors: first-touched pages against
 * page_faults and getrusage's fault counts, sleeps against
 * context_switches, sched_setaffinity moves against cpu_migrations and
 * the scheduler's se.nr_migrations, and every quantity's availability
 * against a perf_event_open probe written apart from the module. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bl_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "measure/counters.h"
#include "kernel_perf_probe.h"

/* Hand-written: the quantities in the order the run file stores them. */
static const char *const expected_names[BL_NCOUNTERS] = {
    "cycles", "instructions", "llc_misses",
    "cpu_migrations", "page_faults", "context_switches"};

static const bl_counter *find(const bl_counter c[BL_NCOUNTERS],
                              const char *name)
{
    for (int i = 0; i < BL_NCOUNTERS; i++)
        if (strcmp(c[i].name, name) == 0)
            return &c[i];
    fail_msg("no counter named %s", name);
    return NULL;
}

static int offered(const char *name)
{
    const probe_event *e = probe_find(name);
    assert_non_null(e);
    return probe_kernel_offers(e);
}

/* An unavailable counter says why, with the kernel's part in it. */
static void assert_unavailable_with_reason(const bl_counter *c)
{
    assert_int_equal(c->available, 0);
    assert_string_equal(c->event, "");
    if (!strstr(c->note, "kernel:"))
        fail_msg("%s: note '%s' does not give the kernel's reason", c->name,
                 c->note);
}

static long long thread_faults(void)
{
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
    return (long long)(ru.ru_minflt + ru.ru_majflt);
}

static long long thread_switches(void)
{
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
    return (long long)(ru.ru_nvcsw + ru.ru_nivcsw);
}

/* Fresh private pages, one fault each: no huge pages to merge them. */
static char *fresh_pages(size_t npages, size_t page)
{
    char *p = mmap(NULL, npages * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    madvise(p, npages * page, MADV_NOHUGEPAGE);
    return p;
}

static void touch(char *p, size_t npages, size_t page)
{
    for (size_t i = 0; i < npages; i++)
        ((volatile char *)p)[i * page] = 1;
}

static void every_quantity_has_its_name_source_or_reason(void **state)
{
    bl_counter c[BL_NCOUNTERS];
    (void)state;
    bl_counters_stop(bl_counters_start(), c);
    for (int i = 0; i < BL_NCOUNTERS; i++) {
        const probe_event *e = probe_find(expected_names[i]);
        int kernel = probe_kernel_offers(e);
        assert_string_equal(c[i].name, expected_names[i]);
        printf("%-16s kernel offers %s: %d; recorded available=%d event='%s' "
               "note='%s'\n", c[i].name, e->name, kernel, c[i].available,
               c[i].event, c[i].note);
        if (c[i].available) {
            assert_true(strncmp(c[i].event, "papi:", 5) == 0 ||
                        strncmp(c[i].event, "perf_event_open:", 16) == 0);
            assert_true(c[i].value >= 0);
        }
        if (e->type == PERF_TYPE_SOFTWARE) {
            /* Software events come from the kernel whenever it has them. */
            assert_int_equal(c[i].available, kernel);
            if (kernel)
                assert_true(strncmp(c[i].event, "perf_event_open:", 16) == 0);
            else
                assert_unavailable_with_reason(&c[i]);
        } else if (kernel) {
            assert_int_equal(c[i].available, 1);
        } else if (!c[i].available) {
            assert_unavailable_with_reason(&c[i]);
        } else {
            /* Only PAPI may know a raw event the kernel's generic table
             * lacks. */
            assert_true(strncmp(c[i].event, "papi:", 5) == 0);
        }
    }
}

enum { FAULT_PAGES = 300, FAULT_SLACK = 64 };

static void page_faults_count_the_pages_first_touched(void **state)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *p = fresh_pages(FAULT_PAGES, page);
    bl_counter c[BL_NCOUNTERS];
    const bl_counter *pf;
    long long before, after;
    (void)state;

    before = thread_faults();
    bl_counters_thread *t = bl_counters_start();
    touch(p, FAULT_PAGES, page);
    bl_counters_stop(t, c);
    after = thread_faults();
    munmap(p, FAULT_PAGES * page);

    pf = find(c, "page_faults");
    if (!offered("page_faults")) {
        assert_unavailable_with_reason(pf);
        return;
    }
    printf("touched %d pages: page_faults %lld, getrusage faults %lld\n",
           FAULT_PAGES, pf->value, after - before);
    assert_int_equal(pf->available, 1);
    assert_true(pf->value >= FAULT_PAGES);
    assert_true(pf->value <= FAULT_PAGES + FAULT_SLACK);
    /* getrusage also sees the faults of starting and stopping. */
    assert_true(after - before >= FAULT_PAGES);
    assert_true(pf->value <= after - before + 8);
}

static void *touch_elsewhere(void *arg)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    touch(arg, FAULT_PAGES, page);
    return NULL;
}

static void page_faults_of_another_thread_are_not_counted(void **state)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *p = fresh_pages(FAULT_PAGES, page);
    bl_counter c[BL_NCOUNTERS];
    pthread_t other;
    const bl_counter *pf;
    (void)state;

    bl_counters_thread *t = bl_counters_start();
    assert_int_equal(pthread_create(&other, NULL, touch_elsewhere, p), 0);
    assert_int_equal(pthread_join(other, NULL), 0);
    bl_counters_stop(t, c);
    munmap(p, FAULT_PAGES * page);

    pf = find(c, "page_faults");
    if (!offered("page_faults")) {
        assert_unavailable_with_reason(pf);
        return;
    }
    printf("another thread touched %d pages: this thread's page_faults %lld\n",
           FAULT_PAGES, pf->value);
    assert_int_equal(pf->available, 1);
    assert_true(pf->value < FAULT_SLACK);
}

enum { SLEEPS = 5 };

static void context_switches_count_the_sleeps(void **state)
{
    struct timespec ms = {0, 2000000};
    bl_counter c[BL_NCOUNTERS];
    const bl_counter *cs;
    long long before, after;
    (void)state;

    before = thread_switches();
    bl_counters_thread *t = bl_counters_start();
    for (int i = 0; i < SLEEPS; i++)
        nanosleep(&ms, NULL);
    bl_counters_stop(t, c);
    after = thread_switches();

    cs = find(c, "context_switches");
    if (!offered("context_switches")) {
        assert_unavailable_with_reason(cs);
        return;
    }
    printf("%d sleeps: context_switches %lld, getrusage switches %lld\n",
           SLEEPS, cs->value, after - before);
    assert_int_equal(cs->available, 1);
    assert_true(cs->value >= SLEEPS);
    assert_true(cs->value <= after - before);
}

/* se.nr_migrations of the calling thread, from the scheduler. */
static long long nr_migrations(void)
{
    char path[64], line[256];
    long long v = -1;
    FILE *f;
    snprintf(path, sizeof path, "/proc/self/task/%ld/sched",
             (long)syscall(SYS_gettid));
    f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "se.nr_migrations", 16) == 0)
            sscanf(strchr(line, ':') + 1, "%lld", &v);
    fclose(f);
    return v;
}

static void move_to(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    /* A running thread is moved before sched_setaffinity returns. */
    assert_int_equal(sched_getcpu(), cpu);
}

static void bindlab_counters_off_counts_nothing_and_says_so(void **state)
{
    bl_counter c[BL_NCOUNTERS];
    (void)state;
    setenv("BINDLAB_COUNTERS", "off", 1);
    bl_counters_init();
    bl_counters_stop(bl_counters_start(), c);
    unsetenv("BINDLAB_COUNTERS");
    bl_counters_init();
    for (int i = 0; i < BL_NCOUNTERS; i++) {
        assert_string_equal(c[i].name, expected_names[i]);
        assert_int_equal(c[i].available, 0);
        assert_string_equal(c[i].event, "");
        assert_non_null(strstr(c[i].note, "BINDLAB_COUNTERS=off"));
    }
    /* Switched back on: the kernel's page faults are counted again. */
    bl_counters_stop(bl_counters_start(), c);
    assert_int_equal(find(c, "page_faults")->available, offered("page_faults"));
}

enum { MOVES = 6 };

static void cpu_migrations_count_the_moves_the_test_makes(void **state)
{
    cpu_set_t saved;
    int cpus[2], n = 0;
    bl_counter c[BL_NCOUNTERS];
    const bl_counter *mig;
    long long before, after;
    (void)state;

    assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
    for (int i = 0; i < CPU_SETSIZE && n < 2; i++)
        if (CPU_ISSET(i, &saved))
            cpus[n++] = i;
    if (n < 2)
        BL_SKIP("this process may run on one CPU only (%d): nothing to "
                "migrate between", cpus[0]);

    move_to(cpus[0]);
    before = nr_migrations();
    bl_counters_thread *t = bl_counters_start();
    for (int i = 1; i <= MOVES; i++)
        move_to(cpus[i % 2]);
    bl_counters_stop(t, c);
    after = nr_migrations();
    assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);

    mig = find(c, "cpu_migrations");
    printf("%d moves between CPUs %d and %d: cpu_migrations %lld "
           "(available %d), se.nr_migrations +%lld\n", MOVES, cpus[0],
           cpus[1], mig->value, mig->available, after - before);
    assert_true(before >= 0);
    assert_true(after - before >= MOVES);
    if (!offered("cpu_migrations")) {
        assert_unavailable_with_reason(mig);
        return;
    }
    assert_int_equal(mig->available, 1);
    assert_true(mig->value >= MOVES);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest counts[] = {
        cmocka_unit_test(every_quantity_has_its_name_source_or_reason),
        cmocka_unit_test(page_faults_count_the_pages_first_touched),
        cmocka_unit_test(page_faults_of_another_thread_are_not_counted),
        cmocka_unit_test(context_switches_count_the_sleeps),
        cmocka_unit_test(bindlab_counters_off_counts_nothing_and_says_so),
    };
    static const struct CMUnitTest migrations[] = {
        cmocka_unit_test(cpu_migrations_count_the_moves_the_test_makes),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("counts", counts),
        BL_MACHINE_GROUP("migrations", migrations),
    };
    unsetenv("BINDLAB_COUNTERS"); /* these are checks of counting */
    bl_counters_init();
    return bl_run_groups(argc, argv, groups);
}
