/* Test helper: prints the results part of a run file, one fact per line,
 * for integration scripts to check against values they work out
 * themselves (runfile_dump prints the placement part).
 *   result median_s M min_s M max_s M rate R unit U
 *   timing I R SECONDS         (iteration I, rank R)
 *   rank R median_s M rate R   (the per-rank table)
 *   metric R NAME VALUE        (the per-rank kernel metrics) */
#include <stdio.h>

#include "h5/h5schema.h"

int main(int argc, char **argv)
{
    bl_h5_machine m;
    bl_h5_run r;
    bl_err err;
    if (argc != 2) {
        fprintf(stderr, "usage: runfile_results FILE.h5\n");
        return 2;
    }
    if (bl_h5_read_run_file(argv[1], &m, &r, &err) < 0) {
        fprintf(stderr, "runfile_results: %s\n", err.msg);
        return 1;
    }
    printf("result median_s %.17g min_s %.17g max_s %.17g rate %.17g unit %s\n",
           r.result.median_s, r.result.min_s, r.result.max_s, r.result.rate,
           r.result.rate_unit ? r.result.rate_unit : "");
    for (int i = 0; r.timings && i < r.iterations; i++)
        for (int k = 0; k < r.ranks; k++)
            printf("timing %d %d %.17g\n", i, k,
                   r.timings[(size_t)i * (size_t)r.ranks + (size_t)k]);
    for (size_t i = 0; i < r.nrank_rows; i++)
        printf("rank %d median_s %.17g rate %.17g\n", r.rank_rows[i].rank,
               r.rank_rows[i].median_s, r.rank_rows[i].rate);
    for (size_t i = 0; i < r.nmetrics; i++)
        printf("metric %d %s %.17g\n", r.metrics[i].rank, r.metrics[i].name,
               r.metrics[i].value);
    for (size_t i = 0; i < r.ntime_split; i++)
        printf("split %d %s %.17g %.17g\n", r.time_split[i].rank,
               r.time_split[i].phase, r.time_split[i].seconds,
               r.time_split[i].total_s);
    bl_h5_run_free(&r);
    bl_h5_machine_free(&m);
    return 0;
}
