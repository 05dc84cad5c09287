#include "sweep/sweep_file.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "grow.h"
#include "launcher/launcher_choice.h"
#include "units.h"

typedef struct ctx {
    const char *file;
    yaml_document_t doc;
    bl_err *err;
    char **strs;            /* every string the spec points to */
    int nstrs;
    size_t capstrs;
    bl_sweep_spec spec;
    bl_kernel_spec *kernels;
    int nkernels;
    bl_sweep *out;
} ctx;

static int fail_at(ctx *c, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[BL_ERR_MSG_MAX - 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bl_err_set(c->err, "%s:%zu:%zu: %s", c->file,
                      n ? n->start_mark.line + 1 : 1,
                      n ? n->start_mark.column + 1 : 1, msg);
}

static char *keep(ctx *c, const char *s)
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

static yaml_node_t *node(ctx *c, int id)
{
    return yaml_document_get_node(&c->doc, id);
}

static const char *text(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static int is_null(const yaml_node_t *n)
{
    const char *t = text(n);
    return n->type == YAML_SCALAR_NODE &&
           n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (!*t || !strcmp(t, "~") || !strcmp(t, "null") ||
            !strcmp(t, "Null") || !strcmp(t, "NULL"));
}

static const char *kind_name(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE: return "a mapping";
    case YAML_SEQUENCE_NODE: return "a list";
    default: return "a single value";
    }
}

static int expect(ctx *c, const yaml_node_t *n, yaml_node_type_t type,
                  const char *what)
{
    if (n->type == type)
        return 0;
    return fail_at(c, n, "%s: expected %s, found %s", what,
                   type == YAML_MAPPING_NODE    ? "a mapping (key: value)"
                   : type == YAML_SEQUENCE_NODE ? "a list"
                                                : "a single value",
                   kind_name(n));
}

/* The index of key in the NULL-terminated keys, or an error listing them.
 * Also rejects a key given twice in one mapping. */
static int key_index(ctx *c, const yaml_node_t *map, const yaml_node_pair_t *p,
                     const char *const *keys, const char *section)
{
    const yaml_node_t *k = node(c, p->key);
    char list[512] = "";
    size_t len = 0;
    if (k->type != YAML_SCALAR_NODE)
        return fail_at(c, k, "%s: keys must be plain words", section);
    for (const yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++)
        if (node(c, q->key)->type == YAML_SCALAR_NODE &&
            !strcmp(text(node(c, q->key)), text(k)))
            return fail_at(c, k, "%s: key '%s' is given twice", section,
                           text(k));
    for (int i = 0; keys[i]; i++) {
        if (!strcmp(keys[i], text(k)))
            return i;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                i ? ", " : "", keys[i]);
        if (len >= sizeof list)
            len = sizeof list - 1;
    }
    return fail_at(c, k, "%s: unknown key '%s'; accepted: %s", section,
                   text(k), list);
}

/* --- kernels ------------------------------------------------------------ */

enum arg_kind { ARG_SIZE, ARG_COUNT, ARG_GRID, ARG_BOOL };

static const struct {
    const char *key, *flag;
    enum arg_kind kind;
} kernel_args[] = {
    {"size", "--size", ARG_SIZE},       {"iters", "--iters", ARG_COUNT},
    {"warmup", "--warmup", ARG_COUNT},  {"grid", "--grid", ARG_GRID},
    {"radius", "--radius", ARG_COUNT},  {"overlap", "--overlap", ARG_BOOL},
    {"n", "--n", ARG_COUNT},            {"nb", "--nb", ARG_COUNT},
    {"seed", "--seed", ARG_COUNT},      {"writes", "--writes", ARG_COUNT},
};
#define N_KERNEL_ARGS (sizeof kernel_args / sizeof kernel_args[0])

/* Checks a kernel argument with the parser bindlab-app itself uses
 * (common/units.c), so the sweep refuses exactly what the app would. */
static int kernel_arg(ctx *c, bl_kernel_spec *k, int a, const yaml_node_t *v)
{
    const char *t, *key = kernel_args[a].key;
    bl_err e;
    size_t bytes;
    long dims[3], count;
    int ndims, rc = 0;
    if (expect(c, v, YAML_SCALAR_NODE, key) < 0)
        return -1;
    t = text(v);
    switch (kernel_args[a].kind) {
    case ARG_SIZE: rc = bl_parse_size(t, key, &bytes, &e); break;
    case ARG_COUNT:
        rc = bl_parse_count(t, kernel_args[a].flag, key, &count, &e);
        break;
    case ARG_GRID: rc = bl_parse_grid(t, key, dims, &ndims, &e); break;
    default:
        if (strcmp(t, "true") != 0 && strcmp(t, "false") != 0)
            return fail_at(c, v, "%s '%s': accepted: true or false", key, t);
        break;
    }
    if (rc < 0)
        return fail_at(c, v, "%s", e.msg);
    if (k->nargs + 2 > BL_KERNEL_MAX_ARGS)
        return fail_at(c, v, "too many kernel arguments");
    if (kernel_args[a].kind == ARG_BOOL) {
        if (!strcmp(t, "true") && !(k->args[k->nargs++] = strdup(kernel_args[a].flag)))
            return fail_at(c, v, "out of memory");
        return 0;
    }
    if (!(k->args[k->nargs++] = strdup(kernel_args[a].flag)) ||
        !(k->args[k->nargs++] = strdup(t)))
        return fail_at(c, v, "out of memory");
    return 0;
}

static int kernel_name(ctx *c, const yaml_node_t *v, char *dst, size_t len,
                       const char *key)
{
    const char *t;
    if (expect(c, v, YAML_SCALAR_NODE, key) < 0)
        return -1;
    t = text(v);
    if (!*t || strlen(t) >= len || strspn(t, "abcdefghijklmnopqrstuvwxyz"
                                             "0123456789_-.") != strlen(t))
        return fail_at(c, v, "kernel %s '%s': accepted: lower-case letters, "
                             "digits, '_', '-', '.', up to %zu characters",
                       key, t, len - 1);
    strcpy(dst, t);
    return 0;
}

static int parse_kernel(ctx *c, const yaml_node_t *n, bl_kernel_spec *k)
{
    static const char *keys[N_KERNEL_ARGS + 3];
    if (!keys[0]) {
        keys[0] = "name";
        keys[1] = "label";
        for (size_t i = 0; i < N_KERNEL_ARGS; i++)
            keys[i + 2] = kernel_args[i].key;
    }
    if (n->type == YAML_SCALAR_NODE) {
        if (kernel_name(c, n, k->name, sizeof k->name, "name") < 0)
            return -1;
        strcpy(k->label, k->name);
        return 0;
    }
    if (expect(c, n, YAML_MAPPING_NODE, "kernels entry") < 0)
        return -1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        int i = key_index(c, n, p, keys, "kernels entry");
        const yaml_node_t *v = node(c, p->value);
        if (i < 0)
            return -1;
        if (i == 0 && kernel_name(c, v, k->name, sizeof k->name, "name") < 0)
            return -1;
        if (i == 1 &&
            kernel_name(c, v, k->label, sizeof k->label, "label") < 0)
            return -1;
        if (i >= 2 && kernel_arg(c, k, i - 2, v) < 0)
            return -1;
    }
    if (!k->name[0])
        return fail_at(c, n, "kernels entry: no name; accepted: "
                             "{name: triad, size: 256MiB, ...}");
    if (!k->label[0])
        strcpy(k->label, k->name);
    return 0;
}

static int parse_kernels(ctx *c, const yaml_node_t *n)
{
    int count;
    if (expect(c, n, YAML_SEQUENCE_NODE, "kernels") < 0)
        return -1;
    count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (count == 0)
        return fail_at(c, n, "kernels: the list is empty; give at least one, "
                             "e.g. [{name: triad, size: 256MiB}]");
    if (!(c->kernels = calloc((size_t)count, sizeof *c->kernels)))
        return fail_at(c, n, "out of memory");
    c->nkernels = count;
    for (int i = 0; i < count; i++) {
        const yaml_node_t *e = node(c, n->data.sequence.items.start[i]);
        if (parse_kernel(c, e, &c->kernels[i]) < 0)
            return -1;
        for (int j = 0; j < i; j++)
            if (!strcmp(c->kernels[j].label, c->kernels[i].label))
                return fail_at(c, e, "kernels: '%s' appears twice; give "
                                     "entries of one kernel a label: each",
                               c->kernels[i].label);
    }
    return 0;
}

/* --- layout fields ------------------------------------------------------ */

/* Checks one field value where it is written, so a bad value is reported
 * at its own line and column; returns the kept text, or NULL. */
static const char *field_value(ctx *c, bl_field f, const yaml_node_t *v)
{
    bl_layout scratch;
    bl_err e;
    const char *t;
    if (v->type != YAML_SCALAR_NODE) {
        fail_at(c, v, "%s: expected a single value, found %s%s",
                bl_field_key(f), kind_name(v),
                f == BL_F_OMP_PLACES && v->type == YAML_MAPPING_NODE
                    ? " (quote explicit place lists: \"{0:4},{4:4}\")"
                    : "");
        return NULL;
    }
    t = text(v);
    if (is_null(v)) {
        if (f != BL_F_RANK_BY && f != BL_F_OMP_PLACES &&
            f != BL_F_OMP_PROC_BIND) {
            fail_at(c, v, "%s: a value is needed (only rank_by, omp_places "
                          "and omp_proc_bind may be left unset)",
                    bl_field_key(f));
            return NULL;
        }
        t = "unset";
    }
    if (f != BL_F_KERNEL) {
        bl_layout_defaults(&scratch);
        if (bl_layout_set(&scratch, f, t, &e) < 0) {
            fail_at(c, v, "%s", e.msg);
            return NULL;
        }
    }
    if (!(t = keep(c, t)))
        fail_at(c, v, "out of memory");
    return t;
}

/* A mapping of layout fields: defaults:, an exclude entry, a layout. */
static int parse_partial(ctx *c, const yaml_node_t *n, bl_partial *out,
                         int allow_kernel, int allow_name,
                         const char *section)
{
    static const char *keys[BL_F_COUNT + 2];
    if (!keys[0]) {
        for (int f = 0; f < BL_F_COUNT; f++)
            keys[f] = bl_field_key((bl_field)f);
        keys[BL_F_COUNT] = "name";
    }
    if (expect(c, n, YAML_MAPPING_NODE, section) < 0)
        return -1;
    out->line = (int)n->start_mark.line + 1;
    out->col = (int)n->start_mark.column + 1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        int i = key_index(c, n, p, keys, section);
        const yaml_node_t *v = node(c, p->value);
        if (i < 0)
            return -1;
        if ((i == BL_F_KERNEL && !allow_kernel) ||
            (i == BL_F_COUNT && !allow_name))
            return fail_at(c, node(c, p->key),
                           "%s: '%s' cannot be given here; accepted: %s",
                           section, keys[i], bl_field_keys());
        if (i == BL_F_COUNT) {
            if (expect(c, v, YAML_SCALAR_NODE, "name") < 0)
                return -1;
            if (strlen(text(v)) >= sizeof out->name || !*text(v))
                return fail_at(c, v, "name '%s': accepted: 1 to %zu "
                                     "characters", text(v),
                               sizeof out->name - 1);
            strcpy(out->name, text(v));
            continue;
        }
        if (!(out->v[i] = (char *)field_value(c, (bl_field)i, v)))
            return -1;
    }
    return 0;
}

static int parse_list_of_partials(ctx *c, const yaml_node_t *n,
                                  bl_partial **out, int *count,
                                  int allow_name, const char *section)
{
    int k;
    if (expect(c, n, YAML_SEQUENCE_NODE, section) < 0)
        return -1;
    k = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (k == 0)
        return fail_at(c, n, "%s: the list is empty (remove the key, or "
                             "give entries)", section);
    if (!(*out = calloc((size_t)k, sizeof **out)))
        return fail_at(c, n, "out of memory");
    *count = k;
    for (int i = 0; i < k; i++)
        if (parse_partial(c, node(c, n->data.sequence.items.start[i]),
                          &(*out)[i], 1, allow_name, section) < 0)
            return -1;
    return 0;
}

/* sweep: each field is one value or a list, crossed with the others. */
static int parse_axes(ctx *c, const yaml_node_t *n)
{
    static const char *keys[BL_F_COUNT + 1];
    if (!keys[0])
        for (int f = 0; f < BL_F_COUNT; f++)
            keys[f] = bl_field_key((bl_field)f);
    if (expect(c, n, YAML_MAPPING_NODE, "sweep") < 0)
        return -1;
    c->spec.have_axes = 1;
    c->spec.axes_line = (int)n->start_mark.line + 1;
    c->spec.axes_col = (int)n->start_mark.column + 1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        int f = key_index(c, n, p, keys, "sweep");
        const yaml_node_t *v = node(c, p->value);
        bl_axis *ax;
        int k;
        if (f < 0)
            return -1;
        if (f == BL_F_KERNEL)
            return fail_at(c, node(c, p->key),
                           "sweep: 'kernel' cannot be given here; every "
                           "layout runs each entry of kernels:");
        ax = &c->spec.axes[f];
        k = v->type == YAML_SEQUENCE_NODE
                ? (int)(v->data.sequence.items.top - v->data.sequence.items.start)
                : 1;
        if (k == 0)
            return fail_at(c, v, "sweep: %s: the list is empty",
                           bl_field_key((bl_field)f));
        if (!(ax->values = calloc((size_t)k, sizeof *ax->values)))
            return fail_at(c, v, "out of memory");
        ax->n = k;
        for (int i = 0; i < k; i++) {
            const yaml_node_t *e = v->type == YAML_SEQUENCE_NODE
                ? node(c, v->data.sequence.items.start[i]) : v;
            if (!(ax->values[i] = (char *)field_value(c, (bl_field)f, e)))
                return -1;
            for (int j = 0; j < i; j++)
                if (!strcmp(ax->values[j], ax->values[i]))
                    return fail_at(c, e, "sweep: %s: '%s' is listed twice",
                                   bl_field_key((bl_field)f), ax->values[i]);
        }
    }
    return 0;
}

/* --- the file ----------------------------------------------------------- */

/* launcher: a family or a path; whether it is installed is asked when the
 * sweep runs (bl_launcher_choose), not here. */
static int parse_launcher(ctx *c, const yaml_node_t *v)
{
    bl_launcher_want w;
    bl_err e;
    if (expect(c, v, YAML_SCALAR_NODE, "launcher") < 0)
        return -1;
    if (strlen(text(v)) >= sizeof c->out->launcher)
        return fail_at(c, v, "launcher: longer than %zu characters",
                       sizeof c->out->launcher - 1);
    if (bl_launcher_want_parse(text(v), &w, &e) < 0)
        return fail_at(c, v, "launcher: %s", e.msg);
    strcpy(c->out->launcher, text(v));
    c->out->launcher_line = (int)v->start_mark.line + 1;
    c->out->launcher_col = (int)v->start_mark.column + 1;
    return 0;
}

#define NAME_ACCEPTED                                                       \
    "accepted: 1 to 63 letters, digits, '.', '_' or '-', not starting "    \
    "with '.' or '-' (the name becomes a file name under the results "     \
    "directory, so no '/')"

static int parse_top(ctx *c, const yaml_node_t *root)
{
    static const char *const keys[] = {"name", "description", "kernels",
                                       "defaults", "sweep", "exclude",
                                       "layouts", "launcher",
                                       "repetition_order", NULL};
    const yaml_node_t *excl = NULL;
    if (expect(c, root, YAML_MAPPING_NODE, "sweep file") < 0)
        return -1;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
         p < root->data.mapping.pairs.top; p++) {
        int i = key_index(c, root, p, keys, "sweep file");
        const yaml_node_t *v = node(c, p->value);
        int rc = 0;
        switch (i) {
        case 0: case 1: {
            char *dst = i == 0 ? c->out->name : c->out->description;
            size_t len = i == 0 ? sizeof c->out->name
                                : sizeof c->out->description;
            if (expect(c, v, YAML_SCALAR_NODE, keys[i]) < 0)
                return -1;
            if (i == 0 && !bl_sweep_name_ok(text(v)))
                return fail_at(c, v, "name '%s': " NAME_ACCEPTED, text(v));
            if (strlen(text(v)) >= len)
                return fail_at(c, v, "%s: longer than %zu characters",
                               keys[i], len - 1);
            strcpy(dst, text(v));
            break;
        }
        case 2: rc = parse_kernels(c, v); break;
        case 3:
            rc = parse_partial(c, v, &c->spec.defaults, 0, 0, "defaults");
            break;
        case 4: rc = parse_axes(c, v); break;
        case 5:
            excl = v;
            rc = parse_list_of_partials(c, v, &c->spec.exclude,
                                        &c->spec.nexclude, 0, "exclude");
            break;
        case 6:
            rc = parse_list_of_partials(c, v, &c->spec.explicit_layouts,
                                        &c->spec.nexplicit, 1, "layouts");
            break;
        case 7: rc = parse_launcher(c, v); break;
        case 8:
            if (expect(c, v, YAML_SCALAR_NODE, keys[i]) < 0)
                return -1;
            if (bl_rep_order_parse(text(v), &c->out->repetition_order) < 0)
                return fail_at(c, v, "repetition_order: '%s' is not "
                               "accepted; use interleaved (A B A B, the "
                               "default) or consecutive (A A B B)", text(v));
            break;
        default: return -1;
        }
        if (rc < 0)
            return -1;
    }
    if (!c->nkernels)
        return fail_at(c, root, "kernels: missing; accepted: a list such as "
                                "[{name: triad, size: 256MiB, iters: 20}]");
    if (!c->spec.have_axes && !c->spec.nexplicit)
        return fail_at(c, root, "no layouts: give a sweep: mapping (crossed) "
                                "or a layouts: list (or both)");
    if (excl && !c->spec.have_axes)
        return fail_at(c, excl, "exclude: only applies to sweep:, and there "
                                "is none");
    return 0;
}

/* "configs/sweeps/epyc-2s.yaml" -> "epyc-2s". */
static void name_from_path(const char *path, char *dst, size_t len)
{
    const char *base = strrchr(path, '/');
    size_t n;
    base = base ? base + 1 : path;
    n = strcspn(base, ".");
    if (n >= len)
        n = len - 1;
    memcpy(dst, base, n);
    dst[n] = '\0';
}

static void ctx_free(ctx *c)
{
    for (int i = 0; i < c->nstrs; i++)
        free(c->strs[i]);
    free(c->strs);
    for (int f = 0; f < BL_F_COUNT; f++)
        free(c->spec.axes[f].values);
    free(c->spec.exclude);
    free(c->spec.explicit_layouts);
}

static int load(yaml_parser_t *parser, const char *file, bl_sweep *out,
                bl_err *err)
{
    ctx c;
    yaml_node_t *root;
    int rc = -1;

    memset(&c, 0, sizeof c);
    memset(out, 0, sizeof *out);
    c.file = file;
    c.err = err;
    c.out = out;
    if (!yaml_parser_load(parser, &c.doc)) {
        bl_err_set(err, "%s:%zu:%zu: YAML syntax: %s%s%s; accepted: a "
                        "mapping of sweep keys (see docs/sweep-files.md)",
                   file, parser->problem_mark.line + 1,
                   parser->problem_mark.column + 1,
                   parser->problem ? parser->problem : "unreadable",
                   parser->context ? " " : "",
                   parser->context ? parser->context : "");
        return -1;
    }
    root = yaml_document_get_root_node(&c.doc);
    if (!root) {
        bl_err_set(err, "%s:1:1: the file is empty; a sweep needs kernels: "
                        "and sweep: or layouts:", file);
        goto done;
    }
    if (parse_top(&c, root) < 0)
        goto done;
    snprintf(out->file, sizeof out->file, "%s", file);
    if (!out->name[0]) {
        name_from_path(file, out->name, sizeof out->name);
        if (!bl_sweep_name_ok(out->name)) {
            bl_err_set(err, "%s:1:1: the sweep takes its name from the file "
                            "name, and '%s' cannot be one; give name: (%s)",
                       file, out->name, NAME_ACCEPTED);
            goto done;
        }
    }
    c.spec.kernels = c.kernels;
    c.spec.nkernels = c.nkernels;
    c.spec.file = file;
    if (bl_layout_expand(&c.spec, &out->layouts, &out->nlayouts, err) < 0)
        goto done;
    out->kernels = c.kernels;
    out->nkernels = c.nkernels;
    c.kernels = NULL;
    rc = 0;
done:
    if (c.kernels) {
        for (int i = 0; i < c.nkernels; i++)
            bl_kernel_spec_clear(&c.kernels[i]);
        free(c.kernels);
    }
    ctx_free(&c);
    yaml_document_delete(&c.doc);
    if (rc < 0)
        memset(out, 0, sizeof *out);
    return rc;
}

static int load_text(const char *text_in, size_t len, const char *name,
                     bl_sweep *out, bl_err *err)
{
    yaml_parser_t parser;
    int rc;
    memset(out, 0, sizeof *out);
    if (len > (size_t)BL_SWEEP_FILE_MAX)
        return bl_err_set(err, "%s: larger than %ld bytes (1 MiB), the most "
                          "a sweep file may have", name, BL_SWEEP_FILE_MAX);
    if (bl_sweep_file_check_lines(text_in, len, name, err) < 0)
        return -1;
    if (!yaml_parser_initialize(&parser))
        return bl_err_set(err, "%s: cannot start the YAML parser", name);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text_in,
                                 len);
    rc = load(&parser, name, out, err);
    yaml_parser_delete(&parser);
    return rc;
}

int bl_sweep_file_load(const char *path, bl_sweep *out, bl_err *err)
{
    size_t len = 0;
    char *text_in;
    int rc;
    memset(out, 0, sizeof *out);
    if (!(text_in = bl_sweep_file_read(path, &len, err)))
        return -1;
    rc = load_text(text_in, len, path, out, err);
    free(text_in);
    return rc;
}

int bl_sweep_file_load_string(const char *text_in, const char *name,
                          bl_sweep *out, bl_err *err)
{
    return load_text(text_in, strlen(text_in), name, out, err);
}
