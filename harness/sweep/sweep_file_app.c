/* The app: block of a sweep file (sweep/sweep_app.h): command, env and
 * rate, each template checked for its placeholders and the rate's regex
 * compiled at load, every error at FILE:LINE:COLUMN. The sweep gets one
 * kernel entry standing for the program, so that layouts expand as for
 * bindlab's kernels. */
#include "sweep/sweep_file_priv.h"

#include "sweep/ere_size.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A scalar that is a template: kept, its placeholders checked. */
static char *template_at(bl_sf_ctx *c, const yaml_node_t *v, const char *key)
{
    bl_err e;
    char *s;
    if (bl_sf_expect(c, v, YAML_SCALAR_NODE, key) < 0)
        return NULL;
    if (bl_app_template_check(bl_sf_text(v), &e) < 0) {
        bl_sf_fail_at(c, v, "%s '%s': %s", key, bl_sf_text(v), e.msg);
        return NULL;
    }
    if (!(s = strdup(bl_sf_text(v))))
        bl_sf_fail_at(c, v, "out of memory");
    return s;
}

static int parse_command(bl_sf_ctx *c, bl_app_spec *a, const yaml_node_t *n)
{
    int count;
    if (bl_sf_expect(c, n, YAML_SEQUENCE_NODE, "app: command") < 0)
        return -1;
    count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (count == 0)
        return bl_sf_fail_at(c, n, "app: command: the list is empty; give "
                             "the program and its arguments, e.g. [lmp, "
                             "-in, in.lj]");
    if (!(a->command = calloc((size_t)count + 1, sizeof *a->command)))
        return bl_sf_fail_at(c, n, "out of memory");
    for (int i = 0; i < count; i++) {
        const yaml_node_t *v = bl_sf_node(c, n->data.sequence.items.start[i]);
        if (!(a->command[i] = template_at(c, v, "app: command")))
            return -1;
        a->ncommand++;
        if (i == 0 && !a->command[0][0])
            return bl_sf_fail_at(c, v, "app: command: the program's name "
                                 "is empty");
    }
    return 0;
}

static int env_name_ok(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && !(s[0] >= '0' && s[0] <= '9') &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789_") == n;
}

static int parse_env(bl_sf_ctx *c, bl_app_spec *a, const yaml_node_t *n)
{
    size_t count;
    if (bl_sf_expect(c, n, YAML_MAPPING_NODE, "app: env") < 0)
        return -1;
    count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    a->env_names = calloc(count + 1, sizeof *a->env_names);
    a->env_values = calloc(count + 1, sizeof *a->env_values);
    if (!a->env_names || !a->env_values)
        return bl_sf_fail_at(c, n, "out of memory");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = bl_sf_node(c, p->key);
        const yaml_node_t *v = bl_sf_node(c, p->value);
        if (bl_sf_expect(c, k, YAML_SCALAR_NODE, "app: env name") < 0)
            return -1;
        if (!env_name_ok(bl_sf_text(k)))
            return bl_sf_fail_at(c, k, "app: env: '%s' is not a variable "
                                 "name; accepted: letters, digits and '_', "
                                 "not starting with a digit", bl_sf_text(k));
        for (int j = 0; j < a->nenv; j++)
            if (!strcmp(a->env_names[j], bl_sf_text(k)))
                return bl_sf_fail_at(c, k, "app: env: '%s' given twice",
                                     bl_sf_text(k));
        char key[160];
        snprintf(key, sizeof key, "app: env: %.140s", bl_sf_text(k));
        if (!(a->env_values[a->nenv] = template_at(c, v, key)))
            return -1;
        if (!(a->env_names[a->nenv++] = strdup(bl_sf_text(k))))
            return bl_sf_fail_at(c, k, "out of memory");
    }
    return 0;
}

/* regex: must compile (POSIX extended) and have a group: the number. */
static int rate_regex(bl_sf_ctx *c, bl_app_spec *a, const yaml_node_t *v)
{
    regex_t re;
    char msg[256];
    int rc;
    bl_ere_size size;
    if (bl_sf_expect(c, v, YAML_SCALAR_NODE, "app: rate: regex") < 0)
        return -1;
    /* Measured first: regcomp can take a gigabyte, minutes or its stack
     * on a few characters (sweep/ere_size.h). */
    if (bl_ere_measure(bl_sf_text(v), &size) < 0)
        return bl_sf_fail_at(c, v, "app: rate: regex '%s': groups nested "
                             "more than %d deep; a rate needs one group "
                             "around the number, e.g. 'Performance: "
                             "([0-9.]+) tau/day'", bl_sf_text(v),
                             BL_ERE_MAX_DEPTH);
    if (size.parts > BL_ERE_MAX_PARTS || size.optional > BL_ERE_MAX_OPTIONAL)
        return bl_sf_fail_at(c, v, "app: rate: regex '%s' is too large for "
                             "regcomp once its repeats are written out: "
                             "%.0f parts (at most %.0f), %.0f of them "
                             "optional (at most %.0f: each '?', '*', '+', "
                             "'|' and each copy a {m,n} may skip); use fewer "
                             "or smaller repeats, e.g. '([0-9.]+)' for the "
                             "number", bl_sf_text(v), size.parts,
                             BL_ERE_MAX_PARTS, size.optional,
                             BL_ERE_MAX_OPTIONAL);
    if ((rc = regcomp(&re, bl_sf_text(v), REG_EXTENDED)) != 0) {
        regerror(rc, &re, msg, sizeof msg);
        return bl_sf_fail_at(c, v, "app: rate: regex '%s': %s (POSIX "
                             "extended syntax)", bl_sf_text(v), msg);
    }
    rc = (int)re.re_nsub;
    regfree(&re);
    if (rc < 1)
        return bl_sf_fail_at(c, v, "app: rate: regex '%s' has no group; "
                             "put the number in one, e.g. 'Performance: "
                             "([0-9.]+) tau/day'", bl_sf_text(v));
    if (!(a->rate_regex = strdup(bl_sf_text(v))))
        return bl_sf_fail_at(c, v, "out of memory");
    return 0;
}

static int parse_rate(bl_sf_ctx *c, bl_app_spec *a, const yaml_node_t *n)
{
    static const char *const keys[] = {"regex", "unit", "higher_is_better",
                                       NULL};
    if (bl_sf_expect(c, n, YAML_MAPPING_NODE, "app: rate") < 0)
        return -1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        int i = bl_sf_key_index(c, n, p, keys, "app: rate");
        const yaml_node_t *v = bl_sf_node(c, p->value);
        if (i < 0 || (i == 0 && rate_regex(c, a, v) < 0))
            return -1;
        if (i > 0 && bl_sf_expect(c, v, YAML_SCALAR_NODE, keys[i]) < 0)
            return -1;
        if (i == 1 && !(a->rate_unit = strdup(bl_sf_text(v))))
            return bl_sf_fail_at(c, v, "out of memory");
        if (i == 2 && strcmp(bl_sf_text(v), "true") &&
            strcmp(bl_sf_text(v), "false"))
            return bl_sf_fail_at(c, v, "higher_is_better '%s': accepted: "
                                 "true or false", bl_sf_text(v));
        if (i == 2)
            a->higher_is_better = !strcmp(bl_sf_text(v), "true");
    }
    if (!a->rate_regex)
        return bl_sf_fail_at(c, n, "app: rate: no regex; accepted: {regex: "
                             "'Performance: ([0-9.]+) tau/day', unit: "
                             "tau/day}");
    return 0;
}

/* The kernel entry standing for the program: its file name, made a
 * kernel name (lower case, other characters '_'). */
static int app_kernel(bl_sf_ctx *c, const yaml_node_t *n)
{
    const char *prog = c->app->command[0], *base = strrchr(prog, '/');
    bl_kernel_spec *k;
    size_t i;
    base = base && base[1] ? base + 1 : prog;
    if (!(c->kernels = calloc(1, sizeof *c->kernels)))
        return bl_sf_fail_at(c, n, "out of memory");
    c->nkernels = 1;
    k = &c->kernels[0];
    for (i = 0; base[i] && i + 1 < sizeof k->name; i++) {
        char ch = base[i];
        ch = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
        k->name[i] = strchr("abcdefghijklmnopqrstuvwxyz0123456789_-.", ch)
                         ? ch : '_';
    }
    strcpy(k->label, k->name);
    return 0;
}

int bl_sf_app(bl_sf_ctx *c, const yaml_node_t *n)
{
    static const char *const keys[] = {"command", "env", "rate", NULL};
    bl_app_spec *a;
    if (bl_sf_expect(c, n, YAML_MAPPING_NODE, "app") < 0)
        return -1;
    if (!(a = c->app = calloc(1, sizeof *c->app)))
        return bl_sf_fail_at(c, n, "out of memory");
    a->higher_is_better = 1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        int i = bl_sf_key_index(c, n, p, keys, "app");
        const yaml_node_t *v = bl_sf_node(c, p->value);
        int rc = i == 0   ? parse_command(c, a, v)
                 : i == 1 ? parse_env(c, a, v)
                 : i == 2 ? parse_rate(c, a, v)
                          : -1;
        if (rc < 0)
            return -1;
    }
    if (!a->command)
        return bl_sf_fail_at(c, n, "app: no command; accepted: {command: "
                             "[lmp, -in, in.lj, -var, n, \"{np}\"]}");
    if (!a->rate_regex)
        a->rate_unit = strdup("runs/s");
    else if (!a->rate_unit)
        a->rate_unit = strdup("");
    if (!a->rate_unit)
        return bl_sf_fail_at(c, n, "out of memory");
    return app_kernel(c, n);
}
