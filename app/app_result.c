#include "app_result.h"

#include "h5/h5schema.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorted copy of v[0..n), or NULL (n <= 0 or out of memory). */
static double *sorted(const double *v, int n)
{
    double *s = n > 0 ? malloc(sizeof *s * (size_t)n) : NULL;
    if (!s)
        return NULL;
    memcpy(s, v, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return s;
}

static double middle(const double *s, int n)
{
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double bl_result_median(const double *v, int n)
{
    double *s = sorted(v, n);
    double m = s ? middle(s, n) : 0.0;
    free(s);
    return m;
}

void bl_result_slowest(const double *times, int nranks, int iters,
                       double *iter_max)
{
    for (int it = 0; it < iters; it++) {
        iter_max[it] = 0.0;
        for (int q = 0; q < nranks; q++) {
            double t = times[(size_t)q * (size_t)iters + (size_t)it];
            if (t > iter_max[it])
                iter_max[it] = t;
        }
    }
}

void bl_result_summary(const double *iter_max, int iters, double amount,
                       double scale, bl_result_times *out)
{
    double *s = sorted(iter_max, iters);
    memset(out, 0, sizeof *out);
    if (!s)
        return;
    out->min_s = s[0];
    out->max_s = s[iters - 1];
    out->median_s = middle(s, iters);
    free(s);
    out->rate = out->median_s > 0 && scale > 0
                    ? amount / out->median_s / scale
                    : 0.0;
}

void bl_first_touch_result(bl_h5_run *r)
{
    long long local = 0, total = 0, tasks = 0, vm = -1;
    double share = 0, best = 0, w_share = 0, w_best = 0;
    int tasks_known = r->nnuma > 0;
    bl_h5_result *res = &r->result;
    res->straddles = 0;
    res->share_align = 0;
    for (size_t q = 0; q < r->nnuma; q++) {
        const bl_h5_numa *n = &r->numa[q];
        double w = (double)(n->pages_total_init > 0 ? n->pages_total_init : 0);
        local += n->pages_local_init;
        total += n->pages_total_init;
        res->straddles += n->straddles;
        if (n->share_align > res->share_align)
            res->share_align = n->share_align;
        if (n->task_numa_pages_migrated >= 0)
            tasks += n->task_numa_pages_migrated;
        else
            tasks_known = 0;
        if (n->vm_numa_pages_migrated > vm)
            vm = n->vm_numa_pages_migrated;
        if (n->huge_share >= 0) {
            share += w * n->huge_share;
            w_share += w;
        }
        if (n->best_local_fraction >= 0) {
            best += w * n->best_local_fraction;
            w_best += w;
        }
    }
    res->pages_total_init = total;
    res->local_page_fraction_init =
        total > 0 ? (double)local / (double)total : -1.0;
    res->pages_migrated = tasks_known ? tasks : vm;
    res->huge_share = w_share > 0 ? share / w_share : -1.0;
    res->best_local_fraction = w_best > 0 ? best / w_best : -1.0;
}
