/* Shares and huge pages (common/shares.c) on splits worked out by hand,
 * the first-touch flag decisions, and the kernel-account parsers
 * (common/kstat.c) on text captured from real /proc files
 * (tests/fixtures/kstat/). */
#include "bl_test.h"
#include "bl_test_files.h"

#include <math.h>

#include "kstat.h"
#include "shares.h"

#define MIB ((uintptr_t)1 << 20)

/* One computation over s[0..n) with every window backed, and its counts. */
static bl_straddle expect_straddle(const bl_shares *s, size_t n,
                                   long long pages, long long lost,
                                   int straddles)
{
    bl_straddle st;
    bl_straddle_compute(s, n, 4096, 2 * MIB, -1.0, &st);
    assert_int_equal(st.pages, pages);
    assert_int_equal(st.lost, lost);
    assert_int_equal(st.straddles, straddles);
    return st;
}

/* 6 MiB of doubles from a 2 MiB boundary, 2 threads: the split falls at
 * 3 MiB, in the middle of the second 2 MiB window, which then holds 256
 * base pages of each thread. */
static void straddle_of_a_split_inside_a_huge_page(void **state)
{
    bl_shares s = {2 * MIB, 6 * MIB / 8, 8, 2, 0};
    bl_straddle st;
    (void)state;
    st = expect_straddle(&s, 1, 1536, 256, 1);
    assert_true(fabs(st.best - (1.0 - 256.0 / 1536.0)) < 1e-12);
    /* half the pages huge-page backed: half the loss */
    bl_straddle_compute(&s, 1, 4096, 2 * MIB, 0.5, &st);
    assert_true(fabs(st.best - (1.0 - 128.0 / 1536.0)) < 1e-12);
    /* no huge pages: nothing lost */
    bl_straddle_compute(&s, 1, 4096, 2 * MIB, 0.0, &st);
    assert_true(st.best == 1.0);
}

/* The run of the emulated node: triad 64 MiB (3 arrays of 2796202
 * doubles), 4 threads, each array 2 MiB aligned. Thread 1 starts at byte
 * 5592408: the window [4, 6) MiB holds 342 pages of thread 0 (the page
 * holding that byte is thread 0's) and 170 of thread 1, which touches it
 * first: 342 lost; thread 2 starts at 11184816: 171 of thread 1 lost,
 * 341 of thread 2 kept in [10, 12) MiB; thread 3 at 16 MiB exactly. */
static void straddle_of_the_triad_run(void **state)
{
    bl_shares s[3];
    bl_straddle st;
    (void)state;
    for (int i = 0; i < 3; i++)
        s[i] = (bl_shares){(uintptr_t)(i + 1) * 32 * MIB, 2796202, 8, 4, 0};
    bl_straddle_compute(s, 3, 4096, 2 * MIB, -1.0, &st);
    assert_int_equal(st.pages, 3 * 5462);
    assert_int_equal(st.lost, 3 * (342 + 171));
    assert_int_equal(st.straddles, 6);
    assert_true(fabs(st.best - (1.0 - 1539.0 / 16386.0)) < 1e-12);
}

/* Two arrays side by side, 3 MiB each from 2 MiB, 2 threads: A's split
 * at 3.5 MiB, B's at 6.5 MiB. [2, 4): A's threads 0 (384 pages) and 1
 * (128) both start in it: 128 lost. [4, 6): the end of A's thread 1 (256)
 * and the start of B's thread 0 (256), which touches it first: 256 lost.
 * [6, 8): B's thread 0 (128, started before) and 1 (384): 128 lost. */
static void straddle_across_neighbouring_arrays(void **state)
{
    bl_shares s[2] = {{2 * MIB, 3 * MIB / 8, 8, 2, 0},
                      {5 * MIB, 3 * MIB / 8, 8, 2, 0}};
    bl_straddle st;
    (void)state;
    bl_straddle_compute(s, 2, 4096, 2 * MIB, -1.0, &st);
    assert_int_equal(st.pages, 1536);
    assert_int_equal(st.lost, 128 + 256 + 128);
    assert_int_equal(st.straddles, 3);
    /* B moved to 9 MiB: [4, 6) and [8, 10) are no longer filled, so no
     * huge page; B's split at 10.5 MiB costs 128 in [10, 12) */
    s[1].base = 9 * MIB;
    bl_straddle_compute(s, 2, 4096, 2 * MIB, -1.0, &st);
    assert_int_equal(st.straddles, 2);
    assert_int_equal(st.lost, 128 + 128);
}

/* 2 threads from 2 MiB, thread 1's first byte 2 KiB before 6 MiB: that
 * base page, and so the whole window [4, 6) MiB, is thread 0's as the app
 * counts pages, but thread 1 touches the window first (its share starts
 * there), so all 512 of thread 0's pages there land on thread 1's node.
 * The array ends 4 KiB short of 10 MiB: [8, 10) is no huge page. */
static void split_in_the_last_base_page_of_a_huge_page(void **state)
{
    bl_shares s = {2 * MIB, 2 * (4 * MIB - 2048) / 8, 8, 2, 0};
    (void)state;
    expect_straddle(&s, 1, 2047, 512, 1);
    /* the split 2 KiB after 6 MiB: only the page holding it is lost */
    s.units = 2 * (4 * MIB + 2048) / 8;
    expect_straddle(&s, 1, 2049, 1, 1);
}

static void aligned_shares_start_on_huge_pages(void **state)
{
    bl_shares s = {2 * MIB, 6 * MIB / 8, 8, 2, 2 * MIB};
    bl_shares t[3];
    bl_straddle st;
    size_t lo, hi, prev = 0;
    (void)state;
    /* 3 MiB rounds to the nearer 2 MiB boundary: 4 MiB (a tie goes up) */
    bl_share_range(&s, 0, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 4 * MIB / 8);
    bl_share_range(&s, 1, &lo, &hi);
    assert_int_equal(lo, 4 * MIB / 8);
    assert_int_equal(hi, 6 * MIB / 8);
    bl_straddle_compute(&s, 1, 4096, 2 * MIB, 1.0, &st);
    assert_int_equal(st.straddles, 0);
    assert_true(st.best == 1.0);
    /* the triad run aligned: every share starts on a huge page, in order,
     * covering every unit once */
    for (int i = 0; i < 3; i++)
        t[i] = (bl_shares){(uintptr_t)(i + 1) * 32 * MIB, 2796202, 8, 4,
                           2 * MIB};
    for (int k = 0; k < 4; k++) {
        bl_share_range(&t[0], k, &lo, &hi);
        assert_int_equal(lo, prev);
        assert_true(hi >= lo);
        assert_int_equal((t[0].base + lo * 8) % (2 * MIB) == 0 || k == 0, 1);
        prev = hi;
    }
    assert_int_equal(prev, 2796202);
    bl_straddle_compute(t, 3, 4096, 2 * MIB, 1.0, &st);
    assert_int_equal(st.straddles, 0);
}

/* Aligned shares of units that do not divide the huge page (stencil rows
 * of 32,832 bytes), 256 rows from 2 MiB, 2 threads: the static split at
 * row 128 (6.008 MiB) goes to the nearest huge-page boundary, 6 MiB, then
 * to the first row at or after it, row 128 again (row 127 would hand
 * thread 0's whole [4, 6) MiB huge page to thread 1). Thread 1's first
 * byte is 8 KiB into [6, 8): thread 0 loses the 2 pages counted there. */
static void aligned_rows_start_at_or_after_the_huge_page(void **state)
{
    bl_shares s = {2 * MIB, 256, 32832, 2, 2 * MIB};
    size_t lo, hi;
    bl_straddle st;
    char why[300];
    (void)state;
    bl_share_range(&s, 1, &lo, &hi);
    assert_int_equal(lo, 128);
    assert_int_equal(hi, 256);
    st = expect_straddle(&s, 1, 2052, 2, 1);
    /* aligned already: the advice is not --align-shares again */
    assert_int_equal(st.aligned, 1);
    assert_int_equal(bl_flag_huge_straddle(&st, 1.0, -1, why, sizeof why), 1);
    assert_null(strstr(why, "--align-shares"));
    assert_non_null(strstr(why, "aligned to huge pages already"));
    /* 248 rows: the split at row 124 (5.88 MiB) moves up to 6 MiB, row
     * 128, not down to row 127 */
    s.units = 248;
    bl_share_range(&s, 0, &lo, &hi);
    assert_int_equal(hi, 128);
}

static void unaligned_split_is_schedule_static(void **state)
{
    bl_shares s = {4096, 1001, 8, 3, 0};
    size_t lo, hi;
    (void)state;
    bl_share_range(&s, 0, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 334);
    bl_share_range(&s, 2, &lo, &hi);
    assert_int_equal(lo, 668);
    assert_int_equal(hi, 1001);
    bl_share_range(&s, 3, &lo, &hi); /* no such thread: nothing */
    assert_int_equal(lo, hi);
}

static void pages_migrated_names_both_fractions(void **state)
{
    char why[160];
    (void)state;
    assert_int_equal(bl_flag_pages_migrated(0.25, 0.78, 3000, 16386, why,
                                            sizeof why), 1);
    assert_string_equal(why, "first touch left 0.25 local; the kernel made "
                             "it 0.78 (3000 pages migrated)");
    /* balancing off: nothing moved, the same fraction twice */
    assert_int_equal(bl_flag_pages_migrated(0.25, 0.25, 0, 16386, why,
                                            sizeof why), 0);
    assert_string_equal(why, "");
    /* counters unknown: the fractions decide */
    assert_int_equal(bl_flag_pages_migrated(1.0, 0.995, -1, 16386, why,
                                            sizeof why), 0);
    assert_int_equal(bl_flag_pages_migrated(0.5, 0.6, -1, 16386, why,
                                            sizeof why), 1);
    /* 1% of the pages migrated (there and back): flagged */
    assert_int_equal(bl_flag_pages_migrated(0.25, 0.25, 164, 16386, why,
                                            sizeof why), 1);
    assert_int_equal(bl_flag_pages_migrated(0.25, 0.25, 163, 16386, why,
                                            sizeof why), 0);
}

static void straddle_flag_needs_huge_pages_and_a_loss(void **state)
{
    bl_straddle st = {16386, 1023, 6, 1.0 - 1023.0 / 16386.0, 0};
    bl_straddle none = {16386, 0, 0, 1.0, 0};
    char why[200];
    (void)state;
    assert_int_equal(bl_flag_huge_straddle(&st, 1.0, 0.93, why, sizeof why), 1);
    assert_non_null(strstr(why, "6 huge pages straddle"));
    assert_non_null(strstr(why, "0.938 local at best (measured 0.930)"));
    assert_non_null(strstr(why, "(--align-shares) for 1.000"));
    assert_int_equal(bl_flag_huge_straddle(&st, 0.0, 1.0, why, sizeof why), 0);
    assert_int_equal(bl_flag_huge_straddle(&none, 1.0, 1.0, why, sizeof why), 0);
}

static void smaps_share_of_a_huge_mapping(void **state)
{
    char *text = bl_test_fixture("kstat", "smaps_thp.txt");
    bl_span thp = {0x7ff800c00000 + 4096, 0x7ff800c00000 + 8192};
    bl_span heap = {0x556afb9f4000, 0x556afb9f5000};
    bl_span both[2] = {thp, heap};
    bl_span nowhere = {0x1000, 0x2000};
    long long rss = 0, huge = 0;
    (void)state;
    assert_int_equal(bl_smaps_parse(text, &thp, 1, &rss, &huge), 1);
    assert_int_equal(rss, 16384);
    assert_int_equal(huge, 16384);
    rss = huge = 0;
    assert_int_equal(bl_smaps_parse(text, both, 2, &rss, &huge), 2);
    assert_int_equal(rss, 16384 + 1624);
    assert_int_equal(huge, 16384);
    rss = huge = 0;
    assert_int_equal(bl_smaps_parse(text, &nowhere, 1, &rss, &huge), 0);
    assert_int_equal(rss, 0);
    /* cut in the middle of a line: what was read still counts */
    text[strlen(text) / 2] = '\0';
    assert_true(bl_smaps_parse(text, &thp, 1, &rss, &huge) <= 1);
    free(text);
}

static void vmstat_and_sched_fields(void **state)
{
    char *vm = bl_test_fixture("kstat", "vmstat.txt");
    char *sched = bl_test_fixture("kstat", "sched.txt");
    bl_vm_numa v;
    long long m = 5, f = 7;
    char mode[16];
    (void)state;
    bl_vmstat_parse(vm, &v);
    assert_int_equal(v.pages_migrated, 0); /* present, zero */
    assert_int_equal(v.hint_faults, 0);
    assert_int_equal(v.pgmigrate_success, 0);
    bl_vmstat_parse("numa_hint_faults_local 7\nnuma_hint_faults 9\n"
                    "numa_pages_migrated 12", &v);
    assert_int_equal(v.hint_faults, 9);
    assert_int_equal(v.hint_faults_local, 7);
    assert_int_equal(v.pages_migrated, 12);
    assert_int_equal(v.pte_updates, -1); /* absent */
    assert_int_equal(bl_sched_numa_parse(sched, &m, &f), 1);
    assert_int_equal(m, 5);
    assert_int_equal(f, 7);
    assert_int_equal(bl_sched_numa_parse("se.nr_migrations : 3\n", &m, &f), 0);
    bl_sysfs_choice("always [madvise] never\n", mode, sizeof mode);
    assert_string_equal(mode, "madvise");
    bl_sysfs_choice("[always] madvise never", mode, 4); /* too long */
    assert_string_equal(mode, "");
    free(vm);
    free(sched);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest shares[] = {
        cmocka_unit_test(straddle_of_a_split_inside_a_huge_page),
        cmocka_unit_test(straddle_of_the_triad_run),
        cmocka_unit_test(straddle_across_neighbouring_arrays),
        cmocka_unit_test(split_in_the_last_base_page_of_a_huge_page),
        cmocka_unit_test(aligned_rows_start_at_or_after_the_huge_page),
        cmocka_unit_test(aligned_shares_start_on_huge_pages),
        cmocka_unit_test(unaligned_split_is_schedule_static),
    };
    static const struct CMUnitTest flags[] = {
        cmocka_unit_test(pages_migrated_names_both_fractions),
        cmocka_unit_test(straddle_flag_needs_huge_pages_and_a_loss),
    };
    static const struct CMUnitTest kstat[] = {
        cmocka_unit_test(smaps_share_of_a_huge_mapping),
        cmocka_unit_test(vmstat_and_sched_fields),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("shares", shares),
        BL_GROUP("flags", flags),
        BL_GROUP("kstat", kstat),
    };
    return bl_run_groups(argc, argv, groups);
}
