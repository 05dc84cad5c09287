/* Every verb's options, declared once in a table and read by one parser
 * (the way git's parse_options reads a builtin's table): "--opt V" and
 * "--opt=V", a missing value, an unknown option, "--" and the words that
 * are not options are handled the same way by every verb. The same table
 * answers "bindlab VERB --list-options", which bash completion reads, and
 * tests/integration/test_cli_options.sh checks it against each verb's
 * --help text (from which the man pages are written). */
#ifndef BL_CLI_OPTIONS_H
#define BL_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"

typedef enum bl_cli_opt_kind {
    BL_OPT_FLAG,     /* --opt: its int slot becomes 1; --opt=V is refused */
    BL_OPT_VALUE,    /* --opt V or --opt=V: its const char * slot */
    BL_OPT_OPTIONAL, /* --opt or --opt=V, never the next word */
    BL_OPT_PAIR,     /* --opt A B (or --opt=A B): a const char *[2] slot */
} bl_cli_opt_kind;

/* Where nothing is stored: the option's set hook does all the work. */
#define BL_OPT_NO_SLOT ((size_t)-1)

/* An option's hook and a verb's hook for its other words: 0 to go on;
 * -1 a usage error (err says what: printed with the verb's "see --help"
 * line, exit 2); BL_EXIT_FAILED to stop at once with err printed alone. */
typedef int (*bl_cli_set_fn)(void *opts, const char *value, bl_err *err);

typedef struct bl_cli_opt {
    const char *names;   /* every spelling, ", " between: "-o, --out" */
    bl_cli_opt_kind kind;
    const char *arg;     /* the value's placeholder ("DIR"); NULL for a flag */
    const char *help;    /* one line: what it does */
    size_t slot;         /* offsetof the field in the verb's options */
    bl_cli_set_fn set;   /* NULL, or called with the value before it is
                            stored (flag: NULL; optional value not given:
                            NULL); it may refuse it */
    const char *missing; /* NULL, or the message for a missing value (one
                            %s: the spelling given); default "%s needs a
                            value" */
} bl_cli_opt;

typedef struct bl_cli_spec {
    const char *verb;
    const char *const *help;   /* --help, in parts; NULL ends the list */
    const bl_cli_opt *opts;
    size_t nopts;
    bl_cli_set_fn positional;  /* each word that is not an option; NULL:
                                  every such word is refused */
    const char *unknown;       /* message for an unknown option (one %s);
                                  default "unknown option '%s'" */
    const char *one_word;      /* without positional: NULL, or the verb
                                  takes one word, kept in word_slot (a
                                  const char *), and this message (one %s:
                                  the word) refuses a second */
    size_t word_slot;
} bl_cli_spec;

#define BL_CLI_NOPTS(table) (sizeof(table) / sizeof((table)[0]))

/* Reads argv[1..argc-1] (argv[0] is the verb) into opts: options in the
 * order given (a repeated option's hook sees every value; the slot keeps
 * the last), other words to spec->positional, every word after "--" too;
 * "-" alone is a word. "--help"/"-h" prints spec->help. Returns -1 to go
 * on, else the exit status (after --help: 0; an error was printed). */
int bl_cli_parse(const bl_cli_spec *spec, int argc, char **argv, void *opts);

/* "bindlab VERB --list-options": one line per option: its spellings
 * (space-separated), a tab, its kind (flag, value, optional or pair), a
 * tab, its placeholder, a tab, its help line. */
void bl_cli_list_options(const bl_cli_spec *spec, FILE *f);

#endif
