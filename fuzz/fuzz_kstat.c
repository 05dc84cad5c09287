/* libFuzzer target: the parsers of the kernel's memory accounts
 * (common/kstat.c): /proc/self/smaps, /proc/vmstat, a task's sched file
 * and a sysfs choice. The first byte picks the parser, the next 8 the
 * start of a span for smaps (16 MiB long), the rest is the text. Checks
 * what each promises: sums never negative, a mapping counted at most once
 * per header line, a vmstat field -1 or a count, a choice NUL-terminated
 * inside its buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t headers(const char *text)
{
    size_t n = 1;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

static void smaps(const char *text, uintptr_t lo)
{
    bl_span span = {lo, lo + ((uintptr_t)16 << 20)};
    long long rss = 0, huge = 0;
    int n = bl_smaps_parse(text, &span, 1, &rss, &huge);
    if (n < 0 || (size_t)n > headers(text) || rss < 0 || huge < 0)
        abort();
}

static void vmstat_and_sched(const char *text)
{
    bl_vm_numa v;
    long long m = 0, f = 0;
    bl_vmstat_parse(text, &v);
    if (v.hint_faults < -1 || v.hint_faults_local < -1 ||
        v.pages_migrated < -1 || v.pte_updates < -1 ||
        v.pgmigrate_success < -1)
        abort();
    if (bl_sched_numa_parse(text, &m, &f) && (m < 0 || f < 0))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t lo = 0;
    char *text, mode[16];
    if (size < 9 || !(text = malloc(size - 8)))
        return 0;
    memcpy(&lo, data + 1, 8);
    memcpy(text, data + 9, size - 9);
    text[size - 9] = '\0';
    switch (data[0] % 3) {
    case 0:
        smaps(text, (uintptr_t)lo);
        break;
    case 1:
        vmstat_and_sched(text);
        break;
    default:
        memset(mode, 'x', sizeof mode);
        bl_sysfs_choice(text, mode, sizeof mode);
        if (!memchr(mode, '\0', sizeof mode))
            abort();
        break;
    }
    free(text);
    return 0;
}
