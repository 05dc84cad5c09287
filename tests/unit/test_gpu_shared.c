/* gpu-shared: a GPU given to two ranks of one node while another GPU of
 * that node is seen by no rank there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_shared.h"

typedef struct seen {
    int n, rank[4];
    char text[4][1024];
} seen;

static void found(void *p, int rank, const char *text)
{
    seen *s = p;
    if (s->n < 4) {
        s->rank[s->n] = rank;
        snprintf(s->text[s->n], sizeof s->text[0], "%s", text);
    }
    s->n++;
}

#define NODE2 "0000:01:00.0,0000:02:00.0"

static void test_shared_while_idle(void **state)
{
    (void)state;
    bl_gpu_rank_view v[3] = {
        {0, 0, 1, "0000:01:00.0", NODE2},
        {1, 0, 1, "0000:02:00.0", NODE2},
        {2, 0, 1, "0000:01:00.0", NODE2}};
    seen s = {0};
    /* every GPU given: 01 twice is no finding while none idles */
    assert_int_equal(bl_gpu_shared_judge(v, 3, found, &s), 0);
    v[1].seen = "0000:01:00.0";
    assert_int_equal(bl_gpu_shared_judge(v, 3, found, &s), 1);
    assert_int_equal(s.rank[0], 0);
    assert_non_null(strstr(s.text[0], "GPU 0000:01:00.0 is given to ranks "
                           "0,1,2 of one node while GPU 0000:02:00.0 is "
                           "given to none"));
    assert_non_null(strstr(s.text[0], "gpu_bind closest"));
}

static void test_per_node_and_not_given(void **state)
{
    (void)state;
    seen s = {0};
    /* one rank per node, each given its node's GPU 0: nothing shared */
    bl_gpu_rank_view nodes[2] = {{0, 0, 1, "0000:01:00.0", NODE2},
                                 {1, 1, 1, "0000:01:00.0", NODE2}};
    assert_int_equal(bl_gpu_shared_judge(nodes, 2, found, &s), 0);
    /* ranks seeing every GPU were given none */
    bl_gpu_rank_view all[2] = {{0, 0, 0, NODE2, NODE2},
                               {1, 0, 0, NODE2, NODE2}};
    assert_int_equal(bl_gpu_shared_judge(all, 2, found, &s), 0);
    /* a rank seeing all keeps the other GPU from being idle */
    bl_gpu_rank_view mixed[3] = {{0, 0, 1, "0000:01:00.0", NODE2},
                                 {1, 0, 1, "0000:01:00.0", NODE2},
                                 {2, 0, 0, NODE2, NODE2}};
    assert_int_equal(bl_gpu_shared_judge(mixed, 3, found, &s), 0);
    assert_int_equal(s.n, 0);
    /* ranks listed out of order: the finding names the lowest */
    bl_gpu_rank_view late[2] = {{5, 0, 1, "0000:02:00.0", NODE2},
                                {3, 0, 1, "0000:02:00.0", NODE2}};
    assert_int_equal(bl_gpu_shared_judge(late, 2, found, &s), 1);
    assert_int_equal(s.rank[0], 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_while_idle),
        cmocka_unit_test(test_per_node_and_not_given),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
