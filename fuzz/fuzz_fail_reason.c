/* libFuzzer target: the picker of a failed run's reason line
 * (harness/sweep/fail_reason.c). Checks what it promises: the line written is
 * NUL-terminated within the buffer, has no newline, and (for a buffer large
 * enough) is empty only when the input says nothing (or only the app's
 * started line); the input split at
 * any point into head and tail gives a line too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app_started.h"
#include "sweep/fail_reason.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *head, const char *tail, size_t cap)
{
    /* (the app's started line alone says nothing of a failure) */
    int says = head && head[strspn(head, " \t\r-=\n")] != '\0' &&
               !strstr(head, BL_APP_STARTED);
    char buf[600];
    memset(buf, 'x', sizeof buf);
    bl_fail_reason(head, tail, buf, cap);
    if (cap == 0)
        return;
    const char *nul = memchr(buf, '\0', cap);
    if (!nul || memchr(buf, '\n', (size_t)(nul - buf)))
        abort();
    if (cap < sizeof buf && buf[cap] != 'x') /* wrote past its buffer */
        abort();
    if (says && cap > 1 && buf[0] == '\0')
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    size_t cut = size ? data[0] % (size + 1) : 0;
    check(text, "", 512);
    check("", text, 512);
    check(text, text + (cut <= strlen(text) ? cut : strlen(text)), 512);
    check(text, NULL, 1 + (size ? data[size - 1] % 64 : 0));
    free(text);
    return 0;
}
