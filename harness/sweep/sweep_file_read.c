/* Reading a sweep file's text within the limits of sweep_file.h, so that a
 * wrong file (a log, /dev/zero, a generated monster) is refused at once, at
 * its line, instead of eating memory in the YAML parser. */
#include "sweep/sweep_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Refuses text with a line over BL_SWEEP_LINE_MAX, at that line. */
int bl_sweep_file_check_lines(const char *text, size_t len, const char *file,
                              bl_err *err)
{
    size_t line = 1, col = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') {
            line++;
            col = 0;
        } else if (++col > BL_SWEEP_LINE_MAX) {
            return bl_err_set(err, "%s:%zu:%zu: line longer than %d "
                              "characters, the most a sweep file line may "
                              "have (is this a sweep file?)", file, line,
                              col, BL_SWEEP_LINE_MAX);
        }
    }
    return 0;
}

/* The whole file, at most BL_SWEEP_FILE_MAX bytes, NUL-terminated. */
char *bl_sweep_file_read(const char *path, size_t *len, bl_err *err)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    char *buf;
    size_t n = 0, got;
    if (!f) {
        bl_err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    /* Devices (/dev/zero) and directories are not files to read; a pipe
     * (<(generate-sweep)) is, within the size limit. */
    if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode) &&
        !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) {
        fclose(f);
        bl_err_set(err, "%s: not a regular file; give the path of a sweep "
                   "file (YAML)", path);
        return NULL;
    }
    if (!(buf = malloc((size_t)BL_SWEEP_FILE_MAX + 2))) {
        fclose(f);
        bl_err_set(err, "%s: out of memory", path);
        return NULL;
    }
    while (n <= (size_t)BL_SWEEP_FILE_MAX &&
           (got = fread(buf + n, 1, (size_t)BL_SWEEP_FILE_MAX + 1 - n, f)) > 0)
        n += got;
    if (ferror(f)) {
        bl_err_set(err, "%s: cannot read: %s", path, strerror(errno));
        n = 0;
        free(buf);
        buf = NULL;
    } else if (n > (size_t)BL_SWEEP_FILE_MAX) {
        bl_err_set(err, "%s: larger than %ld bytes (1 MiB), the most a sweep "
                   "file may have (is this a sweep file?)", path,
                   BL_SWEEP_FILE_MAX);
        free(buf);
        buf = NULL;
    } else {
        buf[n] = '\0';
        *len = n;
    }
    fclose(f);
    return buf;
}
