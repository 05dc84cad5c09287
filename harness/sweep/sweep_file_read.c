/* Reading a sweep file's text within the limits of sweep_file.h, so that a
 * wrong file (a log, /dev/zero, a generated monster) is refused at once, at
 * its line, instead of eating memory in the YAML parser. */
#include "sweep/sweep_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

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

/* Reads the events of text only as deep as the limit: libyaml's cost per
 * token grows with the depth reached so far, so stopping there keeps the
 * check linear, where loading the whole document would not be. */
int bl_sweep_file_check_depth(const char *text, size_t len, const char *file,
                              bl_err *err)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    int depth = 0, rc = 0, end = 0;
    if (!yaml_parser_initialize(&parser))
        return bl_err_set(err, "%s: cannot start the YAML parser", file);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    while (!end && rc == 0 && yaml_parser_parse(&parser, &ev)) {
        if (ev.type == YAML_SEQUENCE_START_EVENT ||
            ev.type == YAML_MAPPING_START_EVENT) {
            if (++depth > BL_SWEEP_DEPTH_MAX)
                rc = bl_err_set(err, "%s:%zu:%zu: lists and mappings nested "
                                "deeper than %d levels, the most a sweep "
                                "file may have (is this a sweep file?)",
                                file, ev.start_mark.line + 1,
                                ev.start_mark.column + 1, BL_SWEEP_DEPTH_MAX);
        } else if (ev.type == YAML_SEQUENCE_END_EVENT ||
                   ev.type == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        end = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return rc;
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
