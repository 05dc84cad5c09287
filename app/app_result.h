/* A run's result from its per-rank iteration times: an iteration lasts as
 * long as its slowest rank; the run's time is the median iteration; its
 * rate is the work of all ranks over that time. Pure arithmetic, kept
 * apart so that it can be tested on numbers worked out by hand. */
#ifndef BL_APP_RESULT_H
#define BL_APP_RESULT_H

/* The median of v[0..n): the middle value, or the mean of the two middle
 * values when n is even; 0 when n <= 0. v is not changed. */
double bl_result_median(const double *v, int n);

/* iter_max[it] = the largest times[q * iters + it] over the ranks q (times
 * holds each rank's iterations one after the other). */
void bl_result_slowest(const double *times, int nranks, int iters,
                       double *iter_max);

typedef struct bl_result_times {
    double min_s, median_s, max_s; /* of the slowest-rank iteration times */
    double rate;                   /* amount / median_s / scale, 0 if none */
} bl_result_times;

/* min, median and max of iter_max[0..iters), and the rate of `amount`
 * units of work (all ranks) per median iteration, divided by scale (1e9
 * for GB/s from bytes). */
void bl_result_summary(const double *iter_max, int iters, double amount,
                       double scale, bl_result_times *out);


struct bl_h5_run;

/* The run's first-touch figures from its per-rank /run/numa rows: pages
 * local right after first touch (all ranks), the pages NUMA balancing
 * migrated (the ranks' tasks' sum; when a kernel does not expose them, the
 * largest system-wide /proc/vmstat delta), the huge-page share and best
 * reachable fraction weighted by each rank's pages, the straddles. */
void bl_first_touch_result(struct bl_h5_run *r);

#endif
