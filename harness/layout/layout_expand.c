/* Sweep description -> list of layouts: cross product, exclude, explicit
 * layouts, run ids and labels. */
#include "layout/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* More than this is almost certainly a mistake in the axes. */
#define BL_LAYOUT_MAX 10000

static int at(const bl_sweep_spec *s, int line, int col, bl_err *err)
{
    return bl_err_prefix(err, "%s:%d:%d", s->file ? s->file : "sweep", line,
                         col);
}

static int apply(bl_layout *l, const bl_partial *p, const bl_sweep_spec *s,
                 bl_err *err)
{
    for (int f = BL_F_NP; f < BL_F_COUNT; f++)
        if (p->v[f] && bl_layout_set(l, (bl_field)f, p->v[f], err) < 0)
            return at(s, p->line, p->col, err);
    return 0;
}

static int kernel_matches(const bl_kernel_spec *k, const char *want)
{
    return !want || !strcmp(k->name, want) || !strcmp(k->label, want);
}

/* An exclude entry matches when every field it gives equals the layout's,
 * compared in canonical form (so "2" matches np 2 and "unset" matches an
 * unset OMP_PLACES). */
static int excluded_by(const bl_layout *l, const bl_kernel_spec *k,
                       const bl_partial *e)
{
    if (e->v[BL_F_KERNEL] && !kernel_matches(k, e->v[BL_F_KERNEL]))
        return 0;
    for (int f = BL_F_NP; f < BL_F_COUNT; f++) {
        bl_layout want = *l;
        char a[160], b[160];
        if (!e->v[f])
            continue;
        if (bl_layout_set(&want, (bl_field)f, e->v[f], NULL) < 0)
            return 0;
        bl_layout_field_text(&want, (bl_field)f, a, sizeof a);
        bl_layout_field_text(l, (bl_field)f, b, sizeof b);
        if (strcmp(a, b))
            return 0;
    }
    return 1;
}

typedef struct list {
    bl_layout *v;
    int n;
    size_t cap;
} list;

static int push(list *ls, const bl_layout *l, const bl_sweep_spec *s,
                bl_err *err)
{
    if (ls->n == BL_LAYOUT_MAX)
        return bl_err_set(err,
                          "%s: the sweep expands to more than %d layouts; "
                          "narrow the axes or add exclude entries",
                          s->file ? s->file : "sweep", BL_LAYOUT_MAX);
    if (bl_grow(&ls->v, sizeof *ls->v, (size_t)ls->n, &ls->cap, 32) < 0)
        return bl_err_set(err, "out of memory expanding the sweep");
    ls->v[ls->n++] = *l;
    return 0;
}

static int finish(bl_layout *l, int line, int col, const bl_sweep_spec *s,
                  const bl_kernel_spec *k, bl_err *err)
{
    l->src_line = line;
    l->src_col = col;
    if (l->np == 0) {
        bl_err_set(err, "no np for this layout; give np under defaults:, "
                        "sweep: or the layout itself");
        return at(s, line, col, err);
    }
    bl_layout_make_label(l, k->label);
    return 0;
}

static int expand_axes(const bl_sweep_spec *s, int ki, const bl_layout *base,
                       int *hits, list *ls, bl_err *err)
{
    int idx[BL_F_COUNT] = {0};
    const bl_kernel_spec *k = &s->kernels[ki];
    for (;;) {
        bl_layout l = *base;
        int f, drop = 0;
        for (f = BL_F_NP; f < BL_F_COUNT; f++)
            if (s->axes[f].n &&
                bl_layout_set(&l, (bl_field)f, s->axes[f].values[idx[f]],
                              err) < 0)
                return at(s, s->axes_line, s->axes_col, err);
        for (int e = 0; e < s->nexclude; e++)
            if (excluded_by(&l, k, &s->exclude[e])) {
                hits[e]++;
                drop = 1;
            }
        if (!drop) {
            l.kernel = ki;
            if (finish(&l, s->axes_line, s->axes_col, s, k, err) < 0 ||
                push(ls, &l, s, err) < 0)
                return -1;
        }
        /* Odometer: the last field varies fastest. */
        for (f = BL_F_COUNT - 1; f >= BL_F_NP; f--) {
            if (!s->axes[f].n)
                continue;
            if (++idx[f] < s->axes[f].n)
                break;
            idx[f] = 0;
        }
        if (f < BL_F_NP)
            return 0;
    }
}

static int check_duplicates(const bl_sweep_spec *s, const list *ls,
                            bl_err *err)
{
    for (int i = 0; i < ls->n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(ls->v[i].label, ls->v[j].label)) {
                bl_err_set(err,
                           "layout '%s' is the same as the one defined at "
                           "line %d; each layout may appear once",
                           ls->v[i].label, ls->v[j].src_line);
                return at(s, ls->v[i].src_line, ls->v[i].src_col, err);
            }
    return 0;
}

int bl_layout_expand(const bl_sweep_spec *s, bl_layout **out, int *n,
                     bl_err *err)
{
    list ls = {0};
    int *hits = calloc((size_t)s->nexclude + 1, sizeof *hits);
    bl_layout base;

    if (!hits)
        return bl_err_set(err, "out of memory expanding the sweep");
    bl_layout_defaults(&base);
    if (apply(&base, &s->defaults, s, err) < 0)
        goto fail;
    for (int ki = 0; ki < s->nkernels; ki++) {
        if (s->have_axes && expand_axes(s, ki, &base, hits, &ls, err) < 0)
            goto fail;
        for (int e = 0; e < s->nexplicit; e++) {
            const bl_partial *p = &s->explicit_layouts[e];
            bl_layout l = base;
            if (!kernel_matches(&s->kernels[ki], p->v[BL_F_KERNEL]))
                continue;
            if (apply(&l, p, s, err) < 0)
                goto fail;
            l.kernel = ki;
            snprintf(l.name, sizeof l.name, "%s", p->name);
            if (finish(&l, p->line, p->col, s, &s->kernels[ki], err) < 0 ||
                push(&ls, &l, s, err) < 0)
                goto fail;
        }
    }
    for (int e = 0; e < s->nexclude; e++)
        if (!hits[e] && s->have_axes) {
            bl_err_set(err, "this exclude entry matches no layout of the "
                            "sweep: check its keys and values");
            at(s, s->exclude[e].line, s->exclude[e].col, err);
            goto fail;
        }
    for (int e = 0; e < s->nexplicit; e++) {
        const char *want = s->explicit_layouts[e].v[BL_F_KERNEL];
        int found = 0;
        for (int ki = 0; ki < s->nkernels; ki++)
            found |= kernel_matches(&s->kernels[ki], want);
        if (!found) {
            bl_err_set(err, "kernel '%s' is not one of the sweep's kernels: "
                            "entries; give a name or label listed there",
                       want);
            at(s, s->explicit_layouts[e].line, s->explicit_layouts[e].col,
               err);
            goto fail;
        }
    }
    if (ls.n == 0) {
        bl_err_set(err, "%s: the sweep has no layouts (give sweep: axes or "
                        "a layouts: list, and at least one kernel)",
                   s->file ? s->file : "sweep");
        goto fail;
    }
    if (check_duplicates(s, &ls, err) < 0)
        goto fail;
    for (int i = 0; i < ls.n; i++)
        snprintf(ls.v[i].run_id, sizeof ls.v[i].run_id, "r%04d", i);
    free(hits);
    *out = ls.v;
    *n = ls.n;
    return 0;
fail:
    free(hits);
    free(ls.v);
    return -1;
}
