/* Doubling growth of an array, with the size arithmetic checked once here. */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int bl_grow(void *arrayp, size_t item_size, size_t n, size_t *cap,
            size_t first)
{
    void *old, *p;
    size_t want;
    if (n < *cap)
        return 0;
    want = *cap ? 2 * *cap : (first ? first : 1);
    if (want < *cap || want > SIZE_MAX / item_size)
        return -1;
    /* arrayp is a T ** for some object type T: copied as bytes, which is
     * how every object pointer is represented on the platforms we build. */
    memcpy(&old, arrayp, sizeof old);
    if (!(p = realloc(old, want * item_size)))
        return -1;
    memcpy(arrayp, &p, sizeof p);
    *cap = want;
    return 0;
}
