/* bindlab check: is this process placed coherently? The rules are in
 * common/placement_check.c; this file reads the options and prints. */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/cli_util.h"
#include "cpuset.h"
#include "placement_check.h"
#include "strbuf.h"
#include "topo.h"

static const char help[] =
    "usage: bindlab check [--json] [--omp-runtime libgomp|libomp|intel]\n"
    "                     [--topology FILE.xml|SYNTH]\n"
    "\n"
    "Reads where this process may run and where its memory will come from,\n"
    "and says in plain words what does not fit together. Run it the way the\n"
    "program would be run:\n"
    "\n"
    "  numactl --cpunodebind=0 --membind=1 bindlab check\n"
    "  OMP_PLACES=cores OMP_NUM_THREADS=8 taskset -c 0-3 bindlab check\n"
    "  mpirun -np 4 --map-by numa bindlab check     (one block per rank)\n"
    "\n"
    "What it reads: Cpus_allowed_list and Mems_allowed_list\n"
    "(/proc/self/status) within the cgroup cpuset: the CPUs this job may\n"
    "use, printed as 'allowed cpus' with where they come from (Slurm's\n"
    "SLURM_CPUS_ON_NODE, SLURM_JOB_CPUS_PER_NODE too); every rule judges\n"
    "against that set. Then the memory policy (get_mempolicy), the NUMA\n"
    "nodes' CPUs (/sys/devices/system/node), each CPU's core (hwloc, when\n"
    "OpenMP binding is set), OMP_NUM_THREADS,\n"
    "OMP_PLACES, OMP_PROC_BIND, KMP_AFFINITY, KMP_HW_SUBSET,\n"
    "GOMP_CPU_AFFINITY, SLURM_CPU_BIND, mpirun's binding as its ranks\n"
    "see it (OMPI_MCA_hwloc_base_binding_policy, OMPI_MCA_orte_bound_at_launch,\n"
    "PRTE_MCA_hwloc_default_binding_policy), /proc/sys/kernel/numa_balancing\n"
    "and the transparent huge pages mode. CPUs and nodes are Linux numbers,\n"
    "as numactl and taskset use them.\n"
    "\n"
    "The OpenMP variables are judged for the runtime that will read them:\n"
    "the one loaded in this process (libgomp.so.1, libomp.so or\n"
    "libiomp5.so, the first in the link map; LD_PRELOAD=... bindlab check\n"
    "loads the program's), or the one --omp-runtime names. With none loaded\n"
    "and none named, they are judged as libgomp's and the 'openmp runtime'\n"
    "line says so. Each OpenMP finding says what that runtime does, in its\n"
    "own words where it prints any.\n"
    "\n"
    "Options:\n"
    "  --json                   one JSON object per process\n"
    "  --omp-runtime R          judge the OpenMP variables for R: libgomp\n"
    "                           (GCC), libomp (LLVM) or intel (libiomp5)\n"
    "  --topology FILE.xml|SYNTH  the cores (SMT siblings) from an hwloc XML\n"
    "                           file or synthetic description (\"pack:1\n"
    "                           core:4 pu:2\") instead of this machine\n"
    "\n";

/* The findings table and the rest (a second part: one string would be
 * longer than C guarantees). */
static const char help_findings[] =
    "Findings (warnings make the placement misaligned; notes do not):\n"
    "  cpu-mem-nodes            memory bound, interleaved or allowed on other\n"
    "                           NUMA nodes than the CPUs'\n"
    "  preferred-remote         preferred memory node is not the CPUs' node\n"
    "  cpus-cross-nodes         the CPUs span several NUMA nodes\n"
    "  omp-places-invalid       OMP_PLACES unreadable (by the runtime loaded)\n"
    "  omp-proc-bind-invalid    OMP_PROC_BIND unreadable\n"
    "  omp-places-without-bind  OMP_PLACES set, OMP_PROC_BIND not\n"
    "  omp-proc-bind-false      OMP_PROC_BIND=false\n"
    "  omp-threads-exceed-cpus  OMP_NUM_THREADS above the number of CPUs\n"
    "  omp-num-threads-invalid  OMP_NUM_THREADS not a positive number\n"
    "  kmp-ignored              KMP_AFFINITY or KMP_HW_SUBSET under libgomp,\n"
    "                           which ignores them\n"
    "  kmp-affinity-overrides   libomp/intel: KMP_AFFINITY's type overrides\n"
    "                           OMP_PLACES and OMP_PROC_BIND\n"
    "  kmp-hw-subset            libomp/intel: KMP_HW_SUBSET narrows the\n"
    "                           machine the places are built from (a note\n"
    "                           when no binding is asked)\n"
    "  gomp-cpu-affinity-overrides  libomp/intel: GOMP_CPU_AFFINITY overrides\n"
    "                           OMP_PLACES and OMP_PROC_BIND\n"
    "  gomp-cpu-affinity-ignored  GOMP_CPU_AFFINITY under libgomp with\n"
    "                           OMP_PLACES, or libomp/intel with KMP_AFFINITY\n"
    "  gomp-cpu-affinity-invalid  GOMP_CPU_AFFINITY not a list of CPUs\n"
    "  places-outside-allowed   OMP_PLACES, GOMP_CPU_AFFINITY or the\n"
    "                           KMP_AFFINITY proclist (whichever the runtime\n"
    "                           uses) names CPUs the process may not use\n"
    "  smt-siblings             bound threads on SMT siblings, cores idle\n"
    "  double-binding           SLURM_CPU_BIND binds and mpirun binds too\n"
    "  allocation-unenforced (note) Slurm grants fewer CPUs than the process\n"
    "                           may run on\n"
    "  numa-balancing           the kernel moves pages (a note on one node)\n"
    "  local-mask-wider  (note) local memory, but the memory mask is wider\n"
    "  mem-nodes-wider   (note) bound memory may spill to CPU-less nodes\n"
    "  interleave-remote (note) interleaving makes some pages remote\n"
    "  thp-always        (note) transparent huge pages: always\n"
    "\n"
    "Under a launcher (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK or\n"
    "SLURM_PROCID set) every line starts with 'rank R: ', and each line is\n"
    "written in one piece, so ranks' blocks interleave only line by line\n"
    "(sort -s -k2,2n groups them). --json prints one JSON object per process\n"
    "on one line instead.\n"
    "\n"
    "Exit status: 0 no warning, 1 at least one warning (or the placement\n"
    "could not be read), 2 bad usage (an unknown runtime, an unreadable\n"
    "topology).\n";

/* One line, written with one write(2) so that lines of ranks sharing a
 * pipe never mix. */
static void emit(const char *prefix, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void emit(const char *prefix, const char *fmt, ...)
{
    char line[4096];
    int n = snprintf(line, sizeof line, "%s", prefix);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    for (size_t off = 0; off < len;) {
        ssize_t w = write(STDOUT_FILENO, line + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        off += (size_t)w;
    }
}

static const char *or_unset(const char *v)
{
    return v ? v : "unset";
}

static void print_text(const bl_pcheck_state *s, const bl_pcheck_findings *f)
{
    char prefix[32] = "", cpus[1024], nodes[256], mems[256], pol[256];
    if (s->rank >= 0)
        snprintf(prefix, sizeof prefix, "rank %d: ", s->rank);
    hwloc_bitmap_t cpun = hwloc_bitmap_alloc();
    bl_pcheck_cpu_nodes(s, cpun);
    bl_cpuset_format_list(s->cpus, cpus, sizeof cpus);
    bl_cpuset_format_list(cpun, nodes, sizeof nodes);
    bl_cpuset_format_list(s->mems_allowed, mems, sizeof mems);
    bl_cpuset_format_list(s->policy_nodes, pol, sizeof pol);
    hwloc_bitmap_free(cpun);

    emit(prefix, "host %s pid %ld", s->host, s->pid);
    emit(prefix, "allowed cpus %s (%s)", cpus,
         s->allowed_from[0] ? s->allowed_from : "Cpus_allowed_list");
    emit(prefix, "cpus %s on NUMA node%s %s", cpus,
         strchr(nodes, ',') || strchr(nodes, '-') ? "s" : "",
         nodes[0] ? nodes : "?");
    emit(prefix, "memory policy %s%s%s, allowed nodes %s",
         bl_pcheck_policy_name(s->policy), pol[0] ? " nodes " : "", pol,
         mems);
    if (s->cgroup_cpus[0])
        emit(prefix, "cgroup cpuset cpus %s mems %s", s->cgroup_cpus,
             s->cgroup_mems[0] ? s->cgroup_mems : "?");
    else
        emit(prefix, "cgroup cpuset none found");
    emit(prefix, "openmp OMP_NUM_THREADS=%s OMP_PLACES=%s OMP_PROC_BIND=%s",
         or_unset(s->omp_num_threads), or_unset(s->omp_places),
         or_unset(s->omp_proc_bind));
    if (s->kmp_affinity || s->kmp_hw_subset || s->gomp_cpu_affinity)
        emit(prefix, "openmp KMP_AFFINITY=%s KMP_HW_SUBSET=%s GOMP_CPU_AFFINITY=%s",
             or_unset(s->kmp_affinity), or_unset(s->kmp_hw_subset),
             or_unset(s->gomp_cpu_affinity));
    if (s->omp_runtime == BL_OMP_RT_UNKNOWN)
        emit(prefix, "openmp runtime unknown (none loaded in this process): "
             "judged as libgomp; name it with --omp-runtime");
    else
        emit(prefix, "openmp runtime %s (%s%s%s)",
             bl_pcheck_runtime_name(s->omp_runtime), s->omp_runtime_from,
             s->omp_runtimes_also[0] ? "; also loaded: " : "",
             s->omp_runtimes_also);
    emit(prefix, "launcher SLURM_CPU_BIND=%s, mpirun binding %s",
         or_unset(s->slurm_cpu_bind),
         s->mpirun_binding[0] ? s->mpirun_binding : "none seen");
    char bal[16];
    snprintf(bal, sizeof bal, "%d", s->numa_balancing);
    emit(prefix, "kernel numa_balancing %s, transparent huge pages %s",
         s->numa_balancing < 0 ? "unknown" : bal, s->thp[0] ? s->thp : "unknown");
    for (int i = 0; i < f->n; i++)
        emit(prefix, "%s %s: %s",
             f->item[i].severity == BL_PCHECK_WARNING ? "warning" : "note",
             f->item[i].id, f->item[i].text);
    if (f->warnings)
        emit(prefix, "result misaligned: %d warning%s", f->warnings,
             f->warnings == 1 ? "" : "s");
    else
        emit(prefix, "result coherent: no warning");
}

/* ---- JSON ------------------------------------------------------------- */

/* A JSON string, or null for NULL. */
static void sb_json(bl_strbuf *b, const char *s)
{
    if (!s) {
        bl_strbuf_puts(b, "null");
        return;
    }
    bl_strbuf_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            bl_strbuf_add(b, esc, 2);
        } else if (*p < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            bl_strbuf_puts(b, esc);
        } else {
            bl_strbuf_add(b, (const char *)p, 1);
        }
    }
    bl_strbuf_puts(b, "\"");
}

static void sb_key(bl_strbuf *b, const char *key, const char *value)
{
    bl_strbuf_puts(b, ",");
    sb_json(b, key);
    bl_strbuf_puts(b, ":");
    sb_json(b, value);
}

static void sb_set(bl_strbuf *b, const char *key, hwloc_const_bitmap_t set)
{
    char text[1024];
    bl_cpuset_format_list(set, text, sizeof text);
    sb_key(b, key, text);
}

static void print_json(const bl_pcheck_state *s, const bl_pcheck_findings *f)
{
    bl_strbuf b = {0};
    bl_strbuf_printf(&b, "{\"rank\":%d,\"pid\":%ld", s->rank, s->pid);
    sb_key(&b, "host", s->host);
    sb_set(&b, "cpus", s->cpus);
    sb_key(&b, "allowed_from", s->allowed_from);
    bl_strbuf_printf(&b, ",\"slurm_cpus_on_node\":%d", s->slurm_cpus_on_node);
    hwloc_bitmap_t cpun = hwloc_bitmap_alloc();
    bl_pcheck_cpu_nodes(s, cpun);
    sb_set(&b, "cpu_nodes", cpun);
    hwloc_bitmap_free(cpun);
    sb_set(&b, "mems_allowed", s->mems_allowed);
    sb_key(&b, "mempolicy", bl_pcheck_policy_name(s->policy));
    sb_set(&b, "mempolicy_nodes", s->policy_nodes);
    sb_key(&b, "cgroup_cpus", s->cgroup_cpus[0] ? s->cgroup_cpus : NULL);
    sb_key(&b, "cgroup_mems", s->cgroup_mems[0] ? s->cgroup_mems : NULL);
    sb_key(&b, "OMP_NUM_THREADS", s->omp_num_threads);
    sb_key(&b, "OMP_PLACES", s->omp_places);
    sb_key(&b, "OMP_PROC_BIND", s->omp_proc_bind);
    sb_key(&b, "KMP_AFFINITY", s->kmp_affinity);
    sb_key(&b, "KMP_HW_SUBSET", s->kmp_hw_subset);
    sb_key(&b, "GOMP_CPU_AFFINITY", s->gomp_cpu_affinity);
    sb_key(&b, "omp_runtime", bl_pcheck_runtime_name(s->omp_runtime));
    sb_key(&b, "omp_runtime_from",
           s->omp_runtime_from[0] ? s->omp_runtime_from : NULL);
    sb_key(&b, "omp_runtimes_also",
           s->omp_runtimes_also[0] ? s->omp_runtimes_also : NULL);
    sb_key(&b, "SLURM_CPU_BIND", s->slurm_cpu_bind);
    sb_key(&b, "mpirun_binding", s->mpirun_binding[0] ? s->mpirun_binding : NULL);
    bl_strbuf_printf(&b, ",\"numa_balancing\":%d", s->numa_balancing);
    sb_key(&b, "thp", s->thp[0] ? s->thp : NULL);
    bl_strbuf_puts(&b, ",\"findings\":[");
    for (int i = 0; i < f->n; i++) {
        bl_strbuf_puts(&b, i ? ",{\"id\":" : "{\"id\":");
        sb_json(&b, f->item[i].id);
        sb_key(&b, "severity",
               f->item[i].severity == BL_PCHECK_WARNING ? "warning" : "note");
        sb_key(&b, "text", f->item[i].text);
        bl_strbuf_puts(&b, "}");
    }
    bl_strbuf_printf(&b, "],\"warnings\":%d,\"misaligned\":%s}\n",
                     f->warnings, f->warnings ? "true" : "false");
    /* One write for the whole object: atomic on a pipe up to PIPE_BUF. */
    for (size_t off = 0; b.s && off < b.len;) {
        ssize_t w = write(STDOUT_FILENO, b.s + off, b.len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    free(bl_strbuf_take(&b));
}

typedef struct check_cli {
    int json;
    const char *topology;
    const char *omp_runtime;
} check_cli;

static int runtime_ok(void *opts, const char *value, bl_err *err)
{
    bl_omp_runtime rt;
    (void)opts;
    if (bl_pcheck_runtime_parse(value, &rt) < 0)
        return bl_err_set(err, "--omp-runtime '%s': accepted: libgomp, "
                               "libomp, intel", value);
    return 0;
}

/* An unreadable topology is bad usage, said before anything is read. */
static int topology_ok(void *opts, const char *value, bl_err *err)
{
    hwloc_topology_t topo;
    (void)opts;
    if (bl_topo_load(value, &topo, err) < 0)
        return -1;
    hwloc_topology_destroy(topo);
    return 0;
}

#define SLOT(field) offsetof(check_cli, field)
static const bl_cli_opt check_options[] = {
    {"--json", BL_OPT_FLAG, NULL, "one JSON object per process", SLOT(json),
     NULL, NULL},
    {"--omp-runtime", BL_OPT_VALUE, "libgomp|libomp|intel",
     "judge the OpenMP variables for this runtime", SLOT(omp_runtime),
     runtime_ok, NULL},
    {"--topology", BL_OPT_VALUE, "FILE.xml|SYNTH",
     "the cores (SMT siblings) from this topology", SLOT(topology),
     topology_ok, NULL},
};

static const char *const help_parts[] = {help, help_findings, NULL};

static const bl_cli_spec spec = {
    .verb = "check", .help = help_parts, .opts = check_options,
    .nopts = BL_CLI_NOPTS(check_options),
    .unknown = "unknown argument '%s' (accepted: --json, --omp-runtime, "
               "--topology, --help)"};

int bl_cli_check(int argc, char **argv)
{
    check_cli o = {0};
    int rc = bl_cli_parse(&spec, argc, argv, &o);
    if (rc >= 0)
        return rc;
    bl_pcheck_opts po = {o.topology, BL_OMP_RT_UNKNOWN};
    if (o.omp_runtime)
        bl_pcheck_runtime_parse(o.omp_runtime, &po.omp_runtime);
    bl_pcheck_state s;
    bl_pcheck_findings f;
    bl_err err;
    if (bl_pcheck_gather(&s, &po, &err) < 0) {
        fprintf(stderr, "bindlab check: %s\n", err.msg);
        bl_pcheck_state_free(&s);
        return BL_EXIT_FAILED;
    }
    bl_pcheck_eval(&s, &f);
    if (o.json)
        print_json(&s, &f);
    else
        print_text(&s, &f);
    rc = f.warnings ? BL_EXIT_FAILED : BL_EXIT_OK;
    bl_pcheck_state_free(&s);
    return rc;
}
