/* Matching the layouts of several machines by meaning (compare_priv.h),
 * how sure the ratio is, and the layout an --ab argument names. */
#include "report/compare_priv.h"

#include <stdlib.h>
#include <string.h>

#include "results/abstats.h"

static const char *str(const char *s)
{
    return s ? s : "";
}

char bl_cmp_tag(size_t i)
{
    return (char)('A' + (i < 26 ? i : 25));
}

static int frac_eq(bl_frac a, bl_frac b)
{
    return a.p == b.p && a.q == b.q;
}

static void frac_text(bl_frac f, char *buf, size_t len)
{
    if (f.q == 1)
        snprintf(buf, len, "%ld", f.p);
    else
        snprintf(buf, len, "%ld/%ld", f.p, f.q);
}

/* A summary row's memory policy; files written before the column read
 * as the default, first touch. */
static const char *mem_policy(const bl_h5_summary *s)
{
    return s->mem_policy && s->mem_policy[0] ? s->mem_policy : "firsttouch";
}

/* The OpenMP runtime that ran (the app's record); "" in files written
 * before it was recorded, which match any. */
static const char *omp_of(const bl_h5_summary *s)
{
    return s->omp_runtime ? s->omp_runtime : "";
}

static int same_omp(const bl_h5_summary *x, const bl_h5_summary *y)
{
    return !omp_of(x)[0] || !omp_of(y)[0] ||
           strcmp(omp_of(x), omp_of(y)) == 0;
}

/* The part of a layout that does not depend on the machine. */
static int same_free_part(const bl_cmp_layout *a, const bl_cmp_layout *b)
{
    const bl_h5_summary *x = a->l->first, *y = b->l->first;
    return strcmp(str(x->kernel), str(y->kernel)) == 0 &&
           strcmp(str(a->unit), str(b->unit)) == 0 &&
           strcmp(str(x->bind_to), str(y->bind_to)) == 0 &&
           strcmp(str(x->omp_places), str(y->omp_places)) == 0 &&
           strcmp(str(x->omp_proc_bind), str(y->omp_proc_bind)) == 0 &&
           strcmp(str(x->init), str(y->init)) == 0 &&
           strcmp(mem_policy(x), mem_policy(y)) == 0 && same_omp(x, y) &&
           frac_eq(a->thread_share, b->thread_share);
}

const bl_cmp_layout *bl_cmp_match(const bl_cmp_layout *r,
                                  const bl_cmp_machine *other,
                                  const char **by)
{
    static const char *const names[] = {"numa", "package", "l3"};
    for (int level = 0; level < 3; level++)
        for (size_t i = 0; i < other->nlayouts; i++) {
            const bl_cmp_layout *o = &other->layouts[i];
            bl_frac a = level == 0 ? r->per_numa : level == 1 ? r->per_package
                                                              : r->per_l3;
            bl_frac b = level == 0 ? o->per_numa : level == 1 ? o->per_package
                                                              : o->per_l3;
            if (same_free_part(r, o) && frac_eq(a, b)) {
                *by = names[level];
                return o;
            }
        }
    *by = "";
    return NULL;
}

void bl_cmp_meaning(const bl_cmp_layout *c, char *buf, size_t len)
{
    const bl_h5_summary *s = c->l->first;
    char pk[32], nu[32], l3[32], th[32];
    frac_text(c->per_package, pk, sizeof pk);
    frac_text(c->per_numa, nu, sizeof nu);
    frac_text(c->per_l3, l3, sizeof l3);
    frac_text(c->thread_share, th, sizeof th);
    snprintf(buf, len, "%s ranks %s/package %s/NUMA %s/L3, threads x ranks "
             "= %s of the cores, bind=%s places=%s proc_bind=%s init=%s%s%s"
             "%s%s",
             str(s->kernel), pk, nu, l3, th,
             s->bind_to && s->bind_to[0] ? s->bind_to : "unset",
             s->omp_places && s->omp_places[0] ? s->omp_places : "unset",
             s->omp_proc_bind && s->omp_proc_bind[0] ? s->omp_proc_bind
                                                      : "unset",
             str(s->init), strcmp(mem_policy(s), "firsttouch") ? " mem=" : "",
             strcmp(mem_policy(s), "firsttouch") ? mem_policy(s) : "",
             omp_of(s)[0] ? " omp=" : "", omp_of(s));
}

/* True when some layout of the reference machine matches o. */
static int matched_by_ref(const bl_cmp_machine *ref,
                          const bl_cmp_machine *other, const bl_cmp_layout *o)
{
    const char *by;
    for (size_t i = 0; i < ref->nlayouts; i++)
        if (bl_cmp_match(&ref->layouts[i], other, &by) == o)
            return 1;
    return 0;
}

int bl_cmp_only_here(const bl_cmp_machine *ms, size_t n, size_t j,
                     const bl_cmp_layout *x)
{
    const char *by;
    if (j > 0)
        return !matched_by_ref(&ms[0], &ms[j], x);
    for (size_t k = 1; k < n; k++)
        if (bl_cmp_match(x, &ms[k], &by))
            return 0;
    return 1;
}

/* The rates of a layout's usable runs (its repetitions) into v (room for
 * m->nrows); returns their count. */
static size_t layout_rates(const bl_cmp_machine *m, const bl_cmp_layout *x,
                           double *v)
{
    size_t n = 0;
    for (size_t i = 0; i < m->report.nrows; i++) {
        const bl_report_row *row = &m->report.rows[i];
        if (row->usable &&
            strcmp(str(row->s->label), str(x->l->label)) == 0 &&
            strcmp(str(row->s->kernel), str(x->l->first->kernel)) == 0)
            v[n++] = row->s->rate;
    }
    return n;
}

int bl_cmp_stats(const bl_cmp_machine *ref, const bl_cmp_layout *r,
                 const bl_cmp_machine *om, const bl_cmp_layout *o,
                 bl_cmp_stat *st)
{
    double *a = malloc((ref->nrows + 1) * sizeof *a);
    double *b = malloc((om->nrows + 1) * sizeof *b);
    int rc = -1;
    if (a && b && (st->na = layout_rates(ref, r, a)) >= 2 &&
        (st->nb = layout_rates(om, o, b)) >= 2 &&
        bl_stats_boot_ratio(a, st->na, b, st->nb, 2000, 14, 0.95, &st->lo,
                            &st->hi) == 0) {
        st->p = bl_stats_mann_whitney_p(a, st->na, b, st->nb);
        rc = 0;
    }
    free(a);
    free(b);
    return rc;
}

/* The layout that `which` names in m: its name, its label, or its run id
 * without the repetition (r0003 for r0003.1, r0003.2 ...). */
const bl_cmp_layout *bl_cmp_find(const bl_cmp_machine *m, const char *which)
{
    size_t n = strlen(which);
    for (size_t i = 0; i < m->nlayouts; i++) {
        const bl_h5_summary *s = m->layouts[i].l->first;
        if (strcmp(str(s->label), which) == 0 ||
            (s->name && s->name[0] && strcmp(s->name, which) == 0))
            return &m->layouts[i];
    }
    for (size_t i = 0; i < m->report.nrows; i++) {
        const bl_h5_summary *s = m->report.rows[i].s;
        const char *id = str(s->run_id);
        if (m->report.rows[i].usable && strncmp(id, which, n) == 0 &&
            (id[n] == '\0' || id[n] == '.'))
            for (size_t j = 0; j < m->nlayouts; j++)
                if (strcmp(str(m->layouts[j].l->label), str(s->label)) == 0 &&
                    strcmp(str(m->layouts[j].l->first->kernel),
                           str(s->kernel)) == 0)
                    return &m->layouts[j];
    }
    return NULL;
}
