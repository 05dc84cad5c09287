/* The layout fields of a sweep file (defaults:, sweep:, exclude:,
 * layouts:), each value checked where it is written, so a bad one is
 * reported at its own line and column. */
#include "sweep/sweep_file_priv.h"

#include <stdlib.h>
#include <string.h>

/* Checks one field value where it is written, so a bad value is reported
 * at its own line and column; returns the kept text, or NULL. */
static const char *field_value(bl_sf_ctx *c, bl_field f, const yaml_node_t *v)
{
    bl_layout scratch;
    bl_err e;
    const char *t;
    if (v->type != YAML_SCALAR_NODE) {
        bl_sf_fail_at(c, v, "%s: expected a single value, found %s%s",
                      bl_field_key(f), bl_sf_kind_name(v),
                      f == BL_F_OMP_PLACES && v->type == YAML_MAPPING_NODE
                          ? " (quote explicit place lists: \"{0:4},{4:4}\")"
                          : "");
        return NULL;
    }
    t = bl_sf_text(v);
    if (bl_sf_is_null(v)) {
        if (f != BL_F_RANK_BY && f != BL_F_OMP_PLACES &&
            f != BL_F_OMP_PROC_BIND) {
            bl_sf_fail_at(c, v, "%s: a value is needed (only rank_by, "
                          "omp_places and omp_proc_bind may be left unset)",
                          bl_field_key(f));
            return NULL;
        }
        t = "unset";
    }
    if (f != BL_F_KERNEL) {
        bl_layout_defaults(&scratch);
        if (bl_layout_set(&scratch, f, t, &e) < 0) {
            bl_sf_fail_at(c, v, "%s", e.msg);
            return NULL;
        }
    }
    if (!(t = bl_sf_keep(c, t)))
        bl_sf_fail_at(c, v, "out of memory");
    return t;
}

/* A mapping of layout fields: defaults:, an exclude entry, a layout. */
int bl_sf_partial(bl_sf_ctx *c, const yaml_node_t *n, bl_partial *out,
                  int allow_kernel, int allow_name, const char *section)
{
    static const char *keys[BL_F_COUNT + 2];
    if (!keys[0]) {
        for (int f = 0; f < BL_F_COUNT; f++)
            keys[f] = bl_field_key((bl_field)f);
        keys[BL_F_COUNT] = "name";
    }
    if (bl_sf_expect(c, n, YAML_MAPPING_NODE, section) < 0)
        return -1;
    out->line = (int)n->start_mark.line + 1;
    out->col = (int)n->start_mark.column + 1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        int i = bl_sf_key_index(c, n, p, keys, section);
        const yaml_node_t *v = bl_sf_node(c, p->value);
        if (i < 0)
            return -1;
        if ((i == BL_F_KERNEL && !allow_kernel) ||
            (i == BL_F_COUNT && !allow_name))
            return bl_sf_fail_at(c, bl_sf_node(c, p->key),
                                 "%s: '%s' cannot be given here; accepted: %s",
                                 section, keys[i], bl_field_keys());
        if (i == BL_F_COUNT) {
            if (bl_sf_expect(c, v, YAML_SCALAR_NODE, "name") < 0)
                return -1;
            if (strlen(bl_sf_text(v)) >= sizeof out->name || !*bl_sf_text(v))
                return bl_sf_fail_at(c, v, "name '%s': accepted: 1 to %zu "
                                           "characters", bl_sf_text(v),
                                     sizeof out->name - 1);
            strcpy(out->name, bl_sf_text(v));
            continue;
        }
        if (!(out->v[i] = (char *)field_value(c, (bl_field)i, v)))
            return -1;
    }
    return 0;
}

int bl_sf_partials(bl_sf_ctx *c, const yaml_node_t *n, bl_partial **out,
                   int *count, int allow_name, const char *section)
{
    int k;
    if (bl_sf_expect(c, n, YAML_SEQUENCE_NODE, section) < 0)
        return -1;
    k = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (k == 0)
        return bl_sf_fail_at(c, n, "%s: the list is empty (remove the key, or "
                                   "give entries)", section);
    if (!(*out = calloc((size_t)k, sizeof **out)))
        return bl_sf_fail_at(c, n, "out of memory");
    *count = k;
    for (int i = 0; i < k; i++)
        if (bl_sf_partial(c, bl_sf_node(c, n->data.sequence.items.start[i]),
                          &(*out)[i], 1, allow_name, section) < 0)
            return -1;
    return 0;
}

/* sweep: each field is one value or a list, crossed with the others. */
int bl_sf_axes(bl_sf_ctx *c, const yaml_node_t *n)
{
    static const char *keys[BL_F_COUNT + 1];
    if (!keys[0])
        for (int f = 0; f < BL_F_COUNT; f++)
            keys[f] = bl_field_key((bl_field)f);
    if (bl_sf_expect(c, n, YAML_MAPPING_NODE, "sweep") < 0)
        return -1;
    c->spec.have_axes = 1;
    c->spec.axes_line = (int)n->start_mark.line + 1;
    c->spec.axes_col = (int)n->start_mark.column + 1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        int f = bl_sf_key_index(c, n, p, keys, "sweep");
        const yaml_node_t *v = bl_sf_node(c, p->value);
        bl_axis *ax;
        int k;
        if (f < 0)
            return -1;
        if (f == BL_F_KERNEL)
            return bl_sf_fail_at(c, bl_sf_node(c, p->key),
                                 "sweep: 'kernel' cannot be given here; every "
                                 "layout runs each entry of kernels:");
        ax = &c->spec.axes[f];
        k = v->type == YAML_SEQUENCE_NODE
                ? (int)(v->data.sequence.items.top -
                        v->data.sequence.items.start)
                : 1;
        if (k == 0)
            return bl_sf_fail_at(c, v, "sweep: %s: the list is empty",
                                 bl_field_key((bl_field)f));
        if (!(ax->values = calloc((size_t)k, sizeof *ax->values)))
            return bl_sf_fail_at(c, v, "out of memory");
        ax->n = k;
        for (int i = 0; i < k; i++) {
            const yaml_node_t *e = v->type == YAML_SEQUENCE_NODE
                ? bl_sf_node(c, v->data.sequence.items.start[i]) : v;
            if (!(ax->values[i] = (char *)field_value(c, (bl_field)f, e)))
                return -1;
            for (int j = 0; j < i; j++)
                if (!strcmp(ax->values[j], ax->values[i]))
                    return bl_sf_fail_at(c, e,
                                         "sweep: %s: '%s' is listed twice",
                                         bl_field_key((bl_field)f),
                                         ax->values[i]);
        }
    }
    return 0;
}
