/* A string-keyed hash map of indices (open addressing, FNV-1a), for the
 * places that look a row up by a key among thousands of rows: report
 * groups and baselines, plan caches. Keys are copied; values are size_t. */
#ifndef BL_KEYMAP_H
#define BL_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct bl_keymap {
    char **keys;     /* NULL: empty slot */
    size_t *values;
    size_t nslots, n;
} bl_keymap;

#define BL_KEYMAP_NONE ((size_t)-1)

/* The value of key, or BL_KEYMAP_NONE. */
size_t bl_keymap_get(const bl_keymap *m, const char *key);
/* The value of key; when absent, adds key with value and returns value.
 * BL_KEYMAP_NONE when out of memory (the map unchanged). */
size_t bl_keymap_put_new(bl_keymap *m, const char *key, size_t value);
void bl_keymap_free(bl_keymap *m);
/* The map's string hash (FNV-1a), for tables of their own (merge's run ids). */
uint64_t bl_keymap_hash(const char *s);

#endif
