/* The GPUs and NICs of a topology and their locality (plan_devices.h). */
#include "plan/plan_devices.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* The OS devices under a PCI function, comma separated. */
static void os_names(hwloc_obj_t pci, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
        if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name)
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
                         c->name);
        if (n < 0 || (size_t)n >= len - used) {
            buf[used] = '\0';   /* a name that does not fit is left out */
            break;
        }
        used += (size_t)n;
    }
}

/* Its NUMA node and package (logical), -1 when several or none. */
static void locate(hwloc_topology_t topo, hwloc_obj_t anc,
                   bl_plan_device *d)
{
    hwloc_obj_t o;
    d->numa = d->package = -1;
    if (anc->nodeset && hwloc_bitmap_weight(anc->nodeset) == 1) {
        o = hwloc_get_numanode_obj_by_os_index(
            topo, (unsigned)hwloc_bitmap_first(anc->nodeset));
        d->numa = o ? (int)o->logical_index : -1;
    }
    for (o = anc; o && o->type != HWLOC_OBJ_PACKAGE; o = o->parent)
        ;
    if (o)
        d->package = (int)o->logical_index;
}

static int cmp_device(const void *a, const void *b)
{
    const bl_plan_device *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind == BL_DEVICE_GPU ? -1 : 1;
    return strcmp(x->busid, y->busid);
}

static int add_device(hwloc_topology_t topo, hwloc_obj_t pci,
                      bl_device_kind kind, bl_plan_devices *out, size_t *cap)
{
    const struct hwloc_pcidev_attr_s *a = &pci->attr->pcidev;
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, pci);
    bl_plan_device *d;

    if (bl_grow(&out->dev, sizeof *out->dev, (size_t)out->n, cap, 8) < 0)
        return -1;
    d = &out->dev[out->n];
    memset(d, 0, sizeof *d);
    d->kind = kind;
    snprintf(d->busid, sizeof d->busid, "%04x:%02x:%02x.%01x", a->domain,
             a->bus, a->dev, a->func);
    d->vendor = a->vendor_id;
    d->class_id = a->class_id;
    d->index = -1;
    os_names(pci, d->names, sizeof d->names);
    d->cpus = hwloc_bitmap_dup(anc && anc->cpuset
                                   ? anc->cpuset
                                   : hwloc_topology_get_topology_cpuset(topo));
    if (!d->cpus)
        return -1;
    if (anc)
        locate(topo, anc, d);
    out->n++;
    return 0;
}

int bl_plan_devices_find(hwloc_topology_t topo, bl_plan_devices *out,
                         bl_err *err)
{
    size_t cap = 0;
    memset(out, 0, sizeof *out);
    for (hwloc_obj_t pci = hwloc_get_next_pcidev(topo, NULL); pci;
         pci = hwloc_get_next_pcidev(topo, pci)) {
        unsigned cls = pci->attr->pcidev.class_id;
        int gpu = bl_pci_is_gpu(cls, pci->attr->pcidev.vendor_id);
        if (!gpu && !bl_pci_is_nic(cls))
            continue;
        if (add_device(topo, pci, gpu ? BL_DEVICE_GPU : BL_DEVICE_NIC, out,
                       &cap) < 0) {
            bl_plan_devices_free(out);
            return bl_err_set(err, "devices: out of memory");
        }
        out->ngpus += gpu;
    }
    if (out->n)
        qsort(out->dev, (size_t)out->n, sizeof *out->dev, cmp_device);
    /* each GPU's number among its vendor's, in bus order */
    for (int i = 0; i < out->ngpus; i++) {
        out->dev[i].index = 0;
        for (int j = 0; j < i; j++)
            out->dev[i].index += out->dev[j].vendor == out->dev[i].vendor;
    }
    return 0;
}

void bl_plan_devices_free(bl_plan_devices *d)
{
    for (int i = 0; d->dev && i < d->n; i++)
        hwloc_bitmap_free(d->dev[i].cpus);
    free(d->dev);
    memset(d, 0, sizeof *d);
}
