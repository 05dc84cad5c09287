/* Writing a bl_report: the aligned text table and CSV (report_write.h). */
#include "report/report_write.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { COL_RUN, COL_NODE, COL_LABEL, COL_STATUS, COL_THREADS, COL_ISA,
       COL_OMP, COL_MEDIAN,
       COL_RATE, COL_UNIT, COL_VS_BEST, COL_RANK, COL_VS_NONE, COL_VERIFIED,
       COL_LOCAL, COL_FLAGS, NCOLS };

static const char *const headers[NCOLS] = {
    "run", "node", "label", "status", "threads", "isa", "omp", "median_s",
    "rate",
    "unit",
    "vs_best", "rank", "vs_none", "verified", "local", "flags"};
/* numbers are right-aligned so that their digits line up */
static const int right[NCOLS] = {0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1,
                                 0};

#define CELL 96

static const char *str(const char *s)
{
    return s && s[0] ? s : "-";
}

/* Four significant digits without an exponent for the usual range, so
 * that columns of rates and times read at a glance. */
static void fmt_sig(double v, char *buf, size_t len)
{
    int digits;
    if (!isfinite(v) || v <= 0) {
        snprintf(buf, len, "-");
        return;
    }
    if (v < 1e-6 || v >= 1e9) {
        snprintf(buf, len, "%.3e", v);
        return;
    }
    digits = 3 - (int)floor(log10(v));
    snprintf(buf, len, "%.*f", digits > 0 ? digits : 0, v);
}

static void fmt_ratio(double v, char *buf, size_t len)
{
    if (isfinite(v))
        snprintf(buf, len, "%.2f", v);
    else
        snprintf(buf, len, "-");
}

static void fill_cells(const bl_report_row *row, char cells[NCOLS][CELL])
{
    const bl_h5_summary *s = row->s;
    int has_result = s->rate > 0 || s->median_s > 0;
    snprintf(cells[COL_RUN], CELL, "%s", str(s->run_id));
    snprintf(cells[COL_NODE], CELL, "%s", str(s->nodes));
    snprintf(cells[COL_STATUS], CELL, "%s", str(s->status));
    snprintf(cells[COL_THREADS], CELL, "%d", (int)s->threads);
    snprintf(cells[COL_ISA], CELL, "%s", str(s->isa));
    snprintf(cells[COL_OMP], CELL, "%s", str(s->omp_runtime));
    fmt_sig(s->median_s, cells[COL_MEDIAN], CELL);
    fmt_sig(s->rate, cells[COL_RATE], CELL);
    snprintf(cells[COL_UNIT], CELL, "%s", has_result ? str(s->rate_unit) : "-");
    fmt_ratio(row->ratio_best, cells[COL_VS_BEST], CELL);
    /* the layout's tie group: "1=" when other layouts share it */
    if (row->tie_group > 0)
        snprintf(cells[COL_RANK], CELL, "%d%s", row->tie_group,
                 row->tied ? "=" : "");
    else
        snprintf(cells[COL_RANK], CELL, "-");
    fmt_ratio(row->ratio_baseline, cells[COL_VS_NONE], CELL);
    /* a run that never produced a result was not checked at all */
    snprintf(cells[COL_VERIFIED], CELL, "%s",
             !has_result ? "-" : s->verified == 1 ? "yes" : "no");
    if (s->local_page_fraction >= 0 && has_result)
        snprintf(cells[COL_LOCAL], CELL, "%.2f", s->local_page_fraction);
    else
        snprintf(cells[COL_LOCAL], CELL, "-");
    /* label and flags can be long: printed whole, not from cells */
    cells[COL_LABEL][0] = cells[COL_FLAGS][0] = '\0';
}

static const char *cell_text(const bl_report_row *row, int col,
                             char cells[NCOLS][CELL])
{
    if (col == COL_LABEL)
        return str(row->s->label);
    if (col == COL_FLAGS)
        return str(row->s->flags);
    return cells[col];
}

/* The node column only in a report of several machines, the isa column
 * only when a run recorded its ISA level (files written before it have
 * none), the omp column (the OpenMP runtime that ran) only when the runs
 * ran under different ones. */
static void write_line(FILE *f, const char *const text[NCOLS],
                       const size_t width[NCOLS], const int hide[NCOLS])
{
    for (int c = 0; c < NCOLS; c++) {
        int w = c == NCOLS - 1 ? 0 : (int)width[c]; /* no trailing blanks */
        if (hide[c])
            continue;
        fprintf(f, "%s%*s", c ? "  " : "", right[c] ? w : -w, text[c]);
    }
    fputc('\n', f);
}

static void write_group_line(FILE *f, const bl_report_group *g,
                             int several_nodes)
{
    char rate[CELL], base[CELL], kernel[CELL];
    if (several_nodes && g->node >= 0)
        snprintf(kernel, sizeof kernel, "%s on node %ld", g->kernel, g->node);
    else
        snprintf(kernel, sizeof kernel, "%s", g->kernel);
    if (!g->best) {
        fprintf(f, "%s: no run is ok and verified (%zu run%s)\n", kernel,
                g->nruns, g->nruns == 1 ? "" : "s");
        return;
    }
    fmt_sig(g->best->rate, rate, sizeof rate);
    fprintf(f, "%s: best %s '%s' %s %s", kernel, str(g->best->run_id),
            str(g->best->label), rate, g->rate_unit);
    if (g->baseline) {
        fmt_sig(g->baseline->rate, base, sizeof base);
        fprintf(f, "; baseline (bind_to none) %s '%s' %s %s, best is %.2fx",
                str(g->baseline->run_id), str(g->baseline->label), base,
                g->rate_unit, g->best->rate / g->baseline->rate);
    } else {
        fprintf(f, "; no bind_to none baseline that is ok and verified");
    }
    if (g->nunusable)
        fprintf(f, "; %zu run%s not ok or not verified", g->nunusable,
                g->nunusable == 1 ? "" : "s");
    fputc('\n', f);
    if (g->ntied_best > 1)
        fprintf(f, "%s: %zu of %zu layouts tie for the best (rank 1=: the "
                "95%% intervals of their medians overlap the best's); more "
                "repetitions may tell them apart\n", g->kernel,
                g->ntied_best, g->nlayouts);
}

int bl_report_write_table(FILE *f, const bl_report *r)
{
    size_t width[NCOLS];
    char cells[NCOLS][CELL];
    const char *text[NCOLS], *omp = NULL;
    int with_isa = 0, with_omp = 0, hide[NCOLS] = {0};

    for (int c = 0; c < NCOLS; c++)
        width[c] = strlen(headers[c]);
    for (size_t i = 0; i < r->nrows; i++) {
        const char *o = r->rows[i].s->omp_runtime;
        with_isa |= r->rows[i].s->isa && r->rows[i].s->isa[0];
        if (o && o[0] && omp && strcmp(o, omp) != 0)
            with_omp = 1;
        if (o && o[0])
            omp = o;
        fill_cells(&r->rows[i], cells);
        for (int c = 0; c < NCOLS; c++) {
            size_t w = strlen(cell_text(&r->rows[i], c, cells));
            if (w > width[c])
                width[c] = w;
        }
    }
    hide[COL_NODE] = !r->several_nodes;
    hide[COL_ISA] = !with_isa;
    hide[COL_OMP] = !with_omp;
    write_line(f, headers, width, hide);
    for (size_t i = 0; i < r->nrows; i++) {
        fill_cells(&r->rows[i], cells);
        for (int c = 0; c < NCOLS; c++)
            text[c] = cell_text(&r->rows[i], c, cells);
        write_line(f, text, width, hide);
    }
    fputc('\n', f);
    for (size_t g = 0; g < r->ngroups; g++)
        write_group_line(f, &r->groups[g], r->several_nodes);
    return ferror(f) ? -1 : 0;
}

/* A text cell that a spreadsheet would take for a formula ("=cmd()",
 * "+1", "-2+3", "@SUM(..)", or a tab or carriage return before one): the
 * CSV gets it with a leading apostrophe, which spreadsheets show as text
 * and a reader can strip. Numbers are written by csv_summary_field, never
 * through here, so a negative number stays a number. */
static int formula_like(const char *s)
{
    return s[0] && strchr("=+-@\t\r", s[0]) != NULL;
}

int bl_report_csv_field(FILE *f, const char *s)
{
    const char *prefix;
    if (!s)
        s = "";
    prefix = formula_like(s) ? "'" : "";
    if (!strpbrk(s, ",\"\r\n"))
        return fprintf(f, "%s%s", prefix, s) < 0 ? -1 : 0;
    fprintf(f, "\"%s", prefix);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    return fputc('"', f) == EOF ? -1 : 0;
}

/* One /summary column of s, by the schema's field description, so that the
 * CSV follows the schema when it grows. %.17g keeps every double exact. */
static void csv_summary_field(FILE *f, const bl_h5_summary *s,
                              const bl_h5_field *fd)
{
    const char *p = (const char *)s + fd->offset;
    switch (fd->type) {
    case BL_H5_I8: fprintf(f, "%d", (int)*(const int8_t *)p); break;
    case BL_H5_I32: fprintf(f, "%ld", (long)*(const int32_t *)p); break;
    case BL_H5_I64: fprintf(f, "%lld", (long long)*(const int64_t *)p); break;
    case BL_H5_F64: fprintf(f, "%.17g", *(const double *)p); break;
    case BL_H5_STR: bl_report_csv_field(f, *(char *const *)p); break;
    }
}

static void csv_ratio(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
}

int bl_report_write_csv(FILE *f, const bl_report *r)
{
    const bl_h5_table_def *def = &bl_h5_summary_def;
    for (size_t c = 0; c < def->nfields; c++)
        fprintf(f, "%s%s", c ? "," : "", def->fields[c].name);
    fputs(",ratio_best,ratio_baseline,baseline_run_id,tie_group,"
          "layout_median,layout_ci_lo,layout_ci_hi\r\n", f);
    for (size_t i = 0; i < r->nrows; i++) {
        const bl_report_row *row = &r->rows[i];
        for (size_t c = 0; c < def->nfields; c++) {
            if (c)
                fputc(',', f);
            csv_summary_field(f, row->s, &def->fields[c]);
        }
        fputc(',', f);
        csv_ratio(f, row->ratio_best);
        fputc(',', f);
        csv_ratio(f, row->ratio_baseline);
        fputc(',', f);
        bl_report_csv_field(f, row->baseline ? row->baseline->run_id : "");
        fputc(',', f);
        if (row->tie_group > 0)
            fprintf(f, "%d", row->tie_group);
        fputc(',', f);
        csv_ratio(f, row->layout_median);
        fputc(',', f);
        csv_ratio(f, row->ci_lo);
        fputc(',', f);
        csv_ratio(f, row->ci_hi);
        fputs("\r\n", f);
    }
    return ferror(f) ? -1 : 0;
}
