/* One usage-error wording for all verbs. */
#include "cli/cli_util.h"

#include <stdarg.h>
#include <stdio.h>

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
