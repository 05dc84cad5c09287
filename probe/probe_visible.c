/* The visible-device variables the process was started with: one
 * "visible" line, once at the start, each variable that is set as a
 * NAME=VALUE field (an empty value hides every GPU of its vendor, so it
 * is written empty, never "-"; an unset one has no field). bindlab run
 * cuts the node's GPUs by them as bindlab-app does (common/gpu_visible.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_priv.h"

/* A value longer than this is cut: a list of 100 GPUs fits. */
#define BP_VISIBLE_TEXT 1800

void bp_visible_record(void)
{
    /* gpu_visible.h's variables and the one bindlab-gpu-wrap adds */
    static const char *const vars[] = {"CUDA_VISIBLE_DEVICES",
                                       "ROCR_VISIBLE_DEVICES",
                                       "ZE_AFFINITY_MASK", "BINDLAB_GPUS"};
    char fields[4][BP_VISIBLE_TEXT + 32], value[BP_VISIBLE_TEXT];
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        fields[i][0] = '\0';
        if (!v)
            continue;
        if (*v)
            bp_escape(v, value, sizeof value);
        else
            value[0] = '\0';
        snprintf(fields[i], sizeof fields[i], " %s=%s", vars[i], value);
    }
    bp_emit("visible%s%s%s%s", fields[0], fields[1], fields[2], fields[3]);
}
