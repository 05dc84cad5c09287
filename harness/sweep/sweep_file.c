/* Loading a sweep file: its top-level keys, each part read by
 * sweep_file_kernels.c or sweep_file_fields.c, then the layouts expanded
 * (bl_layout_expand). */
#include "sweep/sweep_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "launcher/launcher_choice.h"
#include "sweep/sweep_file_priv.h"
#include "units.h"

/* launcher: a family or a path; whether it is installed is asked when the
 * sweep runs (bl_launcher_choose), not here. */
static int parse_launcher(bl_sf_ctx *c, const yaml_node_t *v)
{
    bl_launcher_want w;
    bl_err e;
    if (bl_sf_expect(c, v, YAML_SCALAR_NODE, "launcher") < 0)
        return -1;
    if (strlen(bl_sf_text(v)) >= sizeof c->out->launcher)
        return bl_sf_fail_at(c, v, "launcher: longer than %zu characters",
                             sizeof c->out->launcher - 1);
    if (bl_launcher_want_parse(bl_sf_text(v), &w, &e) < 0)
        return bl_sf_fail_at(c, v, "launcher: %s", e.msg);
    strcpy(c->out->launcher, bl_sf_text(v));
    c->out->launcher_line = (int)v->start_mark.line + 1;
    c->out->launcher_col = (int)v->start_mark.column + 1;
    return 0;
}

/* max_runs: the cap on runs, raised (or lowered) by the file. */
static int parse_max_runs(bl_sf_ctx *c, const yaml_node_t *v)
{
    bl_err e;
    if (bl_sf_expect(c, v, YAML_SCALAR_NODE, "max_runs") < 0)
        return -1;
    if (bl_parse_long(bl_sf_text(v), "max_runs", 1, BL_SWEEP_RUNS_CEILING,
                      &c->max_runs, &e) < 0)
        return bl_sf_fail_at(c, v, "%s", e.msg);
    return 0;
}

/* kernels: and app: say what runs: one or the other. */
static int exclusive(bl_sf_ctx *c, const yaml_node_t *v, const char *key,
                     const char *other)
{
    return bl_sf_fail_at(c, v, "%s: and %s: cannot both be given: a sweep "
                         "runs bindlab's kernels or a program of yours",
                         key, other);
}

#define NAME_ACCEPTED                                                       \
    "accepted: 1 to 63 letters, digits, '.', '_' or '-', not starting "    \
    "with '.' or '-' (the name becomes a file name under the results "     \
    "directory, so no '/')"

/* name: and description: */
static int parse_text(bl_sf_ctx *c, const yaml_node_t *v, const char *key)
{
    int is_name = strcmp(key, "name") == 0;
    char *dst = is_name ? c->out->name : c->out->description;
    size_t len = is_name ? sizeof c->out->name : sizeof c->out->description;
    if (bl_sf_expect(c, v, YAML_SCALAR_NODE, key) < 0)
        return -1;
    if (is_name && !bl_sweep_name_ok(bl_sf_text(v)))
        return bl_sf_fail_at(c, v, "name '%s': " NAME_ACCEPTED,
                             bl_sf_text(v));
    if (strlen(bl_sf_text(v)) >= len)
        return bl_sf_fail_at(c, v, "%s: longer than %zu characters", key,
                             len - 1);
    strcpy(dst, bl_sf_text(v));
    return 0;
}

static int parse_top(bl_sf_ctx *c, const yaml_node_t *root)
{
    static const char *const keys[] = {"name", "description", "kernels",
                                       "defaults", "sweep", "exclude",
                                       "layouts", "launcher",
                                       "repetition_order", "max_runs",
                                       "app", NULL};
    const yaml_node_t *excl = NULL, *kernels = NULL;
    if (bl_sf_expect(c, root, YAML_MAPPING_NODE, "sweep file") < 0)
        return -1;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
         p < root->data.mapping.pairs.top; p++) {
        int i = bl_sf_key_index(c, root, p, keys, "sweep file");
        const yaml_node_t *v = bl_sf_node(c, p->value);
        int rc = 0;
        switch (i) {
        case 0: case 1: rc = parse_text(c, v, keys[i]); break;
        case 2:
            kernels = v;
            rc = c->app ? exclusive(c, v, "kernels", "app")
                        : bl_sf_kernels(c, v);
            break;
        case 3:
            rc = bl_sf_partial(c, v, &c->spec.defaults, 0, 0, "defaults");
            break;
        case 4: rc = bl_sf_axes(c, v); break;
        case 5:
            excl = v;
            rc = bl_sf_partials(c, v, &c->spec.exclude, &c->spec.nexclude,
                                0, "exclude");
            break;
        case 6:
            rc = bl_sf_partials(c, v, &c->spec.explicit_layouts,
                                &c->spec.nexplicit, 1, "layouts");
            break;
        case 7: rc = parse_launcher(c, v); break;
        case 8:
            if (bl_sf_expect(c, v, YAML_SCALAR_NODE, keys[i]) < 0)
                return -1;
            if (bl_rep_order_parse(bl_sf_text(v),
                                   &c->out->repetition_order) < 0)
                return bl_sf_fail_at(c, v, "repetition_order: '%s' is not "
                                     "accepted; use interleaved (A B A B, the "
                                     "default) or consecutive (A A B B)",
                                     bl_sf_text(v));
            break;
        case 9: rc = parse_max_runs(c, v); break;
        case 10:
            rc = kernels ? exclusive(c, v, "app", "kernels")
                         : bl_sf_app(c, v);
            break;
        default: return -1;
        }
        if (rc < 0)
            return -1;
    }
    if (!c->nkernels)
        return bl_sf_fail_at(c, root, "kernels: missing; accepted: a list "
                             "such as [{name: triad, size: 256MiB, "
                             "iters: 20}], or app: {command: [PROGRAM, "
                             "ARG...]}");
    if (!c->spec.have_axes && !c->spec.nexplicit)
        return bl_sf_fail_at(c, root, "no layouts: give a sweep: mapping "
                             "(crossed) or a layouts: list (or both)");
    if (excl && !c->spec.have_axes)
        return bl_sf_fail_at(c, excl, "exclude: only applies to sweep:, and "
                             "there is none");
    return 0;
}

long bl_sweep_runs(const bl_sweep *s)
{
    long runs = 0;
    for (int i = 0; i < s->nlayouts; i++)
        runs += s->layouts[i].repetitions > 0 ? s->layouts[i].repetitions : 1;
    return runs;
}

/* Refuses a sweep of more runs than its cap, with the count. */
static int check_runs(const bl_sf_ctx *c, const bl_sweep *s, bl_err *err)
{
    long runs = bl_sweep_runs(s);
    long cap = c->max_runs ? c->max_runs : BL_SWEEP_RUNS_MAX;
    if (runs <= cap)
        return 0;
    return bl_err_set(err, "%s: %ld runs (%d layouts with their "
                      "repetitions), more than the cap of %ld; give fewer "
                      "layouts or repetitions, or raise the cap with "
                      "max_runs: N (at most %ld)", c->file, runs,
                      s->nlayouts, cap, BL_SWEEP_RUNS_CEILING);
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

static void ctx_free(bl_sf_ctx *c)
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
    bl_sf_ctx c;
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
    if (check_runs(&c, out, err) < 0) {
        free(out->layouts);
        goto done;
    }
    out->kernels = c.kernels;
    out->nkernels = c.nkernels;
    out->app = c.app;
    c.kernels = NULL;
    c.app = NULL;
    rc = 0;
done:
    if (c.kernels) {
        for (int i = 0; i < c.nkernels; i++)
            bl_kernel_spec_clear(&c.kernels[i]);
        free(c.kernels);
    }
    bl_app_spec_free(c.app);
    free(c.app);
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
    if (bl_sweep_file_check_lines(text_in, len, name, err) < 0 ||
        bl_sweep_file_check_depth(text_in, len, name, err) < 0)
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
