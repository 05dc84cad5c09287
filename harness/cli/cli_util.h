/* What every verb's argument parsing shares: the exit statuses by name,
 * the one wording of a usage error, and "--opt VALUE" / "--opt=VALUE". */
#ifndef BL_CLI_UTIL_H
#define BL_CLI_UTIL_H

/* The process exit statuses of bindlab (cli.h says when each is used). */
enum bl_exit {
    BL_EXIT_OK = 0,
    BL_EXIT_FAILED = 1,     /* a failure at run time, or something found wrong */
    BL_EXIT_USAGE = 2,      /* bad usage or unreadable/invalid input */
};

/* Prints "bindlab VERB: MESSAGE" and, on the next line, "(see 'bindlab
 * VERB --help')" to stderr; returns BL_EXIT_USAGE. */
int bl_cli_usage_error(const char *verb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* When argv[*i] is opt ("--opt VALUE", or "--opt=VALUE"): the value, with
 * *i moved past it. NULL when argv[*i] is another word, and also when it is
 * opt without a value; *missing (may be NULL) tells the two apart. */
const char *bl_cli_option_value(const char *opt, int argc, char **argv,
                                int *i, int *missing);

#endif
