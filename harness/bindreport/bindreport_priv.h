/* Shared by the bindreport*.c files only: one parser per format, each
 * reading one line. */
#ifndef BL_BINDREPORT_PRIV_H
#define BL_BINDREPORT_PRIV_H
#ifndef BL_ROOM_BINDREPORT
#error "bindreport/bindreport_priv.h is internal to harness/bindreport/: include the room's public header"
#endif

#include <stddef.h>

#include "bindreport/bindreport.h"

#define BL_REASON_MAX 160

/* What a line parser says about one line. */
enum {
    BL_LINE_OTHER = 0,  /* not a line of this format: ignore it */
    BL_LINE_OK = 1,     /* read completely into the binding */
    BL_LINE_BAD = -1    /* a line of this format that cannot be read:
                         * reason says why */
};

/* Parses one line (no newline) into b, whose cpus bitmap is allocated and
 * empty and whose other fields are preset (rank/thread/pid/local_rank -1,
 * host "", bound 1). Returns one of the BL_LINE_* values. */
typedef int (*bl_line_parser)(const char *line, hwloc_topology_t topo,
                              bl_binding *b, char *reason);

int bl_bindreport_ompi4_line(const char *line, hwloc_topology_t topo,
                             bl_binding *b, char *reason);
int bl_bindreport_ompi5_line(const char *line, hwloc_topology_t topo,
                             bl_binding *b, char *reason);
int bl_bindreport_slurm_line(const char *line, hwloc_topology_t topo,
                             bl_binding *b, char *reason);
int bl_bindreport_hydra_line(const char *line, hwloc_topology_t topo,
                             bl_binding *b, char *reason);
int bl_bindreport_impi_line(const char *line, hwloc_topology_t topo,
                            bl_binding *b, char *reason);
int bl_bindreport_omp_line(const char *line, hwloc_topology_t topo,
                           bl_binding *b, char *reason);

/* PRRTE's --display map (bindreport_prrte_map.c): a rank's record spans
 * several lines, so its parser keeps this state between them. */
typedef struct bl_prrte_map_state {
    char host[64];      /* the node of the current "Data for node" block */
    int rank;           /* the rank whose Binding: line is due, or -1 */
    int line;           /* where that rank's record starts */
} bl_prrte_map_state;

/* 1 when the line starts a rank's record ("Data for proc: ["). */
int bl_bindreport_prrte_map_claims(const char *line);
/* One line of the map: BL_LINE_OK on a Binding: line (b filled), OTHER on
 * the other lines of a record (the state follows them), BAD as usual. */
int bl_bindreport_prrte_map_line(bl_prrte_map_state *st, const char *line,
                                 hwloc_topology_t topo, bl_binding *b,
                                 char *reason);
/* After the last line: BAD when a record was left without its Binding:. */
int bl_bindreport_prrte_map_end(bl_prrte_map_state *st, char *reason);

/* Helpers for the parsers (bindreport_lines.c). */

/* Formats reason and returns BL_LINE_BAD. */
int bl_line_bad(char *reason, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Reads a non-negative decimal at *p (no sign, at most 9 digits), advances
 * *p; -1 when there is none. */
long bl_line_number(const char **p);

/* If s starts with prefix, returns the text after it, else NULL. */
const char *bl_line_skip(const char *s, const char *prefix);

/* Checks that every PU of set exists in topo; BL_LINE_OK or BL_LINE_BAD. */
int bl_line_check_pus(hwloc_topology_t topo, hwloc_const_bitmap_t set,
                      char *reason);

/* Copies at most len characters of s into host (NUL-terminated, cut to
 * fit); BL_LINE_BAD when the name does not fit. */
int bl_line_host(char host[64], const char *s, size_t len, char *reason);

/* Open MPI's "[host:pid] " prefix: fills host when present, returns the
 * text after it (or line itself when there is no such prefix). */
const char *bl_line_ompi_prefix(const char *line, bl_binding *b);

#endif
