/* The reason line of a failed run, picked from real captured launcher
 * output (tests/fixtures/failures/, README there): a node killed in the
 * middle of a two-node run must be named whichever of Open MPI's messages
 * came first; the app's own error line wins over mpirun's banners. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sweep/fail_reason.h"

static char *read_failure(const char *name)
{
    const char *dir = getenv("BINDLAB_FIXTURES");
    char path[1024];
    FILE *f;
    long n;
    char *text;
    assert_non_null(dir);
    snprintf(path, sizeof path, "%s/failures/%s", dir, name);
    f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open fixture %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* The reason for a fixture given whole as the head (as a launch that
 * printed less than the head's limit is captured), no tail. */
static void reason_of(const char *name, char *buf, size_t len)
{
    char *text = read_failure(name);
    bl_fail_reason(text, "", buf, len);
    free(text);
}

static const struct {
    const char *file, *want;
} CASES[] = {
    /* the daemon's loss first, then the peer's hang-up */
    {"ompi4-node-killed-daemon-first.txt",
     "ORTE has lost communication with a remote daemon. "
     "(Remote daemon: [[45977,0],2] on node bl2)"},
    /* the rank on bl1 noticed first: still the daemon's message */
    {"ompi4-node-killed-peer-first.txt",
     "ORTE has lost communication with a remote daemon. "
     "(Remote daemon: [[64686,0],2] on node bl2)"},
    /* mpirun's banner comes first, the app's line says what is wrong */
    {"ompi4-app-error.txt",
     "bindlab-app: --grid: '0x5' is not N, AxB or AxBxC with whole numbers "
     "from 1 to 1000000 (e.g. 4096, 4096x2048, 256x256x256, or 2x1 for lu)"},
};

static void picks_the_message_that_names_the_failure(void **state)
{
    char buf[512];
    (void)state;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        reason_of(CASES[i].file, buf, sizeof buf);
        if (strcmp(buf, CASES[i].want) != 0)
            fail_msg("%s:\n got  '%s'\n want '%s'", CASES[i].file, buf,
                     CASES[i].want);
    }
}

static void srun_node_failure_outweighs_a_framed_message(void **state)
{
    char buf[256];
    (void)state;
    bl_fail_reason("--------------------------------------------------------"
                   "------------------\n"
                   "Something else went wrong first.\n"
                   "--------------------------------------------------------"
                   "------------------\n"
                   "srun: error: Node failure on bl2\n",
                   "", buf, sizeof buf);
    assert_string_equal(buf, "srun: error: Node failure on bl2");
}

static void plain_text_gives_its_first_line(void **state)
{
    char buf[64];
    (void)state;
    bl_fail_reason("", "\n\n  mpirun: command not found\nmore\n", buf,
                   sizeof buf);
    assert_string_equal(buf, "  mpirun: command not found");
    bl_fail_reason(NULL, NULL, buf, sizeof buf);
    assert_string_equal(buf, "");
    bl_fail_reason("---\n===\n\n", "", buf, sizeof buf);
    assert_string_equal(buf, "");
}

/* The app's "started" line says nothing of what went wrong. */
static void app_started_line_is_not_a_reason(void **state)
{
    char buf[128];
    (void)state;
    bl_fail_reason("bindlab-app: started: 2 ranks past MPI_Init\n"
                   "bindlab-app: started: 2 ranks past MPI_Init\n"
                   "Segmentation fault\n",
                   "", buf, sizeof buf);
    assert_string_equal(buf, "Segmentation fault");
    bl_fail_reason("bindlab-app: started: 2 ranks past MPI_Init\n"
                   "bindlab-app: stencil: checksum differs\n",
                   "", buf, sizeof buf);
    assert_string_equal(buf, "bindlab-app: stencil: checksum differs");
}

/* A short buffer gets a cut, terminated line. */
static void short_buffer_is_cut(void **state)
{
    char buf[20];
    char *text = read_failure("ompi4-node-killed-daemon-first.txt");
    (void)state;
    bl_fail_reason(text, "", buf, sizeof buf);
    assert_string_equal(buf, "ORTE has lost commu");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(picks_the_message_that_names_the_failure),
        cmocka_unit_test(srun_node_failure_outweighs_a_framed_message),
        cmocka_unit_test(plain_text_gives_its_first_line),
        cmocka_unit_test(app_started_line_is_not_a_reason),
        cmocka_unit_test(short_buffer_is_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
