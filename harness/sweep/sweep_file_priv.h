/* Shared by sweep_file*.c only: the state of reading one sweep file and the
 * readers of its parts. sweep_file_yaml.c: libyaml nodes, with every error
 * at FILE:LINE:COLUMN; sweep_file_kernels.c: kernels:; sweep_file_app.c:
 * app:;
 * sweep_file_fields.c: layout fields (defaults:, sweep:, exclude:,
 * layouts:); sweep_file.c: the top-level keys and the whole load. */
#ifndef BL_SWEEP_FILE_PRIV_H
#define BL_SWEEP_FILE_PRIV_H
#ifndef BL_ROOM_SWEEP
#error "sweep/sweep_file_priv.h is internal to harness/sweep/"
#endif

#include <stddef.h>

#include <yaml.h>

#include "err.h"
#include "sweep/sweep_app.h"
#include "sweep/sweep_spec.h"

typedef struct bl_sf_ctx {
    const char *file;
    yaml_document_t doc;
    bl_err *err;
    char **strs;            /* every string the spec points to */
    int nstrs;
    size_t capstrs;
    bl_sweep_spec spec;
    bl_kernel_spec *kernels;
    int nkernels;
    bl_sweep *out;
    long max_runs;          /* max_runs:, or 0: BL_SWEEP_RUNS_MAX */
    bl_app_spec *app;       /* app:, or NULL */
} bl_sf_ctx;

/* --- sweep_file_yaml.c --------------------------------------------------- */

static inline yaml_node_t *bl_sf_node(bl_sf_ctx *c, int id)
{
    return yaml_document_get_node(&c->doc, id);
}

static inline const char *bl_sf_text(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* Sets c->err to "FILE:LINE:COLUMN: message" at node n (1:1 when n is
 * NULL); returns -1. */
int bl_sf_fail_at(bl_sf_ctx *c, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A copy of s kept until the load ends (the spec points to it); NULL when
 * out of memory. */
char *bl_sf_keep(bl_sf_ctx *c, const char *s);
/* A plain scalar YAML reads as null: "", ~, null, Null, NULL. */
int bl_sf_is_null(const yaml_node_t *n);
/* "a mapping", "a list" or "a single value", for messages. */
const char *bl_sf_kind_name(const yaml_node_t *n);
/* 0 if n is of type, else an error naming what (-1). */
int bl_sf_expect(bl_sf_ctx *c, const yaml_node_t *n, yaml_node_type_t type,
                 const char *what);
/* The index of p's key in the NULL-terminated keys, or an error listing
 * them (-1). Also rejects a key given twice in one mapping. */
int bl_sf_key_index(bl_sf_ctx *c, const yaml_node_t *map,
                    const yaml_node_pair_t *p, const char *const *keys,
                    const char *section);

/* --- sweep_file_kernels.c ------------------------------------------------ */

/* kernels: into c->kernels, c->nkernels. */
int bl_sf_kernels(bl_sf_ctx *c, const yaml_node_t *n);

/* --- sweep_file_app.c -------------------------------------------------- */

/* app: into c->app, and the one kernel entry standing for the program. */
int bl_sf_app(bl_sf_ctx *c, const yaml_node_t *n);

/* --- sweep_file_fields.c ------------------------------------------------- */

/* A mapping of layout fields: defaults:, an exclude entry, a layout. */
int bl_sf_partial(bl_sf_ctx *c, const yaml_node_t *n, bl_partial *out,
                  int allow_kernel, int allow_name, const char *section);
/* A list of such mappings (exclude:, layouts:). */
int bl_sf_partials(bl_sf_ctx *c, const yaml_node_t *n, bl_partial **out,
                   int *count, int allow_name, const char *section);
/* sweep: each field is one value or a list, crossed with the others. */
int bl_sf_axes(bl_sf_ctx *c, const yaml_node_t *n);

#endif
