/* Reading PCI functions from sysfs (sysfs_pci.h). */
#include "sysfs_pci.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "gpu_assign.h"
#include "grow.h"
#include "sys_util.h"

const char *bl_sysfs_root(void)
{
    const char *r = getenv("BINDLAB_SYSFS_ROOT");
    return r && *r ? r : "/sys";
}

/* root/bus/pci/devices/bus/file into buf, trailing newline cut; "" when
 * it cannot be read. */
static void read_attr(const char *root, const char *bus, const char *file,
                      char *buf, size_t len)
{
    char path[PATH_MAX];
    buf[0] = '\0';
    if (snprintf(path, sizeof path, "%s/bus/pci/devices/%s/%s", root, bus,
                 file) >= (int)sizeof path ||
        bl_read_small_file(path, buf, len) < 0)
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

/* Fills f from the function's files; 0 when it is a GPU, 1 when not, -1
 * when out of memory. */
static int read_fn(const char *root, const char *bus, bl_pci_fn *f)
{
    char v[64], c[64], n[32], cpus[4096];
    bl_err ignored;
    read_attr(root, bus, "vendor", v, sizeof v);
    read_attr(root, bus, "class", c, sizeof c);
    memset(f, 0, sizeof *f);
    f->vendor = (unsigned)strtoul(v, NULL, 16);
    /* class is 0xCCSSPP: class, subclass, programming interface */
    f->class_id = (unsigned)(strtoul(c, NULL, 16) >> 8);
    if (!bl_pci_is_gpu(f->class_id, f->vendor))
        return 1;
    snprintf(f->busid, sizeof f->busid, "%.15s", bus);
    read_attr(root, bus, "numa_node", n, sizeof n);
    f->numa_node = n[0] ? atoi(n) : -1;
    read_attr(root, bus, "local_cpulist", cpus, sizeof cpus);
    if (!(f->local_cpus = hwloc_bitmap_alloc()))
        return -1;
    if (cpus[0] && bl_cpuset_parse_list(cpus, f->local_cpus, &ignored) < 0)
        hwloc_bitmap_zero(f->local_cpus);
    return 0;
}

static int cmp_fn(const void *a, const void *b)
{
    return strcmp(((const bl_pci_fn *)a)->busid,
                  ((const bl_pci_fn *)b)->busid);
}

int bl_pci_gpus_read(const char *root, bl_pci_list *out, bl_err *err)
{
    char path[PATH_MAX];
    size_t cap = 0;
    struct dirent *e;
    DIR *d;

    memset(out, 0, sizeof *out);
    snprintf(path, sizeof path, "%s/bus/pci/devices", root);
    if (!(d = opendir(path)))
        return 0;
    while ((e = readdir(d))) {
        int rc;
        if (e->d_name[0] == '.')
            continue;
        if (bl_grow(&out->fn, sizeof *out->fn, (size_t)out->n, &cap, 8) < 0 ||
            (rc = read_fn(root, e->d_name, &out->fn[out->n])) < 0) {
            closedir(d);
            bl_pci_list_free(out);
            return bl_err_set(err, "%s: out of memory", path);
        }
        out->n += rc == 0;
    }
    closedir(d);
    if (out->n > 1)
        qsort(out->fn, (size_t)out->n, sizeof *out->fn, cmp_fn);
    return 0;
}

void bl_pci_list_free(bl_pci_list *l)
{
    for (int i = 0; l->fn && i < l->n; i++)
        hwloc_bitmap_free(l->fn[i].local_cpus);
    free(l->fn);
    memset(l, 0, sizeof *l);
}
