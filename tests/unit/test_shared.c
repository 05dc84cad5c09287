/* The shared-table kernel through its interface, on one rank. The kernel
 * calls no MPI function in setup, step or verify, so the test runs without
 * MPI_Init (an MPI singleton makes LeakSanitizer's exit-time scan crash on
 * this machine's glibc). Expectations: every lookup writes at --writes 100, so the
 * counters must sum to iterations x entries; the mean key read must not
 * depend on the number of threads; one flipped bit must fail verification. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <omp.h>

#include "kernel.h"

uint64_t bl_shared_counter_sum(const bl_kernel_ctx *ctx);
void bl_shared_corrupt(bl_kernel_ctx *ctx, size_t index);

#define ENTRIES 10007 /* a prime: lookups do not split evenly */

/* Sets up a table of ENTRIES, runs steps; verify into v. */
static void run(bl_kernel_ctx *c, bl_kernel_opts *o, int nthreads,
                int writes, int steps, bl_verify *v)
{
    const bl_kernel *k = bl_kernel_find("shared");
    bl_err err;
    memset(o, 0, sizeof *o);
    o->size_bytes = 8 * ENTRIES;
    o->write_percent = writes;
    memset(c, 0, sizeof *c);
    c->nranks = 1;
    c->nthreads = nthreads;
    c->local_ranks = 1;
    c->opts = o;
    omp_set_num_threads(nthreads);
    assert_int_equal(k->setup(c, &err), 0);
    k->first_touch(c);
    for (int s = 0; s < steps; s++)
        assert_int_equal(k->step(c, &err), 0);
    k->verify(c, v);
}

static void shared_all_writes_count_every_lookup(void **state)
{
    bl_kernel_opts o;
    bl_kernel_ctx c;
    bl_verify v;
    (void)state;
    run(&c, &o, omp_get_num_procs() > 1 ? 2 : 1, 100, 3, &v);
    assert_int_equal(v.verified, 1);
    assert_true(bl_shared_counter_sum(&c) == 3ULL * ENTRIES);
    bl_kernel_find("shared")->teardown(&c);
}

static void shared_checksum_does_not_depend_on_threads(void **state)
{
    bl_kernel_opts o;
    bl_kernel_ctx c;
    bl_verify one, many;
    (void)state;
    run(&c, &o, 1, 25, 2, &one);
    bl_kernel_find("shared")->teardown(&c);
    run(&c, &o, 3, 25, 2, &many);
    bl_kernel_find("shared")->teardown(&c);
    assert_int_equal(one.verified, 1);
    assert_int_equal(many.verified, 1);
    assert_true(one.checksum == many.checksum);
    /* Keys are uniform 32-bit values: their mean is near 2^31. */
    assert_true(one.checksum > 0.9 * 2147483648.0 && one.checksum < 1.1 * 2147483648.0);
}

static void shared_verification_detects_one_flipped_bit(void **state)
{
    bl_kernel_opts o;
    bl_kernel_ctx c;
    bl_verify v;
    (void)state;
    run(&c, &o, 2, 10, 1, &v);
    assert_int_equal(v.verified, 1);
    bl_shared_corrupt(&c, 5003);
    bl_kernel_find("shared")->verify(&c, &v);
    assert_int_equal(v.verified, 0);
    assert_non_null(strstr(v.detail, "1 of 10007 entries wrong, first [5003]"));
    bl_kernel_find("shared")->teardown(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_all_writes_count_every_lookup),
        cmocka_unit_test(shared_checksum_does_not_depend_on_threads),
        cmocka_unit_test(shared_verification_detects_one_flipped_bit),
    };
    omp_set_dynamic(0);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
