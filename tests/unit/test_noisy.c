/* The noisy-neighbour spec (harness/sweep/noisy.h): what each accepted spelling
 * means, its canonical text (worked out by hand from the grammar in
 * noisy.h), and the refusals with what is accepted. */
#include <string.h>

#include "bl_test.h"
#include "sweep/noisy.h"

static void canon(const char *text, const char *want, int cpu, int mem)
{
    bl_noisy n;
    bl_err err;
    char buf[128];
    if (bl_noisy_parse(text, &n, &err) < 0)
        fail_msg("'%s' refused: %s", text, err.msg);
    bl_noisy_text(&n, buf, sizeof buf);
    assert_string_equal(buf, want);
    assert_int_equal(n.cpu, cpu);
    assert_int_equal(n.mem, mem);
}

static void noisy_spellings_read_as_their_canonical_text(void **state)
{
    (void)state;
    canon("none", "none", 0, 0);
    canon("cpu", "cpu,free", 1, 0);
    canon("mem", "mem,free", 0, 1);
    canon("cpu+mem", "cpu+mem,free", 1, 1);
    canon("mem+cpu", "cpu+mem,free", 1, 1);
    canon("mem,free", "mem,free", 0, 1);
    canon("cpu,pinned=1", "cpu,pinned=1", 1, 0);
    /* the CPU list is normalised as every cpuset is: sorted, ranges */
    canon("cpu+mem,pinned=3,1,2", "cpu+mem,pinned=1-3", 1, 1);
}

static void refused(const char *text, const char *msg_start)
{
    bl_noisy n;
    bl_err err;
    if (bl_noisy_parse(text, &n, &err) == 0)
        fail_msg("'%s' accepted", text);
    if (strncmp(err.msg, msg_start, strlen(msg_start)) != 0)
        fail_msg("'%s': message '%s', expected it to start '%s'", text,
                 err.msg, msg_start);
    assert_false(bl_noisy_any(&n));
}

static void noisy_refuses_what_it_cannot_run(void **state)
{
    (void)state;
    refused("gpu", "noisy 'gpu': unknown hog 'gpu'; accepted: none, cpu, "
                   "mem or cpu+mem");
    refused("", "noisy '': unknown hog ''");
    refused("cpu,pinned=", "noisy 'cpu,pinned=': pinned= needs a CPU list");
    refused("cpu,pinned=x", "noisy 'cpu,pinned=x': pinned= needs a CPU list");
    refused("cpu,pinned=1-0", "noisy 'cpu,pinned=1-0': pinned= needs a CPU list");
    refused("cpu,bound", "noisy 'cpu,bound': 'bound' is not a placement");
    refused("none,free", "noisy 'none,free': none takes no placement");
    refused("cpu+cpu", "noisy 'cpu+cpu': unknown hog 'cpu+cpu'");
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest rules[] = {
        cmocka_unit_test(noisy_spellings_read_as_their_canonical_text),
        cmocka_unit_test(noisy_refuses_what_it_cannot_run),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("rules", rules),
    };
    return bl_run_groups(argc, argv, groups);
}
