/* Parsers and readers of the kernel's memory accounts (kstat.h). */
#include "kstat.h"

#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"

/* The next line of *text as [*line, *line + *n); 0 at the end. */
static int next_line(const char **text, const char **line, size_t *n)
{
    const char *s = *text, *nl;
    if (!*s)
        return 0;
    nl = strchr(s, '\n');
    *line = s;
    *n = nl ? (size_t)(nl - s) : strlen(s);
    *text = nl ? nl + 1 : s + *n;
    return 1;
}

/* The number after "name" and blanks or a colon, when the line starts with
 * the whole word name; else 0. */
static int field(const char *line, size_t n, const char *name, long long *v)
{
    size_t k = strlen(name);
    char buf[64], *end;
    if (n <= k || strncmp(line, name, k) != 0 ||
        (line[k] != ' ' && line[k] != ':' && line[k] != '\t'))
        return 0;
    line += k;
    n -= k;
    while (n && (*line == ' ' || *line == ':' || *line == '\t')) {
        line++;
        n--;
    }
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, line, n);
    buf[n] = '\0';
    if (buf[0] < '0' || buf[0] > '9') /* counters are never negative */
        return 0;
    errno = 0;
    *v = strtoll(buf, &end, 10);
    return end != buf && errno == 0;
}

/* *sum += v, stopping at LLONG_MAX (a damaged file cannot overflow it). */
static void add_capped(long long *sum, long long v)
{
    *sum = v > LLONG_MAX - *sum ? LLONG_MAX : *sum + v;
}

void bl_vmstat_parse(const char *text, bl_vm_numa *v)
{
    static const struct {
        const char *name;
        size_t off;
    } names[] = {
        {"numa_hint_faults", offsetof(bl_vm_numa, hint_faults)},
        {"numa_hint_faults_local", offsetof(bl_vm_numa, hint_faults_local)},
        {"numa_pages_migrated", offsetof(bl_vm_numa, pages_migrated)},
        {"numa_pte_updates", offsetof(bl_vm_numa, pte_updates)},
        {"pgmigrate_success", offsetof(bl_vm_numa, pgmigrate_success)},
    };
    const char *line;
    size_t n;
    v->hint_faults = v->hint_faults_local = v->pages_migrated =
        v->pte_updates = v->pgmigrate_success = -1;
    while (text && next_line(&text, &line, &n))
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            field(line, n, names[i].name,
                  (long long *)((char *)v + names[i].off));
}

int bl_sched_numa_parse(const char *text, long long *migrated,
                        long long *faults)
{
    long long m = -1, f = -1, x;
    const char *line;
    size_t n;
    while (text && next_line(&text, &line, &n)) {
        if (field(line, n, "numa_pages_migrated", &x))
            m = x;
        else if (field(line, n, "total_numa_faults", &x))
            f = x;
    }
    if (m < 0 || f < 0)
        return 0;
    add_capped(migrated, m);
    add_capped(faults, f);
    return 1;
}

/* A mapping's header "lo-hi perms ...": its range, or 0 for other lines. */
static int vma_header(const char *line, size_t n, uintptr_t *lo,
                      uintptr_t *hi)
{
    char buf[80], *dash, *end;
    size_t k = n < sizeof buf - 1 ? n : sizeof buf - 1;
    memcpy(buf, line, k);
    buf[k] = '\0';
    errno = 0;
    *lo = (uintptr_t)strtoull(buf, &dash, 16);
    if (dash == buf || *dash != '-' || errno)
        return 0;
    *hi = (uintptr_t)strtoull(dash + 1, &end, 16);
    return end != dash + 1 && *end == ' ' && errno == 0 && *hi > *lo;
}

static int overlaps(uintptr_t lo, uintptr_t hi, const bl_span *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].lo < hi && lo < s[i].hi)
            return 1;
    return 0;
}

int bl_smaps_parse(const char *text, const bl_span *spans, size_t n,
                   long long *rss_kb, long long *huge_kb)
{
    int counted = 0, in = 0;
    const char *line;
    size_t len;
    long long v;
    uintptr_t lo, hi;
    while (text && next_line(&text, &line, &len)) {
        if (vma_header(line, len, &lo, &hi)) {
            in = overlaps(lo, hi, spans, n);
            counted += in;
        } else if (in && field(line, len, "Rss", &v)) {
            add_capped(rss_kb, v);
        } else if (in && field(line, len, "AnonHugePages", &v)) {
            add_capped(huge_kb, v);
        }
    }
    return counted;
}

void bl_sysfs_choice(const char *text, char *out, size_t len)
{
    const char *a = text ? strchr(text, '[') : NULL;
    const char *b = a ? strchr(a, ']') : NULL;
    size_t k = b ? (size_t)(b - a - 1) : 0;
    if (len == 0)
        return;
    if (k >= len)
        k = 0;
    memcpy(out, b ? a + 1 : "", k);
    out[k] = '\0';
}

char *bl_kstat_read(const char *path)
{
    bl_strbuf b = {0};
    char chunk[8192];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        bl_strbuf_add(&b, chunk, (size_t)got);
    }
    close(fd);
    return bl_strbuf_take(&b);
}

int bl_numa_balancing_read(void)
{
    char *text = bl_kstat_read("/proc/sys/kernel/numa_balancing");
    int v = text && *text >= '0' && *text <= '9' ? atoi(text) : -1;
    free(text);
    return v;
}

void bl_vmstat_read(bl_vm_numa *v)
{
    char *text = bl_kstat_read("/proc/vmstat");
    bl_vmstat_parse(text, v);
    free(text);
}

void bl_sched_numa_read(long long *migrated, long long *faults)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int any = 0;
    *migrated = *faults = 0;
    while (d && (e = readdir(d)) != NULL) {
        char path[288], *text;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/sched", e->d_name);
        if ((text = bl_kstat_read(path)) != NULL)
            any |= bl_sched_numa_parse(text, migrated, faults);
        free(text);
    }
    if (d)
        closedir(d);
    if (!any)
        *migrated = *faults = -1;
}

void bl_thp_read(char *mode, size_t len, long long *huge_bytes)
{
    char *text = bl_kstat_read("/sys/kernel/mm/transparent_hugepage/enabled");
    bl_sysfs_choice(text, mode, len);
    free(text);
    text = bl_kstat_read("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
    *huge_bytes = text ? atoll(text) : 0;
    free(text);
}

double bl_smaps_huge_share(const bl_span *spans, size_t n)
{
    char *text = bl_kstat_read("/proc/self/smaps");
    long long rss = 0, huge = 0;
    if (!text)
        return -1.0;
    bl_smaps_parse(text, spans, n, &rss, &huge);
    free(text);
    if (rss <= 0)
        return -1.0;
    return huge >= rss ? 1.0 : (double)huge / (double)rss;
}
