/* The files of a --node-topologies DIR (harness/layout/node_topos.c), in a
 * temporary directory made here: the three forms (HOST.xml,
 * nodes/HOST/lstopo.xml, HOST/lstopo.xml), hosts in name order with
 * numbers compared as numbers (bl2 before bl10, as a Slurm node range
 * lists them), a host named by two forms listed once, the HOST.xml form
 * first, and the refusals (no directory, nothing in it). */
#include "bl_test.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout/node_topos.h"

static char dir[512]; /* short: every path below fits in PATH_MAX */

static void touch(const char *rel)
{
    char p[PATH_MAX];
    FILE *f;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    f = fopen(p, "w");
    assert_non_null(f);
    fputs("<topology/>\n", f);
    fclose(f);
}

static void sub(const char *rel)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    assert_int_equal(mkdir(p, 0755), 0);
}

static int make_dir(void **state)
{
    const char *tmp = getenv("TMPDIR");
    (void)state;
    snprintf(dir, sizeof dir, "%s/bl-node-topos-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int type,
                      struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    return remove(path);
}

static int remove_dir(void **state)
{
    (void)state;
    return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void hosts_in_slurm_order_from_every_form(void **state)
{
    char **hosts;
    int n;
    bl_err err = {""};
    char path[PATH_MAX], want[PATH_MAX];
    (void)state;
    touch("bl10.xml");
    touch("bl2.xml");
    touch("notes.txt");           /* not a topology */
    sub("nodes");
    sub("nodes/bl3");
    touch("nodes/bl3/lstopo.xml");
    sub("nodes/bl2");             /* bl2 twice: listed once */
    touch("nodes/bl2/lstopo.xml");
    sub("nodes/empty");           /* no lstopo.xml: not a host */
    sub("bl1");
    touch("bl1/lstopo.xml");
    assert_int_equal(bl_node_topos_hosts(dir, &hosts, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_string_equal(hosts[0], "bl1");
    assert_string_equal(hosts[1], "bl2");
    assert_string_equal(hosts[2], "bl3");
    assert_string_equal(hosts[3], "bl10");
    bl_node_topos_hosts_free(hosts, n);

    /* HOST.xml first, then nodes/HOST/lstopo.xml, then HOST/lstopo.xml */
    assert_int_equal(bl_node_topos_path(dir, "bl2", path, sizeof path), 0);
    snprintf(want, sizeof want, "%s/bl2.xml", dir);
    assert_string_equal(path, want);
    assert_int_equal(bl_node_topos_path(dir, "bl3", path, sizeof path), 0);
    snprintf(want, sizeof want, "%s/nodes/bl3/lstopo.xml", dir);
    assert_string_equal(path, want);
    assert_int_equal(bl_node_topos_path(dir, "bl1", path, sizeof path), 0);
    snprintf(want, sizeof want, "%s/bl1/lstopo.xml", dir);
    assert_string_equal(path, want);
    assert_int_equal(bl_node_topos_path(dir, "empty", path, sizeof path), -1);
}

static void refusals_name_the_directory(void **state)
{
    char **hosts;
    int n;
    bl_err err = {""};
    char none[PATH_MAX];
    (void)state;
    snprintf(none, sizeof none, "%s/none", dir);
    assert_int_equal(bl_node_topos_hosts(none, &hosts, &n, &err), -1);
    assert_non_null(strstr(err.msg, "no such directory"));
    assert_non_null(strstr(err.msg, none));
    sub("nothing");
    snprintf(none, sizeof none, "%s/nothing", dir);
    assert_int_equal(bl_node_topos_hosts(none, &hosts, &n, &err), -1);
    assert_non_null(strstr(err.msg, "no node topology in it"));
    assert_null(hosts);
    assert_int_equal(n, 0);
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest files[] = {
        cmocka_unit_test_setup_teardown(hosts_in_slurm_order_from_every_form,
                                        make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(refusals_name_the_directory,
                                        make_dir, remove_dir),
    };
    static const bl_test_group groups[] = {
        BL_GROUP("files", files),
    };
    return bl_run_groups(argc, argv, groups);
}
