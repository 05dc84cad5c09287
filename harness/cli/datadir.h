/* Where bindlab's shipped data (sweeps, topologies) lives, and short
 * names for it: `bindlab plan --topology qemu-2s`, `bindlab sweep default`. */
#ifndef BL_DATADIR_H
#define BL_DATADIR_H

#include <stddef.h>

#include "err.h"

/* The sweep file `bindlab sweep` runs when given none, relative to the
 * current directory (the source tree); the shipped one when that is absent. */
#define BL_DEFAULT_SWEEP "configs/sweeps/default.yaml"

/* The data directory, found relative to the running bindlab so that an
 * installed tree can be moved: BINDIR/../share/bindlab (an install), else
 * the source tree's configs/ (bindlab run from its build tree). Both hold
 * sweeps/ and topologies/. Returns 0, or -1 with err naming the places
 * looked in. */
int bl_data_dir(char *buf, size_t len, bl_err *err);

/* A file argument that may be a shipped short name: `name` itself when it
 * exists; else, for a name without '/', DATADIR/SUB/NAME or
 * DATADIR/SUB/NAME.EXT when that exists (written to buf). Returns buf or
 * name, never NULL; a name that is neither is returned as given so that the
 * caller's own "no such file" error names what the user typed. */
const char *bl_data_resolve(const char *sub, const char *ext,
                            const char *name, char *buf, size_t len);

/* A sweep file argument: bl_data_resolve("sweeps", ".yaml", ...), and
 * BL_DEFAULT_SWEEP, when absent here, is the shipped default.yaml. */
const char *bl_data_sweep(const char *name, char *buf, size_t len);

#endif
