/* libFuzzer target: the probe file reader (harness/results/probe_file.c).
 * Any input is read or refused with a message naming the input; what is
 * read is freed without leaks; a file read as complete has every thread's
 * start set and a process line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/probe_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bl_probe_file f;
    bl_err err = {{0}};
    if (bl_probe_file_parse((const char *)data, size, "fuzz.probe", &f, &err) != 0) {
        if (strncmp(err.msg, "fuzz.probe", 10) != 0)
            abort();
    } else {
        if (!f.host || f.version != BL_PROBE_FORMAT_VERSION)
            abort();
        for (size_t i = 0; i < f.nthreads; i++)
            if (!f.threads[i].start_cpus || !f.threads[i].label)
                abort();
    }
    bl_probe_file_free(&f);
    return 0;
}
