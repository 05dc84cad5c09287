/* The files of a --node-topologies DIR (node_topos.h). */
#include "layout/node_topos.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys_util.h"

static const char *const forms[] = {"%s/%s.xml", "%s/nodes/%s/lstopo.xml",
                                    "%s/%s/lstopo.xml"};
#define NFORMS (sizeof forms / sizeof forms[0])

int bl_node_topos_path(const char *dir, const char *host, char *buf,
                       size_t len)
{
    for (size_t i = 0; i < NFORMS; i++)
        if (bl_textf(buf, len, forms[i], dir, host) == 0 &&
            access(buf, R_OK) == 0)
            return 0;
    return -1;
}

typedef struct names {
    char **v;
    int n, cap;
} names;

static int add(names *s, const char *name, size_t len)
{
    char **grown;
    for (int i = 0; i < s->n; i++)
        if (strlen(s->v[i]) == len && strncmp(s->v[i], name, len) == 0)
            return 0;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        if (!(grown = realloc(s->v, (size_t)cap * sizeof *grown)))
            return -1;
        s->v = grown;
        s->cap = cap;
    }
    if (!(s->v[s->n] = strndup(name, len)))
        return -1;
    s->n++;
    return 0;
}

/* The hosts of one form in sub (dir itself, or dir/nodes): HOST.xml files
 * (xml 1) or HOST/lstopo.xml directories (xml 0). */
static int scan(const char *sub, int xml, names *s)
{
    DIR *d = opendir(sub);
    struct dirent *e;
    int rc = 0;
    if (!d)
        return 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char path[4096];
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        if (xml) {
            if (len > 4 && strcmp(e->d_name + len - 4, ".xml") == 0)
                rc = add(s, e->d_name, len - 4);
        } else if (bl_textf(path, sizeof path, "%s/%s/lstopo.xml", sub,
                            e->d_name) == 0 &&
                   access(path, R_OK) == 0) {
            rc = add(s, e->d_name, len);
        }
    }
    closedir(d);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strverscmp(*(char *const *)a, *(char *const *)b);
}

int bl_node_topos_hosts(const char *dir, char ***hosts, int *n, bl_err *err)
{
    names s = {0};
    char nodes[4096];
    *hosts = NULL;
    *n = 0;
    if (access(dir, X_OK) != 0)
        return bl_err_set(err, "--node-topologies %s: no such directory "
                          "(give the directory holding HOST.xml for each "
                          "node, or a bindlab slurm job's record with "
                          "nodes/HOST/lstopo.xml)", dir);
    if (bl_textf(nodes, sizeof nodes, "%s/nodes", dir) < 0 ||
        scan(dir, 1, &s) < 0 || scan(nodes, 0, &s) < 0 || scan(dir, 0, &s) < 0) {
        bl_node_topos_hosts_free(s.v, s.n);
        return bl_err_set(err, "--node-topologies %s: out of memory", dir);
    }
    if (s.n == 0)
        return bl_err_set(err, "--node-topologies %s: no node topology in "
                          "it (accepted: HOST.xml, nodes/HOST/lstopo.xml, "
                          "HOST/lstopo.xml)", dir);
    qsort(s.v, (size_t)s.n, sizeof *s.v, by_name);
    *hosts = s.v;
    *n = s.n;
    return 0;
}

void bl_node_topos_hosts_free(char **hosts, int n)
{
    for (int i = 0; hosts && i < n; i++)
        free(hosts[i]);
    free(hosts);
}
