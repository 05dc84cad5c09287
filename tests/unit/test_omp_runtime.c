/* The OpenMP runtime detection (common/omp_runtime.c): file names, the
 * version line, and this process's runtimes against what /proc/self/maps
 * shows the kernel mapped; then Intel's and LLVM's runtimes loaded beside
 * it (dlopen, local: they serve nothing) found with their own versions. */
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <omp.h>

#include "bl_test.h"
#include "omp_runtime.h"

static void runtime_kinds_come_from_file_names(void **state)
{
    (void)state;
    assert_string_equal(bl_omp_runtime_kind("libgomp.so.1"), "libgomp");
    assert_string_equal(bl_omp_runtime_kind("/usr/lib/x/libgomp.so.1.0.0"),
                        "libgomp");
    assert_string_equal(bl_omp_runtime_kind("/usr/lib/llvm-14/lib/libomp.so.5"),
                        "libomp");
    assert_string_equal(bl_omp_runtime_kind("libomp-14.so.5"), "libomp");
    assert_string_equal(bl_omp_runtime_kind("libomp5.so"), "libomp");
    assert_string_equal(bl_omp_runtime_kind("/opt/x/lib/libiomp5.so"), "intel");
    assert_null(bl_omp_runtime_kind("libompitrace.so.40"));
    assert_null(bl_omp_runtime_kind("/usr/lib/llvm-14/lib/libomptarget.so"));
    assert_null(bl_omp_runtime_kind("libgomp-plugin-nvptx.so.1"));
}

static void version_is_read_from_the_identification_line(void **state)
{
    static const char llvm[] = "junk\0@(#) LLVM OMP version: 5.0.20140926\0x";
    static const char intel[] = "@(#) Intel(R) OMP version: 5.0.20260828 "
                                "Copyright";
    static const char message[] = "\0Incompatible OMP version: %s found\0";
    char v[32] = "";
    (void)state;
    assert_int_equal(bl_omp_version_in(llvm, sizeof llvm, v, sizeof v), 1);
    assert_string_equal(v, "5.0.20140926");
    assert_int_equal(bl_omp_version_in(intel, sizeof intel, v, sizeof v), 1);
    assert_string_equal(v, "5.0.20260828");
    assert_int_equal(bl_omp_version_in(message, sizeof message, v, sizeof v),
                     0);
}

/* 1 when the kernel mapped file into this process. */
static int mapped(const char *file)
{
    char line[PATH_MAX + 256];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    while (!found && fgets(line, sizeof line, f)) {
        char *path = strchr(line, '/');
        if (path) {
            path[strcspn(path, "\n")] = '\0';
            found = strcmp(path, file) == 0;
        }
    }
    fclose(f);
    return found;
}

static void this_process_runtime_is_the_one_mapped(void **state)
{
    bl_omp_runtimes r;
    Dl_info info;
    char real[PATH_MAX];
    (void)state;
    /* the runtime this test calls, as the dynamic linker resolved it */
    assert_true(omp_get_num_threads() >= 1);
    assert_true(dladdr((void *)(uintptr_t)omp_get_num_threads, &info) != 0);
    assert_non_null(realpath(info.dli_fname, real));
    bl_omp_runtimes_find(&r);
    assert_true(r.nloaded >= 1);
    assert_in_range(r.serving, 0, r.nloaded - 1);
    assert_string_equal(r.loaded[r.serving].file, real);
    assert_string_equal(r.loaded[r.serving].kind,
                        bl_omp_runtime_kind(real));
    assert_true(r.loaded[r.serving].version[0] != '\0');
    for (int i = 0; i < r.nloaded; i++)
        assert_true(mapped(r.loaded[i].file));
}

/* path loaded beside this process's runtime: listed, of kind, with a
 * version that starts with prefix; the serving runtime unchanged. */
static void loaded_beside(const char *path, const char *kind,
                          const char *prefix)
{
    bl_omp_runtimes before, after;
    char real[PATH_MAX];
    struct link_map *map = NULL;
    void *h;
    int found = -1;
    bl_omp_runtimes_find(&before);
    h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        BL_SKIP("%s cannot be loaded: %s", path, dlerror());
    /* where the dynamic linker found it (path may be a bare soname) */
    assert_int_equal(dlinfo(h, RTLD_DI_LINKMAP, &map), 0);
    assert_non_null(realpath(map->l_name, real));
    bl_omp_runtimes_find(&after);
    for (int i = 0; i < after.nloaded; i++)
        if (strcmp(after.loaded[i].file, real) == 0)
            found = i;
    assert_true(found >= 0);
    assert_string_equal(after.loaded[found].kind, kind);
    assert_memory_equal(after.loaded[found].version, prefix, strlen(prefix));
    assert_string_equal(after.loaded[after.serving].file,
                        before.loaded[before.serving].file);
    dlclose(h);
}

static void intel_runtime_is_found_with_its_version(void **state)
{
    const char *lib = getenv("BINDLAB_LIBIOMP5");
    (void)state;
    if (!lib || access(lib, R_OK) != 0)
        BL_SKIP("no Intel libiomp5 at '%s' (scripts/omp_runtimes.sh)",
                lib ? lib : "");
    loaded_beside(lib, "intel", "5.");
}

static void llvm_runtime_is_found_with_its_version(void **state)
{
    (void)state;
    loaded_beside("libomp.so.5", "libomp", "5.");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest cases[] = {
        cmocka_unit_test(runtime_kinds_come_from_file_names),
        cmocka_unit_test(version_is_read_from_the_identification_line),
        cmocka_unit_test(this_process_runtime_is_the_one_mapped),
    };
    const struct CMUnitTest others[] = {
        cmocka_unit_test(intel_runtime_is_found_with_its_version),
        cmocka_unit_test(llvm_runtime_is_found_with_its_version),
    };
    const bl_test_group groups[] = {
        BL_GROUP("omp_runtime", cases),
        BL_MACHINE_GROUP("others", others),
    };
    return bl_run_groups(argc, argv, groups);
}
