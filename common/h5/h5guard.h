/* A look at an HDF5 file's own bytes before libhdf5 reads it. libhdf5 1.10
 * trusts some of what it reads: a global heap object (where variable-length
 * strings live) whose length field is damaged makes H5HG_read copy past its
 * collection, and a free-space object of length 0 makes it loop for ever.
 * These checks refuse such files with a message instead (docs/schema.md,
 * "Damaged files": what they cover and what they do not).
 *
 * bl_h5_guard_quick: the superblock (signature, version, sizes) and the end
 *   of the file it records against the file's size: a truncated file. Reads
 *   the first few hundred bytes.
 * bl_h5_guard_deep: the quick check, then every global heap collection
 *   (found by its signature, "GCOL" version 1) walked object by object as
 *   libhdf5 walks it: each object must end inside its collection. Reads the
 *   whole file once. */
#ifndef BL_H5GUARD_H
#define BL_H5GUARD_H

#include <stddef.h>

#include "err.h"

/* On a file image in memory: 0, -1 with what is wrong in why, or -2 when
 * it has no HDF5 signature at all. */
int bl_h5_guard_image(const unsigned char *data, size_t n, int deep,
                      char *why, size_t len);

/* On a file: 0, or -1 with "PATH is truncated or damaged: WHAT; ..." and
 * what to do (re-run it, or rebuild it from the run files in NAME.d). A
 * file that cannot be read is left to the caller's open (0). */
int bl_h5_guard_quick(const char *path, bl_err *err);
int bl_h5_guard_deep(const char *path, bl_err *err);

#endif
