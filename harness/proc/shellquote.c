#include "proc/shellquote.h"

#include <stdlib.h>
#include <string.h>

static int safe_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || strchr("_@%+=:,./-", c) != NULL;
}

char *bl_shell_quote(const char *word)
{
    size_t n = strlen(word), quotes = 0;
    int bare = n > 0;
    char *out, *p;
    for (size_t i = 0; i < n; i++) {
        bare &= safe_char(word[i]);
        quotes += word[i] == '\'';
    }
    if (bare)
        return strdup(word);
    out = malloc(n + 3 * quotes + 3);
    if (!out)
        return NULL;
    p = out;
    *p++ = '\'';
    for (size_t i = 0; i < n; i++) {
        if (word[i] == '\'') {
            /* close the quote, an escaped quote, reopen */
            memcpy(p, "'\\''", 4);
            p += 4;
        } else {
            *p++ = word[i];
        }
    }
    *p++ = '\'';
    *p = '\0';
    return out;
}

char *bl_shell_join(char *const *argv)
{
    size_t len = 1, used = 0;
    char *out;
    for (size_t i = 0; argv[i]; i++) {
        char *q = bl_shell_quote(argv[i]);
        if (!q)
            return NULL;
        len += strlen(q) + 1;
        free(q);
    }
    out = malloc(len);
    if (!out)
        return NULL;
    out[0] = '\0';
    for (size_t i = 0; argv[i]; i++) {
        char *q = bl_shell_quote(argv[i]);
        size_t qn = strlen(q);
        if (i)
            out[used++] = ' ';
        memcpy(out + used, q, qn + 1);
        used += qn;
        free(q);
    }
    return out;
}
