/* Small pieces the rules of `bindlab check` share (placement_check*.c):
 * building findings, writing sets, reading OpenMP list values. */
#include "placement_check.h"
#include "placement_check_priv.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cpuset.h"

void bl_pcheck_add(bl_pcheck_findings *f, const char *id,
                   bl_pcheck_severity sev, const char *fmt, ...)
{
    if (f->n >= BL_PCHECK_MAX_FINDINGS)
        return;
    bl_pcheck_finding *x = &f->item[f->n++];
    x->id = id;
    x->severity = sev;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->text, sizeof x->text, fmt, ap);
    va_end(ap);
    if (sev == BL_PCHECK_WARNING)
        f->warnings++;
}

bl_pcheck_list bl_pcheck_list_text(hwloc_const_bitmap_t set)
{
    bl_pcheck_list t;
    if (hwloc_bitmap_iszero(set)) {
        strcpy(t.s, "none");
        return t;
    }
    int need = bl_cpuset_format_list(set, t.s, sizeof t.s);
    if (need < 0 || (size_t)need >= sizeof t.s)
        strcpy(t.s + sizeof t.s - 2, "+");
    return t;
}

void bl_pcheck_first_item(const char *v, char *buf, size_t len)
{
    while (isspace((unsigned char)*v))
        v++;
    size_t n = strcspn(v, ",");
    while (n > 0 && isspace((unsigned char)v[n - 1]))
        n--;
    if (n >= len)
        n = len - 1;
    memcpy(buf, v, n);
    buf[n] = '\0';
}

int bl_pcheck_kmp_binds(const char *kmp_affinity)
{
    static const char *const types[] = {"none",     "compact",  "scatter",
                                        "explicit", "balanced", "disabled",
                                        "logical",  "physical"};
    if (!kmp_affinity)
        return 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", kmp_affinity);
    int depth = 0;
    for (char *p = buf; *p; p++) { /* commas inside [..] are the proclist's */
        depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
        if (*p == ',' && depth > 0)
            *p = ' ';
    }
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        t += strspn(t, " \t");
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
            if (strncasecmp(t, types[i], strlen(types[i])) == 0 &&
                !isalnum((unsigned char)t[strlen(types[i])]))
                return 1;
    }
    return 0;
}


int bl_pcheck_llvm(const bl_pcheck_state *s)
{
    return s->omp_runtime == BL_OMP_RT_LIBOMP || s->omp_runtime == BL_OMP_RT_INTEL;
}

const char *bl_pcheck_plural(hwloc_const_bitmap_t set)
{
    return hwloc_bitmap_weight(set) == 1 ? "" : "s";
}
