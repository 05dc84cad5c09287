/* GPUs shared while others idle (gpu_shared.h). */
#include "gpu_shared.h"

#include <stdio.h>
#include <string.h>

#include "strbuf.h"

#define BUSID_MAX 32

/* The k-th bus id of a comma-separated list into out; 0 when there is
 * none. */
static int nth_busid(const char *list, int k, char *out)
{
    const char *p = list ? list : "";
    for (; *p && k > 0; k--) {
        p = strchr(p, ',');
        if (!p)
            return 0;
        p++;
    }
    size_t n = strcspn(p, ",");
    if (!*p || n == 0 || n >= BUSID_MAX)
        return 0;
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

static int has_busid(const char *list, const char *busid)
{
    return list && bl_list_has(list, ",", busid, strlen(busid));
}

static void append(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, "%s%s", used ? "," : "", s);
}

/* The GPUs of node (as rank v[first] sees its node) seen by no rank of
 * that node, comma separated into idle. */
static void idle_gpus(const bl_gpu_rank_view *v, int n, int first,
                      char *idle, size_t len)
{
    char g[BUSID_MAX];
    idle[0] = '\0';
    for (int k = 0; nth_busid(v[first].node_gpus, k, g); k++) {
        int seen = 0;
        for (int i = 0; i < n && !seen; i++)
            seen = v[i].node == v[first].node && has_busid(v[i].seen, g);
        if (!seen)
            append(idle, len, g);
    }
}

/* Judges GPU g of rank v[first]'s node: given to two or more ranks. */
static int judge_gpu(const bl_gpu_rank_view *v, int n, int first,
                     const char *g, const char *idle,
                     void (*found)(void *, int, const char *), void *ctx)
{
    char ranks[512] = "", num[16], text[1024];
    int count = 0, lowest = -1;
    for (int i = 0; i < n; i++) {
        if (v[i].node != v[first].node || !v[i].given ||
            !has_busid(v[i].seen, g))
            continue;
        /* a GPU judged once: at the first rank of its node given it */
        if (count == 0 && i < first)
            return 0;
        snprintf(num, sizeof num, "%d", v[i].rank);
        append(ranks, sizeof ranks, num);
        if (lowest < 0 || v[i].rank < lowest)
            lowest = v[i].rank;
        count++;
    }
    if (count < 2)
        return 0;
    snprintf(text, sizeof text,
             "GPU %s is given to ranks %s of one node while %s %s %s "
             "given to none: deal them one each with gpu_bind closest (or "
             "round-robin) and gpus_per_rank 1 in the layout "
             "(bindlab-gpu-wrap --gpu-bind closest --gpus-per-rank 1), or "
             "give each rank its own CUDA_VISIBLE_DEVICES",
             g, ranks, strchr(idle, ',') ? "GPUs" : "GPU", idle,
             strchr(idle, ',') ? "are" : "is");
    found(ctx, lowest, text);
    return 1;
}

int bl_gpu_shared_judge(const bl_gpu_rank_view *v, int n,
                        void (*found)(void *ctx, int rank, const char *text),
                        void *ctx)
{
    char idle[1024], g[BUSID_MAX];
    int total = 0;
    for (int i = 0; i < n; i++) {
        if (!v[i].given)
            continue;
        idle_gpus(v, n, i, idle, sizeof idle);
        if (!idle[0])
            continue;
        for (int k = 0; nth_busid(v[i].seen, k, g); k++)
            total += judge_gpu(v, n, i, g, idle, found, ctx);
    }
    return total;
}
