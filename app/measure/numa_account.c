/* The kernel's account of a rank's memory (numa_account.h). */
#include "measure/numa_account.h"

#include <string.h>
#include <unistd.h>

void bl_numa_account_begin(bl_numa_account *a, size_t share_align)
{
    memset(a, 0, sizeof *a);
    a->numa_balancing = bl_numa_balancing_read();
    bl_thp_read(a->thp, sizeof a->thp, &a->huge_page_bytes);
    a->page_bytes = sysconf(_SC_PAGESIZE);
    a->share_align = (long long)share_align;
    a->huge_share = a->best_local_fraction = -1.0;
    bl_sched_numa_read(&a->task_migrated, &a->task_faults);
    bl_vmstat_read(&a->vm);
}

/* after - before, or -1 when either is unknown. */
static long long delta(long long before, long long after)
{
    return before < 0 || after < 0 ? -1 : after - before;
}

void bl_numa_account_end(bl_numa_account *a)
{
    long long migrated, faults;
    bl_vm_numa vm;
    bl_sched_numa_read(&migrated, &faults);
    bl_vmstat_read(&vm);
    a->task_migrated = delta(a->task_migrated, migrated);
    a->task_faults = delta(a->task_faults, faults);
    a->vm.hint_faults = delta(a->vm.hint_faults, vm.hint_faults);
    a->vm.hint_faults_local =
        delta(a->vm.hint_faults_local, vm.hint_faults_local);
    a->vm.pages_migrated = delta(a->vm.pages_migrated, vm.pages_migrated);
    a->vm.pte_updates = delta(a->vm.pte_updates, vm.pte_updates);
    a->vm.pgmigrate_success =
        delta(a->vm.pgmigrate_success, vm.pgmigrate_success);
}

void bl_numa_account_huge(bl_numa_account *a, const bl_span *spans, size_t n)
{
    a->huge_share = bl_smaps_huge_share(spans, n);
}
