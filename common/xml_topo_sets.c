#include "xml_topo_sets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does the tag [tag, end) have an attribute named exactly name? */
static int has_attr(const char *tag, const char *end, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = tag; p + n < end; p++)
        if ((p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' ||
             p[-1] == '\r') &&
            strncmp(p, name, n) == 0 && p[n] == '=')
            return 1;
    return 0;
}

static void type_of(const char *tag, const char *end, char *buf,
                    size_t len)
{
    const char *t = strstr(tag, " type=\"");
    size_t n;
    if (!t || t >= end) {
        snprintf(buf, len, "?");
        return;
    }
    t += 7;
    n = strcspn(t, "\"");
    if (t + n > end)
        n = (size_t)(end - t);
    snprintf(buf, len, "%.*s", (int)(n < 32 ? n : 32), t);
}

int bl_xml_topo_sets_check(const char *text, char *why, size_t len)
{
    static const char *const pairs[][2] = {{"cpuset", "complete_cpuset"},
                                           {"nodeset", "complete_nodeset"}};
    const char *p = text;
    long k = 0;
    why[0] = '\0';
    while ((p = strstr(p, "<object")) != NULL) {
        const char *end = strchr(p, '>');
        char type[40];
        if (!end)
            end = p + strlen(p);
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
            if (has_attr(p + 1, end, pairs[i][0]) &&
                !has_attr(p + 1, end, pairs[i][1])) {
                type_of(p, end, type, sizeof type);
                snprintf(why, len, "object %ld (type \"%s\"): %s without %s",
                         k, type, pairs[i][0], pairs[i][1]);
                return 1;
            }
        k++;
        p = end;
    }
    return 0;
}

int bl_xml_topo_sets_check_file(const char *path, char *why, size_t len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    why[0] = '\0';
    if (!f)
        return 0;
    for (;;) {
        size_t got;
        if (cap - n < 65536) {
            char *bigger = realloc(text, cap + 65536 + 1);
            if (!bigger)
                break;
            text = bigger;
            cap += 65536;
        }
        got = fread(text + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    if (text) {
        text[n] = '\0';
        rc = bl_xml_topo_sets_check(text, why, len);
    }
    free(text);
    return rc;
}
