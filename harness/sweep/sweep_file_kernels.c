/* The kernels: list of a sweep file: each entry a name, or a mapping of
 * name, label and the kernel's arguments, checked as bindlab-app checks
 * them. */
#include "sweep/sweep_file_priv.h"

#include <stdlib.h>
#include <string.h>

#include "kernel_names.h"
#include "units.h"

enum arg_kind { ARG_SIZE, ARG_COUNT, ARG_GRID, ARG_BOOL };

static const struct {
    const char *key, *flag;
    enum arg_kind kind;
} kernel_args[] = {
    {"size", "--size", ARG_SIZE},       {"iters", "--iters", ARG_COUNT},
    {"warmup", "--warmup", ARG_COUNT},  {"grid", "--grid", ARG_GRID},
    {"radius", "--radius", ARG_COUNT},  {"overlap", "--overlap", ARG_BOOL},
    {"align_shares", "--align-shares", ARG_BOOL},
    {"n", "--n", ARG_COUNT},            {"nb", "--nb", ARG_COUNT},
    {"seed", "--seed", ARG_COUNT},      {"writes", "--writes", ARG_COUNT},
};
#define N_KERNEL_ARGS (sizeof kernel_args / sizeof kernel_args[0])

/* Checks a kernel argument with the parser bindlab-app itself uses
 * (common/units.c), so the sweep refuses exactly what the app would. */
static int kernel_arg(bl_sf_ctx *c, bl_kernel_spec *k, int a,
                      const yaml_node_t *v)
{
    const char *t, *key = kernel_args[a].key;
    bl_err e;
    size_t bytes;
    long dims[3], count;
    int ndims, rc = 0;
    if (bl_sf_expect(c, v, YAML_SCALAR_NODE, key) < 0)
        return -1;
    t = bl_sf_text(v);
    switch (kernel_args[a].kind) {
    case ARG_SIZE: rc = bl_parse_size(t, key, &bytes, &e); break;
    case ARG_COUNT:
        rc = bl_parse_count(t, kernel_args[a].flag, key, &count, &e);
        break;
    case ARG_GRID: rc = bl_parse_grid(t, key, dims, &ndims, &e); break;
    default:
        if (strcmp(t, "true") != 0 && strcmp(t, "false") != 0)
            return bl_sf_fail_at(c, v, "%s '%s': accepted: true or false",
                                 key, t);
        break;
    }
    if (rc < 0)
        return bl_sf_fail_at(c, v, "%s", e.msg);
    if (k->nargs + 2 > BL_KERNEL_MAX_ARGS)
        return bl_sf_fail_at(c, v, "too many kernel arguments");
    if (kernel_args[a].kind == ARG_BOOL) {
        if (!strcmp(t, "true") &&
            !(k->args[k->nargs++] = strdup(kernel_args[a].flag)))
            return bl_sf_fail_at(c, v, "out of memory");
        return 0;
    }
    if (!(k->args[k->nargs++] = strdup(kernel_args[a].flag)) ||
        !(k->args[k->nargs++] = strdup(t)))
        return bl_sf_fail_at(c, v, "out of memory");
    return 0;
}

static int kernel_name(bl_sf_ctx *c, const yaml_node_t *v, char *dst,
                       size_t len, const char *key)
{
    const char *t;
    if (bl_sf_expect(c, v, YAML_SCALAR_NODE, key) < 0)
        return -1;
    t = bl_sf_text(v);
    if (!strcmp(key, "name")) { /* a known name fits dst */
        if (!bl_kernel_name_known(t))
            return bl_sf_fail_at(c, v, "kernel name '%s': no such kernel; "
                                 "accepted: %s", t, BL_KERNEL_NAMES);
    } else if (!*t || strlen(t) >= len ||
               strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789_-.") !=
                   strlen(t))
        return bl_sf_fail_at(c, v, "kernel %s '%s': accepted: lower-case "
                             "letters, digits, '_', '-', '.', up to %zu "
                             "characters", key, t, len - 1);
    strcpy(dst, t);
    return 0;
}

static int parse_kernel(bl_sf_ctx *c, const yaml_node_t *n, bl_kernel_spec *k)
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
    if (bl_sf_expect(c, n, YAML_MAPPING_NODE, "kernels entry") < 0)
        return -1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        int i = bl_sf_key_index(c, n, p, keys, "kernels entry");
        const yaml_node_t *v = bl_sf_node(c, p->value);
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
        return bl_sf_fail_at(c, n, "kernels entry: no name; accepted: "
                                   "{name: triad, size: 256MiB, ...}");
    if (!k->label[0])
        strcpy(k->label, k->name);
    return 0;
}

int bl_sf_kernels(bl_sf_ctx *c, const yaml_node_t *n)
{
    int count;
    if (bl_sf_expect(c, n, YAML_SEQUENCE_NODE, "kernels") < 0)
        return -1;
    count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (count == 0)
        return bl_sf_fail_at(c, n, "kernels: the list is empty; give at "
                             "least one, e.g. [{name: triad, size: 256MiB}]");
    if (!(c->kernels = calloc((size_t)count, sizeof *c->kernels)))
        return bl_sf_fail_at(c, n, "out of memory");
    c->nkernels = count;
    for (int i = 0; i < count; i++) {
        const yaml_node_t *e = bl_sf_node(c, n->data.sequence.items.start[i]);
        if (parse_kernel(c, e, &c->kernels[i]) < 0)
            return -1;
        for (int j = 0; j < i; j++)
            if (!strcmp(c->kernels[j].label, c->kernels[i].label))
                return bl_sf_fail_at(c, e, "kernels: '%s' appears twice; "
                                     "give entries of one kernel a label: "
                                     "each",
                                     c->kernels[i].label);
    }
    return 0;
}
