/* One usage-error wording for all verbs, and their shared option hooks. */
#include "cli/cli_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "launcher/launcher_choice.h"

int bl_cli_usage_error(const char *verb, const char *fmt, ...)
{
    va_list ap;
    bl_err e;
    char *text;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text) {
        va_start(ap, fmt);
        vsnprintf(text, (size_t)n + 1, fmt, ap);
        va_end(ap);
        /* through bl_err: a long value echoed is cut, the reason kept */
        bl_err_set(&e, "%s", text);
        free(text);
    } else {
        bl_err_set(&e, "out of memory formatting a usage error");
    }
    fprintf(stderr, "bindlab %s: %s\n(see 'bindlab %s --help')\n", verb,
            e.msg, verb);
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
