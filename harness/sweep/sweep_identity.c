#include "sweep/sweep_identity.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/shellquote.h"
#include "results/results_file.h"
#include "strbuf.h"

void bl_sweep_item_path(const bl_sweep_ctx *c, const bl_sweep_item *it,
                       char *buf, size_t len)
{
    bl_textf(buf, len, "%s/%s.h5", c->dir, it->run_id);
}

char *bl_sweep_item_fingerprint(const bl_sweep_ctx *c,
                                const bl_sweep_item *it)
{
    const bl_layout *l = it->layout;
    const bl_kernel_spec *k = &c->sweep.kernels[l->kernel];
    const bl_app_spec *app = c->sweep.app;
    bl_strbuf b = {0};
    char *args = bl_shell_join(k->args);
    bl_strbuf_printf(&b, "%s rep=%d kernel=%s args=%s", l->label, it->rep,
                     k->name, args ? args : "");
    free(args);
    if (app) {
        char *cmd = bl_shell_join(app->command);
        bl_strbuf_printf(&b, " command=%s", cmd ? cmd : "");
        free(cmd);
        for (int i = 0; i < app->nenv; i++)
            bl_strbuf_printf(&b, " env:%s=%s", app->env_names[i],
                             app->env_values[i]);
    }
    return bl_strbuf_take(&b);
}

/* The words of a that b lacks, each marked with sign, into buf. */
static void words_missing(const char *a, const char *b, char sign,
                          char *buf, size_t len)
{
    size_t used = strlen(buf);
    for (const char *p = a; *p && used + 2 < len;) {
        size_t m = strcspn(p, " ");
        if (m && !bl_list_has(b, " ", p, m)) {
            int wrote = snprintf(buf + used, len - used, "%s%c%.*s",
                                 used ? " " : "", sign, (int)m, p);
            used = wrote > 0 && (size_t)wrote < len - used ? used + (size_t)wrote
                                                          : len - 1;
        }
        p += m;
        p += strspn(p, " ");
    }
}

/* What the record at path says the run is (malloc'ed), or NULL when the
 * record cannot be read (it is then run again, as a truncated one is). */
static char *recorded(const bl_sweep_item *it, const char *path, int *old)
{
    char group[64], *what = NULL;
    bl_h5_harness h;
    bl_err e;
    hid_t f = bl_h5_open_read(path, &e);
    if (f < 0)
        return NULL;
    bl_h5_run_path(it->run_id, group, sizeof group);
    if (bl_h5_read_harness(f, group, &h, &e) == 0) {
        *old = !h.fingerprint;
        if (h.fingerprint) {
            what = h.fingerprint;
            h.fingerprint = NULL;
        } else if (h.label) {
            /* written before fingerprints: label and repetition */
            size_t n = strlen(h.label) + 32;
            if ((what = malloc(n)))
                snprintf(what, n, "%s rep=%d", h.label, h.repetition);
        }
    }
    bl_h5_harness_free(&h);
    H5Fclose(f);
    return what;
}

/* Does the record's text describe the item. */
static int same_run(const bl_sweep_ctx *c, const bl_sweep_item *it,
                    const char *was, int old, char **now)
{
    if (!(*now = bl_sweep_item_fingerprint(c, it)))
        return 1; /* out of memory: no refusal made up from it */
    if (!old)
        return strcmp(was, *now) == 0;
    size_t n = strlen(it->layout->label);
    return strncmp(was, it->layout->label, n) == 0 &&
           strncmp(was + n, " rep=", 5) == 0 && atoi(was + n + 5) == it->rep;
}

int bl_sweep_identity_check(const bl_sweep_ctx *c, bl_err *err)
{
    int changed = 0, first = -1;
    char *first_was = NULL, *first_now = NULL;
    for (int i = 0; i < c->nitems; i++) {
        char path[PATH_MAX], *was, *now = NULL;
        int old = 0;
        bl_sweep_item_path(c, &c->items[i], path, sizeof path);
        if (access(path, F_OK) != 0 ||
            !(was = recorded(&c->items[i], path, &old)))
            continue;
        if (!same_run(c, &c->items[i], was, old, &now)) {
            changed++;
            if (first < 0) {
                first = i;
                first_was = was;
                first_now = now;
                continue;
            }
        }
        free(was);
        free(now);
    }
    if (!changed)
        return 0;
    char diff[240] = "";
    words_missing(first_was, first_now, '-', diff, sizeof diff);
    words_missing(first_now, first_was, '+', diff, sizeof diff);
    bl_err_set(err, "--resume: %d run id%s of %s now mean%s another run "
               "(records are never rewritten): %s was \"%.200s\", the sweep "
               "file now makes it \"%.200s\" (%s); put new layouts after the "
               "existing ones (they get new run ids) or give the changed "
               "sweep another name or --results directory",
               changed, changed == 1 ? "" : "s", c->dir,
               changed == 1 ? "s" : "", c->items[first].run_id, first_was,
               first_now, diff);
    free(first_was);
    free(first_now);
    return -1;
}
