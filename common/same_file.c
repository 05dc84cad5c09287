#include "same_file.h"

#include <sys/stat.h>

int bl_check_output_not_input(const char *out, const char *const *inputs,
                              size_t n, bl_err *err)
{
    struct stat o, in;
    if (!out || lstat(out, &o) != 0)
        return 0;  /* nothing there yet: it cannot be an input */
    for (size_t i = 0; i < n; i++) {
        if (!inputs[i] || stat(inputs[i], &in) != 0)
            continue;
        if (in.st_dev == o.st_dev && in.st_ino == o.st_ino)
            return bl_err_set(err, "%s: is the input %s (the same file); "
                              "writing it would replace the input: give "
                              "another output name", out, inputs[i]);
    }
    return 0;
}

int bl_check_output_not_input1(const char *out, const char *input,
                               bl_err *err)
{
    return bl_check_output_not_input(out, &input, 1, err);
}
