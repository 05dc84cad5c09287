/* Rank placement through the installed Open MPI's mapper on a foreign
 * topology; see plan_ranks.h for how and why. */
#include "plan/plan_ranks.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bindreport/bindreport.h"
#include "cpuset.h"
#include "proc/launch.h"
#include "launcher/launcher.h"
#include "layout/layout.h"
#include "plan/plan_ranks_priv.h"
#include "cli/datadir.h"
#include "sys_util.h"
#include "topo.h"

/* ---- topology ------------------------------------------------------ */

static int looks_like_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n >= 4 && strcmp(s + n - 4, ".xml") == 0);
}

/* This machine, with its GPUs and network cards (plan_devices.h): the
 * PCI functions hwloc calls important, as for a file. */
static int load_this_machine(hwloc_topology_t *out, bl_err *err)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) < 0)
        return bl_err_set(err, "hwloc: cannot initialise a topology");
    if (hwloc_topology_set_io_types_filter(
            t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) < 0 ||
        hwloc_topology_load(t) < 0) {
        hwloc_topology_destroy(t);
        return bl_err_set(err, "hwloc could not load this machine's "
                               "topology (lstopo shows what it sees); "
                               "give one with --topology FILE");
    }
    *out = t;
    return 0;
}

int bl_plan_topology_load(const char *spec, hwloc_topology_t *out,
                          bl_err *err)
{
    hwloc_topology_t t;
    struct stat st;
    char shipped[PATH_MAX];
    int is_file, rc;

    *out = NULL;
    /* No topology: this machine (as --help says). */
    if (!spec || !*spec)
        return load_this_machine(out, err);
    /* "qemu-2s": configs/topologies/qemu-2s.xml, shipped with bindlab. */
    if (!strchr(spec, ':'))
        spec = bl_data_resolve("topologies", ".xml", spec, shipped,
                               sizeof shipped);
    if (!spec || !*spec)
        return bl_err_set(err, "topology: empty; give an hwloc XML file or "
                               "a synthetic description such as "
                               "\"pack:2 numa:4 l3:2 core:8 pu:2\"");
    is_file = stat(spec, &st) == 0;
    if (!is_file && looks_like_path(spec))
        return bl_err_set(err, "topology '%s': no such file (accepted: an "
                               "hwloc XML file, e.g. from lstopo --of xml, "
                               "or a synthetic description)", spec);
    if (is_file && !S_ISREG(st.st_mode))
        return bl_err_set(err, "topology '%s': not a regular file", spec);
    if (is_file && bl_topo_check_xml_file(spec, err) < 0)
        return -1;
    if (hwloc_topology_init(&t) < 0)
        return bl_err_set(err, "topology '%s': hwloc_topology_init failed",
                          spec);
    rc = is_file ? hwloc_topology_set_xml(t, spec)
                 : hwloc_topology_set_synthetic(t, spec);
    /* The file stands for the node mpirun runs on, as HWLOC_THISSYSTEM=1
     * tells mpirun's hwloc. */
    if (rc == 0)
        rc = hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM);
    /* GPUs and network cards with their PCI locality (plan_devices.h) */
    if (rc == 0)
        rc = hwloc_topology_set_io_types_filter(
            t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (rc == 0)
        rc = hwloc_topology_load(t);
    if (rc < 0) {
        hwloc_topology_destroy(t);
        if (is_file)
            return bl_topo_refused_xml(spec, err);
        if (!strchr(spec, ':') && bl_data_dir(shipped, sizeof shipped,
                                              NULL) == 0)
            return bl_err_set(err, "topology '%s': not a file, not a shipped "
                                   "topology (their names: ls %s/topologies), "
                                   "and not an hwloc synthetic description "
                                   "(e.g. \"pack:2 numa:4 l3:2 core:8 pu:2\")",
                              spec, shipped);
        return bl_err_set(err, "topology '%s': not a file, and not an hwloc "
                               "synthetic description (e.g. \"pack:2 numa:4 "
                               "l3:2 core:8 pu:2\")", spec);
    }
    if (hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU) < 1) {
        hwloc_topology_destroy(t);
        return bl_err_set(err, "topology '%s': has no PU", spec);
    }
    *out = t;
    return 0;
}

/* ---- the preload library ------------------------------------------ */

static int usable(const char *path)
{
    return access(path, R_OK) == 0;
}

int bl_plan_ranks_preload_path(char *buf, size_t len, bl_err *err)
{
    const char *env = getenv("BINDLAB_PRELOAD");
    char dir[PATH_MAX];

    if (env && *env) {
        if (!usable(env))
            return bl_err_set(err, "BINDLAB_PRELOAD '%s': not a readable "
                                   "file", env);
        if (bl_textf(buf, len, "%s", env) < 0)
            return bl_err_set(err, "BINDLAB_PRELOAD: path too long");
        return 0;
    }
    if (bl_self_dir(dir, sizeof dir, NULL) < 0)
        return bl_err_set(err, "cannot read /proc/self/exe to find %s; set "
                               "BINDLAB_PRELOAD to its path",
                          BL_PLAN_PRELOAD_NAME);
    if (bl_textf(buf, len, "%s/%s", dir, BL_PLAN_PRELOAD_NAME) == 0 &&
        usable(buf))
        return 0;
    if (bl_textf(buf, len, "%s/../lib/bindlab/%s", dir,
                 BL_PLAN_PRELOAD_NAME) == 0 && usable(buf))
        return 0;
    return bl_err_set(err, "%s not found in %s or %s/../lib/bindlab; build "
                           "it (target bindlab-affinity-preload) or set "
                           "BINDLAB_PRELOAD", BL_PLAN_PRELOAD_NAME, dir, dir);
}

/* ---- the mpirun command -------------------------------------------- */

/* plan_ranks_priv.h */
int bl_plan_ranks_launcher(const bl_plan_request *req,
                           bl_launcher_info *info, const char **program,
                           bl_err *err)
{
    static bl_launcher_info cached;
    static int have;
    if (req->launcher_info) {
        *info = *req->launcher_info;
        *program = req->launcher_program ? req->launcher_program : "mpirun";
        return 0;
    }
    if (!have) {
        if (bl_launcher_detect_mpirun("mpirun", 30.0, &cached, err) < 0)
            return -1;
        have = 1;
    }
    *info = cached;
    *program = "mpirun";
    return 0;
}

int bl_plan_request_layout(const bl_plan_request *req, int nodes,
                           bl_layout *l, bl_err *err)
{
    char np[32];
    bl_layout_defaults(l);
    if (req->np < 1)
        return bl_err_set(err, "-np %d: accepted: 1 or more ranks", req->np);
    snprintf(np, sizeof np, "%d", req->np);
    if (bl_layout_set(l, BL_F_NP, np, err) < 0 ||
        (req->map_by && *req->map_by &&
         bl_layout_set(l, BL_F_MAP_BY, req->map_by, err) < 0) ||
        (req->bind_to && *req->bind_to &&
         bl_layout_set(l, BL_F_BIND_TO, req->bind_to, err) < 0) ||
        (req->rank_by && *req->rank_by &&
         bl_layout_set(l, BL_F_RANK_BY, req->rank_by, err) < 0))
        return -1;
    l->nodes = nodes;
    return 0;
}

static int layout_of(const bl_plan_request *req, const bl_launcher_info *li,
                     hwloc_topology_t topo, bl_layout *l, bl_err *err)
{
    /* Hydra's and Intel MPI's spellings across nodes (-ppn) need nodes */
    if (bl_plan_request_layout(req, req->nodes > 1 ? req->nodes : 0, l,
                               err) < 0)
        return -1;
    /* -2: the launcher has no spelling for this layout */
    return bl_launcher_translate(l, li, topo, err) < 0 ? -2 : 0;
}

/* The XML the launcher reads: the user's file as given, else an export of
 * topo (a synthetic description) into a temporary file (*tmp, unlinked by
 * the caller). */
static int xml_for(const bl_plan_request *req, hwloc_topology_t topo,
                   char *tmp, size_t len, const char **path, bl_err *err)
{
    struct stat st;
    const char *dir = getenv("TMPDIR");
    int fd;

    tmp[0] = '\0';
    if (stat(req->topology, &st) == 0 && S_ISREG(st.st_mode)) {
        *path = req->topology;
        return 0;
    }
    if (bl_textf(tmp, len, "%s/bindlab-plan-XXXXXX.xml",
                 dir && *dir ? dir : "/tmp") < 0 ||
        (fd = mkstemps(tmp, 4)) < 0) {
        tmp[0] = '\0';
        return bl_err_set(err, "cannot create a temporary XML file in %s: "
                               "%s", dir && *dir ? dir : "/tmp",
                          strerror(errno));
    }
    close(fd);
    if (hwloc_topology_export_xml(topo, tmp, 0) < 0)
        return bl_err_set(err, "cannot write topology '%s' as XML to %s",
                          req->topology, tmp);
    *path = tmp;
    return 0;
}

/* The launcher's command for one plan: the command of a real launch of l
 * (the one builder, launcher.h) in plan mode. xml: the temporary export,
 * if any, to unlink after the run. */
static int command_build(const bl_plan_request *req, hwloc_topology_t topo,
                         const char *preload, const bl_layout *l,
                         const bl_launcher_info *li, const char *program,
                         int launched, char *xml, size_t len,
                         bl_command *c, bl_err *err)
{
    const bl_launcher_ops *ops = bl_launcher_ops_of(li);
    char hosts[16384], *cpus = NULL;
    bl_layout_argv_opts o = {.launcher = program, .threads = 1,
                             .is_root = bl_launcher_is_root()};
    bl_plan_mode m = {.launched = launched, .nodes = req->nodes,
                      .program = "/bin/true"};
    int rc;

    xml[0] = '\0';
    /* Several nodes: the made-up hosts, one slot per core as bindlab
     * sweep gives each node of an allocation. */
    if (req->nodes > 1) {
        if (bl_plan_ranks_hosts(topo, req->nodes, hosts, sizeof hosts) < 0)
            return bl_err_set(err, "nodes %d: too many for one --host list",
                              req->nodes);
        o.hosts = hosts;
        if (ops->plan_nodes_program)
            m.program = ops->plan_nodes_program;
    }
    if (req->topology && *req->topology) {
        if (xml_for(req, topo, xml, len, &m.xml, err) < 0)
            return -1;
        m.preload = preload;
        if (preload && !(cpus = bl_cpuset_list_strdup(
                             hwloc_topology_get_topology_cpuset(topo))))
            return bl_err_set(err, "out of memory");
        m.preload_cpus = cpus;
    }
    rc = bl_launcher_command(li, l, NULL, &o, &m, c, err);
    free(cpus);
    return rc;
}

/* ---- running it and reading the answer ------------------------------ */

static void plan_reset(bl_plan *out)
{
    for (int r = 0; out->rank_pus && r < out->nranks; r++)
        hwloc_bitmap_free(out->rank_pus[r]);
    free(out->rank_pus);
    free(out->rank_bound);
    free(out->rank_node);
    out->rank_pus = NULL;
    out->rank_bound = NULL;
    out->rank_node = NULL;
    out->nranks = 0;
    out->refusal[0] = '\0';
}

/* Rank r's set: the report's, or the whole node when absent (an unbound
 * rank under Open MPI 4 prints nothing from mpirun). A set equal to the
 * whole node counts as unbound, as --report-bindings says. */
static int fill(const bl_binding_report *rep, hwloc_topology_t topo, int np,
                bl_plan *out, bl_err *err)
{
    hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(topo);
    out->rank_pus = calloc((size_t)np, sizeof *out->rank_pus);
    out->rank_bound = calloc((size_t)np, sizeof *out->rank_bound);
    if (!out->rank_pus || !out->rank_bound)
        return bl_err_set(err, "out of memory");
    out->nranks = np;
    for (int r = 0; r < np; r++)
        if (!(out->rank_pus[r] = hwloc_bitmap_dup(all)))
            return bl_err_set(err, "out of memory");
    for (size_t i = 0; i < rep->count; i++) {
        const bl_binding *b = &rep->items[i];
        if (b->thread >= 0)
            continue;
        if (b->rank < 0 || b->rank >= np)
            return bl_err_set(err, "mpirun reported rank %d, but -np is %d",
                              b->rank, np);
        hwloc_bitmap_copy(out->rank_pus[b->rank], b->cpus);
        out->rank_bound[b->rank] =
            b->bound && !hwloc_bitmap_isequal(b->cpus, all);
    }
    return 0;
}

static int parse(const char *report, hwloc_topology_t topo, int np,
                 bl_plan *out, bl_err *err)
{
    bl_binding_report rep;
    int rc;
    if (bl_bindreport_parse(report, BL_REPORT_AUTO, topo, &rep, err) < 0)
        return bl_err_prefix(err, "reading mpirun's bindings");
    if (rep.nrejected) {
        bl_err_set(err, "mpirun's binding line %d: %s", rep.rejected[0].line,
                   rep.rejected[0].reason);
        bl_bindreport_free(&rep);
        return -1;
    }
    rc = fill(&rep, topo, np, out, err);
    bl_bindreport_free(&rep);
    return rc;
}

static char *both_streams(const bl_launch_result *res)
{
    char *o = bl_launch_output_text(&res->out);
    char *e = bl_launch_output_text(&res->errs);
    char *all = NULL;
    if (o && e && (all = malloc(strlen(o) + strlen(e) + 2)))
        sprintf(all, "%s\n%s", o, e);
    free(o);
    free(e);
    return all;
}

/* How the ranks are placed, in the plan's own words. */
static void describe_how(const bl_launcher_ops *ops, const char *program,
                         int launched, bl_plan *out)
{
    snprintf(out->how, sizeof out->how, "%s's own mapper (%s): %s",
             out->launcher, program,
             launched ? ops->plan_launched_how : ops->plan_dry_how);
    out->modelled = 0;
}

/* Runs the command, asked again when Hydra's mpiexec dies of SIGPIPE: it
 * now and then does when the /bin/true ranks are gone before it writes to
 * them (seen a few times in a hundred under load, with no output), its own
 * failure, not an answer about the layout; twice more at most. */
static int launch(const bl_launch_opts *o, bl_launch_result *res,
                  bl_err *err)
{
    for (int attempt = 1;; attempt++) {
        if (bl_launch_run(o, res, err) < 0) {
            bl_launch_result_free(res);
            return -1;
        }
        if (res->term_signal != SIGPIPE || res->timed_out || attempt == 3)
            return 0;
        bl_launch_result_free(res);
    }
}

/* Any rank's binding in the launcher's answer: one of the report forms
 * bindreport reads. */
static int names_a_rank(const char *report)
{
    return strstr(report, "MCW rank") || strstr(report, "] Rank ") ||
           strstr(report, "Data for proc: [") || strstr(report, " binding: ");
}

/* One question to the launcher: what read_answer needs of it. */
typedef struct asked {
    const bl_plan_request *req;
    hwloc_topology_t topo;
    const bl_launcher_ops *ops;
    const bl_layout *l;
    const char *program;
    int launched;
} asked;

/* The launcher's answer in text (both streams, taken over) made into out:
 * the report's ranks (and nodes), or its refusal. 0, or -1 with err. */
static int read_answer(const asked *a, char *text, const bl_launch_result *res,
                       const bl_launch_opts *o, bl_plan *out, bl_err *err)
{
    const bl_layout *l = a->l;
    char *report = NULL;
    int rc = -1, nmapped = 0, nodes = a->req->nodes > 1 ? a->req->nodes : 0;

    if (a->launched || !a->ops->plan_job_map) {
        report = text;
        text = NULL;
        nmapped = names_a_rank(report);
        /* Nothing reported: unbound ranks (only MPI_Init would speak), if
         * the launcher was content; a refusal otherwise. */
        if (!nmapped && res->exited && res->exit_status == 0 &&
            l->bind == BL_RES_NONE)
            nmapped = 1;
        /* each rank's node and binding from its labelled lines */
        if (nmapped && nodes && a->ops->plan_nodes_program) {
            char *mine = NULL;
            if (!(out->rank_node = calloc((size_t)l->np,
                                          sizeof *out->rank_node)) ||
                !(mine = bl_plan_ranks_hydra_nodes(report, nodes, l->np,
                                                   out->rank_node, err))) {
                if (!out->rank_node)
                    bl_err_set(err, "out of memory");
                goto done;
            }
            free(report);
            report = mine;
        }
    } else if (!(report = bl_plan_ranks_map_to_report(text, &nmapped))) {
        bl_err_set(err, "out of memory");
        goto done;
    }
    if (!nmapped) {
        bl_plan_ranks_trim_refusal(text ? text : report, out->refusal,
                                   sizeof out->refusal);
        if (!out->refusal[0]) {
            char how[160];
            bl_launch_describe(res, o, how, sizeof how);
            bl_err_set(err, "%s printed no binding and no message (%s)",
                       a->program, how);
            goto done;
        }
        rc = 0;
        goto done;
    }
    if ((rc = parse(report, a->topo, l->np, out, err)) == 0 && nodes &&
        !out->rank_node) {
        if (!(out->rank_node = calloc((size_t)l->np, sizeof *out->rank_node)))
            rc = bl_err_set(err, "out of memory");
        else
            rc = bl_plan_ranks_nodes_read(text ? text : report, nodes,
                                          l->np, out->rank_node, err);
    }
    if (rc < 0)
        plan_reset(out);
done:
    free(text);
    free(report);
    return rc;
}

/* Open MPI 4 writes each rank's binding map ("[BB/..][..]": a character
 * per PU, '/' between cores, brackets per package) into a buffer of 1024
 * bytes, so a node whose map is longer is cut and cannot be read back; and
 * it builds the map in time quadratic in the cores of a package (a node of
 * 16,384 PUs keeps mpirun busy for minutes). Such a node is refused before
 * mpirun starts. -1 with err naming the sizes, 0 when the map fits. */
static int ompi4_map_fits(hwloc_topology_t topo, const char *program,
                          bl_err *err)
{
    enum { OMPI4_MAP_MAX = 1023 };
    hwloc_obj_t pkg = NULL;
    long len = 0;
    while ((pkg = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pkg)))
        len += 1 + hwloc_bitmap_weight(pkg->cpuset) +
               hwloc_get_nbobjs_inside_cpuset_by_type(topo, pkg->cpuset,
                                                      HWLOC_OBJ_CORE);
    if (len <= OMPI4_MAP_MAX)
        return 0;
    return bl_err_set(err, "%s (Open MPI 4) cannot plan on this node: its "
                      "binding map of a rank would take %ld characters "
                      "(%d PUs) and Open MPI 4 cuts it at %d, so where the "
                      "ranks go cannot be read back; plan it with MPICH or "
                      "Open MPI 5 (--launcher, --mpirun) or Intel MPI's model "
                      "(--launcher impi)", program, len,
                      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU),
                      OMPI4_MAP_MAX);
}

/* Asks the launcher: its command in plan mode, run, its answer read. */
static int ask(const bl_plan_request *req, hwloc_topology_t topo,
               const char *preload, const bl_launcher_ops *ops,
               const bl_layout *l, const bl_launcher_info *li,
               const char *program, int launched, bl_plan *out, bl_err *err)
{
    asked a = {req, topo, ops, l, program, launched};
    bl_command c = {0};
    char xml[PATH_MAX] = "";
    bl_launch_opts o = {0};
    bl_launch_result res;
    char *text;
    int rc = -1;

    if ((ops->plan_job_map && ompi4_map_fits(topo, program, err) < 0) ||
        command_build(req, topo, preload, l, li, program, launched, xml,
                      sizeof xml, &c, err) < 0)
        goto done;
    o.argv = c.argv;
    o.env = c.env;
    o.timeout_s = BL_PLAN_RANKS_TIMEOUT_S;
    o.grace_s = 1.0;
    if (launch(&o, &res, err) < 0)
        goto done;
    if (res.timed_out)
        bl_err_set(err, "%s did not finish in %.0f s planning -np %d "
                        "--map-by %s --bind-to %s", program, o.timeout_s,
                   l->np, l->map_by, l->bind_to);
    else if (!(text = both_streams(&res)))
        bl_err_set(err, "out of memory");
    else
        rc = read_answer(&a, text, &res, &o, out, err);
    bl_launch_result_free(&res);
done:
    if (xml[0])
        unlink(xml);
    bl_command_free(&c);
    return rc;
}

int bl_plan_ranks_one(const bl_plan_request *req, hwloc_topology_t topo,
                      const char *preload, int launched, bl_plan *out,
                      bl_err *err)
{
    const bl_launcher_ops *ops;
    bl_launcher_info li;
    bl_layout l;
    const char *program = "mpirun";
    bl_plan_way way;
    int rc;

    if (!req || !topo || !out)
        return bl_err_set(err, "bl_plan_ranks: request, topology and plan "
                               "are all needed");
    plan_reset(out);
    if (launched && !preload)
        return bl_err_set(err, "planning by launch needs the preload "
                               "library (%s)", BL_PLAN_PRELOAD_NAME);
    if (bl_plan_ranks_launcher(req, &li, &program, err) < 0)
        return -1;
    snprintf(out->launcher, sizeof out->launcher, "%s %s",
             bl_launcher_kind_name(li.kind), li.version);
    ops = bl_launcher_ops_of(&li);
    way = bl_launcher_plan_way(ops, &li);
    if (way == BL_PLAN_CANNOT)
        return bl_err_set(err, "%s cannot plan for a node it is not on; plan "
                          "with an MPI's launcher (--launcher ompi5, mpich, "
                          "impi, ...)", out->launcher);
    if ((rc = layout_of(req, &li, topo, &l, err)) < 0) {
        /* a layout this launcher cannot express is its answer, given as a
         * refusal; a bad value stays bad input */
        if (rc == -2 && ops->translate_refuses) {
            snprintf(out->refusal, sizeof out->refusal, "%s", err->msg);
            return 0;
        }
        return -1;
    }
    out->nnodes = req->nodes > 1 ? req->nodes : 1;
    if (way == BL_PLAN_MODELLED)
        return req->nodes > 1
                   ? bl_plan_ranks_impi_nodes(&l, topo, &li, req->nodes, out,
                                              err)
                   : bl_plan_ranks_impi_model(&l, topo, &li, out, err);
    if (way == BL_PLAN_TRUE_RANKS)
        launched = 1;
    if ((launched || ops->plan_needs_preload) && !preload)
        return bl_err_set(err, "%s: planning needs the preload library (%s)",
                          out->launcher, BL_PLAN_PRELOAD_NAME);
    describe_how(ops, program, launched, out);
    return ask(req, topo, preload, ops, &l, &li, program, launched, out, err);
}
