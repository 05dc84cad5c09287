/* Visible skips and declared test groups for the cmocka unit tests.
 *
 * cmocka 1.1 exits 0 when a test calls skip(), so a skip reads as a pass.
 * A program that includes this header instead:
 *   - splits its cases into groups, declared on one line each as
 *       BL_GROUP("name", cases)           may not skip: a skip fails it
 *       BL_MACHINE_GROUP("name", cases)   needs something the machine may
 *                                         lack (an MPI, PMU, NUMA nodes)
 *     and ends main() with  return bl_run_groups(argc, argv, groups);
 *   - skips with BL_SKIP("printf-style reason", ...), which prints
 *       SKIP: <case>: <reason>
 *     and counts the skip (plain skip() no longer compiles here).
 * tests/CMakeLists.txt reads the BL_GROUP/BL_MACHINE_GROUP lines and
 * registers one CTest test per group: the first as unit.<program>, the
 * others as unit.<program>.<group>, each run as `<program> <group>`.
 * A group exits 0 when all its cases passed, non-zero when one failed,
 * and 77 (CTest: Skipped) when none failed and at least one skipped, so
 * the real checks of the other groups still count as passed.
 * Skip only when the thing the case needs truly cannot be had on this
 * machine, after asking the machine; a skip on "any error" hides a bug. */
#ifndef BL_TEST_H
#define BL_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BL_TEST_SKIP_EXIT 77

typedef struct {
    const char *name;
    const struct CMUnitTest *cases;
    size_t ncases;
    int machine; /* 1: may skip, declared BL_MACHINE_GROUP */
} bl_test_group;

#define BL_GROUP(name, cases) \
    {(name), (cases), sizeof(cases) / sizeof((cases)[0]), 0}
#define BL_MACHINE_GROUP(name, cases) \
    {(name), (cases), sizeof(cases) / sizeof((cases)[0]), 1}

/* Skips counted in the group being run. */
static int bl_test_skips;

/* Prints the reason, counts the skip, and leaves the case (cmocka's skip
 * longjmps out of it). */
#define BL_SKIP(...)                                                        \
    do {                                                                    \
        printf("SKIP: %s: ", __func__);                                     \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        fflush(stdout);                                                     \
        bl_test_skips++;                                                    \
        _skip(__FILE__, __LINE__);                                          \
    } while (0)

/* A skip must say why and be counted. */
#undef skip
#define skip() BL_SKIP_needs_a_reason_use_BL_SKIP

/* The group names joined by commas, as CMake passes them in
 * BL_TEST_GROUPS. */
static inline void bl_test_group_list(const bl_test_group *g, size_t n, char *out,
                               size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s",
                                i ? "," : "", g[i].name);
}

static inline int bl_test_run(const bl_test_group *g, size_t n, int argc,
                       char **argv)
{
    const char *want = argc > 1 ? argv[1] : NULL;
    const char *registered = getenv("BL_TEST_GROUPS");
    char list[1024];
    int failed = 0, ran = 0, any_skipped_group = 0;

    bl_test_group_list(g, n, list, sizeof list);
    if (argc > 1 && (!strcmp(argv[1], "--list") || !strcmp(argv[1], "-l"))) {
        printf("%s\n", list);
        return 0;
    }
    /* CMake found the groups by reading the source: if it missed one, that
     * group would never run. */
    if (registered && strcmp(registered, list) != 0) {
        fprintf(stderr, "%s: CMake registered groups '%s' but the program "
                "declares '%s': declare each group on one line as "
                "BL_GROUP(\"name\", cases) and re-run cmake\n",
                argv[0], registered, list);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (want && strcmp(want, g[i].name) != 0)
            continue;
        ran = 1;
        bl_test_skips = 0;
        int f = _cmocka_run_group_tests(g[i].name, g[i].cases, g[i].ncases,
                                        NULL, NULL);
        int s = bl_test_skips;
        printf("group %s: %zu cases, %d passed, %d failed, %d skipped\n",
               g[i].name, g[i].ncases, (int)g[i].ncases - f - s, f, s);
        if (s && !g[i].machine) {
            printf("group %s: %d case(s) skipped, but the group is not "
                   "declared BL_MACHINE_GROUP: a skip here is a failure\n",
                   g[i].name, s);
            f += s;
        }
        failed += f;
        any_skipped_group |= s > 0;
    }
    if (!ran) {
        fprintf(stderr, "%s: no group '%s' (groups: %s)\n", argv[0], want,
                list);
        return 2;
    }
    if (failed)
        return 1;
    return any_skipped_group ? BL_TEST_SKIP_EXIT : 0;
}

/* 1 when program (a bare name) is an executable file in a directory of
 * PATH, with its path in out: ask this before skipping for "no mpirun". */
static inline int bl_test_find_program(const char *program, char *out,
                                       size_t cap)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        snprintf(out, cap, "%.*s/%s", (int)len, len ? path : ".", program);
        if (access(out, X_OK) == 0)
            return 1;
        path = end ? end + 1 : NULL;
    }
    out[0] = '\0';
    return 0;
}

#define bl_run_groups(argc, argv, groups) \
    bl_test_run((groups), sizeof(groups) / sizeof((groups)[0]), (argc), (argv))

#endif
