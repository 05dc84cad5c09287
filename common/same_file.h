/* An output must never be one of the inputs of the command that writes it:
 * `report X.h5 --html X.h5` would replace the results with a page. "The
 * same file" is the same device and inode, not the same name, so that
 * `./X.h5` for `X.h5`, a hard link, or an input reached through a symbolic
 * link are caught. An output that is itself a symbolic link is compared as
 * the link: writing it replaces the link (atomic_file.h), not its target. */
#ifndef BL_SAME_FILE_H
#define BL_SAME_FILE_H

#include <stddef.h>

#include "err.h"

/* 0 when out (absent, or another file) is none of inputs[0..n-1] (NULL
 * entries and inputs that cannot be stat'ed are skipped: reading them
 * fails later on its own). Else -1 with one line naming both. Call it
 * before any work, next to bl_atomic_check_target. */
int bl_check_output_not_input(const char *out, const char *const *inputs,
                              size_t n, bl_err *err);

/* The same for one input. */
int bl_check_output_not_input1(const char *out, const char *input,
                               bl_err *err);

#endif
