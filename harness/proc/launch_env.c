#include "proc/launch_env.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int bl_launch_env_blocked(char *why, size_t len)
{
    char cwd[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    struct stat st;
    why[0] = '\0';
    if (!getcwd(cwd, sizeof cwd) && errno == ENOENT) {
        snprintf(why, len, "the working directory was removed (the "
                 "environment, not the layout)");
        return 1;
    }
    /* a TMPDIR that does not exist is left to the launcher, which falls
     * back to /tmp; one that exists and cannot take a directory (tried:
     * root passes access(2) on /proc) fails every launch */
    if (tmp && *tmp && stat(tmp, &st) == 0) {
        char probe[PATH_MAX];
        const char *no = NULL;
        if (!S_ISDIR(st.st_mode))
            no = "not a directory";
        else if (snprintf(probe, sizeof probe, "%s/.bindlab-XXXXXX", tmp) <
                     (int)sizeof probe &&
                 !mkdtemp(probe))
            no = strerror(errno);
        else
            rmdir(probe);
        if (no) {
            snprintf(why, len, "TMPDIR '%.200s' cannot hold the launcher's "
                     "session directory (%s%s; the environment, not the "
                     "layout)", tmp, S_ISDIR(st.st_mode) ? "mkdir: " : "",
                     no);
            return 1;
        }
    }
    return 0;
}
