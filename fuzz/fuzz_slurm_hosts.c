/* libFuzzer target: the reader of `scontrol show hostnames` (the nodes of
 * the Slurm allocation a sweep runs in, harness/slurm/slurm_alloc.c). Checks what
 * it promises: on success every host is a non-empty name of letters,
 * digits, '.', '-', '_' not starting with '-', the --host list of all of
 * them has one "NAME:SLOTS" per host, and the hosts printed one per line
 * read back the same; on failure nothing is left allocated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm_alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *again, list[8192];
    bl_slurm_alloc a, b;
    bl_err err;
    size_t len = 0;
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (bl_slurm_alloc_parse(text, &a, &err) < 0) {
        if (a.n != 0 || a.hosts)
            abort();
        free(text);
        return 0;
    }
    for (int i = 0; i < a.n; i++) {
        const char *h = a.hosts[i];
        if (!*h || h[0] == '-' ||
            strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                      "0123456789.-_") != strlen(h))
            abort();
        len += strlen(h) + 1;
    }
    if (a.n > 0 &&
        bl_slurm_alloc_host_list(&a, a.n, 2, list, sizeof list, &err) == 0) {
        int commas = 0;
        for (const char *p = list; *p; p++)
            commas += *p == ',';
        if (commas != a.n - 1)
            abort();
    }
    again = malloc(len + 1);
    if (!again)
        abort();
    again[0] = '\0';
    for (int i = 0; i < a.n; i++) {
        strcat(again, a.hosts[i]);
        strcat(again, "\n");
    }
    if (bl_slurm_alloc_parse(again, &b, &err) < 0 || b.n != a.n)
        abort();
    for (int i = 0; i < a.n; i++)
        if (strcmp(a.hosts[i], b.hosts[i]))
            abort();
    bl_slurm_alloc_free(&a);
    bl_slurm_alloc_free(&b);
    free(again);
    free(text);
    return 0;
}
