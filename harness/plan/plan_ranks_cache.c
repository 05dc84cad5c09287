/* Rank plans computed once per rank layout, in parallel (plan_ranks_cache.h).
 * A child process per job plans its share of the layouts and sends each
 * plan back through a pipe as text: key index, return value, rank count,
 * modelled, then error, launcher, how, runtime and refusal, then per rank
 * its binding flag and PU list. Every field bl_plan_ranks fills. */
#include "plan/plan_ranks_cache.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plan/plan_ranks.h"

static void key_of(const bl_plan_request *r, char *buf, size_t len)
{
    snprintf(buf, len, "%d|%s|%s|%s", r->np, r->map_by ? r->map_by : "",
             r->bind_to ? r->bind_to : "", r->rank_by ? r->rank_by : "");
}

int bl_plan_jobs(void)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return n > 0 ? n : 1;
}

static void plan_one(bl_plan_ranks_entry *e, const bl_plan_request *req,
                     hwloc_topology_t topo, const char *preload)
{
    bl_err err = {""};
    memset(&e->plan, 0, sizeof e->plan);
    e->rc = bl_plan_ranks(req, topo, preload, &e->plan, &err);
    snprintf(e->errmsg, sizeof e->errmsg, "%s", e->rc < 0 ? err.msg : "");
}

/* A string as "LEN:BYTES". */
static void put_str(FILE *f, const char *s)
{
    fprintf(f, "%zu:", strlen(s));
    fputs(s, f);
}

static int get_str(FILE *f, char *buf, size_t len)
{
    size_t n;
    if (fscanf(f, "%zu:", &n) != 1 || n >= len || fread(buf, 1, n, f) != n)
        return -1;
    buf[n] = '\0';
    return 0;
}

static void send_entry(FILE *f, size_t i, const bl_plan_ranks_entry *e)
{
    fprintf(f, "%zu %d %d %d ", i, e->rc, e->plan.nranks, e->plan.modelled);
    put_str(f, e->errmsg);
    put_str(f, e->plan.launcher);
    put_str(f, e->plan.how);
    put_str(f, e->plan.runtime);
    put_str(f, e->plan.refusal);
    for (int r = 0; r < e->plan.nranks; r++) {
        char *list = NULL;
        hwloc_bitmap_list_asprintf(&list, e->plan.rank_pus[r]);
        fprintf(f, " %d ", e->plan.rank_bound ? e->plan.rank_bound[r] : 1);
        put_str(f, list ? list : "");
        free(list);
    }
    fputc('\n', f);
}

static int recv_entry(FILE *f, bl_plan_ranks_cache *c)
{
    size_t i;
    int rc, nranks, modelled;
    bl_plan_ranks_entry *e;
    char list[65536];
    if (fscanf(f, "%zu %d %d %d ", &i, &rc, &nranks, &modelled) != 4 ||
        i >= c->n || nranks < 0)
        return -1;
    e = &c->e[i];
    e->rc = rc;
    e->plan.modelled = modelled;
    if (get_str(f, e->errmsg, sizeof e->errmsg) < 0 ||
        get_str(f, e->plan.launcher, sizeof e->plan.launcher) < 0 ||
        get_str(f, e->plan.how, sizeof e->plan.how) < 0 ||
        get_str(f, e->plan.runtime, sizeof e->plan.runtime) < 0 ||
        get_str(f, e->plan.refusal, sizeof e->plan.refusal) < 0)
        return -1;
    e->plan.nranks = nranks;
    if (nranks > 0) {
        e->plan.rank_pus = calloc((size_t)nranks, sizeof *e->plan.rank_pus);
        e->plan.rank_bound = calloc((size_t)nranks,
                                    sizeof *e->plan.rank_bound);
        if (!e->plan.rank_pus || !e->plan.rank_bound)
            return -1;
    }
    for (int r = 0; r < nranks; r++) {
        if (fscanf(f, " %d ", &e->plan.rank_bound[r]) != 1 ||
            get_str(f, list, sizeof list) < 0 ||
            !(e->plan.rank_pus[r] = hwloc_bitmap_alloc()) ||
            hwloc_bitmap_list_sscanf(e->plan.rank_pus[r], list) < 0)
            return -1;
    }
    return fgetc(f) == '\n' ? 0 : -1;
}

/* Which job plans each distinct layout. mpirun's time grows with the
 * ranks it maps (Open MPI 4.1 draws every rank's binding over all PUs:
 * 0.9 s of CPU for -np 384 on the 2x EPYC 9654, 0.01 s for -np 2), so
 * the layouts go largest first, each to the job with the fewest ranks so
 * far: a sweep with one -np 384 layout no longer waits for the job that
 * also drew the -np 192 ones (dealt round-robin). */
static int *share_out(const bl_plan_request *const *first, size_t n, int jobs)
{
    int *owner = calloc(n + 1, sizeof *owner);
    size_t *order = calloc(n + 1, sizeof *order);
    long long load[64] = {0};
    if (!owner || !order) {
        free(owner);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) { /* insertion sort, np descending */
        size_t j = i;
        while (j > 0 && first[order[j - 1]]->np < first[i]->np) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (size_t i = 0; i < n; i++) {
        int w = 0;
        for (int k = 1; k < jobs; k++)
            if (load[k] < load[w])
                w = k;
        owner[order[i]] = w;
        load[w] += first[order[i]]->np > 0 ? first[order[i]]->np : 1;
    }
    free(order);
    return owner;
}

/* The distinct layouts of reqs into c->e (their keys), first[j] the
 * first request of entry j. */
static void distinct_layouts(bl_plan_ranks_cache *c,
                             const bl_plan_request *reqs, size_t n,
                             const bl_plan_request **first)
{
    for (size_t i = 0; i < n; i++) {
        char key[sizeof c->e->key];
        size_t j = 0;
        key_of(&reqs[i], key, sizeof key);
        while (j < c->n && strcmp(c->e[j].key, key))
            j++;
        if (j == c->n) {
            snprintf(c->e[c->n].key, sizeof c->e->key, "%s", key);
            first[c->n++] = &reqs[i];
        }
    }
}

/* Plans the entries in `jobs` forked processes (each its share, sent back
 * through a pipe); 0, or -1 with err set. */
static int plan_in_workers(bl_plan_ranks_cache *c,
                           const bl_plan_request **first, int jobs,
                           hwloc_topology_t topo, const char *preload,
                           bl_err *err)
{
    FILE *from[64];
    pid_t pids[64];
    int started = 0, rc = 0, *owner;
    if (jobs > 64)
        jobs = 64;
    if (!(owner = share_out(first, c->n, jobs)))
        return bl_err_set(err, "out of memory");
    fflush(NULL);
    for (int w = 0; w < jobs; w++) {
        int fds[2];
        if (pipe(fds) < 0 || (pids[w] = fork()) < 0) {
            rc = bl_err_set(err, "cannot start a planning process");
            break;
        }
        if (pids[w] == 0) {
            FILE *to = fdopen(fds[1], "w");
            close(fds[0]);
            for (size_t j = 0; to && j < c->n; j++) {
                if (owner[j] != w)
                    continue;
                plan_one(&c->e[j], first[j], topo, preload);
                send_entry(to, j, &c->e[j]);
            }
            _exit(to && fclose(to) == 0 ? 0 : 1);
        }
        close(fds[1]);
        from[w] = fdopen(fds[0], "r");
        started++;
    }
    for (int w = 0; w < started; w++) {
        int status;
        while (from[w] && rc == 0) {
            int ch = fgetc(from[w]);
            if (ch == EOF)
                break;
            ungetc(ch, from[w]);
            if (recv_entry(from[w], c) < 0)
                rc = bl_err_set(err, "a planning process sent a damaged "
                                "plan");
        }
        if (from[w])
            fclose(from[w]);
        waitpid(pids[w], &status, 0);
        if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
            rc = bl_err_set(err, "a planning process failed");
    }
    free(owner);
    return rc;
}

int bl_plan_ranks_cache_fill(bl_plan_ranks_cache *c,
                             const bl_plan_request *reqs, size_t n,
                             hwloc_topology_t topo, const char *preload,
                             int jobs, bl_err *err)
{
    const bl_plan_request **first;
    int rc = 0;
    memset(c, 0, sizeof *c);
    if (!(c->e = calloc(n + 1, sizeof *c->e)) ||
        !(first = calloc(n + 1, sizeof *first))) {
        free(c->e);
        c->e = NULL;
        return bl_err_set(err, "out of memory");
    }
    distinct_layouts(c, reqs, n, first);
    if (jobs > (int)c->n)
        jobs = (int)c->n;
    if (jobs <= 1) {
        for (size_t j = 0; j < c->n; j++)
            plan_one(&c->e[j], first[j], topo, preload);
    } else {
        rc = plan_in_workers(c, first, jobs, topo, preload, err);
    }
    free(first);
    return rc;
}

static int copy_plan(const bl_plan *from, bl_plan *to)
{
    memset(to, 0, sizeof *to);
    to->nranks = from->nranks;
    to->modelled = from->modelled;
    snprintf(to->launcher, sizeof to->launcher, "%s", from->launcher);
    snprintf(to->how, sizeof to->how, "%s", from->how);
    snprintf(to->runtime, sizeof to->runtime, "%s", from->runtime);
    snprintf(to->refusal, sizeof to->refusal, "%s", from->refusal);
    if (from->nranks <= 0)
        return 0;
    to->rank_pus = calloc((size_t)from->nranks, sizeof *to->rank_pus);
    to->rank_bound = calloc((size_t)from->nranks, sizeof *to->rank_bound);
    if (!to->rank_pus || !to->rank_bound)
        return -1;
    for (int r = 0; r < from->nranks; r++) {
        to->rank_pus[r] = hwloc_bitmap_dup(from->rank_pus[r]);
        to->rank_bound[r] = from->rank_bound ? from->rank_bound[r] : 1;
        if (!to->rank_pus[r])
            return -1;
    }
    return 0;
}

int bl_plan_ranks_cache_get(const bl_plan_ranks_cache *c,
                            const bl_plan_request *req, bl_plan *out,
                            bl_err *err)
{
    char key[sizeof c->e->key];
    key_of(req, key, sizeof key);
    for (size_t j = 0; j < c->n; j++) {
        const bl_plan_ranks_entry *e = &c->e[j];
        if (strcmp(e->key, key))
            continue;
        if (copy_plan(&e->plan, out) < 0)
            return bl_err_set(err, "out of memory");
        if (e->rc < 0)
            bl_err_set(err, "%s", e->errmsg);
        return e->rc;
    }
    return 1;
}

void bl_plan_ranks_cache_free(bl_plan_ranks_cache *c)
{
    for (size_t j = 0; c->e && j < c->n; j++)
        bl_plan_free(&c->e[j].plan);
    free(c->e);
    memset(c, 0, sizeof *c);
}
