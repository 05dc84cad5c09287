#include "mempol.h"

#include <hwloc.h>
#include <string.h>

#include "cpuset.h"

/* Linux allows at most 1024 NUMA nodes (CONFIG_NODES_SHIFT 10). */
#define NODE_BITS 1024

static int parse_nodes(const char *text, const char *whole, const char *what,
                       bl_mempol *out, int single, bl_err *err)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int rc = bl_cpuset_parse_list(text, set, NULL);
    if (rc == 0 && hwloc_bitmap_last(set) >= NODE_BITS)
        rc = -1;
    if (rc == 0 && single && hwloc_bitmap_weight(set) != 1)
        rc = -2;
    hwloc_bitmap_free(set);
    if (rc == -2)
        return bl_err_set(err, "%s: '%s' names more than one node; "
                          "preferred takes one (e.g. preferred:1)",
                          what, whole);
    if (rc < 0 || strlen(text) >= sizeof out->nodes)
        return bl_err_set(err, "%s: '%s': expected NUMA node numbers "
                          "such as 0-1,3 after the ':'", what, whole);
    strcpy(out->nodes, text);
    return 0;
}

int bl_mempol_parse(const char *text, const char *what, bl_mempol *out,
                    bl_err *err)
{
    const char *colon = strchr(text, ':');
    size_t head = colon ? (size_t)(colon - text) : strlen(text);
    const char *tail = colon ? colon + 1 : NULL;
    memset(out, 0, sizeof *out);
    if (strlen(text) >= sizeof out->asked)
        return bl_err_set(err, "%s: '%.40s...' is too long", what, text);
    strcpy(out->asked, text);
    if (head == 10 && strncmp(text, "firsttouch", head) == 0 && !tail) {
        out->kind = BL_MEMPOL_FIRSTTOUCH;
        return 0;
    }
    if (head == 10 && strncmp(text, "interleave", head) == 0) {
        out->kind = BL_MEMPOL_INTERLEAVE;
        return tail ? parse_nodes(tail, text, what, out, 0, err) : 0;
    }
    if (head == 4 && strncmp(text, "bind", head) == 0 && tail) {
        out->kind = BL_MEMPOL_BIND;
        if (strcmp(tail, "local-to-rank") == 0) {
            out->kind = BL_MEMPOL_BIND_LOCAL;
            return 0;
        }
        return parse_nodes(tail, text, what, out, 0, err);
    }
    if (head == 9 && strncmp(text, "preferred", head) == 0 && tail) {
        out->kind = BL_MEMPOL_PREFERRED;
        return parse_nodes(tail, text, what, out, 1, err);
    }
    return bl_err_set(err, "%s: '%s' is not accepted; use firsttouch, "
                      "interleave[:NODES], bind:NODES, bind:local-to-rank "
                      "or preferred:NODE", what, text);
}

