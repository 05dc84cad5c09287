#include "plan/plan_picture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "proc/launch.h"

const char *bl_plan_picture_format(const char *path)
{
    static const char *const formats[] = {"png", "svg", "pdf"};
    const char *dot = path ? strrchr(path, '.') : NULL;
    for (size_t i = 0; dot && i < sizeof formats / sizeof formats[0]; i++)
        if (strcasecmp(dot + 1, formats[i]) == 0)
            return formats[i];
    return NULL;
}

/* Light colours, so that lstopo's black text stays readable; a rank gets
 * palette[rank % n]. */
static const char *const palette[] = {
    "ffb3ba", "baffc9", "bae1ff", "ffffba", "e0bbff", "ffdfba",
    "b5ead7", "c7ceea", "f4c2c2", "d4f0f0", "fce1e4", "e2f0cb"};
#define NPALETTE (sizeof palette / sizeof palette[0])

/* Names gathered per object before the Misc objects are inserted (the copy
 * must not change while objects are looked up). */
typedef struct note {
    hwloc_obj_t obj;
    char *text;
    int more;       /* names left out to keep the label short */
} note;

#define NOTE_MAX 48 /* characters of names on one object */

static note *note_for(note *notes, size_t *n, hwloc_obj_t obj)
{
    for (size_t i = 0; i < *n; i++)
        if (notes[i].obj == obj)
            return &notes[i];
    notes[*n].obj = obj;
    notes[*n].text = NULL;
    notes[*n].more = 0;
    return &notes[(*n)++];
}

static int note_add(note *nt, const char *name)
{
    size_t have = nt->text ? strlen(nt->text) : 0;
    char *t;
    if (have + 1 + strlen(name) > NOTE_MAX) {
        nt->more++;
        return 0;
    }
    if (!(t = realloc(nt->text, have + strlen(name) + 2)))
        return -1;
    snprintf(t + have, strlen(name) + 2, "%s%s", have ? " " : "", name);
    nt->text = t;
    return 0;
}

/* The object a label goes to: the smallest one holding set, lifted from a
 * cache to the core when they hold the same PUs (lstopo draws a core's
 * children inside it, a cache's around it). */
static hwloc_obj_t holder(hwloc_topology_t t, hwloc_const_bitmap_t set)
{
    hwloc_obj_t o = hwloc_get_obj_covering_cpuset(t, set);
    hwloc_obj_t core = o ? hwloc_get_obj_inside_cpuset_by_type(
                               t, o->cpuset, HWLOC_OBJ_CORE, 0)
                         : NULL;
    if (o && core && hwloc_bitmap_isequal(core->cpuset, o->cpuset))
        return core;
    return o ? o : hwloc_get_root_obj(t);
}

static void colour_pus(hwloc_topology_t t, hwloc_const_bitmap_t set, int rank)
{
    char style[64];
    hwloc_obj_t pu = NULL;
    snprintf(style, sizeof style, "Background=#%s",
             palette[(unsigned)rank % NPALETTE]);
    while ((pu = hwloc_get_next_obj_covering_cpuset_by_type(
                t, set, HWLOC_OBJ_PU, pu)) != NULL)
        if (!hwloc_obj_get_info_by_name(pu, "lstopoStyle"))
            hwloc_obj_add_info(pu, "lstopoStyle", style);
}

static int collect(hwloc_topology_t t, const bl_plan *p, note *notes,
                   size_t *n)
{
    char name[64];
    int last_floating = -1;
    size_t rows = p->nthreads ? p->nthreads : (size_t)p->nranks;

    for (size_t i = 0; i < rows; i++) {
        int rank = bl_plan_rank_number(p, p->nthreads ? p->threads[i].rank
                                                      : (int)i);
        int thread = p->nthreads ? p->threads[i].thread : -1;
        int place = p->nthreads ? p->threads[i].place
                                : (p->rank_bound && !p->rank_bound[i] ? -1 : 0);
        hwloc_const_bitmap_t set = p->nthreads ? p->threads[i].pus
                                               : p->rank_pus[i];
        hwloc_obj_t core = hwloc_get_next_obj_covering_cpuset_by_type(
            t, set, HWLOC_OBJ_CORE, NULL);
        int pinned = core && hwloc_bitmap_isincluded(set, core->cpuset);

        if (!pinned && place < 0) {
            /* Unbound threads: one name for the rank, not one per thread. */
            if (rank == last_floating)
                continue;
            last_floating = rank;
            snprintf(name, sizeof name, "rank %d: threads float", rank);
        } else if (thread >= 0)
            snprintf(name, sizeof name, "%d.%d%s", rank, thread,
                     pinned ? "" : "~");
        else
            snprintf(name, sizeof name, "rank %d", rank);
        if (pinned)
            colour_pus(t, set, rank);
        if (note_add(note_for(notes, n, holder(t, set)), name) < 0)
            return -1;
    }
    return 0;
}

/* A copy of topo that accepts Misc objects: a loaded topology keeps the
 * type filters it was loaded with (Misc may be filtered out), so the copy
 * is reloaded from topo's XML with Misc kept. */
static int copy_with_misc(hwloc_topology_t topo, hwloc_topology_t *out,
                          bl_err *err)
{
    char *xml = NULL;
    int len = 0, rc = -1;
    hwloc_topology_t t;

    if (hwloc_topology_export_xmlbuffer(topo, &xml, &len, 0) < 0)
        return bl_err_set(err, "picture: cannot export the topology");
    if (hwloc_topology_init(&t) == 0) {
        hwloc_topology_set_type_filter(t, HWLOC_OBJ_MISC,
                                       HWLOC_TYPE_FILTER_KEEP_ALL);
        hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
        if (hwloc_topology_set_xmlbuffer(t, xml, len) == 0 &&
            hwloc_topology_load(t) == 0)
            rc = 0;
        else
            hwloc_topology_destroy(t);
    }
    hwloc_free_xmlbuffer(topo, xml);
    if (rc < 0)
        return bl_err_set(err, "picture: cannot copy the topology");
    *out = t;
    return 0;
}

int bl_plan_picture_topology(hwloc_topology_t topo, const bl_plan *p,
                             hwloc_topology_t *out, bl_err *err)
{
    hwloc_topology_t t = NULL;
    size_t rows = p->nthreads ? p->nthreads : (size_t)(p->nranks > 0 ? p->nranks : 0);
    note *notes;
    size_t n = 0;
    int rc = 0;

    if (copy_with_misc(topo, &t, err) < 0)
        return -1;
    if (!(notes = calloc(rows ? rows : 1, sizeof *notes))) {
        hwloc_topology_destroy(t);
        return bl_err_set(err, "picture: out of memory");
    }
    if (collect(t, p, notes, &n) < 0)
        rc = bl_err_set(err, "picture: out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char label[NOTE_MAX + 32];
        if (notes[i].more)
            snprintf(label, sizeof label, "%s +%d", notes[i].text,
                     notes[i].more);
        else
            snprintf(label, sizeof label, "%s", notes[i].text);
        if (!hwloc_topology_insert_misc_object(t, notes[i].obj, label))
            rc = bl_err_set(err, "picture: hwloc refused a Misc object "
                            "under %s %u", hwloc_obj_type_string(
                                notes[i].obj->type),
                            notes[i].obj->logical_index);
    }
    for (size_t i = 0; i < n; i++)
        free(notes[i].text);
    free(notes);
    if (rc < 0) {
        hwloc_topology_destroy(t);
        return rc;
    }
    *out = t;
    return 0;
}

/* A new empty file named like pattern (ending in XXXXXX then suffix). */
static int make_temp(char *pattern, int suffixlen, bl_err *err)
{
    int fd = mkstemps(pattern, suffixlen);
    if (fd < 0)
        return bl_err_set(err, "picture: cannot create '%s': %s", pattern,
                          strerror(errno));
    close(fd);
    return 0;
}

static int run_lstopo(const char *xml, const char *format, const char *out,
                      const char *title, bl_err *err)
{
    char *argv[24];
    int a = 0, rc = 0;
    bl_launch_opts o;
    bl_launch_result res;
    char what[256], last[512];

    argv[a++] = "lstopo";
    argv[a++] = "--if";
    argv[a++] = "xml";
    argv[a++] = "--input";
    argv[a++] = (char *)xml;
    argv[a++] = "--of";
    /* lstopo's own SVG keeps labels as text (searchable, selectable);
     * cairo's draws them as outlines. */
    argv[a++] = strcmp(format, "svg") == 0 ? "nativesvg" : (char *)format;
    /* Every core drawn, not "96 x identical"; labels differ per core. */
    argv[a++] = "--no-factorize";
    /* L1 and L2 boxes around every core only make the picture taller. */
    argv[a++] = "--filter";
    argv[a++] = "cache:none";
    argv[a++] = "--filter";
    argv[a++] = "l3cache:all";
    /* The host and date of the default legend mean nothing for a plan. */
    argv[a++] = "--no-default-legend";
    if (title && *title) {
        argv[a++] = "--append-legend";
        argv[a++] = (char *)title;
    }
    argv[a++] = "-f";   /* the temporary output file exists already */
    argv[a++] = (char *)out;
    argv[a] = NULL;
    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.timeout_s = 300;
    if (bl_launch_run(&o, &res, err) < 0) {
        bl_launch_result_free(&res);
        return bl_err_prefix(err, "picture: lstopo (Debian package hwloc)");
    }
    if (!res.exited || res.exit_status != 0) {
        bl_launch_describe(&res, &o, what, sizeof what);
        bl_launch_last_lines(&res.errs, 2, last, sizeof last);
        for (char *c = last; *c; c++)
            if (*c == '\n')
                *c = ' ';
        rc = bl_err_set(err, "picture: lstopo --of %s failed (%s)%s%s",
                        format, what, *last ? ": " : "", last);
    }
    bl_launch_result_free(&res);
    return rc;
}

int bl_plan_picture(hwloc_topology_t topo, const bl_plan *p, const char *path,
                    const char *title, bl_err *err)
{
    const char *format = bl_plan_picture_format(path);
    const char *tmpdir = getenv("TMPDIR");
    char xml[4096], out[4096];
    hwloc_topology_t t = NULL;
    int rc;

    if (!format)
        return bl_err_set(err, "--picture '%s': the name must end in .png, "
                          ".svg or .pdf (the format lstopo writes)", path);
    /* Only a regular file (or nothing) is replaced: as root, a device at
     * path would otherwise become a picture. Before lstopo runs, so a bad
     * name costs nothing. */
    if (bl_atomic_check_target(path, err) < 0) {
        bl_err_prefix(err, "--picture");
        return BL_PLAN_PICTURE_REFUSED;
    }
    if (bl_textf(xml, sizeof xml, "%s/bindlab-plan-XXXXXX.xml",
                 tmpdir && *tmpdir ? tmpdir : "/tmp") < 0 ||
        bl_textf(out, sizeof out, "%s.partXXXXXX", path) < 0)
        return bl_err_set(err, "--picture '%s': path too long", path);
    if (bl_plan_picture_topology(topo, p, &t, err) < 0)
        return -1;
    if (make_temp(xml, 4, err) < 0) {
        hwloc_topology_destroy(t);
        return -1;
    }
    rc = hwloc_topology_export_xml(t, xml, 0);
    hwloc_topology_destroy(t);
    if (rc < 0) {
        unlink(xml);
        return bl_err_set(err, "picture: cannot write '%s': %s", xml,
                          strerror(errno));
    }
    if (make_temp(out, 0, err) < 0) {
        unlink(xml);
        return bl_err_prefix(err, "--picture '%s'", path);
    }
    rc = run_lstopo(xml, format, out, title, err);
    unlink(xml);
    /* mkstemp makes the file private; a picture is for sharing. */
    if (rc == 0) {
        mode_t mask = umask(0);
        umask(mask);
        chmod(out, 0666 & ~mask);
    }
    /* Once more right before the rename: path may have been replaced by
     * a device or directory while lstopo drew. */
    if (rc == 0 && bl_atomic_check_target(path, err) < 0) {
        bl_err_prefix(err, "--picture");
        rc = BL_PLAN_PICTURE_REFUSED;
    }
    if (rc == 0 && rename(out, path) < 0)
        rc = bl_err_set(err, "--picture '%s': %s", path, strerror(errno));
    if (rc < 0)
        unlink(out);
    return rc;
}
