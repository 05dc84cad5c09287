/* The LU kernel's block-cyclic index mapping and process-grid choice. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lu/lu_layout.h"
#include "lu/lu_matgen.h"

/* Awkward shapes: N a prime, N < NB, NB 1, N an exact multiple, more
 * processes than blocks. */
static const struct { long n; int nb, np; } shapes[] = {
    {1, 1, 1}, {1, 4, 3}, {5, 64, 2}, {97, 8, 3}, {100, 10, 4},
    {100, 1, 7}, {257, 16, 5}, {1000, 37, 2}, {64, 64, 1}, {10, 3, 8},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static void lu_layout_round_trips_every_global_index(void **state)
{
    (void)state;
    for (size_t s = 0; s < NSHAPES; s++) {
        long n = shapes[s].n;
        int nb = shapes[s].nb, np = shapes[s].np;
        long total = 0;
        for (int me = 0; me < np; me++) {
            bl_lu_layout l = {n, nb, np, me};
            long count = bl_lu_layout_count(n, nb, me, np), prev = -1;
            total += count;
            for (long li = 0; li < count; li++) {
                long g = bl_lu_layout_l2g(&l, li);
                assert_true(g > prev); /* local order is global order */
                assert_true(g < n);
                assert_int_equal(bl_lu_layout_owner(&l, g), me);
                assert_int_equal(bl_lu_layout_g2l(&l, g), li);
                prev = g;
            }
        }
        assert_int_equal(total, n);
        for (long g = 0; g < n; g++) {
            bl_lu_layout l = {n, nb, np, 0};
            l.me = bl_lu_layout_owner(&l, g);
            assert_int_equal(bl_lu_layout_l2g(&l, bl_lu_layout_g2l(&l, g)), g);
        }
    }
}

static void lu_layout_first_counts_local_indexes_below_g(void **state)
{
    (void)state;
    for (size_t s = 0; s < NSHAPES; s++) {
        long n = shapes[s].n;
        int nb = shapes[s].nb, np = shapes[s].np;
        for (int me = 0; me < np; me++) {
            bl_lu_layout l = {n, nb, np, me};
            long count = bl_lu_layout_count(n, nb, me, np);
            for (long g = 0; g <= n; g++) {
                long below = 0;
                for (long li = 0; li < count; li++)
                    below += bl_lu_layout_l2g(&l, li) < g;
                assert_int_equal(bl_lu_layout_first(&l, g), below);
            }
        }
    }
}

static void lu_layout_grid_defaults_to_most_square(void **state)
{
    static const int want[][3] = {{1, 1, 1}, {2, 1, 2}, {4, 2, 2},
                                  {6, 2, 3}, {7, 1, 7}, {12, 3, 4}};
    bl_err err;
    (void)state;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int p = 0, q = 0;
        assert_int_equal(bl_lu_layout_grid(want[i][0], NULL, 0, &p, &q, &err),
                         0);
        assert_int_equal(p, want[i][1]);
        assert_int_equal(q, want[i][2]);
    }
}

static void lu_layout_grid_rejects_mismatched_rank_count(void **state)
{
    long g22[3] = {2, 2, 0}, g0[3] = {0, 4, 0}, big[3] = {1L << 40, 1L << 40};
    long g21[3] = {2, 1, 0};
    int p, q;
    bl_err err;
    (void)state;
    assert_int_equal(bl_lu_layout_grid(2, g22, 2, &p, &q, &err), -1);
    assert_non_null(strstr(err.msg, "--grid: 2x2"));
    assert_non_null(strstr(err.msg, "2 ranks"));
    assert_int_equal(bl_lu_layout_grid(4, g0, 2, &p, &q, &err), -1);
    assert_int_equal(bl_lu_layout_grid(4, big, 2, &p, &q, &err), -1);
    assert_int_equal(bl_lu_layout_grid(4, g22, 3, &p, &q, &err), -1);
    assert_non_null(strstr(err.msg, "PxQ"));
    assert_int_equal(bl_lu_layout_grid(2, g21, 2, &p, &q, &err), 0);
    assert_int_equal(p, 2);
    assert_int_equal(q, 1);
}

static void lu_matgen_is_a_function_of_seed_and_position(void **state)
{
    double sum = 0.0;
    (void)state;
    /* The values, exactly, from a second implementation of the formula in
     * lu_matgen.c (Python integers masked to 64 bits, float.hex()): every
     * rank and every build must generate the same matrix. */
    assert_true(bl_lu_matgen(7, 3, 5) == 0x1.9599374737f92p-2);
    assert_true(bl_lu_matgen(8, 3, 5) == -0x1.89197d6236598p-4);
    assert_true(bl_lu_matgen(7, 5, 3) == -0x1.a768cd836b37ep-2);
    assert_true(bl_lu_matgen(1, 0, 0) == -0x1.4eb90eeb98fe2p-2);
    for (long i = 0; i < 200; i++)
        for (long j = 0; j < 200; j++) {
            double v = bl_lu_matgen(1, i, j);
            assert_true(v >= -0.5 && v < 0.5);
            sum += v;
        }
    /* mean of 40000 uniforms on [-0.5, 0.5): |mean| < 0.01 by far */
    assert_true(sum / 40000.0 < 0.01 && sum / 40000.0 > -0.01);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lu_layout_round_trips_every_global_index),
        cmocka_unit_test(lu_layout_first_counts_local_indexes_below_g),
        cmocka_unit_test(lu_layout_grid_defaults_to_most_square),
        cmocka_unit_test(lu_layout_grid_rejects_mismatched_rank_count),
        cmocka_unit_test(lu_matgen_is_a_function_of_seed_and_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
