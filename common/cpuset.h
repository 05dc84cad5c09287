/* CPU sets as text: the list form ("0-3,8"), hexadecimal masks ("0xff",
 * Linux's comma-grouped "ffffffff,00000003") and Open MPI 4's bracket map
 * ("[B./..]"). Sets are hwloc bitmaps of OS (physical) PU indexes, except the
 * bracket map, which names PUs by position (hwloc logical order). */
#ifndef BL_CPUSET_H
#define BL_CPUSET_H

#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "err.h"

/* Highest PU index accepted from text; guards against "0-999999999". */
#define BL_CPUSET_MAX_INDEX 65535

/* "0-3,8,10-11": decimal indexes and ranges, comma separated, no spaces
 * inside numbers; surrounding white space is ignored. The empty list is
 * rejected. */
int bl_cpuset_parse_list(const char *text, hwloc_bitmap_t out, bl_err *err);

/* "0xff", "ff", "0x00000003,ffffffff": hexadecimal, most significant digit
 * first, optional 0x, commas allowed between digit groups (Linux and Slurm
 * print 32-bit groups). A mask with no bit set is rejected. */
int bl_cpuset_parse_mask(const char *text, hwloc_bitmap_t out, bl_err *err);

/* Either form: a leading "0x" means a mask, anything else a list. */
int bl_cpuset_parse(const char *text, hwloc_bitmap_t out, bl_err *err);

/* Open MPI 4's "[BB/..][../..]": one bracket per package, '/' between cores,
 * one character per hardware thread, 'B' bound and '.' not. Sets the
 * positions of the bound PUs, counted from 0 across all brackets, which is
 * the hwloc logical PU index on the machine that printed it. */
int bl_cpuset_parse_brackets(const char *text, hwloc_bitmap_t out,
                             bl_err *err);

/* List form of set into buf ("" for the empty set). Returns the length the
 * full text needs, as snprintf does, or -1 for an infinite set. */
int bl_cpuset_format_list(hwloc_const_bitmap_t set, char *buf, size_t len);

/* The list form in a malloc'ed string, or NULL on failure. */
char *bl_cpuset_list_strdup(hwloc_const_bitmap_t set);

/* "0x3": lower-case hexadecimal with 0x. Same return as format_list. */
int bl_cpuset_format_mask(hwloc_const_bitmap_t set, char *buf, size_t len);

/* A 64-bit hash of set mixed into h (tables keyed by a set: equal sets
 * hash alike). */
uint64_t bl_cpuset_hash(uint64_t h, hwloc_const_bitmap_t set);

/* h with the value v mixed in (the step of bl_cpuset_hash). */
uint64_t bl_cpuset_hash_mix(uint64_t h, uint64_t v);

#endif
