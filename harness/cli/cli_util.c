/* One usage-error wording for all verbs, and their shared option hooks. */
#include "cli/cli_util.h"

#include <stdarg.h>
#include <stdio.h>

#include "launcher/launcher_choice.h"

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

int bl_cli_launcher_check(void *opts, const char *value, bl_err *err)
{
    bl_launcher_want w;
    (void)opts;
    return bl_launcher_want_parse(value, &w, err) < 0
               ? bl_err_prefix(err, "--launcher")
               : 0;
}
