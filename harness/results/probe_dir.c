/* Reads a directory of libbindlab-probe.so files (one per process, read
 * by probe_file.c) into one set: ordered by rank, host and pid, and each
 * image a process left behind by exec marked as such. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "results/probe_file.h"
#include "strbuf.h"

/* By rank (none last), host, pid. */
static int by_rank(const void *a, const void *b)
{
    const bl_probe_file *x = a, *y = b;
    int c;
    if ((x->rank < 0) != (y->rank < 0))
        return x->rank < 0 ? 1 : -1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if ((c = strcmp(x->host, y->host)) != 0)
        return c;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Marks the images a process left by exec: the files ended by an "exec"
 * line, and those of the same pid and start time (the same process on one
 * host) as a file that started later (with the host renamed in between,
 * the new image could not find the old file to mark it). */
static void mark_earlier_images(bl_probe_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        bl_probe_file *f = &s->files[i];
        f->earlier_image = f->execed;
        for (size_t j = 0; j < s->n && !f->earlier_image; j++) {
            const bl_probe_file *g = &s->files[j];
            f->earlier_image = j != i && f->pstart > 0 &&
                               g->pid == f->pid && g->pstart == f->pstart &&
                               g->start_unix > f->start_unix;
        }
    }
}

int bl_probe_dir_read(const char *dir, bl_probe_set *out, bl_err *err)
{
    struct dirent *e;
    DIR *d;
    int rc = 0;
    memset(out, 0, sizeof *out);
    if (!(d = opendir(dir)))
        return bl_err_set(err, "%s: %s", dir, strerror(errno));
    while (rc == 0 && (e = readdir(d))) {
        char path[4096];
        if (strncmp(e->d_name, "bindlab-probe.", 14) != 0)
            continue;
        if (bl_textf(path, sizeof path, "%s/%s", dir, e->d_name) != 0) {
            rc = bl_err_set(err, "%s/%s: path too long", dir, e->d_name);
        } else if (bl_grow(&out->files, sizeof *out->files, out->n, &out->cap, 8)) {
            rc = bl_err_set(err, "%s: out of memory", dir);
        } else {
            rc = bl_probe_file_read(path, &out->files[out->n], err);
            out->n++; /* read or not: freed with the set */
        }
    }
    closedir(d);
    if (rc == 0 && out->n > 0) { /* no file: files is NULL, not for qsort */
        qsort(out->files, out->n, sizeof *out->files, by_rank);
        mark_earlier_images(out);
    }
    return rc;
}

void bl_probe_set_free(bl_probe_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        bl_probe_file_free(&s->files[i]);
    free(s->files);
    memset(s, 0, sizeof *s);
}
