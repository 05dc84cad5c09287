/* Shared by the launcher_*.c files only: the pieces two launchers have in
 * common (Open MPI 4 and 5's mpirun, MPICH's and Intel MPI's Hydra), and
 * the version-number reader every --version parser uses. */
#ifndef BL_LAUNCHER_PRIV_H
#define BL_LAUNCHER_PRIV_H
#ifndef BL_ROOM_LAUNCHER
#error "launcher/launcher_priv.h is internal to harness/launcher/: include launcher/launcher.h"
#endif

#include "launcher/launcher.h"

/* Reads "4.1.4", "5.0.0rc12", "2021.8" at p into info (major, minor,
 * patch; the printed token in info->version). 0 when the major number is
 * there. */
int bl_launcher_parse_numbers(const char *p, bl_launcher_info *info);

/* The start of the line of text holding needle, or NULL. */
const char *bl_launcher_line_with(const char *text, const char *needle);

/* --- Open MPI's mpirun (launcher_ompi.c) ---------------------------- */

#define BL_OMPI_LAUNCHED_HOW "mpirun started /bin/true as each rank on the " \
    "node (HWLOC_XMLFILE) and reported the bindings it made " \
    "(--report-bindings); the preload library recorded them"

/* "mpirun (Open MPI) 4.1.4", "(Open RTE)", "(OpenRTE)": any version. */
int bl_ompi_parse_version(const char *text, bl_launcher_info *out);
/* bl_layout_translate for li's version. */
int bl_ompi_translate(bl_layout *l, const bl_launcher_info *li,
                      hwloc_topology_t topo, bl_err *err);
/* mpirun's words for l, run and plan alike, and a plan's --do-not-launch
 * (what else a dry run needs differs between 4 and 5). */
int bl_ompi_command(bl_cmd *c, const bl_layout *l,
                    const bl_launcher_info *li, const bl_layout_argv_opts *o,
                    bl_err *err);

/* --- Hydra: MPICH's and Intel MPI's mpiexec (hydra_common.c) -------- */

/* What both refuse alike: ranking, span, ppr below the node, PE over
 * nodes. who: "MPICH", "Intel MPI". */
int bl_hydra_common_check(const bl_layout *l, const char *who, bl_err *err);
/* Hydra's -map-by / -bind-to name of a level; NULL for none. */
const char *bl_hydra_obj(bl_res r);
/* Sets l->ppn_launcher for a layout with nodes after a translation (rc
 * 0): -1 with err when it cannot be counted. */
int bl_hydra_set_ppn(bl_layout *l, hwloc_topology_t topo, bl_err *err);
/* -genv NAME VALUE */
void bl_hydra_genv(bl_cmd *c, const char *name, const char *value);
/* -np N [-ppn P] */
void bl_hydra_counts(bl_cmd *c, const bl_layout *l);
/* -genv OMP_* for o->threads and l's OpenMP settings */
void bl_hydra_omp(bl_cmd *c, const bl_layout *l, const bl_layout_argv_opts *o);
/* "-genv NAME VALUE" from "NAME=VALUE" (a translated Intel MPI field) */
void bl_hydra_genv_pair(bl_cmd *c, const char *kv);

#endif
