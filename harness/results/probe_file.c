/* Reads one libbindlab-probe.so file (docs/probe-format.md): the first line
 * "bindlab-probe VERSION", then one record per line, a type and key=value
 * fields separated by single spaces, values %XX-escaped. Unknown record
 * types and unknown keys are skipped (a newer probe of the same version
 * may add them); a missing or malformed field is an error naming
 * file:line. A last line without its newline in a file without "end" is
 * the write a killed process did not finish, and is dropped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "cpuset.h"
#include "grow.h"
#include "results/probe_file.h"
#include "strbuf.h"

#define PF_MAX_FIELDS 32

typedef struct pf_line {
    const char *type;
    int n;
    char *key[PF_MAX_FIELDS], *val[PF_MAX_FIELDS];
} pf_line;

typedef struct pf_ctx {
    const char *name;
    size_t line;
    bl_err *err;
    bl_probe_file *f;
    hwloc_bitmap_t set;
} pf_ctx;

const char *bl_probe_moment_name(int moment)
{
    static const char *const names[] = {"start", "init", "finalize", "exit"};
    return moment >= 0 && moment < BL_PROBE_MOMENTS ? names[moment] : "?";
}

static int bad(pf_ctx *c, const char *what, const char *detail)
{
    return bl_err_set(c->err, "%s:%zu: %s%s%s", c->name, c->line, what,
                      detail ? ": " : "", detail ? detail : "");
}

static int hexval(char h)
{
    if (h >= '0' && h <= '9')
        return h - '0';
    if (h >= 'A' && h <= 'F')
        return h - 'A' + 10;
    if (h >= 'a' && h <= 'f')
        return h - 'a' + 10;
    return -1;
}

/* %XX escapes decoded in place; a bad escape or a decoded NUL fails. */
static int unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s != '%') {
            *o++ = *s;
            continue;
        }
        int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);
        if (lo < 0 || (hi == 0 && lo == 0))
            return -1;
        *o++ = (char)(hi * 16 + lo);
        s += 2;
    }
    *o = '\0';
    return 0;
}

/* Splits text (modified) into its type and key=value fields. */
static int split(pf_ctx *c, char *text, pf_line *l)
{
    char *save = NULL, *tok;
    l->n = 0;
    l->type = strtok_r(text, " ", &save);
    if (!l->type)
        return bad(c, "empty line", NULL);
    while ((tok = strtok_r(NULL, " ", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok)
            return bad(c, "a field is not key=value", tok);
        if (l->n == PF_MAX_FIELDS)
            return bad(c, "too many fields", NULL);
        *eq = '\0';
        if (unescape(eq + 1) != 0)
            return bad(c, "bad %XX escape in the value of", tok);
        l->key[l->n] = tok;
        l->val[l->n++] = eq + 1;
    }
    return 0;
}

static const char *field(const pf_line *l, const char *key)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->key[i], key) == 0)
            return l->val[i];
    return NULL;
}

static const char *need(pf_ctx *c, const pf_line *l, const char *key)
{
    const char *v = field(l, key);
    if (!v || !*v) {
        char what[160];
        snprintf(what, sizeof what, "'%s' has no %s=", l->type, key);
        bad(c, what, NULL);
    }
    return v && *v ? v : NULL;
}

static int need_str(pf_ctx *c, const pf_line *l, const char *key, char **out)
{
    const char *v = need(c, l, key);
    if (!v)
        return -1;
    free(*out);
    if (!(*out = strdup(v)))
        return bad(c, "out of memory", NULL);
    return 0;
}

/* A whole decimal integer, or "-" (-1) when dash_ok. */
static int need_ll(pf_ctx *c, const pf_line *l, const char *key, int dash_ok,
                   long long *out)
{
    const char *v = need(c, l, key);
    char *end;
    if (!v)
        return -1;
    if (dash_ok && strcmp(v, "-") == 0) {
        *out = -1;
        return 0;
    }
    errno = 0;
    *out = strtoll(v, &end, 10);
    if (errno || end == v || *end)
        return bad(c, key, "not a whole number");
    return 0;
}

static int need_long(pf_ctx *c, const pf_line *l, const char *key, int dash_ok,
                     long *out)
{
    long long v;
    if (need_ll(c, l, key, dash_ok, &v) != 0)
        return -1;
    *out = (long)v;
    return 0;
}

static int need_double(pf_ctx *c, const pf_line *l, const char *key,
                       double *out)
{
    const char *v = need(c, l, key);
    char *end;
    if (!v)
        return -1;
    *out = strtod(v, &end);
    if (end == v || *end || *out != *out)
        return bad(c, key, "not a number");
    return 0;
}

/* A CPU list ("0-3,8"), possibly cut ("0,2,4+"), or "-" when dash_ok. */
static int need_cpus(pf_ctx *c, const pf_line *l, const char *key, int dash_ok,
                     char **out)
{
    const char *v = need(c, l, key);
    char list[4096];
    bl_err e;
    size_t n;
    if (!v)
        return -1;
    n = strlen(v);
    if (!(dash_ok && strcmp(v, "-") == 0)) {
        if (n && v[n - 1] == '+')
            n--;
        if (n == 0 || n >= sizeof list)
            return bad(c, key, "not a CPU list");
        memcpy(list, v, n);
        list[n] = '\0';
        if (bl_cpuset_parse_list(list, c->set, &e) != 0)
            return bad(c, key, e.msg);
    }
    return need_str(c, l, key, out);
}

static int rec_process(pf_ctx *c, const pf_line *l)
{
    bl_probe_file *f = c->f;
    double d;
    if (need_long(c, l, "pid", 0, &f->pid) || need_long(c, l, "ppid", 0, &f->ppid) ||
        need_str(c, l, "host", &f->host) || need_str(c, l, "exe", &f->exe) ||
        need_str(c, l, "argv0", &f->argv0) ||
        need_long(c, l, "rank", 1, &f->rank) ||
        need_str(c, l, "rank_from", &f->rank_from) ||
        need_long(c, l, "size", 1, &f->size) ||
        need_str(c, l, "size_from", &f->size_from) ||
        need_long(c, l, "period_ms", 0, &f->period_ms) ||
        need_double(c, l, "start_unix", &d))
        return -1;
    f->start_unix = d;
    /* pstart came with the exec records: optional */
    if (field(l, "pstart") && need_ll(c, l, "pstart", 0, &f->pstart))
        return -1;
    return 0;
}

/* The sets of the cpus, thread and thread_end lines may be "-": the probe
 * writes it when the kernel would not give the set (a thread that ended
 * between its listing in /proc and the read, seen under a slow emulated
 * NUMA node); one such line must not cost the whole file. */
static int rec_cpus(pf_ctx *c, const pf_line *l)
{
    const char *m = need(c, l, "moment");
    if (!m)
        return -1;
    for (int i = 0; i < BL_PROBE_MOMENTS; i++)
        if (strcmp(m, bl_probe_moment_name(i)) == 0)
            return need_cpus(c, l, "cpus", 1, &c->f->cpus[i]);
    return bad(c, "unknown moment", m);
}

static int rec_thread(pf_ctx *c, const pf_line *l)
{
    bl_probe_file *f = c->f;
    bl_probe_thread *t;
    if (bl_grow(&f->threads, sizeof *f->threads, f->nthreads, &f->threads_cap, 16))
        return bad(c, "out of memory", NULL);
    t = &f->threads[f->nthreads++];
    memset(t, 0, sizeof *t);
    t->t_end = -1;
    t->samples = t->migrations = t->ctx_voluntary = t->ctx_involuntary = -1;
    return need_long(c, l, "tid", 0, &t->tid) || need_str(c, l, "label", &t->label) ||
                   need_str(c, l, "object", &t->object) ||
                   need_double(c, l, "t", &t->t_start) ||
                   need_str(c, l, "phase", &t->phase) ||
                   need_cpus(c, l, "cpus", 1, &t->start_cpus)
               ? -1 : 0;
}

static int rec_thread_end(pf_ctx *c, const pf_line *l)
{
    bl_probe_file *f = c->f;
    bl_probe_thread *t = NULL;
    long tid;
    if (need_long(c, l, "tid", 0, &tid))
        return -1;
    for (size_t i = f->nthreads; i-- > 0 && !t;) /* tids are reused: the latest */
        if (f->threads[i].tid == tid && !f->threads[i].ended)
            t = &f->threads[i];
    if (!t)
        return bad(c, "thread_end of a thread with no 'thread' line", NULL);
    t->ended = 1;
    return need_double(c, l, "t", &t->t_end) ||
                   need_cpus(c, l, "cpus", 1, &t->end_cpus) ||
                   need_cpus(c, l, "seen", 1, &t->seen_cpus) ||
                   need_ll(c, l, "samples", 0, &t->samples) ||
                   need_ll(c, l, "migrations", 0, &t->migrations) ||
                   need_ll(c, l, "vcsw", 0, &t->ctx_voluntary) ||
                   need_ll(c, l, "ivcsw", 0, &t->ctx_involuntary)
               ? -1 : 0;
}

static int need_flag(pf_ctx *c, const pf_line *l, const char *key, int *out)
{
    long long v;
    if (need_ll(c, l, key, 0, &v))
        return -1;
    if (v != 0 && v != 1)
        return bad(c, key, "not 0 or 1");
    *out = (int)v;
    return 0;
}

static int rec_affinity(pf_ctx *c, const pf_line *l)
{
    bl_probe_file *f = c->f;
    bl_probe_change *a;
    if (bl_grow(&f->changes, sizeof *f->changes, f->nchanges, &f->changes_cap, 16))
        return bad(c, "out of memory", NULL);
    a = &f->changes[f->nchanges++];
    memset(a, 0, sizeof *a);
    if (need_double(c, l, "t", &a->t) || need_long(c, l, "tid", 1, &a->tid) ||
        need_long(c, l, "target", 1, &a->target) ||
        need_str(c, l, "phase", &a->phase) || need_str(c, l, "call", &a->call) ||
        need_cpus(c, l, "old", 1, &a->old_cpus) ||
        need_cpus(c, l, "new", 1, &a->new_cpus) ||
        need_flag(c, l, "changed", &a->changed) || need_flag(c, l, "ok", &a->ok) ||
        need_str(c, l, "caller", &a->caller) || need_str(c, l, "by", &a->by))
        return -1;
    if (field(l, "asked"))
        return need_cpus(c, l, "asked", 1, &a->asked);
    return (a->asked = strdup("-")) ? 0 : bad(c, "out of memory", NULL);
}

static int rec_pages(pf_ctx *c, const pf_line *l)
{
    bl_probe_file *f = c->f;
    bl_probe_pages *p;
    if (field(l, "unavailable")) {
        f->pages_unavailable = 1;
        return 0;
    }
    if (bl_grow(&f->pages, sizeof *f->pages, f->npages, &f->pages_cap, 4))
        return bad(c, "out of memory", NULL);
    p = &f->pages[f->npages++];
    memset(p, 0, sizeof *p);
    return need_long(c, l, "node", 0, &p->node) || need_ll(c, l, "n", 0, &p->pages) ||
                   need_long(c, l, "kernelpagesize_kB", 0, &p->page_kb) ||
                   need_str(c, l, "at", &p->at)
               ? -1 : 0;
}

static int rec_mpi(pf_ctx *c, const pf_line *l)
{
    static const char *const inits[] = {"MPI_Init", "MPI_Init_thread", "mpi_init_",
                                        "mpi_init_thread_"};
    const char *call = need(c, l, "call");
    if (!call)
        return -1;
    if (strcmp(call, "MPI_Finalize") == 0 || strcmp(call, "mpi_finalize_") == 0)
        c->f->mpi_finalize = 1;
    for (size_t i = 0; i < sizeof inits / sizeof inits[0]; i++)
        if (strcmp(call, inits[i]) == 0)
            c->f->mpi_init = 1;
    return 0;
}

static int rec_note(pf_ctx *c, const pf_line *l)
{
    (void)l;
    c->f->notes++;
    return 0;
}

/* "omp kind= version= file= serving= gomp=": one loaded OpenMP runtime */
static int rec_omp(pf_ctx *c, const pf_line *l)
{
    const char *kind = need(c, l, "kind"), *version = need(c, l, "version");
    const char *file = need(c, l, "file");
    const char *serving = field(l, "serving"), *gomp = field(l, "gomp");
    bl_probe_file *f = c->f;
    if (!kind || !version || !file)
        return -1;
    if (gomp && strcmp(gomp, "1") == 0 && need_str(c, l, "kind", &f->omp_gomp))
        return -1;
    if (serving && strcmp(serving, "1") == 0)
        return need_str(c, l, "kind", &f->omp_runtime) ||
                       need_str(c, l, "version", &f->omp_version) ||
                       need_str(c, l, "file", &f->omp_file)
                   ? -1
                   : 0;
    {
        bl_strbuf b = {0};
        if (f->omp_other)
            bl_strbuf_printf(&b, "%s; ", f->omp_other);
        bl_strbuf_printf(&b, "%s %s %s", kind, version, file);
        free(f->omp_other);
        if (!(f->omp_other = bl_strbuf_take(&b)))
            return bad(c, "out of memory", NULL);
    }
    return 0;
}

const char *const bl_probe_visible_names[BL_PROBE_VISIBLE_VARS] = {
    "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
    "BINDLAB_GPUS"};

const char *bl_probe_visible_get(const bl_probe_file *f, const char *name)
{
    for (int i = 0; i < BL_PROBE_VISIBLE_VARS; i++)
        if (strcmp(name, bl_probe_visible_names[i]) == 0)
            return f->visible[i];
    return NULL;
}

/* "visible NAME=VALUE...": the variables set; an empty value is kept. */
static int rec_visible(pf_ctx *c, const pf_line *l)
{
    bl_probe_file *f = c->f;
    f->visible_recorded = 1;
    for (int i = 0; i < BL_PROBE_VISIBLE_VARS; i++) {
        const char *v = field(l, bl_probe_visible_names[i]);
        free(f->visible[i]);
        f->visible[i] = NULL;
        if (v && !(f->visible[i] = strdup(v)))
            return bad(c, "out of memory", NULL);
    }
    return 0;
}

static int rec_end(pf_ctx *c, const pf_line *l)
{
    (void)l;
    c->f->complete = 1;
    return 0;
}

/* Written by the probe of the next image, when the process exec'd. */
static int rec_exec(pf_ctx *c, const pf_line *l)
{
    (void)l;
    c->f->complete = c->f->execed = 1;
    return 0;
}

static const struct {
    const char *type;
    int (*read)(pf_ctx *, const pf_line *);
} records[] = {
    {"process", rec_process},   {"cpus", rec_cpus},     {"thread", rec_thread},
    {"thread_end", rec_thread_end}, {"affinity", rec_affinity},
    {"pages", rec_pages},       {"mpi", rec_mpi},       {"note", rec_note},
    {"omp", rec_omp},           {"end", rec_end},
    {"exec", rec_exec},         {"visible", rec_visible},
};

/* The first line: "bindlab-probe VERSION". */
static int read_magic(pf_ctx *c, const char *line)
{
    char *end;
    long v;
    if (strncmp(line, "bindlab-probe ", 14) != 0)
        return bad(c, "not a bindlab probe file (no 'bindlab-probe VERSION' line)", NULL);
    v = strtol(line + 14, &end, 10);
    if (end == line + 14 || *end)
        return bad(c, "bad format version", line + 14);
    if (v < 1 || v > BL_PROBE_FORMAT_VERSION)
        return bad(c, "format version not supported (this bindlab reads 1)", line + 14);
    c->f->version = (int)v;
    return 0;
}

static int read_line(pf_ctx *c, char *line)
{
    pf_line l;
    if (c->f->complete)
        return bad(c, "a record after 'end'", NULL);
    if (c->line == 1)
        return read_magic(c, line);
    if (!c->f->version)
        return bad(c, "no 'bindlab-probe VERSION' line", NULL);
    if (split(c, line, &l) != 0)
        return -1;
    for (size_t i = 0; i < sizeof records / sizeof records[0]; i++)
        if (strcmp(l.type, records[i].type) == 0)
            return records[i].read(c, &l);
    return 0; /* a record type of a later probe */
}

int bl_probe_file_parse(const char *text, size_t len, const char *name,
                        bl_probe_file *out, bl_err *err)
{
    pf_ctx c = {.name = name, .err = err, .f = out};
    char *copy;
    size_t pos = 0;
    int rc = 0;
    memset(out, 0, sizeof *out);
    out->rank = out->size = -1;
    if (memchr(text, '\0', len))
        return bl_err_set(err, "%s: not a text file (a NUL byte)", name);
    if (!(copy = malloc(len + 1)) || !(c.set = hwloc_bitmap_alloc())) {
        free(copy);
        return bl_err_set(err, "%s: out of memory", name);
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    while (pos < len && rc == 0) {
        char *line = copy + pos, *nl = memchr(line, '\n', len - pos);
        c.line++;
        if (!nl) {
            if (c.line > 1)  /* a killed process's last, unfinished write */
                break;
            nl = copy + len;
        }
        *nl = '\0';
        pos = (size_t)(nl - copy) + 1;
        rc = read_line(&c, line);
    }
    if (rc == 0 && c.line == 0)
        rc = bl_err_set(err, "%s: empty file", name);
    if (rc == 0 && !out->version)
        rc = bl_err_set(err, "%s: no 'bindlab-probe VERSION' line", name);
    if (rc == 0 && !out->host)
        rc = bl_err_set(err, "%s: no 'process' line", name);
    hwloc_bitmap_free(c.set);
    free(copy);
    return rc;
}

int bl_probe_file_read(const char *path, bl_probe_file *out, bl_err *err)
{
    FILE *fp = fopen(path, "rb");
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    int rc;
    memset(out, 0, sizeof *out);
    if (!fp)
        return bl_err_set(err, "%s: %s", path, strerror(errno));
    do {
        if (len == cap) {
            char *bigger;
            cap = cap ? 2 * cap : 65536;
            if ((long)cap > BL_PROBE_FILE_MAX + 1 || !(bigger = realloc(text, cap))) {
                free(text);
                fclose(fp);
                return bl_err_set(err, "%s: larger than %ld MiB, or out of memory",
                                  path, BL_PROBE_FILE_MAX >> 20);
            }
            text = bigger;
        }
        n = fread(text + len, 1, cap - len, fp);
        len += n;
    } while (n > 0);
    rc = ferror(fp) ? bl_err_set(err, "%s: %s", path, strerror(errno))
                    : bl_probe_file_parse(text, len, path, out, err);
    fclose(fp);
    free(text);
    return rc;
}

void bl_probe_file_free(bl_probe_file *f)
{
    free(f->host);
    free(f->exe);
    free(f->argv0);
    free(f->rank_from);
    free(f->size_from);
    free(f->omp_runtime), free(f->omp_version), free(f->omp_file);
    free(f->omp_gomp), free(f->omp_other);
    for (int i = 0; i < BL_PROBE_MOMENTS; i++)
        free(f->cpus[i]);
    for (int i = 0; i < BL_PROBE_VISIBLE_VARS; i++)
        free(f->visible[i]);
    for (size_t i = 0; i < f->nthreads; i++) {
        bl_probe_thread *t = &f->threads[i];
        free(t->label), free(t->object), free(t->phase);
        free(t->start_cpus), free(t->end_cpus), free(t->seen_cpus);
    }
    for (size_t i = 0; i < f->nchanges; i++) {
        bl_probe_change *a = &f->changes[i];
        free(a->phase), free(a->call), free(a->old_cpus), free(a->new_cpus);
        free(a->asked), free(a->caller), free(a->by);
    }
    for (size_t i = 0; i < f->npages; i++)
        free(f->pages[i].at);
    free(f->threads);
    free(f->changes);
    free(f->pages);
    memset(f, 0, sizeof *f);
}
