#include "h5/h5guard.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const unsigned char signature[8] = {0x89, 'H', 'D', 'F',
                                           '\r', '\n', 0x1a, '\n'};

/* A little-endian unsigned of n bytes (n <= 8). */
static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* What the superblock says: the sizes of addresses and lengths, and where
 * the file ends (base address + end-of-file address). */
typedef struct superblock {
    size_t at;
    int version, size_offsets, size_lengths;
    uint64_t base, eof;
} superblock;

/* The superblock is at 0, 512, 1024, 2048, ... (a user block before it). */
static int read_superblock(const unsigned char *d, size_t n, superblock *s,
                           char *why, size_t len)
{
    size_t at = 0, pos;
    while (at + sizeof signature <= n &&
           memcmp(d + at, signature, sizeof signature) != 0)
        at = at ? at * 2 : 512;
    if (at + sizeof signature > n)
        return snprintf(why, len, "no HDF5 signature"), -2;
    memset(s, 0, sizeof *s);
    s->at = at;
    if (n - at < 16)
        return snprintf(why, len, "the superblock is cut short"), -1;
    s->version = d[at + 8];
    switch (s->version) {
    case 0:
    case 1:
        s->size_offsets = d[at + 13];
        s->size_lengths = d[at + 14];
        pos = at + (s->version == 0 ? 24 : 28);
        break;
    case 2:
    case 3:
        s->size_offsets = d[at + 9];
        s->size_lengths = d[at + 10];
        pos = at + 12;
        break;
    default:
        return snprintf(why, len, "superblock version %d is not one HDF5 "
                        "writes (0 to 3)", s->version), -1;
    }
    for (int i = 0; i < 2; i++) {
        int v = i ? s->size_lengths : s->size_offsets;
        if (v != 2 && v != 4 && v != 8)
            return snprintf(why, len, "the superblock's size of %s is %d "
                            "(2, 4 or 8 expected)",
                            i ? "lengths" : "offsets", v), -1;
    }
    /* base address, then (versions 0/1) the free-space address or (2/3)
     * the superblock extension's, then the end-of-file address */
    if (pos + 3 * (size_t)s->size_offsets > n)
        return snprintf(why, len, "the superblock is cut short"), -1;
    s->base = le(d + pos, s->size_offsets);
    s->eof = le(d + pos + 2 * (size_t)s->size_offsets, s->size_offsets);
    if (s->base > n || s->eof > (uint64_t)n - s->base)
        return snprintf(why, len, "it has %zu bytes, but its superblock "
                        "says it ends at byte %llu", n,
                        (unsigned long long)(s->base + s->eof)), -1;
    return 0;
}

/* libhdf5's walk over one collection's objects (H5HG's deserialize): a
 * header (signature, version, 3 reserved bytes, the collection's size),
 * then objects: index (2 bytes), references (2), reserved (4), size, and
 * the data padded to 8 bytes; index 0 is the free space, whose size counts
 * its own header. An object too small for a header ends the walk. Every
 * object must end inside the collection. */
static int check_collection(const unsigned char *c, size_t avail,
                            size_t at, int sl, char *why, size_t len)
{
    size_t hdr = 8 + (size_t)sl, objhdr = 8 + (size_t)sl, p;
    uint64_t size = le(c + 8, sl);
    if (size < hdr || size > avail)
        return snprintf(why, len, "the global heap collection at byte %zu "
                        "says it has %llu bytes, but %s", at,
                        (unsigned long long)size,
                        size < hdr ? "that is less than its header"
                                   : "the file ends before"), -1;
    for (p = hdr; size - p >= objhdr;) {
        unsigned idx = (unsigned)le(c + p, 2);
        uint64_t osize = le(c + p + 8, sl), need;
        if (osize > size)
            need = UINT64_MAX;
        else if (idx)
            need = objhdr + ((osize + 7) & ~(uint64_t)7);
        else
            need = osize;
        if (need > size - p || (idx == 0 && need < objhdr))
            return snprintf(why, len, "object %u of the global heap "
                            "collection at byte %zu (where text values are "
                            "kept) says it has %llu bytes: %s", idx, at,
                            (unsigned long long)osize,
                            need < objhdr ? "less than its own header"
                                          : "past the collection's end"),
                   -1;
        p += (size_t)need;
    }
    return 0;
}

/* Bytes scanned between two drops of the pages behind the scan. */
#define DROP_STEP ((size_t)32 << 20)

/* The pages of mapped file d before byte `upto` (rounded down to a page)
 * given back: the scan never looks behind itself, and a 330 MB record
 * would otherwise count whole in the reader's peak memory. */
static void drop_behind(const unsigned char *d, size_t *dropped, size_t upto)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    upto &= ~(page - 1);
    if (upto <= *dropped)
        return;
    madvise((void *)(uintptr_t)(d + *dropped), upto - *dropped,
            MADV_DONTNEED);
    *dropped = upto;
}

/* mapped: d is a private read-only mapping of the file (its pages may be
 * dropped behind the scan); else any buffer, left alone. */
static int check_heaps(const unsigned char *d, size_t n, int sl, char *why,
                       size_t len, int mapped)
{
    const unsigned char *p = d, *end = d + n, *q;
    size_t dropped = 0;
    /* searched a window at a time (with the 3 bytes a header may reach
     * past it), so that a long stretch with no collection (a table's
     * rows) is given back too */
    while (p < end) {
        size_t win = (size_t)(end - p) < DROP_STEP ? (size_t)(end - p)
                                                   : DROP_STEP;
        size_t reach = (size_t)(end - p) - win < 3 ? (size_t)(end - p) - win
                                                   : 3;
        if (!(q = memmem(p, win + reach, "GCOL", 4))) {
            p += win;
            if (mapped)
                drop_behind(d, &dropped, (size_t)(p - d));
            continue;
        }
        size_t at = (size_t)(q - d);
        if (mapped && at >= dropped + DROP_STEP)
            drop_behind(d, &dropped, at);
        /* a collection header; anything else is data that says GCOL */
        if ((size_t)(end - q) >= 8 + (size_t)sl && q[4] == 1 && !q[5] &&
            !q[6] && !q[7] &&
            check_collection(q, (size_t)(end - q), at, sl, why, len) < 0)
            return -1;
        p = q + 1;
    }
    return 0;
}

static int guard_image(const unsigned char *data, size_t n, int deep,
                       int mapped, char *why, size_t len)
{
    superblock s;
    int rc = read_superblock(data, n, &s, why, len);
    if (rc < 0)
        return rc;
    return deep ? check_heaps(data, n, s.size_lengths, why, len, mapped) : 0;
}

int bl_h5_guard_image(const unsigned char *data, size_t n, int deep,
                      char *why, size_t len)
{
    return guard_image(data, n, deep, 0, why, len);
}

/* The advice after a refusal: a merged file can be rebuilt from the run
 * files beside it (RESULTS/NAME.h5 and RESULTS/NAME.d/). */
static int refuse(const char *path, const char *why, bl_err *err)
{
    char dir[4096];
    size_t n = strlen(path);
    struct stat st;
    if (n > 3 && strcmp(path + n - 3, ".h5") == 0 &&
        snprintf(dir, sizeof dir, "%.*s.d", (int)(n - 3), path) <
            (int)sizeof dir &&
        stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return bl_err_set(err, "%s is truncated or damaged: %s; re-run, or "
                          "rebuild it from the run files in %s (bindlab "
                          "merge -o NEW.h5 %s/*.h5)", path, why, dir, dir);
    return bl_err_set(err, "%s is truncated or damaged: %s; re-run the run "
                      "that wrote it, or restore it from a copy", path, why);
}

static int guard(const char *path, int deep, bl_err *err)
{
    char why[512];
    struct stat st;
    unsigned char head[4096];
    const unsigned char *d = head;
    void *map = MAP_FAILED;
    size_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
    if (fd < 0)
        return 0; /* the caller's open says why */
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        close(fd);
        return 0;
    }
    n = (size_t)st.st_size;
    if (deep || n > sizeof head) {
        /* the superblock may follow a user block: the whole file mapped */
        map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            close(fd);
            return 0;
        }
        d = map;
    } else if (pread(fd, head, n, 0) != (ssize_t)n) {
        close(fd);
        return 0;
    }
    rc = guard_image(d, n, deep, map != MAP_FAILED, why, sizeof why);
    if (map != MAP_FAILED)
        munmap(map, n);
    close(fd);
    /* no signature: not HDF5 at all, which the caller's open says */
    return rc == -1 ? refuse(path, why, err) : 0;
}

int bl_h5_guard_quick(const char *path, bl_err *err)
{
    return guard(path, 0, err);
}

int bl_h5_guard_deep(const char *path, bl_err *err)
{
    return guard(path, 1, err);
}
