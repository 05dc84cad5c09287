/* The format-independent part of the binding-report reader: splitting the
 * text into lines, choosing the format, collecting, sorting and
 * de-duplicating the bindings. The per-format line parsers live in
 * bindreport_<format>.c, their shared helpers in bindreport_lines.c. */
#include "bindreport/bindreport_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "grow.h"

static const struct {
    bl_report_format fmt;
    const char *name;
    bl_line_parser parse;
} formats[] = {
    {BL_REPORT_AUTO, "auto", NULL},
    {BL_REPORT_OMPI4, "ompi4", bl_bindreport_ompi4_line},
    {BL_REPORT_OMPI5, "ompi5", bl_bindreport_ompi5_line},
    {BL_REPORT_SLURM, "slurm", bl_bindreport_slurm_line},
    {BL_REPORT_HYDRA, "hydra", bl_bindreport_hydra_line},
    {BL_REPORT_OMP_AFFINITY, "omp", bl_bindreport_omp_line},
    {BL_REPORT_IMPI, "impi", bl_bindreport_impi_line},
    /* several lines per rank: read with a state, see try_line */
    {BL_REPORT_PRRTE_MAP, "ompi5-map", NULL},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

/* The launcher formats, in the order AUTO tries them. */
static const bl_report_format launchers[] = {
    BL_REPORT_OMPI4, BL_REPORT_OMPI5, BL_REPORT_SLURM, BL_REPORT_HYDRA,
    BL_REPORT_IMPI};
#define NLAUNCHERS (sizeof launchers / sizeof launchers[0])

const char *bl_bindreport_format_name(bl_report_format f)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (formats[i].fmt == f)
            return formats[i].name;
    return "unknown";
}

int bl_bindreport_format_parse(const char *name, bl_report_format *out,
                               bl_err *err)
{
    for (size_t i = 0; name && i < NFORMATS; i++)
        if (strcmp(formats[i].name, name) == 0) {
            *out = formats[i].fmt;
            return 0;
        }
    return bl_err_set(err,
                      "report format '%s': expected auto, ompi4, ompi5, "
                      "ompi5-map, slurm, hydra, impi or omp",
                      name ? name : "");
}

static bl_line_parser parser_of(bl_report_format f)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (formats[i].fmt == f)
            return formats[i].parse;
    return NULL;
}

/* ---- collecting ----------------------------------------------------- */

typedef struct {
    bl_binding_report *r;
    size_t cap, rcap;
} collector;

static int add_rejected(collector *c, int line, const char *text,
                        const char *reason)
{
    bl_binding_report *r = c->r;
    if (bl_grow(&r->rejected, sizeof *r->rejected, r->nrejected, &c->rcap,
                8) < 0)
        return -1;
    bl_rejected_line *j = &r->rejected[r->nrejected];
    if (!(j->text = strdup(text)))
        return -1;
    j->line = line;
    snprintf(j->reason, sizeof j->reason, "%s", reason);
    r->nrejected++;
    return 0;
}

static int add_binding(collector *c, const bl_binding *b)
{
    bl_binding_report *r = c->r;
    if (bl_grow(&r->items, sizeof *r->items, r->count, &c->cap, 16) < 0)
        return -1;
    r->items[r->count++] = *b;
    return 0;
}

static void reset_binding(bl_binding *b, int line)
{
    hwloc_bitmap_t cpus = b->cpus;
    memset(b, 0, sizeof *b);
    b->cpus = cpus;
    hwloc_bitmap_zero(cpus);
    b->rank = b->thread = b->local_rank = -1;
    b->pid = -1;
    b->bound = 1;
    b->line = line;
    b->node = -1;
}

/* One host: "node01.cluster" and "node01". */
static int same_host(const char *a, const char *b)
{
    size_t na = strcspn(a, "."), nb = strcspn(b, ".");
    return na == nb && strncmp(a, b, na) == 0;
}

/* The index of host among t's nodes that has a topology, or -1. */
static int node_of_host(const bl_report_topos *t, const char *host)
{
    for (size_t k = 0; host && host[0] && k < t->n; k++)
        if (t->topos[k] && t->hosts[k] && same_host(t->hosts[k], host))
            return (int)k;
    return -1;
}

/* map: the job map's state (only BL_REPORT_PRRTE_MAP reads it). A line
 * names its host only once read, so a line of a known host other than the
 * first is read again with that host's topology (the line parsers keep no
 * state; the map's names its node before its Binding: lines). */
static int try_line(bl_report_format f, const char *line, int lineno,
                    const bl_report_topos *t, bl_binding *b, char *reason,
                    bl_prrte_map_state *map)
{
    int rc, k;
    reset_binding(b, lineno);
    reason[0] = '\0';
    if (f == BL_REPORT_PRRTE_MAP) {
        if (!map)
            return BL_LINE_OTHER;
        k = node_of_host(t, map->host);
        rc = bl_bindreport_prrte_map_line(
            map, line, k >= 0 ? t->topos[k] : t->fallback, b, reason);
        b->node = k;
        return rc;
    }
    rc = parser_of(f)(line, t->fallback, b, reason);
    if (rc == BL_LINE_OTHER || (k = node_of_host(t, b->host)) < 0)
        return rc;
    reset_binding(b, lineno);
    reason[0] = '\0';
    rc = parser_of(f)(line, t->topos[k], b, reason);
    b->node = k;
    return rc;
}

/* The launcher format of the first line that exactly one launcher parser
 * claims. Open MPI 4 and 5 print the same "is not bound" line; a report of
 * nothing else counts as Open MPI 4. */
static bl_report_format detect(char **lines, size_t n,
                               const bl_report_topos *topo, bl_binding *tmp)
{
    char reason[BL_REASON_MAX];
    int any_ompi = 0;
    for (size_t i = 0; i < n; i++) {
        bl_report_format only = BL_REPORT_AUTO;
        int claims = 0;
        if (lines[i][0] == '#' || strlen(lines[i]) > BL_BINDREPORT_LINE_MAX)
            continue;
        if (bl_bindreport_prrte_map_claims(lines[i]))
            return BL_REPORT_PRRTE_MAP;
        for (size_t k = 0; k < NLAUNCHERS; k++)
            if (try_line(launchers[k], lines[i], (int)i + 1, topo, tmp,
                         reason, NULL) != BL_LINE_OTHER) {
                claims++;
                only = launchers[k];
            }
        if (claims == 1)
            return only;
        if (claims > 1)
            any_ompi = 1;
    }
    return any_ompi ? BL_REPORT_OMPI4 : BL_REPORT_OMP_AFFINITY;
}

/* In AUTO mode, a line of another launcher than the detected one. */
static int foreign_launcher(const char *line, int lineno,
                            bl_report_format chosen,
                            const bl_report_topos *topo, bl_binding *tmp,
                            bl_report_format *which)
{
    char reason[BL_REASON_MAX];
    for (size_t k = 0; k < NLAUNCHERS; k++)
        if (launchers[k] != chosen &&
            /* PRRTE's map and its --report-bindings may come together */
            !(chosen == BL_REPORT_PRRTE_MAP &&
              (launchers[k] == BL_REPORT_OMPI5 ||
               launchers[k] == BL_REPORT_OMPI4)) &&
            try_line(launchers[k], line, lineno, topo, tmp, reason, NULL) !=
                BL_LINE_OTHER) {
            *which = launchers[k];
            return 1;
        }
    return 0;
}

/* Reads one line with the chosen format (and OMP lines in AUTO mode). */
static int read_line(collector *c, const char *line, int lineno,
                     bl_report_format fmt, bl_report_format chosen,
                     const bl_report_topos *topo, bl_binding *tmp,
                     bl_prrte_map_state *map)
{
    char reason[BL_REASON_MAX];
    bl_report_format tries[3] = {chosen, BL_REPORT_OMP_AFFINITY};
    size_t ntries = (fmt == BL_REPORT_AUTO &&
                     chosen != BL_REPORT_OMP_AFFINITY) ? 2 : 1;
    bl_report_format other;

    /* The job map comes with PRRTE's own --report-bindings lines when both
     * were asked for: the same ranks must then get the same sets (dedup). */
    if (chosen == BL_REPORT_PRRTE_MAP) {
        tries[1] = BL_REPORT_OMPI5;
        tries[2] = BL_REPORT_OMP_AFFINITY;
        ntries = fmt == BL_REPORT_AUTO ? 3 : 2;
    }
    for (size_t t = 0; t < ntries; t++) {
        int rc = try_line(tries[t], line, lineno, topo, tmp, reason, map);
        if (rc == BL_LINE_OTHER)
            continue;
        if (rc == BL_LINE_BAD)
            return add_rejected(c, lineno, line, reason);
        if (add_binding(c, tmp) < 0)
            return -1;
        if (!(tmp->cpus = hwloc_bitmap_alloc()))
            return -1;
        return 0;
    }
    if (fmt == BL_REPORT_AUTO &&
        foreign_launcher(line, lineno, chosen, topo, tmp, &other)) {
        snprintf(reason, sizeof reason, "a %s line in a %s report",
                 bl_bindreport_format_name(other),
                 bl_bindreport_format_name(chosen));
        return add_rejected(c, lineno, line, reason);
    }
    return 0;
}

/* ---- sorting and duplicates ----------------------------------------- */

static int cmp_key(const bl_binding *a, const bl_binding *b)
{
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->rank < 0) {
        /* OMP lines without a rank: the process is host + pid. */
        int h = strcmp(a->host, b->host);
        if (h)
            return h;
        if (a->pid != b->pid)
            return a->pid < b->pid ? -1 : 1;
    }
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return 0;
}

static int cmp_binding(const void *pa, const void *pb)
{
    const bl_binding *a = pa, *b = pb;
    int k = cmp_key(a, b);
    if (k)
        return k;
    return (a->line > b->line) - (a->line < b->line);
}

static int cmp_rejected(const void *pa, const void *pb)
{
    const bl_rejected_line *a = pa, *b = pb;
    return (a->line > b->line) - (a->line < b->line);
}

static void describe(const bl_binding *b, char *buf, size_t len)
{
    if (b->rank >= 0)
        snprintf(buf, len, "rank %d", b->rank);
    else
        snprintf(buf, len, "pid %ld on '%s'", b->pid, b->host);
    if (b->thread >= 0)
        snprintf(buf + strlen(buf), len - strlen(buf), " thread %d",
                 b->thread);
}

/* Keeps the first of each key; a repeat with the same set is dropped, a
 * repeat with another set is rejected. Needs the original lines for the
 * rejected text. */
static int dedup(collector *c, char **lines)
{
    bl_binding_report *r = c->r;
    size_t kept = 0;
    for (size_t i = 0; i < r->count; i++) {
        bl_binding *b = &r->items[i];
        bl_binding *prev = kept ? &r->items[kept - 1] : NULL;
        if (prev && cmp_key(prev, b) == 0) {
            if (prev->bound != b->bound ||
                !hwloc_bitmap_isequal(prev->cpus, b->cpus)) {
                char who[96], was[64], reason[BL_REASON_MAX];
                describe(b, who, sizeof who);
                bl_cpuset_format_list(prev->cpus, was, sizeof was);
                snprintf(reason, sizeof reason,
                         "%s reported again with another cpuset "
                         "(line %d said %s)",
                         who, prev->line, was);
                if (add_rejected(c, b->line, lines[b->line - 1], reason) < 0)
                    return -1;
            }
            hwloc_bitmap_free(b->cpus);
            continue;
        }
        r->items[kept++] = *b;
    }
    r->count = kept;
    return 0;
}

/* ---- entry points --------------------------------------------------- */

/* Splits text into NUL-terminated lines (in one buffer); strips \r. */
static char **split_lines(const char *text, size_t *n, char **buf)
{
    size_t len = strlen(text), count = 1, k = 0;
    char **lines;
    for (size_t i = 0; i < len; i++)
        count += text[i] == '\n';
    if (!(*buf = malloc(len + 1)))
        return NULL;
    if (!(lines = malloc(count * sizeof *lines))) {
        free(*buf);
        return NULL;
    }
    memcpy(*buf, text, len + 1);
    for (char *p = *buf;;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r')
            p[l - 1] = '\0';
        if (nl || *p)
            lines[k++] = p;
        if (!nl)
            break;
        p = nl + 1;
    }
    *n = k;
    return lines;
}

int bl_bindreport_parse(const char *text, bl_report_format fmt,
                        hwloc_topology_t topo, bl_binding_report *out,
                        bl_err *err)
{
    bl_report_topos t = {topo, 0, NULL, NULL};
    return bl_bindreport_parse_nodes(text, fmt, &t, out, err);
}

int bl_bindreport_parse_nodes(const char *text, bl_report_format fmt,
                              const bl_report_topos *topo,
                              bl_binding_report *out, bl_err *err)
{
    collector c = {out, 0, 0};
    bl_binding tmp = {0};
    bl_prrte_map_state map = {"", -1, 0};
    char *buf = NULL, **lines;
    size_t n = 0;
    bl_report_format chosen = fmt;
    int rc = 0;

    memset(out, 0, sizeof *out);
    if (!text || !topo || !topo->fallback || (topo->n && (!topo->hosts ||
                                                        !topo->topos)))
        return bl_err_set(err, "binding report: no text or no topology");
    if (!parser_of(fmt) && fmt != BL_REPORT_AUTO &&
        fmt != BL_REPORT_PRRTE_MAP)
        return bl_err_set(err, "binding report: unknown format %d", (int)fmt);
    if (!(lines = split_lines(text, &n, &buf)) ||
        !(tmp.cpus = hwloc_bitmap_alloc())) {
        free(lines);
        free(buf);
        return bl_err_set(err, "binding report: out of memory");
    }
    if (fmt == BL_REPORT_AUTO)
        chosen = detect(lines, n, topo, &tmp);
    out->format = chosen;
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t len = strlen(lines[i]);
        if (lines[i][0] == '#') /* comments in fixtures and notes */
            continue;
        if (len > BL_BINDREPORT_LINE_MAX) {
            char reason[BL_REASON_MAX];
            snprintf(reason, sizeof reason, "a line of %zu characters, over "
                     "the %d a report line may have", len,
                     BL_BINDREPORT_LINE_MAX);
            lines[i][200] = '\0'; /* the message quotes its start only */
            rc = add_rejected(&c, (int)i + 1, lines[i], reason);
            continue;
        }
        rc = read_line(&c, lines[i], (int)i + 1, fmt, chosen, topo, &tmp,
                       &map);
    }
    if (rc == 0 && chosen == BL_REPORT_PRRTE_MAP) {
        char reason[BL_REASON_MAX];
        if (bl_bindreport_prrte_map_end(&map, reason) == BL_LINE_BAD)
            rc = add_rejected(&c, map.line, lines[map.line - 1], reason);
    }
    if (rc == 0) {
        /* qsort() must not get a NULL base, even for no elements. */
        if (out->count > 1)
            qsort(out->items, out->count, sizeof *out->items, cmp_binding);
        rc = dedup(&c, lines);
        if (out->nrejected > 1)
            qsort(out->rejected, out->nrejected, sizeof *out->rejected,
                  cmp_rejected);
    }
    hwloc_bitmap_free(tmp.cpus);
    free(lines);
    free(buf);
    if (rc) {
        bl_bindreport_free(out);
        return bl_err_set(err, "binding report: out of memory");
    }
    return 0;
}

void bl_bindreport_free(bl_binding_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->count; i++)
        hwloc_bitmap_free(r->items[i].cpus);
    for (size_t i = 0; i < r->nrejected; i++)
        free(r->rejected[i].text);
    free(r->items);
    free(r->rejected);
    memset(r, 0, sizeof *r);
}
