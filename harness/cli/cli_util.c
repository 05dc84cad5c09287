/* One usage-error wording and one option-value reader for all verbs. */
#include "cli/cli_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int bl_cli_usage_error(const char *verb, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "bindlab %s: ", verb);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'bindlab %s --help')\n", verb);
    return BL_EXIT_USAGE;
}

const char *bl_cli_option_value(const char *opt, int argc, char **argv,
                                int *i, int *missing)
{
    size_t n = strlen(opt);
    const char *a = argv[*i];
    int dummy;
    if (!missing)
        missing = &dummy;
    *missing = 0;
    if (strncmp(a, opt, n) != 0 || (a[n] != '\0' && a[n] != '='))
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (*i + 1 < argc)
        return argv[++*i];
    *missing = 1;
    return NULL;
}
