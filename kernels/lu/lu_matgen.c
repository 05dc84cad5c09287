#include "lu/lu_matgen.h"

/* splitmix64's finaliser: a bijection on 64 bits whose output bits each
 * depend on every input bit, so neighbouring (i, j) give unrelated values. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double bl_lu_matgen(uint64_t seed, long i, long j)
{
    uint64_t h = mix(seed + 0x9e3779b97f4a7c15ULL);
    h = mix(h ^ (uint64_t)i);
    h = mix(h ^ ((uint64_t)j << 1 | 1));
    /* top 53 bits -> [0, 1), then centred */
    return (double)(h >> 11) * 0x1.0p-53 - 0.5;
}
