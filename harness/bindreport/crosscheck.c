#include "bindreport/crosscheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "shares.h"

static void add_flag(char *flags, size_t len, const char *flag)
{
    size_t used = strlen(flags);
    snprintf(flags + used, len - used, "%s%s", used ? "," : "", flag);
}

static const bl_binding *claim_of(const bl_binding_report *report, int rank)
{
    if (!report)
        return NULL;
    for (size_t i = 0; i < report->count; i++)
        if (report->items[i].rank == rank && report->items[i].thread < 0)
            return &report->items[i];
    return NULL;
}

/* 1 equal, 0 different, -1 when either side is missing or unreadable. */
static int same_set(hwloc_const_bitmap_t claim, const char *seen)
{
    hwloc_bitmap_t s;
    int eq;
    if (!claim || !seen || !*seen)
        return -1;
    s = hwloc_bitmap_alloc();
    if (bl_cpuset_parse_list(seen, s, NULL) < 0) {
        hwloc_bitmap_free(s);
        return -1;
    }
    eq = hwloc_bitmap_isequal(s, claim);
    hwloc_bitmap_free(s);
    return eq;
}

/* One host: "node01.cluster" and "node01" (Open MPI prints the short
 * name, gethostname may give the long one). */
static int same_host(const char *a, const char *b)
{
    size_t na = strcspn(a, "."), nb = strcspn(b, ".");
    return na == nb && strncmp(a, b, na) == 0;
}

/* What an unbound claim means on its host: the job's CPUs there (within
 * the report's whole topology), into out. 0 when set, -1 when the allowed
 * set is unknown or belongs to another host. */
static int unbound_claim(const bl_binding *claim, const bl_h5_placement *m,
                         const bl_crosscheck_allowed *allowed,
                         hwloc_bitmap_t out)
{
    const char *host = claim->host[0] ? claim->host : m ? m->host : NULL;
    if (claim->bound || !allowed || !allowed->cpus || !allowed->cpus[0] ||
        (allowed->host && allowed->host[0] && host && host[0] &&
         !same_host(host, allowed->host)) ||
        bl_cpuset_parse_list(allowed->cpus, out, NULL) < 0)
        return -1;
    hwloc_bitmap_and(out, out, claim->cpus);
    return hwloc_bitmap_iszero(out) ? -1 : 0;
}

/* 1 when the rank's recorded set reaches CPUs outside the job's on the
 * set's host (a launcher binding past taskset, which does not confine its
 * children as a cgroup does). */
static int outside_allowed(const bl_h5_placement *m,
                           const bl_crosscheck_allowed *allowed)
{
    hwloc_bitmap_t seen, set;
    int out;
    if (!m || !m->rank_cpuset || !m->rank_cpuset[0] || !allowed ||
        !allowed->cpus || !allowed->cpus[0] ||
        (allowed->host && allowed->host[0] && m->host && m->host[0] &&
         !same_host(m->host, allowed->host)))
        return 0;
    seen = hwloc_bitmap_alloc();
    set = hwloc_bitmap_alloc();
    out = seen && set && bl_cpuset_parse_list(m->rank_cpuset, seen, NULL) == 0 &&
          bl_cpuset_parse_list(allowed->cpus, set, NULL) == 0 &&
          !hwloc_bitmap_isincluded(seen, set);
    hwloc_bitmap_free(seen);
    hwloc_bitmap_free(set);
    return out;
}

static const bl_h5_placement *master_of(const bl_h5_run *run, int rank)
{
    for (size_t i = 0; i < run->nplacement; i++)
        if (run->placement[i].rank == rank && run->placement[i].thread == 0)
            return &run->placement[i];
    return NULL;
}

static int rank_spans_numa(const bl_h5_run *run, int rank)
{
    int first = -2;
    for (size_t i = 0; i < run->nplacement; i++) {
        const bl_h5_placement *p = &run->placement[i];
        if (p->rank != rank || p->numa < 0)
            continue;
        if (first == -2)
            first = p->numa;
        else if (p->numa != first)
            return 1;
    }
    return 0;
}

static int pu_shared(const bl_h5_run *run)
{
    for (size_t i = 0; i < run->nplacement; i++)
        for (size_t j = i + 1; j < run->nplacement; j++) {
            const bl_h5_placement *a = &run->placement[i], *b = &run->placement[j];
            if (a->cpu_last >= 0 && a->cpu_last == b->cpu_last &&
                strcmp(a->host, b->host) == 0)
                return 1;
        }
    return 0;
}

static const char *env_value(const bl_h5_run *run, const char *name)
{
    for (size_t i = 0; i < run->nenv; i++)
        if (strcmp(run->env[i].name, name) == 0)
            return run->env[i].value;
    return NULL;
}

/* pages-migrated and huge-page-straddle, from the app's result (files
 * written before it say nothing: pages_total_init 0). */
static void first_touch_flags(const bl_h5_result *x, char *flags,
                              size_t flags_len)
{
    bl_straddle st = {x->pages_total_init, 0, x->straddles,
                      x->best_local_fraction, x->share_align > 0};
    char why[256];
    if (x->pages_total_init <= 0)
        return;
    if (bl_flag_pages_migrated(x->local_page_fraction_init,
                               x->local_page_fraction, x->pages_migrated,
                               x->pages_total_init, why, sizeof why))
        add_flag(flags, flags_len, "pages-migrated");
    if (bl_flag_huge_straddle(&st, x->huge_share, x->local_page_fraction_init,
                              why, sizeof why))
        add_flag(flags, flags_len, "huge-page-straddle");
}

int bl_crosscheck(const bl_binding_report *report, const bl_h5_run *run,
                  int numa_balancing, const bl_crosscheck_allowed *allowed,
                  bl_h5_check **checks, size_t *nchecks,
                  char *flags, size_t flags_len)
{
    int mismatches = 0, spans = 0, migrated = 0, elsewhere = 0, outside = 0;
    const char *bind;
    hwloc_bitmap_t within;

    *checks = NULL;
    *nchecks = 0;
    flags[0] = '\0';
    if (!run)
        return 0;
    within = hwloc_bitmap_alloc();
    *checks = calloc((size_t)run->ranks + 1, sizeof **checks);
    for (int r = 0; r < run->ranks && *checks; r++) {
        const bl_binding *claim = claim_of(report, r);
        const bl_h5_placement *master = master_of(run, r);
        bl_h5_check *c = &(*checks)[r];
        const char *seen = master ? master->rank_cpuset : "";
        hwloc_const_bitmap_t set = claim ? claim->cpus : NULL;
        if (claim && within && unbound_claim(claim, master, allowed, within) == 0)
            set = within;
        char *claimed = set ? bl_cpuset_list_strdup(set) : NULL;
        /* An Open MPI line printed by the rank itself comes from MPI_Init,
         * when only its master thread's binding could be seen. (Slurm's
         * lines name the task's pid too, but slurmstepd prints them from
         * the binding it set before exec.) Intel MPI's pinning table is
         * always such a line: each rank's own view in MPI_Init, after
         * libgomp bound the master thread to the first place. */
        /* across nodes: the report line of the rank's own node */
        int known_hosts = claim && master && claim->host[0] && master->host &&
                          master->host[0];
        int self = claim && master && claim->pid > 0 &&
                   claim->pid == master->pid &&
                   (!known_hosts || same_host(claim->host, master->host)) &&
                   (report->format == BL_REPORT_OMPI4 ||
                    report->format == BL_REPORT_OMPI5 ||
                    report->format == BL_REPORT_IMPI);
        /* what MPI_Init saw: the main thread then (Intel's runtime binds
         * it only at the first parallel region, after MPI_Init), else,
         * in files written before that was recorded, its binding later */
        if (self)
            seen = master->main_cpuset_init && master->main_cpuset_init[0]
                       ? master->main_cpuset_init
                       : master->cpuset;
        c->matches = (int8_t)same_set(set, seen);
        /* Open MPI says "not bound" by its policy, not by the mask: the
         * rank's line then speaks of the set it was given, which the
         * OpenMP runtime may have narrowed before main (a drift the
         * probe names, not a mismatch). */
        if (self && c->matches == 0 && master->rank_cpuset &&
            same_set(set, master->rank_cpuset) == 1) {
            seen = master->rank_cpuset;
            c->matches = 1;
        }
        c->rank = r;
        c->host = strdup(master ? master->host : "");
        c->claimed = claimed ? claimed : strdup("");
        c->seen = strdup(seen);
        c->source = strdup(!claim ? "" : self ? "rank" : "launcher");
        c->node = claim ? claim->node : -1;
        mismatches += c->matches == 0;
        /* the launcher put the rank on one node and it ran on another */
        elsewhere += known_hosts && !same_host(claim->host, master->host);
        spans |= rank_spans_numa(run, r);
        outside |= outside_allowed(master, allowed);
        (*nchecks)++;
    }
    hwloc_bitmap_free(within);
    for (size_t i = 0; i < run->nplacement; i++)
        migrated |= run->placement[i].migrations > 0;
    bind = env_value(run, "OMP_PROC_BIND");

    if (mismatches)
        add_flag(flags, flags_len, "binding-mismatch");
    if (elsewhere)
        add_flag(flags, flags_len, "host-mismatch");
    if (outside)
        add_flag(flags, flags_len, "outside-allowed");
    if (spans)
        add_flag(flags, flags_len, "rank-spans-numa");
    if (pu_shared(run))
        add_flag(flags, flags_len, "pu-shared");
    if (!bind || !*bind || strcmp(bind, "false") == 0 ||
        strcmp(bind, "FALSE") == 0)
        add_flag(flags, flags_len, "omp-unbound");
    if (run->result.local_page_fraction >= 0 &&
        run->result.local_page_fraction < BL_LOCAL_PAGES_MIN)
        add_flag(flags, flags_len, "remote-pages");
    first_touch_flags(&run->result, flags, flags_len);
    if (numa_balancing > 0)
        add_flag(flags, flags_len, "numa-balancing");
    if (migrated)
        add_flag(flags, flags_len, "migrated");
    return mismatches;
}
