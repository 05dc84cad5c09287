/* Layouts: one launch of bindlab-app (ranks, Open MPI map/bind/rank
 * policy, OpenMP places and binding, threads, first-touch mode, kernel).
 * This module turns a sweep description into its list of layouts (cross
 * product, exclude, explicit layouts, labels and run ids), checks each
 * layout against a node topology with the arithmetic Open MPI applies,
 * translates the user's spelling into what the installed Open MPI accepts,
 * and builds the argv for mpirun or srun. It never prints. */
#ifndef BL_LAYOUT_H
#define BL_LAYOUT_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"
#include "topo.h"
#include "proc/argv_build.h" /* bl_argv_free, for the argvs below */

/* The fields of a layout, in the order the cross product nests them (the
 * first one varies slowest) and the order the label names them. */
typedef enum bl_field {
    BL_F_KERNEL,
    BL_F_NP,
    BL_F_MAP_BY,
    BL_F_BIND_TO,
    BL_F_RANK_BY,
    BL_F_OMP_PLACES,
    BL_F_OMP_PROC_BIND,
    BL_F_THREADS,
    BL_F_INIT,
    BL_F_REPETITIONS,
    BL_F_TIMEOUT,
    BL_F_MEM_POLICY,
    BL_F_NODES,
    BL_F_NOISY,
    BL_F_RETRY,
    BL_F_OMP_RUNTIME,
    BL_F_GPU_BIND,
    BL_F_GPUS_PER_RANK,
    BL_F_COUNT
} bl_field;

/* The YAML key of a field ("map_by"). */
const char *bl_field_key(bl_field f);
/* "kernel, np, map_by, ..." for messages. */
const char *bl_field_keys(void);

/* What a mapping, binding or ranking names. PACKAGE covers both spellings,
 * "package" and "socket". */
typedef enum bl_res {
    BL_RES_NONE = 0,    /* bind_to none, or rank_by not given */
    BL_RES_HWTHREAD,
    BL_RES_CORE,
    BL_RES_L3CACHE,
    BL_RES_NUMA,
    BL_RES_PACKAGE,
    BL_RES_NODE,
    BL_RES_SLOT
} bl_res;

/* "core", "package", ... ("none" for BL_RES_NONE). */
const char *bl_res_name(bl_res r);

/* A parsed --map-by value: RESOURCE or ppr:N:RESOURCE, then modifiers. */
typedef struct bl_mapby {
    bl_res res;
    int ppr;            /* processes per resource, 0 when not ppr */
    int pe;             /* cores per rank (:PE=n), 0 when not given */
    int oversubscribe;  /* :oversubscribe */
    int span;           /* :span */
} bl_mapby;

/* A kernel entry of a sweep: the kernel and the command-line arguments of
 * bindlab-app that follow "--kernel NAME" (e.g. "--size", "256MiB"). */
#define BL_KERNEL_MAX_ARGS 24
typedef struct bl_kernel_spec {
    char name[32];      /* the app's kernel name: triad, stencil, lu */
    char label[48];     /* the entry's label; the name unless given */
    char *args[BL_KERNEL_MAX_ARGS + 1]; /* malloc'ed, NULL-terminated */
    int nargs;
} bl_kernel_spec;

#define BL_THREADS_FILL 0
#define BL_RETRY_MAX 10         /* retry: at most this many launches more */

/* One launch. Text fields keep the user's spelling; the *_launcher fields
 * hold the spelling for the detected launcher (bl_layout_translate). An
 * empty string means "not given": no --rank-by, OMP_PLACES or
 * OMP_PROC_BIND unset. */
typedef struct bl_layout {
    char run_id[16];            /* "r0007": an HDF5 group and file name */
    char name[64];              /* the explicit layout's name, or "" */
    char label[768];            /* stable, human: "triad np2 map=core ..." */
    int kernel;                 /* index into the sweep's kernels */
    int np;
    int nodes;                  /* nodes the ranks spread over; 0 = not
                                   given (the launcher's default) */
    char map_by[64];
    bl_mapby map;
    char bind_to[32];
    bl_res bind;
    char rank_by[32];
    char omp_places[128];
    char omp_proc_bind[48];
    int threads;                /* > 0, or BL_THREADS_FILL */
    int serial_init;
    char mem_policy[64];        /* app --mem-policy; "" = firsttouch */
    char noisy[64];             /* noisy neighbour (noisy.h), canonical;
                                   "" = none */
    int repetitions;
    double timeout_s;
    int retry;                  /* launches run again when they die before
                                   the app starts (sweep_retry.h); 0 none */
    char omp_runtime[16];       /* libgomp, libomp or intel (sweep_omp.h);
                                   "" = the app as it is linked */
    char gpu_bind[16];          /* each rank's GPUs dealt by the wrapper
                                   (gpu_assign.h): "closest",
                                   "round-robin", "none"; "" = not given
                                   (closest when gpus_per_rank is, else
                                   none: every rank sees every GPU) */
    int gpus_per_rank;          /* GPUs each rank is given; 0 = not given
                                   (1 when gpu_bind is) */
    char map_by_launcher[64];
    char bind_to_launcher[32];
    char rank_by_launcher[32];
    int ppn_launcher;           /* Hydra/Intel MPI -ppn for a layout with
                                   nodes (bl_layout_translate_for); 0:
                                   none */
    int src_line, src_col;      /* where the sweep file defines it */
} bl_layout;

/* Sets one field from its text (as in the sweep file), checking it.
 * "unset" (or "") clears rank_by, omp_places and omp_proc_bind. The
 * kernel field is not set here (it is an index; see bl_layout_expand). */
int bl_layout_set(bl_layout *l, bl_field f, const char *text, bl_err *err);

/* The default layout: map_by core, bind_to core, threads 1, init parallel,
 * repetitions 1, timeout 300 s, retry 0, np 0 (= not given). */
void bl_layout_defaults(bl_layout *l);

/* "core", "ppr:2:package:PE=4", "numa:pe=2:oversubscribe", ... */
int bl_layout_parse_map_by(const char *text, bl_mapby *out, bl_err *err);

/* --- expansion -------------------------------------------------------- */

/* A partial layout from the sweep file: text per field, NULL = not given. */
typedef struct bl_partial {
    char *v[BL_F_COUNT];
    char name[64];
    int line, col;
} bl_partial;

/* Axis values of the cross product: NULL / 0 = not crossed. */
typedef struct bl_axis {
    char **values;
    int n;
} bl_axis;

typedef struct bl_sweep_spec {
    bl_partial defaults;           /* applies to every layout */
    bl_axis axes[BL_F_COUNT];      /* the cross product (kernel is unused) */
    int have_axes;                 /* a sweep: section was given */
    int axes_line, axes_col;       /* where it starts, for messages */
    bl_partial *exclude;           /* drop combinations matching all keys */
    int nexclude;
    bl_partial *explicit_layouts;  /* layouts: given one by one */
    int nexplicit;
    const bl_kernel_spec *kernels;
    int nkernels;
    const char *file;              /* for messages */
} bl_sweep_spec;

/* Expands spec into *out (malloc'ed, free()) of *n layouts: for each kernel,
 * the cross product of the sweep axes minus the exclude matches, then the
 * explicit layouts (each runs every kernel unless it names one). Gives
 * run ids r0000... in that order and labels. Fails with FILE:LINE:COL on a
 * missing np, an exclude entry that matches nothing, or two layouts that
 * are the same. */
int bl_layout_expand(const bl_sweep_spec *spec, bl_layout **out, int *n,
                     bl_err *err);

/* The canonical text of one field ("fill", "parallel", "" when unset). */
void bl_layout_field_text(const bl_layout *l, bl_field f, char *buf,
                          size_t len);

/* How l deals GPUs: "closest" or "round-robin", or "" when it deals none
 * (the defaults of gpu_bind and gpus_per_rank applied). */
const char *bl_layout_gpu_bind(const bl_layout *l);

/* GPUs each rank of l is given: 0 when l deals none, else gpus_per_rank
 * (1 when not given). */
int bl_layout_gpus_per_rank(const bl_layout *l);

/* Recomputes l->label from the fields (kernel_label names the kernel). */
void bl_layout_make_label(bl_layout *l, const char *kernel_label);

/* --- validation ------------------------------------------------------- */

typedef struct bl_layout_check {
    int threads;        /* OMP_NUM_THREADS: the number, or what fill gives */
    int pus_per_rank;   /* PUs in one rank's binding */
} bl_layout_check;

/* Checks that the layout can run on topo, with the arithmetic Open MPI 4.1
 * applies (slots = cores, PE counts cores, binding more ranks than cores
 * on an object is refused). oversubscribe: the run will pass
 * --oversubscribe. Returns 0 and fills out, or -1 with a message that
 * states the arithmetic ("np 4 x PE 2 = 8 cores, but this node has 2"). */
int bl_layout_validate(const bl_layout *l, hwloc_topology_t topo,
                       int oversubscribe, bl_layout_check *out, bl_err *err);

/* One node with the ranks it gets (l->np): bl_layout_validate's check of a
 * layout without nodes. */
int bl_layout_validate_node(const bl_layout *l, hwloc_topology_t topo,
                            int oversubscribe, bl_layout_check *out,
                            bl_err *err);

/* How many of l->np ranks each of `nodes` nodes gets (ranks[k]), counted
 * from each node's own counts c[k] as Open MPI maps onto hosts given one
 * slot per core: ppr:K:node K on each in turn; map_by node round robin;
 * any other mapping fills node 0's slots (its cores / PE, at most K per
 * object for ppr:K:obj), then node 1's, ...; ranks left once every node
 * is full are dealt round robin (oversubscribed: the node's check says
 * so). */
void bl_layout_node_ranks(const bl_layout *l, const bl_topo_counts *c,
                          int nodes, int *ranks);

/* "bl2 (Intel(R) Xeon(R) CPU E5-2680 v3 @ 2.50GHz, 24 cores)": host, its
 * CPU model when topo names one, its cores. */
void bl_layout_node_name(hwloc_topology_t topo, const char *host, char *buf,
                         size_t len);

/* Nodes of different shapes under one layout: each node's counts and the
 * ranks it gets (bl_layout_node_ranks). */
typedef struct bl_layout_shares {
    int n;
    bl_topo_counts *counts;     /* counts[k]: node k's objects */
    int *ranks;                 /* ranks[k]: how many of np node k gets */
} bl_layout_shares;

/* Fills s for l->np ranks over topos[0..n-1]; -1 with err when out of
 * memory. bl_layout_shares_free frees it. */
int bl_layout_node_shares(const bl_layout *l, const hwloc_topology_t *topos,
                          int n, bl_layout_shares *s, bl_err *err);
void bl_layout_shares_free(bl_layout_shares *s);

/* Whether the nodes hold np when each is filled in turn: 0, or -1 with
 * "np 9 over 2 nodes, but they hold 8 ranks with map_by 'core' (bl1
 * (CPU model, 4 cores): 4; bl2 (...): 4)" in buf for the caller's remedy. */
int bl_layout_node_room(const bl_layout *l, const bl_layout_shares *s,
                        const hwloc_topology_t *topos,
                        const char *const *hosts, char *buf, size_t len);

/* A layout with nodes, each node checked with the ranks it gets against
 * its own topology topos[k] (hosts[k] names it in the message: "node bl2
 * (CPU model, 24 cores): ..."). out is node 0's (rank 0's node). */
int bl_layout_validate_nodes(const bl_layout *l,
                             const hwloc_topology_t *topos,
                             const char *const *hosts, int oversubscribe,
                             bl_layout_check *out, bl_err *err);

/* --- spelling for the launcher ---------------------------------------- */

/* Fills the *_launcher fields for Open MPI major.minor: 4.x wants socket
 * (it rejects package in --map-by, ppr, --bind-to and --rank-by), 5.x
 * deprecates socket for package; PE= is written in upper case, other
 * modifiers as Open MPI documents them. */
int bl_layout_translate(bl_layout *l, int ompi_major, int ompi_minor,
                        bl_err *err);

/* --- command lines ---------------------------------------------------- */

typedef struct bl_layout_argv_opts {
    const char *launcher;   /* "mpirun" or "srun" path; NULL: the name */
    const char *app;        /* path of bindlab-app */
    const char *out_file;   /* the run file, --out */
    int is_root;            /* add --allow-run-as-root (mpirun) */
    int oversubscribe;      /* add --oversubscribe and :overload-allowed */
    int threads;            /* OMP_NUM_THREADS (from bl_layout_validate) */
    int pus_per_rank;       /* srun -c (from bl_layout_validate) */
    const char *hosts;      /* mpirun --host for a layout with nodes:
                               "bl1:2,bl2:2" (the allocation's first
                               nodes, slots = cores); Hydra and Intel
                               MPI's -hosts: "bl1,bl2"; NULL: none */
    char *const *program;   /* the ranks' program and its arguments
                               (NULL-terminated) instead of bindlab-app
                               (`bindlab run`); NULL: bindlab-app */
    const char *gpu_wrap;   /* bindlab-gpu-wrap's path, put before the
                               program when the layout deals GPUs; NULL:
                               the name (found in PATH) */
    char *const *rank_env;  /* more "NAME=VALUE" for every rank, passed
                               with the launcher's export words after the
                               OpenMP ones (NULL-terminated, or NULL) */
} bl_layout_argv_opts;

/* mpirun -np N --map-by M --bind-to B [--rank-by R] --report-bindings
 * -x OMP_NUM_THREADS=T [-x OMP_PLACES=P] [-x OMP_PROC_BIND=B]
 * -x OMP_DISPLAY_AFFINITY=true APP --kernel K ARGS --init I --out FILE;
 * --host HOSTS when o->hosts is given (a layout with nodes).
 * Uses the *_launcher spelling (call bl_layout_translate first). Returns a
 * malloc'ed NULL-terminated argv (free with bl_argv_free), or NULL. */
char **bl_layout_mpirun_argv(const bl_layout *l, const bl_kernel_spec *k,
                             const bl_layout_argv_opts *o, bl_err *err);

/* srun -n N [-N NODES] -c C --cpu-bind=verbose,KIND --distribution=D
 * --export=ALL,OMP_... APP ...: KIND from bind_to (threads, cores, ldoms,
 * sockets, none), D from map_by / rank_by (block or cyclic at node and
 * socket level). Fails for what srun cannot express (l3cache binding). */
char **bl_layout_srun_argv(const bl_layout *l, const bl_kernel_spec *k,
                           const bl_layout_argv_opts *o, bl_err *err);

/* Frees the args of a kernel entry. */
void bl_kernel_spec_clear(bl_kernel_spec *k);

#endif
