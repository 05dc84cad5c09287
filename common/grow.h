/* The growable array every list in bindlab uses: items, a count n and a
 * capacity cap, grown by doubling so that n pushes cost O(n) copies. */
#ifndef BL_GROW_H
#define BL_GROW_H

#include <stddef.h>

/* Makes room for item n of the array *arrayp (a pointer to the array's
 * pointer, e.g. &list->items) of item_size-byte items: when n == *cap,
 * reallocates it to twice *cap items (first items when empty). Returns 0,
 * or -1 when out of memory, with the array and *cap unchanged. */
int bl_grow(void *arrayp, size_t item_size, size_t n, size_t *cap,
            size_t first);

#endif
