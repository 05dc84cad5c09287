/* Atomic file replacement: only a regular file (or nothing) is replaced,
 * anything else is refused with the path named and left as it was; a
 * written file has exactly the bytes given. (A full disk is tested for
 * real on a tiny tmpfs in tests/integration/test_full_disk.sh.) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "atomic_file.h"

static char dir[] = "/tmp/bl_atomictest.XXXXXX";

static void at(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static mode_t type_of(const char *path)
{
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    return st.st_mode & S_IFMT;
}

/* bl_atomic_write refuses path with a message holding `why`, and leaves it
 * of the same type. */
static void refused(const char *path, const char *why)
{
    bl_err err = {""};
    struct stat st;
    int existed = lstat(path, &st) == 0;
    mode_t before = existed ? st.st_mode & S_IFMT : 0;
    assert_int_equal(bl_atomic_check_target(path, &err), -1);
    assert_non_null(strstr(err.msg, path));
    if (!strstr(err.msg, why))
        fail_msg("'%s': expected '%s' in: %s", path, why, err.msg);
    assert_int_equal(bl_atomic_write(path, "data", 4, &err), -1);
    assert_non_null(strstr(err.msg, why));
    assert_null(strchr(err.msg, '\n'));
    if (existed)
        assert_int_equal(type_of(path), before);
    else
        assert_int_equal(lstat(path, &st), -1);
}

static void read_back(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "rb");
    size_t n;
    assert_non_null(f);
    n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static void writes_new_and_replaces_regular_file(void **state)
{
    char path[256], got[64];
    bl_err err;
    (void)state;
    at(path, sizeof path, "plain");
    assert_int_equal(bl_atomic_write(path, "first", 5, &err), 0);
    read_back(path, got, sizeof got);
    assert_string_equal(got, "first");
    assert_int_equal(bl_atomic_write(path, "second!", 7, &err), 0);
    read_back(path, got, sizeof got);
    assert_string_equal(got, "second!");
    assert_int_equal(type_of(path), S_IFREG);
    unlink(path);
}

/* New files: 0666 less the umask, like any new file; the _mode variant
 * gives exactly the mode asked for, whatever the umask. */
static void file_modes(void **state)
{
    char path[256];
    struct stat st;
    bl_err err;
    mode_t old = umask(027);
    (void)state;
    at(path, sizeof path, "moded");
    assert_int_equal(bl_atomic_write(path, "x", 1, &err), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    assert_int_equal(bl_atomic_write_mode(path, "#!/bin/sh\n", 10, 0755,
                                          &err), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755);
    umask(old);
    unlink(path);
}

/* The link is replaced by the new file; the file it named is not touched. */
static void link_to_regular_file_is_replaced_not_followed(void **state)
{
    char target[256], link[256], got[64];
    bl_err err;
    (void)state;
    at(target, sizeof target, "target");
    at(link, sizeof link, "link-to-target");
    assert_int_equal(bl_atomic_write(target, "old", 3, &err), 0);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(bl_atomic_write(link, "new", 3, &err), 0);
    assert_int_equal(type_of(link), S_IFREG);
    read_back(link, got, sizeof got);
    assert_string_equal(got, "new");
    read_back(target, got, sizeof got);
    assert_string_equal(got, "old");
    unlink(link);
    unlink(target);
}

/* The temporary is "PATH.tmp.<pid>" (documented in docs/schema.md). */
static void temp_name_is_path_tmp_pid(void **state)
{
    char got[128], want[128];
    (void)state;
    snprintf(want, sizeof want, "out/x.h5.tmp.%d", (int)getpid());
    assert_int_equal(bl_atomic_temp_name("out/x.h5", got, sizeof got), 0);
    assert_string_equal(got, want);
}

static void refuses_a_character_device(void **state)
{
    char dev[256];
    (void)state;
    /* Root: a private copy of /dev/null (major 1, minor 3), so a broken
     * writer cannot damage the real one. Others cannot replace /dev/null
     * anyway, so the real one is safe to try. */
    at(dev, sizeof dev, "null");
    if (geteuid() != 0 || mknod(dev, S_IFCHR | 0666, makedev(1, 3)) < 0)
        snprintf(dev, sizeof dev, "/dev/null");
    refused(dev, "character device");
    if (strcmp(dev, "/dev/null") != 0)
        unlink(dev);
}

static void refuses_directory_fifo_socket(void **state)
{
    char d[256], slash[260], fifo[256], sock[256];
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int fd;
    (void)state;
    at(d, sizeof d, "adir");
    assert_int_equal(mkdir(d, 0755), 0);
    refused(d, "a directory");
    snprintf(slash, sizeof slash, "%s/", d);
    refused(slash, "names a directory");
    rmdir(d);

    at(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    refused(fifo, "FIFO");
    unlink(fifo);

    at(sock, sizeof sock, "sock");
    assert_true(strlen(sock) < sizeof addr.sun_path);
    strcpy(addr.sun_path, sock);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    refused(sock, "socket");
    close(fd);
    unlink(sock);
}

static void refuses_links_to_non_files_and_to_nothing(void **state)
{
    char fifo[256], to_fifo[256], to_dir[256], dangling[256];
    (void)state;
    at(fifo, sizeof fifo, "fifo2");
    at(to_fifo, sizeof to_fifo, "link-to-fifo");
    at(to_dir, sizeof to_dir, "link-to-dir");
    at(dangling, sizeof dangling, "dangling");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    assert_int_equal(symlink(fifo, to_fifo), 0);
    assert_int_equal(symlink(dir, to_dir), 0);
    assert_int_equal(symlink("/nonexistent/bl-nothing", dangling), 0);
    refused(to_fifo, "symbolic link to a FIFO");
    refused(to_dir, "symbolic link to a directory");
    refused(dangling, "symbolic link to nothing");
    unlink(to_fifo);
    unlink(to_dir);
    unlink(dangling);
    unlink(fifo);
}

static void refuses_missing_or_bad_directory(void **state)
{
    char missing[256], file[256], under_file[300], dlink[256], via[300];
    bl_err err;
    (void)state;
    at(missing, sizeof missing, "no-such-dir/x.h5");
    refused(missing, "does not exist");
    at(file, sizeof file, "a-file");
    assert_int_equal(bl_atomic_write(file, "x", 1, &err), 0);
    snprintf(under_file, sizeof under_file, "%s/x.h5", file);
    refused(under_file, "Not a directory");
    /* the directory part is a link to nothing */
    at(dlink, sizeof dlink, "dir-link");
    assert_int_equal(symlink("/nonexistent/bl-dir", dlink), 0);
    snprintf(via, sizeof via, "%s/x.h5", dlink);
    refused(via, "does not exist");
    unlink(dlink);
    unlink(file);
    refused("", "empty");
}

/* A directory without write permission: refused, unless this process may
 * write there all the same (root may), which access(2) says. */
static void unwritable_directory_follows_access(void **state)
{
    char ro[256], path[300];
    bl_err err;
    int may_write;
    (void)state;
    at(ro, sizeof ro, "read-only");
    assert_int_equal(mkdir(ro, 0555), 0);
    snprintf(path, sizeof path, "%s/x.h5", ro);
    may_write = access(ro, W_OK) == 0;
    if (may_write) {
        assert_int_equal(bl_atomic_write(path, "x", 1, &err), 0);
        unlink(path);
    } else {
        refused(path, "not writable");
    }
    rmdir(ro);
}

static int cleanup(void **state)
{
    (void)state;
    return rmdir(dir) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_new_and_replaces_regular_file),
        cmocka_unit_test(file_modes),
        cmocka_unit_test(link_to_regular_file_is_replaced_not_followed),
        cmocka_unit_test(temp_name_is_path_tmp_pid),
        cmocka_unit_test(refuses_a_character_device),
        cmocka_unit_test(refuses_directory_fifo_socket),
        cmocka_unit_test(refuses_links_to_non_files_and_to_nothing),
        cmocka_unit_test(refuses_missing_or_bad_directory),
        cmocka_unit_test(unwritable_directory_follows_access),
    };
    if (!mkdtemp(dir))
        return 1;
    return cmocka_run_group_tests(tests, NULL, cleanup);
}
