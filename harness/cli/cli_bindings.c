/* bindlab bindings FILE|- : the binding-report parsers as a tool. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bindreport/bindreport.h"
#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/cli_util.h"
#include "cpuset.h"
#include "topo.h"

static const char help[] =
    "usage: bindlab bindings FILE|- [--format F] [--topology FILE|SYNTH]\n"
    "\n"
    "Reads the captured output of a launch (FILE, or standard input for -)\n"
    "and prints where the launcher says each rank may run, one line per\n"
    "rank (and per thread for OMP_DISPLAY_AFFINITY lines), sorted:\n"
    "\n"
    "  rank R host H cpus LIST core LIST l3 LIST numa LIST package LIST\n"
    "\n"
    "cpus are PU OS indexes (as Linux, taskset and Slurm number CPUs); the\n"
    "other columns are the hwloc logical indexes of the cores, L3 caches,\n"
    "NUMA nodes and packages those PUs belong to ('-' when the topology has\n"
    "no such level). A rank that the launcher left unbound gets all PUs and\n"
    "the word 'unbound' at the end. OMP lines without rank= show 'rank -'\n"
    "followed by 'pid P'.\n"
    "\n"
    "Formats, detected from the first report line unless --format says:\n"
    "  ompi4   Open MPI 4.x mpirun --report-bindings\n"
    "  ompi5   Open MPI 5.x / PRRTE --report-bindings (--display bind)\n"
    "  ompi5-map  PRRTE's job map: mpirun --display map (also with\n"
    "          --do-not-launch); its Rank lines may come with it\n"
    "  slurm   srun --cpu-bind=verbose,...\n"
    "  hydra   MPICH mpiexec -bind-to ... with HYDRA_TOPO_DEBUG=1\n"
    "  impi    Intel MPI's pinning table (I_MPI_DEBUG=4)\n"
    "  omp     OMP_DISPLAY_AFFINITY=true with OMP_AFFINITY_FORMAT set to\n"
    "          '" BL_OMP_AFFINITY_FORMAT "'\n"
    "          (optionally with rank=R), or LLVM libomp's default format\n"
    "  auto    the default; also reads OMP lines next to the launcher's\n"
    "\n"
    "Open MPI names cores and PUs by hwloc logical index, so the report is\n"
    "read against a topology: --topology FILE (an hwloc XML file, from\n"
    "'lstopo --of xml FILE' on the node that printed the report) or an\n"
    "hwloc synthetic description such as \"pack:2 numa:4 l3:2 core:8 pu:2\";\n"
    "by default this machine's. Every PU a report names must exist in it.\n"
    "\n"
    "Lines that look like report lines but cannot be read completely\n"
    "(truncated, wrapped, naming CPUs the topology lacks, a rank reported\n"
    "twice with different CPUs) are listed on standard error with their\n"
    "line number; nothing is guessed.\n"
    "\n"
    "Input is at most 64 MiB, lines at most 65536 characters (longer ones are\n"
    "rejected); devices such as /dev/zero are refused.\n"
    "\n"
    "Exit status: 0 when bindings were read and no line was rejected, 1 when\n"
    "lines were rejected or no binding line was found, 2 for bad usage or an\n"
    "unreadable file or topology.\n";

#define VERB "bindings"

typedef struct {
    const char *input;
    const char *topology;
    bl_report_format format;
} options;

static int set_format(void *opts, const char *v, bl_err *err)
{
    return bl_bindreport_format_parse(v, &((options *)opts)->format, err);
}

static const bl_cli_opt bindings_options[] = {
    {"--format", BL_OPT_VALUE, "F", "the report's format (default auto)",
     BL_OPT_NO_SLOT, set_format, NULL},
    {"--topology", BL_OPT_VALUE, "FILE|SYNTH", "the node that printed the "
     "report", offsetof(options, topology), NULL, NULL},
};

static const char *const help_parts[] = {help, NULL};

static const bl_cli_spec spec = {
    .verb = VERB, .help = help_parts, .opts = bindings_options,
    .nopts = BL_CLI_NOPTS(bindings_options),
    .word_slot = offsetof(options, input),
    .one_word = "one input only (got a second: '%s')"};

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    int rc;
    memset(o, 0, sizeof *o);
    o->format = BL_REPORT_AUTO;
    if ((rc = bl_cli_parse(&spec, argc, argv, o)) >= 0)
        return rc;
    if (!o->input)
        return bl_cli_usage_error(VERB, "no input: give a FILE, or - for "
                                  "standard input");
    return -1;
}

/* The whole of f in a malloc'ed, NUL-terminated buffer, at most
 * BL_BINDREPORT_INPUT_MAX bytes; NULL with errno set (EFBIG when the input
 * is larger). */
static char *slurp(FILE *f)
{
    size_t len = 0, cap = 1 << 16, limit = (size_t)BL_BINDREPORT_INPUT_MAX;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len > limit) {
            free(buf);
            errno = EFBIG;
            return NULL;
        }
        if (cap - len - 1 == 0) {
            char *p = realloc(buf, cap *= 2);
            if (!p)
                free(buf);
            buf = p;
        }
    }
    if (buf && ferror(f)) {
        free(buf);
        return NULL;
    }
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* A device or a directory is no captured output (/dev/zero never ends);
 * a file, a pipe or standard input is, within the size limit. */
static char *read_input(const char *path)
{
    FILE *f;
    char *text;
    struct stat st;
    if (strcmp(path, "-") == 0)
        return slurp(stdin);
    if (!(f = fopen(path, "r")))
        return NULL;
    if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode) &&
        !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) {
        fclose(f);
        errno = ENOTSUP;
        return NULL;
    }
    text = slurp(f);
    fclose(f);
    return text;
}

static void print_binding(hwloc_topology_t topo, const bl_binding *b)
{
    static const hwloc_obj_type_t types[] = {
        HWLOC_OBJ_CORE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_NUMANODE,
        HWLOC_OBJ_PACKAGE};
    static const char *const names[] = {"core", "l3", "numa", "package"};
    char *cpus = bl_cpuset_list_strdup(b->cpus);
    char col[4096];

    if (b->rank >= 0)
        printf("rank %d", b->rank);
    else
        printf("rank - pid %ld", b->pid);
    if (b->thread >= 0)
        printf(" thread %d", b->thread);
    printf(" host %s cpus %s", b->host[0] ? b->host : "-",
           cpus ? cpus : "?");
    for (size_t i = 0; i < 4; i++) {
        bl_topo_objs_text(topo, b->cpus, types[i], col, sizeof col);
        printf(" %s %s", names[i], col);
    }
    printf("%s\n", b->bound ? "" : " unbound");
    free(cpus);
}

static void print_rejected(const char *input, const bl_rejected_line *j)
{
    fprintf(stderr, "bindlab bindings: %s:%d: %s: '%.100s%s'\n",
            strcmp(input, "-") == 0 ? "<stdin>" : input, j->line, j->reason,
            j->text, strlen(j->text) > 100 ? "..." : "");
}

int bl_cli_bindings(int argc, char **argv)
{
    options o;
    hwloc_topology_t topo;
    bl_binding_report r;
    bl_err err;
    char *text;
    int rc = parse_args(argc, argv, &o);

    if (rc >= 0)
        return rc;
    if (!(text = read_input(o.input))) {
        if (errno == EFBIG)
            fprintf(stderr, "bindlab bindings: '%s' is larger than %ld bytes "
                    "(64 MiB), the most a captured report may have; give "
                    "the part with the report lines\n", o.input,
                    BL_BINDREPORT_INPUT_MAX);
        else if (errno == ENOTSUP)
            fprintf(stderr, "bindlab bindings: '%s' is not a regular file or "
                    "a pipe; give the captured output of a launch\n",
                    o.input);
        else
            fprintf(stderr, "bindlab bindings: cannot read '%s': %s\n",
                    o.input, strerror(errno));
        return BL_EXIT_USAGE;
    }
    if (bl_topo_load(o.topology, &topo, &err) < 0) {
        fprintf(stderr, "bindlab bindings: %s\n", err.msg);
        free(text);
        return BL_EXIT_USAGE;
    }
    rc = bl_bindreport_parse(text, o.format, topo, &r, &err);
    free(text);
    if (rc < 0) {
        fprintf(stderr, "bindlab bindings: %s\n", err.msg);
        hwloc_topology_destroy(topo);
        return BL_EXIT_FAILED;
    }
    for (size_t i = 0; i < r.count; i++)
        print_binding(topo, &r.items[i]);
    for (size_t i = 0; i < r.nrejected; i++)
        print_rejected(o.input, &r.rejected[i]);
    if (r.count == 0 && r.nrejected == 0)
        fprintf(stderr, "bindlab bindings: no binding report lines in '%s' "
                "(format %s)\n", o.input, bl_bindreport_format_name(o.format));
    rc = (r.count > 0 && r.nrejected == 0) ? BL_EXIT_OK : BL_EXIT_FAILED;
    bl_bindreport_free(&r);
    hwloc_topology_destroy(topo);
    return rc;
}
