/* The templates of an app: block (sweep_app.h): which {name}s exist, the
 * check the reader makes at load, and the filling for one run. */
#include "sweep/sweep_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

const char *const bl_app_placeholders[] = {
    "np", "threads", "nodes", "map_by", "bind_to", "rank_by",
    "omp_places", "omp_proc_bind", "run_id", "repetition", NULL};

/* The index of the name of length n in bl_app_placeholders, or -1. */
static int placeholder(const char *name, size_t n)
{
    for (int i = 0; bl_app_placeholders[i]; i++)
        if (strlen(bl_app_placeholders[i]) == n &&
            strncmp(bl_app_placeholders[i], name, n) == 0)
            return i;
    return -1;
}

static void value_of(int i, const bl_app_values *v, char *buf, size_t len)
{
    const bl_layout *l = v->layout;
    switch (i) {
    case 0: snprintf(buf, len, "%d", l->np); break;
    case 1: snprintf(buf, len, "%d", v->threads); break;
    case 2: snprintf(buf, len, "%d", l->nodes > 0 ? l->nodes : 1); break;
    case 3: snprintf(buf, len, "%s", l->map_by); break;
    case 4: snprintf(buf, len, "%s", l->bind_to); break;
    case 5: snprintf(buf, len, "%s", l->rank_by); break;
    case 6: snprintf(buf, len, "%s", l->omp_places); break;
    case 7: snprintf(buf, len, "%s", l->omp_proc_bind); break;
    case 8: snprintf(buf, len, "%s", l->run_id); break;
    default: snprintf(buf, len, "%d", v->repetition); break;
    }
}

/* One pass over tmpl: checks it, and appends its filling to sb when v is
 * given. */
static int walk(const char *tmpl, const bl_app_values *v, bl_strbuf *sb,
                bl_err *err)
{
    char val[256];
    for (const char *p = tmpl; *p;) {
        const char *close;
        int i;
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            if (sb)
                bl_strbuf_add(sb, p, 1);
            p += 2;
            continue;
        }
        if (*p == '}')
            return bl_err_set(err, "'}' without its '{' (write }} for the "
                              "brace itself)");
        if (*p != '{') {
            if (sb)
                bl_strbuf_add(sb, p, 1);
            p++;
            continue;
        }
        if (!(close = strchr(p, '}')))
            return bl_err_set(err, "'{' without its '}' (write {{ for the "
                              "brace itself)");
        if ((i = placeholder(p + 1, (size_t)(close - p - 1))) < 0)
            return bl_err_set(err, "unknown placeholder {%.*s}; accepted: "
                              "{np}, {threads}, {nodes}, {map_by}, "
                              "{bind_to}, {rank_by}, {omp_places}, "
                              "{omp_proc_bind}, {run_id}, {repetition}",
                              (int)(close - p - 1), p + 1);
        if (sb) {
            value_of(i, v, val, sizeof val);
            bl_strbuf_puts(sb, val);
        }
        p = close + 1;
    }
    return 0;
}

int bl_app_template_check(const char *tmpl, bl_err *err)
{
    return walk(tmpl, NULL, NULL, err);
}

char *bl_app_substitute(const char *tmpl, const bl_app_values *v,
                        bl_err *err)
{
    bl_strbuf sb = {0};
    char *s;
    if (walk(tmpl, v, &sb, err) < 0) {
        free(bl_strbuf_take(&sb));
        return NULL;
    }
    if (!(s = bl_strbuf_take(&sb)))
        bl_err_set(err, "out of memory");
    return s;
}

static void free_list(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void bl_app_spec_free(bl_app_spec *a)
{
    if (!a)
        return;
    free_list(a->command, a->ncommand);
    free_list(a->env_names, a->nenv);
    free_list(a->env_values, a->nenv);
    free(a->rate_regex);
    free(a->rate_unit);
    memset(a, 0, sizeof *a);
}
