/* libFuzzer target: the sweep-file reader (YAML -> kernels and expanded
 * layouts), as `bindlab sweep/plan/slurm` call it. Beyond "no crash, no
 * leak", checks what the reader promises: a loaded sweep has a name that is
 * one safe path component, an app: sweep's templates all fill in, and a
 * refusal names FILE:LINE:COL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep_app.h"
#include "sweep/sweep_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reader checked every template at load: each fills in for any
 * layout of the sweep. */
static void fill_app(const bl_sweep *s)
{
    bl_app_values v = {&s->layouts[0], 1, 1};
    const bl_app_spec *a = s->app;
    bl_err err;
    if (a->ncommand < 1 || !a->command[0][0] || a->command[a->ncommand] ||
        !a->rate_unit)
        abort();
    for (int i = 0; i < a->ncommand + a->nenv; i++) {
        char *w = bl_app_substitute(i < a->ncommand
                                        ? a->command[i]
                                        : a->env_values[i - a->ncommand],
                                    &v, &err);
        if (!w)
            abort();
        free(w);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    bl_sweep s;
    bl_err err;
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (bl_sweep_file_load_string(text, "fuzz.yaml", &s, &err) == 0) {
        if (!bl_sweep_name_ok(s.name) || s.nlayouts < 1 || s.nkernels < 1)
            abort();
        if (s.app)
            fill_app(&s);
        bl_sweep_free(&s);
    } else if (strncmp(err.msg, "fuzz.yaml", 9) != 0 || s.layouts) {
        abort();
    }
    free(text);
    return 0;
}
