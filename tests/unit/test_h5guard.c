/* The look at an HDF5 file's bytes before libhdf5 reads it (common/h5/h5guard.h).
 * The files are written by libhdf5 here, then damaged by hand where the
 * HDF5 file format specification puts each field: the superblock's end of
 * file address, a global heap object's size (the field H5HG_read trusts),
 * the free-space object's size; the offsets are found by walking the bytes
 * as the specification lays them out, not by the code under test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "bl_test.h"
#include "h5/h5guard.h"

static char dir[64], path[128];
static unsigned char *img;
static size_t nimg;

/* A file with variable-length strings (kept in a global heap collection),
 * one of them a text that says GCOL. */
static void write_file(void)
{
    const char *values[3] = {"alpha", "beta GCOL\x01 gamma", "delta"};
    hsize_t n = 3;
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate_simple(1, &n, NULL), d;
    H5Tset_size(t, H5T_VARIABLE);
    d = H5Dcreate2(f, "labels", t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(d >= 0);
    assert_true(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0);
    H5Dclose(d);
    H5Sclose(s);
    H5Tclose(t);
    H5Fclose(f);
}

static void load(void)
{
    FILE *fp = fopen(path, "rb");
    struct stat st;
    assert_non_null(fp);
    assert_int_equal(stat(path, &st), 0);
    nimg = (size_t)st.st_size;
    img = malloc(nimg);
    assert_int_equal(fread(img, 1, nimg, fp), nimg);
    fclose(fp);
}

static void save(size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(img, 1, n, fp), n);
    fclose(fp);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/bl-h5guard-%ld", (long)getpid());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/sweep.h5", dir);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    write_file();
    load();
    return 0;
}

static int teardown(void **state)
{
    char sub[160];
    (void)state;
    free(img);
    img = NULL;
    unlink(path);
    snprintf(sub, sizeof sub, "%s/sweep.d", dir);
    rmdir(sub);
    rmdir(dir);
    return 0;
}

static uint64_t le8(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put8(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

/* The global heap collection: "GCOL", version 1, 3 reserved zero bytes. */
static size_t collection(void)
{
    for (size_t i = 0; i + 16 <= nimg; i++)
        if (!memcmp(img + i, "GCOL\x01\0\0\0", 8))
            return i;
    fail_msg("no global heap collection in %s", path);
    return 0;
}

static void intact_file_passes(void **s)
{
    char why[512] = "";
    bl_err err;
    (void)s;
    /* superblock version 0, offsets and lengths of 8 bytes (bytes 13, 14
     * of the format's version 0 superblock), end of file at byte 40 */
    assert_int_equal(img[8], 0);
    assert_int_equal(img[13], 8);
    assert_int_equal(le8(img + 40), nimg);
    assert_int_equal(bl_h5_guard_image(img, nimg, 1, why, sizeof why), 0);
    assert_int_equal(bl_h5_guard_deep(path, &err), 0);
    assert_int_equal(bl_h5_guard_quick(path, &err), 0);
}

static void truncated_file_is_refused_by_its_superblock(void **s)
{
    char why[512];
    bl_err err;
    (void)s;
    assert_int_equal(bl_h5_guard_image(img, nimg - 1, 0, why, sizeof why),
                     -1);
    save(nimg / 2);
    assert_int_equal(bl_h5_guard_quick(path, &err), -1);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "is truncated or damaged"));
    assert_non_null(strstr(err.msg, "but its superblock says it ends at"));
    /* a merged file beside its run files: rebuild it from them */
    {
        char sub[160];
        snprintf(sub, sizeof sub, "%s/sweep.d", dir);
        assert_int_equal(mkdir(sub, 0755), 0);
        assert_int_equal(bl_h5_guard_quick(path, &err), -1);
        assert_non_null(strstr(err.msg, "rebuild it from the run files in"));
        assert_non_null(strstr(err.msg, sub));
    }
}

static void damaged_heap_object_size_is_refused(void **s)
{
    size_t c = collection();
    uint64_t size = le8(img + c + 8);
    char why[512];
    bl_err err;
    (void)s;
    /* the first object follows the 16-byte header: index (2), references
     * (2), reserved (4), size (8) */
    assert_int_equal(img[c + 16] | img[c + 17] << 8, 1);
    put8(img + c + 24, size); /* its data would run past the collection */
    assert_int_equal(bl_h5_guard_image(img, nimg, 1, why, sizeof why), -1);
    assert_non_null(strstr(why, "past the collection's end"));
    /* the quick check does not read the heap */
    assert_int_equal(bl_h5_guard_image(img, nimg, 0, why, sizeof why), 0);
    save(nimg);
    assert_int_equal(bl_h5_guard_deep(path, &err), -1);
    assert_non_null(strstr(err.msg, "global heap collection"));
}

/* The scan looks 32 MB past its last "GCOL" at a time (the pages behind
 * it given back): a collection whose header straddles two windows is
 * still checked. */
static void collection_across_a_scan_window_is_checked(void **s)
{
    size_t c = collection(), size = (size_t)le8(img + c + 8), last = 0;
    for (size_t i = 0; i + 4 <= nimg; i++)
        if (!memcmp(img + i, "GCOL", 4))
            last = i;
    /* the next window begins at last + 1: its end 2 bytes into the header */
    size_t at = last + 1 + ((size_t)32 << 20) - 2, n = at + size + 4096;
    unsigned char *big = calloc(n, 1);
    char why[512];
    (void)s;
    assert_non_null(big);
    memcpy(big, img, nimg);        /* the superblock and the whole file */
    put8(big + 40, n);             /* which now ends where big ends */
    memcpy(big + at, img + c, size);
    assert_int_equal(bl_h5_guard_image(big, n, 1, why, sizeof why), 0);
    put8(big + at + 24, size);     /* its first object past its end */
    assert_int_equal(bl_h5_guard_image(big, n, 1, why, sizeof why), -1);
    assert_non_null(strstr(why, "past the collection's end"));
    free(big);
}

static void free_space_of_size_zero_is_refused(void **s)
{
    size_t c = collection(), p = c + 16;
    char why[512];
    (void)s;
    /* walk to the free-space object (index 0) */
    while (img[p] | img[p + 1] << 8)
        p += 16 + ((le8(img + p + 8) + 7) & ~(uint64_t)7);
    assert_true(p < c + le8(img + c + 8));
    put8(img + p + 8, 0); /* libhdf5's walk would stand still for ever */
    assert_int_equal(bl_h5_guard_image(img, nimg, 1, why, sizeof why), -1);
    assert_non_null(strstr(why, "less than its own header"));
}

static void collection_past_the_end_and_bad_superblock_are_refused(void **s)
{
    size_t c = collection();
    char why[512];
    unsigned char keep;
    (void)s;
    put8(img + c + 8, nimg);
    assert_int_equal(bl_h5_guard_image(img, nimg, 1, why, sizeof why), -1);
    assert_non_null(strstr(why, "the file ends before"));
    keep = img[13];
    img[13] = 3;
    assert_int_equal(bl_h5_guard_image(img, nimg, 0, why, sizeof why), -1);
    assert_non_null(strstr(why, "size of offsets is 3"));
    img[13] = keep;
    img[8] = 7;
    assert_int_equal(bl_h5_guard_image(img, nimg, 0, why, sizeof why), -1);
    assert_non_null(strstr(why, "superblock version 7"));
}

static void not_hdf5_is_left_to_the_open(void **s)
{
    char why[512];
    bl_err err;
    (void)s;
    assert_int_equal(bl_h5_guard_image((const unsigned char *)"text\n", 5, 1,
                                       why, sizeof why), -2);
    memcpy(img, "not hdf5", 8);
    save(nimg);
    assert_int_equal(bl_h5_guard_deep(path, &err), 0);
}

int main(int argc, char **argv)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    static const struct CMUnitTest rules[] = {
        T(intact_file_passes),
        T(truncated_file_is_refused_by_its_superblock),
        T(damaged_heap_object_size_is_refused),
        T(collection_across_a_scan_window_is_checked),
        T(free_space_of_size_zero_is_refused),
        T(collection_past_the_end_and_bad_superblock_are_refused),
        T(not_hdf5_is_left_to_the_open),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("rules", rules),
    };
    return bl_run_groups(argc, argv, groups);
}
