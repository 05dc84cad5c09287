#include "layout/layout.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpu_assign.h"
#include "mempol.h"
#include "omp_runtime.h"
#include "sweep/noisy.h"

static const char *const field_keys[BL_F_COUNT] = {
    "kernel", "np", "map_by", "bind_to", "rank_by", "omp_places",
    "omp_proc_bind", "threads", "init", "repetitions", "timeout",
    "mem_policy", "nodes", "noisy", "retry", "omp_runtime", "gpu_bind",
    "gpus_per_rank",
};

const char *bl_field_key(bl_field f)
{
    return (unsigned)f < BL_F_COUNT ? field_keys[f] : "?";
}

const char *bl_field_keys(void)
{
    return "kernel, np, map_by, bind_to, rank_by, omp_places, "
           "omp_proc_bind, threads, init, repetitions, timeout, mem_policy, "
           "nodes, noisy, retry, omp_runtime, gpu_bind, gpus_per_rank";
}

/* --- resources ---------------------------------------------------------- */

static const struct {
    const char *name;
    bl_res res;
} res_names[] = {
    {"hwthread", BL_RES_HWTHREAD}, {"core", BL_RES_CORE},
    {"l3cache", BL_RES_L3CACHE},   {"numa", BL_RES_NUMA},
    {"package", BL_RES_PACKAGE},   {"socket", BL_RES_PACKAGE},
    {"node", BL_RES_NODE},         {"slot", BL_RES_SLOT},
};

static int res_from_name(const char *s, bl_res *out)
{
    for (size_t i = 0; i < sizeof res_names / sizeof res_names[0]; i++)
        if (strcasecmp(s, res_names[i].name) == 0) {
            *out = res_names[i].res;
            return 0;
        }
    return -1;
}

const char *bl_res_name(bl_res r)
{
    switch (r) {
    case BL_RES_HWTHREAD: return "hwthread";
    case BL_RES_CORE: return "core";
    case BL_RES_L3CACHE: return "l3cache";
    case BL_RES_NUMA: return "numa";
    case BL_RES_PACKAGE: return "package";
    case BL_RES_NODE: return "node";
    case BL_RES_SLOT: return "slot";
    default: return "none";
    }
}

/* Strict decimal in [lo, hi]. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int bl_layout_parse_map_by(const char *text, bl_mapby *out, bl_err *err)
{
    char buf[64], *save = NULL, *tok;
    long v;
    static const char accepted[] =
        "accepted: hwthread, core, l3cache, numa, package, socket, node, "
        "slot or ppr:N:RESOURCE, then :PE=n, :oversubscribe, :span";

    memset(out, 0, sizeof *out);
    if (strlen(text) >= sizeof buf || !*text)
        return bl_err_set(err, "map_by '%s': %s", text, accepted);
    strcpy(buf, text);
    tok = strtok_r(buf, ":", &save);
    if (tok && strcasecmp(tok, "ppr") == 0) {
        tok = strtok_r(NULL, ":", &save);
        if (parse_int(tok, 1, 100000, &v) < 0)
            return bl_err_set(err,
                              "map_by '%s': ppr needs a positive count, as "
                              "in ppr:2:package",
                              text);
        out->ppr = (int)v;
        tok = strtok_r(NULL, ":", &save);
        if (!tok || res_from_name(tok, &out->res) < 0 ||
            out->res == BL_RES_SLOT)
            return bl_err_set(err,
                              "map_by '%s': ppr resource must be hwthread, "
                              "core, l3cache, numa, package, socket or node",
                              text);
    } else if (!tok || res_from_name(tok, &out->res) < 0) {
        return bl_err_set(err, "map_by '%s': %s", text, accepted);
    }
    while ((tok = strtok_r(NULL, ":", &save)) != NULL) {
        if (strncasecmp(tok, "PE=", 3) == 0) {
            if (parse_int(tok + 3, 1, 100000, &v) < 0)
                return bl_err_set(err,
                                  "map_by '%s': PE= needs a positive "
                                  "number of cores, as in PE=4",
                                  text);
            out->pe = (int)v;
        } else if (strcasecmp(tok, "oversubscribe") == 0) {
            out->oversubscribe = 1;
        } else if (strcasecmp(tok, "span") == 0) {
            out->span = 1;
        } else {
            return bl_err_set(err,
                              "map_by '%s': unknown modifier '%s' "
                              "(accepted: PE=n, oversubscribe, span)",
                              text, tok);
        }
    }
    return 0;
}

/* --- field values ------------------------------------------------------- */

static int is_unset(const char *t)
{
    return !*t || strcmp(t, "unset") == 0;
}

static int copy_text(char *dst, size_t len, const char *text, const char *key,
                     bl_err *err)
{
    if (strlen(text) >= len)
        return bl_err_set(err, "%s '%s': longer than %zu characters", key,
                          text, len - 1);
    strcpy(dst, text);
    return 0;
}

/* OMP_PLACES: an abstract name with an optional count, "cores(4)", or a
 * list of places in braces, "{0:4},{4:4}" or "{0:4}:2:4"; only the shape
 * is checked here, the OpenMP runtime judges the numbers. */
static int check_places(const char *t, bl_err *err)
{
    static const char *const names[] = {"threads", "cores", "ll_caches",
                                        "numa_domains", "sockets"};
    static const char accepted[] =
        "accepted: threads, cores, ll_caches, numa_domains, sockets "
        "(optionally with a count, cores(4)), a list of places such as "
        "{0:4},{4:4}, or unset";
    int depth = 0, inside = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        long v;
        char num[16];
        if (strncmp(t, names[i], n) != 0)
            continue;
        if (t[n] == '\0')
            return 0;
        if (t[n] == '(' && strlen(t + n) < sizeof num &&
            t[strlen(t) - 1] == ')') {
            memcpy(num, t + n + 1, strlen(t + n) - 2);
            num[strlen(t + n) - 2] = '\0';
            if (parse_int(num, 1, 1000000, &v) == 0)
                return 0;
        }
        return bl_err_set(err, "omp_places '%s': %s", t, accepted);
    }
    if (*t != '{' && *t != '!')
        return bl_err_set(err, "omp_places '%s': %s", t, accepted);
    for (const char *p = t; *p; p++) {
        if (*p == '{') {
            if (depth++)
                break;
            inside = 0;
        } else if (*p == '}') {
            if (!depth-- || !inside)
                return bl_err_set(err, "omp_places '%s': %s", t, accepted);
        } else if (isdigit((unsigned char)*p)) {
            inside = 1;
        } else if (!strchr(":,!-", *p)) {
            return bl_err_set(err, "omp_places '%s': unexpected '%c'; %s", t,
                              *p, accepted);
        }
    }
    if (depth)
        return bl_err_set(err, "omp_places '%s': unbalanced braces; %s", t,
                          accepted);
    return 0;
}

/* OMP_PROC_BIND: one policy, or a comma list for nested levels. */
static int check_proc_bind(const char *t, bl_err *err)
{
    static const char *const ok[] = {"close", "spread", "primary", "master"};
    char buf[48], *save = NULL, *tok;
    if (!strcmp(t, "true") || !strcmp(t, "false"))
        return 0;
    if (strlen(t) >= sizeof buf)
        goto bad;
    strcpy(buf, t);
    for (tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        size_t i;
        for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
            if (!strcmp(tok, ok[i]))
                break;
        if (i == sizeof ok / sizeof ok[0])
            goto bad;
    }
    if (t[strlen(t) - 1] != ',' && t[0] != ',')
        return 0;
bad:
    return bl_err_set(err,
                      "omp_proc_bind '%s': accepted: false, true, close, "
                      "spread, primary, master (or a comma list of the last "
                      "four, e.g. spread,close), or unset",
                      t);
}

static int set_bind_to(bl_layout *l, const char *t, bl_err *err)
{
    bl_res r;
    if (!strcmp(t, "none")) {
        r = BL_RES_NONE;
    } else if (res_from_name(t, &r) < 0 || r == BL_RES_NODE ||
               r == BL_RES_SLOT) {
        return bl_err_set(err,
                          "bind_to '%s': accepted: none, hwthread, core, "
                          "l3cache, numa, package, socket",
                          t);
    }
    l->bind = r;
    return copy_text(l->bind_to, sizeof l->bind_to, t, "bind_to", err);
}

static int set_rank_by(bl_layout *l, const char *t, bl_err *err)
{
    bl_res r;
    if (is_unset(t)) {
        l->rank_by[0] = '\0';
        return 0;
    }
    if (res_from_name(t, &r) < 0)
        return bl_err_set(err,
                          "rank_by '%s': accepted: slot, hwthread, core, "
                          "l3cache, numa, package, socket, node, or unset",
                          t);
    return copy_text(l->rank_by, sizeof l->rank_by, t, "rank_by", err);
}

/* gpu_bind (kept as written, canonical) or gpus_per_rank. */
static int set_gpus(bl_layout *l, bl_field f, const char *t, bl_err *err)
{
    bl_gpu_bind how;
    long v;
    if (f == BL_F_GPUS_PER_RANK) {
        if (parse_int(t, 1, 1024, &v) < 0)
            return bl_err_set(err, "gpus_per_rank '%s': accepted: 1 to "
                                   "1024", t);
        l->gpus_per_rank = (int)v;
        return 0;
    }
    if (bl_gpu_bind_parse(t, &how, err) < 0)
        return -1;
    return copy_text(l->gpu_bind, sizeof l->gpu_bind, bl_gpu_bind_name(how),
                     "gpu_bind", err);
}

/* One case per field, each a few lines: long as a whole, simple in parts. */
int bl_layout_set(bl_layout *l, bl_field f, const char *t, bl_err *err)
{
    long v;
    char *end;
    double d;
    switch (f) {
    case BL_F_NP:
        if (parse_int(t, 1, 1000000, &v) < 0)
            return bl_err_set(err, "np '%s': accepted: a whole number of "
                                   "ranks, 1 or more", t);
        l->np = (int)v;
        return 0;
    case BL_F_NODES:
        if (parse_int(t, 1, 100000, &v) < 0)
            return bl_err_set(err, "nodes '%s': accepted: a whole number of "
                                   "nodes, 1 or more", t);
        l->nodes = (int)v;
        return 0;
    case BL_F_MAP_BY:
        if (bl_layout_parse_map_by(t, &l->map, err) < 0)
            return -1;
        return copy_text(l->map_by, sizeof l->map_by, t, "map_by", err);
    case BL_F_BIND_TO:
        return set_bind_to(l, t, err);
    case BL_F_RANK_BY:
        return set_rank_by(l, t, err);
    case BL_F_OMP_PLACES:
        if (!is_unset(t) && check_places(t, err) < 0)
            return -1;
        return copy_text(l->omp_places, sizeof l->omp_places,
                         is_unset(t) ? "" : t, "omp_places", err);
    case BL_F_OMP_PROC_BIND:
        if (!is_unset(t) && check_proc_bind(t, err) < 0)
            return -1;
        return copy_text(l->omp_proc_bind, sizeof l->omp_proc_bind,
                         is_unset(t) ? "" : t, "omp_proc_bind", err);
    case BL_F_THREADS:
        if (!strcmp(t, "fill")) {
            l->threads = BL_THREADS_FILL;
            return 0;
        }
        if (parse_int(t, 1, 100000, &v) < 0)
            return bl_err_set(err, "threads '%s': accepted: a number of "
                                   "threads per rank (1 or more) or fill", t);
        l->threads = (int)v;
        return 0;
    case BL_F_INIT:
        if (strcmp(t, "parallel") && strcmp(t, "serial"))
            return bl_err_set(err, "init '%s': accepted: parallel, serial",
                              t);
        l->serial_init = !strcmp(t, "serial");
        return 0;
    case BL_F_REPETITIONS:
        if (parse_int(t, 1, 10000, &v) < 0)
            return bl_err_set(err, "repetitions '%s': accepted: 1 to 10000",
                              t);
        l->repetitions = (int)v;
        return 0;
    case BL_F_TIMEOUT:
        errno = 0;
        d = strtod(t, &end);
        if (!*t || *end || errno || !(d > 0) || d > 7 * 86400.0)
            return bl_err_set(err, "timeout '%s': accepted: seconds, more "
                                   "than 0 and at most 604800", t);
        l->timeout_s = d;
        return 0;
    case BL_F_RETRY:
        if (parse_int(t, 0, BL_RETRY_MAX, &v) < 0)
            return bl_err_set(err, "retry '%s': accepted: 0 to %d launches "
                                   "more for a run that dies before the app "
                                   "starts", t, BL_RETRY_MAX);
        l->retry = (int)v;
        return 0;
    case BL_F_GPU_BIND:
    case BL_F_GPUS_PER_RANK:
        return set_gpus(l, f, t, err);
    case BL_F_MEM_POLICY: {
        /* The app's own parser: the sweep refuses what the app would. */
        bl_mempol p;
        if (bl_mempol_parse(t, "mem_policy", &p, err) < 0)
            return -1;
        return copy_text(l->mem_policy, sizeof l->mem_policy,
                         strcmp(t, "firsttouch") ? t : "", "mem_policy", err);
    }
    case BL_F_OMP_RUNTIME:
        if (strcmp(t, BL_OMP_LIBGOMP) && strcmp(t, BL_OMP_LIBOMP) &&
            strcmp(t, BL_OMP_INTEL) && strcmp(t, "default") && *t)
            return bl_err_set(err, "omp_runtime '%s': accepted: libgomp, "
                                   "libomp, intel (default: the app as it "
                                   "is linked)", t);
        return copy_text(l->omp_runtime, sizeof l->omp_runtime,
                         strcmp(t, "default") ? t : "", "omp_runtime", err);
    case BL_F_NOISY: {
        bl_noisy n;
        char canon[sizeof l->noisy];
        if (bl_noisy_parse(t, &n, err) < 0)
            return -1;
        bl_noisy_text(&n, canon, sizeof canon);
        return copy_text(l->noisy, sizeof l->noisy,
                         bl_noisy_any(&n) ? canon : "", "noisy", err);
    }
    default:
        return bl_err_set(err, "%s: not a field that can be set here",
                          bl_field_key(f));
    }
}

void bl_layout_defaults(bl_layout *l)
{
    memset(l, 0, sizeof *l);
    bl_layout_set(l, BL_F_MAP_BY, "core", NULL);
    bl_layout_set(l, BL_F_BIND_TO, "core", NULL);
    l->threads = 1;
    l->repetitions = 1;
    l->timeout_s = 300;
}

void bl_layout_field_text(const bl_layout *l, bl_field f, char *buf, size_t len)
{
    switch (f) {
    case BL_F_NP: snprintf(buf, len, "%d", l->np); break;
    case BL_F_NODES:
        if (l->nodes > 0)
            snprintf(buf, len, "%d", l->nodes);
        else
            buf[0] = '\0';
        break;
    case BL_F_MAP_BY: snprintf(buf, len, "%s", l->map_by); break;
    case BL_F_BIND_TO: snprintf(buf, len, "%s", l->bind_to); break;
    case BL_F_RANK_BY: snprintf(buf, len, "%s", l->rank_by); break;
    case BL_F_OMP_PLACES: snprintf(buf, len, "%s", l->omp_places); break;
    case BL_F_OMP_PROC_BIND:
        snprintf(buf, len, "%s", l->omp_proc_bind);
        break;
    case BL_F_THREADS:
        if (l->threads == BL_THREADS_FILL)
            snprintf(buf, len, "fill");
        else
            snprintf(buf, len, "%d", l->threads);
        break;
    case BL_F_INIT:
        snprintf(buf, len, "%s", l->serial_init ? "serial" : "parallel");
        break;
    case BL_F_REPETITIONS: snprintf(buf, len, "%d", l->repetitions); break;
    case BL_F_TIMEOUT: snprintf(buf, len, "%g", l->timeout_s); break;
    case BL_F_RETRY: snprintf(buf, len, "%d", l->retry); break;
    case BL_F_GPU_BIND:
        snprintf(buf, len, "%s", bl_layout_gpu_bind(l)[0]
                                     ? bl_layout_gpu_bind(l) : "none");
        break;
    case BL_F_GPUS_PER_RANK:   /* as given: "" when not */
        if (l->gpus_per_rank > 0)
            snprintf(buf, len, "%d", l->gpus_per_rank);
        else
            buf[0] = '\0';
        break;
    case BL_F_MEM_POLICY:
        snprintf(buf, len, "%s", l->mem_policy[0] ? l->mem_policy : "firsttouch");
        break;
    case BL_F_NOISY:
        snprintf(buf, len, "%s", l->noisy[0] ? l->noisy : "none");
        break;
    case BL_F_OMP_RUNTIME:
        snprintf(buf, len, "%s", l->omp_runtime[0] ? l->omp_runtime : "default");
        break;
    default: buf[0] = '\0';
    }
}

const char *bl_layout_gpu_bind(const bl_layout *l)
{
    if (!l->gpu_bind[0])
        return l->gpus_per_rank > 0 ? "closest" : "";
    return strcmp(l->gpu_bind, "none") ? l->gpu_bind : "";
}

int bl_layout_gpus_per_rank(const bl_layout *l)
{
    if (!bl_layout_gpu_bind(l)[0])
        return 0;
    return l->gpus_per_rank > 0 ? l->gpus_per_rank : 1;
}

void bl_layout_make_label(bl_layout *l, const char *kernel_label)
{
    char t[16], nodes[24] = "", gpus[48] = "";
    bl_layout_field_text(l, BL_F_THREADS, t, sizeof t);
    /* Only a layout that names its nodes says so: labels of one-node
     * sweeps stay as they were (--resume matches runs by label). */
    if (l->nodes > 0)
        snprintf(nodes, sizeof nodes, " nodes=%d", l->nodes);
    /* likewise GPUs: only a layout that deals them */
    if (bl_layout_gpu_bind(l)[0])
        snprintf(gpus, sizeof gpus, " gpus=%s:%d", bl_layout_gpu_bind(l),
                 bl_layout_gpus_per_rank(l));
    snprintf(l->label, sizeof l->label,
             "%s np%d%s map=%s bind=%s%s%s places=%s proc_bind=%s t=%s "
             "init=%s%s%s%s%s%s%s%s",
             kernel_label, l->np, nodes, l->map_by, l->bind_to,
             l->rank_by[0] ? " rank=" : "", l->rank_by,
             l->omp_places[0] ? l->omp_places : "unset",
             l->omp_proc_bind[0] ? l->omp_proc_bind : "unset", t,
             l->serial_init ? "serial" : "parallel",
             l->mem_policy[0] ? " mem=" : "", l->mem_policy,
             l->noisy[0] ? " noisy=" : "", l->noisy,
             l->omp_runtime[0] ? " omp=" : "", l->omp_runtime, gpus);
}
