/* Reading libyaml nodes for sweep_file*.c: kept strings, node kinds, keys
 * checked against a list, and every error at FILE:LINE:COLUMN. */
#include "sweep/sweep_file_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* The reason is formatted whole before bl_err_set fits it: a fixed buffer
 * here would cut a long echoed value and the reason after it, before
 * bl_err_set could cut the value alone. */
int bl_sf_fail_at(bl_sf_ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    size_t line = n ? n->start_mark.line + 1 : 1;
    size_t col = n ? n->start_mark.column + 1 : 1;
    char small[BL_ERR_MSG_MAX], *msg = small;
    va_list ap;
    int len;
    va_start(ap, fmt);
    len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len >= (int)sizeof small && !(msg = malloc((size_t)len + 1)))
        msg = small; /* out of memory: cut, the place still said */
    va_start(ap, fmt);
    vsnprintf(msg, msg == small ? sizeof small : (size_t)len + 1, fmt, ap);
    va_end(ap);
    bl_err_set(c->err, "%s:%zu:%zu: %s", c->file, line, col, msg);
    if (msg != small)
        free(msg);
    return -1;
}

char *bl_sf_keep(bl_sf_ctx *c, const char *s)
{
    char *copy;
    if (bl_grow(&c->strs, sizeof *c->strs, (size_t)c->nstrs, &c->capstrs,
                64) < 0)
        return NULL;
    if (!(copy = strdup(s)))
        return NULL;
    c->strs[c->nstrs++] = copy;
    return copy;
}

int bl_sf_is_null(const yaml_node_t *n)
{
    const char *t = bl_sf_text(n);
    return n->type == YAML_SCALAR_NODE &&
           n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (!*t || !strcmp(t, "~") || !strcmp(t, "null") ||
            !strcmp(t, "Null") || !strcmp(t, "NULL"));
}

const char *bl_sf_kind_name(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE: return "a mapping";
    case YAML_SEQUENCE_NODE: return "a list";
    default: return "a single value";
    }
}

int bl_sf_expect(bl_sf_ctx *c, const yaml_node_t *n, yaml_node_type_t type,
                 const char *what)
{
    if (n->type == type)
        return 0;
    return bl_sf_fail_at(c, n, "%s: expected %s, found %s", what,
                         type == YAML_MAPPING_NODE ? "a mapping (key: value)"
                         : type == YAML_SEQUENCE_NODE ? "a list"
                                                      : "a single value",
                         bl_sf_kind_name(n));
}

int bl_sf_key_index(bl_sf_ctx *c, const yaml_node_t *map,
                    const yaml_node_pair_t *p, const char *const *keys,
                    const char *section)
{
    const yaml_node_t *k = bl_sf_node(c, p->key);
    char list[512] = "";
    size_t len = 0;
    if (k->type != YAML_SCALAR_NODE)
        return bl_sf_fail_at(c, k, "%s: keys must be plain words", section);
    for (const yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++)
        if (bl_sf_node(c, q->key)->type == YAML_SCALAR_NODE &&
            !strcmp(bl_sf_text(bl_sf_node(c, q->key)), bl_sf_text(k)))
            return bl_sf_fail_at(
                c, k, "%s: key '%s' is given twice (first at %d:%d); keep "
                "one", section, bl_sf_text(k),
                (int)bl_sf_node(c, q->key)->start_mark.line + 1,
                (int)bl_sf_node(c, q->key)->start_mark.column + 1);
    for (int i = 0; keys[i]; i++) {
        if (!strcmp(keys[i], bl_sf_text(k)))
            return i;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                i ? ", " : "", keys[i]);
        if (len >= sizeof list)
            len = sizeof list - 1;
    }
    return bl_sf_fail_at(c, k, "%s: unknown key '%s'; accepted: %s", section,
                         bl_sf_text(k), list);
}
