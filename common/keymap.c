/* bl_keymap (keymap.h): linear probing over a power-of-two table kept at
 * most half full. */
#include "keymap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

uint64_t bl_keymap_hash(const char *s)
{
    uint64_t h = 14695981039346656037ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static size_t slot_of(const bl_keymap *m, const char *key)
{
    size_t j = (size_t)bl_keymap_hash(key) & (m->nslots - 1);
    while (m->keys[j] && strcmp(m->keys[j], key) != 0)
        j = (j + 1) & (m->nslots - 1);
    return j;
}

size_t bl_keymap_get(const bl_keymap *m, const char *key)
{
    size_t j;
    if (!m->nslots)
        return BL_KEYMAP_NONE;
    j = slot_of(m, key);
    return m->keys[j] ? m->values[j] : BL_KEYMAP_NONE;
}

static int grow(bl_keymap *m)
{
    bl_keymap bigger = {0};
    bigger.nslots = m->nslots ? 2 * m->nslots : 64;
    bigger.keys = calloc(bigger.nslots, sizeof *bigger.keys);
    bigger.values = calloc(bigger.nslots, sizeof *bigger.values);
    if (!bigger.keys || !bigger.values) {
        free(bigger.keys);
        free(bigger.values);
        return -1;
    }
    for (size_t i = 0; i < m->nslots; i++)
        if (m->keys[i]) {
            size_t j = slot_of(&bigger, m->keys[i]);
            bigger.keys[j] = m->keys[i];
            bigger.values[j] = m->values[i];
        }
    bigger.n = m->n;
    free(m->keys);
    free(m->values);
    *m = bigger;
    return 0;
}

size_t bl_keymap_put_new(bl_keymap *m, const char *key, size_t value)
{
    size_t j;
    if ((m->n + 1) * 2 > m->nslots && grow(m) < 0)
        return BL_KEYMAP_NONE;
    j = slot_of(m, key);
    if (m->keys[j])
        return m->values[j];
    if (!(m->keys[j] = strdup(key)))
        return BL_KEYMAP_NONE;
    m->values[j] = value;
    m->n++;
    return value;
}

void bl_keymap_free(bl_keymap *m)
{
    for (size_t i = 0; i < m->nslots; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}
