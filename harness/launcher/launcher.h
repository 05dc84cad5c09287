/* One interface for every launcher bindlab starts ranks with, as
 * kernels/kernel.h is for kernels and hwloc's binding hooks are for
 * operating systems: the sweep and the plan call a launcher's operations
 * and never name it. A launcher is one file (launcher_NAME.c) filling one
 * bl_launcher_ops, and one entry in launcher_table.c.
 *
 * Its operations: recognise its `--version` answer (detect and version),
 * spell a layout in its options or say why it cannot (translate), write
 * its part of the command line for a run or for a plan (command; the
 * plan's command is the run's plus the plan mode's additions, built by
 * the same code), name the binding-report format it prints (read by
 * harness/bindreport/), and say how `bindlab plan` can ask it. */
#ifndef BL_LAUNCHER_H
#define BL_LAUNCHER_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"
#include "proc/argv_build.h"
#include "launcher/launcher_info.h"
#include "layout/layout.h"

/* What `bindlab plan` adds to a run's command (NULL plan: a real run). */
typedef struct bl_plan_mode {
    int launched;             /* ranks started as /bin/true under the
                               * binding report, not the launcher's dry
                               * run */
    int nodes;                /* > 1: a plan over made-up hosts (o->hosts) */
    const char *program;      /* what each rank runs: "/bin/true" */
    const char *xml;          /* HWLOC_XMLFILE (the node planned for), or
                               * NULL: this machine */
    const char *preload;      /* LD_PRELOAD library, or NULL */
    const char *preload_cpus; /* BINDLAB_PRELOAD_CPUS: the node's PUs */
} bl_plan_mode;

/* A command being built: the argv, the environment entries added for the
 * launcher, and which argv words the plan mode added. */
typedef struct bl_cmd {
    bl_argv_build argv;
    bl_argv_build env;        /* "NAME=VALUE" */
    const bl_plan_mode *plan; /* NULL: a run */
    size_t *planned;          /* argv indexes the plan mode added */
    size_t nplanned, cap;
    size_t app_at;            /* argv index of the program the ranks run */
    int failed;
} bl_cmd;

/* A word of every command. */
void bl_cmd_add(bl_cmd *c, const char *word);
void bl_cmd_addf(bl_cmd *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A word only a plan has (nothing in a run), marked as the plan's. */
void bl_cmd_plan_add(bl_cmd *c, const char *word);
void bl_cmd_plan_addf(bl_cmd *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* NAME=VALUE in the launcher's environment, in a plan only. */
void bl_cmd_plan_env(bl_cmd *c, const char *name, const char *value);

/* The variables every rank of l gets, in order, each handed to
 * put(ctx, NAME, VALUE): OMP_NUM_THREADS (o->threads), OMP_PLACES and
 * OMP_PROC_BIND when l sets them, the affinity display bindreport
 * reads (OMP_DISPLAY_AFFINITY, OMP_AFFINITY_FORMAT), then o->rank_env. */
void bl_launcher_omp_env(const bl_layout *l, const bl_layout_argv_opts *o,
                         void (*put)(void *ctx, const char *name,
                                     const char *value),
                         void *ctx);

/* How `bindlab plan` learns where a launcher puts ranks. */
typedef enum bl_plan_way {
    BL_PLAN_CANNOT = 0,  /* it cannot be asked about a node it is not on */
    BL_PLAN_DRY_RUN,     /* it maps without launching anything */
    BL_PLAN_TRUE_RANKS,  /* it starts /bin/true ranks and reports how it
                          * bound them (the preload records, not applies) */
    BL_PLAN_MODELLED,    /* bindlab models it (it pins inside MPI_Init) */
} bl_plan_way;

/* How a layout with nodes names its hosts on the command line. */
typedef enum bl_hosts_form {
    BL_HOSTS_NONE = 0,   /* the launcher takes the allocation's nodes */
    BL_HOSTS_NAMES,      /* "bl1,bl2" (-ppn says how many ranks each) */
    BL_HOSTS_SLOTS,      /* "bl1:24,bl2:24": one slot per core */
} bl_hosts_form;

typedef struct bl_launcher_ops {
    const char *name;     /* the --launcher word: "ompi4", "mpich" */
    const char *title;    /* its kind in messages: "Open MPI" */
    const char *family;   /* what --launcher NAME asks for: "Open MPI 5" */
    int family_major;     /* the major version NAME asks for; 0: any */
    bl_launcher_kind kind;
    const char *program;  /* started as when no path is given */
    const char *record_as;/* the run record's launcher field */

    /* --- detect and version ------------------------------------------ */
    /* 1: asked only when named (its own --version, never found behind
     * mpirun); 0: one of the MPI launchers `mpirun` may turn out to be */
    int named_only;
    /* 0 with out filled when text (its `program --version`) is this
     * launcher's, else -1 (out left dirty) */
    int (*parse_version)(const char *text, bl_launcher_info *out);
    /* 1 when a detected launcher is this entry (a version range); NULL:
     * every launcher of its kind is */
    int (*is)(const bl_launcher_info *li);

    /* --- a layout in its options -------------------------------------- */
    /* Fills l's *_launcher fields, or -1 with err saying what it cannot
     * express and why (topo: the node, for counts some spellings need). */
    int (*translate)(bl_layout *l, const bl_launcher_info *li,
                     hwloc_topology_t topo, bl_err *err);
    /* 1: a translate failure is this launcher's answer about the layout
     * (the plan shows it as a refusal); 0: it is bad input */
    int translate_refuses;
    /* Its words of l's command (from the program to the last option
     * before the ranks' program); the plan's additions through
     * bl_cmd_plan_*. -1 with err when it cannot express l. */
    int (*command)(bl_cmd *c, const bl_layout *l, const bl_launcher_info *li,
                   const bl_layout_argv_opts *o, bl_err *err);
    bl_hosts_form hosts;
    /* 1: it starts its own allocation for a layout with nodes (srun) */
    int makes_allocation;

    /* --- its binding report (bindreport format names) ----------------- */
    const char *report_format;      /* a run's */
    const char *plan_report_format; /* its answer to a plan */

    /* --- bindlab plan ------------------------------------------------ */
    bl_plan_way plan_way;
    int plan_dry_since;       /* BL_PLAN_DRY_RUN from this major version
                               * on; before it, /bin/true ranks */
    /* how it answered, in the plan's words: its dry run, and /bin/true
     * ranks started (NULL when it cannot) */
    const char *plan_dry_how, *plan_launched_how;
    int plan_needs_preload;   /* even for its dry run */
    int plan_job_map;         /* its dry run prints Open MPI 4's job map,
                               * turned into report lines */
    int plan_node_by_node;    /* over nodes, its dry run is asked node by
                               * node (its whole-job map would differ from
                               * a real launch) */
    int plan_shapes;          /* it can plan nodes of different shapes */
    /* what each rank runs in a plan over nodes ("/usr/bin/env": its
     * labelled PMI_HOSTNAME names the rank's node); NULL: the job map
     * names it */
    const char *plan_nodes_program;
} bl_launcher_ops;

/* How bindlab plan asks li's launcher (ops: its entry). */
bl_plan_way bl_launcher_plan_way(const bl_launcher_ops *ops,
                                 const bl_launcher_info *li);

/* The entry for a detected launcher, or NULL when none claims it. */
const bl_launcher_ops *bl_launcher_ops_of(const bl_launcher_info *li);
/* The entry named name ("ompi5"), or NULL. */
const bl_launcher_ops *bl_launcher_ops_named(const char *name);
/* The i-th entry (0..), or NULL past the last. */
const bl_launcher_ops *bl_launcher_ops_at(size_t i);

/* Adds an entry after the built-in ones (a test's fake launcher): 0, or
 * -1 when the table is full. Not thread-safe; call before any lookup. */
int bl_launcher_register(const bl_launcher_ops *ops);

/* One launcher command: argv, and the environment entries to add for the
 * launcher (NULL when none). app_at: the argv index of the program the
 * ranks run; planned[0..nplanned): the argv words the plan mode added. */
typedef struct bl_command {
    char **argv;
    char **env;
    size_t app_at;
    size_t *planned;
    size_t nplanned;
} bl_command;

/* The one command builder, for the sweep, the plan and `bindlab run`:
 * li's launcher (its entry's command) for layout l (translated for li),
 * then the ranks' program: bindlab-app (k, o->app, o->out_file) for a
 * run, o->program when set (k unused), plan->program for a plan, with
 * the plan's environment (HWLOC_XMLFILE, preload). */
int bl_launcher_command(const bl_launcher_info *li, const bl_layout *l,
                        const bl_kernel_spec *k, const bl_layout_argv_opts *o,
                        const bl_plan_mode *plan, bl_command *out,
                        bl_err *err);
void bl_command_free(bl_command *c);

/* l translated for li's launcher (its entry's translate). */
int bl_launcher_translate(bl_layout *l, const bl_launcher_info *li,
                          hwloc_topology_t topo, bl_err *err);

#endif
