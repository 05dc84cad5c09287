/* bl_launch_run when the harness itself is stopped (SIGSTOP, Ctrl-Z, a
 * checkpointing batch system, a debugger) and continued: the time it spent
 * stopped is not the run's, and a run that ended meanwhile ended in time.
 *
 * Synchronised on events: the program reports its pid through a FIFO and
 * waits on a second one; the caller is seen stopped by waitpid(WUNTRACED);
 * the program's end is seen on its pidfd, or forced to wait for the harness
 * by output larger than a pipe holds. The one sleep is the condition under
 * test: the harness stays stopped past the run's timeout. */
#include "bl_test.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/launch.h"

#define TIMEOUT_S 2.0
/* Larger than a pipe holds (64 KiB by default): a program writing it waits
 * until the harness has read some. */
#define BLOB "head -c 262144 /dev/zero"

/* The caller's exit code says how the run was recorded. */
enum { RECORDED_OK = 0, RECORDED_TIMEOUT = 10, RECORDED_OTHER = 11 };

static _Noreturn void caller(const char *script, double timeout_s)
{
    bl_launch_result r;
    bl_err err;
    bl_launch_opts o = {.argv = (char *const[]){"/bin/sh", "-c",
                                                (char *)script, NULL},
                        .timeout_s = timeout_s};
    if (bl_launch_run(&o, &r, &err) != 0)
        _exit(RECORDED_OTHER);
    if (r.timed_out)
        _exit(RECORDED_TIMEOUT);
    _exit(r.exited && r.exit_status == 0 ? RECORDED_OK : RECORDED_OTHER);
}

static void wait_gone(pid_t pid)
{
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0) {
        assert_int_equal(errno, ESRCH);  /* already gone */
        return;
    }
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    while (poll(&pf, 1, -1) < 0 && errno == EINTR)
        ;
    close(fd);
}

/* The run ends while the harness is stopped, which lasts past the run's
 * timeout: the run is recorded as it ended (exit 0), not as a timeout. */
static void launch_run_ended_while_harness_stopped_is_not_a_timeout(
    void **state)
{
    (void)state;
    char dir[] = "/tmp/bl_launch_stop_XXXXXX", started[64], go[64];
    char script[256];
    assert_non_null(mkdtemp(dir));
    snprintf(started, sizeof started, "%s/started", dir);
    snprintf(go, sizeof go, "%s/go", dir);
    assert_int_equal(mkfifo(started, 0600), 0);
    assert_int_equal(mkfifo(go, 0600), 0);
    snprintf(script, sizeof script, "echo $$ >%s; read x <%s; exit 0",
             started, go);
    pid_t harness = fork();
    assert_true(harness >= 0);
    if (harness == 0)
        caller(script, TIMEOUT_S);

    FILE *f = fopen(started, "r");
    assert_non_null(f);
    int prog = 0;
    assert_int_equal(fscanf(f, "%d", &prog), 1);
    fclose(f);
    int st;
    assert_int_equal(kill(harness, SIGSTOP), 0);
    assert_int_equal(waitpid(harness, &st, WUNTRACED), harness);
    assert_true(WIFSTOPPED(st));

    int fd = open(go, O_WRONLY);  /* the program's read sees EOF */
    assert_true(fd >= 0);
    close(fd);
    wait_gone((pid_t)prog);
    /* the condition under test: stopped past the run's timeout */
    struct timespec past = {(time_t)TIMEOUT_S + 1, 0};
    nanosleep(&past, NULL);

    assert_int_equal(kill(harness, SIGCONT), 0);
    while (waitpid(harness, &st, 0) < 0 && errno == EINTR)
        ;
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), RECORDED_OK);
    unlink(started);
    unlink(go);
    rmdir(dir);
}

/* Stopped past the timeout while the run goes on, then continued: the
 * stop is not counted, and the run, which ends soon after, is ok. After
 * SIGCONT the program writes more than a pipe holds to stdout, then to
 * stderr: it can only end once the harness has read stderr, and stderr
 * has nothing to read until the harness has read stdout after the stop,
 * so the harness has judged the deadline after the stop (the pass that
 * reads stderr starts with that judgement) before the program ends. */
static void launch_time_the_harness_was_stopped_is_not_the_runs(void **state)
{
    (void)state;
    const double timeout_s = 2 * TIMEOUT_S;  /* room for the pipes' work */
    char dir[] = "/tmp/bl_launch_stop_XXXXXX", started[64], go[64];
    char script[384];
    assert_non_null(mkdtemp(dir));
    snprintf(started, sizeof started, "%s/started", dir);
    snprintf(go, sizeof go, "%s/go", dir);
    assert_int_equal(mkfifo(started, 0600), 0);
    assert_int_equal(mkfifo(go, 0600), 0);
    snprintf(script, sizeof script, "echo $$ >%s; read x <%s; " BLOB "; "
             BLOB " >&2; exit 0", started, go);
    pid_t harness = fork();
    assert_true(harness >= 0);
    if (harness == 0)
        caller(script, timeout_s);

    FILE *f = fopen(started, "r");
    assert_non_null(f);
    int prog = 0, st;
    assert_int_equal(fscanf(f, "%d", &prog), 1);
    fclose(f);
    assert_int_equal(kill(harness, SIGSTOP), 0);
    assert_int_equal(waitpid(harness, &st, WUNTRACED), harness);
    assert_true(WIFSTOPPED(st));
    /* the condition under test: stopped past the run's timeout */
    struct timespec past = {(time_t)timeout_s + 1, 0};
    nanosleep(&past, NULL);
    int fd = open(go, O_WRONLY);  /* the program starts writing */
    assert_true(fd >= 0);
    close(fd);

    assert_int_equal(kill(harness, SIGCONT), 0);
    while (waitpid(harness, &st, 0) < 0 && errno == EINTR)
        ;
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), RECORDED_OK);
    unlink(started);
    unlink(go);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest stop[] = {
        cmocka_unit_test(launch_run_ended_while_harness_stopped_is_not_a_timeout),
        cmocka_unit_test(launch_time_the_harness_was_stopped_is_not_the_runs),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("stop", stop),
    };
    return bl_run_groups(argc, argv, groups);
}
