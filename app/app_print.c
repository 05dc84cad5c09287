#include "app_print.h"

#include <stdlib.h>
#include <string.h>

#include "app_machine.h"
#include "measure/omp_record.h"
#include "shares.h"
#include "units.h"

static int by_rank_thread(const void *a, const void *b)
{
    const bl_h5_placement *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return x->thread - y->thread;
}

/* host rank thread cpu core l3 numa package cpuset, one line per thread,
 * ordered by rank then thread. */
static void print_placement(FILE *out, const bl_h5_run *r)
{
    bl_h5_placement *rows = malloc(sizeof *rows * (r->nplacement + 1));
    size_t hostw = 4;
    if (!rows)
        return;
    memcpy(rows, r->placement, sizeof *rows * r->nplacement);
    qsort(rows, r->nplacement, sizeof *rows, by_rank_thread);
    for (size_t i = 0; i < r->nplacement; i++)
        if (strlen(rows[i].host) > hostw)
            hostw = strlen(rows[i].host);
    fprintf(out, "%-*s %5s %6s %4s %5s %4s %5s %7s  %s\n", (int)hostw, "host",
            "rank", "thread", "cpu", "core", "l3", "numa", "package", "cpuset");
    for (size_t i = 0; i < r->nplacement; i++) {
        const bl_h5_placement *p = &rows[i];
        fprintf(out, "%-*s %5d %6d %4d %5d %4d %5d %7d  %s\n", (int)hostw,
                p->host, p->rank, p->thread, p->cpu_last, p->core, p->l3,
                p->numa, p->package, p->cpuset);
    }
    free(rows);
}

/* A run on several nodes: what each rank sent per step inside its node and
 * to the others, and the sums (a run on one node sends everything inside
 * it: nothing to tell). */
static void print_traffic(FILE *out, const bl_h5_run *r)
{
    double in = 0.0, between = 0.0;
    int nodes = 0;
    for (size_t q = 0; q < r->ntraffic; q++)
        if (r->traffic[q].node + 1 > nodes)
            nodes = r->traffic[q].node + 1;
    if (nodes < 2)
        return;
    for (size_t q = 0; q < r->ntraffic; q++) {
        const bl_h5_traffic *t = &r->traffic[q];
        in += t->bytes_same_node;
        between += t->bytes_other_nodes;
        fprintf(out, "rank %d (node %d) sends per step: %.0f B to %d rank%s "
                "on its node, %.0f B to %d rank%s on other nodes\n",
                t->rank, t->node, t->bytes_same_node, t->peers_same_node,
                t->peers_same_node == 1 ? "" : "s", t->bytes_other_nodes,
                t->peers_other_nodes, t->peers_other_nodes == 1 ? "" : "s");
    }
    fprintf(out, "traffic per step on %d nodes: %.0f B inside nodes, %.0f B "
            "between nodes\n", nodes, in, between);
}

/* Both moments of the pages, what the kernel did between them, and the
 * first-touch flags with their sentences. */
static void print_first_touch(FILE *out, const bl_h5_run *r)
{
    const bl_h5_result *x = &r->result;
    bl_straddle st = {x->pages_total_init, 0, x->straddles,
                      x->best_local_fraction, x->share_align > 0};
    char why[256];
    if (x->pages_total_init <= 0 || x->local_page_fraction < 0)
        return;
    fprintf(out, "first touch: local pages %.3f right after it, %.3f after "
            "the timed region (%+.3f)",
            x->local_page_fraction_init, x->local_page_fraction,
            x->local_page_fraction - x->local_page_fraction_init);
    if (x->pages_migrated >= 0)
        fprintf(out, "; NUMA balancing migrated %lld pages", x->pages_migrated);
    if (x->huge_share >= 0)
        fprintf(out, "; huge pages back %.0f%% of the arrays (THP %s)",
                100.0 * x->huge_share,
                r->nnuma && r->numa[0].thp_enabled && *r->numa[0].thp_enabled
                    ? r->numa[0].thp_enabled : "unknown");
    fprintf(out, "\n");
    if (bl_flag_pages_migrated(x->local_page_fraction_init,
                               x->local_page_fraction, x->pages_migrated,
                               x->pages_total_init, why, sizeof why))
        fprintf(out, "bindlab-app: pages-migrated: %s\n", why);
    if (bl_flag_huge_straddle(&st, x->huge_share,
                              x->local_page_fraction_init, why, sizeof why))
        fprintf(out, "bindlab-app: huge-page-straddle: %s\n", why);
}

void bl_print_run(FILE *out, const bl_app_opts *o, const bl_h5_machine *m,
                  const bl_h5_run *r, const bl_work *w)
{
    const char *places = bl_machine_env_get(r->env, r->nenv, "OMP_PLACES");
    const char *bind = bl_machine_env_get(r->env, r->nenv, "OMP_PROC_BIND");
    char size[32] = "";

    if (o->k.size_bytes)
        bl_format_size(o->k.size_bytes, size, sizeof size);
    fprintf(out,
            "bindlab-app %s: kernel %s on %d rank%s x %d thread%s (%s), "
            "%s%s%d iterations + %d warmup, init %s\n",
            bl_app_version(), r->kernel, r->ranks, r->ranks == 1 ? "" : "s",
            r->threads, r->threads == 1 ? "" : "s", m->hostname, size,
            *size ? " per rank, " : "", r->iterations, r->warmup, r->init);
    fprintf(out, "OMP_PLACES=%s OMP_PROC_BIND=%s; %s\n",
            *places ? places : "(unset)", *bind ? bind : "(unset)", w->model);
    if (o->show_placement) {
        fprintf(out, "isa: %s (asked %s; this CPU runs %s)\n",
                r->isa ? r->isa : "-", r->isa_asked ? r->isa_asked : "-",
                m->isa_levels ? m->isa_levels : "-");
        print_placement(out, r);
    }
    bl_omp_record_print(out, r, o->show_placement);
    for (size_t q = 0; q < r->nrank_rows; q++) {
        const bl_h5_rank *k = &r->rank_rows[q];
        fprintf(out, "rank %d (%s): %.3f %s (median %.6f s, min %.6f s), "
                "local pages %.3f\n",
                k->rank, k->host, k->rate, r->result.rate_unit, k->median_s,
                k->min_s, k->local_page_fraction);
    }
    print_traffic(out, r);
    print_first_touch(out, r);
    fprintf(out,
            "total: %.3f %s (median iteration %.6f s, min %.6f s, slowest "
            "rank per iteration), verified: %s (%s)\n",
            r->result.rate, r->result.rate_unit, r->result.median_s,
            r->result.min_s, r->result.verified ? "yes" : "NO",
            r->result.verify_detail ? r->result.verify_detail : "");
    fprintf(out,
            "bindlab-app: result kernel=%s verified=%s error=%.6g "
            "checksum=%.17g median_s=%.9g min_s=%.9g rate=%.6g unit=%s "
            "local_page_fraction=%.4f isa=%s\n",
            r->kernel, r->result.verified ? "yes" : "no", r->result.error,
            r->result.checksum, r->result.median_s, r->result.min_s,
            r->result.rate, r->result.rate_unit,
            r->result.local_page_fraction, r->isa ? r->isa : "-");
}
