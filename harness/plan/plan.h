/* A placement plan: where each rank and each of its OpenMP threads would
 * run on a node, possibly one bindlab is not running on (a topology file).
 * Ranks come from the launcher's own mapper where it can be asked (Open
 * MPI, MPICH's Hydra: plan_ranks.c) and from a model of Intel MPI's pinning
 * otherwise (plan_ranks_impi.c), threads from the
 * OpenMP places model (plan_omp.c); plan_output.c shows the result and
 * its warnings. This header only holds the shared types. */
#ifndef BL_PLAN_H
#define BL_PLAN_H

#include <stddef.h>

#include <hwloc.h>

#include "err.h"
#include "launcher/launcher_info.h"

/* What is planned: the launcher's options and the OpenMP settings. */
typedef struct bl_plan_request {
    const char *topology;       /* hwloc XML path or synthetic description;
                                 * NULL/"" = this machine */
    int np;
    const char *map_by;         /* as the user writes it ("ppr:1:package:PE=4") */
    const char *bind_to;        /* none/hwthread/core/l3cache/numa/package */
    const char *rank_by;        /* NULL/"" when not given */
    int threads;                /* > 0, or 0 = fill (the PUs of the binding) */
    const char *omp_places;     /* NULL/"" = unset */
    const char *omp_proc_bind;  /* NULL/"" = unset */
    const char *launcher_program;          /* NULL: "mpirun" in PATH */
    const bl_launcher_info *launcher_info; /* its --version answer
                                            * (bl_launcher_choose); NULL:
                                            * asked in plan_ranks.c */
    int nodes;                  /* nodes of this topology the ranks spread
                                 * over; 0 or 1 = one node */
} bl_plan_request;

typedef struct bl_plan_thread {
    int rank, thread;
    hwloc_bitmap_t pus;         /* OS indexes the thread may run on */
    int place;                  /* its place number, -1 when not bound */
} bl_plan_thread;

typedef struct bl_plan {
    int nranks;
    hwloc_bitmap_t *rank_pus;   /* [nranks]: each rank's binding (OS indexes) */
    int *rank_bound;            /* [nranks]: 0 when the launcher left it unbound */
    bl_plan_thread *threads;    /* ordered by rank, then thread */
    size_t nthreads;
    char launcher[128];         /* "Open MPI 4.1.4": whose mapper answered */
    char how[512];              /* how the ranks were placed, for people:
                                 * the launcher's own mapper and how it was
                                 * asked, or "modelled by bindlab: ..." */
    int modelled;               /* 1 when bindlab, not the launcher, placed
                                 * the ranks (Intel MPI) */
    char runtime[64];           /* the OpenMP runtime modelled: "libgomp" */
    char refusal[2048];         /* Open MPI's message when it refused the
                                 * layout ("" otherwise); then no ranks */
    int nnodes;                 /* nodes planned (1 without --nodes) */
    int *rank_node;             /* [nranks]: the node (0-based) each rank
                                 * lands on; NULL on one node */
    char split[512];            /* nodes of different shapes: how bindlab
                                 * dealt the ranks to the nodes (the
                                 * launcher then placed each node's share
                                 * on that node's topology); "" otherwise */
    int *rank_id;               /* [nranks]: the rank number of entry r in
                                 * one node's part of a plan of several
                                 * (plan_nodes.h); NULL: entry r is rank r */
} bl_plan;

/* The rank number of entry r of p (what every output shows). */
int bl_plan_rank_number(const bl_plan *p, int r);

/* 1 when rank entry r of p runs on the node p describes (its PUs are not
 * empty). */
int bl_plan_rank_here(const bl_plan *p, int r);

void bl_plan_free(bl_plan *p);

#endif
