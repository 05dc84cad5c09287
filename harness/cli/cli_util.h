/* What every verb's command line shares: the exit statuses by name and
 * the one wording of a usage error (options: cli_options.h). */
#ifndef BL_CLI_UTIL_H
#define BL_CLI_UTIL_H

#include "err.h"

/* The process exit statuses of bindlab (cli.h says when each is used). */
enum bl_exit {
    BL_EXIT_OK = 0,
    BL_EXIT_FAILED = 1,     /* a failure at run time, or something found wrong */
    BL_EXIT_USAGE = 2,      /* bad usage or unreadable/invalid input */
    BL_EXIT_SIGNAL = 128,   /* + the signal that stopped it, as a shell
                             * says: 130 SIGINT, 143 SIGTERM */
};

/* Prints "bindlab VERB: MESSAGE" and, on the next line, "(see 'bindlab
 * VERB --help')" to stderr; returns BL_EXIT_USAGE. */
int bl_cli_usage_error(const char *verb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* An option hook (cli_options.h) for --launcher: refuses a value that
 * launcher_choice.h does not accept, prefixed "--launcher: ". */
int bl_cli_launcher_check(void *opts, const char *value, bl_err *err);

#endif
