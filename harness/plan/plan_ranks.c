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
#include "launcher/launcher_info.h"
#include "layout/layout.h"
#include "launcher/layout_hydra.h"
#include "cli/datadir.h"
#include "sys_util.h"
#include "topo.h"

/* ---- topology ------------------------------------------------------ */

static int looks_like_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n >= 4 && strcmp(s + n - 4, ".xml") == 0);
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
        return bl_topo_load(NULL, out, err);
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
    if (hwloc_topology_init(&t) < 0)
        return bl_err_set(err, "topology '%s': hwloc_topology_init failed",
                          spec);
    rc = is_file ? hwloc_topology_set_xml(t, spec)
                 : hwloc_topology_set_synthetic(t, spec);
    /* The file stands for the node mpirun runs on, as HWLOC_THISSYSTEM=1
     * tells mpirun's hwloc. */
    if (rc == 0)
        rc = hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM);
    if (rc == 0)
        rc = hwloc_topology_load(t);
    if (rc < 0) {
        hwloc_topology_destroy(t);
        if (is_file)
            return bl_err_set(err, "topology '%s': not a readable hwloc XML "
                                   "file (make one with lstopo --of xml)",
                              spec);
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

/* The request's launcher, else `mpirun` in PATH, detected once per process:
 * every plan of a sweep uses the same one, and `mpirun --version` costs as
 * much as a small plan. */
static int launcher(const bl_plan_request *req, bl_launcher_info *info,
                    const char **program, bl_err *err)
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
    return bl_layout_translate_for(l, li, topo, err) < 0 ? -2 : 0;
}

#define MAX_ARGS 24
#define MAX_ENV 8

typedef struct command {
    char *argv[MAX_ARGS];
    char *env[MAX_ENV];
    int argc, envc;
    char xml[PATH_MAX];      /* our temporary export, "" when none */
    char np[16], host[48];
    char hosts[16384];       /* --host of a plan of several nodes */
    int failed;
} command;

static void arg(command *c, const char *s)
{
    if (c->argc < MAX_ARGS - 1)
        c->argv[c->argc++] = (char *)s;
    else
        c->failed = 1;
}

static void envf(command *c, const char *name, const char *value)
{
    char *e;
    if (c->envc >= MAX_ENV - 1 ||
        !(e = malloc(strlen(name) + strlen(value) + 2))) {
        c->failed = 1;
        return;
    }
    sprintf(e, "%s=%s", name, value);
    c->env[c->envc++] = e;
}

static void command_free(command *c)
{
    for (int i = 0; i < c->envc; i++)
        free(c->env[i]);
    if (c->xml[0])
        unlink(c->xml);
    memset(c, 0, sizeof *c);
}

/* The XML mpirun reads: the user's file as given, else an export of topo
 * (a synthetic description) into a temporary file. */
static int xml_for(const bl_plan_request *req, hwloc_topology_t topo,
                   command *c, const char **path, bl_err *err)
{
    struct stat st;
    const char *tmp = getenv("TMPDIR");
    int fd;

    if (stat(req->topology, &st) == 0 && S_ISREG(st.st_mode)) {
        *path = req->topology;
        return 0;
    }
    if (bl_textf(c->xml, sizeof c->xml, "%s/bindlab-plan-XXXXXX.xml",
                 tmp && *tmp ? tmp : "/tmp") < 0 ||
        (fd = mkstemps(c->xml, 4)) < 0) {
        c->xml[0] = '\0';
        return bl_err_set(err, "cannot create a temporary XML file in %s: "
                               "%s", tmp && *tmp ? tmp : "/tmp",
                          strerror(errno));
    }
    close(fd);
    if (hwloc_topology_export_xml(topo, c->xml, 0) < 0)
        return bl_err_set(err, "cannot write topology '%s' as XML to %s",
                          req->topology, c->xml);
    *path = c->xml;
    return 0;
}

/* Open MPI's argv: --do-not-launch (4.x: its job map is the report),
 * --do-not-launch --display map (5.x: PRRTE's job map), or, launched, run
 * /bin/true ranks with --report-bindings. */
static void ompi_args(const bl_layout *l, const bl_launcher_info *li,
                      int launched, int nodes, command *c)
{
    /* One slot per rank: Open MPI then refuses a layout for its mapping
     * or binding on that node, never because this machine has few cores.
     * Several nodes: the made-up hosts of bl_plan_ranks_hosts, one slot
     * per core as bindlab sweep gives each node of an allocation. */
    snprintf(c->host, sizeof c->host, "localhost:%d", l->np);
    if (bl_launcher_is_root())
        arg(c, "--allow-run-as-root");
    arg(c, "-np");
    arg(c, c->np);
    arg(c, "--host");
    arg(c, nodes > 1 ? c->hosts : c->host);
    arg(c, "--map-by");
    arg(c, l->map_by_launcher);
    arg(c, "--bind-to");
    arg(c, l->bind_to_launcher);
    if (l->rank_by_launcher[0]) {
        arg(c, "--rank-by");
        arg(c, l->rank_by_launcher);
    }
    if (launched) {
        arg(c, "--report-bindings");
    } else {
        arg(c, "--do-not-launch");
        if (li->major >= 5) {
            arg(c, "--display");
            arg(c, "map");
        }
    }
    /* The caller's MCA defaults belong to this machine, not the node
     * planned for. */
    envf(c, "OMPI_MCA_rmaps_base_oversubscribe", "0");
    /* Open MPI 4 binds a rank mapped and bound to the same level (core
     * and core) on mpirun's own node only, leaving the other nodes to
     * their daemons, which --do-not-launch never starts; without the
     * virtual machine mpirun binds every node's ranks itself. */
    if (nodes > 1 && li->major < 5)
        envf(c, "OMPI_MCA_orte_no_vm", "1");
}

/* Hydra has no dry mode: it starts /bin/true as each rank, and with
 * HYDRA_TOPO_DEBUG=1 prints the binding its proxy computed for each
 * (the preload records it instead of applying it). */
static void hydra_args(const bl_layout *l, int nodes, command *c)
{
    /* Several nodes: every proxy started here (fork), each rank labelled
     * ([R]) and running env, whose PMI_HOSTNAME says its node */
    if (nodes > 1) {
        snprintf(c->host, sizeof c->host, "%d", l->ppn_launcher);
        arg(c, "-launcher");
        arg(c, "fork");
        arg(c, "-l");
        arg(c, "-hosts");
        arg(c, c->hosts);
        arg(c, "-ppn");
        arg(c, c->host);
    } else if (l->map.ppr) {
        snprintf(c->host, sizeof c->host, "%d", l->map.ppr);
        arg(c, "-ppn");
        arg(c, c->host);
    }
    arg(c, "-np");
    arg(c, c->np);
    arg(c, "-bind-to");
    arg(c, l->bind_to_launcher);
    if (l->bind != BL_RES_NONE) {
        arg(c, "-map-by");
        arg(c, l->map_by_launcher);
    }
    envf(c, "HYDRA_TOPO_DEBUG", "1");
}

/* The launcher's argv and environment for one plan. */
static int command_build(const bl_plan_request *req, hwloc_topology_t topo,
                         const char *preload, const bl_layout *l,
                         const bl_launcher_info *li, const char *program,
                         int launched, command *c, bl_err *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->np, sizeof c->np, "%d", l->np);
    arg(c, program);
    if (req->nodes > 1 &&
        bl_plan_ranks_hosts(topo, req->nodes, c->hosts, sizeof c->hosts) < 0)
        return bl_err_set(err, "nodes %d: too many for one --host list",
                          req->nodes);
    if (li->kind == BL_LAUNCHER_MPICH)
        hydra_args(l, req->nodes, c);
    else
        ompi_args(l, li, launched, req->nodes, c);
    arg(c, li->kind == BL_LAUNCHER_MPICH && req->nodes > 1 ? "/usr/bin/env"
                                                           : "/bin/true");
    if (req->topology && *req->topology) {
        const char *xml = NULL;
        char *all;
        if (xml_for(req, topo, c, &xml, err) < 0)
            return -1;
        envf(c, "HWLOC_XMLFILE", xml);
        envf(c, "HWLOC_THISSYSTEM", "1");
        if (preload) {
            envf(c, "LD_PRELOAD", preload);
            if (!(all = bl_cpuset_list_strdup(
                      hwloc_topology_get_topology_cpuset(topo))))
                return bl_err_set(err, "out of memory");
            envf(c, "BINDLAB_PRELOAD_CPUS", all);
            free(all);
        }
    }
    if (c->failed)
        return bl_err_set(err, "out of memory building the mpirun command");
    return 0;
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
static void describe_how(const bl_launcher_info *li, const char *program,
                         int launched, bl_plan *out)
{
    const char *how;
    if (li->kind == BL_LAUNCHER_MPICH)
        how = "Hydra started /bin/true as each rank on the node "
              "(HWLOC_XMLFILE) and printed the binding it made "
              "(HYDRA_TOPO_DEBUG=1); the preload library recorded it "
              "instead of applying it";
    else if (launched)
        how = "mpirun started /bin/true as each rank on the node "
              "(HWLOC_XMLFILE) and reported the bindings it made "
              "(--report-bindings); the preload library recorded them";
    else if (li->major >= 5)
        how = "mpirun mapped without launching (--do-not-launch --display "
              "map) on the node (HWLOC_XMLFILE)";
    else
        how = "mpirun mapped without launching (--do-not-launch) on the "
              "node (HWLOC_XMLFILE)";
    snprintf(out->how, sizeof out->how, "%s's own mapper (%s): %s",
             out->launcher, program, how);
    out->modelled = 0;
}

static int run(const bl_plan_request *req, hwloc_topology_t topo,
               const char *preload, int launched, bl_plan *out, bl_err *err)
{
    bl_launcher_info li;
    bl_layout l;
    command c;
    const char *program = "mpirun";
    bl_launch_opts o = {0};
    bl_launch_result res;
    char *text = NULL, *report = NULL;
    int rc = -1, nmapped = 0;

    if (!req || !topo || !out)
        return bl_err_set(err, "bl_plan_ranks: request, topology and plan "
                               "are all needed");
    plan_reset(out);
    if (launched && !preload)
        return bl_err_set(err, "planning by launch needs the preload "
                               "library (%s)", BL_PLAN_PRELOAD_NAME);
    if (launcher(req, &li, &program, err) < 0)
        return -1;
    snprintf(out->launcher, sizeof out->launcher, "%s %s",
             bl_launcher_kind_name(li.kind), li.version);
    if (li.kind == BL_LAUNCHER_SLURM)
        return bl_err_set(err, "%s cannot plan for a node it is not on; plan "
                          "with an MPI's launcher (--launcher ompi5, mpich, "
                          "impi, ...)", out->launcher);
    if ((rc = layout_of(req, &li, topo, &l, err)) < 0) {
        /* a layout this launcher cannot express is its answer, given as a
         * refusal; a bad value stays bad input */
        if (rc == -2 && li.kind != BL_LAUNCHER_OPENMPI) {
            snprintf(out->refusal, sizeof out->refusal, "%s", err->msg);
            return 0;
        }
        return -1;
    }
    if (li.kind == BL_LAUNCHER_OPENMPI && li.major == 4 && req->nodes > 1 &&
        !launched) {
        /* its whole-job map carries binding counts across the made-up
         * hosts: node by node, as a real launch binds (plan_ranks.h) */
        if ((rc = bl_plan_ranks_alike(req, topo, &li, program, preload, out,
                                      err)) <= 0)
            return rc;
        plan_reset(out);
        snprintf(out->launcher, sizeof out->launcher, "%s %s",
                 bl_launcher_kind_name(li.kind), li.version);
    }
    rc = -1;
    out->nnodes = req->nodes > 1 ? req->nodes : 1;
    if (li.kind == BL_LAUNCHER_INTELMPI)
        return req->nodes > 1
                   ? bl_plan_ranks_impi_nodes(&l, topo, &li, req->nodes, out,
                                              err)
                   : bl_plan_ranks_impi_model(&l, topo, &li, out, err);
    if (li.kind == BL_LAUNCHER_MPICH)
        launched = 1;
    else if (!launched && li.major < 4)
        launched = 1; /* --do-not-launch's map is Open MPI 4's and 5's */
    if ((launched || li.major >= 5) && !preload)
        return bl_err_set(err, "%s: planning needs the preload library (%s)",
                          out->launcher, BL_PLAN_PRELOAD_NAME);
    describe_how(&li, program, launched, out);
    if (command_build(req, topo, preload, &l, &li, program, launched, &c,
                      err) < 0)
        goto done;
    o.argv = c.argv;
    o.env = c.env;
    o.timeout_s = BL_PLAN_RANKS_TIMEOUT_S;
    o.grace_s = 1.0;
    /* Hydra's mpiexec now and then dies of SIGPIPE when the /bin/true
     * ranks are gone before it writes to them (seen a few times in a
     * hundred under load, with no output): its own failure, not an
     * answer about the layout, so it is asked again, twice at most. */
    for (int attempt = 1;; attempt++) {
        if (bl_launch_run(&o, &res, err) < 0) {
            bl_launch_result_free(&res);
            goto done;
        }
        if (res.term_signal != SIGPIPE || res.timed_out || attempt == 3)
            break;
        bl_launch_result_free(&res);
    }
    if (res.timed_out) {
        bl_err_set(err, "%s did not finish in %.0f s planning -np %d "
                        "--map-by %s --bind-to %s", program, o.timeout_s,
                   l.np, l.map_by, l.bind_to);
        goto free_res;
    }
    if (!(text = both_streams(&res))) {
        bl_err_set(err, "out of memory");
        goto free_res;
    }
    if (launched || li.major >= 5) {
        report = text;
        text = NULL;
        nmapped = strstr(report, "MCW rank") || strstr(report, "] Rank ") ||
                  strstr(report, "Data for proc: [") ||
                  strstr(report, " binding: ");
        /* Nothing reported: unbound ranks (only MPI_Init would speak), if
         * mpirun was content; a refusal otherwise. */
        if (!nmapped && res.exited && res.exit_status == 0 &&
            l.bind == BL_RES_NONE)
            nmapped = 1;
        /* Hydra over several nodes: each rank's node and binding from its
         * labelled lines */
        if (nmapped && li.kind == BL_LAUNCHER_MPICH && req->nodes > 1) {
            char *mine = NULL;
            if (!(out->rank_node = calloc((size_t)l.np,
                                          sizeof *out->rank_node)) ||
                !(mine = bl_plan_ranks_hydra_nodes(report, req->nodes, l.np,
                                                   out->rank_node, err))) {
                if (!out->rank_node)
                    bl_err_set(err, "out of memory");
                goto free_res;
            }
            free(report);
            report = mine;
        }
    } else if (!(report = bl_plan_ranks_map_to_report(text, &nmapped))) {
        bl_err_set(err, "out of memory");
        goto free_res;
    }
    if (!nmapped) {
        bl_plan_ranks_trim_refusal(text ? text : report, out->refusal,
                                   sizeof out->refusal);
        if (!out->refusal[0]) {
            char how[160];
            bl_launch_describe(&res, &o, how, sizeof how);
            bl_err_set(err, "%s printed no binding and no message (%s)",
                       program, how);
            goto free_res;
        }
        rc = 0;
        goto free_res;
    }
    if ((rc = parse(report, topo, l.np, out, err)) == 0 && req->nodes > 1 &&
        !out->rank_node) {
        if (!(out->rank_node = calloc((size_t)l.np, sizeof *out->rank_node)))
            rc = bl_err_set(err, "out of memory");
        else
            rc = bl_plan_ranks_nodes_read(text ? text : report, req->nodes,
                                          l.np, out->rank_node, err);
    }
    if (rc < 0)
        plan_reset(out);
free_res:
    bl_launch_result_free(&res);
done:
    free(text);
    free(report);
    command_free(&c);
    return rc;
}

int bl_plan_ranks(const bl_plan_request *req, hwloc_topology_t topo,
                  const char *preload_path, bl_plan *out, bl_err *err)
{
    return run(req, topo, preload_path, 0, out, err);
}

int bl_plan_ranks_launched(const bl_plan_request *req, hwloc_topology_t topo,
                           const char *preload_path, bl_plan *out,
                           bl_err *err)
{
    return run(req, topo, preload_path, 1, out, err);
}
