/* The one option parser of the bindlab verbs (harness/cli/cli_options.h),
 * on a made-up verb's table: the spellings, a missing value, unknown
 * options, "--", repeats, flags given a value, and the messages printed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli_options.h"
#include "cli/cli_util.h"

typedef struct opts {
    const char *out, *kernel, *pair[2];
    int csv, array_given, nsizes, nwords;
    const char *array, *words[8];
} opts;

static int count_size(void *o, const char *v, bl_err *err)
{
    if (strcmp(v, "huge") == 0)
        return bl_err_set(err, "--size: '%s' is too much", v);
    if (strcmp(v, "fatal") == 0) {
        bl_err_set(err, "out of memory");
        return BL_EXIT_FAILED;
    }
    ((opts *)o)->nsizes++;
    return 0;
}

static int set_array(void *o, const char *v, bl_err *err)
{
    (void)err;
    ((opts *)o)->array_given = 1;
    ((opts *)o)->array = v;
    return 0;
}

static int add_word(void *o, const char *v, bl_err *err)
{
    opts *p = o;
    if (p->nwords == 8)
        return bl_err_set(err, "too many words");
    p->words[p->nwords++] = v;
    return 0;
}

static const bl_cli_opt table[] = {
    {"-o, --out", BL_OPT_VALUE, "FILE", "the output", offsetof(opts, out),
     NULL, NULL},
    {"--kernel", BL_OPT_VALUE, "K", "one kernel", offsetof(opts, kernel),
     NULL, "%s: give a kernel"},
    {"--csv", BL_OPT_FLAG, NULL, "CSV", offsetof(opts, csv), NULL, NULL},
    {"--size", BL_OPT_VALUE, "S", "counted", BL_OPT_NO_SLOT, count_size,
     NULL},
    {"--array", BL_OPT_OPTIONAL, "K", "optional K", BL_OPT_NO_SLOT,
     set_array, NULL},
    {"--ab", BL_OPT_PAIR, "A B", "two", offsetof(opts, pair), NULL, NULL},
};

static const char *const help[] = {"usage: bindlab demo\n", "part two\n",
                                   NULL};

static const bl_cli_spec spec = {.verb = "demo", .help = help, .opts = table,
                                 .nopts = BL_CLI_NOPTS(table),
                                 .positional = add_word};

/* A verb of one word: the second is refused in the verb's words, the
 * unknown option too. */
typedef struct one {
    int csv;
    const char *file;
} one;

static const bl_cli_opt one_table[] = {
    {"--csv", BL_OPT_FLAG, NULL, "CSV", offsetof(one, csv), NULL, NULL},
};

static const bl_cli_spec one_spec = {
    .verb = "one", .help = help, .opts = one_table,
    .nopts = BL_CLI_NOPTS(one_table), .word_slot = offsetof(one, file),
    .one_word = "one file only (got a second: '%s')",
    .unknown = "unknown argument '%s' (accepted: --csv)"};

/* What a parse printed on stderr and stdout, and its answer. */
static char err_text[4096], out_text[4096];

static void read_back(FILE *f, char *buf, size_t len)
{
    size_t n;
    rewind(f);
    n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* bl_cli_parse of sp with stderr and stdout caught in err_text and
 * out_text. */
static int run(const bl_cli_spec *sp, int argc, char **argv, void *o)
{
    int rc, saved_err, saved_out;
    FILE *e = tmpfile(), *out = tmpfile();
    assert_non_null(e);
    assert_non_null(out);
    fflush(stderr);
    fflush(stdout);
    saved_err = dup(STDERR_FILENO);
    saved_out = dup(STDOUT_FILENO);
    dup2(fileno(e), STDERR_FILENO);
    dup2(fileno(out), STDOUT_FILENO);
    rc = bl_cli_parse(sp, argc, argv, o);
    fflush(stderr);
    fflush(stdout);
    dup2(saved_err, STDERR_FILENO);
    dup2(saved_out, STDOUT_FILENO);
    close(saved_err);
    close(saved_out);
    read_back(e, err_text, sizeof err_text);
    read_back(out, out_text, sizeof out_text);
    return rc;
}

/* Parses the words (NULL-terminated, the verb first) into *o. */
static int parse(opts *o, const char *word, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;
    va_start(ap, word);
    for (const char *w = word; w && argc < 31; w = va_arg(ap, const char *))
        argv[argc++] = (char *)w;
    va_end(ap);
    argv[argc] = NULL;
    memset(o, 0, sizeof *o);
    return run(&spec, argc, argv, o);
}

static void one_word_verb_refuses_a_second(void **state)
{
    char *ok[] = {"one", "a.h5", "--csv", NULL};
    char *two[] = {"one", "a.h5", "b.h5", NULL};
    char *bad[] = {"one", "--bogus", NULL};
    one o = {0, NULL};
    (void)state;
    assert_int_equal(run(&one_spec, 3, ok, &o), -1);
    assert_string_equal(o.file, "a.h5");
    assert_int_equal(o.csv, 1);
    memset(&o, 0, sizeof o);
    assert_int_equal(run(&one_spec, 3, two, &o), BL_EXIT_USAGE);
    assert_string_equal(err_text, "bindlab one: one file only (got a second: "
                                  "'b.h5')\n(see 'bindlab one --help')\n");
    assert_int_equal(run(&one_spec, 2, bad, &o), BL_EXIT_USAGE);
    assert_string_equal(err_text, "bindlab one: unknown argument '--bogus' "
                                  "(accepted: --csv)\n"
                                  "(see 'bindlab one --help')\n");
}

static void value_joined_or_next_word_is_the_same(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "--out", "a.h5", "--kernel=triad",
                           NULL), -1);
    assert_string_equal(o.out, "a.h5");
    assert_string_equal(o.kernel, "triad");
    assert_int_equal(parse(&o, "demo", "--out=b.h5", "--kernel", "lu", NULL),
                     -1);
    assert_string_equal(o.out, "b.h5");
    assert_string_equal(o.kernel, "lu");
    assert_string_equal(err_text, "");
}

static void short_alias_takes_a_value_both_ways(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "-o", "x", NULL), -1);
    assert_string_equal(o.out, "x");
    assert_int_equal(parse(&o, "demo", "-o=y", NULL), -1);
    assert_string_equal(o.out, "y");
}

static void value_may_start_with_a_dash(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "--out", "-", NULL), -1);
    assert_string_equal(o.out, "-");
}

static void missing_value_at_the_end_is_a_usage_error(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "x.h5", "--out", NULL), BL_EXIT_USAGE);
    assert_string_equal(err_text, "bindlab demo: --out needs a value\n"
                                  "(see 'bindlab demo --help')\n");
    /* the table's own wording, naming the spelling given */
    assert_int_equal(parse(&o, "demo", "--kernel", NULL), BL_EXIT_USAGE);
    assert_non_null(strstr(err_text,
                           "bindlab demo: --kernel: give a kernel\n"));
}

static void empty_value_is_a_missing_value(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "--out=", NULL), BL_EXIT_USAGE);
    assert_non_null(strstr(err_text, "--out needs a value"));
    assert_int_equal(parse(&o, "demo", "-o", "", NULL), BL_EXIT_USAGE);
    assert_non_null(strstr(err_text, "-o needs a value"));
}

static void unknown_option_is_named(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "--csv", "--bogus=1", "--out", "x",
                           NULL), BL_EXIT_USAGE);
    assert_string_equal(err_text, "bindlab demo: unknown option '--bogus=1'\n"
                                  "(see 'bindlab demo --help')\n");
    /* a prefix of a known option is not that option */
    assert_int_equal(parse(&o, "demo", "--ou", "x", NULL), BL_EXIT_USAGE);
    assert_non_null(strstr(err_text, "unknown option '--ou'"));
}

static void double_dash_ends_the_options(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "a", "--", "--out", "-h", "--",
                           NULL), -1);
    assert_null(o.out);
    assert_int_equal(o.nwords, 4);
    assert_string_equal(o.words[0], "a");
    assert_string_equal(o.words[1], "--out");
    assert_string_equal(o.words[2], "-h");
    assert_string_equal(o.words[3], "--");
}

static void dash_alone_is_a_word(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "-", NULL), -1);
    assert_int_equal(o.nwords, 1);
    assert_string_equal(o.words[0], "-");
}

static void repeated_option_last_wins_hook_sees_each(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "--out", "a", "--out=b", "--size", "1",
                           "--size=2", "--size", "3", NULL), -1);
    assert_string_equal(o.out, "b");
    assert_int_equal(o.nsizes, 3);
}

static void flag_given_a_value_is_refused(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "--csv=yes", NULL), BL_EXIT_USAGE);
    assert_string_equal(err_text, "bindlab demo: --csv takes no value (got "
                                  "'--csv=yes')\n"
                                  "(see 'bindlab demo --help')\n");
    assert_int_equal(parse(&o, "demo", "--csv", "yes", NULL), -1);
    assert_int_equal(o.csv, 1);
    assert_string_equal(o.words[0], "yes");
}

static void optional_value_only_joined(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "--array", "3", NULL), -1);
    assert_int_equal(o.array_given, 1);
    assert_null(o.array);
    assert_string_equal(o.words[0], "3");
    assert_int_equal(parse(&o, "demo", "--array=4", NULL), -1);
    assert_string_equal(o.array, "4");
}

static void pair_takes_two_words(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "--ab", "p", "q", "r", NULL), -1);
    assert_string_equal(o.pair[0], "p");
    assert_string_equal(o.pair[1], "q");
    assert_string_equal(o.words[0], "r");
    assert_int_equal(parse(&o, "demo", "--ab=p", "q", NULL), -1);
    assert_string_equal(o.pair[0], "p");
    assert_string_equal(o.pair[1], "q");
    assert_int_equal(parse(&o, "demo", "--ab", "p", NULL), BL_EXIT_USAGE);
    assert_non_null(strstr(err_text, "--ab needs a value"));
}

static void hook_refusal_is_a_usage_error(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "--size=huge", "--out", "x", NULL),
                     BL_EXIT_USAGE);
    assert_string_equal(err_text, "bindlab demo: --size: 'huge' is too much\n"
                                  "(see 'bindlab demo --help')\n");
    assert_null(o.out); /* stopped at the first error */
    assert_int_equal(parse(&o, "demo", "--size", "fatal", NULL),
                     BL_EXIT_FAILED);
    assert_string_equal(err_text, "bindlab demo: out of memory\n");
}

static void help_prints_every_part(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "-h", "--bogus", NULL), BL_EXIT_OK);
    assert_string_equal(out_text, "usage: bindlab demo\npart two\n");
    assert_int_equal(parse(&o, "demo", "x", "--help", NULL), BL_EXIT_OK);
    assert_string_equal(out_text, "usage: bindlab demo\npart two\n");
}

static void list_options_names_every_spelling(void **state)
{
    opts o;
    (void)state;
    assert_int_equal(parse(&o, "demo", "--list-options", NULL), BL_EXIT_OK);
    assert_string_equal(out_text,
                        "-o --out\tvalue\tFILE\tthe output\n"
                        "--kernel\tvalue\tK\tone kernel\n"
                        "--csv\tflag\t\tCSV\n"
                        "--size\tvalue\tS\tcounted\n"
                        "--array\toptional\tK\toptional K\n"
                        "--ab\tpair\tA B\ttwo\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(value_joined_or_next_word_is_the_same),
        cmocka_unit_test(short_alias_takes_a_value_both_ways),
        cmocka_unit_test(value_may_start_with_a_dash),
        cmocka_unit_test(missing_value_at_the_end_is_a_usage_error),
        cmocka_unit_test(empty_value_is_a_missing_value),
        cmocka_unit_test(unknown_option_is_named),
        cmocka_unit_test(double_dash_ends_the_options),
        cmocka_unit_test(dash_alone_is_a_word),
        cmocka_unit_test(repeated_option_last_wins_hook_sees_each),
        cmocka_unit_test(flag_given_a_value_is_refused),
        cmocka_unit_test(optional_value_only_joined),
        cmocka_unit_test(pair_takes_two_words),
        cmocka_unit_test(hook_refusal_is_a_usage_error),
        cmocka_unit_test(help_prints_every_part),
        cmocka_unit_test(list_options_names_every_spelling),
        cmocka_unit_test(one_word_verb_refuses_a_second),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
