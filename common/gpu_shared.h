/* One GPU given to two ranks of a node while another GPU of that node is
 * given to none: judged where every rank's visible GPUs are known (the
 * app's gathered record), from each rank's view (gpu_visible.h). */
#ifndef BL_GPU_SHARED_H
#define BL_GPU_SHARED_H

#include <stddef.h>

/* What one rank could see. */
typedef struct bl_gpu_rank_view {
    int rank;
    int node;                 /* ranks of one node share it */
    int given;                /* 1: a visible-device variable chose them */
    const char *seen;         /* its visible GPUs' bus ids, comma separated */
    const char *node_gpus;    /* every GPU of its node, the same way */
} bl_gpu_rank_view;

/* Calls found(ctx, rank, text) once per GPU given to two or more ranks of
 * one node while some GPU of that node is seen by no rank there; rank is
 * the lowest of those given it, text names the ranks, the GPU, the idle
 * ones and the fix. Ranks not given their GPUs (they see them all) count
 * only for keeping a GPU from being idle. Returns the number found. */
int bl_gpu_shared_judge(const bl_gpu_rank_view *v, int n,
                        void (*found)(void *ctx, int rank, const char *text),
                        void *ctx);

#endif
