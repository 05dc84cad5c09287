/* libFuzzer target: the sweep-file reader (YAML -> kernels and expanded
 * layouts), as `bindlab sweep/plan/slurm` call it. Beyond "no crash, no
 * leak", checks what the reader promises: a loaded sweep has a name that is
 * one safe path component, and a refusal names FILE:LINE:COL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
        bl_sweep_free(&s);
    } else if (strncmp(err.msg, "fuzz.yaml", 9) != 0 || s.layouts) {
        abort();
    }
    free(text);
    return 0;
}
