/* bl_launch_run on real processes: exit codes, signals, timeouts that must
 * kill whole process trees, a run that dies with its caller, output capture
 * and logs, environment.
 *
 * No wall-clock bounds: the suite runs under ASan, two tests at a time, on
 * two cores. What is asserted is order (a run ends no earlier than its
 * timeout; a lock the caller held is released no earlier than the run's
 * last process died) and outcome (the processes are gone, the status says
 * timeout); the only upper bounds say that a run did not go on to the
 * natural end of a program that sleeps 1000 s. */
#include "bl_test.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/launch.h"

#define ARGV(...) ((char *const[]){__VA_ARGS__, NULL})

/* Far below the 1000 s the programs below would sleep, far above what any
 * loaded machine needs to end them. */
#define NOT_TO_THE_END_S 300.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char proc_state(pid_t pid, int *sid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    char *p = strrchr(line, ')'), st = 0;
    int ppid, pgrp, s = 0;
    if (p && sscanf(p + 1, " %c %d %d %d", &st, &ppid, &pgrp, &s) == 4 && sid)
        *sid = s;
    return st;
}

/* Running, as opposed to gone or a zombie: this container's init does not
 * reap orphans, so a killed grandchild may stay a zombie under it. */
static int running(pid_t pid)
{
    if (kill(pid, 0) != 0)
        return 0;
    char st = proc_state(pid, NULL);
    return st && st != 'Z' && st != 'X';
}

/* Live processes of session sid, the leader included. */
static int session_live(pid_t sid)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    struct dirent *de;
    int live = 0;
    while ((de = readdir(d))) {
        char *end;
        long v = strtol(de->d_name, &end, 10);
        int s = -1;
        if (*end || v <= 0)
            continue;
        char st = proc_state((pid_t)v, &s);
        if (s == sid && st && st != 'Z' && st != 'X')
            live++;
    }
    closedir(d);
    return live;
}

static void run_ok(const bl_launch_opts *o, bl_launch_result *r)
{
    bl_err err = {{0}};
    int rc = bl_launch_run(o, r, &err);
    if (rc != 0)
        fail_msg("bl_launch_run: %s", err.msg);
}

static void launch_reports_exit_status(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c", "exit 3")};
    run_ok(&o, &r);
    assert_int_equal(r.exited, 1);
    assert_int_equal(r.exit_status, 3);
    assert_int_equal(r.term_signal, 0);
    assert_int_equal(r.timed_out, 0);
    assert_true(r.pid > 0);
    char text[128];
    bl_launch_describe(&r, &o, text, sizeof text);
    assert_string_equal(text, "exit status 3");
    bl_launch_result_free(&r);

    o.argv = ARGV("true");  /* found through PATH */
    run_ok(&o, &r);
    assert_int_equal(r.exited, 1);
    assert_int_equal(r.exit_status, 0);
    bl_launch_result_free(&r);
}

static void launch_reports_signal_death(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c", "kill -USR1 $$")};
    run_ok(&o, &r);
    assert_int_equal(r.exited, 0);
    assert_int_equal(r.term_signal, SIGUSR1);
    assert_int_equal(r.timed_out, 0);
    char text[128];
    bl_launch_describe(&r, &o, text, sizeof text);
    assert_non_null(strstr(text, "killed by signal 10"));
    bl_launch_result_free(&r);
}

static void launch_captures_stdout_and_stderr_apart(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c",
                                     "echo out1; echo err1 >&2; echo out2")};
    run_ok(&o, &r);
    assert_string_equal(r.out.head, "out1\nout2\n");
    assert_string_equal(r.errs.head, "err1\n");
    assert_int_equal(r.out.total, 10);
    assert_int_equal(r.out.dropped, 0);
    assert_string_equal(r.out.tail, "");
    bl_launch_result_free(&r);
}

static void launch_stdin_is_dev_null(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c", "readlink /proc/self/fd/0"),
                        .timeout_s = 10};
    run_ok(&o, &r);
    assert_string_equal(r.out.head, "/dev/null\n");
    bl_launch_result_free(&r);
}

static void launch_child_leads_its_own_group_and_session(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c",
                                     "cut -d' ' -f5,6 /proc/$$/stat")};
    run_ok(&o, &r);
    char want[64];
    snprintf(want, sizeof want, "%d %d\n", (int)r.pid, (int)r.pid);
    assert_string_equal(r.out.head, want);
    bl_launch_result_free(&r);
}

/* Several MB on stderr first, then on stdout: a reader that drained one
 * pipe to its end before the other would deadlock here. */
static void launch_large_output_on_both_streams_does_not_deadlock(void **state)
{
    (void)state;
    size_t want = 0;
    char num[16];
    for (int i = 1; i <= 1000000; i++)
        want += (size_t)snprintf(num, sizeof num, "%d\n", i);
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c",
                                     "seq 1 1000000 >&2; seq 1 1000000"),
                        .timeout_s = 60, .head_max = 1 << 20,
                        .tail_max = 64 << 10};
    run_ok(&o, &r);
    assert_int_equal(r.timed_out, 0);
    assert_int_equal(r.exit_status, 0);
    const bl_launch_output *c[2] = {&r.out, &r.errs};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(c[i]->total, want);
        assert_int_equal(c[i]->head_len, 1 << 20);
        assert_int_equal(c[i]->tail_len, 64 << 10);
        assert_int_equal(c[i]->dropped, want - (1 << 20) - (64 << 10));
        assert_memory_equal(c[i]->head, "1\n2\n3\n", 6);
        size_t tl = c[i]->tail_len;
        assert_string_equal(c[i]->tail + tl - 15, "999999\n1000000\n");
        char last[64];
        bl_launch_last_lines(c[i], 2, last, sizeof last);
        assert_string_equal(last, "999999\n1000000");
    }
    char *text = bl_launch_output_text(&r.out);
    assert_non_null(text);
    char mark[64];
    snprintf(mark, sizeof mark, "[... %zu bytes not kept ...]", r.out.dropped);
    assert_non_null(strstr(text, mark));
    free(text);
    bl_launch_result_free(&r);
}

static void launch_last_lines_of_stderr(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c",
                                     "printf 'a\\nbb\\nccc\\n' >&2")};
    run_ok(&o, &r);
    char buf[64];
    assert_int_equal(bl_launch_last_lines(&r.errs, 2, buf, sizeof buf), 6);
    assert_string_equal(buf, "bb\nccc");
    bl_launch_last_lines(&r.errs, 10, buf, sizeof buf);
    assert_string_equal(buf, "a\nbb\nccc");
    bl_launch_last_lines(&r.errs, 2, buf, 4);  /* too long: keep the end */
    assert_string_equal(buf, "ccc");
    bl_launch_last_lines(&r.out, 2, buf, sizeof buf);
    assert_string_equal(buf, "");
    bl_launch_result_free(&r);
}

static void launch_timeout_ends_sleep_within_deadline(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("sleep", "1000"), .timeout_s = 1,
                        .grace_s = 1};
    run_ok(&o, &r);
    assert_int_equal(r.timed_out, 1);
    assert_int_equal(r.killed, 0);  /* sleep obeys SIGTERM */
    assert_int_equal(r.term_signal, SIGTERM);
    assert_true(r.wall_s >= o.timeout_s);  /* not before its time */
    assert_true(r.wall_s < NOT_TO_THE_END_S);
    assert_false(running(r.pid));
    char text[128];
    bl_launch_describe(&r, &o, text, sizeof text);
    assert_string_equal(text, "timed out after 1 s (ended by SIGTERM)");
    bl_launch_result_free(&r);
}

/* The grandchild, not the child, is what a hung mpirun run looks like. */
static void launch_timeout_kills_grandchild_ignoring_sigterm(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c",
                                     "trap '' TERM; sleep 1000 & echo $!; wait"),
                        .timeout_s = 1, .grace_s = 1};
    run_ok(&o, &r);
    assert_int_equal(r.timed_out, 1);
    assert_int_equal(r.killed, 1);
    assert_int_equal(r.term_signal, SIGKILL);
    /* SIGKILL only after the grace period */
    assert_true(r.wall_s >= o.timeout_s + o.grace_s);
    assert_true(r.wall_s < NOT_TO_THE_END_S);
    pid_t g = (pid_t)atoi(r.out.head);
    assert_true(g > 0);
    assert_false(running(g));
    assert_false(running(r.pid));
    assert_int_equal(session_live(r.pid), 0);
    bl_launch_result_free(&r);
}

/* Open MPI puts each rank in a process group of its own: signalling the
 * child's group alone would leave them running. */
static void launch_timeout_kills_descendant_that_left_the_group(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_launch_opts o = {
        .argv = ARGV("/bin/sh", "-c",
                     "trap '' TERM; perl -e 'setpgrp(0, 0); sleep 100' & "
                     "echo $!; wait"),
        .timeout_s = 1, .grace_s = 1};
    run_ok(&o, &r);
    assert_int_equal(r.timed_out, 1);
    pid_t g = (pid_t)atoi(r.out.head);
    assert_true(g > 0);
    assert_false(running(g));
    assert_int_equal(session_live(r.pid), 0);
    bl_launch_result_free(&r);
}

/* The child exits but leaves a process that holds its stdout open. */
static void launch_kills_strays_left_by_exited_child(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c", "sleep 1000 & echo $!"),
                        .timeout_s = NOT_TO_THE_END_S};
    run_ok(&o, &r);
    assert_int_equal(r.timed_out, 0);  /* it did not wait for the stray */
    assert_int_equal(r.exited, 1);
    assert_int_equal(r.exit_status, 0);
    assert_int_equal(r.strays, 1);
    pid_t g = (pid_t)atoi(r.out.head);
    assert_true(g > 0);
    assert_false(running(g));
    bl_launch_result_free(&r);
}

/* mpirun -np 2 of two ranks that print "rank PID" and hang (root needs
 * --allow-run-as-root with Open MPI 4 and 5). */
static bl_launch_opts hung_mpirun(void)
{
    static char *const as_user[] = {"mpirun", "-np", "2", "--oversubscribe",
                                    "sh", "-c",
                                    "echo rank $$; exec sleep 1000", NULL};
    static char *const as_root[] = {"mpirun", "--allow-run-as-root", "-np",
                                    "2", "--oversubscribe", "sh", "-c",
                                    "echo rank $$; exec sleep 1000", NULL};
    static char *const env[] = {"OMPI_ALLOW_RUN_AS_ROOT=1",
                                "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", NULL};
    bl_launch_opts o = {.argv = getuid() == 0 ? as_root : as_user,
                        .env = env, .grace_s = 2};
    return o;
}

/* Only "no mpirun in PATH" is a reason to skip: any other launch error is
 * a failure. */
static void launch_timeout_ends_hung_mpirun_and_its_ranks(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_err err = {{0}};
    char path[4096];
    if (!bl_test_find_program("mpirun", path, sizeof path))
        BL_SKIP("no mpirun in PATH");
    bl_launch_opts o = hung_mpirun();
    /* A timer, not an event, ends this run: how many ranks mpirun started
     * by then is the machine's (none under heavy load), so every rank that
     * did start must be gone, whatever their number. That both ranks of a
     * running mpirun are ended is synchronised on their start in
     * launch_interrupt_ends_mpirun_after_its_ranks_started. */
    o.timeout_s = 5;
    if (bl_launch_run(&o, &r, &err) != 0)
        fail_msg("mpirun is in PATH (%s) but could not be started: %s", path,
                 err.msg);
    assert_int_equal(r.timed_out, 1);
    assert_true(r.wall_s >= o.timeout_s);
    assert_int_equal(session_live(r.pid), 0);
    int ranks = 0;
    for (const char *p = r.out.head; (p = strstr(p, "rank ")); p++) {
        pid_t rank = (pid_t)atoi(p + 5);
        assert_true(rank > 0);
        assert_false(running(rank));
        ranks++;
    }
    assert_true(ranks <= 2);
    print_message("%d of 2 ranks had started at the timeout\n", ranks);
    bl_launch_result_free(&r);
}

static void launch_missing_program_is_a_clear_error(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_err err = {{0}};
    bl_launch_opts o = {.argv = ARGV("bindlab-no-such-program")};
    assert_int_equal(bl_launch_run(&o, &r, &err), -1);
    assert_string_equal(err.msg,
                        "'bindlab-no-such-program': program not found in PATH");
    bl_launch_result_free(&r);

    o.argv = ARGV("/nonexistent/mpirun");
    assert_int_equal(bl_launch_run(&o, &r, &err), -1);
    assert_string_equal(err.msg, "'/nonexistent/mpirun': no such program");
    bl_launch_result_free(&r);

    /* a file without execute permission, and one with it but no program */
    char dir[] = "/tmp/bl_launch_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/prog", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("not a program\n", f);
    fclose(f);
    char *const argv[] = {path, NULL};
    o.argv = argv;
    char want[128];
    chmod(path, 0644);
    assert_int_equal(bl_launch_run(&o, &r, &err), -1);
    snprintf(want, sizeof want, "'%s': not an executable program", path);
    assert_memory_equal(err.msg, want, strlen(want));
    bl_launch_result_free(&r);
    chmod(path, 0755);
    assert_int_equal(bl_launch_run(&o, &r, &err), -1);
    snprintf(want, sizeof want, "'%s': not a program this system can run", path);
    assert_memory_equal(err.msg, want, strlen(want));
    bl_launch_result_free(&r);
    unlink(path);
    rmdir(dir);
}

static void launch_env_entries_reach_child_and_override(void **state)
{
    (void)state;
    setenv("BL_LAUNCH_T", "parent", 1);
    bl_launch_result r;
    bl_launch_opts o = {
        .argv = ARGV("/bin/sh", "-c",
                     "printf '%s|%s|' \"$BL_LAUNCH_T\" \"$BL_LAUNCH_NEW\"; "
                     "env | grep -c '^BL_LAUNCH_T='"),
        .env = ARGV("BL_LAUNCH_T=child", "BL_LAUNCH_NEW=a b")};
    run_ok(&o, &r);
    assert_string_equal(r.out.head, "child|a b|1\n");
    bl_launch_result_free(&r);

    o.env = NULL;  /* inherited as is */
    run_ok(&o, &r);
    assert_string_equal(r.out.head, "parent||1\n");
    bl_launch_result_free(&r);
    unsetenv("BL_LAUNCH_T");
}

static void launch_rejects_env_entry_without_equals(void **state)
{
    (void)state;
    bl_launch_result r;
    bl_err err = {{0}};
    bl_launch_opts o = {.argv = ARGV("true"), .env = ARGV("OMP_PLACES")};
    assert_int_equal(bl_launch_run(&o, &r, &err), -1);
    assert_string_equal(err.msg,
                        "environment entry 'OMP_PLACES': expected NAME=VALUE");
    bl_launch_result_free(&r);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void launch_logs_streams_to_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/bl_launch_XXXXXX", po[64], pe[64], part[80];
    assert_non_null(mkdtemp(dir));
    snprintf(po, sizeof po, "%s/out.log", dir);
    snprintf(pe, sizeof pe, "%s/err.log", dir);
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c",
                                     "echo o1; echo e1 >&2; echo o2"),
                        .stdout_path = po, .stderr_path = pe};
    run_ok(&o, &r);
    assert_int_equal(r.log_errno, 0);
    assert_string_equal(slurp(po), "o1\no2\n");
    assert_string_equal(slurp(pe), "e1\n");
    snprintf(part, sizeof part, "%s.part", po);
    assert_int_equal(access(part, F_OK), -1);
    bl_launch_result_free(&r);

    o.stderr_path = po;  /* one combined log */
    run_ok(&o, &r);
    assert_int_equal(strlen(slurp(po)), 9);
    assert_non_null(strstr(slurp(po), "e1\n"));
    bl_launch_result_free(&r);
    unlink(po);
    unlink(pe);

    bl_err err = {{0}};
    o.stdout_path = "/nonexistent-dir/out.log";
    assert_int_equal(bl_launch_run(&o, &r, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/out.log.part"));
    bl_launch_result_free(&r);
    rmdir(dir);
}

struct watcher {
    const char *part;
    int (*ready)(const char *log); /* the log's text says: interrupt now */
    int seen;
};

/* Plays the harness's signal handler: once the hung run's log on disk is
 * ready, interrupt it. No bound on the wait (a loaded machine may take
 * seconds to start sh): CTest's timeout ends a run that never writes. */
static void *watch_then_interrupt(void *arg)
{
    struct watcher *w = arg;
    while (!w->seen) {
        char *s = slurp(w->part);
        w->seen = s && w->ready(s);
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    bl_launch_interrupt();
    return NULL;
}

static int started(const char *log)
{
    return strcmp(log, "started\n") == 0;
}

static void launch_interrupt_ends_run_whose_log_is_on_disk(void **state)
{
    (void)state;
    char dir[] = "/tmp/bl_launch_XXXXXX", po[64], part[80];
    assert_non_null(mkdtemp(dir));
    snprintf(po, sizeof po, "%s/out.log", dir);
    snprintf(part, sizeof part, "%s.part", po);
    struct watcher w = {.part = part, .ready = started};
    pthread_t t;
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c", "echo started; sleep 1000"),
                        .stdout_path = po, .timeout_s = NOT_TO_THE_END_S,
                        .grace_s = 1};
    assert_int_equal(pthread_create(&t, NULL, watch_then_interrupt, &w), 0);
    run_ok(&o, &r);
    pthread_join(t, NULL);
    assert_int_equal(w.seen, 1);
    assert_int_equal(r.interrupted, 1);
    assert_int_equal(r.timed_out, 0);
    assert_string_equal(slurp(po), "started\n");
    bl_launch_result_free(&r);

    /* still interrupted: the next run must not start */
    bl_err err = {{0}};
    o.argv = ARGV("true");
    o.stdout_path = NULL;
    assert_int_equal(bl_launch_run(&o, &r, &err), -1);
    assert_non_null(strstr(err.msg, "interrupted"));
    bl_launch_result_free(&r);
    bl_launch_clear_interrupt();
    run_ok(&o, &r);
    assert_int_equal(r.exit_status, 0);
    bl_launch_result_free(&r);
    unlink(po);
    rmdir(dir);
}

/* Counts the "rank PID" lines in text. */
static int rank_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, "rank ")); p++)
        n++;
    return n;
}

static int both_ranks(const char *log)
{
    return rank_lines(log) == 2;
}

/* mpirun whose two ranks both run, ended from outside (the harness's
 * signal handler, as at a timeout): the ranks, which are mpirun's
 * children in its own process group or daemons' in another, are gone with
 * it. Synchronised on the ranks' lines in the log, not on a duration. */
static void launch_interrupt_ends_mpirun_after_its_ranks_started(void **state)
{
    (void)state;
    char path[4096], dir[] = "/tmp/bl_launch_XXXXXX", po[64], part[80];
    if (!bl_test_find_program("mpirun", path, sizeof path))
        BL_SKIP("no mpirun in PATH");
    assert_non_null(mkdtemp(dir));
    snprintf(po, sizeof po, "%s/out.log", dir);
    snprintf(part, sizeof part, "%s.part", po);
    bl_launch_opts o = hung_mpirun();
    o.stdout_path = po;
    o.timeout_s = NOT_TO_THE_END_S;
    struct watcher w = {.part = part, .ready = both_ranks};
    pthread_t t;
    bl_launch_result r;
    assert_int_equal(pthread_create(&t, NULL, watch_then_interrupt, &w), 0);
    run_ok(&o, &r);
    pthread_join(t, NULL);
    bl_launch_clear_interrupt();
    assert_int_equal(r.interrupted, 1);
    assert_int_equal(r.timed_out, 0);
    assert_int_equal(session_live(r.pid), 0);
    assert_int_equal(rank_lines(r.out.head), 2);
    for (const char *p = r.out.head; (p = strstr(p, "rank ")); p++) {
        pid_t rank = (pid_t)atoi(p + 5);
        assert_true(rank > 0);
        assert_false(running(rank));
    }
    bl_launch_result_free(&r);
    unlink(po);
    rmdir(dir);
}

/* The caller (the harness) is killed with SIGKILL in the middle of a run:
 * the run must die with it, including a process that left the group and
 * one that ignores SIGTERM, and a lock the caller held must stay held until
 * the run's last process is gone, so that whoever waits for the lock never
 * overlaps what is left of the run. */
static void launch_run_dies_with_its_caller(void **state)
{
    (void)state;
    char dir[] = "/tmp/bl_launch_XXXXXX", lock[64], pids[64];
    assert_non_null(mkdtemp(dir));
    snprintf(lock, sizeof lock, "%s/lock", dir);
    snprintf(pids, sizeof pids, "%s/pids", dir);
    char script[512];
    snprintf(script, sizeof script,
             "trap '' TERM; sleep 1000 & echo $! >%s.part; "
             "perl -e 'setpgrp(0, 0); sleep 1000' & echo $! >>%s.part; "
             "mv %s.part %s; wait", pids, pids, pids, pids);
    pid_t caller = fork();
    assert_true(caller >= 0);
    if (caller == 0) {
        int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0 || flock(fd, LOCK_EX) != 0)
            _exit(3);
        bl_launch_result r;
        bl_err err;
        bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c", script)};
        bl_launch_run(&o, &r, &err);
        _exit(4);  /* not reached: killed first */
    }
    /* wait until both processes of the run are up */
    pid_t p[2] = {0, 0};
    double deadline = now_s() + NOT_TO_THE_END_S;
    for (;;) {
        FILE *f = fopen(pids, "r");
        int n = f ? fscanf(f, "%d %d", &p[0], &p[1]) : 0;
        if (f)
            fclose(f);
        if (n == 2)
            break;
        int st;
        if (waitpid(caller, &st, WNOHANG) == caller)
            fail_msg("the caller ended before the run started (status %d)",
                     st);
        if (now_s() > deadline)
            fail_msg("the run did not start");
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    int sid = 0;
    proc_state(p[0], &sid);
    assert_true(sid > 0);
    assert_true(running(p[0]) && running(p[1]));
    assert_int_equal(kill(caller, SIGKILL), 0);
    assert_int_equal(waitpid(caller, NULL, 0), caller);

    int fd = open(lock, O_RDWR | O_CLOEXEC);
    assert_true(fd >= 0);
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (now_s() > deadline)
            fail_msg("the lock is still held; run processes: %d %d",
                     running(p[0]), running(p[1]));
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* the lock is free: nothing of the run may be left */
    assert_false(running(p[0]));
    assert_false(running(p[1]));
    assert_int_equal(session_live(sid), 0);
    close(fd);
    unlink(lock);
    unlink(pids);
    rmdir(dir);
}

/* Last: it changes this process for good. As the reaper of orphans we must
 * leave no zombie either, so the grandchild must be gone entirely. */
static void launch_reaps_killed_grandchildren_when_adopting(void **state)
{
    (void)state;
    bl_err err = {{0}};
    assert_int_equal(bl_launch_adopt_orphans(&err), 0);
    bl_launch_result r;
    bl_launch_opts o = {.argv = ARGV("/bin/sh", "-c",
                                     "trap '' TERM; sleep 100 & echo $!; wait"),
                        .timeout_s = 0.5, .grace_s = 0.5};
    run_ok(&o, &r);
    pid_t g = (pid_t)atoi(r.out.head);
    assert_true(g > 0);
    errno = 0;
    assert_int_equal(kill(g, 0), -1);
    assert_int_equal(errno, ESRCH);
    bl_launch_result_free(&r);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest launch[] = {
        cmocka_unit_test(launch_reports_exit_status),
        cmocka_unit_test(launch_reports_signal_death),
        cmocka_unit_test(launch_captures_stdout_and_stderr_apart),
        cmocka_unit_test(launch_stdin_is_dev_null),
        cmocka_unit_test(launch_child_leads_its_own_group_and_session),
        cmocka_unit_test(launch_large_output_on_both_streams_does_not_deadlock),
        cmocka_unit_test(launch_last_lines_of_stderr),
        cmocka_unit_test(launch_timeout_ends_sleep_within_deadline),
        cmocka_unit_test(launch_timeout_kills_grandchild_ignoring_sigterm),
        cmocka_unit_test(launch_timeout_kills_descendant_that_left_the_group),
        cmocka_unit_test(launch_kills_strays_left_by_exited_child),
        cmocka_unit_test(launch_missing_program_is_a_clear_error),
        cmocka_unit_test(launch_env_entries_reach_child_and_override),
        cmocka_unit_test(launch_rejects_env_entry_without_equals),
        cmocka_unit_test(launch_logs_streams_to_files),
        cmocka_unit_test(launch_interrupt_ends_run_whose_log_is_on_disk),
        cmocka_unit_test(launch_run_dies_with_its_caller),
        cmocka_unit_test(launch_reaps_killed_grandchildren_when_adopting),
    };
    static const struct CMUnitTest mpirun[] = {
        cmocka_unit_test(launch_timeout_ends_hung_mpirun_and_its_ranks),
        cmocka_unit_test(launch_interrupt_ends_mpirun_after_its_ranks_started),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("launch", launch),
        BL_MACHINE_GROUP("mpirun", mpirun),
    };
    return bl_run_groups(argc, argv, groups);
}
