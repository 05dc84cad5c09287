#include "sweep/sweep_lock.h"
#include "sweep/sweep_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys_util.h"

#define POLL_MS 20
#define UNLISTED_TRIES 50 /* x POLL_MS */

static int alive(pid_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* A PID that took a conflicting flock on fd's file, from /proc/locks (for
 * an exclusive request any holder, for a shared one a writer): a live one
 * when there is one, or 0 when none is listed. */
static pid_t holder(int fd, int want_exclusive)
{
    struct stat st;
    char line[256];
    pid_t found = 0;
    FILE *f;
    if (fstat(fd, &st) != 0 || !(f = fopen("/proc/locks", "re")))
        return 0;
    while (!alive(found) && fgets(line, sizeof line, f)) {
        char kind[16], mode[16];
        unsigned maj, min;
        unsigned long ino;
        int pid;
        /* "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters have
         * "->" after the number and are not holders */
        if (strstr(line, "->") ||
            sscanf(line, "%*d: %15s %*s %15s %d %x:%x:%lu", kind, mode, &pid,
                   &maj, &min, &ino) != 6)
            continue;
        if (strcmp(kind, "FLOCK") == 0 && ino == (unsigned long)st.st_ino &&
            (want_exclusive || strcmp(mode, "WRITE") == 0))
            found = (pid_t)pid;
    }
    fclose(f);
    return found;
}

static int take_one(int *out, int dirfd, const char *path, int exclusive,
                    double wait_s, FILE *progress, bl_err *err)
{
    int op = (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
    int fd = bl_sweep_dir_open(dirfd, path, O_RDWR | O_CREAT, "sweep lock", err);
    double until = 0.0;
    int unlisted = 0;
    if (fd < 0)
        return -1;
    while (flock(fd, op) != 0) {
        pid_t pid;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK) {
            bl_err_set(err, "%s: cannot lock: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        pid = holder(fd, exclusive);
        /* No holder listed: it let go between the flock and the read of
         * /proc/locks; try again a little before calling it a mystery. */
        if (pid == 0 && ++unlisted < UNLISTED_TRIES) {
            struct timespec ts = {0, POLL_MS * 1000 * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        if (alive(pid) || pid == 0) {
            char who[32] = "another process";
            if (pid > 0)
                snprintf(who, sizeof who, "PID %d", (int)pid);
            bl_err_set(err, "another bindlab sweep (%s) is running on the "
                       "same results (%s is locked): wait for it to end, or "
                       "give this one another --results directory", who, path);
            close(fd);
            return -3;
        }
        /* Its harness is dead; its supervisor is killing the run it left. */
        if (until == 0.0) {
            until = bl_now_s() + wait_s;
            if (progress) {
                fprintf(progress, "waiting for the run left by a killed "
                        "sweep (PID %d) to end\n", (int)pid);
                fflush(progress);
            }
        } else if (bl_now_s() > until) {
            bl_err_set(err, "%s is still locked %.0f s after its sweep (PID "
                       "%d) died: a process of its last run survives; end "
                       "it (see fuser %s) and retry", path, wait_s, (int)pid,
                       path);
            close(fd);
            return -3;
        }
        struct timespec ts = {0, POLL_MS * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (exclusive) {  /* for people: the PID that holds it */
        char text[32];
        int n = snprintf(text, sizeof text, "%d\n", (int)getpid());
        if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n) {
            /* the lock is what matters; the text is a courtesy */
        }
    }
    *out = fd;
    return 0;
}

int bl_sweep_lock_take(bl_sweep_lock *l, int dirfd, const char *dir,
                       int shard,
                       int nshards, double wait_s, FILE *progress,
                       bl_err *err)
{
    char path[PATH_MAX];
    int rc;
    l->fd[0] = l->fd[1] = -1;
    if (bl_textf(path, sizeof path, "%s/.lock", dir) < 0)
        return bl_err_set(err, "%s: path too long", dir);
    rc = take_one(&l->fd[0], dirfd, path, nshards <= 0, wait_s, progress, err);
    if (rc < 0 || nshards <= 0)
        return rc;
    if (bl_textf(path, sizeof path, "%s/.lock.shard-%d-of-%d", dir, shard,
                 nshards) < 0)
        rc = bl_err_set(err, "%s: path too long", dir);
    else
        rc = take_one(&l->fd[1], dirfd, path, 1, wait_s, progress, err);
    if (rc < 0)
        bl_sweep_lock_release(l);
    return rc;
}

void bl_sweep_lock_release(bl_sweep_lock *l)
{
    for (int i = 0; i < 2; i++) {
        if (l->fd[i] >= 0)
            close(l->fd[i]);  /* drops the flock */
        l->fd[i] = -1;
    }
}
