/* `bindlab compare` as text: the side-by-side table, --ab's two layouts
 * and CSV (compare.h). */
#include "report/compare_priv.h"

#include <string.h>

#include "report/report_write.h"

static const char *str(const char *s)
{
    return s ? s : "";
}

/* Is the difference real? (with 2 repetitions or more on each side) */
static void stats_line(FILE *f, const bl_cmp_machine *ref,
                       const bl_cmp_layout *r, const bl_cmp_machine *om,
                       const bl_cmp_layout *o)
{
    bl_cmp_stat st;
    if (bl_cmp_stats(ref, r, om, o, &st) == 0)
        fprintf(f, "    95%% interval of the ratio [%.2f, %.2f], rank test "
                "p=%.2g (%zu vs %zu runs)%s\n", st.lo, st.hi, st.p, st.na,
                st.nb, st.lo <= 1 && st.hi >= 1 ? ": a tie" : "");
}

int bl_cmp_write_text(FILE *f, const bl_cmp_machine *ms, size_t n)
{
    char meaning[512];
    const bl_cmp_machine *ref = &ms[0];

    fprintf(f, "machines:\n");
    for (size_t j = 0; j < n; j++)
        fprintf(f, "  %c: %s (%s), %d package%s, %d NUMA node%s, %d L3, %d "
                "cores: %s\n", bl_cmp_tag(j), str(ms[j].m.hostname),
                str(ms[j].m.cpu_model), ms[j].m.packages,
                ms[j].m.packages == 1 ? "" : "s", ms[j].m.numa_nodes,
                ms[j].m.numa_nodes == 1 ? "" : "s", ms[j].m.l3_domains,
                ms[j].m.cores, ms[j].source);
    fprintf(f, "\nlayouts matched by meaning (rate: median over "
               "repetitions; ratio to A):\n");
    for (size_t i = 0; i < ref->nlayouts; i++) {
        const bl_cmp_layout *r = &ref->layouts[i];
        bl_cmp_meaning(r, meaning, sizeof meaning);
        fprintf(f, "%s\n  A %.4g %s '%s'\n", meaning, r->l->median, r->unit,
                r->l->label);
        for (size_t j = 1; j < n; j++) {
            const char *by;
            const bl_cmp_layout *o = bl_cmp_match(r, &ms[j], &by);
            if (o) {
                fprintf(f, "  %c %.4g %s '%s' ratio %.2f (same ranks per "
                        "%s)\n", bl_cmp_tag(j), o->l->median, o->unit,
                        o->l->label, o->l->median / r->l->median, by);
                stats_line(f, ref, r, &ms[j], o);
                bl_cmp_write_tails(f, ref, r, &ms[j], o, bl_cmp_tag(j));
            } else
                fprintf(f, "  %c -\n", bl_cmp_tag(j));
        }
    }
    fprintf(f, "\nbest per machine:\n");
    for (size_t j = 0; j < n; j++)
        for (size_t g = 0; g < ms[j].report.ngroups; g++) {
            const bl_report_group *gr = &ms[j].report.groups[g];
            if (gr->best)
                fprintf(f, "  %c %s: %s '%s' %.4g %s\n", bl_cmp_tag(j),
                        gr->kernel, str(gr->best->run_id),
                        str(gr->best->label), gr->best->rate, gr->rate_unit);
        }
    fprintf(f, "\nonly on one machine:\n");
    int any = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < ms[j].nlayouts; i++)
            if (bl_cmp_only_here(ms, n, j, &ms[j].layouts[i])) {
                fprintf(f, "  %c '%s'\n", bl_cmp_tag(j),
                        ms[j].layouts[i].l->label);
                any = 1;
            }
    if (!any)
        fprintf(f, "  none\n");
    return ferror(f) ? -1 : 0;
}

int bl_cmp_write_ab(FILE *f, const bl_cmp_machine *m, const bl_cmp_layout *a,
                    const bl_cmp_layout *b)
{
    fprintf(f, "%s (%s), %s\n", m->path, str(m->m.hostname),
            str(m->m.cpu_model));
    fprintf(f, "  A %.4g %s '%s' (%zu run%s)\n", a->l->median, a->unit,
            a->l->label, a->l->n, a->l->n == 1 ? "" : "s");
    fprintf(f, "  B %.4g %s '%s' (%zu run%s) ratio B/A %.2f\n", b->l->median,
            b->unit, b->l->label, b->l->n, b->l->n == 1 ? "" : "s",
            b->l->median / a->l->median);
    if (strcmp(str(a->unit), str(b->unit)) != 0)
        fprintf(f, "    (different rate units: the ratio means nothing)\n");
    stats_line(f, m, a, m, b);
    bl_cmp_write_tails(f, m, a, m, b, 'B');
    return ferror(f) ? -1 : 0;
}

static void csv_row(FILE *f, const char *meaning, size_t j,
                    const bl_cmp_machine *m, const bl_cmp_layout *x,
                    double ref_median, const char *by)
{
    char t[2] = {bl_cmp_tag(j), '\0'};
    bl_report_csv_field(f, meaning);
    fputc(',', f);
    bl_report_csv_field(f, t);
    fputc(',', f);
    bl_report_csv_field(f, str(m->m.hostname));
    fputc(',', f);
    bl_report_csv_field(f, m->source);
    fputc(',', f);
    bl_report_csv_field(f, x->l->label);
    fputc(',', f);
    bl_report_csv_field(f, str(x->l->first->run_id));
    fprintf(f, ",%.9g,", x->l->median);
    bl_report_csv_field(f, x->unit);
    if (ref_median > 0)
        fprintf(f, ",%.6g,", x->l->median / ref_median);
    else
        fputs(",,", f);
    bl_report_csv_field(f, by);
    fputs("\r\n", f);
}

int bl_cmp_write_csv(FILE *f, const bl_cmp_machine *ms, size_t n)
{
    char meaning[512];
    const bl_cmp_machine *ref = &ms[0];
    fputs("meaning,machine,hostname,file,label,first_run_id,median_rate,"
          "rate_unit,ratio_to_A,matched_by\r\n", f);
    for (size_t i = 0; i < ref->nlayouts; i++) {
        const bl_cmp_layout *r = &ref->layouts[i];
        bl_cmp_meaning(r, meaning, sizeof meaning);
        csv_row(f, meaning, 0, ref, r, r->l->median, "");
        for (size_t j = 1; j < n; j++) {
            const char *by;
            const bl_cmp_layout *o = bl_cmp_match(r, &ms[j], &by);
            if (o)
                csv_row(f, meaning, j, &ms[j], o, r->l->median, by);
        }
    }
    /* layouts only on another machine: their own meaning, no ratio */
    for (size_t j = 1; j < n; j++)
        for (size_t i = 0; i < ms[j].nlayouts; i++)
            if (bl_cmp_only_here(ms, n, j, &ms[j].layouts[i])) {
                bl_cmp_meaning(&ms[j].layouts[i], meaning, sizeof meaning);
                csv_row(f, meaning, j, &ms[j], &ms[j].layouts[i], 0, "");
            }
    return ferror(f) ? -1 : 0;
}
