/* Which run a record is: a sweep's runs are told apart by what they are
 * (the kernel and its arguments, or an app's command and environment, the
 * layout's label, the repetition), not by their run ids alone, which a
 * changed sweep file may give to other runs. --resume keeps every record
 * and refuses a sweep file whose run id now means another run; merge keeps
 * runs of different sweeps apart. docs/sweep-runs.md. */
#ifndef BL_SWEEP_IDENTITY_H
#define BL_SWEEP_IDENTITY_H

#include "sweep/sweep_item.h"

/* DIR/<run_id>.h5: the run's record. */
void bl_sweep_item_path(const bl_sweep_ctx *c, const bl_sweep_item *it,
                       char *buf, size_t len);

/* The text of what it is (malloc'ed; NULL when memory runs out). */
char *bl_sweep_item_fingerprint(const bl_sweep_ctx *c,
                                const bl_sweep_item *it);

/* For --resume: every item whose record exists and reads back must be the
 * run the record holds (its fingerprint; for a record written before
 * fingerprints, its label and repetition). 0, or -1 with err naming the
 * first run id that now means another run, both descriptions and the
 * words that differ. Nothing is written either way. */
int bl_sweep_identity_check(const bl_sweep_ctx *c, bl_err *err);

#endif
