/* Reading a launcher's version text: the numbers of "4.1.4" or
 * "2021.8" and the line that holds a word. A leaf the launcher entries
 * use to recognise themselves (launcher_info.c asks them in turn). */
#include "launcher/launcher_info.h"
#include "launcher/launcher_priv.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Reads "4.1.4", "5.0.0rc12", "2021.8": up to three dot-separated numbers
 * at p. Stores the printed token (up to white space) in info->version.
 * Returns 0 if at least the major number is there. */
int bl_launcher_parse_numbers(const char *p, bl_launcher_info *info)
{
    int v[3] = {0, 0, 0}, k = 0;
    if (!isdigit((unsigned char)*p))
        return -1;
    const char *q = p;
    while (k < 3 && isdigit((unsigned char)*q)) {
        char *end;
        long x = strtol(q, &end, 10);
        if (x > 1000000)
            return -1;
        v[k++] = (int)x;
        q = end;
        if (*q != '.' || !isdigit((unsigned char)q[1]))
            break;
        q++;
    }
    info->major = v[0];
    info->minor = v[1];
    info->patch = v[2];
    size_t n = strcspn(p, " \t\r\n");
    if (n >= sizeof info->version)
        n = sizeof info->version - 1;
    memcpy(info->version, p, n);
    info->version[n] = '\0';
    return 0;
}

/* The start of the line holding needle, or NULL. */
const char *bl_launcher_line_with(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    if (!p)
        return NULL;
    while (p > text && p[-1] != '\n')
        p--;
    return p;
}
