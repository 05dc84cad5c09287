/* The stencil's row functions of one ISA level (stencil_rows_isa.c,
 * compiled once per level): the sweep calls the level's table. */
#ifndef BL_STENCIL_ROWS_H
#define BL_STENCIL_ROWS_H

/* Sweeps `nrows` rows of `n` points: row q reads c + q*ld and writes
 * o + q*ld. */
typedef void (*bl_stencil_rows_fn)(const double *c, double *o, long n,
                                   long ld, long nrows);

typedef struct bl_stencil_rows {
    bl_stencil_rows_fn normal[5];    /* by radius 1..4 (0: as 1) */
    bl_stencil_rows_fn streaming[5]; /* non-temporal stores; NULL without */
    void (*fence)(void);             /* orders streaming stores; NULL: the
                                      * level has none (generic) */
} bl_stencil_rows;

#endif
