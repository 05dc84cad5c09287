/* What the Linux kernel says about a process's memory: the NUMA-balancing
 * counters of /proc/vmstat (system-wide) and of /proc/<pid>/task/<tid>/
 * sched (per task, kernels with CONFIG_SCHED_DEBUG), the transparent huge
 * page settings, and how much of some address ranges /proc/self/smaps
 * shows backed by huge pages. The parsers take the files' text, so they
 * are tested on captured text; the readers are thin. */
#ifndef BL_KSTAT_H
#define BL_KSTAT_H

#include <stddef.h>
#include <stdint.h>

/* /proc/vmstat's NUMA-balancing counters; -1 when the kernel has none. */
typedef struct bl_vm_numa {
    long long hint_faults, hint_faults_local, pages_migrated, pte_updates,
        pgmigrate_success;
} bl_vm_numa;

/* Fills v from the text of /proc/vmstat ("name value" lines). */
void bl_vmstat_parse(const char *text, bl_vm_numa *v);

/* Adds a task's "numa_pages_migrated" and "total_numa_faults" (the text of
 * /proc/<pid>/task/<tid>/sched) to *migrated and *faults; returns 1 when
 * the text has them, else 0 (nothing added). */
int bl_sched_numa_parse(const char *text, long long *migrated,
                        long long *faults);

/* An address range [lo, hi). */
typedef struct bl_span {
    uintptr_t lo, hi;
} bl_span;

/* From the text of /proc/self/smaps: the Rss and AnonHugePages (kB) of
 * every mapping that overlaps one of spans[0..n) are added to *rss_kb and
 * *huge_kb (a mapping counts once). Mappings merge neighbouring anonymous
 * memory, so the figures are of the mappings that hold the spans.
 * Returns the mappings counted; malformed lines are skipped, sums stop at
 * LLONG_MAX. *rss_kb and *huge_kb must not be negative. */
int bl_smaps_parse(const char *text, const bl_span *spans, size_t n,
                   long long *rss_kb, long long *huge_kb);

/* The bracketed word of a sysfs choice ("always [madvise] never") into
 * out; "" when there is none. */
void bl_sysfs_choice(const char *text, char *out, size_t len);

/* ---- readers (this process, this machine) ---- */

/* The whole of a /proc or /sys file (they report size 0), malloc'ed and
 * NUL-terminated; NULL when it cannot be read. */
char *bl_kstat_read(const char *path);

/* /proc/sys/kernel/numa_balancing (0 off, 1 on, 2 tiering...), -1
 * unknown. */
int bl_numa_balancing_read(void);

/* /proc/vmstat now; every field -1 when it cannot be read. */
void bl_vmstat_read(bl_vm_numa *v);

/* The sum over this process's threads of their sched NUMA fields; both -1
 * when the kernel exposes none. */
void bl_sched_numa_read(long long *migrated, long long *faults);

/* THP "enabled" mode ("always", "madvise", "never"; "" unknown) and the
 * huge page size in bytes (hpage_pmd_size; 0 unknown). */
void bl_thp_read(char *mode, size_t len, long long *huge_bytes);

/* The share (0..1) of the mappings holding spans that is huge-page backed
 * (AnonHugePages / Rss of /proc/self/smaps); -1 when smaps cannot be read
 * or the spans hold nothing. */
double bl_smaps_huge_share(const bl_span *spans, size_t n);

#endif
