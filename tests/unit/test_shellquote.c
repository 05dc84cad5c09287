/* Shell quoting reads back as the original words: checked by running the
 * quoted line through /bin/sh and comparing what it prints. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc/shellquote.h"

static void shell_quote_leaves_safe_words_bare(void **state)
{
    char *q = bl_shell_quote("--map-by=ppr:1:socket:PE=2");
    (void)state;
    assert_string_equal(q, "--map-by=ppr:1:socket:PE=2");
    free(q);
    q = bl_shell_quote("");
    assert_string_equal(q, "''");
    free(q);
    q = bl_shell_quote("{0:4},{4:4}");
    assert_string_equal(q, "'{0:4},{4:4}'");
    free(q);
}

/* printf '%s\n' QUOTED | what the shell made of it */
static char *through_sh(const char *word)
{
    char *q = bl_shell_quote(word);
    size_t len = strlen(q) + 32;
    char *script = malloc(len);
    static char out[4096];
    int fds[2];
    pid_t pid;
    ssize_t n, total = 0;
    snprintf(script, len, "printf %%s %s", q);
    free(q);
    if (pipe(fds) < 0)
        return NULL;
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    while ((n = read(fds[0], out + total, sizeof out - 1 - (size_t)total)) > 0)
        total += n;
    close(fds[0]);
    waitpid(pid, NULL, 0);
    free(script);
    out[total] = '\0';
    return out;
}

static void shell_quote_survives_hostile_values(void **state)
{
    static const char *const hostile[] = {
        "a b", "it's", "'", "''", "$(touch /tmp/bl_pwned)", "`id`", "x;rm -rf /",
        "a\"b", "back\\slash", "new\nline", "$HOME", "*", "-n", "tab\there",
        "{0:4},{4:4}", "!event"};
    (void)state;
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        char *got = through_sh(hostile[i]);
        assert_non_null(got);
        assert_string_equal(got, hostile[i]);
    }
    assert_int_equal(access("/tmp/bl_pwned", F_OK), -1);
}

static void shell_join_quotes_each_word(void **state)
{
    char *argv[] = {"mpirun", "-x", "OMP_PLACES={0:2},{2:2}", "-x",
                    "OMP_AFFINITY_FORMAT=a b", NULL};
    char *line = bl_shell_join(argv);
    (void)state;
    assert_string_equal(line, "mpirun -x 'OMP_PLACES={0:2},{2:2}' -x "
                              "'OMP_AFFINITY_FORMAT=a b'");
    free(line);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shell_quote_leaves_safe_words_bare),
        cmocka_unit_test(shell_quote_survives_hostile_values),
        cmocka_unit_test(shell_join_quotes_each_word),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
