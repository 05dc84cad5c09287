/* Which launches sweep --retry runs again (harness/sweep/sweep_retry.h): only one
 * that died before the app started. Each case is a launch's outcome written
 * by hand: how it ended, what it printed (the app's started line of
 * common/app_started.h, its own messages), whether the run file exists. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bl_test.h"
#include "sweep/sweep_retry.h"

static char appfile[64];

/* A launch that exited with `status` (-1: killed by SIGSEGV), printing
 * `out` on stdout and `errs` on stderr, kept as the head of each. */
static bl_launch_result launch(int status, const char *out, const char *errs)
{
    bl_launch_result r;
    memset(&r, 0, sizeof r);
    r.exited = status >= 0;
    r.exit_status = status >= 0 ? status : 0;
    r.term_signal = status >= 0 ? 0 : 11;
    r.out.head = (char *)out;
    r.errs.head = (char *)errs;
    return r;
}

static int setup(void **state)
{
    (void)state;
    snprintf(appfile, sizeof appfile, "/tmp/bl-retry-%ld.h5", (long)getpid());
    unlink(appfile);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(appfile);
    return 0;
}

static void launch_that_died_before_the_app_started_is_run_again(void **s)
{
    bl_launch_result r;
    (void)s;
    /* mpirun's words only: a rank died in (or right after) MPI_Init */
    r = launch(139, "", "Primary job  terminated normally, but 1 process "
                        "returned\nmpirun noticed that process rank 1 ... "
                        "exited on signal 11 (Segmentation fault).\n");
    assert_true(bl_sweep_retry_died_before_start(&r, appfile));
    /* killed by a signal, nothing said */
    r = launch(-1, "", "");
    assert_true(bl_sweep_retry_died_before_start(&r, appfile));
    /* the app's MPI_Init_thread failed: the launch's failure */
    r = launch(1, "", "bindlab-app: MPI_Init_thread failed\n");
    assert_true(bl_sweep_retry_died_before_start(&r, appfile));
    /* the started line in the tail only (a long stdout) */
    r = launch(1, "", "");
    r.out.tail = (char *)"x\n";
    assert_true(bl_sweep_retry_died_before_start(&r, appfile));
}

static void run_that_started_or_spoke_is_not_run_again(void **s)
{
    bl_launch_result r;
    FILE *f;
    (void)s;
    /* the app said it started (Hydra's -l puts "[0] " before it) */
    r = launch(139, "bindlab-app: started: 2 ranks past MPI_Init\n", "");
    assert_false(bl_sweep_retry_died_before_start(&r, appfile));
    r = launch(-1, "[0] bindlab-app: started: 4 ranks past MPI_Init\n", "");
    assert_false(bl_sweep_retry_died_before_start(&r, appfile));
    r = launch(1, "", "");
    r.out.tail = (char *)"bindlab-app: started: 1 rank past MPI_Init\n";
    assert_false(bl_sweep_retry_died_before_start(&r, appfile));
    /* the app's own complaint: bad input, the same each launch */
    r = launch(2, "", "bindlab-app: --size: '1e30GiB' is too large\n");
    assert_false(bl_sweep_retry_died_before_start(&r, appfile));
    /* timed out, interrupted, or exit 0 */
    r = launch(-1, "", "");
    r.timed_out = 1;
    assert_false(bl_sweep_retry_died_before_start(&r, appfile));
    r = launch(-1, "", "");
    r.interrupted = 1;
    assert_false(bl_sweep_retry_died_before_start(&r, appfile));
    r = launch(0, "", "");
    assert_false(bl_sweep_retry_died_before_start(&r, appfile));
    /* a run file exists, whatever was said */
    assert_non_null(f = fopen(appfile, "w"));
    fclose(f);
    r = launch(139, "", "");
    assert_false(bl_sweep_retry_died_before_start(&r, appfile));
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest rules[] = {
        cmocka_unit_test_setup_teardown(
            launch_that_died_before_the_app_started_is_run_again, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            run_that_started_or_spoke_is_not_run_again, setup, teardown),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("rules", rules),
    };
    return bl_run_groups(argc, argv, groups);
}
