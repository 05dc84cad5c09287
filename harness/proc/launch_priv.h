/* Shared by launch.c and launch_output.c only: what a run's output goes
 * into while it runs (the capture kept in memory, head and tail, and the
 * optional log files written as PATH.part and renamed when the run ends). */
#ifndef BL_LAUNCH_PRIV_H
#define BL_LAUNCH_PRIV_H
#ifndef BL_ROOM_PROC
#error "proc/launch_priv.h is internal to harness/proc/: include the room's public header"
#endif

#include "proc/launch.h"

void bl_launch_output_init(bl_launch_output *o, size_t head_max,
                           size_t tail_max);
void bl_launch_output_add(bl_launch_output *o, const char *p, size_t n);
void bl_launch_output_finish(bl_launch_output *o);

typedef struct bl_launch_logfile {
    const char *path;
    char *part;
    int fd;
    int dirfd;  /* AT_FDCWD, or the directory the names are relative to */
} bl_launch_logfile;

/* path NULL: no log (fd -1). dirfd NULL: path as given; else path's last
 * component in the directory held open as *dirfd (path names it). */
int bl_launch_log_open(bl_launch_logfile *l, const int *dirfd,
                       const char *path, bl_err *err);
void bl_launch_log_write(int fd, const char *p, size_t n, int *log_errno);
/* keep: rename PATH.part to PATH, else remove it. */
void bl_launch_log_close(bl_launch_logfile *l, int keep, int *log_errno);

#endif
