/* The app: block of a sweep file: a program of anyone's, launched for each
 * layout as `bindlab run` launches one (under the probe), its argv and
 * environment written with {name} placeholders filled from the layout, and
 * how its rate is read from its output. docs/sweep-files.md. */
#ifndef BL_SWEEP_APP_H
#define BL_SWEEP_APP_H

#include <stddef.h>

#include "err.h"
#include "layout/layout.h"

typedef struct bl_app_spec {
    char **command;         /* argv templates, NULL-terminated */
    int ncommand;
    char **env_names;       /* env: NAME -> value template */
    char **env_values;
    int nenv;
    char *rate_regex;       /* POSIX extended; NULL: wall time (runs/s) */
    char *rate_unit;        /* "runs/s" when rate_regex is NULL */
    int higher_is_better;   /* 1 unless rate: says false */
} bl_app_spec;

/* The placeholders a template may use, NULL-terminated: np, threads,
 * nodes, map_by, bind_to, rank_by, omp_places, omp_proc_bind, run_id,
 * repetition. */
extern const char *const bl_app_placeholders[];

/* Checks tmpl: every '{' opens a known {name} ("{{" and "}}" are the
 * braces themselves). 0, or -1 with err saying which name or brace is
 * wrong (no position: the reader adds it). */
int bl_app_template_check(const char *tmpl, bl_err *err);

/* What a placeholder becomes for one run: the layout's values, threads
 * as resolved for the node (a layout's "fill" is a number by then). */
typedef struct bl_app_values {
    const bl_layout *layout;
    int threads;
    int repetition;
} bl_app_values;

/* tmpl with its placeholders filled, malloc'ed; NULL with err when tmpl
 * does not pass bl_app_template_check or memory runs out. */
char *bl_app_substitute(const char *tmpl, const bl_app_values *v,
                        bl_err *err);

void bl_app_spec_free(bl_app_spec *a);

#endif
