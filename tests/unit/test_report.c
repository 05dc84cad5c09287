/* The sweep report: ranking, ratios to the best and to the bind_to none
 * baseline, the text table and CSV, and merging sweep files (duplicates,
 * truncated inputs) as `bindlab merge` and `bindlab report` use them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <math.h>

#include <cmocka.h>

#include "results/results_file.h"
#include "results/results_report.h"
#include "report/report_write.h"

/* cmocka 1.1 (Debian 12) has no assert_double_equal */
#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

/* A run as the harness would record it on a 2-core node. rate 0 means the
 * app never wrote a result (failed, timeout, invalid). */
typedef struct spec {
    const char *run_id, *kernel, *bind_to, *status;
    int np, threads;
    double rate;
    int verified;
    const char *places;
} spec;

static const spec sweep[] = {
    {"r0000", "triad", "core", "ok", 1, 2, 8.52, 1, "cores"},
    {"r0001", "triad", "core", "ok", 1, 2, 8.31, 1, "cores"},
    {"r0002", "triad", "none", "ok", 1, 2, 6.10, 1, ""},
    {"r0003", "triad", "core", "ok", 2, 1, 14.6, 1, "cores"},
    {"r0004", "triad", "none", "ok", 2, 1, 11.2, 1, ""},
    {"r0005", "triad", "core", "failed", 2, 1, 0, 0, "{0:1},{1:1}"},
    {"r0006", "triad", "core", "timeout", 1, 2, 0, 0, "threads"},
    {"r0007", "triad", "core", "invalid", 3, 1, 0, 0, "cores"},
    {"r0008", "triad", "hwthread", "ok", 2, 1, 15.9, 0, "threads"},
    {"r0009", "triad", "core", "ok", 1, 1, 5.00, 1, "cores"},
    {"r0010", "stencil", "core", "ok", 2, 1, 600.0, 1, "cores"},
    {"r0011", "stencil", "none", "ok", 2, 1, 583.0, 1, ""},
};
#define NSWEEP (sizeof sweep / sizeof sweep[0])

static char dir[] = "/tmp/bl_report_test.XXXXXX";

static void make_label(const spec *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s np%d bind=%s places=%s t=%d", s->kernel, s->np,
             s->bind_to, s->places[0] ? s->places : "unset", s->threads);
}

/* The summary row the harness would write for s (strings are static or
 * point into labels[]). */
static void to_row(const spec *s, bl_h5_summary *row, char *label, size_t len)
{
    static char empty[] = "";
    make_label(s, label, len);
    memset(row, 0, sizeof *row);
    row->run_id = (char *)s->run_id;
    row->label = label;
    row->name = row->rank_by = row->omp_proc_bind = row->flags = empty;
    row->kernel = (char *)s->kernel;
    row->status = (char *)s->status;
    row->np = s->np;
    row->threads = s->threads;
    row->map_by = "core";
    row->bind_to = (char *)s->bind_to;
    row->omp_places = (char *)s->places;
    row->init = "parallel";
    row->rate = s->rate;
    row->rate_unit = s->rate > 0 ? (strcmp(s->kernel, "stencil") == 0
                                        ? "MLUP/s" : "GB/s")
                                 : empty;
    row->median_s = s->rate > 0 ? 0.7 / s->rate : 0;
    row->verified = (int8_t)s->verified;
    row->local_page_fraction = s->rate > 0 ? 1.0 : -1.0;
}

static bl_h5_summary rows[NSWEEP];
static char labels[NSWEEP][128];

static void build_rows(void)
{
    for (size_t i = 0; i < NSWEEP; i++)
        to_row(&sweep[i], &rows[i], labels[i], sizeof labels[i]);
}

/* Row of the report for run id, or NULL. */
static const bl_report_row *find(const bl_report *r, const char *id)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (strcmp(r->rows[i].s->run_id, id) == 0)
            return &r->rows[i];
    return NULL;
}

static void order_is(const bl_report *r, const char *const *ids, size_t n)
{
    assert_int_equal(r->nrows, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(r->rows[i].s->run_id, ids[i]);
}

static void sort_parse_accepts_rate_label_run_and_rejects_others(void **st)
{
    bl_report_sort s;
    bl_err err;
    (void)st;
    assert_int_equal(bl_report_sort_parse("label", &s, &err), 0);
    assert_int_equal(s, BL_REPORT_SORT_LABEL);
    assert_int_equal(bl_report_sort_parse("run", &s, &err), 0);
    assert_int_equal(s, BL_REPORT_SORT_RUN);
    assert_int_equal(bl_report_sort_parse("rate", &s, &err), 0);
    assert_int_equal(s, BL_REPORT_SORT_RATE);
    assert_int_equal(bl_report_sort_parse("speed", &s, &err), -1);
    assert_non_null(strstr(err.msg, "'speed'"));
    assert_non_null(strstr(err.msg, "rate, label, run"));
}

static void rate_sort_ranks_best_first_and_unusable_last_per_kernel(void **st)
{
    static const char *const want[] = {
        "r0003", "r0004", "r0000", "r0001", "r0002", "r0009", /* triad ok */
        "r0005", "r0006", "r0007", "r0008", /* failed..unverified, run order */
        "r0010", "r0011"};
    bl_report r;
    bl_err err;
    bl_h5_summary shuffled[NSWEEP];
    (void)st;
    /* the file's row order must not matter */
    for (size_t i = 0; i < NSWEEP; i++)
        shuffled[i] = rows[(i * 5) % NSWEEP];
    assert_int_equal(bl_report_build(shuffled, NSWEEP, NULL,
                                     BL_REPORT_SORT_RATE, &r, &err), 0);
    order_is(&r, want, NSWEEP);
    assert_int_equal(r.ngroups, 2);
    assert_string_equal(r.groups[0].kernel, "triad");
    assert_string_equal(r.groups[0].best->run_id, "r0003");
    assert_string_equal(r.groups[0].baseline->run_id, "r0004");
    assert_int_equal(r.groups[0].nruns, 10);
    assert_int_equal(r.groups[0].nunusable, 4);
    assert_string_equal(r.groups[1].kernel, "stencil");
    assert_string_equal(r.groups[1].best->run_id, "r0010");
    bl_report_free(&r);
}

static void ratios_use_the_best_and_the_matching_bind_none_run(void **st)
{
    bl_report r;
    bl_err err;
    const bl_report_row *x;
    (void)st;
    assert_int_equal(bl_report_build(rows, NSWEEP, NULL, BL_REPORT_SORT_RATE,
                                     &r, &err), 0);
    /* np1 t2 bound: baseline is the np1 t2 bind_to none run r0002 */
    x = find(&r, "r0000");
    assert_near(x->ratio_best, 8.52 / 14.6, 1e-12);
    assert_string_equal(x->baseline->run_id, "r0002");
    assert_near(x->ratio_baseline, 8.52 / 6.10, 1e-12);
    /* np2 t1: baseline r0004, not the first bind_to none (r0002) */
    x = find(&r, "r0003");
    assert_near(x->ratio_best, 1.0, 0);
    assert_string_equal(x->baseline->run_id, "r0004");
    assert_near(x->ratio_baseline, 14.6 / 11.2, 1e-12);
    /* a baseline compares with itself as 1 */
    assert_near(find(&r, "r0004")->ratio_baseline, 1.0, 0);
    /* stencil compares only with stencil (other unit) */
    x = find(&r, "r0011");
    assert_near(x->ratio_best, 583.0 / 600.0, 1e-12);
    assert_string_equal(x->best->run_id, "r0010");
    bl_report_free(&r);
}

static void baseline_falls_back_to_the_kernels_first_bind_none_run(void **st)
{
    bl_report r;
    bl_err err;
    const bl_report_row *x;
    (void)st;
    assert_int_equal(bl_report_build(rows, NSWEEP, NULL, BL_REPORT_SORT_RUN,
                                     &r, &err), 0);
    /* np1 t1 has no bind_to none twin: the first one, r0002 */
    x = find(&r, "r0009");
    assert_string_equal(x->baseline->run_id, "r0002");
    assert_near(x->ratio_baseline, 5.00 / 6.10, 1e-12);
    bl_report_free(&r);
}

static void unusable_runs_have_no_ratios_even_when_fast(void **st)
{
    bl_report r;
    bl_err err;
    (void)st;
    assert_int_equal(bl_report_build(rows, NSWEEP, NULL, BL_REPORT_SORT_RATE,
                                     &r, &err), 0);
    for (size_t i = 0; i < r.nrows; i++) {
        const bl_report_row *x = &r.rows[i];
        int want = strcmp(x->s->status, "ok") == 0 && x->s->verified;
        assert_int_equal(x->usable, want);
        if (!want) {
            assert_true(isnan(x->ratio_best));
            assert_true(isnan(x->ratio_baseline));
            assert_null(x->best);
        }
    }
    /* r0008 (15.9 GB/s, wrong answer) is not the best */
    assert_string_equal(r.groups[0].best->run_id, "r0003");
    bl_report_free(&r);
}

static void failed_baseline_is_not_used(void **st)
{
    bl_h5_summary two[2];
    char l0[128], l1[128];
    spec bound = {"r0000", "lu", "core", "ok", 1, 2, 20.0, 1, "cores"};
    spec none = {"r0001", "lu", "none", "failed", 1, 2, 0, 0, ""};
    bl_report r;
    bl_err err;
    (void)st;
    to_row(&bound, &two[0], l0, sizeof l0);
    to_row(&none, &two[1], l1, sizeof l1);
    assert_int_equal(bl_report_build(two, 2, NULL, BL_REPORT_SORT_RATE, &r,
                                     &err), 0);
    assert_null(r.rows[0].baseline);
    assert_true(isnan(r.rows[0].ratio_baseline));
    assert_null(r.groups[0].baseline);
    assert_int_equal(r.groups[0].nunusable, 1);
    bl_report_free(&r);
}

static void kernel_with_no_usable_run_gets_its_own_group(void **st)
{
    bl_h5_summary two[2];
    char l0[128], l1[128];
    spec a = {"r0000", "lu", "core", "timeout", 1, 2, 0, 0, "cores"};
    spec b = {"r0001", "triad", "core", "ok", 1, 2, 8.0, 1, "cores"};
    bl_report r;
    bl_err err;
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    (void)st;
    to_row(&a, &two[0], l0, sizeof l0);
    to_row(&b, &two[1], l1, sizeof l1);
    assert_int_equal(bl_report_build(two, 2, NULL, BL_REPORT_SORT_RATE, &r,
                                     &err), 0);
    assert_int_equal(r.ngroups, 2);
    assert_string_equal(r.groups[0].kernel, "lu");
    assert_null(r.groups[0].best);
    f = open_memstream(&text, &len);
    assert_int_equal(bl_report_write_table(f, &r), 0);
    fclose(f);
    assert_non_null(strstr(text, "\nlu: no run is ok and verified (1 run)\n"));
    assert_non_null(strstr(text, "\ntriad: best r0001 "));
    assert_non_null(strstr(text, "no bind_to none baseline"));
    free(text);
    bl_report_free(&r);
}

static void kernel_filter_keeps_one_kernel_and_names_the_others(void **st)
{
    static const char *const want[] = {"r0010", "r0011"};
    bl_report r;
    bl_err err;
    (void)st;
    assert_int_equal(bl_report_build(rows, NSWEEP, "stencil",
                                     BL_REPORT_SORT_RATE, &r, &err), 0);
    order_is(&r, want, 2);
    bl_report_free(&r);
    assert_int_equal(bl_report_build(rows, NSWEEP, "lu", BL_REPORT_SORT_RATE,
                                     &r, &err), -1);
    assert_non_null(strstr(err.msg, "'lu'"));
    assert_non_null(strstr(err.msg, "triad, stencil"));
}

static void label_and_run_sorts_ignore_the_rate(void **st)
{
    bl_report r;
    bl_err err;
    (void)st;
    assert_int_equal(bl_report_build(rows, NSWEEP, NULL, BL_REPORT_SORT_RUN,
                                     &r, &err), 0);
    for (size_t i = 0; i < NSWEEP; i++)
        assert_string_equal(r.rows[i].s->run_id, sweep[i].run_id);
    bl_report_free(&r);
    assert_int_equal(bl_report_build(rows, NSWEEP, NULL, BL_REPORT_SORT_LABEL,
                                     &r, &err), 0);
    for (size_t i = 1; i < NSWEEP; i++)
        assert_true(strcmp(r.rows[i - 1].s->label, r.rows[i].s->label) <= 0);
    /* ratios do not depend on the order shown */
    assert_near(find(&r, "r0000")->ratio_baseline, 8.52 / 6.10, 1e-12);
    bl_report_free(&r);
}

static char *csv_of(const char *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    bl_report_csv_field(f, s);
    fclose(f);
    return text;
}

static void csv_field_quotes_only_what_rfc4180_requires(void **st)
{
    static const char *const cases[][2] = {
        {"cores", "cores"},
        {"{0:1},{1:1}", "\"{0:1},{1:1}\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"two\nlines", "\"two\nlines\""},
        {"", ""},
        /* formula injection (OWASP "CSV injection"): shown as text */
        {"=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""},
        {"+1", "'+1"},
        {"-2+3", "'-2+3"},
        {"@SUM(A1)", "'@SUM(A1)"},
        {"\t=1", "'\t=1"},
        {"=1,2", "\"'=1,2\""},
        {"a=1", "a=1"},
    };
    (void)st;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = csv_of(cases[i][0]);
        assert_string_equal(got, cases[i][1]);
        free(got);
    }
}

/* Splits one CSV record (no embedded line breaks) into fields. */
static size_t csv_split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line, *out;
    while (n < max) {
        fields[n++] = out = p;
        if (*p == '"') {
            for (p++; *p; p++) {
                if (*p == '"' && p[1] == '"')
                    *out++ = *p++;
                else if (*p == '"') {
                    p++;
                    break;
                } else
                    *out++ = *p;
            }
        } else {
            while (*p && *p != ',')
                *out++ = *p++;
        }
        if (*p != ',') {
            *out = '\0';
            break;
        }
        *out = '\0';
        p++;
    }
    return n;
}

static void csv_has_every_summary_column_and_the_ratios(void **st)
{
    bl_report r;
    bl_err err;
    char *text = NULL, *line, *save = NULL, *fields[64];
    size_t len = 0, nlines = 0, ncols = bl_h5_summary_def.nfields + 7;
    FILE *f = open_memstream(&text, &len);
    (void)st;
    assert_int_equal(bl_report_build(rows, NSWEEP, NULL, BL_REPORT_SORT_RATE,
                                     &r, &err), 0);
    assert_int_equal(bl_report_write_csv(f, &r), 0);
    fclose(f);
    assert_non_null(strstr(text, "\r\n"));
    for (line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), nlines++) {
        size_t n;
        assert_int_equal(line[strlen(line) - 1], '\r');
        line[strlen(line) - 1] = '\0';
        n = csv_split(line, fields, 64);
        assert_int_equal(n, ncols);
        if (nlines == 0) {
            for (size_t c = 0; c < bl_h5_summary_def.nfields; c++)
                assert_string_equal(fields[c],
                                    bl_h5_summary_def.fields[c].name);
            assert_string_equal(fields[ncols - 7], "ratio_best");
            assert_string_equal(fields[ncols - 5], "baseline_run_id");
            assert_string_equal(fields[ncols - 4], "tie_group");
            assert_string_equal(fields[ncols - 1], "layout_ci_hi");
            continue;
        }
        /* same order as the table; the place list survived quoting */
        assert_string_equal(fields[0], r.rows[nlines - 1].s->run_id);
        /* a run without a result has local_page_fraction -1 (to_row): a
         * number, never escaped as a formula */
        for (size_t c = 0; c < bl_h5_summary_def.nfields; c++)
            if (!strcmp(bl_h5_summary_def.fields[c].name,
                        "local_page_fraction") &&
                r.rows[nlines - 1].s->rate <= 0)
                assert_string_equal(fields[c], "-1");
        if (strcmp(fields[0], "r0005") == 0) {
            assert_string_equal(fields[11], "{0:1},{1:1}");
            assert_string_equal(fields[ncols - 7], "");
        }
        if (strcmp(fields[0], "r0000") == 0) {
            assert_near(strtod(fields[ncols - 6], NULL),
                                8.52 / 6.10, 1e-15);
            assert_string_equal(fields[ncols - 5], "r0002");
        }
    }
    assert_int_equal(nlines, NSWEEP + 1);
    free(text);
    bl_report_free(&r);
}

static void table_is_aligned_and_names_best_and_baseline(void **st)
{
    bl_report r;
    bl_err err;
    char *text = NULL, *line, *save = NULL;
    size_t len = 0, col = 0, n = 0;
    FILE *f = open_memstream(&text, &len);
    (void)st;
    assert_int_equal(bl_report_build(rows, NSWEEP, NULL, BL_REPORT_SORT_RATE,
                                     &r, &err), 0);
    assert_int_equal(bl_report_write_table(f, &r), 0);
    fclose(f);
    assert_non_null(strstr(text, "\ntriad: best r0003 'triad np2 bind=core "
                                 "places=cores t=1' 14.60 GB/s; baseline "
                                 "(bind_to none) r0004 "));
    assert_non_null(strstr(text, "best is 1.30x; 4 runs not ok or not "
                                 "verified\n"));
    /* every table line has its status column where the header has it */
    for (line = strtok_r(text, "\n", &save); line && n <= NSWEEP;
         line = strtok_r(NULL, "\n", &save), n++) {
        if (n == 0) {
            col = (size_t)(strstr(line, "status") - line);
            assert_true(col > 0);
            continue;
        }
        assert_true(strlen(line) > col);
        assert_true(line[col - 1] == ' ' && line[col] != ' ');
        assert_int_equal(strncmp(line, r.rows[n - 1].s->run_id, 5), 0);
        assert_int_equal(line[5], ' ');
    }
    assert_int_equal(n, NSWEEP + 1);
    free(text);
    bl_report_free(&r);
}

/* ---- through HDF5: per-run sweep files, merge, read back ------------- */

static void write_run_file(const spec *s, const char *path, const char *label)
{
    bl_h5_summary row;
    char lbl[128];
    bl_h5_harness h = {0};
    bl_h5_run app = {0};
    bl_err err;
    to_row(s, &row, lbl, sizeof lbl);
    h.run_id = row.run_id;
    h.label = (char *)(label ? label : lbl);
    h.status = row.status;
    h.np = row.np;
    h.threads = row.threads;
    h.kernel = row.kernel;
    h.map_by = row.map_by;
    h.bind_to = row.bind_to;
    h.omp_places = row.omp_places;
    h.init = row.init;
    h.exit_status = strcmp(s->status, "failed") == 0 ? 1 : 0;
    if (s->rate > 0) {
        app.kernel = row.kernel;
        app.init = row.init;
        app.status = "ok";
        app.ranks = s->np;
        app.threads = s->threads;
        app.result.median_s = row.median_s;
        app.result.rate = s->rate;
        app.result.rate_unit = row.rate_unit;
        app.result.verified = s->verified;
        app.result.local_page_fraction = 1.0;
    }
    assert_int_equal(bl_h5_write_sweep_run(AT_FDCWD, path, "test", NULL, 0,
                                           s->rate > 0 ? &app : NULL, &h,
                                           &err), 0);
}

static void path_of(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static void merged_files_report_like_the_rows_they_hold(void **st)
{
    static const char *const want[] = {
        "r0003", "r0004", "r0000", "r0001", "r0002", "r0009",
        "r0005", "r0006", "r0007", "r0008", "r0010", "r0011"};
    char paths[NSWEEP][512], out[512];
    const char *inputs[NSWEEP];
    bl_h5_summary *got;
    size_t n;
    int dup, bad;
    bl_report r;
    bl_err err;
    (void)st;
    for (size_t i = 0; i < NSWEEP; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s.h5", sweep[i].run_id);
        path_of(name, paths[i], sizeof paths[i]);
        write_run_file(&sweep[i], paths[i], NULL);
        inputs[i] = paths[NSWEEP - 1 - i]; /* merge order must not matter */
    }
    path_of("merged.h5", out, sizeof out);
    assert_int_equal(bl_h5_merge(out, "test", inputs, NSWEEP, NULL, NULL, NULL, &dup, &bad,
                                 &err), 0);
    assert_int_equal(dup, 0);
    assert_int_equal(bad, 0);
    assert_int_equal(bl_h5_read_summary(out, &got, &n, &err), 0);
    assert_int_equal(n, NSWEEP);
    assert_int_equal(bl_report_build(got, n, NULL, BL_REPORT_SORT_RATE, &r,
                                     &err), 0);
    order_is(&r, want, NSWEEP);
    assert_near(find(&r, "r0000")->ratio_baseline, 8.52 / 6.10, 1e-12);
    assert_string_equal(find(&r, "r0005")->s->omp_places, "{0:1},{1:1}");
    assert_int_equal(find(&r, "r0005")->s->exit_status, 1);
    bl_report_free(&r);
    bl_h5_table_free(&bl_h5_summary_def, got, n);
}

static void merge_keeps_a_duplicate_once_and_skips_a_truncated_input(void **st)
{
    char a[512], b[512], cut[512], out[512], cmd_in[512];
    const char *inputs[4];
    bl_h5_summary *got;
    size_t n;
    int dup, bad;
    bl_err err;
    FILE *f;
    long size;
    (void)st;
    path_of("dup-a.h5", a, sizeof a);
    path_of("dup-b.h5", b, sizeof b);
    path_of("cut.h5", cut, sizeof cut);
    path_of("dup-out.h5", out, sizeof out);
    write_run_file(&sweep[0], a, NULL);
    write_run_file(&sweep[0], b, "another label"); /* same id r0000 */
    write_run_file(&sweep[3], cut, NULL);
    /* keep the first half of a complete file, as a killed copy would */
    f = fopen(cut, "r+");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fclose(f);
    assert_int_equal(truncate(cut, size / 2), 0);
    snprintf(cmd_in, sizeof cmd_in, "%s", a);
    inputs[0] = cmd_in;
    inputs[1] = cut;
    inputs[2] = b;
    assert_int_equal(bl_h5_merge(out, "test", inputs, 3, NULL, NULL, NULL, &dup, &bad, &err), 0);
    assert_int_equal(dup, 1);
    assert_int_equal(bad, 1);
    assert_non_null(strstr(err.msg, "cut.h5"));
    assert_int_equal(bl_h5_read_summary(out, &got, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(got[0].run_id, "r0000");
    /* the first input wins */
    assert_string_not_equal(got[0].label, "another label");
    bl_h5_table_free(&bl_h5_summary_def, got, n);
    /* and the truncated file alone is a clear error, not a crash */
    assert_int_equal(bl_h5_read_summary(cut, &got, &n, &err), -1);
    assert_non_null(strstr(err.msg, "cut.h5"));
    assert_non_null(strstr(err.msg, "truncated"));
}

static void reading_a_run_file_as_a_sweep_says_what_to_use(void **st)
{
    char path[512];
    bl_h5_machine m = {0};
    bl_h5_run run = {0};
    bl_h5_summary *got;
    size_t n;
    bl_err err;
    (void)st;
    path_of("app-run.h5", path, sizeof path);
    run.kernel = "triad";
    run.status = "ok";
    assert_int_equal(bl_h5_write_run_file_nodes(path, "bindlab-app", &m, 1, &run, &err),
                     0);
    assert_int_equal(bl_h5_read_summary(path, &got, &n, &err), -1);
    assert_non_null(strstr(err.msg, "no /summary"));
}

static int setup(void **st)
{
    (void)st;
    build_rows();
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
    char cmd[600];
    (void)st;
    /* the test's own temporary directory: remove its files one by one */
    static const char *const names[] = {
        "merged.h5", "dup-a.h5", "dup-b.h5", "cut.h5", "dup-out.h5",
        "app-run.h5"};
    for (size_t i = 0; i < NSWEEP; i++) {
        snprintf(cmd, sizeof cmd, "%s/%s.h5", dir, sweep[i].run_id);
        unlink(cmd);
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s/%s", dir, names[i]);
        unlink(cmd);
    }
    return rmdir(dir);
}

/* Many runs of several kernels, units and machines in shuffled order
 * (the ranking hashes its groups and baselines): every
 * usable run's best and baseline are those a plain search over all runs
 * finds (same kernel, unit and machine; the baseline a usable bind_to
 * none run with the same np and threads, else the first such run, first
 * in run-id order), and every unusable run counts in one group. */
static void ranking_of_many_runs_matches_a_plain_search(void **state)
{
    enum { N = 600 };
    static const char *kernels[] = {"triad", "stencil", "lu"};
    static const char *units[] = {"GB/s", "MLUP/s"};
    static const char *binds[] = {"none", "core", "none:overload-allowed"};
    static const char *nodes[] = {"", "0", "1", "2,0"};
    static const char *labels[] = {"a", "b", "c", "d", "e"};
    static bl_h5_summary rows[N];
    static char ids[N][16];
    unsigned seed = 12345;
    bl_report r;
    bl_err err;
    size_t nunusable = 0, counted = 0;
    (void)state;
    for (int i = 0; i < N; i++) {
        unsigned x;
        seed = seed * 1103515245u + 12345u;
        x = seed >> 8;
        /* ids out of order: the file order is not the run order */
        snprintf(ids[i], sizeof ids[i], "r%05d", (i * 7919) % N);
        memset(&rows[i], 0, sizeof rows[i]);
        rows[i].run_id = ids[i];
        rows[i].kernel = (char *)kernels[x % 3];
        rows[i].rate_unit = (char *)units[(x / 3) % 2];
        rows[i].bind_to = (char *)binds[(x / 6) % 3];
        rows[i].nodes = (char *)nodes[(x / 18) % 4];
        rows[i].np = 1 + (int)((x / 72) % 3);
        rows[i].threads = 1 + (int)((x / 216) % 2);
        rows[i].label = (char *)labels[(x / 432) % 5];
        rows[i].status = (char *)((x / 2160) % 7 == 0 ? "failed" : "ok");
        rows[i].verified = 1;
        rows[i].rate = 1.0 + (double)((x / 15120) % 1000);
    }
    assert_int_equal(bl_report_build(rows, N, NULL, BL_REPORT_SORT_RATE, &r,
                                     &err), 0);
    assert_int_equal(r.nrows, N);
    for (size_t i = 0; i < r.nrows; i++) {
        const bl_h5_summary *s = r.rows[i].s, *best = NULL, *base = NULL,
                            *first = NULL;
        if (!r.rows[i].usable) {
            nunusable++;
            continue;
        }
        for (int j = 0; j < N; j++) {
            const bl_h5_summary *c = &rows[j];
            if (!bl_report_usable(c) || strcmp(c->kernel, s->kernel) ||
                strcmp(c->rate_unit, s->rate_unit) ||
                bl_report_node(c) != bl_report_node(s))
                continue;
            if (!best || c->rate > best->rate ||
                (c->rate == best->rate && strcmp(c->run_id, best->run_id) < 0))
                best = c;
            if (strncmp(c->bind_to, "none", 4) != 0)
                continue;
            if (!first || strcmp(c->run_id, first->run_id) < 0)
                first = c;
            if (c->np == s->np && c->threads == s->threads &&
                (!base || strcmp(c->run_id, base->run_id) < 0))
                base = c;
        }
        assert_non_null(best);
        assert_true(r.rows[i].best->rate == best->rate);
        assert_ptr_equal(r.rows[i].baseline, base ? base : first);
        assert_true(r.rows[i].ratio_best == s->rate / best->rate);
    }
    for (size_t g = 0; g < r.ngroups; g++)
        counted += r.groups[g].nunusable;
    assert_true(nunusable > 0);
    assert_int_equal(counted, nunusable);
    bl_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sort_parse_accepts_rate_label_run_and_rejects_others),
        cmocka_unit_test(rate_sort_ranks_best_first_and_unusable_last_per_kernel),
        cmocka_unit_test(ratios_use_the_best_and_the_matching_bind_none_run),
        cmocka_unit_test(baseline_falls_back_to_the_kernels_first_bind_none_run),
        cmocka_unit_test(unusable_runs_have_no_ratios_even_when_fast),
        cmocka_unit_test(failed_baseline_is_not_used),
        cmocka_unit_test(ranking_of_many_runs_matches_a_plain_search),
        cmocka_unit_test(kernel_with_no_usable_run_gets_its_own_group),
        cmocka_unit_test(kernel_filter_keeps_one_kernel_and_names_the_others),
        cmocka_unit_test(label_and_run_sorts_ignore_the_rate),
        cmocka_unit_test(csv_field_quotes_only_what_rfc4180_requires),
        cmocka_unit_test(csv_has_every_summary_column_and_the_ratios),
        cmocka_unit_test(table_is_aligned_and_names_best_and_baseline),
        cmocka_unit_test(merged_files_report_like_the_rows_they_hold),
        cmocka_unit_test(merge_keeps_a_duplicate_once_and_skips_a_truncated_input),
        cmocka_unit_test(reading_a_run_file_as_a_sweep_says_what_to_use),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
