/* The parts of a sweep (sweep_spec.h) that do not depend on where it came
 * from: its name rule and releasing it. */
#include "sweep/sweep_spec.h"

#include <stdlib.h>
#include <string.h>

int bl_sweep_name_ok(const char *name)
{
    size_t n = strlen(name);
    return n >= 1 && n <= 63 && name[0] != '.' && name[0] != '-' &&
           strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                        "0123456789._-") == n;
}

void bl_sweep_free(bl_sweep *s)
{
    for (int i = 0; i < s->nkernels; i++)
        bl_kernel_spec_clear(&s->kernels[i]);
    free(s->kernels);
    free(s->layouts);
    bl_app_spec_free(s->app);
    free(s->app);
    memset(s, 0, sizeof *s);
}

const char *bl_rep_order_name(bl_rep_order o)
{
    return o == BL_REP_CONSECUTIVE ? "consecutive" : "interleaved";
}

int bl_rep_order_parse(const char *text, bl_rep_order *o)
{
    if (strcmp(text, "interleaved") == 0)
        *o = BL_REP_INTERLEAVED;
    else if (strcmp(text, "consecutive") == 0)
        *o = BL_REP_CONSECUTIVE;
    else
        return -1;
    return 0;
}
