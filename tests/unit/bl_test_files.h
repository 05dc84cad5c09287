/* What unit tests read from the source tree: a file's whole text, a
 * fixture under tests/fixtures/, and a topology by name (a synthetic
 * description, or a real node's hwloc XML shipped in configs/topologies/).
 * Fixtures and shipped topologies are part of the tree, so a missing one
 * fails the test, never skips it. Include after bl_test.h or cmocka.h. */
#ifndef BL_TEST_FILES_H
#define BL_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo.h"

/* The whole text of path, NUL-terminated, its length in *len when len is
 * not NULL; NULL when it cannot be opened. The caller frees it. */
static inline char *bl_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    text = calloc((size_t)n + 1, 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    if (len)
        *len = (size_t)n;
    return text;
}

/* The whole text of fixture sub/name under $BINDLAB_FIXTURES (ctest sets
 * it to tests/fixtures of the source tree). */
static inline char *bl_test_fixture(const char *sub, const char *name)
{
    const char *dir = getenv("BINDLAB_FIXTURES");
    char path[1024];
    char *text;
    if (!dir)
        fail_msg("BINDLAB_FIXTURES is not set (run through ctest)");
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    text = bl_test_read_file(path, NULL);
    if (!text)
        fail_msg("cannot open fixture %s", path);
    return text;
}

/* A topology: spec synthetic ("pack:2 core:4 pu:2"), a name ending in
 * .xml under configs/topologies/ of $BINDLAB_SOURCE_DIR, or NULL for this
 * machine's. */
static inline hwloc_topology_t bl_test_topology(const char *spec)
{
    hwloc_topology_t t;
    bl_err err;
    char path[1024];
    if (spec && strstr(spec, ".xml")) {
        const char *src = getenv("BINDLAB_SOURCE_DIR");
        snprintf(path, sizeof path, "%s/configs/topologies/%s",
                 src ? src : ".", spec);
        if (access(path, R_OK) != 0)
            fail_msg("%s: missing from the source tree (BINDLAB_SOURCE_DIR)",
                     path);
        spec = path;
    }
    if (bl_topo_load(spec, &t, &err) != 0)
        fail_msg("topology %s: %s", spec ? spec : "(this machine)", err.msg);
    return t;
}

#endif
